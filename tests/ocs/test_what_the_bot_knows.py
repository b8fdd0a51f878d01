"""OCS 12.x: what the bot knows, it checks (issue 23).

The bot holds every unit's and every dump's hex. Where that settles a rule, the rule is applied
without the player having to name anything: internal stocks only when no on-map SP can be had
(12.10a, 12.4), compulsory recovery (12.10e A, chart 12.10b), one Attrition roll per stack
(12.8a-b, chart 12.8). Each test failed before its rule was enforced.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from rules_core.dice import ScriptedDice
from rules_core.errors import IllegalAction, RulesError
from rules_core.ocs import SYSTEM
from rules_core.ocs.actions import (
    AnyOcsAction,
    Attack,
    Attrition,
    Defend,
    Recover,
    SetPhase,
    Trace,
)
from rules_core.ocs.state import Dump, OcsState, Unit
from tests.ocs.helpers import game, run


def refused(state: OcsState, action: AnyOcsAction, rule: str) -> str:
    """The refusal of ``action``: it cites ``rule``, uses no die and changes nothing."""
    before = state.model_dump_json()
    dice = ScriptedDice([])
    with pytest.raises(RulesError) as info:
        SYSTEM.run(state, action, dice)
    assert dice.rolls == ()
    assert state.model_dump_json() == before
    assert isinstance(info.value, IllegalAction) and info.value.rule == rule, info.value
    return str(info.value)


def at(state: OcsState, side: str, phase: str, **more: object) -> OcsState:
    return run(state, SetPhase(side=side, phase=phase, **more)).state


# --- 12.10a, 12.4: internal stocks only when no on-map SP can be had ----------------------------

DUMP = Dump(side="Axis", hex="0905", tokens=8)


def test_a_unit_attacking_on_its_own_dump_may_not_fall_back_on_internals() -> None:
    state = game(Unit(name="Bn", side="Axis", hex="0905"), dumps=[DUMP])
    error = refused(state, Attack(attackers=("Bn",)), "OCS 12.10a")
    assert error.startswith("Bn stands on Axis's dump in 0905 (2 SP), reached at 0 MP")
    paid = run(state, Attack(attackers=("Bn",), dump="0905"))
    assert paid.state.unit("Bn").internals == "NONE"
    assert paid.state.dump_tokens("0905", "Axis") == 7


def test_a_named_dump_that_is_short_does_not_hide_the_dump_underfoot() -> None:
    far = Dump(side="Axis", hex="1010", tokens=1)
    state = game(
        Unit(name="A", side="Axis", hex="1010"),
        Unit(name="B", side="Axis", hex="0905"),
        dumps=[DUMP, far],
    )
    refused(state, Attack(attackers=("A", "B"), dump="1010"), "OCS 12.10a")
    both = run(state, Attack(attackers=("A", "B"), dump="1010, 0905"))
    assert [both.state.unit(n).internals for n in "AB"] == ["NONE", "NONE"]


def test_a_defender_on_its_own_dump_may_not_fall_back_on_internals() -> None:
    state = game(Unit(name="Bn", side="Axis", hex="0905", re=Fraction(1, 2)), dumps=[DUMP])
    refused(state, Defend(defenders=("Bn",)), "OCS 12.10a")
    withheld = run(state, Defend(defenders=("Bn",), withhold=True))  # always allowed (12.4)
    assert withheld.fact("Bn") == "defends ×1/2"


def test_internals_are_used_when_the_only_supply_underfoot_is_on_organic_trucks() -> None:
    organic = Unit(
        name="Organic",
        side="Axis",
        kind="transport",
        hex="0905",
        load_tokens=4,
        organic=True,
        printed_ma=12,
    )
    state = game(Unit(name="Bn", side="Axis", hex="0905"), organic)
    out = run(state, Attack(attackers=("Bn",)))
    assert out.state.unit("Bn").internals == "LOW"  # 12.10a (Exception)
    assert out.state.unit("Organic").load_tokens == 4
    # the enemy's dump in the hex is no supply of the attacker's (12.1d)
    enemy = game(
        Unit(name="Bn", side="Axis", hex="0905"), dumps=[DUMP.model_copy(update={"side": "Soviet"})]
    )
    assert run(enemy, Attack(attackers=("Bn",))).state.unit("Bn").internals == "LOW"


# --- 12.10e A, chart 12.10b: recovery is compulsory ----------------------------------------------

LOW = Unit(name="Low", side="Axis", hex="0905", internals="LOW")


def test_a_supply_phase_does_not_end_with_a_low_unit_on_its_dump_unrecovered() -> None:
    state = at(game(LOW, dumps=[DUMP]), "Axis", "supply")
    state = run(state, Trace(units=("Low",), status="traced")).state
    error = refused(state, SetPhase(side="Axis", phase="movement"), "OCS 12.10e A")
    assert error.startswith("Low is marked Low and stands on Axis's dump in 0905 (2 SP)")
    recovered = run(state, Recover(side="Axis", dump="0905"))
    assert recovered.state.unit("Low").internals == "NONE"
    moved = at(recovered.state, "Axis", "movement")
    # and out of its Supply Phase recovery is refused as out of phase
    refused(moved, Recover(side="Axis", dump="0905"), "OCS 12.10e")


def test_a_short_dump_is_expended_and_then_the_phase_may_end() -> None:
    exhausted = LOW.model_copy(update={"internals": "EXHAUSTED", "steps": 2, "re": Fraction(2)})
    state = at(game(exhausted, dumps=[DUMP.model_copy(update={"tokens": 5})]), "Axis", "supply")
    state = run(state, Trace(units=("Low",), status="traced")).state
    refused(state, SetPhase(side="Axis", phase="movement"), "OCS 12.10e A")
    out = run(state, Recover(side="Axis", dump="0905"))
    assert out.state.unit("Low").internals == "LOW"  # 4 T a level (2 RE); 1 T wasted
    assert out.state.dumps == ()
    assert at(out.state, "Axis", "movement").phase == "movement"


def test_organic_trucks_underfoot_owe_no_recovery() -> None:
    organic = Unit(
        name="Organic", side="Axis", kind="transport", hex="0905", load_tokens=4, organic=True
    )
    state = at(game(LOW, organic), "Axis", "supply")
    state = run(state, Trace(units=("Low",), status="traced")).state
    assert at(state, "Axis", "movement").phase == "movement"  # 12.10e B (Exception)


def test_a_marked_unit_eating_from_a_dump_outside_its_hex_reaches_it() -> None:
    away = Unit(name="Away", side="Axis", hex="1210", internals="LOW")
    state = at(game(away, dumps=[DUMP]), "Axis", "supply")
    eat = Trace(units=("Away",), status="eat", dump="0905", draw_mp=3, no_recovery=True)
    error = refused(state, eat, "OCS 12.10e A")
    assert "Away is marked Low and reaches the dump in 0905 (eats from it)" in error
    recovered = run(state, Recover(side="Axis", dump="0905", units=("Away",))).state
    assert recovered.unit("Away").internals == "NONE"
    assert run(recovered, eat).fact("Dump") == "-1 T"


def test_a_recovery_that_left_a_marked_unit_on_its_dump_does_not_let_others_eat() -> None:
    low2 = LOW.model_copy(update={"name": "Low 2"})
    eater = Unit(name="Eater", side="Axis", hex="1210")
    state = at(game(LOW, low2, eater, dumps=[DUMP]), "Axis", "supply")
    partial = run(state, Recover(side="Axis", dump="0905", units=("Low",))).state
    eat = Trace(units=("Eater",), status="eat", dump="0905", draw_mp=3)
    error = refused(partial, eat, "OCS 12.10e A")
    assert "Low 2 is marked Low and reaches the dump in 0905 (stands on it)" in error


# --- 12.8a-b, chart 12.8: one Attrition roll per stack --------------------------------------------


def _oos(name: str, steps: int, ar: int = 3, hex: str = "1410") -> Unit:
    return Unit(
        name=name, side="Axis", hex=hex, steps=steps, re=Fraction(steps), ar=ar, out_of_supply=True
    )


def test_one_roll_per_stack_with_the_plus_three_for_five_oos_steps_in_the_hex() -> None:
    state = game(_oos("Three", 3), _oos("Two", 2), _oos("Elsewhere", 4, hex="0101"))
    # a 3-step and a 2-step unit Out of Supply in one hex: one roll, 5 OOS steps, +3
    out = run(state, Attrition(units=("Three",)), [1, 2])
    assert out.explanation()[0] == (
        "OCS 12.8: one roll per stack: Two is Out of Supply in the same hex (1410) and rolls "
        "with it; every OOS step in the hex counts"
    )
    assert len(out.rolls) == 1
    assert out.steps[2].modifiers[0].value == 3  # DR 3 + 3 = 6: column 3, -1 step
    assert out.fact("Attrition") == "-1 step"
    assert out.state.unit("Elsewhere").steps == 4  # another hex, another stack


def test_a_second_roll_for_the_same_stack_is_refused_in_a_tracked_supply_phase() -> None:
    state = at(game(_oos("Three", 3), _oos("Two", 2)), "Axis", "supply")
    state = run(state, Trace(units=("Three", "Two"), status="none")).state
    state = run(state, Attrition(units=("Three",)), [1, 1]).state
    error = refused(state, Attrition(units=("Two",)), "OCS 12.8")
    assert error.startswith("Two has already checked for Attrition this Supply Phase, with the")
    assert at(state, "Axis", "movement").phase == "movement"  # the whole stack has checked


def test_attrition_waits_for_the_trace_checks_of_the_whole_stack() -> None:
    fresh = Unit(name="Fresh", side="Axis", hex="1410", steps=2, re=Fraction(2))
    state = at(game(_oos("Three", 3), fresh), "Axis", "supply")
    state = run(state, Trace(units=("Three",), status="none")).state
    error = refused(state, Attrition(units=("Three",)), "OCS 12.8a")
    assert error.startswith("Fresh has had no trace check this Supply Phase")
    state = run(state, Trace(units=("Fresh",), status="none")).state
    out = run(state, Attrition(units=("Three",)), [1, 1])
    assert out.steps[1].text.startswith("OCS 12.8b") is False
    assert "Three, Fresh (5 step(s))" in out.explanation()[1]
    assert out.steps[2].modifiers[0].value == 3
