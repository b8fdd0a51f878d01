"""Who may fire, in which phase, and with what (A3, A8, A9.1-A9.5, A9.22, A9.8): no dice.

Each check refuses what a rule forbids (``IllegalAction`` citing it) or what cannot be understood
(``InvalidInput``), and changes nothing. :func:`~rules_core.asl.fire.plan.plan_fire` calls them in
the order a declaration is read; :mod:`rules_core.asl.fire.usage` adds what the phase and Player
Turn already used (A9.11, A9.12).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import TypeVar

from rules_core.asl.actions import Fire
from rules_core.asl.state import PHASE_NAMES, AslState, Phase, Unit, Weapon
from rules_core.asl.turn import (
    adjacent,
    check_not_spent,
    check_possessor_fires,
    check_side_fires,
    fire_phase,
    marker_text,
    need_range,
)
from rules_core.errors import IllegalAction, InvalidInput
from rules_core.frozen import replaced
from rules_core.words import counted

LEADER_RANGE = 16
"""A9.4: beyond 16 hexes a MG needs Infantry-leader direction (reading 12)."""

_Counter = TypeVar("_Counter", Unit, Weapon)


def _lookup(
    names: Sequence[str], find: Callable[[str], _Counter | None], what: str
) -> list[_Counter]:
    """The named counters, in order; an unknown or repeated name is refused."""
    found: list[_Counter] = []
    seen: set[str] = set()
    for name in names:
        thing = find(name)
        if thing is None:
            raise InvalidInput(f"There is no {what} called {name!r} in this game.")
        if thing.name in seen:
            raise InvalidInput(f"{thing.name} is named twice.")
        seen.add(thing.name)
        found.append(thing)
    return found


def firers(state: AslState, action: Fire) -> tuple[list[Weapon], list[Unit], Phase, str]:
    """The weapons and units firing, the phase and their one side (A3, A7.5 Fire Group).

    >>> from rules_core.asl.examples import fb16_fire_group
    >>> weapons, units, phase, side = firers(fb16_fire_group(), Fire(weapons=("LMG",)))
    >>> [w.name for w in weapons], phase, side
    (['LMG'], 'pfph', 'Axis')
    """
    if not action.weapons and not action.units:
        raise InvalidInput("Name at least one weapon or unit that fires.")
    weapons = _lookup(action.weapons, state.weapon, "weapon")
    units = _lookup(action.units, state.unit, "unit")
    phase = fire_phase(state, action.phase, action.correction, "fire")
    sides = {w.side for w in weapons} | {u.side for u in units}
    if len(sides) > 1:
        raise InvalidInput("All firers of one attack must belong to the same side.")
    (side,) = sides
    check_side_fires(state, phase, side)
    return weapons, units, phase, side


def firing_side(state: AslState, action: Fire) -> str | None:
    """The side of the first named firer (for permissions), or ``None`` if unknown (A7.5).

    >>> from rules_core.asl.examples import fb16_fire_group
    >>> firing_side(fb16_fire_group(), Fire(units=("A",)))
    'Axis'
    """
    for name in action.weapons:
        weapon = state.weapon(name)
        if weapon is not None:
            return weapon.side
    for name in action.units:
        unit = state.unit(name)
        if unit is not None:
            return unit.side
    return None


def check_leader(
    state: AslState, action: Fire, side: str, weapons: Sequence[Weapon]
) -> Unit | None:
    """The Good Order friendly leader directing the attack, if named (A7.53, A.7, A9.4, A9.12).

    >>> from rules_core.asl.examples import fb16_fire_group
    >>> st = fb16_fire_group()
    >>> check_leader(st, Fire(weapons=("LMG",), leader="9-1"), "Axis", [st.weapon("LMG")]).name
    '9-1'
    """
    long_range = action.range is not None and action.range > LEADER_RANGE
    leader = None
    if action.leader is not None:
        leader = state.unit(action.leader)
        if leader is None:
            raise InvalidInput(f"There is no unit called {action.leader!r} in this game.")
        if leader.kind != "leader" or leader.side != side:
            raise IllegalAction(f"{leader.name} is not a friendly leader.", rule="A7.53")
        if not leader.good_order:
            raise IllegalAction(
                f"{leader.name} is broken; only a Good Order leader directs fire.",
                rule="A9.4" if long_range else "A.7",
            )
        if leader.sw_used:
            raise IllegalAction(
                f"{leader.name} fired a SW this phase and so has no leadership DRM in it.",
                rule="A9.12",
            )
    if long_range and leader is None and any(w.is_mg and not w.cmg for w in weapons):
        raise IllegalAction(
            f"A MG firing beyond {LEADER_RANGE} hexes needs a Good Order leader directing it.",
            rule="A9.4",
        )
    return leader


def check_helper(state: AslState, action: Fire, side: str, units: Sequence[Unit]) -> Unit | None:
    """The second SMC firing an SMC's MG with him, if named (A9.12, A.7).

    >>> from rules_core.asl.examples import fb16_fire_group
    >>> check_helper(fb16_fire_group(), Fire(weapons=("LMG",)), "Axis", []) is None
    True
    """
    if action.helper is None:
        return None
    helper = state.unit(action.helper)
    if helper is None:
        raise InvalidInput(f"There is no unit called {action.helper!r} in this game.")
    if not helper.is_smc or helper.side != side or helper in units:
        raise IllegalAction(
            f"{helper.name} is not a second friendly SMC free to fire the MG.", rule="A9.12"
        )
    if not helper.good_order:
        raise IllegalAction(f"{helper.name} is broken and cannot fire.", rule="A.7")
    return helper


def parse_lowering(entries: Sequence[str], names: set[str]) -> dict[str, int]:
    """Other A.11 B# lowering per firing weapon (lower-case name → total lowering).

    >>> parse_lowering(("LMG:1", "lmg:1"), {"lmg"})
    {'lmg': 2}
    """
    lowering: dict[str, int] = {}
    for entry in entries:
        name, sep, amount = entry.rpartition(":")
        if not sep or not amount.strip().isdigit():
            raise InvalidInput(f"Lowering {entry!r} should look like 'LMG:1'.")
        key = name.strip().lower()
        if key not in names:
            raise InvalidInput(f"Lowering names {name.strip()!r}, which is not firing.")
        lowering[key] = lowering.get(key, 0) + int(amount)
    return lowering


def check_fpf_tpbf(action: Fire, phase: str) -> None:
    """FPF only in the MPh at an ADJACENT unit (A8.31); TPBF only in the MPh at range 0 (A9.223).

    >>> check_fpf_tpbf(Fire(weapons=("MG",), fpf=True, range=1), "mph")
    """
    if action.fpf:
        if phase != "mph":
            raise IllegalAction("Final Protective Fire happens only in the MPh.", rule="A8.31")
        need_range(action.range, "FPF")
        if not adjacent(action.range):
            raise IllegalAction(
                "FPF is fired only at a unit moving ADJACENT to or into the firer's Location.",
                rule="A8.31",
            )
    if action.tpbf:
        if phase != "mph":
            raise IllegalAction(
                "tpbf is fire at a unit entering the MG's Location in the MPh.", rule="A9.223"
            )
        if action.range not in (None, 0):
            raise InvalidInput("tpbf is fire at the firer's own Location: range 0.")


def check_spraying(weapons: Sequence[Weapon], phase: str, range_: int | None) -> None:
    """A9.5/A9.52: Spraying Fire by MGs (a vehicular MG only as MA) and Inherent FP; a MG
    marked First Fire sprays in Final Fire only at two hexes both adjacent.

    >>> check_spraying([Weapon(name="LMG", side="Axis", kind="sw_mg")], "pfph", 3)
    """
    for weapon in weapons:
        if not weapon.is_mg or (weapon.kind == "veh_mg" and not weapon.main_armament):
            raise IllegalAction(
                f"{weapon.name} cannot use Spraying Fire; in a Fire Group every member must.",
                rule="A9.52" if len(weapons) > 1 else "A9.5",
            )
        if phase == "dfph" and weapon.fire_marker == "first":
            need_range(range_, "Spraying Fire by a MG marked First Fire")
            if not adjacent(range_):
                raise IllegalAction(
                    f"{weapon.name} is marked First Fire: in Final Fire it sprays only two hexes "
                    "both adjacent to it.",
                    rule="A9.52",
                )


def shot_limit(mf: Fraction) -> int:
    """A9.2: the shots a MG may take at one unit in one Location in the MPh: the MF/MP it spent
    there, FRD, but at least one.

    >>> shot_limit(Fraction(3, 2)), shot_limit(Fraction(0)), shot_limit(Fraction(2))
    (1, 1, 2)
    """
    return max(1, math.floor(mf))


def check_targets(action: Fire, phase: str, weapons: Sequence[Weapon]) -> None:
    """``targets``, ``location``, ``mf`` and ``overstacked`` only where a rule reads them: a MG's
    MPh shot limit (A9.2) and, for the targets and overstacking, MG fire beyond 16 hexes (A9.4).

    >>> try:
    ...     check_targets(Fire(weapons=("MG",), targets=("G",)), "pfph", [])
    ... except IllegalAction as refusal:
    ...     print(refusal.rule)
    A9.2
    """
    if action.lane_residual:
        return  # refused with the Residual attack's own options
    shot_counted = phase == "mph" and any(w.is_mg for w in weapons)
    long_range = (
        action.range is not None
        and action.range > LEADER_RANGE
        and any(w.is_mg and not w.cmg for w in weapons)
    )
    counted = action.location is not None or action.mf is not None
    if (counted and not shot_counted) or (action.targets and not (shot_counted or long_range)):
        raise IllegalAction(
            "targets, location and mf count a MG's shots at a moving unit in the MPh (A9.2), "
            "and targets say who is attacked beyond 16 hexes (A9.4); neither is this attack.",
            rule="A9.2",
        )
    if action.overstacked and not long_range:
        raise IllegalAction(
            "overstacked matters only to MG fire beyond 16 hexes (broken, berserk or "
            "overstacked Infantry is not treated as concealed there).",
            rule="A9.4",
        )


def shots_taken(state: AslState, weapon: str, target: str, location: str) -> int:
    """A9.2: shots ``weapon`` took at ``target`` in ``location`` this MPh.

    >>> from rules_core.asl.examples import fb16_fire_group
    >>> shots_taken(fb16_fire_group(), "HMG", "G", "CCC6")
    0
    """
    for record in state.shots:
        if (record.weapon.lower(), record.target.lower(), record.location.lower()) == (
            weapon.lower(),
            target.lower(),
            location.lower(),
        ):
            return record.shots
    return 0


def check_shot_limit(
    state: AslState,
    weapons: Sequence[Weapon],
    targets: Sequence[str],
    location: str | None,
    mf: Fraction | None,
) -> None:
    """A9.2: in the MPh a MG attacks one unit in one Location at most once per MF/MP it spent
    there (at least once) — Subsequent First Fire (Sustained Fire) and FPF included.

    The A9.2 EX MG "cannot use Subsequent First Fire vs the broken squad because it has already
    fired on it twice and the unit had expended only two MF".

    >>> from rules_core.asl.examples import fb16_fire_group
    >>> st = fb16_fire_group()
    >>> check_shot_limit(st, [st.weapon("HMG")], ("G",), "CCC6", Fraction(1))
    """
    limited = [w for w in weapons if w.is_mg]
    if not limited:
        return
    if not targets or location is None or mf is None:
        raise InvalidInput("MPh fire by a MG needs targets, location and mf (A9.2 shot limit).")
    limit = shot_limit(mf)
    for weapon in limited:
        for target in targets:
            taken = shots_taken(state, weapon.name, target, location)
            if taken >= limit:
                raise IllegalAction(
                    f"{weapon.name} has already attacked {target} in {location} "
                    f"{counted(taken, 'time')} and it spent {mf} MF there.",
                    rule="A9.2",
                )


def check_weapon_marker(weapon: Weapon, phase: str, action_fpf: bool, range_: int | None) -> bool:
    """Whether the weapon's marker makes this attack Sustained Fire (A9.3); refuse if it bars it.

    A MG marked First Fire that fires again in the MPh (Subsequent First Fire) or in the DFPh is
    using Sustained Fire; in the DFPh only at ADJACENT units (A9.2 EX, A8.4). A MG marked Final
    Fire fires again only as FPF (A8.31). A Prep Fire marker bars fire until it is removed.

    >>> check_weapon_marker(Weapon(name="MG", side="Axis", kind="sw_mg", fire_marker="first"),
    ...                     "mph", False, None)
    True
    """
    marker = weapon.fire_marker
    if marker == "none":
        if action_fpf and weapon.is_mg:
            # A9.2 EX: FPF comes after the First Fire counter ("its attack opportunities are
            # over … unless an enemy unit moves ADJACENT … (see FPF; 8.31)"); an unmarked MG's
            # shot is Defensive First Fire, which A9.3 does not make Sustained Fire
            raise IllegalAction(
                f"FPF is fire by a MG already marked First or Final Fire; {weapon.name} is not "
                "marked, so its shot is Defensive First Fire (declare it without fpf:true).",
                rule="A9.2",
            )
        return False
    if marker == "prep" and phase == "pfph":
        return False  # A9.2: it kept Multiple ROF in this PFPh (``spent`` bars it otherwise)
    if action_fpf and phase == "mph" and marker in ("first", "final"):
        return False  # A8.31: FPF (Sustained Fire by itself)
    if marker == "first" and phase == "mph":
        return True
    if marker == "first" and phase == "dfph":
        need_range(range_, f"Final Fire by {weapon.name}, marked First Fire,")
        if not adjacent(range_):
            raise IllegalAction(
                f"{weapon.name} is marked First Fire, so in the DFPh it fires only at an ADJACENT "
                "unit (A8.4).",
                rule="A9.2",
            )
        return True
    if marker == "final" and phase == "mph":
        raise IllegalAction(
            f"{weapon.name} is marked Final Fire; in the MPh it may fire again only as FPF.",
            rule="A9.3",
        )
    raise IllegalAction(
        f"{weapon.name} is {marker_text(marker)} and may not fire in the {PHASE_NAMES[phase]}.",
        rule="A9.2",
    )


def check_unit_marker(unit: Unit, phase: str, fpf: bool, range_: int | None) -> str | None:
    """A8: a unit's Inherent FP by its marker; returns a note when the rules give another shot.

    >>> u = Unit(name="A", side="Axis", kind="squad", nationality="German", fire_marker="first")
    >>> check_unit_marker(u, "mph", False, None)
    'A is marked First Fire: Subsequent First Fire (A8.3)'
    """
    marker = unit.fire_marker
    if phase == "afph" and unit.fired:
        raise IllegalAction(
            f"{unit.name} has already fired its Inherent FP in the Advancing Fire Phase.",
            rule="A7",
        )
    if marker == "none":
        return None
    if marker == "prep" and phase == "pfph" and not unit.fired:
        return None  # A9.11: it fired a SW this PFPh; its Inherent FP may still fire once
    if marker == "prep" and phase == "afph" and unit.forfeit and not unit.fired:
        return None  # refused with the MGs' A9.11 forfeit, the reason the player looks for
    if phase == "mph":
        if fpf:
            return None
        if marker == "first":
            return f"{unit.name} is marked First Fire: Subsequent First Fire (A8.3)"
        raise IllegalAction(
            f"{unit.name} is marked Final Fire; in the MPh it may fire again only as FPF.",
            rule="A8.31",
        )
    if phase == "dfph" and marker == "first":
        need_range(range_, f"Final Fire by {unit.name}, marked First Fire,")
        if not adjacent(range_):
            raise IllegalAction(
                f"{unit.name} is marked First Fire, so in the DFPh it fires only at an ADJACENT "
                "unit.",
                rule="A8.4",
            )
        return None
    raise IllegalAction(
        f"{unit.name} is {marker_text(marker)} and may not fire in the {PHASE_NAMES[phase]}.",
        rule="A3" if marker == "prep" else "A8.4",
    )


def check_units(units: Sequence[Unit], phase: str, action: Fire) -> list[tuple[str, str]]:
    """Each unit firing its Inherent FP is in Good Order and free to fire by its marker (A.7, A8).

    >>> from rules_core.asl.examples import fb16_fire_group
    >>> check_units([fb16_fire_group().unit("A")], "pfph", Fire(units=("A",)))
    []
    """
    notes: list[tuple[str, str]] = []
    for unit in units:
        if not unit.good_order:
            raise IllegalAction(f"{unit.name} is broken and cannot fire.", rule="A.7")
        note = check_unit_marker(unit, phase, action.fpf, action.range)
        if note is not None:
            notes.append(("A8.3", note))
    return notes


def weapon_maker(state: AslState, weapon: Weapon) -> str:
    """The nationality that made a weapon: its original owner's if captured, else its side's.

    >>> from rules_core.asl.examples import build_state
    >>> weapon_maker(build_state([]), Weapon(name="DP", side="Axis", kind="sw_mg",
    ...                                      captured_from="Allied"))
    'Russian'
    """
    side = state.side(weapon.captured_from or weapon.side)
    return side.nationality if side is not None else ""


def dm_fires_as_lmg(state: AslState, weapon: Weapon) -> bool:
    """A9.8 EXC: a dismantled German HMG/MMG may be fired as a German LMG.

    >>> from rules_core.asl.examples import build_state
    >>> dm_fires_as_lmg(build_state([]), Weapon(name="MG", side="Axis", kind="sw_mg", mg="hmg"))
    True
    """
    return weapon.mg in ("hmg", "mmg") and weapon_maker(state, weapon) == "German"


def fired_as(state: AslState, weapon: Weapon) -> Weapon:
    """The numbers a weapon fires with. A dismantled German HMG/MMG fires "as a German LMG"
    (A9.8 EXC), whose ROF and Normal Range our sources do not give, and the HMG's/MMG's
    recorded ones are not the LMG's: it fires with no Multiple ROF and no Normal Range recorded
    (reading 57). Only for the shot: the weapon keeps its numbers for when it is assembled.

    >>> from rules_core.asl.examples import build_state
    >>> mg = Weapon(name="MG", side="Axis", kind="sw_mg", mg="hmg", rof=3, normal_range=16)
    >>> dm = mg.model_copy(update={"dm": True})
    >>> st = build_state([])
    >>> (fired_as(st, mg).rof, fired_as(st, dm).rof, fired_as(st, dm).normal_range)
    (3, None, None)
    """
    if weapon.dm and dm_fires_as_lmg(state, weapon):
        return replaced(weapon, {"rof": None, "normal_range": None})
    return weapon


AS_LMG = (
    "{name} is dismantled and fires as a German LMG: the LMG's ROF and Normal Range are not "
    "{name}'s and not in our sources, so it keeps no Multiple ROF"
)
"""The reply's A9.8 step for a dismantled German HMG/MMG firing (reading 57)."""


