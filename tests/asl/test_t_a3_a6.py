"""The worked examples T-A3 … T-A6: the FB16 examples (9-1 leader FG, PF, ATMM, PaK 40)."""

from __future__ import annotations

import pytest

from rules_core.asl import SYSTEM
from rules_core.asl.actions import (
    AddUnit,
    AddWeapon,
    Check,
    Fire,
    Repair,
    SetLevel,
    SetPhase,
    ToHit,
)
from rules_core.asl.fire import plan_fire
from rules_core.asl.state import AslState
from rules_core.errors import IllegalAction
from tests.asl.helpers import build, fates, refused, run


def a3_state() -> AslState:
    """German PFPh at level 4: squads A and B, a 9-1 leader, HMG (A) and LMG (B)."""
    return build(
        SetLevel(side="Axis", level=4),
        SetPhase(phase="pfph", side="Axis"),
        AddUnit(name="A", side="Axis", kind="squad", quality="SS 6-5-8", replaced_by=("SS 5-4-8",)),
        AddUnit(name="B", side="Axis", kind="squad", quality="4-4-7"),
        AddUnit(name="9-1", side="Axis", kind="leader", quality="9-1"),
        AddWeapon(name="HMG", side="Axis", kind="sw_mg", rof=3, owner="A"),
        AddWeapon(name="LMG", side="Axis", kind="sw_mg", rof=1, owner="B", repair=2),
    )


A3_FIRE = Fire(weapons=("HMG", "LMG"), units=("A", "B"), leader="9-1")


def squads(state: AslState) -> dict[str, tuple[str, bool]]:
    return {u.name: (u.quality, u.broken) for u in state.units}


def weapons(state: AslState) -> dict[str, tuple[str, str]]:
    return {w.name: (w.status, w.fire_marker) for w in state.weapons}


def test_T_A3_1_dr9_no_FB_effect() -> None:
    out = run(a3_state(), A3_FIRE, [3, 6])
    assert out.facts == (
        ("HMG", "fine"),
        ("LMG", "fine"),
        ("ROF (HMG)", "kept"),
        ("ROF (LMG)", "lost"),
        ("Unit Replacement (A)", "no effect"),
        ("Unit Replacement (B)", "no effect"),
    )
    assert squads(out.state) == {
        "A": ("SS 6-5-8", False),
        "B": ("4-4-7", False),
        "9-1": ("9-1", False),
    }
    # HMG kept ROF: it may fire again this PFPh with no marker (A9.2: a MG is marked once it
    # has lost its Multiple ROF), and it Prep Fired all the same (no fire in the AFPh, A3)
    assert weapons(out.state) == {"HMG": ("ok", "none"), "LMG": ("ok", "prep")}
    assert out.state.weapon("HMG").prep_fired  # type: ignore[union-attr]


def test_T_A3_2_dr10_both_MALF_candidates_RS_HMG6_LMG1_HMG_malfunctions() -> None:
    out = run(a3_state(), A3_FIRE, [5, 5, 6, 1])
    assert fates(out)["HMG"] == "malfunctioned"
    assert fates(out)["LMG"] == "fine"
    assert fates(out)["Unit Replacement (A)"] == "no effect"
    assert out.rules_cited()[:4] == ["A7", "FB16.34", "FB16.32", "A9.71"]
    assert out.explanation()[2] == "FB16.32: Original DR 10 = B12−2 at level 4 — HMG malfunctioned"
    assert "FB16.2" not in out.rules_cited()  # level 4 needs 11 for the MMC
    assert weapons(out.state) == {"HMG": ("malfunctioned", "none"), "LMG": ("ok", "prep")}


def test_T_A3_3_dr10_RS_tie_both_MGs_malfunction() -> None:
    out = run(a3_state(), A3_FIRE, [5, 5, 3, 3])
    assert weapons(out.state) == {
        "HMG": ("malfunctioned", "none"),
        "LMG": ("malfunctioned", "none"),
    }
    assert fates(out)["Residual FP (HMG)"] == fates(out)["Residual FP (LMG)"] == "none"


