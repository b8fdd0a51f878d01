"""Actions that roll nothing: the level, units, weapons, the weapon list, the phase.

They resolve like any other action so the game's log holds every change.
"""

from __future__ import annotations

from rules_core.asl.actions import AddUnit, AddWeapon, ListWeapons, RemoveWeapon, SetLevel, SetPhase
from rules_core.asl.fb16 import weapon_level
from rules_core.asl.state import MARKER_NAMES, PHASE_NAMES, AslState, FireMarker, Unit, Weapon
from rules_core.errors import IllegalAction, InvalidInput
from rules_core.outcome import Outcome, Step


def _side(state: AslState, name: str) -> str:
    side = state.side(name)
    if side is None:
        names = ", ".join(s.name for s in state.sides)
        raise InvalidInput(f"There is no side called {name!r}; the sides are {names}.")
    return side.name


def _name_free(state: AslState, name: str, *, update: bool, kind: str) -> None:
    if not name.strip():
        raise InvalidInput("A name may not be empty.")
    unit, weapon = state.unit(name), state.weapon(name)
    existing = unit if kind == "unit" else weapon
    other = weapon if kind == "unit" else unit
    if other is not None:
        raise InvalidInput(f"{name!r} already names a {'weapon' if kind == 'unit' else 'unit'}.")
    if existing is not None and not update:
        raise InvalidInput(f"{name!r} already exists; use update:true to change it.")
    if existing is None and update:
        raise InvalidInput(f"There is no {kind} called {name!r} to update.")


def set_level(state: AslState, action: SetLevel) -> Outcome[AslState]:
    """FB16.1: set a side's Ammunition Shortage level (Axis sides only).

    >>> from rules_core.asl.state import Side
    >>> st = AslState(sides=(Side(name="Allied", nationality="Russian", axis=False),))
    >>> set_level(st, SetLevel(side="Allied", level=3))
    Traceback (most recent call last):
    ...
    rules_core.errors.IllegalAction: Ammunition Shortage applies only to Axis sides. (FB16.1)
    """
    name = _side(state, action.side)
    side = state.side(name)
    assert side is not None
    if action.level > 0 and not side.axis:
        raise IllegalAction("Ammunition Shortage applies only to Axis sides.", rule="FB16.1")
    sides = tuple(
        s.model_copy(update={"level": action.level}) if s is side else s for s in state.sides
    )
    text = (
        f"{name}: Ammunition Shortage level {action.level}"
        if action.level
        else f"{name}: no Ammunition Shortage"
    )
    return Outcome[AslState](
        state=state.model_copy(update={"sides": sides}), steps=(Step(rule="FB16.1", text=text),)
    )


def add_unit(state: AslState, action: AddUnit) -> Outcome[AslState]:
    """Add or update a unit; its replacement chain is unit data (A19.13, A-REPL).

    >>> from rules_core.asl.examples import build_state
    >>> out = add_unit(build_state([]), AddUnit(name="E", side="Axis", kind="squad",
    ...                nationality="Hungarian", replaced_by=("4-4-7",)))
    >>> out.explanation()
    ['A19.13: E: Hungarian squad, replaced by 4-4-7']
    """
    side_name = _side(state, action.side)
    _name_free(state, action.name, update=action.update, kind="unit")
    side = state.side(side_name)
    assert side is not None
    unit = Unit(
        name=action.name.strip(),
        side=side_name,
        kind=action.kind,
        nationality=action.nationality or side.nationality,
        quality=action.quality,
        replaced_by=tuple(q.strip() for q in action.replaced_by if q.strip()),
        elite=action.elite,
        smoke=action.smoke,
        broken=action.broken,
        pinned=action.pinned,
        berserk=action.berserk,
        unarmed=action.unarmed,
        cx=action.cx,
    )
    existing = state.unit(action.name)
    if existing is not None:
        new = state.model_copy(
            update={"units": tuple(unit if u is existing else u for u in state.units)}
        )
        if unit.broken or unit.pinned:  # A9.22: the Fire Lane ends when its manning unit is
            lanes = tuple(
                lane
                for lane in new.fire_lanes
                if (w := new.weapon(lane.weapon)) is None or w.possessor != unit.name
            )
            new = new.model_copy(update={"fire_lanes": lanes})
    else:
        new = state.model_copy(update={"units": (*state.units, unit)})
    chain = f", replaced by {' → '.join(unit.replaced_by)}" if unit.replaced_by else ""
    described = " ".join(part for part in (unit.nationality, unit.kind, unit.quality) if part)
    text = f"{unit.name}: {described}{chain}"
    return Outcome[AslState](state=new, steps=(Step(rule="A19.13" if chain else "A1", text=text),))


