"""Every CWB result and refusal cites the supply page's own sections, never an internal id.

The HPS supply page has two sections, "Supply" and "Isolated Units", cited as ``CWB Supply`` and
``CWB Isolated Units``. Our own readings (one level per loss, the wagon rounding, isolated
artillery…) are explained in words; the ids of the specification we were given (``RES-23``,
``A-CWB-P``, ``P6``…) mean nothing to a player and must never reach one.

Scanned: every step's rule and text, every modifier, every fact, every refusal's sentence and
rule — of a fixed game that uses every `/cwb` command and every refusal of
``test_refusals.CASES``, and of random games (actions of every kind on a small map).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules_core.cwb import ACTION_TYPES, SYSTEM, CwbState
from rules_core.dice import ScriptedDice
from rules_core.errors import IllegalAction, RulesError
from rules_core.outcome import Outcome
from tests.cwb.test_refusals import CASES, STATE

SECTIONS = {"CWB Supply", "CWB Isolated Units"}
"""The supply page's sections: the only rules a CWB result may cite."""

INTERNAL_ID = re.compile(r"RES-\d|\bA-[A-Z]{2,}|\bP\d{1,2}\b|\bS\d\b|§|\bseeds?\b|\bE\d{1,2}\b")
"""Ids of the specification we were given (RES-23, A-CWB-P, P6, S2, E10, §4)."""


def texts(outcome: Outcome[Any]) -> Iterator[str]:
    for step in outcome.steps:
        yield step.rule
        yield step.text
        for modifier in step.modifiers:
            yield modifier.label
            yield modifier.rule or ""
    for name, value in outcome.facts:
        yield name
        yield value
    for roll in outcome.rolls:
        yield roll.label


def check_outcome(outcome: Outcome[Any]) -> None:
    for step in outcome.steps:
        assert step.rule in SECTIONS, step.render()
        for modifier in step.modifiers:
            assert modifier.rule in SECTIONS, modifier
    for text in texts(outcome):
        assert not INTERNAL_ID.search(text), text


def check_refusal(refusal: RulesError) -> None:
    assert not INTERNAL_ID.search(refusal.user_message), refusal.user_message
    if isinstance(refusal, IllegalAction):
        assert refusal.rule in SECTIONS, refusal.user_message


def run(state: CwbState, data: dict[str, Any], faces: list[int] | None = None) -> CwbState:
    """Run one action; check its result or its refusal; return the state after it."""
    try:
        outcome = SYSTEM.run(state, SYSTEM.parse_action(data), ScriptedDice(faces or []))
    except RulesError as refusal:
        check_refusal(refusal)
        return state
    check_outcome(outcome)
    return outcome.state


GAME: list[tuple[dict[str, Any], list[int]]] = [
    ({"action": "cwb.params", "ammo_loss": 40, "isolation": True}, []),
    ({"action": "cwb.params", "side": "Confederate", "artillery_ammo": "low"}, []),
    ({"action": "cwb.params", "wagon_rounding": "round", "ammo_loss_types": ["infantry"]}, []),
    ({"action": "cwb.params", "ammo_loss_types": ["infantry", "cavalry"]}, []),
    ({"action": "cwb.map", "columns": 8, "rows": 8, "blocked": ["7/7"], "sources": ["0/0"]}, []),
    ({"action": "cwb.unit.add", "name": "1st Minnesota", "side": "Union", "men": 262}, []),
    ({"action": "cwb.unit.set", "name": "1st Minnesota", "hex": "3,3"}, []),
    (
        {
            "action": "cwb.unit.add",
            "name": "Buford",
            "side": "Union",
            "men": 95,
            "type": "cavalry",
            "hex": "2,3",
        },
        [],
    ),
    (
        {
            "action": "cwb.unit.add",
            "name": "Pegram",
            "side": "Confederate",
            "men": 90,
            "type": "artillery",
            "hex": "3,4",
        },
        [],
    ),
    (
        {
            "action": "cwb.unit.add",
            "name": "26th NC",
            "side": "Confederate",
            "men": 800,
            "hex": "4,3",
        },
        [],
    ),
    (
        {
            "action": "cwb.wagon.add",
            "name": "Union Trains",
            "side": "Union",
            "strength": 40,
            "hex": "3,1",
        },
        [],
    ),
    ({"action": "cwb.wagon.add", "name": "Rebel Trains", "side": "Confederate", "strength": 9}, []),
    ({"action": "cwb.wagon.set", "name": "Rebel Trains", "hex": "6,6", "strength": 12}, []),
    ({"action": "cwb.fire", "unit": "1st Minnesota", "mode": "offensive"}, [1]),
    ({"action": "cwb.fire", "unit": "1st Minnesota", "mode": "offensive"}, []),
    ({"action": "cwb.fire", "unit": "1st Minnesota", "mode": "defensive"}, [99]),
    ({"action": "cwb.fire", "unit": "1st Minnesota", "mode": "defensive"}, [2]),
    ({"action": "cwb.fire", "unit": "1st Minnesota", "mode": "defensive"}, []),
    ({"action": "cwb.fire", "unit": "Pegram", "mode": "defensive"}, []),
    ({"action": "cwb.fire", "unit": "Pegram", "mode": "offensive"}, []),
    ({"action": "cwb.fire", "unit": "Buford", "mode": "offensive"}, [3]),
    ({"action": "cwb.unit.list"}, []),
    ({"action": "cwb.unit.list", "side": "Confederate"}, []),
    ({"action": "cwb.turn", "side": "Union"}, []),
    ({"action": "cwb.turn", "side": "Confederate"}, []),
    ({"action": "cwb.isolation", "unit": "Pegram", "isolated": True}, []),
    ({"action": "cwb.fire", "unit": "Pegram", "mode": "defensive"}, [1]),
    ({"action": "cwb.melee", "unit": "Pegram"}, []),
    ({"action": "cwb.melee", "unit": "26th NC", "strength": 9}, []),
    ({"action": "cwb.resupply", "unit": "1st Minnesota", "wagon": "Union Trains"}, []),
    ({"action": "cwb.resupply", "unit": "1st Minnesota", "wagon": "Union Trains"}, []),
    ({"action": "cwb.unit.set", "name": "Buford", "routed": True, "ammo": "out"}, []),
    ({"action": "cwb.supply", "side": "Union"}, []),
    ({"action": "cwb.unit.set", "name": "Buford", "routed": False, "hex": "none"}, []),
    ({"action": "cwb.supply", "side": "Union"}, []),
    ({"action": "cwb.unit.set", "name": "Buford", "hex": "2,2"}, []),
    ({"action": "cwb.supply", "side": "Union"}, []),
    ({"action": "cwb.supply", "side": "Confederate"}, []),
    ({"action": "cwb.resupply", "unit": "Pegram", "wagon": "Rebel Trains", "routed": True}, []),
    ({"action": "cwb.params", "isolation": False}, []),
    ({"action": "cwb.turn", "side": "Union"}, []),
    ({"action": "cwb.isolation", "unit": "Pegram", "isolated": False}, []),
    ({"action": "cwb.unit.remove", "name": "Buford"}, []),
]


