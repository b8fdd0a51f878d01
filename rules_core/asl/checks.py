"""Availability checks: PF (C13.31), ATMM (C13.7), Infantry SMOKE (A24.1), Starshell/IR (E1.92).

FB16.6 with the FB16.61-16.66 drms; C13.31/C13.7 (Final dr ≤ 3, their drm lists, an Original 6
pins the unit), E1.92/E1.93 (usage number from scenario data).
"""

from __future__ import annotations

from rules_core.asl.actions import Check
from rules_core.asl.fb16 import availability_drm, personnel_immune, unit_level
from rules_core.asl.lanes import standing_lanes
from rules_core.asl.state import FIRE_PHASES, PHASE_NAMES, AslOutcome, AslState, Unit
from rules_core.asl.turn import check_side_fires
from rules_core.dice import Dice
from rules_core.errors import IllegalAction, InvalidInput
from rules_core.frozen import replaced
from rules_core.outcome import Modifier, Outcome, Step, total_modifier

CHECK_RULES: dict[str, tuple[str, str, str]] = {
    "pf": ("C13.31", "FB16.63", "PF"),
    "atmm": ("C13.7", "FB16.64", "ATMM"),
    "smoke": ("A24.1", "FB16.61", "SMOKE"),
    "starshell": ("E1.92", "FB16.66", "Starshell"),
}
"""kind → (base rule, FB rule, name)."""

LATW_SUCCESS = 3
"""C13.31/C13.7: a PF or ATMM is available on a Final dr ≤ 3."""
HUNGARIAN_DRM = {"pf": 1, "atmm": 2}
"""FB13.6/FB13.7: Hungarian PF +1, ATMM +2 (Elite units only)."""


def check_modifiers(state: AslState, unit: Unit, action: Check) -> tuple[Modifier, ...]:
    """The drms of one availability check, each with its rule (C13.31, C13.7, A24.1, FB16.6).

    >>> from rules_core.asl.state import Side
    >>> st = AslState(sides=(Side(name="Axis", nationality="German", axis=True, level=4),))
    >>> e = Unit(name="E", side="Axis", kind="squad", nationality="Hungarian", elite=True, cx=True)
    >>> [m.render() for m in check_modifiers(st, e, Check(kind="pf", unit="E", year=1945))]
    ['+1 CX', '-1 1945', '+1 Hungarian', '+1 Ammunition Shortage level 4']
    """
    base, fb_rule, _ = CHECK_RULES[action.kind]
    mods: list[Modifier] = []
    cx = unit.cx if action.cx is None else action.cx
    if action.kind in ("pf", "atmm"):
        if unit.kind in ("half_squad", "crew"):
            mods.append(Modifier(label="HS/crew", value=1, rule=base))
        if unit.is_smc:
            mods.append(Modifier(label="SMC", value=2, rule=base))
    if cx:
        mods.append(Modifier(label="CX", value=1, rule=base))
    if action.kind == "pf":
        if action.target not in (None, "afv"):
            mods.append(Modifier(label="non-AFV target", value=1, rule=base))
        if action.year == 1945:
            mods.append(Modifier(label="1945", value=-1, rule=base))
        if action.pfk:
            mods.append(Modifier(label="PFk", value=1, rule=base))
    if action.kind == "atmm" and action.target == "unarmored_vehicle":
        mods.append(Modifier(label="non-armored vehicle", value=1, rule=base))
    if action.kind in HUNGARIAN_DRM and unit.nationality.lower() == "hungarian":
        rule = "FB13.6" if action.kind == "pf" else "FB13.7"
        mods.append(Modifier(label="Hungarian", value=HUNGARIAN_DRM[action.kind], rule=rule))
    if action.kind == "starshell":
        # FB16.66 (reading 35): leaders fire Starshells, so 16.11 cannot apply.
        side = state.side(unit.side)
        level = side.level if side is not None and side.axis else 0
    else:
        level = 0 if personnel_immune(unit) else unit_level(state, unit)
    fb = availability_drm(level, action.kind, atmm_level4=state.config.fb_atmm_level4_drm)
    if fb:
        mods.append(Modifier(label=f"Ammunition Shortage level {level}", value=fb, rule=fb_rule))
    if action.drm:
        mods.append(Modifier(label="other", value=action.drm))
    return tuple(mods)


