"""The worked examples T-A1 (A9.2 EX, Multiple ROF and the MPh shot limit) and T-A2 (A9.71 EX)."""

from __future__ import annotations

from rules_core.asl.actions import AddUnit, AddWeapon, Fire, SetPhase
from rules_core.asl.state import AslState, ShotCount
from rules_core.errors import IllegalAction
from tests.asl.helpers import build, fates, refused, run


def a1_state() -> AslState:
    """A Russian MG Defensive-First-Fires in the German MPh."""
    return build(
        AddUnit(name="MG squad", side="Allied", kind="squad", quality="4-4-7"),
        AddWeapon(name="MG", side="Allied", kind="sw_mg", rof=1, owner="MG squad"),
        SetPhase(phase="mph", side="Axis"),
    )


def mph_fire(*targets: str, location: str, mf: int, **extra: object) -> Fire:
    return Fire.model_validate(
        {"weapons": ("MG",), "targets": targets, "location": location, "mf": mf, **extra}
    )


def test_T_A1_1_colored_1_keeps_rof_and_counts_shots_per_unit() -> None:
    out = run(a1_state(), mph_fire("leader", "squad", location="H6", mf=1), [1, 4])
    assert out.facts == (("MG", "fine"), ("ROF (MG)", "kept"))
    assert out.rules_cited() == ["A7", "A9.7", "A9.2"]
    assert [r.render() for r in out.rolls] == ["IFT DR 5 (1,4)"]
    mg = out.state.weapon("MG")
    assert mg is not None and mg.fire_marker == "none" and mg.status == "ok"
    assert out.state.shots == (
        ShotCount(weapon="MG", target="leader", location="H6", shots=1),
        ShotCount(weapon="MG", target="squad", location="H6", shots=1),
    )


def test_T_A1_2_second_shot_at_leader_after_1_MF_refused() -> None:
    state = run(a1_state(), mph_fire("leader", "squad", location="H6", mf=1), [1, 4]).state
    err = refused(state, mph_fire("leader", location="H6", mf=1), IllegalAction, "A9.2")
    assert "1 time" in err.message


def test_T_A1_2b_leader_spent_2_MF_second_shot_allowed() -> None:
    state = run(a1_state(), mph_fire("leader", "squad", location="H6", mf=2), [1, 4]).state
    out = run(state, mph_fire("leader", location="H6", mf=2), [1, 3])
    assert fates(out) == {"MG": "fine", "ROF (MG)": "kept"}
    assert ShotCount(weapon="MG", target="leader", location="H6", shots=2) in out.state.shots
    assert ShotCount(weapon="MG", target="squad", location="H6", shots=1) in out.state.shots


def test_T_A1_3_squad_in_H5_after_2_MF_rof_kept() -> None:
    state = run(a1_state(), mph_fire("leader", "squad", location="H6", mf=1), [1, 4]).state
    out = run(state, mph_fire("squad", location="H5", mf=2), [1, 5])
    assert out.facts == (("MG", "fine"), ("ROF (MG)", "kept"))
    assert ShotCount(weapon="MG", target="squad", location="H5", shots=1) in out.state.shots


def test_T_A1_4_second_shot_in_H5_colored_4_loses_rof_First_Fire() -> None:
    state = run(a1_state(), mph_fire("squad", location="H5", mf=2), [1, 5]).state
    out = run(state, mph_fire("squad", location="H5", mf=2), [4, 2])
    assert out.facts == (("MG", "fine"), ("ROF (MG)", "lost"))
    assert (
        out.explanation()[-1]
        == "A9.2: MG: colored dr 4 > ROF 1 — loses Multiple ROF; First Fire counter"
    )
    mg = out.state.weapon("MG")
    assert mg is not None and mg.fire_marker == "first"
    assert ShotCount(weapon="MG", target="squad", location="H5", shots=2) in out.state.shots


def test_T_A1_5_third_shot_refused_even_as_subsequent_first_fire() -> None:
    # A9.2 EX: "It cannot use Subsequent First Fire vs the broken squad because it has already
    # fired on it twice and the unit had expended only two MF in its current Location."
    state = run(a1_state(), mph_fire("squad", location="H5", mf=2), [1, 5]).state
    state = run(state, mph_fire("squad", location="H5", mf=2), [4, 2]).state
    refused(state, mph_fire("squad", location="H5", mf=2), IllegalAction, "A9.2")
    refused(state, mph_fire("squad", location="H5", mf=2, sustained=("MG",)), IllegalAction, "A9.2")
    # "Should another unit move into the MG's LOS ... the MG could use Subsequent First Fire
    # (and thus Sustained Fire; 9.3)".
    out = run(state, mph_fire("other", location="H4", mf=1, sustained=("MG",)), [3, 4])
    assert out.facts == (("MG", "fine"), ("ROF (MG)", "lost"))
    assert "A9.3" in out.rules_cited()
    mg = out.state.weapon("MG")
    assert mg is not None and mg.fire_marker == "final"


