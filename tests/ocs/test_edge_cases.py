"""OCS edge cases (attrition, breakout, internals, eating, strength, rounding), a test a row."""

from __future__ import annotations

from fractions import Fraction

import pytest

from rules_core.dice import ScriptedDice
from rules_core.errors import IllegalAction
from rules_core.ocs import SYSTEM
from rules_core.ocs.actions import (
    Attack,
    Attrition,
    Blow,
    Breakout,
    Capture,
    Cleanup,
    Defend,
    Recover,
    Strength,
    Trace,
)
from rules_core.ocs.state import Dump, OcsState, Unit
from tests.ocs.helpers import game, run


def refused(state: OcsState, action: object, match: str) -> None:
    """The declaration is refused before any die and the state is untouched."""
    before = state.model_copy(deep=True)
    dice = ScriptedDice([])
    with pytest.raises(IllegalAction, match=match):
        SYSTEM.run(state, action, dice)  # type: ignore[arg-type]
    assert dice.rolls == ()
    assert state == before


# --- E5: attrition, +3 DRM for 5 or more OOS steps ---------------------------------------------


def oos(name: str, steps: int, ar: int = 3, **extra: object) -> Unit:
    return Unit(
        name=name,
        side="Axis",
        hex="C3",
        steps=steps,
        re=Fraction(steps),
        ar=ar,
        out_of_supply=True,
        trace="none",
        **extra,
    )


def test_E5_1_four_OOS_steps_AR3_DR9_loses_2() -> None:
    div = oos("Div", 4)
    out = run(game(div), Attrition(units=("Div",)), [4, 5])
    assert out.state == game(div.model_copy(update={"steps": 2, "re": Fraction(2)}))
    assert out.facts == (("Attrition", "-2 steps"),)
    assert out.rules_cited() == ["OCS 12.8b", "OCS 12.8", "OCS 12.8b"]
    assert out.steps[1].modifiers == ()
    assert [r.render() for r in out.rolls] == ["Attrition DR 9 (4,5)"]


def test_E5_2_five_OOS_steps_AR3_DR9_plus3_loses_all() -> None:
    div = oos("Div", 5)
    out = run(game(div), Attrition(units=("Div",)), [4, 5])
    assert out.state == game(
        div.model_copy(update={"steps": 0, "re": Fraction(0), "location": "dead pile"})
    )
    assert out.facts == (("Attrition", "-5 steps"),)
    assert [m.render() for m in out.steps[1].modifiers] == ["+3 5+ OOS steps in the hex"]
    assert "Attrition DR 9 +3 5+ OOS steps in the hex = 12" in out.explanation()[1]


def test_E5_3_six_steps_in_hex_only_four_OOS_no_drm_loses_2() -> None:
    div = oos("Div", 4)
    bn = Unit(name="Bn", side="Axis", hex="C3", steps=2, re=Fraction(2), ar=3)
    out = run(game(div, bn), Attrition(units=("Div", "Bn")), [3, 6])
    assert out.state == game(div.model_copy(update={"steps": 2, "re": Fraction(2)}), bn)
    assert out.steps[1].modifiers == ()
    assert out.rules_cited() == ["OCS 12.8b", "OCS 12.8", "OCS 12.8b"]
    assert out.facts == (("Attrition", "-2 steps"),)


def test_E5_4_strat_mode_is_AR0_DR2_loses_one_step() -> None:
    unit = oos("Strat Bn", 1, ar=3, mode="strat")
    out = run(game(unit), Attrition(units=("Strat Bn",)), [1, 1])
    assert out.state == game(
        unit.model_copy(update={"steps": 0, "location": "dead pile"})
    )  # a 1-step unit keeps its RE figure
    assert "column 0" in out.explanation()[0]
    assert out.rules_cited() == ["OCS 12.8b", "OCS 12.8", "OCS 12.8b"]
    assert out.facts == (("Attrition", "-1 step"),)


def test_E5_5_AR5_in_DG_uses_column_5_4_DR8_no_loss() -> None:
    unit = oos("Pz", 2, ar=5, mode="DG")
    state = game(unit)
    out = run(state, Attrition(units=("Pz",)), [2, 6])
    assert out.state == state
    assert "column 5-4" in out.explanation()[0]
    assert out.facts == (("Attrition", "no loss"),)
    assert out.rules_cited() == ["OCS 12.8b", "OCS 12.8"]


