"""Festung Budapest chapter 16 — Axis Ammunition Shortage: scope, charts and thresholds.

docs/rules/ASL.md readings 5-11. Level 0 means no shortage. Each chart is data beside the
function that reads it.

>>> fb_sw_fate(4, 12, 10).name
'MALF'
>>> fb_gun_fate(4, 12, 11, low_ammo=False)
(<Fate.OK: 0>, True)
"""

from __future__ import annotations

from rules_core.asl.breakdown import Fate, original_b
from rules_core.asl.state import AslState, Unit, Weapon

AXIS_NATIONALITIES = frozenset(
    {"german", "hungarian", "italian", "romanian", "finnish", "slovakian", "croatian", "bulgarian"}
)
"""Nationalities that are Axis for FB16.1 (Festung Budapest: German and Hungarian)."""


def is_axis_nationality(nationality: str) -> bool:
    """Whether a nationality is Axis (FB16.1).

    >>> is_axis_nationality("Hungarian"), is_axis_nationality("Russian")
    (True, False)
    """
    return nationality.lower() in AXIS_NATIONALITIES


def unit_level(state: AslState, unit: Unit) -> int:
    """The FB16 level a unit suffers: its side's level if the unit is Axis, else 0 (FB16.1).

    Immunity (FB16.11) is checked separately by :func:`personnel_immune`.

    >>> from rules_core.asl.state import Side
    >>> st = AslState(sides=(Side(name="Axis", nationality="German", axis=True, level=4),))
    >>> unit_level(st, Unit(name="E", side="Axis", kind="squad", nationality="Hungarian"))
    4
    """
    side = state.side(unit.side)
    if side is None or not is_axis_nationality(unit.nationality):
        return 0
    return side.level


def personnel_immune(unit: Unit) -> bool:
    """FB16.11: SMC, crews, unarmed and broken units are not subject to Ammunition Shortage.

    >>> personnel_immune(Unit(name="L", side="Axis", kind="leader", nationality="German"))
    True
    """
    return unit.is_smc or unit.kind == "crew" or unit.unarmed or unit.broken


CAPTURED_AXIS_LEVEL = 3
"""FB16.14: captured Axis equipment is always at level 3."""


def weapon_level(state: AslState, weapon: Weapon) -> int:
    """The FB16 level a weapon suffers (FB16.1, 16.12-16.14; by the weapon, whoever fires it).

    Axis weapons of an Axis side: the side's level. Axis using captured Russian equipment: 0
    (16.13). Russian using captured Axis equipment: 3 when the Axis owner is under FB (16.14).

    >>> from rules_core.asl.state import Side
    >>> st = AslState(sides=(Side(name="Axis", nationality="German", axis=True, level=5),
    ...                      Side(name="Allied", nationality="Russian", axis=False)))
    >>> weapon_level(st, Weapon(name="MG", side="Allied", kind="sw_mg", captured_from="Axis"))
    3
    >>> weapon_level(st, Weapon(name="DP", side="Axis", kind="sw_mg", captured_from="Allied"))
    0
    """
    if weapon.immune:
        return 0
    user = state.side(weapon.side)
    if user is None:
        return 0
    if weapon.captured_from is None:
        return user.level if user.axis else 0
    maker = state.side(weapon.captured_from)
    if maker is None or not maker.axis:
        return 0  # FB16.13 (or non-Axis equipment in non-Axis hands)
    if user.axis:
        return user.level
    return CAPTURED_AXIS_LEVEL if maker.level > 0 else 0


def fb_original_b(weapon: Weapon) -> int:
    """B0 for the FB16 charts: the printed B#, B12 if none; X#-only SW use X# (reading 7).

    >>> fb_original_b(Weapon(name="ATR", side="Axis", kind="sw_other", printed_x=10))
    10
    """
    b0 = original_b(weapon.printed_b, weapon.printed_x)
    if b0 is None:
        assert weapon.printed_x is not None
        return weapon.printed_x
    return b0


UNIT_REPLACEMENT_DR: dict[int, int] = {1: 12, 2: 12, 3: 11, 4: 11, 5: 10}
"""FB16.2 chart: the lowest Original DR that triggers MMC Unit Replacement, per level."""


def unit_replacement_triggered(level: int, original_dr: int) -> bool:
    """FB16.2: does this Original DR trigger Unit Replacement at this level?

    >>> [unit_replacement_triggered(3, dr) for dr in (10, 11, 12)]
    [False, True, True]
    >>> unit_replacement_triggered(0, 12)
    False
    """
    threshold = UNIT_REPLACEMENT_DR.get(level)
    return threshold is not None and original_dr >= threshold


# FB16.3 chart (reading 5): per level, the cells for DR ≥ B0, DR = B0-1, DR = B0-2.
# None = the normal A9.7 outcome applies.
SW_CHART: dict[int, tuple[Fate | None, Fate | None, Fate | None]] = {
    1: (None, None, None),
    2: (Fate.ELIM, Fate.MALF, None),
    3: (Fate.ELIM, Fate.MALF, None),
    4: (Fate.ELIM, Fate.MALF, Fate.MALF),
    5: (Fate.ELIM, Fate.MALF, Fate.MALF),
}


def _offset(b0: int, original_dr: int) -> int:
    return 0 if original_dr >= b0 else b0 - original_dr


