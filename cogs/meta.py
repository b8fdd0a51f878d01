"""``/help`` (the commands at a glance, one group's, or one command's options) and the owner-only
``/sync``.

``/help`` alone lists each top-level command with its help and each group with its help and its
commands' names; ``group:asl`` lists that group's commands with their required options;
``command:asl fire`` shows each option's help text, type, range and default, and one example —
the same words as the console's ``/help`` (``bot/commands/help.py``). Every answer fits
Discord's limits per message; a longer one continues in follow-ups (``paged_embeds``).
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.commands.help import (
    HOW_TO_ASK,
    CommandHelp,
    Group,
    OptionHelp,
    command_help,
    option_markdown,
    overview,
    signature,
)
from bot.commands.registry import CommandSpec, command_spec, nearest
from bot.discord_ui.client import RefereeBot
from bot.errors import UserError
from bot.render.embed import paged_embeds

EMBED_COLOUR = discord.Colour.dark_green()
Item = app_commands.Command[Any, ..., Any] | app_commands.Group
MAX_CHOICES = 25


def walk(items: list[Item]) -> list[app_commands.Command[Any, ..., Any]]:
    """Every command under ``items``, depth-first."""
    found: list[app_commands.Command[Any, ..., Any]] = []
    for item in items:
        if isinstance(item, app_commands.Group):
            found += walk(item.commands)
        else:
            found.append(item)
    return found


def spec_of(bot: Any, command: app_commands.Command[Any, ..., Any]) -> CommandSpec | None:
    """The declaration of a command generated from an action model (None for /help, /sync…)."""
    model = command.extras.get("model")
    if model is None:
        return None
    handler = getattr(bot, "action_handler", None)
    path = ".".join(command.extras.get("path", ()))
    if handler is not None and path in handler.registry.commands:
        spec: CommandSpec = handler.registry.commands[path]
        return spec
    return command_spec(model)


def plain_help(command: app_commands.Command[Any, ..., Any]) -> CommandHelp:
    """``/help command:…`` of a command written by hand (its parameters are all we know)."""
    options = tuple(
        OptionHelp(
            p.display_name,
            p.type.name.replace("_", " "),
            "required" if p.required else "optional",
            p.description,
        )
        for p in command.parameters
    )
    required = " ".join(f"{p.display_name}:…" for p in command.parameters if p.required)
    example = f"/{command.qualified_name} {required}".strip()
    return CommandHelp(f"/{command.qualified_name}", command.description, options, example)


def command_lines(found: CommandHelp) -> list[str]:
    """One command's help as Discord shows it."""
    lines = [found.help, ""]
    lines += [option_markdown(option) for option in found.options] or ["No options."]
    return [*lines, "", f"Example: `{found.example}`"]


class Meta(commands.Cog):
    """About the bot itself."""

    def __init__(self, bot: RefereeBot) -> None:
        self.bot = bot

    def _top_level(self) -> list[Item]:
        return [
            item
            for item in self.bot.tree.get_commands(type=discord.AppCommandType.chat_input)
            if isinstance(item, app_commands.Command | app_commands.Group)
        ]

    def _groups(self) -> list[Group]:
        found = []
        for item in sorted(self._top_level(), key=lambda i: i.name):
            subs: tuple[str, ...] = ()
            if isinstance(item, app_commands.Group):
                subs = tuple(
                    c.qualified_name.removeprefix(item.name + " ") for c in walk(item.commands)
                )
            found.append(Group(item.name, item.description, subs))
        return found

    def _group_lines(self, group: Item) -> list[str]:
        lines = []
        for command in walk([group]):
            spec = spec_of(self.bot, command)
            shown = signature(spec) if spec is not None else f"/{command.qualified_name}"
            lines.append(f"`{shown}` — {command.description}")
        return [*lines, "", HOW_TO_ASK[1]]

    def _answer(self, group: str | None, command: str | None) -> tuple[str, list[str]]:
        """The title and lines of the answer to ``/help`` with these options."""
        if group is not None and command is not None:
            raise UserError("Ask /help about one thing: a group (asl) or a command (asl fire).")
        asked = (group or command or "").strip().lstrip("/").strip().lower()
        if not asked:
            return "Referee commands", overview(self._groups(), markdown=True)
        items = {item.name: item for item in self._top_level()}
        everything = {c.qualified_name: c for c in walk(list(items.values()))}
        if asked in everything and (command is not None or asked not in items):
            found = everything[asked]
            spec = spec_of(self.bot, found)
            shown = command_help(spec) if spec is not None else plain_help(found)
            return shown.command, command_lines(shown)
        if asked in items:
            return f"/{asked} commands", self._group_lines(items[asked])
        closest = nearest(asked, [*items, *everything])
        hint = f" Did you mean {closest}?" if closest else " Try /help alone."
        what = "command group" if command is None else "command"
        raise UserError(f"There is no {what} called {asked!r}.{hint}")

    @app_commands.command(name="help")
    @app_commands.describe(
        group="Only the commands of this group, e.g. asl",
        command="One command's options, types, ranges and defaults, e.g. asl fire",
    )
    async def help(
        self,
        interaction: discord.Interaction[Any],
        group: str | None = None,
        command: str | None = None,
    ) -> None:
        """List the bot's commands; group: a group's, command: one command's options."""
        title, lines = self._answer(group, command)
        first, *more = paged_embeds(title, lines, EMBED_COLOUR)
        await interaction.response.send_message(embeds=first, ephemeral=True)
        for embeds in more:
            await interaction.followup.send(embeds=embeds, ephemeral=True)

    @help.autocomplete("group")
    async def help_group(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        names = sorted(
            item.name
            for item in self._top_level()
            if isinstance(item, app_commands.Group) and current.lower() in item.name
        )
        return [app_commands.Choice(name=name, value=name) for name in names[:MAX_CHOICES]]

    @help.autocomplete("command")
    async def help_command(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        typed = current.strip().lstrip("/").lower()
        names = sorted(c.qualified_name for c in walk(self._top_level()))
        found = [name for name in names if name.startswith(typed)]
        found += [name for name in names if typed in name and name not in found]
        return [app_commands.Choice(name=name, value=name) for name in found[:MAX_CHOICES]]

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