def test_E5_6_AR1_two_OOS_steps_DR7_loses_both_rest_ignored() -> None:
    unit = oos("Bn", 2, ar=1)
    out = run(game(unit), Attrition(units=("Bn",)), [3, 4])
    assert out.state == game(
        unit.model_copy(update={"steps": 0, "re": Fraction(0), "location": "dead pile"})
    )
    assert out.facts == (("Attrition", "-2 steps"),)
    assert out.explanation()[2] == ("OCS 12.8b: only 2 OOS steps: the rest of the loss is ignored")


def test_E5_owner_chooses_which_OOS_units_lose() -> None:
    a, b = oos("A", 2), oos("B", 2)
    out = run(game(a, b), Attrition(units=("A", "B"), losses=("B",)), [3, 3])
    assert out.state == game(a, b.model_copy(update={"steps": 1, "re": Fraction(1)}))


# --- E6: Breakout, first-turn +1 -----------------------------------------------------------------

FIRST = Unit(
    name="Bn",
    side="Axis",
    steps=2,
    re=Fraction(2),
    trace="none",
    out_of_supply=True,
    internals="LOW",
    mode="DG",
    had_genuine_trace_last_check=True,
)
SECOND = FIRST.model_copy(update={"had_genuine_trace_last_check": False})


def test_E6_1_first_turn_dr4_plus1_succeeds_returns_in_3_turns() -> None:
    out = run(game(FIRST), Breakout(unit="Bn", turn=5), [4, 3])
    assert out.state == game(
        FIRST.model_copy(
            update={
                "location": "reinforcement",
                "return_turn": 8,
                "internals": "NONE",
                "mode": "combat",
                "out_of_supply": False,
                "trace": "traced",
            }
        )
    )  # steps stay 2: the step-loss marker is kept
    assert [r.render() for r in out.rolls] == ["Breakout dr 4", "Return dr 3"]
    assert out.facts == (("Breakout", "succeeded"), ("Returns", "in 3 turns"))
    assert out.rules_cited() == ["OCS 12.8e", "OCS 12.8e"]
    assert [m.render() for m in out.steps[0].modifiers] == ["+1 first turn out of trace"]


def test_E6_2_first_turn_dr3_fails_to_dead_pile() -> None:
    out = run(game(FIRST), Breakout(unit="Bn"), [3])
    assert out.state == game(FIRST.model_copy(update={"location": "dead pile"}))
    assert out.facts == (("Breakout", "failed"),)
    assert "Breakout dr 3 +1 first turn out of trace = 4: fails" in out.explanation()[1]
    assert out.rules_cited() == ["OCS 12.8e", "OCS 12.8e"]


def test_E6_3_second_turn_conditions_met_dr4_fails() -> None:
    out = run(game(SECOND), Breakout(unit="Bn", path=True, distance=15), [4])
    assert out.state == game(SECOND.model_copy(update={"location": "dead pile"}))
    assert out.steps[0].modifiers == ()
    assert out.rules_cited() == ["OCS 12.8e", "OCS 12.8e"]
    assert "not its first turn out of trace" in out.explanation()[0]


def test_E6_4_second_turn_17_hexes_refused() -> None:
    refused(game(SECOND), Breakout(unit="Bn", path=True, distance=17), r"condition B.*OCS 12.8e")
    refused(game(SECOND), Breakout(unit="Bn", distance=3), r"condition A.*OCS 12.8e")


def test_E6_5_ate_off_the_map_last_turn_is_not_a_first_turn() -> None:
    bn = Unit(name="Bn", side="Axis")
    state = game(bn, dumps=[Dump(side="Axis", hex="A1", tokens=4)])
    state = run(state, Trace(units=("Bn",), status="eat", dump="A1")).state
    state = run(state, Trace(units=("Bn",), status="none")).state
    assert state.unit("Bn").had_genuine_trace_last_check is False
    out = run(state, Breakout(unit="Bn", path=True, distance=2), [4])
    assert out.facts == (("Breakout", "failed"),)
    assert out.state.unit("Bn").location == "dead pile"


