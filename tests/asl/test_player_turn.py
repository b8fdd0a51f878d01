"""The Player Turn as rules state: phases in order, who fires, use per phase and Player Turn,
unit status and possession, repair limits (A3, A8, A9.11, A9.12, A9.2, A9.3, A9.72, A.7).

Every refusal is checked to use no die and leave the state as it was (``refused``).
"""

from __future__ import annotations

from rules_core.asl.actions import (
    AddUnit,
    AddWeapon,
    Fire,
    Repair,
    SetLevel,
    SetPhase,
    SetUnit,
    ToHit,
)
from rules_core.asl.state import AslState, FireLane
from rules_core.errors import IllegalAction, InvalidInput
from tests.asl.helpers import build, refused, run


def table(phase: str = "pfph", attacker: str = "Axis") -> AslState:
    """Axis: squads A (LMG, MMG), B (HMG), half-squad H (LMG2), 8-1 leader L (LMG3), hero X.
    Allied: squad R with a DP."""
    return build(
        AddUnit(name="A", side="Axis", kind="squad", quality="4-6-7"),
        AddUnit(name="B", side="Axis", kind="squad", quality="4-6-7"),
        AddUnit(name="H", side="Axis", kind="half_squad", quality="2-3-7"),
        AddUnit(name="L", side="Axis", kind="leader", quality="8-1"),
        AddUnit(name="X", side="Axis", kind="hero"),
        AddUnit(name="R", side="Allied", kind="squad", quality="4-4-7"),
        AddWeapon(name="LMG", side="Axis", kind="sw_mg", rof=1, repair=2, owner="A"),
        AddWeapon(name="MMG", side="Axis", kind="sw_mg", rof=2, repair=3, owner="A"),
        AddWeapon(name="HMG", side="Axis", kind="sw_mg", rof=3, repair=2, owner="B"),
        AddWeapon(name="LMG2", side="Axis", kind="sw_mg", rof=1, repair=2, owner="H"),
        AddWeapon(name="LMG3", side="Axis", kind="sw_mg", rof=1, repair=2, owner="L"),
        AddWeapon(name="DP", side="Allied", kind="sw_mg", rof=1, repair=2, owner="R"),
        SetPhase.model_validate({"phase": phase, "side": attacker}),
    )


def advance(state: AslState, times: int = 1) -> AslState:
    for _ in range(times):
        state = run(state, SetPhase(), []).state
    return state


def marked(state: AslState, **markers: str) -> AslState:
    changed = {}
    for name, marker in markers.items():
        weapon = state.weapon(name)
        assert weapon is not None
        changed[weapon.name] = weapon.model_copy(update={"fire_marker": marker})
    return state.with_weapons(changed)


MPH = {"targets": ("T",), "location": "K4", "mf": 1}


# --------------------------------------------------------------------------------------------
# A3: the phases in order, whose Player Turn, out-of-sequence corrections


def test_the_phases_follow_in_order_and_the_other_side_begins_the_next_player_turn() -> None:
    state = table(phase="rph")
    seen = [(state.phase, state.phase_side, state.turn)]
    for _ in range(7):
        out = run(state, SetPhase(), [])
        state = out.state
        seen.append((state.phase, state.phase_side, state.turn))
    assert seen == [
        ("rph", "Axis", 1),
        ("pfph", "Axis", 1),
        ("mph", "Axis", 1),
        ("dfph", "Axis", 1),
        ("afph", "Axis", 1),
        ("rtph", "Axis", 1),
        ("ccph", "Axis", 1),
        ("rph", "Allied", 2),
    ]
    assert out.explanation()[0] == "A3: Rally Phase of Allied — Player Turn 2 begins"


def test_a_phase_out_of_sequence_needs_a_referee_correction() -> None:
    state = table()
    err = refused(state, SetPhase(phase="dfph"), IllegalAction, "A3")
    assert err.message == (
        "The next phase is the Movement Phase of Axis; only a referee may jump to another, "
        "with correction:true."
    )
    refused(state, SetPhase(phase="mph", side="Allied"), IllegalAction, "A3")
    run(state, SetPhase(phase="mph", side="Axis"), [])  # naming the next phase is fine
    out = run(state, SetPhase(phase="dfph", correction=True), [])
    assert (out.state.phase, out.state.phase_side) == ("dfph", "Axis")
    assert out.explanation()[1] == (
        "A3: out-of-sequence correction by a referee (the sequence would have been the "
        "Movement Phase of Axis)"
    )
    refused(build(), SetPhase(), InvalidInput, None)  # the first Player Turn names its ATTACKER


