"""The rest of A9 players meet every game: Fire Lanes in a Fire Group and Cowering (A9.22,
A7.9), self-destruction (A9.73), Random SW destruction (A9.74), dismantled MGs (A9.8), Spraying
Fire (A9.5), DCs (A9.7 EXC), CMG/IFE (A9.4 EXC), FB16.12 immunity by kind, FB16.42 citations."""

from __future__ import annotations

from rules_core.asl.actions import (
    AddUnit,
    AddWeapon,
    DestroyWeapon,
    Dismantle,
    Fire,
    RandomDestruction,
    SetLevel,
    SetPhase,
    ToHit,
)
from rules_core.asl.fb16 import weapon_level
from rules_core.asl.state import AslState, FireLane
from rules_core.errors import IllegalAction, InvalidInput
from tests.asl.helpers import build, refused, run

MPH = {"targets": ("T",), "location": "K4", "mf": 1}
LANE = {**MPH, "fire_lane": True, "range": 3, "same_level": True}


def defence(level: int = 0) -> AslState:
    """Axis DEFENDER in the Allied MPh: squads A (HMG, German) and B (MMG), leader L."""
    return build(
        SetLevel(side="Axis", level=level),
        AddUnit(name="A", side="Axis", kind="squad"),
        AddUnit(name="B", side="Axis", kind="squad"),
        AddUnit(name="L", side="Axis", kind="leader"),
        AddWeapon(name="HMG", side="Axis", kind="sw_mg", mg="hmg", rof=3, owner="A"),
        AddWeapon(name="MMG", side="Axis", kind="sw_mg", mg="mmg", rof=2, owner="B"),
        SetPhase(phase="mph", side="Allied"),
    )


# --------------------------------------------------------------------------------------------
# A9.22 Fire Lanes "even as part of a FG"; A7.9 Cowering; A9.223


def test_each_mg_of_a_fire_group_lays_its_own_fire_lane() -> None:
    out = run(defence(), Fire(weapons=("HMG", "MMG"), units=("A",), **LANE),
              [5, 1])  # fmt: skip
    assert out.state.fire_lanes == (
        FireLane(weapon="HMG", location="K4"),
        FireLane(weapon="MMG", location="K4"),
    )
    assert all(w.fire_marker == "first" and w.lane_laid for w in out.state.weapons)


def test_no_fire_lane_if_the_manning_infantry_cowered() -> None:
    out = run(defence(), Fire(weapons=("HMG",), **LANE), [3, 3])
    assert out.facts[-2:] == (("Cowering", "yes"), ("Fire Lane", "none (the Infantry Cowered)"))
    assert out.rules_cited()[-2:] == ["A7.9", "A9.22"]
    assert out.state.fire_lanes == ()
    assert out.state.weapon("HMG").fire_marker == "first"  # type: ignore[union-attr]
    directed = run(defence(), Fire(weapons=("HMG",), leader="L", **LANE), [3, 3])
    assert directed.state.fire_lanes == (FireLane(weapon="HMG", location="K4"),)


def test_a_lone_leaders_mg_and_a_fire_lane_residual_never_cower() -> None:
    state = build(
        AddUnit(name="L", side="Axis", kind="leader"),
        AddWeapon(name="LMG", side="Axis", kind="sw_mg", rof=1, owner="L"),
        SetPhase(phase="pfph", side="Axis"),
    )
    assert "Cowering" not in dict(run(state, Fire(weapons=("LMG",)), [2, 2]).facts)
    laid = run(defence(), Fire(weapons=("HMG",), leader="L", **LANE), [1, 2])
    residual = run(laid.state, Fire(weapons=("HMG",), lane_residual=True), [4, 4])
    assert "Cowering" not in dict(residual.facts)


# --------------------------------------------------------------------------------------------
# A9.73 self-destruction, A9.74 random destruction


