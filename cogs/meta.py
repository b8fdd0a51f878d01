"""``/help`` (every command with its help text) and the owner-only ``/sync``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord_ui.client import RefereeBot
from bot.errors import UserError

EMBED_COLOUR = discord.Colour.dark_green()
DESCRIPTION_LIMIT = 4096
MAX_EMBEDS = 10


def command_lines(
    items: list[app_commands.Command[Any, ..., Any] | app_commands.Group],
) -> Iterator[str]:
    """One line per command, ``/group sub command — help``, walking groups depth-first."""
    for item in items:
        if isinstance(item, app_commands.Group):
            yield from command_lines(item.commands)
        else:
            yield f"`/{item.qualified_name}` — {item.description}"


def help_embeds(lines: list[str], title: str) -> list[discord.Embed]:
    """The lines in as few embeds as fit (4096 characters of description each)."""
    pages: list[list[str]] = [[]]
    size = 0
    for line in lines:
        if pages[-1] and size + len(line) + 1 > DESCRIPTION_LIMIT:
            pages.append([])
            size = 0
        pages[-1].append(line)
        size += len(line) + 1
    embeds = [discord.Embed(description="\n".join(page), colour=EMBED_COLOUR) for page in pages][
        :MAX_EMBEDS
    ]
    embeds[0].title = title
    return embeds


class Meta(commands.Cog):
    """About the bot itself."""

    def __init__(self, bot: RefereeBot) -> None:
        self.bot = bot

    def _top_level(self) -> list[app_commands.Command[Any, ..., Any] | app_commands.Group]:
        return [
            item
            for item in self.bot.tree.get_commands(type=discord.AppCommandType.chat_input)
            if isinstance(item, app_commands.Command | app_commands.Group)
        ]

    @app_commands.command(name="help")
    @app_commands.describe(group="Only the commands of this group, e.g. asl")
    async def help(self, interaction: discord.Interaction[Any], group: str | None = None) -> None:
        """List the bot's commands with what each one does."""
        items = self._top_level()
        if group is not None:
            wanted = group.strip().lstrip("/").lower()
            items = [item for item in items if item.name == wanted]
            if not items:
                raise UserError(f"There is no command group called {group!r}; try /help alone.")
        lines = sorted(command_lines(items))
        title = f"/{items[0].name} commands" if group is not None else "Referee commands"
        await interaction.response.send_message(embeds=help_embeds(lines, title), ephemeral=True)

    @help.autocomplete("group")
    async def help_group(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        names = sorted(
            item.name
            for item in self._top_level()
            if isinstance(item, app_commands.Group) and current.lower() in item.name
        )
        return [app_commands.Choice(name=name, value=name) for name in names[:25]]

    @app_commands.command(name="sync")
    @app_commands.default_permissions(administrator=True)
    async def sync(self, interaction: discord.Interaction[Any]) -> None:
        """Owner only: send the command list to Discord again now."""
        if not await self.bot.is_owner(interaction.user):
            raise UserError("Only the bot's owner can force a command sync.")
        await interaction.response.defer(ephemeral=True, thinking=True)
        count = await self.bot.sync_if_changed(force=True)
        await interaction.followup.send(f"Synced {count} commands with Discord.", ephemeral=True)


async def setup(bot: RefereeBot) -> None:
    await bot.add_cog(Meta(bot))