def check_weapon_fires(
    state: AslState, weapon: Weapon, phase: str
) -> tuple[Unit | None, list[tuple[str, str]]]:
    """The weapon may fire at all: not broken, possessed by Good Order Personnel, not marked Prep
    Fire in the AFPh, not dismantled unless it fires as a German LMG (A9.7, A9.1, A3, A9.8).

    Returns its possessor and the A9.8 note.

    >>> from rules_core.asl.examples import fb16_fire_group
    >>> st = fb16_fire_group()
    >>> check_weapon_fires(st, st.weapon("LMG"), "pfph")[0].name
    'B'
    """
    notes: list[tuple[str, str]] = []
    if weapon.status != "ok":
        raise IllegalAction(f"{weapon.name} is {weapon.status} and cannot fire.", rule="A9.7")
    owner = check_possessor_fires(state, weapon)
    if owner is not None and phase == "afph" and owner.fire_marker == "prep":
        raise IllegalAction(
            f"{owner.name} is marked Prep Fire and may not fire {weapon.name} in the "
            "Advancing Fire Phase.",
            rule="A3",
        )
    if weapon.dm:
        if not dm_fires_as_lmg(state, weapon):
            raise IllegalAction(
                f"{weapon.name} is dismantled and may not fire until reassembled.", rule="A9.8"
            )
        notes.append(
            (
                "A9.8",
                AS_LMG.format(name=weapon.name)
                + " (if it malfunctions so, it is marked with a MG Malfunction counter)",
            )
        )
    return owner, notes


