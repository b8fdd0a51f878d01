"""A unit through a game: list, change after combat, move (fuel), place, remove (issue 14)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from rules_core.dice import ScriptedDice
from rules_core.errors import IllegalAction, InvalidInput, RulesError
from rules_core.ocs import SYSTEM
from rules_core.ocs.actions import (
    AnyOcsAction,
    Attack,
    Attrition,
    Breakout,
    Capture,
    FuelAction,
    SetPhase,
    Trace,
    UnitAdd,
    UnitChange,
    UnitList,
    UnitMove,
    UnitRemove,
)
from rules_core.ocs.state import Dump, OcsState, Unit
from tests.ocs.helpers import game, run

DIV = Unit(name="Div", side="Axis", hex="A1", steps=3, re=Fraction(3), ar=4)
PZ = Unit(name="Pz", side="Axis", hex="A1", steps=2, re=Fraction(1), movement="track")
DUMP = Dump(side="Axis", hex="A1", tokens=20)


def refused(state: OcsState, action: AnyOcsAction) -> RulesError:
    """The refusal of ``action``: no die used, nothing changed."""
    before = state.model_dump_json()
    dice = ScriptedDice([])
    with pytest.raises(RulesError) as info:
        SYSTEM.run(state, action, dice)
    assert dice.rolls == ()
    assert state.model_dump_json() == before
    return info.value


def test_combat_losses_lower_the_attack_cost_to_the_steps_left() -> None:
    state = run(game(DIV, dumps=[DUMP]), UnitChange(unit="Div", steps=2, reason="combat")).state
    div = state.unit("Div")
    assert (div.steps, div.re) == (2, Fraction(2))
    out = run(state, Attack(attackers=("Div",), dump="A1"))
    assert out.facts == (("Div", "paid 2 T"), ("Dump", "-2 T"))


def test_a_step_loss_explains_itself_with_the_rule() -> None:
    out = run(game(DIV), UnitChange(unit="Div", steps=1, reason="combat loss"))
    assert out.explanation() == [
        "OCS 12.4: Div loses 2 steps: 1 left, 1 RE (combat supply is 1 T per step left)"
        " — combat loss"
    ]
    assert out.facts == (("Div", "1 step"),)


def test_losing_the_last_step_sends_the_unit_to_the_dead_pile() -> None:
    out = run(game(DIV), UnitChange(unit="Div", steps=0))
    assert out.state.unit("Div").location == "dead pile"
    assert "eliminated, to the Dead Pile" in out.explanation()[0]
    error = refused(out.state, Attack(attackers=("Div",), dump="A1"))
    assert "not on the map" in str(error)


def test_a_multi_step_unit_with_less_RE_than_steps_keeps_its_share_per_step() -> None:
    """A 2-step, 1-RE unit that loses a step is 1/2 RE: it is never 0 RE while a step is left."""
    out = run(game(PZ), UnitChange(unit="Pz", steps=1))
    assert out.state.unit("Pz").re == Fraction(1, 2)


def test_eating_feeds_the_RE_left_after_losses() -> None:
    state = run(game(DIV, dumps=[DUMP]), UnitChange(unit="Div", steps=1)).state
    out = run(state, Trace(units=("Div",), status="eat", dump="A1"))
    assert out.fact("Dump") == "-1 T"  # 1 RE: ceil(1/2) = 1 T (it was 2 T at 3 RE)


def test_strat_mode_set_by_a_change_refuses_eating_and_reads_AR_0_for_attrition() -> None:
    state = run(game(DIV, dumps=[DUMP]), UnitChange(unit="Div", mode="strat")).state
    error = refused(state, Trace(units=("Div",), status="eat", dump="A1"))
    assert isinstance(error, IllegalAction) and error.rule == "OCS 12.6e"
    oos = run(state, Trace(units=("Div",), status="none")).state
    out = run(oos, Attrition(units=("Div",)), [1, 1])
    assert "column 0" in out.explanation()[0]
    assert out.facts == (("Attrition", "-1 step"),)  # AR 0 has no No-Loss row


def test_DG_set_by_a_change_is_ignored_by_attrition() -> None:
    state = run(game(DIV), UnitChange(unit="Div", mode="DG")).state
    oos = run(state, Trace(units=("Div",), status="none")).state
    out = run(oos, Attrition(units=("Div",)), [4, 4])
    assert "column 5-4" in out.explanation()[0]  # AR 4 as printed
    assert out.facts == (("Attrition", "no loss"),)


def test_reserve_mode_HQ_throw_range_formation_and_hq_change() -> None:
    hq = Unit(name="XL HQ", side="Axis", kind="HQ", hex="A2")
    state = game(DIV, hq)
    out = run(state, UnitChange(unit="Div", mode="reserve", formation="5 Pz", hq="XL HQ"))
    div = out.state.unit("Div")
    assert (div.mode, div.formation, div.hq) == ("reserve", "5 Pz", "XL HQ")
    out = run(out.state, UnitChange(unit="XL HQ", throw_range=8))
    assert out.state.unit("XL HQ").throw_range == 8
    out = run(out.state, UnitChange(unit="Div", formation="none", hq="none"))
    assert (out.state.unit("Div").formation, out.state.unit("Div").hq) == (None, None)


@pytest.mark.parametrize(
    ("action", "kind", "text"),
    [
        (UnitChange(unit="Div"), InvalidInput, "Say what changes"),
        (UnitChange(unit="Nobody", steps=1), InvalidInput, "no unit called"),
        (UnitChange(unit="Div", hq="Div"), InvalidInput, "not an HQ"),
        (UnitChange(unit="Div", throw_range=5), InvalidInput, "only an HQ"),
        (UnitChange(unit="Div", steps=3), InvalidInput, "Nothing changes"),
        (UnitChange(unit="Div", re="0"), InvalidInput, "more than 0"),
        (UnitChange(unit="Trucks", mode="strat"), InvalidInput, "has no mode"),
        (UnitChange(unit="Trucks", steps=0), InvalidInput, "unload or blow"),
        (UnitMove(unit="Pz", hex="B1"), IllegalAction, "not fueled"),
        (UnitMove(unit="Pz", hex="B1", how="overrun"), IllegalAction, "an Overrun needs fuel"),
        (UnitMove(unit="Div", hex="B1", how="placed"), InvalidInput, "already on the map"),
        (UnitMove(unit="Div", hex="B1", how="displaced"), InvalidInput, "only those"),
        (UnitMove(unit="Div", hex=" "), InvalidInput, "Name the hex"),
        (UnitRemove(unit="Trucks"), InvalidInput, "unload or blow"),
    ],
)
def test_bad_changes_are_refused_in_one_sentence(
    action: AnyOcsAction, kind: type[RulesError], text: str
) -> None:
    trucks = Unit(name="Trucks", side="Axis", kind="transport", hex="A1", load_tokens=4)
    error = refused(game(DIV, PZ, trucks, dumps=[DUMP]), action)
    assert isinstance(error, kind)
    assert text in str(error)


def test_a_track_unit_moves_only_when_fueled_a_leg_unit_freely() -> None:
    state = game(DIV, PZ, dumps=[DUMP])
    error = refused(state, UnitMove(unit="Pz", hex="B1"))
    assert isinstance(error, IllegalAction) and error.rule == "OCS 12.5a"
    fueled = run(state, FuelAction(method="unit", target="Pz", dump="A1")).state
    out = run(fueled, UnitMove(unit="Pz", hex="B1"))
    assert out.state.unit("Pz").hex == "B1"
    assert out.explanation()[0].startswith("OCS 12.5a: Pz: fueled for this phase")
    assert run(state, UnitMove(unit="Div", hex="B2")).state.unit("Div").hex == "B2"


def test_overrun_needs_fuel_retreat_and_advance_do_not() -> None:
    state = game(PZ)
    error = refused(state, UnitMove(unit="Pz", hex="B1", how="overrun"))
    assert isinstance(error, IllegalAction) and error.rule == "OCS 12.5b"
    for how in ("retreat", "advance", "rail"):
        out = run(state, UnitMove(unit="Pz", hex="B1", how=how))
        assert out.state.unit("Pz").hex == "B1"
        assert out.rules_cited()[0] == "OCS 12.5b"


def test_a_unit_back_from_breakout_is_placed_on_its_return_turn_then_pays_to_move_on() -> None:
    cut = PZ.model_copy(update={"trace": "none", "out_of_supply": True})
    state = run(game(cut, dumps=[DUMP]), Breakout(unit="Pz", turn=1), [5, 2]).state
    assert state.unit("Pz").return_turn == 3
    error = refused(state, UnitMove(unit="Pz", hex="A1", how="placed"))
    assert isinstance(error, IllegalAction) and error.rule == "OCS 12.8e"
    assert "returns on turn 3; it is turn 1" in str(error)
    error = refused(state, UnitMove(unit="Pz", hex="A1"))
    assert isinstance(error, IllegalAction) and error.rule == "OCS 12.5f"
    turn3 = run(state, SetPhase(side="Axis", phase="movement", turn=3)).state
    placed = run(turn3, UnitMove(unit="Pz", hex="A1", how="placed"))
    pz = placed.state.unit("Pz")
    assert (pz.location, pz.hex, pz.return_turn, pz.steps) == ("map", "A1", None, 2)
    assert placed.rules_cited() == ["OCS 12.5f"]
    error = refused(placed.state, UnitMove(unit="Pz", hex="A2"))
    assert isinstance(error, IllegalAction) and error.rule == "OCS 12.5a"


def test_a_reinforcement_is_placed_free_and_pays_fuel_beyond_its_entry_hex() -> None:
    state = run(
        game(dumps=[DUMP]),
        UnitAdd(name="Tk", side="Axis", steps=1, movement="track", reinforcement=True),
    ).state
    assert state.unit("Tk").location == "reinforcement"
    error = refused(state, Attack(attackers=("Tk",), dump="A1"))
    assert "not on the map" in str(error)
    placed = run(state, UnitMove(unit="Tk", hex="A1", how="placed")).state
    error = refused(placed, UnitMove(unit="Tk", hex="A2"))
    assert isinstance(error, IllegalAction) and error.rule == "OCS 12.5a"
    fueled = run(placed, FuelAction(method="unit", target="Tk", dump="A1")).state
    assert run(fueled, UnitMove(unit="Tk", hex="A2")).state.unit("Tk").hex == "A2"


def test_vehicles_displaced_by_a_capture_are_placed_by_their_owner() -> None:
    trucks = Unit(
        name="Trucks",
        side="Soviet",
        kind="transport",
        hex="B2",
        steps=3,
        load_tokens=12,
        printed_ma=12,
    )
    moto = Unit(name="Moto", side="Axis", hex="B2")
    out = run(game(moto, trucks), Capture(side="Axis", hex="B2", unit="Moto"), [3])
    left = out.state.unit("Trucks")
    assert left.steps == 2 and left.side == "Soviet"
    moved = run(out.state, UnitMove(unit="Trucks", hex="B9", how="displaced"))
    assert moved.state.unit("Trucks").hex == "B9"
    assert moved.rules_cited()[0] == "OCS 12.5b"
    assert "12.11b" in moved.explanation()[0]


def test_remove_eliminated_to_the_dead_pile_or_withdrawn_from_the_game() -> None:
    marked = DIV.model_copy(update={"out_of_supply": True, "internals": "LOW"})
    out = run(game(marked, PZ), UnitRemove(unit="Div", reason="overrun"))
    div = out.state.unit("Div")
    assert (div.location, div.out_of_supply, div.internals) == ("dead pile", False, "NONE")
    assert out.explanation() == ["OCS 12.8e: Div is eliminated, to the Dead Pile — overrun"]
    error = refused(out.state, UnitRemove(unit="Div"))
    assert "already in the Dead Pile" in str(error)
    gone = run(out.state, UnitRemove(unit="Pz", how="withdrawn")).state
    assert [u.name for u in gone.units] == ["Div"]


def test_unit_list_shows_current_steps_mode_and_markers() -> None:
    low = DIV.model_copy(update={"internals": "LOW", "out_of_supply": True, "mode": "strat"})
    hq = Unit(name="XL HQ", side="Soviet", kind="HQ", hex="C3", throw_range=8, re=Fraction(1))
    out = SYSTEM.run(game(low, hq), UnitList(), ScriptedDice([]))
    assert out.explanation() == [
        "OCS 12.6: Div (Axis combat unit) in A1: 3 steps, 3 RE, AR 4, Strat Mode, leg MP, "
        "Out of Supply, Low",
        "OCS 12.6: XL HQ (Soviet HQ) in C3: 1 step, 1 RE, AR 3, Combat Mode, leg MP, "
        "throw range 8 MP",
    ]
    only = SYSTEM.run(game(low, hq), UnitList(side="Soviet"), ScriptedDice([]))
    assert len(only.explanation()) == 1
    assert SYSTEM.run(game(), UnitList(), ScriptedDice([])).explanation() == ["OCS 12.6: no units"]
    assert UnitList.read_only
