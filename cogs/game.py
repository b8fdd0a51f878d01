"""``/game …``: start the channel's game, seats, referees, the log, its seed, void, export, end."""

from __future__ import annotations

from bot.commands.help import GROUP_HELP as ALL_GROUP_HELP
from bot.commands.help import group_help_of
from bot.discord_ui.appcommands import command_path
from bot.discord_ui.client import RefereeBot
from bot.discord_ui.handler import add_group, remove_group
from bot.table.commands import TABLE_COMMANDS

GROUP_HELP = group_help_of(ALL_GROUP_HELP, "game")
MODELS = tuple(model for model in TABLE_COMMANDS if command_path(model)[0] == "game")


async def setup(bot: RefereeBot) -> None:
    add_group(bot, MODELS, GROUP_HELP)


async def teardown(bot: RefereeBot) -> None:
    remove_group(bot, "game")
