"""``/notify``: a player's turn notices, deadline reminders and the other side's rolls by direct
message too, or not."""

from __future__ import annotations

from bot.discord_ui.client import RefereeBot
from bot.discord_ui.handler import add_group, remove_group
from bot.table.commands import Notify


async def setup(bot: RefereeBot) -> None:
    add_group(bot, (Notify,), {})


async def teardown(bot: RefereeBot) -> None:
    remove_group(bot, "notify")