def test_a9_73_destroying_a_sw_instead_of_firing_it_is_its_use() -> None:
    pfph = build(
        AddUnit(name="A", side="Axis", kind="squad"),
        AddWeapon(name="LMG", side="Axis", kind="sw_mg", rof=1, owner="A"),
        AddWeapon(name="MMG", side="Axis", kind="sw_mg", rof=2, owner="A"),
        AddWeapon(name="ATR", side="Axis", kind="sw_other", owner="A"),
        SetPhase(phase="pfph", side="Axis"),
    )
    out = run(pfph, DestroyWeapon(name="LMG"), [])
    assert out.facts == (("LMG", "eliminated"),)
    spiked = run(pfph, DestroyWeapon(name="MMG", malfunction=True), []).state
    assert spiked.weapon("MMG").status == "malfunctioned"  # type: ignore[union-attr]
    assert spiked.unit("A").mgs == ("MMG",)  # type: ignore[union-attr]
    fired = run(pfph, Fire(weapons=("LMG",)), [4, 1]).state  # lost ROF: no longer could fire
    refused(fired, DestroyWeapon(name="LMG"), IllegalAction, "A9.73")
    refused(run(pfph, SetPhase(), []).state, DestroyWeapon(name="LMG"), IllegalAction, "A9.73")


def test_a9_74_one_dr_per_weapon_on_the_attacks_ift_column() -> None:
    state = build(
        AddUnit(name="A", side="Axis", kind="squad"),
        AddWeapon(name="LMG", side="Axis", kind="sw_mg", owner="A"),
        AddWeapon(name="MMG", side="Axis", kind="sw_mg", owner="A", status="malfunctioned"),
        AddWeapon(name="ATR", side="Axis", kind="sw_other", owner="A"),
        SetPhase(phase="pfph", side="Allied"),  # a Final KIA of the Allied Prep Fire
    )
    kia = RandomDestruction(weapons=("LMG", "MMG", "ATR"), kia=1, k=3)
    out = run(state, kia, [1, 3, 4])
    assert out.facts == (("LMG", "eliminated"), ("MMG", "eliminated"), ("ATR", "no effect"))
    assert out.explanation()[1] == (
        "A9.74: SW destruction dr 3, Final 3 ≤ 3: K on a malfunctioned weapon — MMG eliminated"
    )
    moving = run(state, SetPhase(), []).state  # the Allied MPh: an AFV overruns
    ovr = run(moving, RandomDestruction(weapons=("ATR",), kia=1, k=3, ovr=True), [4])
    assert ovr.facts == (("ATR", "malfunctioned"),)
    assert ovr.steps[0].modifiers[0].value == -1
    refused(state, RandomDestruction(weapons=("LMG",), kia=3, k=1), InvalidInput, None)
    gone = out.state
    refused(gone, RandomDestruction(weapons=("LMG",), kia=1, k=3), IllegalAction, "A9.74")


# --------------------------------------------------------------------------------------------
# A9.8 dismantled weapons


def test_a9_8_only_non_russian_hmg_mmg_or_the_russian_50_cal_is_dismantled() -> None:
    state = build(
        AddUnit(name="A", side="Axis", kind="squad"),
        AddUnit(name="R", side="Allied", kind="squad"),
        AddUnit(name="S", side="Allied", kind="squad"),
        AddWeapon(name="MG42", side="Axis", kind="sw_mg", mg="hmg", rof=3, owner="A"),
        AddWeapon(name="LMG", side="Axis", kind="sw_mg", mg="lmg", rof=1, owner="A"),
        AddWeapon(name="DShK", side="Allied", kind="sw_mg", mg="hmg", owner="R"),
        AddWeapon(name="Fifty", side="Allied", kind="sw_mg", mg="50cal", owner="S"),
        SetPhase(phase="pfph", side="Axis"),
    )
    refused(state, Dismantle(name="LMG"), IllegalAction, "A9.8")
    dm = run(state, Dismantle(name="MG42"), [])
    assert dm.state.weapon("MG42").dm  # type: ignore[union-attr]
    refused(dm.state, Fire(weapons=("MG42",)), IllegalAction, "A9.2")  # dismantling used it
    refused(dm.state, Dismantle(name="MG42", assemble=True), IllegalAction, "A9.8")
    allied = run(state, SetPhase(phase="pfph", side="Allied", correction=True), []).state
    refused(allied, Dismantle(name="DShK"), IllegalAction, "A9.8")
    fifty = run(allied, Dismantle(name="Fifty"), []).state
    assert fifty.weapon("Fifty").dm  # type: ignore[union-attr]


