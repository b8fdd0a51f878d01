"""The worked examples of OCS section 12 and 9.5b/9.14c, each row a test with scripted dice."""

from __future__ import annotations

from fractions import Fraction

import pytest

from rules_core.dice import ScriptedDice
from rules_core.errors import IllegalAction
from rules_core.ocs import SYSTEM
from rules_core.ocs.actions import (
    Attack,
    Blow,
    Capture,
    Cleanup,
    Defend,
    DumpAdjust,
    FuelAction,
    Trace,
)
from rules_core.ocs.fuel import fuel_coverage
from rules_core.ocs.state import Dump, FuelMarker, OcsState, Unit
from tests.ocs.helpers import game, run

# --- T-O1: OCS 12.5 fuel example (Reaction Phase) ------------------------------------------------

HQ = Unit(name="XL HQ", side="Axis", kind="HQ", movement="truck", hex="A1")
PZ = Unit(
    name="Pz Bn", side="Axis", formation="7 Pz Div", movement="track", steps=2, re=Fraction(2)
)
INF = Unit(
    name="Inf Rgt", side="Axis", formation="7 Pz Div", movement="leg", steps=3, re=Fraction(3)
)
STUGS = tuple(
    Unit(name=f"StuG {i}", side="Axis", hq="XL HQ", movement="track") for i in range(1, 6)
)


def panzer_game(tokens: int = 20) -> OcsState:
    return game(HQ, PZ, INF, *STUGS, dumps=[Dump(side="Axis", hex="A1", tokens=tokens)])


def test_T_O1_1_hq_method_and_single_unit_cost_5T() -> None:
    state = panzer_game()
    hq = run(state, FuelAction(method="hq", target="XL HQ", dump="A1"))
    pz = run(hq.state, FuelAction(method="unit", target="Pz Bn", dump="A1"))
    expected = state.with_units(PZ.model_copy(update={"fuel": "phase"})).model_copy(
        update={
            "dumps": (Dump(side="Axis", hex="A1", tokens=15),),
            "fuel_markers": (FuelMarker(side="Axis", method="hq", name="XL HQ"),),
        }
    )
    assert pz.state == expected  # 20 T - (1 SP + 1 T) = 15 T
    assert hq.rules_cited() == ["OCS 12.5c B"]
    assert pz.rules_cited() == ["OCS 12.5c C"]
    assert hq.fact("XL HQ") == "fueled, until the next friendly Clean Up Phase"
    assert pz.fact("Pz Bn") == "fueled, the current phase only"
    assert fuel_coverage(pz.state, pz.state.unit("StuG 3")) is not None
    assert fuel_coverage(pz.state, pz.state.unit("Inf Rgt")) is not None  # walks


def test_T_O1_2_formation_method_plus_five_independents_costs_9T() -> None:
    state = panzer_game()
    out = run(state, FuelAction(method="formation", target="7 Pz Div", side="Axis", dump="A1"))
    assert out.rules_cited() == ["OCS 12.5c A"]
    for stug in STUGS:
        out = run(out.state, FuelAction(method="unit", target=stug.name, dump="A1"))
    expected = state.with_units(*(s.model_copy(update={"fuel": "phase"}) for s in STUGS))
    expected = expected.model_copy(
        update={
            "dumps": (Dump(side="Axis", hex="A1", tokens=11),),
            "fuel_markers": (FuelMarker(side="Axis", method="formation", name="7 Pz Div"),),
        }
    )
    assert out.state == expected  # 20 T - 9 T


def _next_movement_phase() -> OcsState:
    state = panzer_game()
    state = run(state, FuelAction(method="hq", target="XL HQ", dump="A1")).state
    state = run(state, FuelAction(method="unit", target="Pz Bn", dump="A1")).state
    end_of_reaction = run(state, Cleanup(side="Axis", scope="phase"))
    assert end_of_reaction.rules_cited() == ["OCS 12.5c C"]
    return end_of_reaction.state


def test_T_O1_3_assault_gun_moves_free_under_the_fueled_hq() -> None:
    state = _next_movement_phase()
    assert fuel_coverage(state, state.unit("StuG 1")) == (
        "independent unit in the throw range of the fueled XL HQ (OCS 12.5e)"
    )
    assert fuel_coverage(state, state.unit("XL HQ")) == "the HQ carries a Fuel marker (OCS 12.5c B)"
    with pytest.raises(IllegalAction, match="needs no fuel"):
        run(state, FuelAction(method="unit", target="StuG 1", dump="A1"))


def test_T_O1_4_panzer_battalion_needs_new_fuel() -> None:
    state = _next_movement_phase()
    assert state.unit("Pz Bn").fuel == "none"
    assert fuel_coverage(state, state.unit("Pz Bn")) is None
    out = run(state, FuelAction(method="unit", target="Pz Bn", dump="A1"))
    assert out.state == state.with_units(PZ.model_copy(update={"fuel": "phase"})).with_dump(
        "Axis", "A1", 14
    )


