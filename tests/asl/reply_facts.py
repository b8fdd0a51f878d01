"""How each fact of an ASL reply maps to the state after it (tests/bot/reply_facts.py).

Facts that name no lasting effect (Residual FP, Cowering, an attack left unresolved) are
results of the attack itself, not of the state, and hold by themselves.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rules_core.asl.state import AslState, Unit, Weapon
from rules_core.outcome import Outcome
from tests.bot.reply_facts import Unmapped

FATES = {
    "fine": ("ok",),
    "malfunctioned": ("malfunctioned",),
    "eliminated": ("eliminated",),
    "disabled": ("disabled",),
    "repaired": ("ok",),
}
DM = {"dismantled": True, "assembled": False}
"""A9.8: a weapon dismantled or assembled, and its ``dm`` after it."""
AMMO = ("fired", "fired, then depleted", "not fired, depleted")
"""C8.9: a Special Ammunition fact; depleted unless simply fired."""
CHECKS = ("PF (", "ATMM (", "SMOKE (", "Starshell (")
"""An availability check's result: whether it is had now, not a lasting state."""
"""A weapon's fate as a fact, and the status it leaves."""

NO_STATE = ("Residual FP", "Cowering", "Attack", "settings", "Sniper (", *CHECKS)
"""Facts about the attack itself: no state holds them."""


def _weapon(state: AslState, name: str) -> Weapon | None:
    return next((w for w in state.weapons if w.name == name), None)


def _unit(state: AslState, name: str) -> Unit | None:
    return next((u for u in state.units if u.name == name), None)


def _inner(subject: str) -> str:
    return subject[subject.index("(") + 1 : -1]


def _weapon_fact(before: AslState, after: AslState, name: str, value: str) -> str | None:
    weapon, old = _weapon(after, name), _weapon(before, name)
    fate, _, low = value.partition(", ")
    if value in DM:
        ok = weapon is not None and weapon.dm == DM[value]
        return None if ok else f"{name}: {value!r}, but the state says {weapon!r}"
    if fate in ("no change", "no effect"):
        ok = weapon is not None and old is not None and weapon.status == old.status
    elif fate in FATES:
        ok = weapon is not None and weapon.status in FATES[fate]
        if ok and low == "marked Low Ammo":
            ok = weapon is not None and weapon.low_ammo
    else:
        raise Unmapped(f"({name!r}, {value!r})")
    return None if ok else f"{name}: {value!r}, but the state says {weapon!r}"


def _rof(after: AslState, name: str, value: str) -> str | None:
    weapon = _weapon(after, name)
    if weapon is None or after.phase is None:
        return None  # no phase tracked: no Fire marker is kept (A9.2)
    marked = weapon.fire_marker != "none"
    if value == "kept" and (marked or weapon.spent):
        return f"ROF ({name}) kept, but it is marked with a {weapon.fire_marker} Fire marker (A9.2)"
    if value == "lost" and not (marked or weapon.spent) and weapon.status == "ok":
        return f"ROF ({name}) lost, but it carries no Fire marker (A9.2)"
    return None


def _lane(before: AslState, action: Any, after: AslState, subject: str, value: str) -> str | None:
    """A Fire Lane fact (A9.22, A9.223): laid, stays, or none/removed/canceled."""
    # "Fire Lane": a Residual attack's lane, or the lanes of a Cowered attack
    names = list(getattr(action, "weapons", ())) if subject == "Fire Lane" else [_inner(subject)]
    standing = {lane.weapon for lane in after.fire_lanes}
    wanted = value in ("laid", "stays")
    wrong = [name for name in names if (name in standing) != wanted]
    return f"{subject}: {value!r}, but the lanes are {sorted(standing)}" if wrong else None


def _replacement(after: AslState, subject: str, value: str) -> str | None:
    """FB16.2 Unit Replacement: no effect, replaced, broken, or a berserk unit unaffected."""
    unit = _unit(after, _inner(subject))
    if value in ("no effect", "unaffected (Berserk)"):
        return None
    if value == "broken":
        ok = unit is not None and unit.broken
    else:
        ok = unit is not None and unit.quality == value.removeprefix("replaced by ")
    return None if ok else f"{subject}: {value!r}, but the state says {unit!r}"


def _side_fact(after: AslState, side: str, value: str) -> str | None:
    counts = {
        "unit": len([u for u in after.units if u.side == side]),
        "weapon": len([w for w in after.weapons if w.side == side]),
    }
    for part in value.split(", "):
        number, noun = part.split(" ", 1)
        key = noun.rstrip("s")
        if key not in counts:
            raise Unmapped(f"({side!r}, {value!r})")
        if counts[key] != int(number):
            return f"{side}: {value!r}, but it has {counts[key]} {noun}"
    return None


def problems(before: AslState, action: Any, outcome: Outcome[AslState]) -> Iterator[str]:
    """Each fact of ``outcome`` the state after it does not hold."""
    after = outcome.state
    for subject, value in outcome.facts:
        problem: str | None
        if subject.startswith(NO_STATE):
            problem = None
        elif subject.startswith("ROF ("):
            problem = _rof(after, _inner(subject), value)
        elif subject.startswith("Unit Replacement ("):
            problem = _replacement(after, subject, value)
        elif subject.startswith("Pin ("):
            unit = _unit(after, _inner(subject))
            ok = unit is not None and unit.pinned == (value == "pinned")
            problem = None if ok else f"{subject}: {value!r}, but the state says {unit!r}"
        elif subject.startswith("Fire Lane"):
            problem = _lane(before, action, after, subject, value)
        elif subject.startswith("Covered Arc ("):
            weapon = _weapon(after, _inner(subject))
            ok = weapon is not None and weapon.ca_fixed == (value == "fixed")
            problem = None if ok else f"{subject}: {value!r}, but the state says {weapon!r}"
        elif value in AMMO:
            weapon = _weapon(after, getattr(action, "gun", ""))
            depleted = weapon is not None and subject in weapon.depleted
            ok = depleted == (value != "fired")
            problem = None if ok else f"{subject}: {value!r}, but the state says {weapon!r}"
        elif subject in {s.name for s in before.sides}:
            problem = _side_fact(after, subject, value)
        elif _weapon(before, subject) is not None or _weapon(after, subject) is not None:
            problem = _weapon_fact(before, after, subject, value)
        else:
            raise Unmapped(f"({subject!r}, {value!r})")
        if problem is not None:
            yield problem


__all__ = ["problems"]