def test_E6_6_transport_point_first_turn_dr5_succeeds_one_roll_per_point() -> None:
    trucks = Unit(
        name="Trucks", side="Axis", kind="transport", steps=2, printed_ma=12, trace="none"
    )
    out = run(game(trucks), Breakout(unit="Trucks", turn=4), [5, 2, 1])
    assert [r.render() for r in out.rolls] == [
        "Breakout dr (point 1) 5",
        "Return dr (point 1) 2",
        "Breakout dr (point 2) 1",
    ]
    assert out.state == game(
        trucks.model_copy(update={"steps": 1, "location": "dead pile"}),
        trucks.model_copy(
            update={
                "name": "Trucks (returns turn 6)",
                "steps": 1,
                "location": "reinforcement",
                "return_turn": 6,
                "trace": "traced",
            }
        ),
    )
    assert out.facts == (("Breakout", "1 of 2 points succeeds"),)
    assert out.rules_cited() == ["OCS 12.8e"] * 3


def test_E6_7_transport_point_second_turn_refused() -> None:
    trucks = Unit(
        name="Trucks",
        side="Axis",
        kind="transport",
        steps=1,
        printed_ma=12,
        trace="none",
        had_genuine_trace_last_check=False,
    )
    refused(game(trucks), Breakout(unit="Trucks", path=True, distance=1), r"first turn.*12.8e")


def test_E6_8_printed_MA_0_refused() -> None:
    refused(game(FIRST.model_copy(update={"printed_ma": 0})), Breakout(unit="Bn"), r"MA of 0")


# --- E7: internal stocks Low → Exhausted → cannot attack ----------------------------------------

BN = Unit(name="Bn", side="Axis", hex="A1")


def test_E7_1_to_3_internals_low_exhausted_then_refused() -> None:
    first = run(game(BN), Attack(attackers=("Bn",)))
    assert first.state == game(BN.model_copy(update={"internals": "LOW"}))
    second = run(first.state, Attack(attackers=("Bn",)))
    assert second.state == game(BN.model_copy(update={"internals": "EXHAUSTED"}))
    assert second.rules_cited() == ["OCS 12.10b"]
    refused(second.state, Attack(attackers=("Bn",)), r"Bn needs 1 T.*Exhausted.*\(OCS 12.4\)")


def test_E7_4_exhausted_unit_defends_half_or_quarter_when_OOS() -> None:
    tired = BN.model_copy(update={"internals": "EXHAUSTED"})
    out = run(game(tired), Defend(defenders=("Bn",)))
    assert out.state == game(tired)
    assert out.facts == (("Bn", "defends ×1/2"),)
    out = run(game(tired.model_copy(update={"out_of_supply": True})), Defend(defenders=("Bn",)))
    assert out.facts == (("Bn", "defends ×1/4"),)


def test_E7_5_exhausted_3T_reachable_to_low_1T_wasted() -> None:
    tired = BN.model_copy(update={"internals": "EXHAUSTED"})
    out = run(
        game(tired, dumps=[Dump(side="Axis", hex="A1", tokens=3)]), Recover(side="Axis", dump="A1")
    )
    assert out.state == game(BN.model_copy(update={"internals": "LOW"}))
    assert out.rules_cited() == ["OCS 12.10e", "OCS 12.10e C"]
    assert "1 T buys no level and is wasted" in out.explanation()[1]


def test_E7_6_low_2T_reachable_recovers_fully() -> None:
    low = BN.model_copy(update={"internals": "LOW"})
    out = run(
        game(low, dumps=[Dump(side="Axis", hex="A1", tokens=2)]), Recover(side="Axis", dump="A1")
    )
    assert out.state == game(BN)
    assert out.rules_cited() == ["OCS 12.10e"]


def test_E7_7_three_RE_exhausted_4T_no_change_all_expended() -> None:
    div = Unit(name="Div", side="Axis", hex="A1", steps=3, re=Fraction(3), internals="EXHAUSTED")
    out = run(
        game(div, dumps=[Dump(side="Axis", hex="A1", tokens=4)]), Recover(side="Axis", dump="A1")
    )
    assert out.state == game(div)
    assert out.rules_cited() == ["OCS 12.10e C", "OCS 12.10e C"]
    assert out.facts == (("Div", "EXHAUSTED"), ("Dump", "-1 SP"))


def test_E7_recovery_takes_only_what_it_needs() -> None:
    low = BN.model_copy(update={"internals": "LOW"})
    out = run(
        game(low, dumps=[Dump(side="Axis", hex="A1", tokens=9)]), Recover(side="Axis", dump="A1")
    )
    assert out.state == game(BN, dumps=[Dump(side="Axis", hex="A1", tokens=7)])