CHECK_OPTIONS: dict[str, tuple[str, ...]] = {
    "year": ("pf",),
    "pfk": ("pf",),
    "target": ("pf", "atmm"),
    "usage": ("starshell",),
}
"""The options only some check kinds read: the year (C13.31: −1 in 1945, PFk in 1943), PFk,
the target (C13.31, C13.7), the usage number (E1.92)."""


def _check_options(action: Check, base: str) -> None:
    """An option the kind of check does not read is refused, never dropped."""
    given = {
        "year": action.year is not None,
        "pfk": action.pfk,
        "target": action.target is not None,
        "usage": action.usage is not None,
    }
    for option, kinds in CHECK_OPTIONS.items():
        if given[option] and action.kind not in kinds:
            raise IllegalAction(
                f"{option} is read only by a {' or '.join(k.upper() for k in kinds)} check, "
                f"not by a {CHECK_RULES[action.kind][2]} check.",
                rule=base,
            )
    if action.pfk and action.year is not None and action.year != PFK_YEAR:
        raise IllegalAction(f"A PFk is used only in Aug-Sep {PFK_YEAR}.", rule="C13.31")


PFK_YEAR = 1943
"""C13.31: the PFk exists in Aug-Sep 1943 only."""


def check_phase(state: AslState, unit: Unit, action: Check) -> str:
    """The phase a check belongs to (A3): a PF or Starshell/IR is fired like any weapon, in a
    fire phase by the side that fires in it; Infantry SMOKE grenades are placed in their own MPh
    (A24.1); an ATMM is used in Close Combat (C13.7; the FB16 EX's advance into CC): in the CCPh,
    or as the DEFENDER's CC Reaction Fire at an AFV in the MPh. Returns a note for the last.

    >>> from rules_core.asl.examples import fb16_fire_group
    >>> st = fb16_fire_group()
    >>> check_phase(st, st.unit("A"), Check(kind="pf", unit="A"))
    ''
    >>> try:
    ...     check_phase(st, st.unit("A"), Check(kind="atmm", unit="A"))
    ... except IllegalAction as refusal:
    ...     print(refusal.rule)
    C13.7
    """
    base, _, name = CHECK_RULES[action.kind]
    phase = state.phase
    if phase is None:
        raise IllegalAction(
            f"No Player Turn has begun; a {name} check is made in its phase (start one with "
            "/asl phase).",
            rule="A3",
        )
    phasing = state.phase_side is not None and state.phase_side.lower() == unit.side.lower()
    if action.kind == "atmm":
        if phase == "ccph":
            return ""
        if phase == "mph" and not phasing:
            return "CC Reaction Fire by the DEFENDER at an AFV in the Movement Phase"
        raise IllegalAction(
            "An ATMM is used in Close Combat: in the Close Combat Phase, or in the DEFENDER's "
            f"CC Reaction Fire in the Movement Phase; not in the {PHASE_NAMES[phase]}.",
            rule=base,
        )
    if action.kind == "smoke":
        if phase != "mph" or not phasing:
            raise IllegalAction(
                "Infantry SMOKE grenades are placed by a moving unit in its own Movement Phase.",
                rule=base,
            )
        return ""
    if phase not in FIRE_PHASES:
        raise IllegalAction(
            f"A {name} is fired in a fire phase (PFPh, MPh, DFPh, AFPh), not in the "
            f"{PHASE_NAMES[phase]}.",
            rule=base,
        )
    check_side_fires(state, phase, unit.side)
    return ""


