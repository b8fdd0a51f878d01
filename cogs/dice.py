"""``/roll`` (a logged, verifiable roll) and ``/stats`` (dice statistics with a fairness test)."""

from __future__ import annotations

from bot.discord_ui.client import RefereeBot
from bot.discord_ui.handler import add_group, remove_group
from bot.table.commands import RollDice, Stats


async def setup(bot: RefereeBot) -> None:
    add_group(bot, (RollDice, Stats), {})


async def teardown(bot: RefereeBot) -> None:
    remove_group(bot, "roll")
    remove_group(bot, "stats")
