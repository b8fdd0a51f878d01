"""A cog of generated toy commands whose handler echoes what it received (for the e2e tests)."""

from __future__ import annotations

import io
import json
from typing import Any

import discord
from discord import app_commands

from bot.discord_ui.appcommands import build_commands
from bot.discord_ui.buttons import ActionButton, action_view, install_action_buttons
from bot.discord_ui.client import RefereeBot
from bot.discord_ui.tree import ReportingView
from bot.errors import NotYourSide
from rules_core.errors import IllegalAction
from tests.e2e.toy_actions import TOY_ACTIONS, TOY_NAMES, Seat


class AgainView(ReportingView):
    """A button under a result, as "Roll again" under a kept ROF, and one that is refused."""

    @discord.ui.button(label="Again", custom_id="toy:again")
    async def again(
        self, interaction: discord.Interaction[Any], button: discord.ui.Button[AgainView]
    ) -> None:
        await interaction.response.edit_message(
            content=f"again, asked by {interaction.user.name}", view=None
        )

    @discord.ui.button(label="Repair", custom_id="toy:repair")
    async def repair(
        self, interaction: discord.Interaction[Any], button: discord.ui.Button[AgainView]
    ) -> None:
        if interaction.user.name != "alice":
            raise NotYourSide("Only the Axis player may repair this weapon.")
        raise RuntimeError("a bug behind a button")


async def handle(
    interaction: discord.Interaction[Any],
    path: tuple[str, ...],
    options: dict[str, Any],
    preview: bool,
) -> None:
    if path == ("boom",):
        raise RuntimeError("a bug in a handler")
    if path == ("toy", "refuse"):
        if options["why"] == "rules":
            raise IllegalAction("A lone leader may not use Sustained Fire.", rule="A9.3")
        raise NotYourSide("You do not hold the Axis seat; ask a referee to seat you.")
    if path == ("toy", "export"):
        await interaction.response.defer(thinking=True)
        log = io.BytesIO(b'{"seq": 1}\n{"seq": 2}\n')
        await interaction.followup.send("The game's log.", file=discord.File(log, "toy.jsonl"))
        return
    if path == ("toy", "seat"):
        seat = Seat.model_validate({"action": "toy.seat", **options})
        await interaction.response.send_message(f"{seat!r} asked by {interaction.user.name}")
        return
    echo = {"path": list(path), "options": options, "preview": preview}
    if path == ("toy", "unit", "list"):
        channel = interaction.channel
        echo["where"] = f"{type(channel).__name__} {getattr(channel, 'name', None)}"
    content = json.dumps(echo, sort_keys=True, default=str)
    if path == ("toy", "unit", "list"):
        await interaction.response.send_message(content, view=AgainView())
        return
    if path == ("toy", "unit", "add") and options.get("name") == "with-button":
        add_again = ActionButton(
            ("toy", "unit", "add"), {"name": "4-6-7", "side": "Axis", "kind": "squad"}, label="Add"
        )
        refuse = ActionButton(("toy", "refuse"), {"why": "rules"}, label="Refuse")
        await interaction.response.send_message(content, view=action_view(add_again, refuse))
        return
    await interaction.response.send_message(content, ephemeral=preview)


async def names(interaction: discord.Interaction[Any], kind: str, current: str) -> list[str]:
    return [name for name in TOY_NAMES.get(kind, []) if current.lower() in name.lower()]


@app_commands.command(name="whois")
@app_commands.describe(player="A member of the server")
@app_commands.guild_only()
async def whois(interaction: discord.Interaction[Any], player: discord.Member) -> None:
    """Say who a member is and which roles they hold."""
    roles = sorted(role.name for role in player.roles if not role.is_default())
    asker = interaction.user
    await interaction.response.send_message(
        f"{player.name} ({player.id}) roles={roles} asked by {asker.name}", ephemeral=True
    )


async def setup(bot: RefereeBot) -> None:
    install_action_buttons(bot, handle)
    bot.tree.add_command(whois)
    for command in build_commands(TOY_ACTIONS, handle, names, group_help={"toy": "Toy game"}):
        bot.tree.add_command(command)
