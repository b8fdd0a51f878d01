"""Every game system's actions are well-formed command declarations (see rules_core.system)."""

from __future__ import annotations

import importlib.util
import re
import typing
from typing import Any

import pytest
from pydantic import BaseModel

from rules_core.system import SYSTEM_NAMES, GameSystem, get_system

NAME = re.compile(r"^[a-z0-9_-]{1,32}$")


def available_systems() -> list[str]:
    return [n for n in SYSTEM_NAMES if importlib.util.find_spec(f"rules_core.{n}") is not None]


SYSTEM_PARAMS: list[Any] = list(available_systems()) or [pytest.param(None, marks=pytest.mark.skip)]


@pytest.fixture(params=SYSTEM_PARAMS)
def system(request: pytest.FixtureRequest) -> GameSystem[Any, Any]:
    return get_system(request.param)


def action_literal(model: type[BaseModel]) -> str:
    field = model.model_fields["action"]
    (value,) = typing.get_args(field.annotation)
    assert isinstance(value, str)
    return value


def test_every_action_is_a_command_declaration(system: GameSystem[Any, Any]) -> None:
    assert system.action_types, "a system declares its action models"
    paths = set()
    for model in system.action_types:
        path = action_literal(model)
        words = path.split(".")
        assert words[0] == system.name, path
        assert 2 <= len(words) <= 3, f"{path}: Discord allows /group [subgroup] command"
        assert all(NAME.match(w) for w in words), path
        assert path not in paths, f"{path} declared twice"
        paths.add(path)
        summary = (model.__doc__ or "").strip().splitlines()[0] if model.__doc__ else ""
        assert 1 <= len(summary) <= 100, f"{path}: docstring summary is the help text (≤ 100)"
        assert len(model.model_fields) - 1 <= 25, f"{path}: Discord allows 25 options"
        for name, field in model.model_fields.items():
            if name == "action":
                continue
            assert NAME.match(name.replace("_", "-")), f"{path} option {name}"
            assert field.description, f"{path} option {name} needs a description"
            assert len(field.description) <= 100, f"{path} option {name}: description ≤ 100"
        assert model.model_config.get("frozen"), f"{path}: actions are frozen"
        for flag in ("rolls_dice", "read_only"):
            value = getattr(model, flag, False)
            assert isinstance(value, bool)
            assert flag not in model.model_fields


def test_adapter_parses_every_declared_action_type(system: GameSystem[Any, Any]) -> None:
    for model in system.action_types:
        path = action_literal(model)
        try:
            system.parse_action({"action": path})
        except Exception as exc:  # missing required options is fine; an unknown tag is not
            assert "does not match any of the expected tags" not in str(exc), path


def test_system_has_identity(system: GameSystem[Any, Any]) -> None:
    assert system.name in SYSTEM_NAMES
    assert system.title