# --- E8: the defender pays 1 T at 1 RE or less ---------------------------------------------------


@pytest.mark.parametrize(
    ("re", "cost"),
    [(Fraction(1, 2), 1), (Fraction(1), 1), (Fraction(3, 2), 2), (Fraction(3), 2)],
)
def test_E8_defender_cost_by_RE(re: Fraction, cost: int) -> None:
    unit = Unit(name="D", side="Soviet", re=re, steps=max(1, int(re)))
    state = game(unit, dumps=[Dump(side="Soviet", hex="D4", tokens=8)])
    out = run(state, Defend(defenders=("D",), dump="D4"))
    assert out.state == game(unit, dumps=[Dump(side="Soviet", hex="D4", tokens=8 - cost)])
    assert out.facts == (("Dump", f"-{cost} T"), ("D", "defends ×1"))
    assert out.rules_cited() == ["OCS 12.4", "OCS 12.4", "OCS 12.8d"]


def test_E8_attacker_division_and_battalion_4T_DAK_brigade_1T() -> None:
    div = Unit(name="Div", side="Axis", steps=3, re=Fraction(3))
    bn = Unit(name="Bn", side="Axis")
    out = run(
        game(div, bn, dumps=[Dump(side="Axis", hex="A1", tokens=8)]),
        Attack(attackers=("Div", "Bn"), dump="A1"),
    )
    assert out.state == game(div, bn, dumps=[Dump(side="Axis", hex="A1", tokens=4)])
    brigade = Unit(name="Bde", side="Axis", steps=2, re=Fraction(2), brigade=True)
    dak = game(brigade, dumps=[Dump(side="Axis", hex="A1", tokens=4)], dak_brigades=True)
    out = run(dak, Attack(attackers=("Bde",), dump="A1"))
    assert out.state == dak.with_dump("Axis", "A1", 3)
    assert out.facts == (("Bde", "paid 1 T"), ("Dump", "-1 T"))
    without_flag = game(brigade, dumps=[Dump(side="Axis", hex="A1", tokens=4)])
    assert run(without_flag, Attack(attackers=("Bde",), dump="A1")).facts[0] == ("Bde", "paid 2 T")


def test_E8_withheld_supply_defends_half() -> None:
    unit = Unit(name="D", side="Soviet")
    state = game(unit, dumps=[Dump(side="Soviet", hex="D4", tokens=8)])
    out = run(state, Defend(defenders=("D",), withhold=True))  # D4 holds 2 SP all the same
    assert out.state == state
    assert out.facts == (("D", "defends ×1/2"),)


# --- E9: eating off the map, rounding ------------------------------------------------------------


@pytest.mark.parametrize(
    ("re", "cost"),
    [("1/2", 1), ("2", 1), ("5/2", 2), ("4", 2), ("13/2", 4)],
)
def test_E9_eating_cost_rounds_up(re: str, cost: int) -> None:
    unit = Unit(name="U", side="Axis", re=Fraction(re))
    state = game(unit, dumps=[Dump(side="Axis", hex="A1", tokens=8)])
    out = run(state, Trace(units=("U",), status="eat", dump="A1"))
    assert out.state == game(
        unit.model_copy(update={"trace": "ate"}),
        dumps=[Dump(side="Axis", hex="A1", tokens=8 - cost)],
    )
    assert out.rules_cited() == ["OCS 12.6c"]


def test_E9_strat_mode_unit_may_not_eat() -> None:
    unit = Unit(name="U", side="Axis", mode="strat")
    state = game(unit, dumps=[Dump(side="Axis", hex="A1", tokens=8)])
    refused(state, Trace(units=("U",), status="eat", dump="A1"), r"Strat Mode.*\(OCS 12.6e\)")


def test_E9_unit_that_can_trace_may_not_eat() -> None:
    unit = Unit(name="U", side="Axis")
    state = game(unit, dumps=[Dump(side="Axis", hex="A1", tokens=8)])
    refused(
        state,
        Trace(units=("U",), status="eat", dump="A1", trace_available=True),
        r"only eat off the map if no trace.*\(OCS 12.6c\)",
    )