def test_T_A3_4_dr11_LMG_malfunctions_squad_A_replaced_no_LMG_residual() -> None:
    out = run(a3_state(), A3_FIRE, [5, 6, 3, 5, 4, 2])
    assert out.facts == (
        ("HMG", "fine"),
        ("LMG", "malfunctioned"),
        ("ROF (HMG)", "lost"),
        ("Unit Replacement (A)", "replaced by SS 5-4-8"),
        ("Unit Replacement (B)", "no effect"),
        ("Residual FP (LMG)", "none"),
    )
    assert out.rules_cited() == [
        "A7", "FB16.34", "A9.71", "FB16.32", "A9.2", "FB16.2", "FB16.21", "A19.13", "FB16.5",
    ]  # fmt: skip
    assert squads(out.state)["A"] == ("SS 5-4-8", False)
    assert out.state.unit("A") is not None and out.state.unit("A").replaced_by == ()  # type: ignore[union-attr]
    assert [r.label for r in out.rolls] == [
        "IFT DR",
        "Random Selection dr (HMG)",
        "Random Selection dr (LMG)",
        "Random Selection dr (A)",
        "Random Selection dr (B)",
    ]


def test_T_A3_5_dr11_MMC_tie_A_replaced_and_B_broken() -> None:
    out = run(a3_state(), A3_FIRE, [5, 6, 1, 2, 3, 3])
    assert fates(out)["Unit Replacement (A)"] == "replaced by SS 5-4-8"
    assert fates(out)["Unit Replacement (B)"] == "broken"
    assert squads(out.state) == {
        "A": ("SS 5-4-8", False),
        "B": ("4-4-7", True),
        "9-1": ("9-1", False),
    }
    assert "FB16.2: B cannot lose further quality — broken" in out.explanation()


def test_T_A3_6_dr12_both_MGs_eliminated_B_broken_no_residual_at_all() -> None:
    out = run(a3_state(), A3_FIRE, [6, 6, 2, 2, 1, 6])
    assert out.facts == (
        ("HMG", "eliminated"),
        ("LMG", "eliminated"),
        ("Unit Replacement (A)", "no effect"),
        ("Unit Replacement (B)", "broken"),
        ("Residual FP (HMG)", "none"),
        ("Residual FP (LMG)", "none"),
        ("Residual FP", "none at all"),
    )
    assert "FB16.31: Original DR 12 ≥ B12 at level 4 — LMG eliminated" in out.explanation()
    assert weapons(out.state) == {"HMG": ("eliminated", "none"), "LMG": ("eliminated", "none")}


def test_T_A3_7_dr12_HMG_eliminated_LMG_fine_A_replaced() -> None:
    out = run(a3_state(), A3_FIRE, [6, 6, 5, 1, 6, 2])
    assert fates(out)["HMG"] == "eliminated"
    assert fates(out)["LMG"] == "fine"
    assert fates(out)["Unit Replacement (A)"] == "replaced by SS 5-4-8"
    assert fates(out)["Unit Replacement (B)"] == "no effect"
    assert fates(out)["Residual FP"] == "none at all"
    assert weapons(out.state) == {"HMG": ("eliminated", "none"), "LMG": ("ok", "prep")}


@pytest.mark.parametrize(
    ("dr", "status", "rule"),
    [
        (1, "ok", "A9.72"),
        (2, "ok", "A9.72"),
        (3, "malfunctioned", "A9.72"),
        (4, "malfunctioned", "A9.72"),
        (5, "eliminated", "FB16.33"),
        (6, "eliminated", "A9.72"),
    ],
)
def test_T_A3_8_repair_level4_R2(dr: int, status: str, rule: str) -> None:
    state = build(
        SetLevel(side="Axis", level=4),
        AddUnit(name="B", side="Axis", kind="squad"),
        AddWeapon(
            name="LMG", side="Axis", kind="sw_mg", owner="B", repair=2, status="malfunctioned"
        ),
        SetPhase(phase="rph", side="Axis"),
    )
    out = run(state, Repair(weapon="LMG"), [dr])
    assert out.rules_cited() == [rule]
    assert [r.render() for r in out.rolls] == [f"Repair dr {dr}"]
    weapon = out.state.weapon("LMG")
    assert weapon is not None and weapon.status == status
    expected = {"ok": "repaired", "malfunctioned": "no change", "eliminated": "eliminated"}
    assert out.facts == (("LMG", expected[status]),)


