"""Refusals before any die, Fire Lanes, phases, captured equipment, checks, the system surface."""

from __future__ import annotations

import pytest

from rules_core.asl import SYSTEM
from rules_core.asl.actions import (
    AddUnit,
    AddWeapon,
    Check,
    Fire,
    ListWeapons,
    RemoveWeapon,
    Repair,
    SetLevel,
    SetPhase,
    ToHit,
)
from rules_core.asl.fb16 import weapon_level
from rules_core.asl.state import AslState, FireLane
from rules_core.errors import IllegalAction, InvalidInput
from tests.asl.helpers import build, refused, run


def base(level: int = 0, phase: str = "pfph", phasing: str = "Axis") -> AslState:
    return build(
        SetLevel(side="Axis", level=level),
        AddUnit(name="S", side="Axis", kind="squad"),
        AddUnit(name="L", side="Axis", kind="leader", quality="8-0"),
        AddWeapon(name="MG1", side="Axis", kind="sw_mg", rof=2, owner="S"),
        AddWeapon(name="MG2", side="Axis", kind="sw_mg", rof=1, owner="S"),
        AddWeapon(name="MG3", side="Axis", kind="sw_mg", rof=1, owner="S"),
        AddWeapon(name="LMG", side="Axis", kind="sw_mg", rof=1, owner="L"),
        SetPhase.model_validate({"phase": phase, "side": phasing}),
    )


def test_lone_leader_may_not_use_sustained_fire() -> None:
    state = base(phase="dfph", phasing="Allied")
    refused(state, Fire(weapons=("LMG",), sustained=("LMG",)), IllegalAction, "A9.3")


def test_a_third_mg_for_one_squad_is_refused() -> None:
    refused(base(), Fire(weapons=("MG1", "MG2", "MG3")), IllegalAction, "A9.11")


def test_a_squad_firing_two_mgs_forfeits_inherent_fp() -> None:
    refused(base(), Fire(weapons=("MG1", "MG2"), units=("S",)), IllegalAction, "A9.11")
    out = run(base(), Fire(weapons=("MG1", "MG2"), leader="L"), [1, 1])
    assert out.facts == (
        ("MG1", "fine"),
        ("MG2", "fine"),
        ("ROF (MG1)", "kept"),
        ("ROF (MG2)", "kept"),
    )
    # undirected, the same doubles make the squad Cower (A7.9)
    assert run(base(), Fire(weapons=("MG1", "MG2")), [1, 1]).facts[-1] == ("Cowering", "yes")


def test_a_half_squad_firing_a_mg_forfeits_inherent_fp_and_long_range_needs_a_leader() -> None:
    state = build(
        AddUnit(name="HS", side="Axis", kind="half_squad"),
        AddUnit(name="L", side="Axis", kind="leader"),
        AddWeapon(name="MG", side="Axis", kind="sw_mg", owner="HS", rof=1),
        SetPhase(phase="pfph", side="Axis"),
    )
    refused(state, Fire(weapons=("MG",), units=("HS",)), IllegalAction, "A9.11")
    refused(state, Fire(weapons=("MG",), range=17), IllegalAction, "A9.4")
    out = run(state, Fire(weapons=("MG",), range=17, leader="L"), [1, 2])
    assert out.rules_cited() == ["A9.11", "A7", "A9.4", "A9.7", "A9.2"]


def test_a_fourth_shot_at_a_unit_that_spent_2_MF_is_refused() -> None:
    state = base(phase="mph", phasing="Allied")
    fire = Fire(weapons=("MG1",), targets=("T",), location="K4", mf=2)
    state = run(state, fire, [1, 1]).state
    state = run(state, fire, [1, 1]).state
    refused(state, fire, IllegalAction, "A9.2")


def test_sustained_fire_at_level4_refused_before_any_die() -> None:
    state = base(level=4, phase="dfph", phasing="Allied")
    mg1 = state.weapons[0].model_copy(update={"fire_marker": "first"})
    state = state.with_weapons({"MG1": mg1})
    # A9.3: Final Fire by a MG marked First Fire is Sustained Fire, declared or not
    err = refused(state, Fire(weapons=("MG1",), range=1), IllegalAction, "FB16.51")
    assert err.user_message == (
        "MG1 would use Sustained Fire, which is not allowed at Ammunition Shortage level 4 "
        "except as FPF. (FB16.51)"
    )
    refused(state, Fire(weapons=("MG1",), sustained=("MG1",), range=1), IllegalAction, "FB16.51")


