"""The generated commands read their options as discord.py's own ``Command`` does (issue 21).

:class:`~bot.discord_ui.lean_command.LeanCommand` replaces ``Command._transform_arguments``; for
every command of every system and table, with every option given, with only the required ones,
and with a required one missing, it gives what discord.py's method gives — the same values, or
the same error. No bot runs here (not ``e2e``); the e2e tests run the commands through the real
client against the fake Discord.
"""

from __future__ import annotations

import asyncio
import types
from typing import Any

import discord
import pytest
from discord import app_commands

from bot.commands import build_registry
from bot.discord_ui.appcommands import build_commands
from bot.discord_ui.lean_command import LeanCommand
from rules_core.system import SYSTEM_NAMES, get_system


async def _handler(*args: Any) -> None:
    return None


async def _names(*args: Any) -> list[str]:
    return []


def leaves() -> list[app_commands.Command[Any, ..., Any]]:
    registry = build_registry({name: get_system(name) for name in SYSTEM_NAMES})
    models = [spec.model for spec in registry.commands.values()]
    found: list[app_commands.Command[Any, ..., Any]] = []

    def walk(node: Any) -> None:
        if isinstance(node, app_commands.Group):
            for child in node.commands:
                walk(child)
        else:
            found.append(node)

    for command in build_commands(models, _handler, _names):
        walk(command)
    return found


LEAVES = leaves()


def sample(param: Any, n: int) -> Any:
    """A value Discord could send for ``param`` (a choice's value when it has choices)."""
    if param.choices:
        return param.choices[n % len(param.choices)].value
    kind = param.type
    if kind == discord.AppCommandOptionType.boolean:
        return n % 2 == 0
    if kind == discord.AppCommandOptionType.integer:
        return 3 + n
    if kind == discord.AppCommandOptionType.number:
        return 1.5 + n
    return f"value {n}"


async def outcome(method: Any, command: Any, values: dict[str, Any]) -> Any:
    try:
        return await method(command, None, types.SimpleNamespace(**values))
    except Exception as exc:  # the same error, or the same values
        return ("error", type(exc), str(exc))


def test_every_generated_command_is_lean() -> None:
    assert len(LEAVES) > 50
    assert all(isinstance(command, LeanCommand) for command in LEAVES)


@pytest.mark.parametrize("command", LEAVES, ids=lambda c: c.qualified_name)
def test_the_options_read_as_discord_py_reads_them(command: Any) -> None:
    params = list(command._params.values())
    every = {p.display_name: sample(p, i) for i, p in enumerate(params)}
    required = {p.display_name: sample(p, i) for i, p in enumerate(params) if p.required}
    cases = [every, required, {}]
    for p in params:
        if p.required:
            cases.append({k: v for k, v in required.items() if k != p.display_name})

    async def compare() -> None:
        for values in cases:
            ours = await outcome(LeanCommand._transform_arguments, command, values)
            theirs = await outcome(app_commands.Command._transform_arguments, command, values)
            assert ours == theirs, values

    asyncio.run(compare())
