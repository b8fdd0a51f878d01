"""``/ocs …``: Operational Combat Series — dumps, supply, attrition, breakout, capture."""

from __future__ import annotations

from bot.discord_ui.client import RefereeBot
from bot.discord_ui.handler import add_system, remove_group

GROUP_HELP = {
    "ocs": "Operational Combat Series: supply in exact Tokens and its tables",
    "ocs.dump": "Supply dumps by hex, in SP and Tokens",
    "ocs.unit": "Combat units, HQs and Transport Points",
}


async def setup(bot: RefereeBot) -> None:
    add_system(bot, "ocs", GROUP_HELP)


async def teardown(bot: RefereeBot) -> None:
    remove_group(bot, "ocs")