def test_fire_out_of_phase_and_unknown_names_are_refused() -> None:
    refused(base(phase="dfph", phasing="Axis"), Fire(weapons=("MG1",)), IllegalAction, "A3")
    refused(base(phase="rph"), Fire(weapons=("MG1",)), IllegalAction, "A3")
    refused(base(), Fire(weapons=("Nope",)), InvalidInput, None)
    refused(base(), Fire(), InvalidInput, None)
    refused(base(phase="mph", phasing="Allied"), Fire(weapons=("MG1",)), InvalidInput, None)
    refused(base(), Fire(weapons=("MG1",), lowering=("MG1-1",)), InvalidInput, None)


def test_a_malfunctioned_or_marked_weapon_cannot_fire() -> None:
    state = run(base(), Fire(weapons=("MG1",)), [6, 6]).state
    refused(state, Fire(weapons=("MG1",)), IllegalAction, "A9.7")
    state = run(base(), Fire(weapons=("MG2",)), [3, 3]).state
    refused(state, Fire(weapons=("MG2",)), IllegalAction, "A9.2")


def test_fire_lane_is_laid_and_a_residual_breakdown_removes_it() -> None:
    state = base(phase="mph", phasing="Allied")
    lay = Fire(
        weapons=("MG2",),
        fire_lane=True,
        targets=("T",),
        location="K4",
        mf=1,
        range=2,
        same_level=True,
    )
    out = run(state, lay, [5, 1])
    assert out.state.fire_lanes == (FireLane(weapon="MG2", location="K4"),)
    assert out.state.weapon("MG2").fire_marker == "first"  # type: ignore[union-attr]
    assert "A9.22" in out.rules_cited()
    residual = Fire(weapons=("MG2",), lane_residual=True)
    kept = run(out.state, residual, [5, 6])
    assert kept.facts == (("MG2", "fine"), ("Fire Lane", "stays"))
    assert kept.state.fire_lanes == out.state.fire_lanes
    broke = run(out.state, residual, [6, 6])
    assert broke.facts == (
        ("MG2", "malfunctioned"),
        ("Residual FP (MG2)", "none"),
        ("Fire Lane", "removed"),
    )
    assert broke.state.fire_lanes == ()
    assert broke.rules_cited()[0] == "A9.22"
    assert broke.rules_cited()[-1] == "A9.22"
    refused(broke.state, residual, IllegalAction, "A9.7")
    refused(state, residual, IllegalAction, "A9.22")
    squad = state.unit("S").model_copy(update={"pinned": True})  # type: ignore[union-attr]
    refused(state.with_units({"S": squad}), lay, IllegalAction, "A9.22")  # unpinned Infantry
    # a leader is Infantry too: his LMG may lay a Fire Lane (A9.22)
    by_leader = Fire(
        weapons=("LMG",),
        fire_lane=True,
        targets=("T",),
        location="K4",
        mf=1,
        range=2,
        same_level=True,
    )
    assert run(state, by_leader, [5, 1]).state.fire_lanes == (
        FireLane(weapon="LMG", location="K4"),
    )
    ended = run(out.state, SetPhase(), [])
    assert ended.state.fire_lanes == ()
    assert ended.state.shots == ()


def test_phase_changes_clear_expiring_markers_and_pins() -> None:
    state = run(base(), Fire(weapons=("MG2",)), [3, 3]).state
    assert state.weapon("MG2").fire_marker == "prep"  # type: ignore[union-attr]
    for _ in range(3):  # MPh, DFPh, AFPh: the Prep Fire marker stays until the AFPh ends
        state = run(state, SetPhase(), []).state
    assert state.phase == "afph"
    assert state.weapon("MG2").fire_marker == "prep"  # type: ignore[union-attr]
    out = run(state, SetPhase(), [])
    assert out.state.weapon("MG2").fire_marker == "none"  # type: ignore[union-attr]
    assert out.rules_cited() == ["A3", "A3"]