def test_a9_8_a_dm_german_hmg_fires_as_a_lmg() -> None:
    state = build(
        AddUnit(name="A", side="Axis", kind="squad"),
        AddWeapon(name="MG42", side="Axis", kind="sw_mg", mg="hmg", rof=3, owner="A", dm=True),
        SetPhase(phase="pfph", side="Axis"),
    )
    out = run(state, Fire(weapons=("MG42",)), [1, 2])
    assert out.steps[0].rule == "A9.8"
    assert "fires as a German LMG" in out.steps[0].text


def test_a9_8_a_dm_non_german_mg_does_not_fire() -> None:
    state = build(
        AddUnit(name="R", side="Allied", kind="squad"),
        AddWeapon(name="Fifty", side="Allied", kind="sw_mg", mg="50cal", owner="R", dm=True),
        SetPhase(phase="pfph", side="Allied"),
    )
    refused(state, Fire(weapons=("Fifty",)), IllegalAction, "A9.8")


# --------------------------------------------------------------------------------------------
# A9.5 Spraying Fire, A9.7 DC, A9.4 CMG/IFE, FB16.12 by kind, FB16.42


def test_a9_5_spraying_fire_by_mgs_and_inherent_fp_only() -> None:
    state = build(
        AddUnit(name="A", side="Axis", kind="squad"),
        AddWeapon(name="LMG", side="Axis", kind="sw_mg", rof=1, owner="A"),
        AddUnit(name="C", side="Axis", kind="crew"),
        AddWeapon(name="IG", side="Axis", kind="gun", owner="C"),
        AddUnit(name="L", side="Axis", kind="leader"),
        SetPhase(phase="pfph", side="Axis"),
    )
    out = run(state, Fire(weapons=("LMG",), units=("A",), spraying=True, leader="L"), [1, 2])
    assert out.steps[0].rule == "A9.5"
    refused(state, Fire(weapons=("LMG", "IG"), spraying=True), IllegalAction, "A9.52")
    dfph = defence()
    dfph = run(dfph, Fire(weapons=("HMG",), **MPH), [4, 1]).state  # First Fire marker
    dfph = run(dfph, SetPhase(), []).state
    refused(dfph, Fire(weapons=("HMG",), spraying=True, range=2), IllegalAction, "A9.52")


def test_a_dc_that_breaks_does_not_resolve_its_attack_and_is_immune_to_fb() -> None:
    state = build(
        SetLevel(side="Axis", level=5),
        AddUnit(name="A", side="Axis", kind="squad"),
        AddWeapon(name="DC", side="Axis", kind="dc", owner="A"),
        AddWeapon(name="FT", side="Axis", kind="ft", owner="A", x=12),
        AddUnit(name="L", side="Axis", kind="leader"),
        SetPhase(phase="pfph", side="Axis"),
    )
    assert [weapon_level(state, w) for w in state.weapons] == [0, 0]  # FB16.12 by kind
    fine = run(state, Fire(weapons=("DC",), leader="L"), [5, 6])  # level 5 would break on 10
    assert fine.facts == (("DC", "fine"),)
    broke = run(state, Fire(weapons=("DC",), leader="L"), [6, 6])
    assert broke.facts[-1] == ("Attack", "not resolved (the DC broke)")
    assert "A9.7: DC broke — its attack is not resolved (A23.4)" in broke.explanation()


def test_a_cmg_needs_no_leader_beyond_16_hexes() -> None:
    state = build(
        AddWeapon(name="CMG", side="Axis", kind="veh_mg", cmg=True, rof=2),
        AddWeapon(name="AAMG", side="Axis", kind="veh_mg", rof=2),
        SetPhase(phase="pfph", side="Axis"),
    )
    out = run(state, Fire(weapons=("CMG",), range=20), [1, 2])
    assert "A9.4" not in out.rules_cited()
    refused(state, Fire(weapons=("AAMG",), range=20), IllegalAction, "A9.4")


def test_a_low_ammo_marker_placed_by_fb16_cites_fb16_42() -> None:
    state = build(
        SetLevel(side="Axis", level=1),
        AddUnit(name="C", side="Axis", kind="crew"),
        AddWeapon(name="PaK", side="Axis", kind="gun", owner="C"),
        SetPhase(phase="pfph", side="Axis"),
    )
    out = run(state, ToHit(gun="PaK"), [6, 6])
    assert out.explanation()[-1] == (
        "FB16.42: Original DR 12 ≥ B12 — PaK malfunctioned and marked Low Ammo"
    )
