"""``python -m tests.e2e.clockbot``: the real bot, as ``referee run`` starts it, on a clock the
test moves: the time is read from the file named by ``CLOCKBOT_TIME`` (an ISO 8601 time the
test writes), and the deadlines' timers are looked at every 0.2 s."""

from __future__ import annotations

import functools
import os
import sys
from datetime import datetime
from pathlib import Path

from bot.config import Settings
from bot.discord_ui.client import attach_game_service, run


def clock() -> datetime:
    """The test's time (it only moves forward: the test writes later times)."""
    return datetime.fromisoformat(Path(os.environ["CLOCKBOT_TIME"]).read_text().strip())


if __name__ == "__main__":
    configure = functools.partial(attach_game_service, clock=clock, timer_poll=0.2)
    sys.exit(run(Settings(), configure=configure))
