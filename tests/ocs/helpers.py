"""Shared helpers for the OCS tests: scripted runs that must use every die they are given."""

from __future__ import annotations

from collections.abc import Iterable

from rules_core.dice import ScriptedDice
from rules_core.ocs import SYSTEM
from rules_core.ocs.actions import AnyOcsAction
from rules_core.ocs.state import Dump, OcsState, Unit
from rules_core.outcome import Outcome


def game(*units: Unit, dumps: Iterable[Dump] = (), **options: object) -> OcsState:
    """A two-sided game (Axis, Soviet) with these units and dumps."""
    state = SYSTEM.new_state(["Axis", "Soviet"], options)
    return state.model_copy(update={"units": tuple(units), "dumps": tuple(dumps)})


def run(state: OcsState, action: AnyOcsAction, faces: Iterable[int] = ()) -> Outcome[OcsState]:
    """Resolve with scripted dice and insist that every scripted face was read."""
    with ScriptedDice(faces) as dice:
        return SYSTEM.run(state, action, dice)