def test_the_game_uses_every_command() -> None:
    used = {data["action"] for data, _ in GAME}
    assert used == {model.model_fields["action"].default for model in ACTION_TYPES}


def test_a_game_with_every_command_cites_only_the_pages_sections() -> None:
    state = SYSTEM.new_state(["Union", "Confederate"], {})
    for data, faces in GAME:
        state = run(state, data, faces)
    assert state.unit("1st Minnesota").ammo.value == "normal"  # the game really went through


@pytest.mark.parametrize(("data", "error", "message"), CASES)
def test_every_refusal_cites_only_the_pages_sections(
    data: dict[str, Any], error: type[RulesError], message: str
) -> None:
    with pytest.raises(error) as caught:
        SYSTEM.run(STATE, SYSTEM.parse_action(data), ScriptedDice([]))
    check_refusal(caught.value)


def test_the_scan_catches_the_ids_results_showed_before() -> None:
    for shown in ("CWB Supply; RES-23", "A-CWB-P", "CWB Supply; P6", "RES-24", "A-CWB-ART"):
        assert INTERNAL_ID.search(shown)
    for fine in ("CWB Supply", "Ammo loss d100 4 ≤ 4", "hex 5,6", "26th NC", "Out Of Ammo"):
        assert not INTERNAL_ID.search(fine)


UNITS = ["1st Minnesota", "Buford", "Pegram", "26th NC", "Nobody"]
WAGONS = ["Union Trains", "Rebel Trains", "Ghost"]
SIDES = ["Union", "Confederate", "Prussia"]
HEXES = ["0,0", "1,1", "3,3", "4,4", "6,5", "none", "9,9"]


@st.composite
def actions(draw: Any) -> dict[str, Any]:
    unit, wagon, side = (
        draw(st.sampled_from(UNITS)),
        draw(st.sampled_from(WAGONS)),
        draw(st.sampled_from(SIDES)),
    )
    chosen: dict[str, Any] = draw(
        st.sampled_from(
            [
                {"action": "cwb.fire", "unit": unit, "mode": "offensive"},
                {"action": "cwb.fire", "unit": unit, "mode": "defensive"},
                {"action": "cwb.resupply", "unit": unit, "wagon": wagon},
                {"action": "cwb.resupply", "unit": unit, "wagon": wagon, "path": 3},
                {"action": "cwb.supply", "side": side},
                {"action": "cwb.turn", "side": side},
                {"action": "cwb.isolation", "unit": unit, "isolated": True},
                {"action": "cwb.melee", "unit": unit},
                {"action": "cwb.unit.set", "name": unit, "ammo": "low"},
                {"action": "cwb.unit.set", "name": unit, "ammo": "out", "routed": True},
                {"action": "cwb.unit.set", "name": unit, "routed": False},
                {"action": "cwb.unit.set", "name": unit, "hex": draw(st.sampled_from(HEXES))},
                {"action": "cwb.wagon.set", "name": wagon, "hex": draw(st.sampled_from(HEXES))},
                {"action": "cwb.unit.remove", "name": unit},
                {"action": "cwb.unit.list", "side": side},
                {"action": "cwb.params", "isolation": draw(st.booleans())},
                {"action": "cwb.params", "side": side, "artillery_ammo": "out"},
            ]
        )
    )
    return chosen


@settings(max_examples=60, deadline=None)
@given(
    plays=st.lists(actions(), min_size=1, max_size=20),
    faces=st.lists(st.integers(1, 100), min_size=20, max_size=20),
)
def test_random_games_cite_only_the_pages_sections(
    plays: list[dict[str, Any]], faces: list[int]
) -> None:
    state = SYSTEM.new_state(["Union", "Confederate"], {"cwb_ammo_loss_pct": 50})
    for data, _ in GAME[4:13]:
        state = run(state, data)
    dice = iter(faces)
    for data in plays:
        state = run(state, data, [next(dice)] if data["action"] == "cwb.fire" else [])
