"""Draw and throw (12.3a-d): several dumps, an HQ's throw, its range and mode, no re-throw,
formation units tracing to one HQ (12.6f), the HQ's single fuel-throwing location (12.5e)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from rules_core.dice import ScriptedDice
from rules_core.errors import IllegalAction, InvalidInput, RulesError
from rules_core.ocs import SYSTEM
from rules_core.ocs.actions import (
    AnyOcsAction,
    Attack,
    Defend,
    FuelAction,
    Recover,
    SetPhase,
    Trace,
    UnitChange,
    UnitMove,
)
from rules_core.ocs.state import Dump, OcsState, Unit
from tests.ocs.helpers import game, run

HQ = Unit(name="XL HQ", side="Axis", kind="HQ", hex="B1", throw_range=8, movement="truck")
BN1 = Unit(name="Bn1", side="Axis", hex="C1", formation="5 Pz", hq="XL HQ")
BN2 = Unit(name="Bn2", side="Axis", hex="C2", formation="5 Pz")
DUMPS = [Dump(side="Axis", hex="A1", tokens=1), Dump(side="Axis", hex="A2", tokens=3)]


def refused(state: OcsState, action: AnyOcsAction) -> RulesError:
    before = state.model_dump_json()
    dice = ScriptedDice([])
    with pytest.raises(RulesError) as info:
        SYSTEM.run(state, action, dice)
    assert dice.rolls == ()
    assert state.model_dump_json() == before
    return info.value


def test_an_attack_draws_from_two_dumps_in_the_order_named() -> None:
    div = Unit(name="Div", side="Axis", hex="A1", steps=3, re=Fraction(3))
    out = run(game(div, dumps=DUMPS), Attack(attackers=("Div",), dump="A1, A2", draw_mp=2))
    assert out.facts == (("Div", "paid 3 T"), ("Dump", "-3 T"))
    assert out.state.dumps == (Dump(side="Axis", hex="A2", tokens=1),)
    assert out.explanation() == [
        "OCS 12.3a: the units draw from A1, A2: 2 MP, within 5",
        "OCS 12.4: Div: 3 steps pay 3 T from the dumps in A1, A2",
    ]


def test_a_defence_and_eating_draw_from_several_dumps_too() -> None:
    pair = (BN1, BN2.model_copy(update={"hex": "C1"}))  # one combat: one hex (12.4)
    out = run(game(*pair, dumps=DUMPS), Defend(defenders=("Bn1", "Bn2"), dump="A1, A2"))
    assert out.fact("Dump") == "-2 T"
    assert out.state.dumps == (Dump(side="Axis", hex="A2", tokens=2),)
    big = Unit(name="Big", side="Axis", hex="A1", steps=5, re=Fraction(5))
    eat = run(game(big, dumps=DUMPS), Trace(units=("Big",), status="eat", dump="A1, A2"))
    assert eat.fact("Dump") == "-3 T" and eat.state.dumps == (
        Dump(side="Axis", hex="A2", tokens=1),
    )


def test_a_draw_beyond_5_MP_is_refused_an_HQ_throws_further() -> None:
    state = game(HQ, BN1, dumps=DUMPS)
    error = refused(state, Attack(attackers=("Bn1",), dump="A2", draw_mp=6))
    assert isinstance(error, IllegalAction) and error.rule == "OCS 12.3a"
    out = run(state, Attack(attackers=("Bn1",), dump="A2", hq="XL HQ", draw_mp=4, throw_mp=8))
    assert out.facts == (("Bn1", "paid 1 T"), ("Dump", "-1 T"))
    assert out.explanation()[:2] == [
        "OCS 12.3a: XL HQ draw from A2: 4 MP, within 5",
        "OCS 12.3b: XL HQ throws the supply it draws, 8 of its 8 MP; used at once (12.3b A)",
    ]


@pytest.mark.parametrize(
    ("change", "action", "rule", "text"),
    [
        (
            None,
            Attack(attackers=("Bn1",), dump="A2", hq="XL HQ", throw_mp=9),
            "OCS 12.3b",
            "XL HQ throws 8 MP; 9 MP is beyond its throw range",
        ),
        (
            "strat",
            Attack(attackers=("Bn1",), dump="A2", hq="XL HQ"),
            "OCS 12.3b C",
            "XL HQ is in Strat Mode and cannot throw supply",
        ),
        ("strat", Trace(units=("Bn1",), status="traced", hq="XL HQ"), "OCS 12.3b C", "Strat Mode"),
        (
            None,
            Attack(attackers=("Bn1",), dump="A2", hq="XL HQ, 2 HQ"),
            "OCS 12.3b D",
            "2 HQ cannot re-throw supply thrown to it by XL HQ",
        ),
        (None, Attack(attackers=("Bn1",), dump="A2", hq="Bn2"), "OCS 12.3b", "Bn2 is not an HQ"),
        (None, Defend(defenders=("Bn1",), dump="S1"), "OCS 12.1d", "belongs to Soviet"),
    ],
)
def test_what_an_HQ_may_not_throw_is_refused_with_its_rule(
    change: str | None, action: AnyOcsAction, rule: str, text: str
) -> None:
    second = Unit(name="2 HQ", side="Axis", kind="HQ", hex="B2", throw_range=5)
    state = game(HQ, second, BN1, BN2, dumps=[*DUMPS, Dump(side="Soviet", hex="S1", tokens=4)])
    if change is not None:
        state = run(state, UnitChange(unit="XL HQ", mode=change)).state
    error = refused(state, action)
    assert isinstance(error, IllegalAction) and error.rule == rule
    assert text in str(error)


@pytest.mark.parametrize(
    ("action", "text"),
    [
        (Attack(attackers=("Bn1",), dump="A2", throw_mp=3), "Name the HQ that throws"),
        (Attack(attackers=("Bn1",), hq="XL HQ"), "Name the dump the HQ draws from"),
        (Attack(attackers=("Bn1",), draw_mp=3), "Name the dump drawn from"),
        (Attack(attackers=("Bn1",), dump="A2, A2"), "named twice"),
        (Attack(attackers=("Bn1",), dump="A2", hq="No HQ", throw_mp=3), "throw range first"),
        (Trace(units=("Bn1",), status="none", throw_mp=2), "only for eating"),
    ],
)
def test_incomplete_draws_are_bad_input(action: AnyOcsAction, text: str) -> None:
    no_range = Unit(name="No HQ", side="Axis", kind="HQ", hex="B3")
    error = refused(game(HQ, no_range, BN1, dumps=DUMPS), action)
    assert isinstance(error, InvalidInput) and text in str(error)


def test_recovery_through_an_HQ_takes_the_units_it_supplies_by_default() -> None:
    low = BN1.model_copy(update={"internals": "LOW"})
    far = Unit(name="Far", side="Axis", hex="Z9", internals="LOW")
    out = run(game(HQ, low, far, dumps=DUMPS), Recover(side="Axis", dump="A2", hq="XL HQ"))
    assert out.state.unit("Bn1").internals == "NONE"
    assert out.state.unit("Far").internals == "LOW"
    assert out.fact("Dump") == "-2 T"


def test_formation_units_trace_to_the_same_HQ_or_eat() -> None:
    other = Unit(name="LVII HQ", side="Axis", kind="HQ", hex="B5", throw_range=6)
    state = run(game(HQ, other, BN1, BN2, dumps=DUMPS), SetPhase(side="Axis", phase="supply")).state
    state = run(state, Trace(units=("Bn1",), status="traced", hq="XL HQ")).state
    error = refused(state, Trace(units=("Bn2",), status="traced", hq="LVII HQ"))
    assert isinstance(error, IllegalAction) and error.rule == "OCS 12.6f"
    assert str(error).startswith("5 Pz traces through XL HQ this Supply Phase; Bn2 traces to")
    assert run(state, Trace(units=("Bn2",), status="traced", hq="XL HQ")).fact("Bn2") == "in supply"
    ate = run(
        state,
        Trace(units=("Bn2",), status="eat", dump="A2", hq="LVII HQ", throw_mp=6),
    )
    assert ate.fact("Dump") == "-1 T"


def test_a_fueled_HQ_throws_fuel_from_one_location_each_phase() -> None:
    ag1 = Unit(name="AG1", side="Axis", hex="B1", movement="track", hq="XL HQ")
    ag2 = Unit(name="AG2", side="Axis", hex="B2", movement="track", hq="XL HQ")
    state = run(
        game(HQ, ag1, ag2, dumps=[Dump(side="Axis", hex="B1", tokens=8)]),
        SetPhase(side="Axis", phase="movement"),
    ).state
    state = run(state, FuelAction(method="hq", target="XL HQ", dump="B1")).state
    moved = run(state, UnitMove(unit="XL HQ", hex="B7")).state  # the HQ moves: B1 → B7
    first = run(moved, UnitMove(unit="AG1", hex="C1", hq_at="B1"))
    assert "OCS 12.5e: XL HQ throws its fuel from B1 this phase" in first.explanation()[1]
    error = refused(first.state, UnitMove(unit="AG2", hex="C2", hq_at="B7"))
    assert isinstance(error, IllegalAction) and error.rule == "OCS 12.5e"
    assert "single location each phase: B1, not B7" in str(error)
    assert run(first.state, UnitMove(unit="AG2", hex="C2")).state.unit("AG2").hex == "C2"
    error = refused(moved, UnitMove(unit="AG1", hex="C1", hq_at="B4"))
    assert "starting or its ending hex (B7 or B1), not from B4" in str(error)
    # the next phase: a new single location
    later = run(first.state, SetPhase(side="Axis", phase="exploitation")).state
    assert run(later, UnitMove(unit="AG2", hex="C3", hq_at="B7")).state.unit("AG2").hex == "C3"
