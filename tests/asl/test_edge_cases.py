"""Edge cases of A9 and FB16: E1-E4, E11-E13, E18, E19."""

from __future__ import annotations

import pytest

from rules_core.asl.actions import (
    AddUnit,
    AddWeapon,
    Fire,
    Repair,
    SetLevel,
    SetPhase,
    ToHit,
)
from rules_core.asl.random_selection import random_selection
from rules_core.asl.state import AslState
from rules_core.dice import ScriptedDice
from rules_core.errors import IllegalAction
from tests.asl.helpers import build, refused, run


def one_weapon(
    level: int, phase: str = "pfph", phasing: str = "Axis", **weapon: object
) -> AslState:
    spec = {"name": "W", "side": "Axis", "kind": "sw_mg", "owner": "Squad W", **weapon}
    return build(
        SetLevel(side="Axis", level=level),
        AddUnit(name="Squad W", side="Axis", kind="squad"),  # A9.1: the SW's possessor
        AddWeapon.model_validate(spec),
        SetPhase.model_validate({"phase": phase, "side": phasing}),
    )


def dice_for(dr: int) -> list[int]:
    colored = min(6, dr - 1)
    return [colored, dr - colored]


def status_after_fire(state: AslState, dr: int, **fire: object) -> tuple[str, str, list[str]]:
    out = run(state, Fire.model_validate({"weapons": ("W",), **fire}), dice_for(dr))
    weapon = out.state.weapon("W")
    assert weapon is not None
    assert out.fact("W") == {"ok": "fine"}.get(weapon.status, weapon.status)
    return weapon.status, out.steps[1].rule, out.rules_cited()


@pytest.mark.parametrize(
    ("b", "level", "dr", "status", "rule"),
    [
        (None, 0, 11, "ok", "A9.7"),
        (None, 0, 12, "malfunctioned", "A9.7"),
        (11, 0, 11, "malfunctioned", "A9.7"),
        (11, 0, 12, "malfunctioned", "A9.7"),
        (11, 2, 10, "malfunctioned", "FB16.32"),
        (11, 2, 11, "eliminated", "FB16.31"),
        (11, 2, 12, "eliminated", "FB16.31"),
        (None, 1, 11, "ok", "A9.7"),
    ],
)
def test_E1_b12_vs_b11(b: int | None, level: int, dr: int, status: str, rule: str) -> None:
    state = one_weapon(level, b=b, kind="sw_other")
    got, got_rule, _ = status_after_fire(state, dr)
    assert (got, got_rule) == (status, rule)


@pytest.mark.parametrize(("dr", "status"), [(9, "ok"), (10, "eliminated"), (12, "eliminated")])
def test_E2_1_x10_only(dr: int, status: str) -> None:
    got, rule, _ = status_after_fire(one_weapon(0, kind="sw_other", x=10), dr)
    assert (got, rule) == (status, "A9.7")


@pytest.mark.parametrize(
    ("dr", "status", "rule"),
    [(10, "malfunctioned", "A9.3"), (11, "malfunctioned", "A9.3"), (12, "eliminated", "A.11")],
)
def test_E2_2_hmg_sustained_fire_level3(dr: int, status: str, rule: str) -> None:
    state = one_weapon(3, phase="dfph", phasing="Allied", rof=3, marker="first")
    got, got_rule, _ = status_after_fire(state, dr, sustained=("W",), range=1)
    assert (got, got_rule) == (status, rule)


def test_E2_3_two_x_weapons_only_the_highest_dr_removed() -> None:
    state = build(
        AddUnit(name="S", side="Axis", kind="squad"),
        AddWeapon(name="X1", side="Axis", kind="sw_other", x=10, owner="S"),
        AddWeapon(name="X2", side="Axis", kind="sw_other", x=10, owner="S"),
        SetPhase(phase="pfph", side="Axis"),
    )
    out = run(state, Fire(weapons=("X1", "X2")), [6, 6, 3, 5])
    assert out.facts == (
        ("X1", "fine"),
        ("X2", "eliminated"),
        ("Residual FP (X2)", "none"),
        ("Cowering", "yes"),
    )
    assert out.rules_cited() == ["A7", "A9.71", "A9.71", "A9.7", "A9.2", "A8.221", "A7.9"]
    assert [w.status for w in out.state.weapons] == ["ok", "eliminated"]


