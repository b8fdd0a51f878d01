"""The turn as rules state: the Supply Phase order and the phase limits of 12.x (issue 14)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from rules_core.dice import ScriptedDice
from rules_core.errors import IllegalAction, InvalidInput, RulesError
from rules_core.ocs import SYSTEM
from rules_core.ocs.actions import (
    AnyOcsAction,
    Attrition,
    Blow,
    Breakout,
    Capture,
    FuelAction,
    Recover,
    SetPhase,
    Trace,
    UnitAdd,
)
from rules_core.ocs.state import Dump, FuelMarker, OcsState, Unit
from tests.asl.console import play
from tests.ocs.helpers import game, run

BN = Unit(name="Bn", side="Axis", hex="A1")
LOW = Unit(name="Low", side="Axis", hex="A1", internals="LOW")
FAR = Unit(name="Far", side="Axis", hex="C9", internals="EXHAUSTED")
DUMP = Dump(side="Axis", hex="A1", tokens=12)


def refused(state: OcsState, action: AnyOcsAction) -> RulesError:
    """The refusal of ``action``: no die used, nothing changed."""
    before = state.model_dump_json()
    dice = ScriptedDice([])
    with pytest.raises(RulesError) as info:
        SYSTEM.run(state, action, dice)
    assert dice.rolls == ()
    assert state.model_dump_json() == before
    return info.value


def at(state: OcsState, side: str, phase: str, **more: object) -> OcsState:
    return run(state, SetPhase(side=side, phase=phase, **more)).state


def test_trace_recovery_and_attrition_belong_to_the_owners_supply_phase() -> None:
    state = at(game(BN, LOW, dumps=[DUMP]), "Soviet", "supply")
    for action, rule in (
        (Trace(units=("Bn",), status="traced"), "OCS 12.6"),
        (Recover(side="Axis", dump="A1"), "OCS 12.10e"),
        (Attrition(units=("Bn",)), "OCS 12.8a"),
    ):
        error = refused(state, action)
        assert isinstance(error, IllegalAction) and error.rule == rule
        assert "it is Soviet's Supply Phase" in str(error)
    with pytest.raises(IllegalAction):
        SYSTEM.odds(state, Attrition(units=("Bn",)))  # a preview is refused the same way


def test_a_supply_phase_ends_only_after_every_trace_check_and_attrition() -> None:
    state = at(game(BN, LOW, dumps=[DUMP]), "Axis", "supply", turn=2)
    error = refused(state, SetPhase(side="Axis", phase="movement"))
    assert isinstance(error, IllegalAction) and error.rule == "OCS 12.10e A"
    assert str(error).startswith("Low is marked Low and stands on Axis's dump in A1 (3 SP)")
    state = run(state, Recover(side="Axis", dump="A1")).state
    error = refused(state, SetPhase(side="Axis", phase="movement"))
    assert isinstance(error, IllegalAction) and error.rule == "OCS 12.6"
    assert str(error).startswith("Bn, Low have had no trace check this Supply Phase")
    state = run(state, Trace(units=("Low",), status="traced")).state
    state = run(state, Trace(units=("Bn",), status="none")).state
    error = refused(state, SetPhase(side="Axis", phase="movement"))
    assert isinstance(error, IllegalAction) and error.rule == "OCS 12.8a"
    assert "Bn is Out of Supply and must check for Attrition" in str(error)
    state = run(state, Attrition(units=("Bn",)), [1, 1]).state
    out = run(state, SetPhase(side="Axis", phase="movement"))
    assert out.facts == (("Phase", "Axis Movement Phase, turn 2"),)
    assert SYSTEM.summary(out.state)[0] == "Turn 2: Axis Movement Phase"


def test_out_of_supply_units_check_again_every_supply_phase() -> None:
    state = at(game(BN), "Axis", "supply")
    state = run(state, Trace(units=("Bn",), status="none")).state
    state = run(state, Attrition(units=("Bn",)), [2, 2]).state
    state = at(at(state, "Axis", "movement"), "Axis", "supply", turn=2)
    error = refused(state, Attrition(units=("Bn",)))
    assert "no trace check this Supply Phase" in str(error)
    state = run(state, Trace(units=("Bn",), status="none")).state
    state = run(state, Attrition(units=("Bn",)), [2, 2]).state
    error = refused(state, Attrition(units=("Bn",)))
    assert isinstance(error, IllegalAction) and error.rule == "OCS 12.8"
    assert "already checked for Attrition this Supply Phase" in str(error)
    traced = at(at(state, "Axis", "movement"), "Axis", "supply", turn=3)
    traced = run(traced, Trace(units=("Bn",), status="traced")).state
    assert not traced.unit("Bn").out_of_supply
    assert at(traced, "Axis", "movement").phase == "movement"  # no Attrition owed


def test_recovery_comes_before_eating_off_the_map() -> None:
    state = at(game(BN, LOW, dumps=[DUMP]), "Axis", "supply")
    eat = Trace(units=("Bn",), status="eat", dump="A1")
    error = refused(state, eat)
    assert isinstance(error, IllegalAction) and error.rule == "OCS 12.10e A"
    assert "Low is marked Low and reaches the dump in A1 (stands on it)" in str(error)
    recovered = run(state, Recover(side="Axis", dump="A1")).state
    out = run(recovered, eat)
    assert out.fact("Dump") == "-1 T"
    assert recovered.dump_tokens("A1", "Axis") == 10
    far = at(game(BN, FAR, dumps=[DUMP]), "Axis", "supply")
    declared = run(far, eat.model_copy(update={"no_recovery": True}))
    assert declared.fact("Dump") == "-1 T"
    nobody_marked = at(game(BN, dumps=[DUMP]), "Axis", "supply")
    assert run(nobody_marked, eat).fact("Dump") == "-1 T"


def test_default_recovery_takes_the_marked_units_in_the_dumps_hex_only() -> None:
    state = game(LOW, FAR, dumps=[DUMP])
    out = run(state, Recover(side="Axis", dump="A1"))
    assert out.state.unit("Low").internals == "NONE"
    assert out.state.unit("Far").internals == "EXHAUSTED"  # in C9: not assumed to reach A1
    assert out.fact("Dump") == "-2 T"
    far_only = game(FAR, dumps=[DUMP])
    error = refused(far_only, Recover(side="Axis", dump="A1"))
    assert isinstance(error, IllegalAction) and error.rule == "OCS 12.10e B"
    named = run(far_only, Recover(side="Axis", dump="A1", units=("Far",)))
    assert named.state.unit("Far").internals == "NONE"  # the player states it reaches


def test_a_unit_cut_to_half_an_RE_by_attrition_still_pays_to_eat() -> None:
    """Issue 14 bug: a 2-step, 1-RE unit lost a step to Attrition, was set to 0 RE and then ate
    for 0 T; it keeps 1/2 RE and eating costs what a surviving unit pays (1 T, 12.6c)."""
    pz = Unit(name="Pz", side="Axis", hex="A1", steps=2, re=Fraction(1), out_of_supply=True)
    state = run(game(pz, dumps=[DUMP]), Attrition(units=("Pz",)), [3, 3]).state  # 6: -1 step
    assert (state.unit("Pz").steps, state.unit("Pz").re) == (1, Fraction(1, 2))
    out = run(state, Trace(units=("Pz",), status="eat", dump="A1"))
    assert out.fact("Dump") == "-1 T"
    zero = game(Unit(name="Z", side="Axis", hex="A1", re=Fraction(0)), dumps=[DUMP])
    assert run(zero, Trace(units=("Z",), status="eat", dump="A1")).fact("Dump") == "-1 T"


TRUCKS = Unit(
    name="Trucks", side="Axis", kind="transport", hex="A1", steps=2, printed_ma=12, load_tokens=8
)


def test_ground_and_loaded_SP_in_one_hex_blow_in_one_attempt() -> None:
    state = game(TRUCKS, dumps=[Dump(side="Axis", hex="A1", tokens=4)])
    out = run(state, Blow(side="Axis", dump="A1", amount="3 SP", what="all"), [6])
    assert out.fact("Destroyed") == "3 SP"
    assert out.state.dump_tokens("A1", "Axis") == 0
    assert out.state.unit("Trucks").load_tokens == 0 and out.state.unit("Trucks").steps == 2
    error = refused(out.state, Blow(side="Axis", dump="A1", amount="1 T", what="loads"))
    assert str(error) == "Axis has no dump in A1."


def test_the_ground_and_the_loads_in_a_hex_are_one_dump_blown_once_a_phase() -> None:
    """12.1b "Any location containing Supply Points, whether on the ground or loaded on a
    Transport Point, is called a dump"; 12.11a "All SP in a hex, both those loaded on Transport
    Points and those on the ground, can be blown … blow a given dump only once per phase"."""
    state = game(TRUCKS, dumps=[Dump(side="Axis", hex="A1", tokens=4)])
    out = run(state, Blow(side="Axis", dump="A1", amount="1 SP"), [6])
    assert (
        "the dump in A1 (ground and loads: one dump, 12.1b) is blown for this phase"
        in (out.explanation()[0])
    )
    for second in (
        Blow(side="Axis", dump="A1", amount="1 SP", transport="Trucks"),
        Blow(side="Axis", dump="A1", amount="1 T", what="loads"),
        Blow(side="Axis", dump="A1", amount="1 T", what="all"),
    ):
        error = refused(out.state, second)
        assert isinstance(error, IllegalAction) and error.rule == "OCS 12.11a"
        assert str(error).startswith("The dump in A1 was already blown this phase")
    # the load first, then the ground: the same single dump
    loads_first = run(state, Blow(side="Axis", dump="A1", amount="1 T", what="loads"), [6])
    error = refused(loads_first.state, Blow(side="Axis", dump="A1", amount="1 T"))
    assert isinstance(error, IllegalAction) and error.rule == "OCS 12.11a"
    # all at once is one attempt: the dump in its whole (12.11a "all or only some")
    both = run(state, Blow(side="Axis", dump="A1", amount="2 SP", what="all"), [6])
    assert both.state.dump_tokens("A1", "Axis") == 0 and both.state.unit("Trucks").load_tokens == 4


