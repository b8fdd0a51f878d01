"""``python -m bot`` is the same as the ``referee`` command."""

from bot.cli import main

raise SystemExit(main())
