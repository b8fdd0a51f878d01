"""``/asl …``: Advanced Squad Leader — units, weapons, fire, To Hit, repair, checks, phases."""

from __future__ import annotations

from bot.discord_ui.client import RefereeBot
from bot.discord_ui.handler import add_system, remove_group

GROUP_HELP = {
    "asl": "Advanced Squad Leader: MG breakdown, ROF, repair, FB16 Ammunition Shortage",
    "asl.unit": "Squads, half-squads, crews, leaders and heroes",
    "asl.weapon": "Support weapons, Guns and vehicle MGs with their printed numbers",
}


async def setup(bot: RefereeBot) -> None:
    add_system(bot, "asl", GROUP_HELP)


async def teardown(bot: RefereeBot) -> None:
    remove_group(bot, "asl")
