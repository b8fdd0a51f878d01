"""Builders for the ASL tests: a state from actions, a run with scripted dice used up."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from rules_core.asl import SYSTEM
from rules_core.asl.actions import AslAction
from rules_core.asl.examples import build_state
from rules_core.asl.state import AslState
from rules_core.dice import ScriptedDice
from rules_core.errors import RulesError
from rules_core.outcome import Outcome


def build(*actions: AslAction, sides: tuple[str, ...] = ("Axis", "Allied")) -> AslState:
    """A state built by resolving setup actions that roll nothing."""
    return build_state(list(actions), sides)


def run(state: AslState, action: AslAction, faces: list[int]) -> Outcome[AslState]:
    """Resolve with exactly these faces (the script must be used up)."""
    with ScriptedDice(faces) as dice:
        return SYSTEM.run(state, action, dice)


def refused(
    state: AslState, action: BaseModel, error: type[RulesError], rule: str | None
) -> RulesError:
    """Assert the action is refused with this rule before any die, leaving the state alone."""
    before = state.model_dump_json()
    dice = ScriptedDice([])
    with pytest.raises(error) as info:
        SYSTEM.run(state, action, dice)  # type: ignore[arg-type]
    assert dice.rolls == ()
    assert info.value.rule == rule
    assert state.model_dump_json() == before
    return info.value


def fates(outcome: Outcome[AslState]) -> dict[str, str]:
    """The facts as a dict."""
    return dict(outcome.facts)