def _special_ammo(entries: tuple[str, ...]) -> tuple[tuple[str, int], ...]:
    out = []
    for entry in entries:
        kind, sep, number = entry.rpartition(":")
        if not sep or not kind.strip() or not number.strip().isdigit():
            raise InvalidInput(f"Special Ammo {entry!r} should look like 'APCR:5'.")
        out.append((kind.strip(), int(number)))
    return tuple(out)


def add_weapon(state: AslState, action: AddWeapon) -> Outcome[AslState]:
    """Add or update a weapon with its printed numbers (A9.7, RULES_BRIEF §2.1).

    >>> from rules_core.asl.examples import build_state
    >>> add_weapon(build_state([]), AddWeapon(name="HMG", side="Axis", kind="sw_mg", rof=3,
    ...            b=11)).explanation()
    ['A9.7: HMG (Axis sw_mg): B11, ROF 3; ok']
    """
    side_name = _side(state, action.side)
    _name_free(state, action.name, update=action.update, kind="weapon")
    owner = None
    if action.owner is not None:
        unit = state.unit(action.owner)
        if unit is None:
            raise InvalidInput(f"There is no unit called {action.owner!r} in this game.")
        if unit.side != side_name:
            raise InvalidInput(f"{unit.name} is not a {side_name} unit.")
        owner = unit.name
    captured = None
    if action.captured_from is not None:
        captured = _side(state, action.captured_from)
        if captured == side_name:
            raise InvalidInput("A weapon is not captured from its own side.")
    if action.low_ammo and action.kind != "gun":
        raise InvalidInput("Only Guns carry an FB16.42 Low Ammo marker.")
    if action.b is not None and action.x is not None and action.x < action.b:
        raise InvalidInput("A printed X# below the printed B# is not a counter.")
    weapon = Weapon(
        name=action.name.strip(),
        side=side_name,
        kind=action.kind,
        printed_b=action.b,
        printed_x=action.x,
        rof=action.rof,
        r_number=action.repair,
        repairable=action.repairable,
        removal_number=action.removal,
        possessor=owner,
        captured_from=captured,
        main_armament=action.main_armament,
        fb_immune=action.fb_immune,
        special_ammo=_special_ammo(action.special_ammo),
        status=action.status,
        low_ammo=action.low_ammo,
        fire_marker=action.marker,
    )
    existing = state.weapon(action.name)
    if existing is not None:
        weapons = tuple(weapon if w is existing else w for w in state.weapons)
    else:
        weapons = (*state.weapons, weapon)
    new = state.model_copy(update={"weapons": weapons})
    return Outcome[AslState](state=new, steps=(Step(rule="A9.7", text=describe(new, weapon)),))


def describe(state: AslState, weapon: Weapon) -> str:
    """One line about a weapon: numbers (A9.7), status, markers (A9.2), FB level (FB16.1).

    >>> from rules_core.asl.state import Side
    >>> st = AslState(sides=(Side(name="Axis", nationality="German", axis=True, level=2),))
    >>> describe(st, Weapon(name="LMG", side="Axis", kind="sw_mg", rof=1, r_number=2))
    'LMG (Axis sw_mg): B12, ROF 1, R2; ok; FB level 2'
    """
    numbers = []
    if weapon.printed_b is not None or weapon.printed_x is None:
        numbers.append(f"B{weapon.printed_b or 12}")
    if weapon.printed_x is not None:
        numbers.append(f"X{weapon.printed_x}")
    if weapon.rof is not None:
        numbers.append(f"ROF {weapon.rof}")
    if weapon.r_number is not None:
        numbers.append(f"R{weapon.r_number}")
    parts = [", ".join(numbers), weapon.status]
    if weapon.fire_marker != "none":
        parts.append(MARKER_NAMES[weapon.fire_marker])
    if weapon.low_ammo:
        parts.append("Low Ammo")
    if weapon.depleted:
        parts.append("depleted " + ", ".join(weapon.depleted))
    if weapon.possessor:
        parts.append(f"held by {weapon.possessor}")
    if weapon.captured_from:
        parts.append(f"captured from {weapon.captured_from}")
    level = weapon_level(state, weapon)
    if level:
        parts.append(f"FB level {level}")
    return f"{weapon.name} ({weapon.side} {weapon.kind}): " + "; ".join(parts)


