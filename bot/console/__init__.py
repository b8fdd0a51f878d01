"""``referee console``: the bot's slash commands from a terminal or a file, without Discord.

Each line is one command, exactly as typed in Discord (``/asl fire weapons:"HMG A, LMG B"``),
optionally prefixed by ``@name`` to act as that user for this line only; the first option may be
given without its name (``/roll 3d6``). Lines go through the same command layer and
:class:`~bot.service.game_service.GameService` as Discord (``session.py``). At a terminal the
prompt edits the line, keeps a history and completes commands, options and the game's names
(``prompt.py``); from a file or a pipe the lines are read as they are. ``/help`` explains the
commands (``help.py``). See ``docs/CONSOLE.md``.

>>> console_user("@alice").name
'alice'
"""

from bot.console.session import (
    CONSOLE_GUILD,
    QUIT_WORDS,
    Console,
    ConsoleOptions,
    Reproducible,
    console_file,
    console_id,
    console_place,
    console_user,
    run_console,
)

__all__ = [
    "CONSOLE_GUILD",
    "QUIT_WORDS",
    "Console",
    "ConsoleOptions",
    "Reproducible",
    "console_file",
    "console_id",
    "console_place",
    "console_user",
    "run_console",
]
