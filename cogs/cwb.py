"""``/cwb …``: Civil War Battles — parameters, units, wagons, fire and ammo, resupply, isolation."""

from __future__ import annotations

from bot.discord_ui.client import RefereeBot
from bot.discord_ui.handler import add_system, remove_group

GROUP_HELP = {
    "cwb": "Civil War Battles: ammunition, supply wagons and isolation",
    "cwb.unit": "Units and their men",
    "cwb.wagon": "Supply wagons and their strength",
}


async def setup(bot: RefereeBot) -> None:
    add_system(bot, "cwb", GROUP_HELP)


async def teardown(bot: RefereeBot) -> None:
    remove_group(bot, "cwb")