def check_weapon_again(state: AslState, weapon: Weapon, action: Fire, phase: str) -> bool:
    """The weapon may fire again this phase by its use and marker (A9.2, A9.22); whether its
    marker makes this attack Sustained Fire (A9.3).

    >>> from rules_core.asl.examples import fb16_fire_group
    >>> st = fb16_fire_group()
    >>> check_weapon_again(st, st.weapon("LMG"), Fire(weapons=("LMG",)), "pfph")
    False
    """
    if action.lane_residual:
        if weapon.name.lower() not in {lane.weapon.lower() for lane in state.fire_lanes}:
            raise IllegalAction(f"{weapon.name} has no Fire Lane.", rule="A9.22")
        return False
    if weapon.prep_fired and phase == "afph":
        raise IllegalAction(
            f"{weapon.name} fired in the Prep Fire Phase and may not fire in the Advancing Fire "
            "Phase.",
            rule="A3",
        )
    if weapon.lane_laid and phase == "mph" and not action.tpbf:
        raise IllegalAction(
            f"{weapon.name} laid a Fire Lane this MPh and may not fire again until the "
            "DFPh, except at a unit entering its Location (tpbf:true).",
            rule="A9.22",
        )
    check_not_spent(weapon, phase)
    return check_weapon_marker(weapon, phase, action.fpf, action.range)


