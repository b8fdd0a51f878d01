"""The examples in the bot modules' docstrings run (pytest's testpaths cover rules_core only)."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "bot.dice",
    "bot.models",
    "bot.gamelog",
    "bot.stats",
    "bot.commands",
    "bot.commands.registry",
    "bot.render.text",
    "bot.service",
    "bot.console",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted > 0