def test_captured_equipment_levels() -> None:
    state = build(
        SetLevel(side="Axis", level=5),
        AddUnit(name="R", side="Allied", kind="squad"),
        AddWeapon(name="MG42", side="Allied", kind="sw_mg", captured_from="Axis", owner="R"),
        AddWeapon(name="DP", side="Axis", kind="sw_mg", captured_from="Allied"),
        AddWeapon(name="FT", side="Axis", kind="sw_other", fb_immune=True),
        AddWeapon(name="MG34", side="Axis", kind="sw_mg"),
    )
    levels = {w.name: weapon_level(state, w) for w in state.weapons}
    assert levels == {"MG42": 3, "DP": 0, "FT": 0, "MG34": 5}
    state = run(state, SetPhase(phase="pfph", side="Allied"), []).state
    out = run(state, Fire(weapons=("MG42",)), [5, 6])  # FB16.14: level 3, DR 11 = B12-1
    assert out.facts == (("MG42", "malfunctioned"), ("Residual FP (MG42)", "none"))
    assert out.explanation()[1] == "FB16.32: Original DR 11 = B12−1 at level 3 — MG42 malfunctioned"


def test_level_only_for_axis_sides_and_known_sides() -> None:
    state = build()
    refused(state, SetLevel(side="Allied", level=2), IllegalAction, "FB16.1")
    refused(state, SetLevel(side="Martians", level=2), InvalidInput, None)
    out = run(state, SetLevel(side="axis", level=2), [])
    assert out.state.side("Axis").level == 2  # type: ignore[union-attr]
    assert out.explanation() == ["FB16.1: Axis: Ammunition Shortage level 2"]


def test_unit_and_weapon_names_are_unique_unless_updated() -> None:
    state = base()
    refused(state, AddUnit(name="S", side="Axis", kind="squad"), InvalidInput, None)
    refused(state, AddWeapon(name="S", side="Axis", kind="sw_mg"), InvalidInput, None)
    out = run(state, AddUnit(name="S", side="Axis", kind="squad", broken=True, update=True), [])
    assert out.state.unit("S").broken  # type: ignore[union-attr]
    assert [u.name for u in out.state.units] == ["S", "L"]


def test_hungarian_non_elite_pf_refused_smoke_and_starshell_checks() -> None:
    state = build(
        SetLevel(side="Axis", level=5),
        AddUnit(name="H", side="Axis", kind="squad", nationality="Hungarian"),
        AddUnit(name="G", side="Axis", kind="squad", smoke=3, cx=True),
        AddUnit(name="L", side="Axis", kind="leader"),
        SetPhase(phase="pfph", side="Axis"),
    )
    moving = state.model_copy(update={"phase": "mph"})  # A24.1: SMOKE in its own MPh
    refused(state, Check(kind="pf", unit="H"), IllegalAction, "FB13.6")
    refused(moving, Check(kind="smoke", unit="L"), IllegalAction, "A24.1")
    refused(state, Check(kind="starshell", unit="L"), InvalidInput, None)
    refused(state, Check(kind="atmm", unit="G", target="other"), IllegalAction, "C13.7")
    smoke = run(moving, Check(kind="smoke", unit="G"), [1])  # +1 CX +2 L5 = Final 4 > 3
    assert smoke.facts == (("SMOKE (G)", "none"),)
    assert [m.rule for m in smoke.steps[0].modifiers] == ["A24.1", "FB16.61"]
    star = run(state, Check(kind="starshell", unit="L", usage=3), [1])  # leader: +2 (16.66)
    assert star.facts == (("Starshell (L)", "available"),)
    assert [m.value for m in star.steps[0].modifiers] == [2]
    pf = run(state, Check(kind="pf", unit="L"), [1])  # SMC +2, immune to FB (16.11)
    assert [(m.label, m.value) for m in pf.steps[0].modifiers] == [("SMC", 2)]
    assert pf.facts == (("PF (L)", "obtained"), ("Pin (L)", "not pinned"))