def test_the_phase_option_of_fire_no_longer_overrides_the_games_phase() -> None:
    state = table()
    refused(state, Fire(units=("A",), phase="afph"), IllegalAction, "A3")
    fire = Fire(units=("A",), phase="pfph")  # the game's own phase: nothing to correct
    assert run(state, fire, [1, 1]).state.unit("A").fire_marker == "prep"  # type: ignore[union-attr]
    out = run(state, Fire(units=("A",), phase="afph", correction=True), [1, 1])
    assert out.explanation()[0] == (
        "A3: out-of-sequence correction by a referee: fire in the Advancing Fire Phase"
    )
    refused(build(AddUnit(name="A", side="Axis", kind="squad")), Fire(units=("A",)),
            IllegalAction, "A3")  # fmt: skip


def test_only_the_side_that_may_fire_in_a_phase_fires() -> None:
    state = table()
    refused(state, Fire(weapons=("DP",)), IllegalAction, "A3")  # PFPh: ATTACKER only
    mph = advance(state)
    refused(mph, Fire(weapons=("LMG",), **MPH), IllegalAction, "A3")  # MPh: DEFENDER only
    run(mph, Fire(weapons=("DP",), **MPH), [1, 1])
    dfph = advance(mph)
    refused(dfph, Fire(units=("A",)), IllegalAction, "A3")
    run(dfph, Fire(units=("R",)), [1, 1])
    afph = advance(dfph)
    refused(afph, Fire(units=("R",)), IllegalAction, "A3")
    run(afph, Fire(units=("A",)), [1, 1])
    for state in (advance(afph), advance(afph, 2), table(phase="rph")):
        refused(state, Fire(units=("A",)), IllegalAction, "A3")
        refused(state, ToHit(gun="LMG"), IllegalAction, "A3")


# --------------------------------------------------------------------------------------------
# Inherent FP once per phase; Prep Fire bars the AFPh; leaders have none


def test_inherent_fp_fires_once_per_phase_and_prep_fire_bars_the_afph() -> None:
    state = run(table(), Fire(units=("A",)), [1, 1]).state
    refused(state, Fire(units=("A",)), IllegalAction, "A3")  # marked Prep Fire
    afph = advance(state, 3)
    refused(afph, Fire(units=("A",)), IllegalAction, "A3")  # Prep Fire lasts through the AFPh
    once = run(afph, Fire(units=("B",)), [1, 1]).state
    err = refused(once, Fire(units=("B",)), IllegalAction, "A7")
    assert err.message == "B has already fired its Inherent FP in the Advancing Fire Phase."


def test_a_leader_has_no_inherent_fp_he_directs() -> None:
    refused(table(), Fire(units=("L",)), IllegalAction, "A9.12")
    out = run(table(), Fire(units=("A",), leader="L"), [1, 1])
    assert out.state.unit("L").directed  # type: ignore[union-attr]


def test_defensive_first_fire_then_subsequent_first_fire_then_only_fpf() -> None:
    mph = table(attacker="Allied", phase="mph")
    first = run(mph, Fire(units=("A",)), [1, 1]).state
    assert first.unit("A").fire_marker == "first"  # type: ignore[union-attr]
    second = run(first, Fire(units=("A",)), [1, 1])
    assert "A8.3: A is marked First Fire: Subsequent First Fire (A8.3)" in second.explanation()
    assert second.state.unit("A").fire_marker == "final"  # type: ignore[union-attr]
    refused(second.state, Fire(units=("A",)), IllegalAction, "A8.31")
    run(second.state, Fire(units=("A",), fpf=True, range=1), [1, 1])
    refused(second.state, Fire(units=("A",), fpf=True, range=2), IllegalAction, "A8.31")
    dfph = advance(first)
    refused(dfph, Fire(units=("A",), range=2), IllegalAction, "A8.4")  # First Fire: ADJACENT
    run(dfph, Fire(units=("A",), range=1), [1, 1])
    refused(advance(second.state), Fire(units=("A",), range=1), IllegalAction, "A8.4")