def check_sustained(
    weapon: Weapon,
    owner: Unit | None,
    action: Fire,
    phase: str,
    level: int,
    *,
    declared: bool,
    auto: bool,
    helper: Unit | None,
) -> tuple[bool, list[tuple[str, str]]]:
    """Whether the weapon uses Sustained Fire, and that it may (A9.3, FB16.51).

    Declared, by its First Fire marker (Subsequent First Fire, Final Fire), or as FPF by a MG.

    >>> mg = Weapon(name="MG", side="Axis", kind="sw_mg", fire_marker="first")
    >>> check_sustained(mg, None, Fire(weapons=("MG",)), "mph", 0, declared=False, auto=True,
    ...                 helper=None)[0]
    True
    """
    notes: list[tuple[str, str]] = []
    if declared and not action.fpf and weapon.fire_marker != "first":
        raise IllegalAction(
            "Sustained Fire is Subsequent First Fire or Final Fire by a MG marked First "
            f"Fire, or FPF; {weapon.name} is not marked First Fire.",
            rule="A9.3",
        )
    # A9.3: a MG that attacks using FPF is using Sustained Fire (B# −2), declared or not.
    sustained = declared or auto or (action.fpf and weapon.is_mg)
    if not sustained:
        return False, notes
    if not weapon.is_mg or (weapon.kind == "veh_mg" and not weapon.main_armament):
        raise IllegalAction(
            f"{weapon.name} may not use Sustained Fire (only SW MGs and a MA MG).",
            rule="A9.3",
        )
    if owner is not None and owner.is_smc and helper is None:
        raise IllegalAction(
            f"{weapon.name} would use Sustained Fire, which a MG fired by a lone SMC may not.",
            rule="A9.3",
        )
    if phase not in ("mph", "dfph"):
        raise IllegalAction(
            "Sustained Fire is Subsequent First Fire, FPF or Final Fire only.", rule="A9.3"
        )
    if level >= 4 and not action.fpf:
        raise IllegalAction(
            f"{weapon.name} would use Sustained Fire, which is not allowed at "
            f"Ammunition Shortage level {level} except as FPF.",
            rule="FB16.51",
        )
    if auto and not declared:
        why = "Subsequent First Fire" if phase == "mph" else "Final Fire"
        notes.append(
            (
                "A9.3",
                f"{weapon.name} is marked First Fire: {why} is Sustained Fire "
                "(B# −2, FP halved as Area Fire)",
            )
        )
    return True, notes


__all__ = [
    "AS_LMG",
    "LEADER_RANGE",
    "check_fpf_tpbf",
    "check_helper",
    "check_leader",
    "check_shot_limit",
    "check_spraying",
    "check_sustained",
    "check_targets",
    "check_unit_marker",
    "check_units",
    "check_weapon_again",
    "check_weapon_fires",
    "check_weapon_marker",
    "dm_fires_as_lmg",
    "fired_as",
    "firers",
    "firing_side",
    "parse_lowering",
    "shot_limit",
    "shots_taken",
    "weapon_maker",
]
