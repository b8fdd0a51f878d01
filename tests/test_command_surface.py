"""Discord and the console read the same declarations the same way, so they never drift.

``bot.discord_ui.appcommands`` turns action models into Discord's slash-command payload;
``bot.commands``
turns the same models into the console's command registry. For every command of every system and
every table command, both must agree on the path, the help text and each option's name, type,
requiredness, choices, range and autocomplete.
"""

from __future__ import annotations

from typing import Any

import discord
import pytest
from discord import app_commands

from bot.commands import build_registry
from bot.commands.registry import CommandSpec, OptionSpec
from bot.discord_ui.appcommands import build_commands
from bot.discord_ui.sync import tree_payload
from rules_core.system import SYSTEM_NAMES, get_system

# Discord's option types: https://discord.com/developers/docs/interactions/application-commands
DISCORD_TYPES = {"string": 3, "names": 3, "integer": 4, "boolean": 5, "user": 6, "file": 11}


async def _handler(*args: Any) -> None:
    return None


async def _names(*args: Any) -> list[str]:
    return []


def discord_commands() -> dict[str, dict[str, Any]]:
    """Every leaf command of the Discord payload, by dotted path."""
    registry = build_registry({name: get_system(name) for name in SYSTEM_NAMES})
    tree: app_commands.CommandTree[Any] = app_commands.CommandTree(
        discord.Client(intents=discord.Intents.default())
    )
    models = [spec.model for spec in registry.commands.values()]
    for command in build_commands(models, _handler, _names):
        tree.add_command(command)
    leaves: dict[str, dict[str, Any]] = {}

    def walk(node: dict[str, Any], prefix: tuple[str, ...]) -> None:
        path = (*prefix, node["name"])
        children = [o for o in node.get("options", []) if o["type"] in (1, 2)]
        if children:
            for child in children:
                walk(child, path)
        else:
            leaves[".".join(path)] = node

    for top in tree_payload(tree, None):
        walk(top, ())
    return leaves


REGISTRY = build_registry({name: get_system(name) for name in SYSTEM_NAMES})
DISCORD = discord_commands()


def test_both_surfaces_list_the_same_commands() -> None:
    assert sorted(DISCORD) == sorted(REGISTRY.commands)


@pytest.mark.parametrize("spec", list(REGISTRY.commands.values()), ids=lambda spec: spec.path)
def test_each_command_has_the_same_help_and_options(spec: CommandSpec) -> None:
    payload = DISCORD[spec.path]
    assert payload["description"] == spec.help
    options = {o["name"]: o for o in payload.get("options", [])}
    assert list(options) == [o.name for o in _discord_order(spec.options)]
    for option in spec.options:
        sent = options[option.name]
        assert sent["type"] == DISCORD_TYPES[option.type], option.name
        assert sent.get("required", False) == option.required, option.name
        assert sent["description"][:90] == option.help[:90] or option.name == "preview"
        if option.autocomplete == "systems":
            # The installed systems are known only at run time: the console lists them as
            # choices, Discord autocompletes the same list (GameService.autocomplete).
            assert sent.get("autocomplete") and option.choices == tuple(SYSTEM_NAMES)
        else:
            assert tuple(c["value"] for c in sent.get("choices", [])) == option.choices, option.name
        assert sent.get("min_value") == option.min_value, option.name
        assert sent.get("max_value") == option.max_value, option.name
        assert bool(sent.get("autocomplete")) == (option.autocomplete is not None), option.name


def _discord_order(options: tuple[OptionSpec, ...]) -> list[OptionSpec]:
    # Discord lists required options first; both keep field order otherwise.
    return [o for o in options if o.required] + [o for o in options if not o.required]