# --------------------------------------------------------------------------------------------
# A9.11 / A9.12: SW MG usage over the phase and the Player Turn


def test_a_squad_fires_one_mg_free_two_at_the_cost_of_its_inherent_fp_never_three() -> None:
    state = table()
    one = run(state, Fire(weapons=("LMG",), units=("A",)), [1, 1])
    assert not one.state.unit("A").forfeit  # type: ignore[union-attr]
    # a second MG in a later attack of the same phase costs the Inherent FP — already fired
    refused(one.state, Fire(weapons=("MMG",)), IllegalAction, "A9.11")
    two = run(state, Fire(weapons=("LMG", "MMG")), [1, 1])
    assert two.explanation()[0] == (
        "A9.11: A fires two SW MGs: its Inherent FP is forfeited for this and the remaining "
        "fire phases of the Player Turn"
    )
    assert two.state.unit("A").forfeit  # type: ignore[union-attr]
    refused(state, Fire(weapons=("LMG", "MMG"), units=("A",)), IllegalAction, "A9.11")
    # ROF kept by both: they fire again this phase, still two MGs
    again = run(two.state, Fire(weapons=("LMG", "MMG")), [1, 1])
    a = again.state.unit("A")
    assert a is not None and a.mgs == ("LMG", "MMG")
    # the forfeit lasts through the AFPh of this Player Turn, and ends with it
    afph = advance(two.state, 3)
    refused(afph, Fire(units=("A",)), IllegalAction, "A9.11")
    next_turn = advance(afph, 3)
    assert (next_turn.phase, next_turn.phase_side) == ("rph", "Allied")
    assert not next_turn.unit("A").forfeit  # type: ignore[union-attr]


def test_a_third_mg_in_the_same_phase_is_refused() -> None:
    state = table()
    b_hmg = state.weapon("HMG").model_copy(update={"possessor": "A"})  # type: ignore[union-attr]
    state = state.with_weapons({"HMG": b_hmg})
    state = run(state, Fire(weapons=("LMG", "MMG")), [1, 1]).state
    err = refused(state, Fire(weapons=("HMG",)), IllegalAction, "A9.11")
    assert (
        err.message
        == "A may fire at most two SW MGs in a phase (it fired LMG, MMG earlier this phase)."
    )


def test_a7_353_halved_inherent_fp_at_an_adjacent_unit_in_final_fire() -> None:
    mph = table(attacker="Allied", phase="mph")
    state = run(mph, Fire(weapons=("LMG", "MMG"), **MPH), [1, 1]).state
    assert state.unit("A").forfeit  # type: ignore[union-attr]
    refused(state, Fire(units=("A",)), IllegalAction, "A9.11")
    dfph = advance(state)
    refused(dfph, Fire(units=("A",), range=2), IllegalAction, "A9.11")
    out = run(dfph, Fire(units=("A",), range=1), [1, 1])
    assert out.steps[0].rule == "A7.353"


def test_a_half_squad_fires_one_mg_instead_of_its_inherent_fp() -> None:
    state = table()
    refused(state, Fire(weapons=("LMG2",), units=("H",)), IllegalAction, "A9.11")
    fired = run(state, Fire(units=("H",)), [1, 1]).state
    refused(fired, Fire(weapons=("LMG2",)), IllegalAction, "A9.11")
    mg = run(state, Fire(weapons=("LMG2",)), [1, 1])
    assert mg.steps[0].rule == "A9.11"
    refused(advance(mg.state, 3), Fire(units=("H",)), IllegalAction, "A9.11")


def test_a9_12_a_lone_leader_fires_a_mg_as_area_fire_and_loses_his_leadership() -> None:
    state = table()
    out = run(state, Fire(weapons=("LMG3",)), [1, 1])
    assert out.explanation()[0] == (
        "A9.12: L fires LMG3 alone: Area Fire (FP halved), no leadership DRM this phase; the MG "
        "is exempt from Cowering"
    )
    refused(out.state, Fire(units=("A",), leader="L"), IllegalAction, "A9.12")
    directed = run(state, Fire(units=("A",), leader="L"), [1, 1]).state
    refused(directed, Fire(weapons=("LMG3",)), IllegalAction, "A9.12")
    refused(state, Fire(weapons=("LMG3",), leader="L"), IllegalAction, "A9.12")


