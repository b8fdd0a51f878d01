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
    Breakout,
    Capture,
    Defend,
    Recover,
    SetPhase,
    Trace,
    UnitMove,
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
    assert "Three, Fresh (5 steps)" in out.explanation()[1]
    assert out.steps[2].modifiers[0].value == 3


# --- 12.11b, 12.8e, 12.4: other facts the bot holds ----------------------------------------------

SOVIET_DUMP = Dump(side="Soviet", hex="B2", tokens=12)


def test_a_capture_is_rolled_only_by_a_unit_that_entered_the_hex() -> None:
    state = game(Unit(name="Moto", side="Axis", hex="A1"), dumps=[SOVIET_DUMP])
    capture = Capture(side="Axis", hex="B2", unit="Moto")
    error = refused(state, capture, "OCS 12.11b")
    assert error.startswith("Moto is in A1, not in B2: a capture is rolled when it enters the hex")
    entered = run(state, UnitMove(unit="Moto", hex="B2")).state
    assert run(entered, capture, [2]).fact("Dump") == "3 T captured"


def test_captured_vehicles_move_only_when_the_tracked_phase_is_the_captors_movement_phase() -> None:
    trucks = Unit(name="Trucks", side="Soviet", kind="transport", hex="B2", steps=4, printed_ma=12)
    state = game(Unit(name="Moto", side="Axis", hex="B2"), trucks)
    in_combat = at(state, "Axis", "combat")
    out = run(in_combat, Capture(side="Axis", hex="B2", unit="Moto"), [6])
    assert "captured vehicles may not move this phase" in " ".join(out.explanation())
    error = refused(
        in_combat, Capture(side="Axis", hex="B2", unit="Moto", movement_phase=True), "OCS 12.11b"
    )
    assert error.startswith("It is Axis's combat phase: the capture happens outside Axis's")
    moving = run(at(state, "Axis", "movement"), Capture(side="Axis", hex="B2", unit="Moto"), [6])
    assert "captured vehicles may move this phase" in " ".join(moving.explanation())


def test_a_breakout_return_is_counted_from_the_games_turn() -> None:
    cut = Unit(name="Pz", side="Axis", hex="A1", out_of_supply=True, trace="none")
    state = at(game(cut), "Axis", "supply", turn=4)
    out = run(state, Breakout(unit="Pz"), [5, 2])  # first turn: 5 + 1, returns in 2 turns
    assert out.state.unit("Pz").return_turn == 6
    refused(state, Breakout(unit="Pz", turn=1), "OCS 12.8e")


def test_the_defenders_of_one_combat_stand_in_one_hex() -> None:
    a = Unit(name="A", side="Axis", hex="C1", re=Fraction(1, 2))
    b = Unit(name="B", side="Axis", hex="C2", re=Fraction(1, 2))
    state = game(a, b, dumps=[Dump(side="Axis", hex="A1", tokens=4)])
    error = refused(state, Defend(defenders=("A", "B"), dump="A1"), "OCS 12.4")
    assert error.startswith("The defenders of one combat stand in one hex; these stand in C1, C2")
    alone = run(state, Defend(defenders=("A",), dump="A1"))
    assert alone.fact("Dump") == "-1 T"  # 1/2 RE: 1 RE or less, 1 T


# --- readings stated in the reply ---------------------------------------------------------------


def test_recovery_of_a_one_step_unit_of_two_re_says_the_charts_reading() -> None:
    """12.10e "2T per unit (or RE if a multi-step unit)" against chart 12.10b "per unit or RE
    (whichever is more)": the chart's reading applies, and the reply says so."""
    bde = Unit(name="Bde", side="Axis", hex="0905", re=Fraction(2), internals="LOW")
    out = run(game(bde, dumps=[DUMP]), Recover(side="Axis", dump="0905"))
    assert out.fact("Dump") == "-1 SP"
    assert out.explanation()[-1] == (
        "OCS 12.10e: Bde: LOW → no marker for 1 SP (1 SP per level; 2 T × 2 RE, not per unit: "
        "per unit or RE, whichever is more (chart 12.10b))"
    )
    small = Unit(name="Small", side="Axis", hex="0905", steps=2, re=Fraction(1, 2), internals="LOW")
    out = run(game(small, dumps=[DUMP]), Recover(side="Axis", dump="0905"))
    assert out.fact("Dump") == "-2 T"
    assert "2 T per unit, not × 1/2 RE" in out.explanation()[-1]


def test_capture_of_transport_points_says_how_the_points_were_rounded() -> None:
    trucks = Unit(name="Trucks", side="Soviet", kind="transport", hex="B2", steps=2, printed_ma=12)
    state = game(Unit(name="Moto", side="Axis", hex="B2"), trucks)
    out = run(state, Capture(side="Axis", hex="B2", unit="Moto"), [3])  # 25% of 2 = 1/2
    assert (
        "25% of 2 points = 1/2, rounded to the nearest point (halves up): 1 captured"
        in (out.explanation()[0])
    )
    even = game(Unit(name="Moto", side="Axis", hex="B2"), trucks, ocs_rounding="half-even")
    out = run(even, Capture(side="Axis", hex="B2", unit="Moto"), [3])
    assert "rounded to the nearest point (halves to even): 0 captured" in out.explanation()[0]


# --- boundaries of the tables (a changed comparison fails a test) --------------------------------


@pytest.mark.parametrize(
    ("steps", "brigade", "dak", "cost"),
    [
        (2, True, True, 1),  # DAK: a 2-step brigade costs 1 T
        (3, True, True, 3),  # exactly 2 steps: a 3-step brigade pays 1 T a step
        (1, True, True, 1),
        (2, False, True, 2),  # only brigades
        (2, True, False, 2),  # only in DAK
    ],
)
def test_the_dak_brigade_exception_is_exactly_two_steps(
    steps: int, brigade: bool, dak: bool, cost: int
) -> None:
    unit = Unit(name="Bde", side="Axis", hex="A1", steps=steps, re=Fraction(steps),
                brigade=brigade)  # fmt: skip
    state = game(unit, dumps=[Dump(side="Axis", hex="A1", tokens=8)], dak_brigades=dak)
    assert run(state, Attack(attackers=("Bde",), dump="A1")).fact("Dump") == f"-{cost} T"


@pytest.mark.parametrize(
    ("re", "cost"), [("1/2", 1), ("1", 1), ("5/4", 2), ("3", 2)]
)  # 12.4: "for 1 RE or less, cost is just 1T"
def test_the_defence_costs_1T_at_1_RE_or_less_and_2T_above(re: str, cost: int) -> None:
    unit = Unit(name="D", side="Axis", hex="A1", re=Fraction(re))
    state = game(unit, dumps=[Dump(side="Axis", hex="A1", tokens=8)])
    assert run(state, Defend(defenders=("D",), dump="A1")).fact("Dump") == f"-{cost} T"


@pytest.mark.parametrize(("steps", "drm"), [(4, 0), (5, 3)])
def test_the_plus_three_begins_at_five_oos_steps(steps: int, drm: int) -> None:
    state = game(_oos("A", steps - 1), _oos("B", 1))
    out = run(state, Attrition(units=("A",)), [1, 1])
    [rolled] = [step for step in out.steps if step.dice]
    assert sum(m.value for m in rolled.modifiers) == drm