def test_blowing_only_in_the_movement_segments_of_the_owners_phases() -> None:
    state = game(TRUCKS, dumps=[Dump(side="Axis", hex="A1", tokens=4)])
    blow = Blow(side="Axis", dump="A1", amount="1 T")
    for side, phase, segment in (
        ("Axis", "combat", "movement"),
        ("Axis", "supply", "movement"),
        ("Soviet", "movement", "movement"),
        ("Axis", "movement", "barrage"),
    ):
        moved = at(state, side, phase, segment=segment)
        error = refused(moved, blow)
        assert isinstance(error, IllegalAction) and error.rule == "OCS 12.11a"
    for phase in ("movement", "reaction", "exploitation"):
        assert run(at(state, "Axis", phase), blow, [6]).fact("Destroyed") == "1 T"


def test_breakout_only_in_the_owners_breakout_segment() -> None:
    """OCS 12.8e: "During their Breakout Segment, any combat units … that are currently out of
    trace supply (make a trace-check during this segment) … can attempt Breakout" — found by
    trying it: once phases were tracked, a unit marked Out of Supply broke out in its own Combat
    Phase and in the enemy's Supply Phase. The Breakout Segment is read as the owner's Supply
    Phase (after the failed trace check) or its Movement Phase before any barrage (reading 20)."""
    cut = Unit(name="Pz", side="Axis", hex="A1", out_of_supply=True, trace="none")
    state = game(cut)
    for side, phase, segment in (
        ("Axis", "combat", "movement"),
        ("Axis", "reaction", "movement"),
        ("Axis", "exploitation", "movement"),
        ("Axis", "cleanup", "movement"),
        ("Soviet", "supply", "movement"),
        ("Soviet", "movement", "movement"),
        ("Axis", "movement", "barrage"),
    ):
        error = refused(at(state, side, phase, segment=segment), Breakout(unit="Pz"))
        assert isinstance(error, IllegalAction) and error.rule == "OCS 12.8e", (side, phase)
        assert str(error).startswith("Axis's units break out in Axis's Breakout Segment")
        with pytest.raises(IllegalAction):
            SYSTEM.odds(at(state, side, phase, segment=segment), Breakout(unit="Pz"))
    for phase in ("supply", "movement"):
        out = run(at(state, "Axis", phase), Breakout(unit="Pz"), [5, 2])
        assert out.fact("Breakout") == "succeeded"
    assert run(state, Breakout(unit="Pz"), [5, 2]).fact("Breakout") == "succeeded"  # untracked