def test_a9_12_two_smc_fire_the_mg_at_full_fp_and_may_use_sustained_fire() -> None:
    dfph = marked(table(attacker="Allied", phase="dfph"), LMG3="first")
    refused(dfph, Fire(weapons=("LMG3",), range=1), IllegalAction, "A9.3")  # lone SMC
    out = run(dfph, Fire(weapons=("LMG3",), helper="X", range=1), [1, 1])
    assert out.explanation()[:2] == [
        "A9.3: LMG3 is marked First Fire: Final Fire is Sustained Fire (B# −2, FP halved as "
        "Area Fire)",
        "A9.12: L and X fire LMG3 at full FP",
    ]
    assert {u.name for u in out.state.units if u.sw_used} == {"L", "X"}
    refused(dfph, Fire(weapons=("LMG",), helper="X", range=1), IllegalAction, "A9.12")


# --------------------------------------------------------------------------------------------
# Multiple ROF (A9.2), Sustained Fire (A9.3), FPF (A8.31)


def test_after_losing_rof_no_further_fire_that_phase_the_afph_included() -> None:
    afph = advance(table(), 3)
    kept = run(afph, Fire(weapons=("MMG",)), [2, 1])  # colored 2 ≤ ROF 2
    assert kept.fact("ROF (MMG)") == "kept"
    lost = run(kept.state, Fire(weapons=("MMG",)), [3, 1])
    assert lost.fact("ROF (MMG)") == "lost"
    assert lost.state.weapon("MMG").fire_marker == "none"  # type: ignore[union-attr]
    err = refused(lost.state, Fire(weapons=("MMG",)), IllegalAction, "A9.2")
    assert "Advancing Fire Phase" in err.message


def test_a_first_fire_mg_in_the_dfph_is_sustained_fire_and_only_at_adjacent_units() -> None:
    dfph = marked(table(attacker="Allied", phase="dfph"), HMG="first")
    refused(dfph, Fire(weapons=("HMG",), range=2), IllegalAction, "A9.2")
    refused(dfph, Fire(weapons=("HMG",)), InvalidInput, None)  # the range decides
    out = run(dfph, Fire(weapons=("HMG",), range=1), [4, 6])  # B12 −2 = B10: DR 10 breaks
    assert out.fact("HMG") == "malfunctioned"
    assert out.rules_cited()[:2] == ["A9.3", "A7"]
    fine = run(dfph, Fire(weapons=("HMG",), range=1), [1, 1])
    assert fine.state.weapon("HMG").fire_marker == "final"  # type: ignore[union-attr]
    refused(fine.state, Fire(weapons=("HMG",), range=1), IllegalAction, "A9.2")


def test_subsequent_first_fire_by_a_first_fire_mg_is_sustained_fire_automatically() -> None:
    mph = marked(table(attacker="Allied", phase="mph"), HMG="first")
    out = run(mph, Fire(weapons=("HMG",), **MPH), [4, 6])
    assert out.fact("HMG") == "malfunctioned"
    assert out.steps[0].text.startswith("HMG is marked First Fire: Subsequent First Fire is")


def test_fpf_only_at_a_unit_moving_adjacent_and_the_mf_limit_binds_it() -> None:
    mph = marked(table(attacker="Allied", phase="mph"), HMG="final")
    refused(mph, Fire(weapons=("HMG",), **MPH), IllegalAction, "A9.3")
    refused(mph, Fire(weapons=("HMG",), fpf=True, range=2, **MPH), IllegalAction, "A8.31")
    once = run(mph, Fire(weapons=("HMG",), fpf=True, range=1, **MPH), [1, 1]).state
    refused(once, Fire(weapons=("HMG",), fpf=True, range=1, **MPH), IllegalAction, "A9.2")
    run(once, Fire(weapons=("HMG",), fpf=True, range=1, targets=("T",), location="K5", mf=1),
        [1, 1])  # fmt: skip