def list_weapons(state: AslState, action: ListWeapons) -> Outcome[AslState]:
    """The weapons with their status and markers (read only; A9.7).

    >>> from rules_core.asl.examples import fb16_fire_group
    >>> list_weapons(fb16_fire_group(), ListWeapons()).explanation()[1]
    'A9.7: LMG (Axis sw_mg): B12, ROF 1, R2; ok; held by B; FB level 4'
    """
    steps = tuple(Step(rule="A9.7", text=describe(state, w)) for w in state.weapons)
    return Outcome[AslState](state=state, steps=steps)


def remove_weapon(state: AslState, action: RemoveWeapon) -> Outcome[AslState]:
    """Remove a weapon (and its Fire Lane and MPh shot counts; A9.7).

    >>> from rules_core.asl.examples import fb16_fire_group
    >>> [w.name for w in remove_weapon(fb16_fire_group(), RemoveWeapon(name="HMG")).state.weapons]
    ['LMG']
    """
    weapon = state.weapon(action.name)
    if weapon is None:
        raise InvalidInput(f"There is no weapon called {action.name!r} in this game.")
    new = state.model_copy(
        update={
            "weapons": tuple(w for w in state.weapons if w is not weapon),
            "fire_lanes": tuple(f for f in state.fire_lanes if f.weapon != weapon.name),
            "shots": tuple(s for s in state.shots if s.weapon != weapon.name),
        }
    )
    return Outcome[AslState](state=new, steps=(Step(rule="A9.7", text=f"{weapon.name} removed"),))


MARKERS_EXPIRING: dict[str, frozenset[FireMarker]] = {
    "rph": frozenset({"prep", "first", "final", "intensive"}),
    "afph": frozenset({"first", "final"}),
    "ccph": frozenset({"prep", "intensive"}),
}
"""A3: fire markers removed on entering a phase (DEFENDER's at the end of the DFPh, ATTACKER's at
the end of the AFPh, all at the end of the Player Turn)."""


def set_phase(state: AslState, action: SetPhase) -> Outcome[AslState]:
    """Advance the phase; clear expiring fire markers, MPh shots, Fire Lanes (A3, A9.2, A9.22).

    >>> from rules_core.asl.examples import fb16_fire_group
    >>> out = set_phase(fb16_fire_group(), SetPhase(phase="mph", side="Axis"))
    >>> out.state.phase, out.explanation()
    ('mph', ['A3: Movement Phase of Axis'])
    """
    side = _side(state, action.side)
    steps = [Step(rule="A3", text=f"{PHASE_NAMES[action.phase]} of {side}")]
    expiring = MARKERS_EXPIRING.get(action.phase, frozenset())
    changed = {
        w.name: w.model_copy(update={"fire_marker": "none"})
        for w in state.weapons
        if w.fire_marker in expiring
    }
    new = state.with_weapons(changed)
    if changed:
        steps.append(Step(rule="A3", text=f"fire markers removed from {', '.join(changed)}"))
    if state.phase == "mph" or action.phase == "mph":
        if state.fire_lanes:
            steps.append(Step(rule="A9.22", text="Fire Lanes end with the MPh"))
        new = new.model_copy(update={"shots": (), "fire_lanes": ()})
    if action.phase == "rph":
        pinned = {u.name: u.model_copy(update={"pinned": False}) for u in new.units if u.pinned}
        new = new.with_units(pinned)
        if pinned:
            steps.append(Step(rule="A7.8", text=f"Pin counters removed from {', '.join(pinned)}"))
    new = new.model_copy(update={"phase": action.phase, "phase_side": side})
    return Outcome[AslState](state=new, steps=tuple(steps))


__all__ = [
    "MARKERS_EXPIRING",
    "add_unit",
    "add_weapon",
    "describe",
    "list_weapons",
    "remove_weapon",
    "set_level",
    "set_phase",
]