def test_T_O1_5_infantry_walks_free() -> None:
    state = _next_movement_phase()
    assert fuel_coverage(state, state.unit("Inf Rgt")) == (
        "moves on Leg MP: no fuel needed (OCS 12.5a)"
    )
    with pytest.raises(IllegalAction, match=r"Inf Rgt needs no fuel.*\(OCS 12.5a\)"):
        run(state, FuelAction(method="unit", target="Inf Rgt", dump="A1"))


def test_T_O1_6_fuel_from_internal_stocks_refused() -> None:
    state = panzer_game()
    declarations = (
        FuelAction(method="unit", target="Pz Bn", dump="A1", internals=True),
        FuelAction(method="hq", target="XL HQ", dump="A1", internals=True),
        FuelAction(method="formation", target="7 Pz Div", dump="A1", internals=True),
    )
    for declaration in declarations:
        dice = ScriptedDice([])
        with pytest.raises(IllegalAction, match=r"never pay fuel\. \(OCS 12.5g\)"):
            SYSTEM.run(state, declaration, dice)
        assert dice.rolls == ()
    assert state == panzer_game()


def test_T_O1_cleanup_ends_every_fuel_marker() -> None:
    state = _next_movement_phase()
    out = run(state, Cleanup(side="Axis"))
    assert out.state == state.model_copy(update={"fuel_markers": ()})
    assert out.rules_cited() == ["OCS 12.5d"]


# --- T-O2: OCS 12.10h internal stocks example --------------------------------------------------


def test_T_O2_1_three_separate_units_one_pays_two_go_low() -> None:
    a, b, c = (Unit(name=n, side="Axis") for n in ("A", "B", "C"))
    state = game(a, b, c, dumps=[Dump(side="Axis", hex="A1", tokens=1)])
    out = run(state, Attack(attackers=("A", "B", "C"), dump="A1"))
    expected = game(
        a,
        b.model_copy(update={"internals": "LOW"}),
        c.model_copy(update={"internals": "LOW"}),
    )
    assert out.state == expected
    assert out.rules_cited() == ["OCS 12.4", "OCS 12.10b", "OCS 12.10b"]
    assert out.facts == (
        ("A", "paid 1 T"),
        ("B", "internals: LOW"),
        ("C", "internals: LOW"),
        ("Dump", "-1 T"),
    )


def test_T_O2_2_one_three_step_unit_goes_low_and_wastes_the_1T() -> None:
    division = Unit(name="Div", side="Axis", steps=3, re=Fraction(3))
    state = game(division, dumps=[Dump(side="Axis", hex="A1", tokens=1)])
    out = run(state, Attack(attackers=("Div",), dump="A1"))
    assert out.state == game(division.model_copy(update={"internals": "LOW"}))  # dump empty
    assert out.rules_cited() == ["OCS 12.10b", "OCS 12.10h"]
    assert out.fact("Wasted") == "1 T"


# --- T-O3: OCS 12.11a dump blowing ---------------------------------------------------------------


def _blow(face: int) -> tuple[OcsState, list[str], str | None]:
    state = game(dumps=[Dump(side="Axis", hex="A1", tokens=16)])
    out = run(state, Blow(side="Axis", dump="A1", amount="3 SP"), [face])
    assert out.state.blown_this_phase == (("Axis", "A1"),)  # once per dump per phase
    return (
        out.state.model_copy(update={"blown_this_phase": ()}),
        out.rules_cited(),
        out.fact("Destroyed"),
    )


@pytest.mark.parametrize("face", [4, 5])
def test_T_O3_dr4_blows_75_percent_2SP_1T(face: int) -> None:
    state, rules, destroyed = _blow(face)
    assert state == game(dumps=[Dump(side="Axis", hex="A1", tokens=7)])  # 1 SP 3 T left
    assert destroyed == "2 SP 1 T"
    assert rules == ["OCS 12.11a"]


def test_T_O3_dr1_blows_25_percent_3T() -> None:
    state, rules, destroyed = _blow(1)
    assert state == game(dumps=[Dump(side="Axis", hex="A1", tokens=13)])
    assert (destroyed, rules) == ("3 T", ["OCS 12.11a"])


@pytest.mark.parametrize("face", [2, 3])
def test_T_O3_dr2_3_blows_50_percent_6T(face: int) -> None:
    state, rules, destroyed = _blow(face)
    assert state == game(dumps=[Dump(side="Axis", hex="A1", tokens=10)])
    assert (destroyed, rules) == ("1 1/2 SP", ["OCS 12.11a"])


def test_T_O3_dr6_blows_100_percent_leaving_1SP() -> None:
    state, rules, destroyed = _blow(6)
    assert state == game(dumps=[Dump(side="Axis", hex="A1", tokens=4)])
    assert (destroyed, rules) == ("3 SP", ["OCS 12.11a"])


# --- T-O4: OCS 12.6c eating off the map ----------------------------------------------------------