def test_T_A3_9_leader_is_never_a_random_selection_candidate() -> None:
    plan = plan_fire(a3_state(), A3_FIRE)
    assert [m.name for m in plan.mmc] == ["A", "B"]
    out = run(a3_state(), A3_FIRE, [6, 6, 5, 1, 6, 2])
    assert not any("9-1" in subject for subject, _ in out.facts)
    assert all("(9-1)" not in r.label for r in out.rolls)


def a4_state() -> AslState:
    return build(
        SetLevel(side="Axis", level=4),
        AddUnit(name="E", side="Axis", kind="squad", nationality="Hungarian", elite=True, cx=True),
        AddUnit(name="C", side="Axis", kind="squad"),
        SetPhase(phase="pfph", side="Axis"),  # FB16 EX: "During the PFPh"
    )


def a5_state() -> AslState:
    """FB16 EX: "During the ensuing APh … attempt to advance into CC": the ATMM in the CCPh."""
    return a4_state().model_copy(update={"phase": "ccph"})


@pytest.mark.parametrize(
    ("unit", "dr", "final", "obtained", "pinned"),
    [("E", 1, 3, True, False), ("E", 2, 4, False, False), ("E", 6, 8, False, True),
     ("C", 3, 3, True, False), ("C", 4, 4, False, False)],
    ids=["T_A4_1", "T_A4_2", "T_A4_3", "T_A4_4", "T_A4_5"],
)  # fmt: skip
def test_T_A4_pf_checks_level4_1945(
    unit: str, dr: int, final: int, obtained: bool, pinned: bool
) -> None:
    out = run(a4_state(), Check(kind="pf", unit=unit, year=1945, target="afv"), [dr])
    assert out.facts == (
        (f"PF ({unit})", "obtained" if obtained else "none"),
        (f"Pin ({unit})", "pinned" if pinned else "not pinned"),
    )
    step = out.steps[0]
    assert step.rule == "C13.31"
    assert f"= Final {final}" in step.text
    mods = {m.label: (m.value, m.rule) for m in step.modifiers}
    if unit == "E":
        assert mods == {
            "CX": (1, "C13.31"),
            "1945": (-1, "C13.31"),
            "Hungarian": (1, "FB13.6"),
            "Ammunition Shortage level 4": (1, "FB16.63"),
        }
    else:
        assert mods == {"1945": (-1, "C13.31"), "Ammunition Shortage level 4": (1, "FB16.63")}
    checked = out.state.unit(unit)
    assert checked is not None and checked.pinned is pinned
    assert out.rules_cited() == (["C13.31", "C13.31"] if pinned else ["C13.31"])


@pytest.mark.parametrize("dr", [1, 2, 3, 4, 5, 6])
def test_T_A5_1_hungarian_E_cannot_get_ATMM(dr: int) -> None:
    out = run(a5_state(), Check(kind="atmm", unit="E"), [dr])
    assert out.fact("ATMM (E)") == "none"
    assert sum(m.value for m in out.steps[0].modifiers) == 4
    assert out.fact("Pin (E)") == ("pinned" if dr == 6 else "not pinned")


@pytest.mark.parametrize(("dr", "result"), [(2, "obtained"), (3, "none")])
def test_T_A5_2_3_german_C_ATMM_level4_drm_1(dr: int, result: str) -> None:
    out = run(a5_state(), Check(kind="atmm", unit="C"), [dr])
    assert out.facts == (("ATMM (C)", result), ("Pin (C)", "not pinned"))
    assert [(m.label, m.value, m.rule) for m in out.steps[0].modifiers] == [
        ("Ammunition Shortage level 4", 1, "FB16.64")
    ]


@pytest.mark.parametrize(("dr", "result"), [(1, "obtained"), (2, "none")])
def test_T_A5_4_atmm_level4_drm_2_by_config(dr: int, result: str) -> None:
    state = SYSTEM.new_state(["Axis", "Allied"], {"fb_atmm_level4_drm": 2})
    from rules_core.dice import ScriptedDice

    for action in (
        SetLevel(side="Axis", level=4),
        AddUnit(name="C", side="Axis", kind="squad"),
        SetPhase(phase="ccph", side="Axis"),
    ):
        state = SYSTEM.run(state, action, ScriptedDice([])).state
    out = run(state, Check(kind="atmm", unit="C"), [dr])
    assert out.fact("ATMM (C)") == result