def test_E9_neither_trace_nor_eat_marks_out_of_supply() -> None:
    unit = Unit(name="U", side="Axis")
    out = run(game(unit), Trace(units=("U",), status="none"))
    assert out.state == game(unit.model_copy(update={"trace": "none", "out_of_supply": True}))
    assert out.rules_cited() == ["OCS 12.6d"]
    back = run(out.state, Trace(units=("U",), status="traced"))
    assert back.state == game(unit.model_copy(update={"had_genuine_trace_last_check": False}))
    assert back.rules_cited() == ["OCS 12.8a"]


# --- E14: the supply / Out of Supply strength matrix --------------------------------------------


@pytest.mark.parametrize(
    ("out_of_supply", "supplied", "attack", "defence"),
    [
        (False, True, "attacks ×1 = 8", "defends ×1 = 6"),
        (False, False, "may not attack", "defends ×1/2 = 3"),
        (True, True, "attacks ×1/2 = 4", "defends ×1/2 = 3"),
        (True, False, "may not attack", "defends ×1/4 = 3/2"),
    ],
)
def test_E14_strength_matrix(
    out_of_supply: bool, supplied: bool, attack: str, defence: str
) -> None:
    unit = Unit(name="U", side="Axis", out_of_supply=out_of_supply)
    state = game(unit)
    a = run(state, Strength(unit="U", mode="attack", supplied=supplied, strength=8))
    d = run(state, Strength(unit="U", mode="defend", supplied=supplied, strength=6))
    assert (a.fact("U"), d.fact("U")) == (attack, defence)
    assert a.state == state and d.state == state
    assert a.rules_cited() == (["OCS 12.8d"] if supplied else ["OCS 12.4"])
    assert d.rules_cited() == ["OCS 12.8d"]


# --- E15: Combined Arms (v3 9.4e) ----------------------------------------------------------------

UNITS_9_4E = (
    Unit(name="Tanks", side="Axis", arms="armor"),
    Unit(name="PzGren", side="Axis", arms="mech"),
    Unit(name="Inf", side="Axis", arms="other"),
    Unit(name="AT Bn", side="Soviet", arms="other", antitank=True),
    Unit(name="Mot Rgt", side="Soviet", arms="mech"),
    Unit(name="Tank Bde", side="Soviet", arms="armor"),
)


@pytest.mark.parametrize(
    ("attacker", "defenders", "hedgehog", "terrain_x2", "expected"),
    [
        ("Tanks", ("AT Bn",), False, True, "attacks ×3/2"),
        ("Tanks", ("Mot Rgt",), False, True, "attacks ×2"),
        ("PzGren", ("Mot Rgt",), False, True, "attacks ×3/2"),
        ("PzGren", (), True, True, "attacks ×3/2"),
        ("Inf", ("Tank Bde",), False, True, "attacks ×2"),
        ("Tanks", ("AT Bn",), False, False, "attacks ×1"),
    ],
)
def test_E15_combined_arms(
    attacker: str, defenders: tuple[str, ...], hedgehog: bool, terrain_x2: bool, expected: str
) -> None:
    state = game(*UNITS_9_4E)
    out = run(
        state,
        Strength(
            unit=attacker,
            mode="attack",
            defenders=defenders,
            hedgehog=hedgehog,
            terrain_x2=terrain_x2,
        ),
    )
    assert out.fact(attacker) == expected
    assert out.rules_cited() == ["OCS 12.8d", "OCS 9.4e"]
    assert out.state == state


# --- E16: blowing and capture rounding -----------------------------------------------------------


def test_E16_blow_1T_at_50_percent_destroys_1T() -> None:
    state = game(dumps=[Dump(side="Axis", hex="A1", tokens=5)])
    out = run(state, Blow(side="Axis", dump="A1", amount="1T"), [2])
    assert out.state == game(dumps=[Dump(side="Axis", hex="A1", tokens=4)]).model_copy(
        update={"blown_this_phase": (("Axis", "A1"),)}
    )
    assert "50% of 1 T = 1/2 T, rounded to the nearest Token: 1 T destroyed" in out.explanation()[0]


def test_E16_blow_1SP_at_25_percent_destroys_1T() -> None:
    state = game(dumps=[Dump(side="Axis", hex="A1", tokens=4)])
    out = run(state, Blow(side="Axis", dump="A1", amount="1 SP"), [1])
    assert out.state == game(dumps=[Dump(side="Axis", hex="A1", tokens=3)]).model_copy(
        update={"blown_this_phase": (("Axis", "A1"),)}
    )
    assert out.rules_cited() == ["OCS 12.11a"]