def _validate(state: AslState, action: Check) -> tuple[Unit, int]:
    unit = state.unit(action.unit)
    if unit is None:
        raise InvalidInput(f"There is no unit called {action.unit!r} in this game.")
    base, _, name = CHECK_RULES[action.kind]
    _check_options(action, base)
    if unit.broken:
        raise IllegalAction(f"A broken unit may not make a {name} check.", rule=base)
    check_phase(state, unit, action)
    if action.kind in HUNGARIAN_DRM and unit.nationality.lower() == "hungarian" and not unit.elite:
        raise IllegalAction(
            f"Only Elite Hungarian units may make a {name} check.",
            rule="FB13.6" if action.kind == "pf" else "FB13.7",
        )
    if action.kind == "atmm" and action.target == "other":
        raise IllegalAction("An ATMM is used in Close Combat against a vehicle.", rule="C13.7")
    if action.kind == "smoke":
        if unit.kind not in ("squad", "half_squad") or unit.smoke == 0:
            raise IllegalAction(f"{unit.name} has no SMOKE exponent.", rule="A24.1")
        return unit, unit.smoke
    if action.kind == "starshell":
        if action.usage is None:
            raise InvalidInput("Give the Starshell/IR usage number from the scenario (usage).")
        return unit, action.usage
    return unit, LATW_SUCCESS


def resolve_check(state: AslState, action: Check, dice: Dice) -> Outcome[AslState]:
    """Resolve one availability check (C13.31 PF, C13.7 ATMM, A24.1 SMOKE, E1.92 Starshell).

    Final dr ≤ the needed number, with the FB16.61-16.66 drm; a PF/ATMM Original 6 pins.

    >>> from rules_core.asl.system import SYSTEM
    >>> from rules_core.asl.actions import AddUnit, SetPhase
    >>> from rules_core.dice import ScriptedDice
    >>> st = SYSTEM.new_state(["Axis", "Allied"], {})
    >>> for a in (AddUnit(name="C", side="Axis", kind="squad"),
    ...           SetPhase(phase="pfph", side="Axis")):
    ...     st = SYSTEM.resolve(st, a, ScriptedDice([])).state
    >>> out = resolve_check(st, Check(kind="pf", unit="C"), ScriptedDice([6]))
    >>> out.facts
    (('PF (C)', 'none'), ('Pin (C)', 'pinned'))
    """
    unit, needed = _validate(state, action)
    base, _, name = CHECK_RULES[action.kind]
    mods = check_modifiers(state, unit, action)
    label = {"pf": "PF check dr", "atmm": "ATMM check dr", "smoke": "SMOKE placement dr"}.get(
        action.kind, "Starshell usage dr"
    )
    dr = dice.dr(label)
    roll = dice.rolls[-1]
    final = dr + total_modifier(mods)
    success = final <= needed
    word = {"pf": "obtained", "atmm": "obtained", "smoke": "placed", "starshell": "available"}
    result = word[action.kind] if success else "none"
    shown = ", ".join(m.render() for m in mods) if mods else "no drm"
    steps = [
        Step(
            rule=base,
            text=f"{label} {dr} ({shown}) = Final {final} {'≤' if success else '>'} {needed} — "
            f"{name} {result} for {unit.name}",
            dice=(roll,),
            modifiers=mods,
        )
    ]
    facts = [(f"{name} ({unit.name})", result)]
    new = state
    if action.kind in ("pf", "atmm"):
        pinned = dr == 6
        facts.append((f"Pin ({unit.name})", "pinned" if pinned else "not pinned"))
        if pinned:
            steps.append(Step(rule=base, text=f"Original dr 6 — {unit.name} is pinned"))
            new = state.with_units({unit.name: replaced(unit, {"pinned": True})})
            new, ended = standing_lanes(new)  # A9.223: its pinned Infantry end the lane
            for mg in ended:
                steps.append(
                    Step(
                        rule="A9.223",
                        text=f"{unit.name} is pinned — the Fire Lane of {mg} is removed",
                    )
                )
                facts.append((f"Fire Lane ({mg})", "removed (its Infantry pinned)"))
    return AslOutcome(state=new, steps=tuple(steps), rolls=(roll,), facts=tuple(facts))


__all__ = [
    "CHECK_OPTIONS",
    "CHECK_RULES",
    "HUNGARIAN_DRM",
    "LATW_SUCCESS",
    "PFK_YEAR",
    "check_modifiers",
    "check_phase",
    "resolve_check",
]