async def test_12_8e_a_breakout_the_rules_refuse_is_refused_when_proposed(
    tmp_path: Path,
) -> None:
    """OCS 12.8e "During their Breakout Segment" through the table — found by trying it: a
    referee who plays Axis proposing the Soviet division's breakout in Axis's Movement Phase got
    a proposal logged, refused only when the Soviet player confirmed it. Refused when proposed
    now, with the confirmation's sentence, nothing logged; a move the rules accept is proposed."""
    played = await play(
        tmp_path,
        """
        /game new system:ocs sides:Axis,Soviet
        /game seat side:Axis
        @bob /game seat side:Soviet
        @bob /ocs unit add name:Div side:Soviet steps:3 hex:1506
        /ocs phase side:Axis phase:movement turn:1
        /ocs breakout unit:Div
        /ocs unit move unit:Div hex:1507
        """,
    )
    error, rule = played.refused("/ocs breakout unit:Div")
    assert rule == "OCS 12.8e" and error.startswith("Soviet's units break out in Soviet's")
    assert played.reply("/ocs unit move unit:Div hex:1507")["seq"] == 6  # nothing logged
    assert "proposes" in played.reply("/ocs unit move unit:Div hex:1507")["title"]


def test_no_capture_in_a_supply_or_clean_up_phase() -> None:
    """OCS 12.11b: "When an Attack-Capable unit enters a hex with enemy SP and/or Transport
    Points, roll on the appropriate column(s) of the Capture Table" — found by trying it: once
    phases were tracked, a unit standing in an enemy dump's hex rolled its capture in its own
    Supply Phase, where no unit moves or advances (reading 21)."""
    moto = Unit(name="Moto", side="Axis", hex="B2")
    state = game(moto, dumps=[Dump(side="Soviet", hex="B2", tokens=16)])
    for side, phase in (("Axis", "supply"), ("Axis", "cleanup"), ("Soviet", "supply")):
        error = refused(at(state, side, phase), Capture(side="Axis", hex="B2", unit="Moto"))
        assert isinstance(error, IllegalAction) and error.rule == "OCS 12.11b", (side, phase)
        assert "no unit enters a hex" in str(error)
    for side, phase in (("Axis", "movement"), ("Axis", "combat"), ("Soviet", "reaction")):
        out = run(at(state, side, phase), Capture(side="Axis", hex="B2", unit="Moto"), [4])
        assert out.fact("Dump") == "2 SP captured"


