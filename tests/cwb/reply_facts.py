"""How each fact of a CWB reply maps to the state after it (tests/bot/reply_facts.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rules_core.cwb.ammunition import ammo_text
from rules_core.cwb.state import Ammo, CwbState, Unit
from rules_core.outcome import Outcome
from tests.bot.reply_facts import Unmapped


def _unit(state: CwbState, name: str) -> Unit | None:
    return next((u for u in state.units if u.name == name), None)


def _side_fact(after: CwbState, side: str, value: str) -> str | None:
    """``Union: 3 units, 1 wagon`` after a set-up."""
    counts = {
        "unit": len([u for u in after.units if u.side == side]),
        "wagon": len([w for w in after.wagons if w.side == side]),
    }
    for part in value.split(", "):
        number, noun = part.split(" ", 1)
        key = noun.rstrip("s")
        if key not in counts:
            raise Unmapped(f"({side!r}, {value!r})")
        if counts[key] != int(number):
            return f"{side}: {value!r}, but it has {counts[key]} {noun}"
    return None


def _unit_fact(before: CwbState, after: CwbState, name: str, value: str) -> str | None:
    unit, old = _unit(after, name), _unit(before, name)
    if unit is None or old is None:
        return f"{name}: {value!r}, but there is no such unit"
    if value in ("Isolated", "not Isolated"):
        ok = unit.isolated == (value == "Isolated")
    elif value == "resupplied":
        ok = unit.ammo is Ammo.NORMAL and old.ammo is not Ammo.NORMAL
    elif value == "not resupplied (Normal)":
        ok = unit.ammo is Ammo.NORMAL and old.ammo is Ammo.NORMAL
    elif value.startswith("not resupplied"):
        ok = unit.ammo is old.ammo and unit.ammo is not Ammo.NORMAL
    elif value.startswith(tuple(a.label for a in Ammo)):
        # the level it fires at now, and where it comes from (its own, or its side's)
        ok = ammo_text(after, unit) == value
        if not ok:
            return f"{name}: {value!r}, but it fires at {ammo_text(after, unit)!r}"
    else:
        raise Unmapped(f"({name!r}, {value!r})")
    return None if ok else f"{name}: {value!r}, but the state says {unit!r}"


def problems(before: CwbState, action: Any, outcome: Outcome[CwbState]) -> Iterator[str]:
    """Each fact of ``outcome`` the state after it does not hold."""
    after = outcome.state
    fired = getattr(action, "unit", None) if action.action == "cwb.fire" else None
    for subject, value in outcome.facts:
        problem: str | None
        if subject == "ammo loss":
            old, new = _unit(before, str(fired)), _unit(after, str(fired))
            assert old is not None and new is not None
            lost = old.ammo is not new.ammo
            problem = None
            if value == "yes" and not (lost or old.ammo is Ammo.OUT):
                problem = "ammo loss: yes, but its level did not drop"
            if value in ("no", "no roll") and lost:
                problem = f"ammo loss: {value}, but its level dropped"
            if value == "no roll" and outcome.rolls:
                problem = "ammo loss: no roll, but a die was rolled"
        elif subject.startswith("wagon "):
            wagon = next((w for w in after.wagons if w.name == subject[6:]), None)
            if value == "removed":
                problem = None if wagon is None else f"{subject} removed, but it is still there"
            elif value.startswith("strength "):
                ok = wagon is not None and wagon.strength == int(value.split()[1])
                problem = None if ok else f"{subject} {value}, but the state says {wagon!r}"
            else:
                raise Unmapped(f"({subject!r}, {value!r})")
        elif subject == "turn":
            problem = None  # a declaration: the turn of that side begins (no state holds it)
        elif subject.endswith(" melee defence"):
            problem = None if after == before else "a read-only figure changed the state"
        elif subject == "settings":
            problem = None
        elif subject in {s.name for s in before.sides}:
            problem = _side_fact(after, subject, value)
        else:
            problem = _unit_fact(before, after, subject, value)
        if problem is not None:
            yield problem


__all__ = ["problems"]