def test_a_mg_firing_as_ordnance_keeps_the_same_limits() -> None:
    mph = table(attacker="Allied", phase="mph")
    refused(mph, ToHit(gun="HMG"), InvalidInput, None)  # the A9.2 shot limit needs the target
    shot = run(mph, ToHit(gun="HMG", **MPH), [4, 1])  # colored 4 > ROF 3: First Fire
    assert shot.state.weapon("HMG").fire_marker == "first"  # type: ignore[union-attr]
    err = refused(shot.state, ToHit(gun="HMG", targets=("U",), location="K5", mf=1),
                  IllegalAction, "A9.3")  # fmt: skip
    assert "Sustained Fire" in err.message
    kept = run(mph, ToHit(gun="HMG", **MPH), [1, 1]).state
    refused(kept, ToHit(gun="HMG", **MPH), IllegalAction, "A9.2")  # 1 MF: one shot
    afph = advance(table(), 3)
    spent = run(afph, ToHit(gun="LMG"), [2, 1]).state  # colored 2 > ROF 1
    refused(spent, ToHit(gun="LMG"), IllegalAction, "A9.2")
    fired = run(spent, Fire(units=("A",)), [1, 1]).state  # one MG is free: A fires its own FP
    refused(fired, ToHit(gun="MMG"), IllegalAction, "A9.11")  # a second MG would cost it


# --------------------------------------------------------------------------------------------
# Unit status and possession (A.7, A9.1, A9.4, A9.223, FB16.2)


def test_unit_set_records_a_status_from_outside_the_bot_and_broken_units_do_not_fire() -> None:
    state = table()
    out = run(state, SetUnit(name="A", status="broken", reason="MC DR 11"), [])
    assert out.explanation() == ["A10: A is broken (MC DR 11)"]
    broken = out.state
    refused(broken, Fire(units=("A",)), IllegalAction, "A.7")
    refused(broken, Fire(weapons=("LMG",)), IllegalAction, "A.7")
    rallied = run(broken, SetUnit(name="A", status="good_order"), []).state
    run(rallied, Fire(units=("A",)), [1, 1])
    leader_broken = run(state, SetUnit(name="L", status="broken"), []).state
    refused(leader_broken, Fire(units=("A",), leader="L"), IllegalAction, "A.7")
    far = Fire(weapons=("HMG",), leader="L", range=20)
    refused(leader_broken, far, IllegalAction, "A9.4")
    run(state, far, [1, 1])
    refused(state, Fire(weapons=("HMG",), range=20), IllegalAction, "A9.4")
    gone = run(state, SetUnit(name="B", status="eliminated"), [])
    assert gone.state.weapon("HMG").possessor is None  # type: ignore[union-attr]
    refused(gone.state, Fire(weapons=("HMG",)), IllegalAction, "A9.1")
    refused(state, SetUnit(name="Nobody", status="broken"), InvalidInput, None)


def test_a_fire_lane_ends_when_its_manning_infantry_break() -> None:
    mph = table(attacker="Allied", phase="mph")
    laid = run(
        mph, Fire(weapons=("HMG",), fire_lane=True, range=3, same_level=True, **MPH), [4, 1]
    ).state
    assert laid.fire_lanes == (FireLane(weapon="HMG", location="K4"),)
    out = run(laid, SetUnit(name="B", status="pinned"), [])
    assert out.state.fire_lanes == ()
    assert out.explanation()[-1] == "A9.223: the Fire Lane of HMG ends"


def test_a_fire_lane_mg_does_not_fire_again_in_the_mph_except_at_a_unit_entering_its_hex() -> None:
    mph = table(attacker="Allied", phase="mph")
    laid = run(
        mph, Fire(weapons=("HMG",), fire_lane=True, range=3, same_level=True, **MPH), [1, 1]
    ).state
    other = {"targets": ("U",), "location": "K5", "mf": 1}
    refused(laid, Fire(weapons=("HMG",), **other), IllegalAction, "A9.22")
    tpbf = run(laid, Fire(weapons=("HMG",), tpbf=True, range=0, targets=("U",), location="K6",
                          mf=1), [1, 1])  # fmt: skip
    assert tpbf.state.fire_lanes == ()


def test_fb16_2_breaks_the_unit_at_once_and_its_fire_lane_ends() -> None:
    state = build(
        SetLevel(side="Axis", level=5),
        AddUnit(name="A", side="Axis", kind="squad", replaced_by=()),
        AddUnit(name="B", side="Axis", kind="squad", replaced_by=("4-4-7",)),
        AddWeapon(name="LMG", side="Axis", kind="sw_mg", rof=1, owner="A"),
        SetPhase(phase="pfph", side="Axis"),
    )
    out = run(state, Fire(units=("A",)), [6, 4])
    assert out.state.unit("A").broken  # type: ignore[union-attr]
    refused(out.state, Fire(weapons=("LMG",)), IllegalAction, "A.7")