def test_repair_refusals() -> None:
    state = build(
        AddWeapon(name="W", side="Axis", kind="sw_mg", repair=2),
        AddWeapon(name="M", side="Axis", kind="sw_mg", repair=2, status="malfunctioned",
                  captured_from="Allied"),
        AddWeapon(name="N", side="Axis", kind="sw_mg", repairable=False, status="malfunctioned"),
        SetPhase(phase="rph", side="Axis"),
    )  # fmt: skip
    refused(state, Repair(weapon="W"), IllegalAction, "A9.72")
    refused(state, Repair(weapon="M"), IllegalAction, "A9.72")
    refused(state, Repair(weapon="N"), IllegalAction, "A9.7")
    later = run(state, SetPhase(phase="pfph", side="Axis"), []).state
    broken = later.weapons[0].model_copy(update={"status": "malfunctioned"})
    refused(later.with_weapons({"W": broken}), Repair(weapon="W"), IllegalAction, "A9.72")


def test_tohit_refusals() -> None:
    state = build(
        AddUnit(name="C", side="Axis", kind="crew"),
        AddWeapon(name="G", side="Axis", kind="gun", special_ammo=("APCR:5",)),
        AddWeapon(name="K", side="Axis", kind="sw_other", owner="C"),
        SetPhase(phase="dfph", side="Allied"),
    )
    refused(state, ToHit(gun="K", intensive=True), IllegalAction, "C5.6")
    mortar = run(state, ToHit(gun="K"), [5, 6])  # a light mortar: SW on the To Hit Table
    assert mortar.facts == (("K", "fine"),)
    refused(state, ToHit(gun="G", special_ammo="HEAT"), IllegalAction, "C8.9")
    fired = run(state, ToHit(gun="G"), [5, 5]).state
    refused(fired, ToHit(gun="G"), IllegalAction, "C5.6")


def test_system_surface() -> None:
    state = base()
    assert SYSTEM.names(state, "weapon") == ["MG1", "MG2", "MG3", "LMG"]
    assert SYSTEM.names(state, "unit") == ["S", "L"]
    assert SYSTEM.names(state, "side") == ["Axis", "Allied"]
    assert SYSTEM.acting_side(state, Fire(weapons=("MG1",))) == "Axis"
    assert SYSTEM.acting_side(state, Check(kind="pf", unit="S")) == "Axis"
    assert SYSTEM.acting_side(state, SetLevel(side="Axis", level=1)) is None
    listing = run(state, ListWeapons(), [])
    assert listing.state == state
    assert listing.explanation()[0] == "A9.7: MG1 (Axis sw_mg): B12, ROF 2; ok; held by S"
    assert ListWeapons.read_only and Fire.rolls_dice and ToHit.rolls_dice
    removed = run(state, RemoveWeapon(name="MG3"), []).state
    assert SYSTEM.names(removed, "weapon") == ["MG1", "MG2", "LMG"]
    with pytest.raises(InvalidInput):
        SYSTEM.new_state(["Axis"], {"no_such_flag": 1})
    custom = SYSTEM.new_state(["Germans", "Soviets"], {"nationalities": {"Germans": "German"}})
    assert [(s.nationality, s.axis) for s in custom.sides] == [("German", True), ("Soviets", False)]
    parsed = SYSTEM.parse_action({"action": "asl.fire", "weapons": ["MG1"], "sustained": []})
    assert parsed == Fire(weapons=("MG1",))


def test_a_gun_firing_on_the_IFT_is_not_a_small_arms_attack() -> None:
    state = build(
        SetLevel(side="Axis", level=4),
        AddWeapon(name="IG", side="Axis", kind="gun"),
        SetPhase(phase="pfph", side="Axis"),
    )
    out = run(state, Fire(weapons=("IG",)), [6, 6])
    assert out.facts == (("IG", "disabled"), ("Residual FP (IG)", "none"))
    assert out.rules_cited() == ["A7", "FB16.41", "FB16.5"]
    marked = run(state, Fire(weapons=("IG",)), [5, 5])  # B12−2 at level 4: Low, not malfunction
    assert marked.facts == (("IG", "fine, marked Low Ammo"),)
    assert marked.state.weapon("IG").low_ammo  # type: ignore[union-attr]