def test_a_new_phase_allows_the_same_dump_to_be_blown_again() -> None:
    state = at(game(dumps=[Dump(side="Axis", hex="A1", tokens=8)]), "Axis", "movement")
    state = run(state, Blow(side="Axis", dump="A1", amount="1 T"), [6]).state
    refused(state, Blow(side="Axis", dump="A1", amount="1 T"))
    later = at(state, "Axis", "exploitation")
    assert run(later, Blow(side="Axis", dump="A1", amount="1 T"), [6]).fact("Destroyed") == "1 T"


def test_single_unit_fuel_ends_with_the_phase_fuel_markers_in_clean_up() -> None:
    pz = Unit(name="Pz", side="Axis", hex="A1", movement="track")
    state = at(game(pz, dumps=[DUMP]), "Axis", "movement")
    state = run(state, FuelAction(method="unit", target="Pz", dump="A1")).state
    marker = FuelMarker(side="Axis", method="hq", name="HQ")
    state = state.model_copy(update={"fuel_markers": (marker,)})
    combat = run(state, SetPhase(side="Axis", phase="combat"))
    assert combat.state.unit("Pz").fuel == "none"
    assert combat.state.fuel_markers == (marker,)
    assert "OCS 12.5c C" in combat.rules_cited()
    cleanup = run(combat.state, SetPhase(side="Axis", phase="cleanup"))
    assert cleanup.state.fuel_markers == ()
    assert "OCS 12.5d: HQ: Fuel marker removed" in cleanup.explanation()


def test_phase_refusals_and_segments() -> None:
    state = at(game(), "Axis", "movement")
    error = refused(state, SetPhase(side="Axis", phase="movement"))
    assert isinstance(error, InvalidInput) and "already Axis's Movement Phase" in str(error)
    out = run(state, SetPhase(side="Axis", phase="movement", segment="barrage"))
    assert out.state.segment == "barrage" and out.facts == (("Segment", "barrage"),)
    error = refused(state, SetPhase(side="Allies", phase="combat"))
    assert "not a side of this game" in str(error)


def test_units_added_in_a_supply_phase_need_their_check_too() -> None:
    state = at(game(), "Axis", "supply")
    state = run(state, UnitAdd(name="New", side="Axis", steps=1, hex="A1")).state
    error = refused(state, SetPhase(side="Axis", phase="movement"))
    assert "New has had no trace check" in str(error)


def test_untracked_games_keep_working_without_phases() -> None:
    state = game(BN, LOW, dumps=[DUMP])
    assert state.phase is None
    out = run(state, Trace(units=("Bn",), status="eat", dump="A1"))
    assert out.fact("Dump") == "-1 T"
    assert run(state, Blow(side="Axis", dump="A1", amount="1 T"), [6]).fact("Destroyed") == "1 T"