def test_T_A1_6_FG_MMG_rof2_LMG_rof1_colored_2() -> None:
    state = build(
        AddUnit(name="R1", side="Allied", kind="squad"),
        AddUnit(name="R2", side="Allied", kind="squad"),
        AddWeapon(name="MMG", side="Allied", kind="sw_mg", rof=2, owner="R1"),
        AddWeapon(name="LMG", side="Allied", kind="sw_mg", rof=1, owner="R2"),
        SetPhase(phase="dfph", side="Axis"),
    )
    out = run(state, Fire(weapons=("MMG", "LMG")), [2, 5])
    assert out.facts == (
        ("MMG", "fine"),
        ("LMG", "fine"),
        ("ROF (MMG)", "kept"),
        ("ROF (LMG)", "lost"),
    )
    markers = {w.name: w.fire_marker for w in out.state.weapons}
    assert markers == {"MMG": "none", "LMG": "final"}
    assert out.rules_cited() == ["A7", "A9.7", "A9.7", "A9.2", "A9.2"]


def a2_state() -> AslState:
    """A German HMG (First Fire marker: Sustained Fire) and a LMG in one FG, in the DFPh."""
    return build(
        AddUnit(name="L", side="Axis", kind="leader"),
        AddUnit(name="A", side="Axis", kind="squad"),
        AddUnit(name="B", side="Axis", kind="squad"),
        AddWeapon(name="HMG", side="Axis", kind="sw_mg", rof=3, marker="first", owner="A"),
        AddWeapon(name="LMG", side="Axis", kind="sw_mg", rof=1, owner="B"),
        SetPhase(phase="dfph", side="Allied"),
    )


# Final Fire at an ADJACENT unit; a leader directs, so the doubles of DR 12 are no Cowering (A7.9)
A2_FIRE = Fire(weapons=("HMG", "LMG"), sustained=("HMG",), range=1, leader="L")


def statuses(state: AslState) -> dict[str, tuple[str, str]]:
    return {w.name: (w.status, w.fire_marker) for w in state.weapons}


def test_T_A2_sustained_fire_needs_a_First_Fire_marker() -> None:
    state = a2_state()
    unmarked = state.with_weapons(
        {"HMG": state.weapons[0].model_copy(update={"fire_marker": "none"})}
    )
    refused(unmarked, A2_FIRE, IllegalAction, "A9.3")


def test_T_A2_1_dr9_nothing() -> None:
    out = run(a2_state(), A2_FIRE, [4, 5])
    assert out.facts == (
        ("HMG", "fine"),
        ("LMG", "fine"),
        ("ROF (HMG)", "lost"),
        ("ROF (LMG)", "lost"),
    )
    assert statuses(out.state) == {"HMG": ("ok", "final"), "LMG": ("ok", "final")}


def test_T_A2_2_dr10_one_candidate_HMG_malfunctions_no_RS() -> None:
    out = run(a2_state(), A2_FIRE, [4, 6])
    assert fates(out)["HMG"] == "malfunctioned"
    assert fates(out)["LMG"] == "fine"
    assert len(out.rolls) == 1
    assert out.explanation()[1] == "A9.3: Original DR 10 ≥ B10 — HMG malfunctioned"
    assert statuses(out.state) == {"HMG": ("malfunctioned", "first"), "LMG": ("ok", "final")}


def test_T_A2_3_dr11_HMG_malfunctions_no_RS() -> None:
    out = run(a2_state(), A2_FIRE, [5, 6])
    assert fates(out)["HMG"] == "malfunctioned"
    assert fates(out)["Residual FP (HMG)"] == "none"
    assert len(out.rolls) == 1
    assert statuses(out.state)["HMG"] == ("malfunctioned", "first")


def test_T_A2_4_dr12_RS_HMG5_LMG3_HMG_removed_LMG_fine() -> None:
    out = run(a2_state(), A2_FIRE, [6, 6, 5, 3])
    assert out.facts == (
        ("HMG", "eliminated"),
        ("LMG", "fine"),
        ("ROF (LMG)", "lost"),
        ("Residual FP (HMG)", "none"),
    )
    assert out.rules_cited() == ["A7", "A9.71", "A.11", "A9.71", "A9.2", "A8.221"]
    assert out.explanation()[1] == (
        "A9.71: Random Selection among HMG, LMG: HMG 5, LMG 3 — HMG affected"
    )
    assert [r.render() for r in out.rolls] == [
        "IFT DR 12 (6,6)",
        "Random Selection dr (HMG) 5",
        "Random Selection dr (LMG) 3",
    ]
    assert statuses(out.state) == {"HMG": ("eliminated", "first"), "LMG": ("ok", "final")}


def test_T_A2_5_dr12_RS_HMG2_LMG6_LMG_malfunctions_HMG_keeps_Final_Fire() -> None:
    out = run(a2_state(), A2_FIRE, [6, 6, 2, 6])
    assert fates(out) == {
        "HMG": "fine",
        "LMG": "malfunctioned",
        "ROF (HMG)": "lost",
        "Residual FP (LMG)": "none",
    }
    assert statuses(out.state) == {"HMG": ("ok", "final"), "LMG": ("malfunctioned", "none")}


def test_T_A2_6_dr12_RS_tie_4_4_both_affected() -> None:
    out = run(a2_state(), A2_FIRE, [6, 6, 4, 4])
    assert fates(out) == {
        "HMG": "eliminated",
        "LMG": "malfunctioned",
        "Residual FP (HMG)": "none",
        "Residual FP (LMG)": "none",
    }
    assert statuses(out.state) == {
        "HMG": ("eliminated", "first"),
        "LMG": ("malfunctioned", "none"),
    }