def test_a19_13_an_axis_mmc_under_fb_without_a_replacement_is_pointed_out() -> None:
    state = build(SetLevel(side="Axis", level=3))
    out = run(state, AddUnit(name="B", side="Axis", kind="squad", quality="4-4-7"), [])
    assert out.steps[-1].rule == "A19.13"
    assert out.steps[-1].text.startswith("no replacement recorded for B")
    fine = run(state, AddUnit(name="B", side="Axis", kind="squad", replaced_by=("4-4-7",)), [])
    assert [s.rule for s in fine.steps] == ["A19.13"]
    later = build(AddUnit(name="B", side="Axis", kind="squad"))
    assert run(later, SetLevel(side="Axis", level=2), []).steps[-1].rule == "A19.13"
    allied = run(state, AddUnit(name="R", side="Allied", kind="squad"), [])
    assert [s.rule for s in allied.steps] == ["A1"]


# --------------------------------------------------------------------------------------------
# Repair (A9.72)


def repair_table() -> AslState:
    state = table(phase="rph")
    broken = {
        n: state.weapon(n).model_copy(update={"status": "malfunctioned"})  # type: ignore[union-attr]
        for n in ("LMG", "MMG", "HMG", "LMG2")
    }
    return state.with_weapons(broken)


def test_one_repair_dr_per_weapon_per_player_turn() -> None:
    state = repair_table()
    tried = run(state, Repair(weapon="HMG"), [4])  # R2: no change
    assert tried.fact("HMG") == "no change"
    err = refused(tried.state, Repair(weapon="HMG"), IllegalAction, "A9.72")
    assert err.message.startswith("A Repair dr was already made for HMG this Player Turn")
    next_rph = advance(tried.state, 7)
    assert (next_rph.phase, next_rph.phase_side) == ("rph", "Allied")
    assert run(next_rph, Repair(weapon="HMG"), [1]).fact("HMG") == "repaired"


def test_a_unit_repairs_as_many_weapons_as_it_could_fire_and_only_its_own() -> None:
    state = repair_table()
    state = run(state, Repair(weapon="LMG"), [4]).state
    state = run(state, Repair(weapon="MMG"), [4]).state
    assert state.unit("A").repairs == 2  # type: ignore[union-attr]
    refused(state, Repair(weapon="HMG", unit="A"), IllegalAction, "A9.72")  # not A's
    state = run(state, Repair(weapon="HMG", unit="B"), [4]).state
    half = run(state, Repair(weapon="LMG2"), [4]).state
    assert half.unit("H").repairs == 1  # type: ignore[union-attr]


def test_a_half_squad_repairs_one_weapon_and_a_broken_unit_none() -> None:
    state = repair_table()
    h = state.unit("H")
    assert h is not None
    second = state.weapon("LMG")
    assert second is not None
    two = state.with_weapons({"LMG": second.model_copy(update={"possessor": "H"})})
    once = run(two, Repair(weapon="LMG2"), [4]).state
    refused(once, Repair(weapon="LMG"), IllegalAction, "A9.72")
    broken = run(state, SetUnit(name="B", status="broken"), []).state
    refused(broken, Repair(weapon="HMG"), IllegalAction, "A9.72")
    refused(table(), Repair(weapon="HMG"), IllegalAction, "A9.72")  # not malfunctioned


# --------------------------------------------------------------------------------------------
# Updating a unit or weapon in play keeps what the rules made of it


def test_adding_a_weapon_again_does_not_repair_it_or_clear_its_use() -> None:
    state = run(table(), Fire(weapons=("LMG",)), [6, 6]).state  # malfunctioned
    again = AddWeapon(name="LMG", side="Axis", kind="sw_mg", rof=1, owner="A", update=True)
    kept = run(state, again, []).state  # the numbers and possessor may change…
    assert kept.weapon("LMG").status == "malfunctioned"  # type: ignore[union-attr]
    fix = AddWeapon(name="LMG", side="Axis", kind="sw_mg", owner="A", update=True, status="ok")
    refused(state, fix, IllegalAction, "A9.7")  # …its status only by the rules
    corrected = run(state, fix.model_copy(update={"correction": True}), []).state
    assert corrected.weapon("LMG").status == "ok"  # type: ignore[union-attr]
    fired = run(table(), Fire(weapons=("MMG",)), [3, 1]).state  # ROF lost: spent this phase
    moved = AddWeapon(name="MMG", side="Axis", kind="sw_mg", rof=2, owner="B", update=True)
    assert run(fired, moved, []).state.weapon("MMG").spent  # type: ignore[union-attr]