@pytest.mark.parametrize(
    ("b", "low", "intensive", "dr", "status", "low_after", "fact"),
    [
        (None, False, False, 11, "ok", False, "fine"),
        (None, False, False, 12, "malfunctioned", True, "malfunctioned, marked Low Ammo"),
        (11, False, False, 11, "malfunctioned", True, "malfunctioned, marked Low Ammo"),
        (11, False, False, 12, "malfunctioned", True, "malfunctioned, marked Low Ammo"),
        (None, True, False, 11, "malfunctioned", True, "malfunctioned"),
        (None, True, False, 12, "malfunctioned", True, "malfunctioned"),
        (None, True, False, 10, "ok", True, "fine"),
        (None, False, True, 12, "disabled", False, "disabled"),
    ],
)
def test_E3_level1_gun_exact_b(
    b: int | None, low: bool, intensive: bool, dr: int, status: str, low_after: bool, fact: str
) -> None:
    state = one_weapon(1, kind="gun", b=b, low_ammo=low)
    out = run(state, ToHit(gun="W", intensive=intensive), dice_for(dr))
    weapon = out.state.weapon("W")
    assert weapon is not None
    assert (weapon.status, weapon.low_ammo) == (status, low_after)
    assert out.facts[0] == ("W", fact)
    if intensive:
        assert out.rules_cited()[:3] == ["C3", "C5.6", "A.11"]


E4_ROWS = [
    (0, 2, "sw_mg", ["repaired", "repaired", "no change", "no change", "no change", "eliminated"]),
    (1, 2, "sw_mg", ["repaired", "repaired", "no change", "no change", "no change", "eliminated"]),
    (2, 2, "sw_mg", ["repaired", "repaired", "no change", "no change", "no change", "eliminated"]),
    (3, 2, "sw_mg", ["repaired", "repaired", "no change", "no change", "eliminated", "eliminated"]),
    (4, 2, "sw_mg", ["repaired", "repaired", "no change", "no change", "eliminated", "eliminated"]),
    (
        5,
        2,
        "sw_mg",
        ["repaired", "repaired", "no change", "eliminated", "eliminated", "eliminated"],
    ),
    (5, 4, "sw_mg", ["repaired", "repaired", "repaired", "eliminated", "eliminated", "eliminated"]),
    (5, None, "veh_mg", ["repaired", "no change", "no change", "disabled", "disabled", "disabled"]),
]


@pytest.mark.parametrize(("level", "r", "kind", "row"), E4_ROWS)
def test_E4_repair_boundaries(level: int, r: int | None, kind: str, row: list[str]) -> None:
    state = one_weapon(level, phase="rph", kind=kind, repair=r, status="malfunctioned")
    for dr, expected in zip(range(1, 7), row, strict=True):
        out = run(state, Repair(weapon="W"), [dr])
        assert out.facts == (("W", expected),)
        status = {"repaired": "ok", "no change": "malfunctioned"}.get(expected, expected)
        assert out.state.weapon("W").status == status  # type: ignore[union-attr]
        fb_elim = expected in ("eliminated", "disabled") and dr < 6
        assert out.rules_cited() == (["FB16.33"] if fb_elim else ["A9.72"])