def a6_state(*, low: bool = False, status: str = "ok", phase: str = "dfph") -> AslState:
    return build(
        SetLevel(side="Axis", level=4),
        AddUnit(name="crew", side="Axis", kind="crew"),
        AddWeapon.model_validate(
            {"name": "PaK 40", "side": "Axis", "kind": "gun", "repair": 1, "owner": "crew",
             "low_ammo": low, "status": status}
        ),
        SetPhase.model_validate({"phase": phase, "side": "Allied"}),
    )  # fmt: skip


def gun(state: AslState) -> tuple[str, bool]:
    weapon = state.weapon("PaK 40")
    assert weapon is not None
    return weapon.status, weapon.low_ammo


def test_T_A6_1_not_low_dr12_disabled() -> None:
    out = run(a6_state(), ToHit(gun="PaK 40"), [6, 6])
    assert out.facts == (("PaK 40", "disabled"),)
    assert out.rules_cited() == ["C3", "FB16.41"]
    assert gun(out.state) == ("disabled", False)


@pytest.mark.parametrize("faces", [[5, 6], [4, 6]])
def test_T_A6_2_3_not_low_dr11_dr10_marked_low_not_malfunctioned(faces: list[int]) -> None:
    out = run(a6_state(), ToHit(gun="PaK 40"), faces)
    assert out.facts == (("PaK 40", "fine, marked Low Ammo"),)
    assert out.rules_cited() == ["C3", "FB16.42", "C2.24"]
    assert gun(out.state) == ("ok", True)


def test_T_A6_4_not_low_dr9_no_effect() -> None:
    out = run(a6_state(), ToHit(gun="PaK 40"), [4, 5])
    assert out.facts == (("PaK 40", "fine"),)
    assert gun(out.state) == ("ok", False)
    assert out.state.weapon("PaK 40").fire_marker == "final"  # type: ignore[union-attr]


def test_T_A6_5_low_dr12_disabled() -> None:
    out = run(a6_state(low=True), ToHit(gun="PaK 40"), [6, 6])
    assert out.facts == (("PaK 40", "disabled"),)
    assert gun(out.state) == ("disabled", True)


@pytest.mark.parametrize("faces", [[5, 6], [4, 6], [4, 5]])
def test_T_A6_6_low_dr11_10_9_malfunctions_stays_low(faces: list[int]) -> None:
    out = run(a6_state(low=True), ToHit(gun="PaK 40"), faces)
    assert out.facts == (("PaK 40", "malfunctioned"),)
    assert out.rules_cited() == ["C3", "FB16.42"]
    assert gun(out.state) == ("malfunctioned", True)


def test_T_A6_7_low_dr8_no_effect() -> None:
    out = run(a6_state(low=True), ToHit(gun="PaK 40"), [4, 4])
    assert out.facts == (("PaK 40", "fine"),)
    assert gun(out.state) == ("ok", True)


@pytest.mark.parametrize(
    ("dr", "expected", "fact"),
    [(1, ("ok", True), "repaired"), (2, ("malfunctioned", True), "no change"),
     (3, ("malfunctioned", True), "no change"), (4, ("malfunctioned", True), "no change"),
     (5, ("disabled", True), "disabled"), (6, ("disabled", True), "disabled")],
)  # fmt: skip
def test_T_A6_8_9_10_repair_low_gun(dr: int, expected: tuple[str, bool], fact: str) -> None:
    state = a6_state(low=True, status="malfunctioned", phase="rph")
    out = run(state, Repair(weapon="PaK 40"), [dr])
    assert gun(out.state) == expected
    assert out.facts == (("PaK 40", fact),)
    assert out.rules_cited() == (["FB16.43"] if dr == 5 else ["A9.72"])
    if dr == 1:
        assert out.explanation() == [
            "A9.72: Repair dr 1, Final 1 ≤ R1 — PaK 40 repaired (still Low Ammo)"
        ]


def test_T_A6_11_intensive_fire_refused_at_level4_but_OVR_prevention_allowed() -> None:
    refused(a6_state(), ToHit(gun="PaK 40", intensive=True), IllegalAction, "FB16.52")
    ovr = a6_state(phase="mph")  # C5.64: at a T-34 overrunning in the Russian MPh
    out = run(ovr, ToHit(gun="PaK 40", intensive=True, ovr_prevention=True), [2, 3])
    assert out.facts == (("PaK 40", "fine"),)
    assert out.state.weapon("PaK 40").fire_marker == "intensive"  # type: ignore[union-attr]
