"""The examples in the bot modules' docstrings run (pytest's testpaths cover rules_core only)."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "bot.dice.game_dice",
    "bot.models",
    "bot.log.gamelog",
    "bot.stats.faces",
    "bot.commands",
    "bot.commands.registry",
    "bot.render.text",
    "bot.service.options",
    "bot.service.game_service",
    "bot.service.permissions",
    "bot.service.replies",
    "bot.table.roll",
    "bot.table.stats",
    "bot.console",
    "bot.console.session",
    "bot.console.help",
    "bot.console.prompt",
    "bot.commands.help",
    "bot.render.embed",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted > 0
