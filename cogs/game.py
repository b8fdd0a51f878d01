"""``/game …``: start the channel's game, seats, referees, the log, its seed, void, export, end."""

from __future__ import annotations

from bot.discord_ui.appcommands import command_path
from bot.discord_ui.client import RefereeBot
from bot.discord_ui.handler import add_group, remove_group
from bot.table.commands import TABLE_COMMANDS

GROUP_HELP = {
    "game": "The channel's game: new, seats, referees, log, export, end",
    "game.referee": "Referees may act for any side, void entries and end the game",
}
MODELS = tuple(model for model in TABLE_COMMANDS if command_path(model)[0] == "game")


async def setup(bot: RefereeBot) -> None:
    add_group(bot, MODELS, GROUP_HELP)


async def teardown(bot: RefereeBot) -> None:
    remove_group(bot, "game")