def test_E11_random_selection_three_way() -> None:
    with ScriptedDice([4, 6, 6]) as dice:
        assert random_selection(("X", "Y", "Z"), dice) == frozenset({"Y", "Z"})
    assert [r.render() for r in dice.rolls] == [
        "Random Selection dr (X) 4",
        "Random Selection dr (Y) 6",
        "Random Selection dr (Z) 6",
    ]
    with ScriptedDice([2, 2, 2]) as dice:
        assert random_selection(("X", "Y", "Z"), dice) == frozenset({"X", "Y", "Z"})


def squad_state(level: int, **unit: object) -> AslState:
    spec = {"name": "S", "side": "Axis", "kind": "squad", "quality": "4-6-7",
            "replaced_by": ("4-4-7",), **unit}  # fmt: skip
    if spec["kind"] in ("leader", "hero"):  # A19.13: no replacement chain for a SMC
        del spec["replaced_by"]
    return build(
        SetLevel(side="Axis", level=level),
        AddUnit.model_validate(spec),
        SetPhase(phase="pfph", side="Axis"),
    )


@pytest.mark.parametrize(
    ("level", "row"),
    [(1, "--R"), (2, "--R"), (3, "-RR"), (4, "-RR"), (5, "RRR")],
)
def test_E12_unit_replacement_thresholds(level: int, row: str) -> None:
    for dr, mark in zip((10, 11, 12), row, strict=True):
        out = run(squad_state(level), Fire(units=("S",)), dice_for(dr))
        unit = out.state.unit("S")
        assert unit is not None
        if mark == "R":
            assert out.fact("Unit Replacement (S)") == "replaced by 4-4-7"
            assert (unit.quality, unit.replaced_by, unit.broken) == ("4-4-7", (), False)
            assert "A19.13" in out.rules_cited()
        else:
            assert out.fact("Unit Replacement (S)") == "no effect"
            assert unit.quality == "4-6-7"


@pytest.mark.parametrize(
    "spec",
    [{"kind": "crew"}, {"kind": "hero"}, {"unarmed": True}],
)
def test_E12_immune_firers_never_replaced(spec: dict[str, object]) -> None:
    out = run(squad_state(5, **spec), Fire(units=("S",)), [6, 6])
    assert out.fact("Unit Replacement (S)") is None
    after, before = out.state.unit("S"), squad_state(5, **spec).unit("S")
    assert after is not None and before is not None
    assert (after.quality, after.replaced_by, after.broken) == (
        before.quality,
        before.replaced_by,
        before.broken,
    )
    assert "FB16.2" not in out.rules_cited()


def test_E12_leaders_and_broken_units_have_no_inherent_fp_to_fire() -> None:
    refused(squad_state(5, kind="leader"), Fire(units=("S",)), IllegalAction, "A9.12")
    refused(squad_state(5, broken=True), Fire(units=("S",)), IllegalAction, "A.7")


def test_E12_no_lower_quality_broken_berserk_unaffected() -> None:
    out = run(squad_state(5, replaced_by=()), Fire(units=("S",)), [6, 4])
    assert out.fact("Unit Replacement (S)") == "broken"
    assert out.state.unit("S").broken  # type: ignore[union-attr]
    out = run(squad_state(5, replaced_by=(), berserk=True), Fire(units=("S",)), [6, 4])
    assert out.fact("Unit Replacement (S)") == "unaffected (Berserk)"
    assert not out.state.unit("S").broken  # type: ignore[union-attr]


