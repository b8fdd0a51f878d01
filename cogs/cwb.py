"""``/cwb …``: Civil War Battles — parameters, units, wagons, fire and ammo, resupply, isolation."""

from __future__ import annotations

from bot.commands.help import GROUP_HELP as ALL_GROUP_HELP
from bot.commands.help import group_help_of
from bot.discord_ui.client import RefereeBot
from bot.discord_ui.handler import add_system, remove_group

GROUP_HELP = group_help_of(ALL_GROUP_HELP, "cwb")


async def setup(bot: RefereeBot) -> None:
    add_system(bot, "cwb", GROUP_HELP)


async def teardown(bot: RefereeBot) -> None:
    remove_group(bot, "cwb")