def test_T_O4_six_and_a_half_RE_eat_4T() -> None:
    div = Unit(name="Div", side="Axis", steps=6, re=Fraction(6))
    bn = Unit(name="Bn", side="Axis", re=Fraction(1, 2))
    state = game(div, bn, dumps=[Dump(side="Axis", hex="A1", tokens=8)])
    out = run(state, Trace(units=("Div", "Bn"), status="eat", dump="A1"))
    ate = {"trace": "ate", "had_genuine_trace_last_check": True}
    assert out.state == game(
        div.model_copy(update=ate),
        bn.model_copy(update=ate),
        dumps=[Dump(side="Axis", hex="A1", tokens=4)],
    )
    assert out.rules_cited() == ["OCS 12.6c"]
    assert out.fact("Dump") == "-1 SP"
    assert "ceil(13/2 / 2) = 1 SP" in out.explanation()[0]


# --- T-O5: OCS 12.1a making change ---------------------------------------------------------------


def test_T_O5_1_one_SP_dump_pays_1T_leaves_3T() -> None:
    state = game(dumps=[Dump(side="Axis", hex="A1", tokens=4)])
    out = run(state, DumpAdjust(side="Axis", hex="A1", amount="1T", reason="fuel"))
    assert out.state == game(dumps=[Dump(side="Axis", hex="A1", tokens=3)])
    assert out.rules_cited() == ["OCS 12.1a"]
    assert out.fact("Dump A1") == "3 T"


def test_T_O5_2_five_SP_dump_pays_2T_barrage_leaves_4_half_SP() -> None:
    state = game(dumps=[Dump(side="Axis", hex="A1", tokens=20)])
    out = run(state, DumpAdjust(side="Axis", hex="A1", amount="2T", reason="a barrage"))
    assert out.state == game(dumps=[Dump(side="Axis", hex="A1", tokens=18)])
    assert out.fact("Dump A1") == "4 1/2 SP"
    assert out.explanation() == ["OCS 12.1a: 5 SP − 2 T = 4 1/2 SP (making change) for a barrage"]


# --- T-O6: OCS 9.14c capture example (P3) --------------------------------------------------------


def test_T_O6_trucks_dr3_and_dump_dr5_capture() -> None:
    trucks = Unit(
        name="Trucks",
        side="Soviet",
        kind="transport",
        steps=3,
        printed_ma=12,
        hex="B2",
        load_tokens=12,
    )
    moto = Unit(name="Moto Bn", side="Axis", hex="B2", movement="truck")
    state = game(trucks, moto, dumps=[Dump(side="Soviet", hex="B2", tokens=36)])
    # one dr per category: the dump (5: 50 %), then the Trucks (3: 25 %)
    out = run(state, Capture(side="Axis", hex="B2", unit="Moto Bn"), [5, 3])
    expected = game(
        trucks.model_copy(update={"steps": 2, "load_tokens": 9}),
        moto,
        trucks.model_copy(
            update={
                "name": "Trucks (captured by Axis)",
                "side": "Axis",
                "steps": 1,
                "load_tokens": 3,
            }
        ),
        dumps=[Dump(side="Axis", hex="B2", tokens=18)],
    )
    assert out.state == expected
    assert [r.label for r in out.rolls] == ["Capture dr (Dump)", "Capture dr (Trucks)"]
    assert out.facts == (
        ("Dump", "4 1/2 SP captured"),
        ("Trucks", "1 point and 3 T captured"),
    )
    assert out.rules_cited() == ["OCS 12.11b"] * 3
    assert "4 1/2 SP captured, 4 1/2 SP destroyed" in out.explanation()[0]
    assert "displaces 2 points with 2 SP 1 T up to 10 hexes" in out.explanation()[1]
    assert "may move this phase" in out.explanation()[2]


# --- T-O7: OCS 9.5b example (P3) -----------------------------------------------------------------


def test_T_O7_three_attackers_1T_only_one_may_attack_lone_half_RE_defends_half() -> None:
    a, b, c = (Unit(name=n, side="Axis", internals="EXHAUSTED") for n in ("A", "B", "C"))
    defender = Unit(name="D", side="Soviet", re=Fraction(1, 2), internals="EXHAUSTED")
    state = game(a, b, c, defender, dumps=[Dump(side="Axis", hex="A1", tokens=1)])
    dice = ScriptedDice([])
    with pytest.raises(IllegalAction) as refused:
        SYSTEM.run(state, Attack(attackers=("A", "B", "C"), dump="A1"), dice)
    assert refused.value.user_message == (
        "The attack cannot be fully supplied: B needs 1 T and its internal stocks are Exhausted; "
        "C needs 1 T and its internal stocks are Exhausted; drop those units or find more "
        "supply. (OCS 12.4)"
    )
    assert dice.rolls == ()
    alone = run(state, Attack(attackers=("A",), dump="A1"))
    assert alone.state == game(a, b, c, defender)
    defence = run(alone.state, Defend(defenders=("D",)))
    assert defence.state == alone.state
    assert defence.rules_cited() == ["OCS 12.4", "OCS 12.10c", "OCS 12.8d"]
    assert defence.facts == (("D", "defends ×1/2"),)
    assert (
        defence.explanation()[0]
        == "OCS 12.4: defending RE 1/2: the defence costs 1 T (1 RE or less)"
    )