def test_E12_mmc_firing_only_a_sw_is_never_replaced() -> None:
    state = build(
        SetLevel(side="Axis", level=5),
        AddUnit(name="S", side="Axis", kind="squad", replaced_by=("4-4-7",)),
        AddWeapon(name="LMG", side="Axis", kind="sw_mg", owner="S", rof=1),
        SetPhase(phase="pfph", side="Axis"),
    )
    out = run(state, Fire(weapons=("LMG",)), [6, 4])
    assert out.facts == (("LMG", "malfunctioned"), ("Residual FP (LMG)", "none"))
    assert out.state.unit("S").quality == ""  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("level", "dr", "effect", "depleted", "marker"),
    [
        (4, 2, "fired", (), "final"),
        (4, 3, "fired, then depleted", ("APCR",), "final"),
        (4, 4, "not fired, depleted", ("APCR",), "none"),
        (2, 4, "fired, then depleted", ("APCR",), "final"),
        (0, 5, "fired, then depleted", ("APCR",), "final"),
    ],
)
def test_E13_special_ammo_depletion_under_FB(
    level: int, dr: int, effect: str, depleted: tuple[str, ...], marker: str
) -> None:
    state = one_weapon(level, phase="dfph", phasing="Allied", kind="gun", special_ammo=("APCR:5",))
    out = run(state, ToHit(gun="W", special_ammo="APCR"), dice_for(dr))
    assert out.fact("APCR") == effect
    weapon = out.state.weapon("W")
    assert weapon is not None
    assert (weapon.status, weapon.depleted, weapon.fire_marker) == ("ok", depleted, marker)
    assert out.rules_cited()[-1] == ("FB16.62" if level >= 2 else "C8.9")
    if depleted:
        unmarked = weapon.model_copy(update={"fire_marker": "none", "spent": False})
        again = out.state.with_weapons({"W": unmarked})
        refused(again, ToHit(gun="W", special_ammo="APCR"), IllegalAction, "C8.9")


def test_E13_depletion_number_below_2_is_unavailable() -> None:
    state = one_weapon(4, phase="dfph", phasing="Allied", kind="gun", special_ammo=("HEAT:3",))
    refused(state, ToHit(gun="W", special_ammo="HEAT"), IllegalAction, "FB16.62")


def test_E18_level4_sustained_fire_refused_in_DFPh_allowed_as_FPF() -> None:
    dfph = one_weapon(4, phase="dfph", phasing="Allied", rof=2, marker="first")
    refused(dfph, Fire(weapons=("W",), sustained=("W",), range=1), IllegalAction, "FB16.51")
    mph = one_weapon(4, phase="mph", phasing="Allied", rof=2, marker="final")  # A9.2 EX
    fpf = Fire(
        weapons=("W",), sustained=("W",), fpf=True, range=1, targets=("T",), location="K4", mf=1
    )
    results = {}
    for dr in (9, 10, 11, 12):
        out = run(mph, fpf, dice_for(dr))
        results[dr] = out.state.weapon("W").status  # type: ignore[union-attr]
    assert results == {9: "ok", 10: "malfunctioned", 11: "malfunctioned",
                       12: "eliminated"}  # fmt: skip


def test_E18_level5_gun_intensive_fire_refused_OVR_prevention_allowed() -> None:
    state = one_weapon(5, phase="dfph", phasing="Allied", kind="gun")
    refused(state, ToHit(gun="W", intensive=True), IllegalAction, "FB16.52")
    mph = one_weapon(5, phase="mph", phasing="Allied", kind="gun")  # C5.64: an OVR in its MPh
    out = run(mph, ToHit(gun="W", intensive=True, ovr_prevention=True), [6, 6])
    assert out.facts == (("W", "disabled"),)


@pytest.mark.parametrize(
    ("dr", "status", "low", "rules"),
    [
        (10, "malfunctioned", False, ["C3", "C5.6", "C5.6"]),
        (11, "malfunctioned", True, ["C3", "C5.6", "FB16.42"]),  # Low Ammo placed by FB16.42
        (12, "disabled", False, ["C3", "C5.6", "A.11"]),
    ],
)
def test_E19_level2_gun_intensive_fire(dr: int, status: str, low: bool, rules: list[str]) -> None:
    state = one_weapon(2, phase="dfph", phasing="Allied", kind="gun")
    out = run(state, ToHit(gun="W", intensive=True), dice_for(dr))
    weapon = out.state.weapon("W")
    assert weapon is not None
    assert (weapon.status, weapon.low_ammo) == (status, low)
    assert out.rules_cited() == rules