def test_E16_capture_3SP_ground_at_25_percent_takes_3T() -> None:
    moto = Unit(name="Moto", side="Axis", hex="B2")
    state = game(moto, dumps=[Dump(side="Soviet", hex="B2", tokens=12)])
    out = run(state, Capture(side="Axis", hex="B2", unit="Moto"), [2])
    assert out.state == game(moto, dumps=[Dump(side="Axis", hex="B2", tokens=3)])  # 9 T destroyed
    assert out.facts == (("Dump", "3 T captured"),)
    assert out.rules_cited() == ["OCS 12.11b"]
    assert (
        "25% of 3 SP = 3 T, rounded to the nearest Token (halves up): 3 T captured, 2 SP 1 T "
        "destroyed" in out.explanation()[0]
    )


def test_E16_capture_2_wagons_at_75_percent_takes_2() -> None:
    wagons = Unit(name="Wagons", side="Soviet", kind="transport", steps=2, printed_ma=8, hex="B2")
    moto = Unit(name="Moto", side="Axis", hex="B2")
    out = run(
        game(wagons, moto), Capture(side="Axis", hex="B2", unit="Moto", movement_phase=False), [5]
    )
    assert out.state == game(
        moto,
        wagons.model_copy(update={"name": "Wagons (captured by Axis)", "side": "Axis"}),
    )
    assert [r.label for r in out.rolls] == ["Capture dr (Other Transport Points)"]
    assert out.rules_cited() == ["OCS 12.11b", "OCS 12.11b"]
    assert "may not move this phase" in out.explanation()[1]


def test_E7_exhausted_attacker_takes_the_on_map_supply_first() -> None:
    fresh = Unit(name="Fresh", side="Axis")
    tired = Unit(name="Tired", side="Axis", internals="EXHAUSTED")
    state = game(fresh, tired, dumps=[Dump(side="Axis", hex="A1", tokens=1)])
    out = run(state, Attack(attackers=("Fresh", "Tired"), dump="A1"))
    assert out.state == game(fresh.model_copy(update={"internals": "LOW"}), tired)
    assert out.facts == (("Tired", "paid 1 T"), ("Fresh", "internals: LOW"), ("Dump", "-1 T"))


def test_a_dump_is_blown_once_per_phase() -> None:
    state = game(dumps=[Dump(side="Axis", hex="A1", tokens=8)])
    once = run(state, Blow(side="Axis", dump="A1", amount="1 SP"), [6]).state
    refused(once, Blow(side="Axis", dump="A1", amount="1 SP"), r"already blown this phase")
    next_phase = run(once, Cleanup(side="Axis", scope="phase")).state
    assert next_phase == game(dumps=[Dump(side="Axis", hex="A1", tokens=4)])
    assert run(next_phase, Blow(side="Axis", dump="A1", amount="1 SP"), [6]).state.dumps == ()


def test_captured_counters_get_distinct_names() -> None:
    moto = Unit(name="Moto", side="Axis", hex="B2")
    wagons = Unit(name="Wagons", side="Soviet", kind="transport", steps=1, printed_ma=8, hex="B2")
    earlier = wagons.model_copy(
        update={"name": "Wagons (captured by Axis)", "side": "Axis", "hex": "C3"}
    )
    out = run(game(moto, wagons, earlier), Capture(side="Axis", hex="B2", unit="Moto"), [6])
    assert [u.name for u in out.state.units] == [
        "Moto",
        "Wagons (captured by Axis)",
        "Wagons (captured by Axis) #2",
    ]


def test_E6_transport_points_cut_off_are_recorded_then_break_out() -> None:
    trucks = Unit(name="Trucks", side="Axis", kind="transport", steps=1, printed_ma=12)
    out = run(game(trucks), Trace(units=("Trucks",), status="none"))
    assert out.state == game(trucks.model_copy(update={"trace": "none"}))  # no OOS marker
    assert out.rules_cited() == ["OCS 12.9a"]
    back = run(out.state, Breakout(unit="Trucks", turn=2), [6, 1])
    assert back.state.unit("Trucks").location == "reinforcement"
    assert back.state.unit("Trucks").return_turn == 3
    refused(game(trucks), Trace(units=("Trucks",), status="eat", dump="A1"), r"never eats")