def fb_sw_fate(level: int, b0: int, original_dr: int) -> Fate:
    """FB16.31-16.32: the chart outcome for an Axis SW or vehicle MG (OK where the chart is silent).

    >>> [fb_sw_fate(2, 11, dr).name for dr in (9, 10, 11, 12)]
    ['OK', 'MALF', 'ELIM', 'ELIM']
    >>> fb_sw_fate(1, 12, 12).name
    'OK'
    """
    row = SW_CHART.get(level)
    if row is None:
        return Fate.OK
    offset = _offset(b0, original_dr)
    cell = row[offset] if offset < len(row) else None
    return Fate.OK if cell is None else cell


# FB16.4 chart (readings 6, 8): Gun not yet Low. Cells (fate, mark Low) for DR ≥ B0, B0-1, B0-2.
GUN_CHART: dict[int, tuple[tuple[Fate, bool], ...]] = {
    1: ((Fate.MALF, True), (Fate.OK, False), (Fate.OK, False)),
    2: ((Fate.ELIM, False), (Fate.OK, True), (Fate.OK, False)),
    3: ((Fate.ELIM, False), (Fate.OK, True), (Fate.OK, False)),
    4: ((Fate.ELIM, False), (Fate.OK, True), (Fate.OK, True)),
    5: ((Fate.ELIM, False), (Fate.OK, True), (Fate.OK, True)),
}
# FB16.4 chart (readings 6, 8): Gun already Low ("circled B#"). DR ≥ B0, B0-1, B0-2, B0-3.
GUN_LOW_CHART: dict[int, tuple[Fate, ...]] = {
    1: (Fate.MALF, Fate.MALF, Fate.OK, Fate.OK),
    2: (Fate.ELIM, Fate.MALF, Fate.MALF, Fate.OK),
    3: (Fate.ELIM, Fate.MALF, Fate.MALF, Fate.OK),
    4: (Fate.ELIM, Fate.MALF, Fate.MALF, Fate.MALF),
    5: (Fate.ELIM, Fate.MALF, Fate.MALF, Fate.MALF),
}


def fb_gun_fate(level: int, b0: int, original_dr: int, *, low_ammo: bool) -> tuple[Fate, bool]:
    """FB16.41-16.42: the chart outcome for an Axis Gun and whether it is marked Low Ammo.

    >>> fb_gun_fate(1, 12, 12, low_ammo=False)
    (<Fate.MALF: 1>, True)
    >>> fb_gun_fate(4, 12, 9, low_ammo=True)
    (<Fate.MALF: 1>, False)
    >>> fb_gun_fate(0, 12, 12, low_ammo=False)
    (<Fate.OK: 0>, False)
    """
    offset = _offset(b0, original_dr)
    if low_ammo:
        low_row = GUN_LOW_CHART.get(level, ())
        return (low_row[offset] if offset < len(low_row) else Fate.OK), False
    row = GUN_CHART.get(level, ())
    return row[offset] if offset < len(row) else (Fate.OK, False)


REPAIR_ELIMINATION: dict[int, int] = {0: 6, 1: 6, 2: 6, 3: 5, 4: 5, 5: 4}
"""A9.72 (dr 6) and FB16.33/16.43: the Final Repair dr that eliminates, per level."""


def repair_elimination(level: int) -> int:
    """The Final Repair dr at or above which the weapon is eliminated/Disabled (A9.72, FB16.33).

    >>> [repair_elimination(level) for level in range(6)]
    [6, 6, 6, 5, 5, 4]
    """
    return REPAIR_ELIMINATION[level]


# FB16.6 chart: drm by level — SMOKE placement, Special Ammo Depletion No., PF, ATMM, Starshell/IR.
AVAILABILITY_CHART: dict[int, dict[str, int]] = {
    0: {"smoke": 0, "depletion": 0, "pf": 0, "atmm": 0, "starshell": 0},
    1: {"smoke": 0, "depletion": 0, "pf": 0, "atmm": 0, "starshell": 0},
    2: {"smoke": 0, "depletion": -1, "pf": 0, "atmm": 0, "starshell": 0},
    3: {"smoke": 0, "depletion": -1, "pf": 0, "atmm": 0, "starshell": 0},
    4: {"smoke": 1, "depletion": -2, "pf": 1, "atmm": 1, "starshell": 1},
    5: {"smoke": 2, "depletion": -2, "pf": 2, "atmm": 2, "starshell": 2},
}


def availability_drm(level: int, kind: str, *, atmm_level4: int = 1) -> int:
    """The FB16.6 chart entry for ``kind`` at ``level`` (reading 10: ATMM at level 4 configurable).

    >>> availability_drm(5, "pf"), availability_drm(4, "depletion")
    (2, -2)
    >>> availability_drm(4, "atmm", atmm_level4=2)
    2
    """
    if kind == "atmm" and level == 4:
        return atmm_level4
    return AVAILABILITY_CHART[level][kind]


__all__ = [
    "AVAILABILITY_CHART",
    "AXIS_NATIONALITIES",
    "CAPTURED_AXIS_LEVEL",
    "GUN_CHART",
    "GUN_LOW_CHART",
    "REPAIR_ELIMINATION",
    "SW_CHART",
    "UNIT_REPLACEMENT_DR",
    "availability_drm",
    "fb_gun_fate",
    "fb_original_b",
    "fb_sw_fate",
    "is_axis_nationality",
    "personnel_immune",
    "repair_elimination",
    "unit_level",
    "unit_replacement_triggered",
    "weapon_level",
]