def test_updating_a_unit_keeps_its_use_this_phase() -> None:
    state = run(table(), Fire(weapons=("LMG", "MMG")), [1, 2]).state  # A forfeits
    out = run(state, AddUnit(name="A", side="Axis", kind="squad", quality="4-4-7", update=True), [])
    a = out.state.unit("A")
    assert a is not None and a.forfeit and a.mgs == ("LMG", "MMG") and a.quality == "4-4-7"


def test_a_fire_lane_is_not_laid_with_tpbf() -> None:
    mph = table(attacker="Allied", phase="mph")
    lay = Fire(weapons=("HMG",), fire_lane=True, range=0, **MPH)
    refused(mph, lay, IllegalAction, "A9.22")


# --------------------------------------------------------------------------------------------
# A3 Prep Fire over the Player Turn (found by trying it)


def test_a_mg_that_kept_rof_in_the_pfph_fires_again_there_but_not_in_the_afph() -> None:
    state = table()
    kept = run(state, Fire(weapons=("HMG",)), [1, 1])  # colored 1 ≤ ROF 3
    assert kept.fact("ROF (HMG)") == "kept"
    again = run(kept.state, Fire(weapons=("HMG",)), [2, 2])  # this PFPh: legal
    assert again.fact("ROF (HMG)") == "kept"
    afph = advance(again.state, 3)
    hmg = again.state.weapon("HMG")
    assert hmg is not None and hmg.fire_marker == "none" and hmg.prep_fired  # A9.2: no marker
    error = refused(afph, Fire(weapons=("HMG",)), IllegalAction, "A3")
    assert "Prep Fire" in str(error)


def test_a_squad_that_fired_its_mg_in_the_pfph_may_still_fire_its_inherent_fp_then_not_later() -> (
    None
):
    state = table()
    mg = run(state, Fire(weapons=("HMG",)), [1, 1]).state
    assert mg.unit("B").fire_marker == "prep"  # type: ignore[union-attr]
    inherent = run(mg, Fire(units=("B",)), [3, 4]).state  # A9.11: one SW MG free, same PFPh
    refused(inherent, Fire(units=("B",)), IllegalAction, "A3")  # Inherent FP once per phase
    afph = advance(inherent, 3)
    refused(afph, Fire(units=("B",)), IllegalAction, "A3")


def test_a_unit_marked_prep_fire_does_not_fire_its_unmarked_mg_in_the_afph() -> None:
    state = table()
    prepped = run(state, Fire(units=("B",)), [3, 4]).state  # B fires only its Inherent FP
    error = refused(advance(prepped, 3), Fire(weapons=("HMG",)), IllegalAction, "A3")
    assert "B is marked Prep Fire" in str(error)


def test_a_forfeit_from_an_earlier_phase_names_no_empty_weapon_list() -> None:
    state = table()
    two = run(state, Fire(weapons=("LMG", "MMG")), [3, 3]).state
    error = refused(advance(two, 3), Fire(units=("A",)), IllegalAction, "A9.11")
    assert "fired  and" not in str(error)
    assert "SW MGs earlier this Player Turn" in str(error)


def test_a_fire_lane_is_laid_within_the_mgs_normal_range() -> None:
    mph = table(attacker="Allied", phase="mph")
    hmg = mph.weapon("HMG").model_copy(update={"normal_range": 12})  # type: ignore[union-attr]
    mph = mph.with_weapons({"HMG": hmg})
    refused(
        mph,
        Fire(weapons=("HMG",), fire_lane=True, range=13, same_level=True, **MPH),
        IllegalAction,
        "A9.22",
    )
    refused(mph, Fire(weapons=("HMG",), fire_lane=True, **MPH), InvalidInput, None)
    laid = run(
        mph, Fire(weapons=("HMG",), fire_lane=True, range=12, same_level=True, **MPH), [4, 1]
    ).state
    assert laid.fire_lanes == (FireLane(weapon="HMG", location="K4"),)
