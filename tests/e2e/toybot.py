"""``python -m tests.e2e.toybot``: the real bot through ``bot.discord_ui.client.run`` with
toy commands.

``TOYBOT_EXTENSIONS`` (comma-separated) replaces the extensions it loads.
"""

from __future__ import annotations

import logging
import os
import sys

from bot.config import Settings
from bot.discord_ui.client import RefereeBot, run

DEFAULT = ("cogs.meta", "tests.e2e.toy_cog")
log = logging.getLogger("toybot")


async def configure(bot: RefereeBot) -> None:
    """Stand in for the game service: a close hook the shutdown test can see in the log."""

    async def closed() -> None:
        log.info("toy close hook ran")

    bot.add_close_hook(closed)


if __name__ == "__main__":
    chosen = os.environ.get("TOYBOT_EXTENSIONS")
    extensions = tuple(chosen.split(",")) if chosen else DEFAULT
    sys.exit(run(Settings(), extensions=extensions, configure=configure))
