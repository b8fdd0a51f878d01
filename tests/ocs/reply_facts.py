"""How each fact of an OCS reply maps to the state after it (tests/bot/reply_facts.py).

A fact is what the reply shows after its arrow: ``→ 1/5 Pz: in 1405; Dump: -1 SP``. Each one
below is read against the state the action left, and against the state before it where the
fact is a change ("Dump: -1 SP" is what all the supply on the map lost).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import Any

from rules_core.ocs.actions import Breakout, Capture, Cleanup, DumpAdd, DumpAdjust
from rules_core.ocs.state import OcsState, Unit
from rules_core.ocs.strength import supply_multiplier
from rules_core.ocs.tokens import format_tokens, parse_tokens
from rules_core.ocs.units import parse_re
from rules_core.outcome import Outcome
from rules_core.words import counted
from tests.bot.reply_facts import Unmapped

MODES = {"DG": "DG", "Combat Mode": "combat", "Move Mode": "move", "Strat Mode": "strat",
         "Reserve Mode": "reserve"}  # fmt: skip
INTERNALS = {"no marker": "NONE", "NONE": "NONE", "LOW": "LOW", "EXHAUSTED": "EXHAUSTED"}


def total_supply(state: OcsState) -> int:
    """Every Token on the map: dumps on the ground and loads (12.1b)."""
    return sum(d.tokens for d in state.dumps) + sum(u.load_tokens for u in state.units)


def _unit(state: OcsState, name: str) -> Unit | None:
    return next((u for u in state.units if u.name == name), None)


def _steps_lost(before: OcsState, after: OcsState) -> int:
    lost = 0
    for old in before.units:
        new = _unit(after, old.name)
        lost += old.steps - (new.steps if new is not None else 0)
    return lost


def _unit_fact(before: OcsState, action: Any, after: OcsState, name: str, value: str) -> str | None:
    """The problem with a fact about a unit, or None when the state holds it."""
    unit = _unit(after, name)
    old = _unit(before, name)
    if value == "removed":
        return None if unit is None else "still in the game"
    if unit is None:
        return "no such unit after the action"
    checks: list[tuple[re.Pattern[str], Callable[[re.Match[str]], bool]]] = [
        (re.compile(r"added"), lambda m: old is None),
        (re.compile(r"paid .+"), lambda m: old is not None and unit.internals == old.internals),
        (re.compile(r"internals: (\w+)"), lambda m: unit.internals == m[1]),
        (re.compile(r"(no marker|NONE|LOW|EXHAUSTED)"),
         lambda m: unit.internals == INTERNALS[m[1]]),
        (re.compile(r"in supply"), lambda m: not unit.out_of_supply and unit.trace == "traced"),
        (re.compile(r"ate off the map"), lambda m: not unit.out_of_supply and unit.trace == "ate"),
        (re.compile(r"Out of Supply"), lambda m: unit.out_of_supply),
        (re.compile(r"cut off"), lambda m: not unit.out_of_supply and unit.trace == "none"),
        (re.compile(r"(\d+) (?:steps?|points?)"), lambda m: unit.steps == int(m[1])),
        (re.compile(r"(DG|\w+ Mode)"), lambda m: unit.mode == MODES[m[1]]),
        (re.compile(r"(.+) RE"), lambda m: unit.re == parse_re(m[1])),
        (re.compile(r"AR (\d)"), lambda m: unit.ar == int(m[1])),
        (re.compile(r"formation (.+)"), lambda m: (unit.formation or "none") == m[1]),
        (re.compile(r"HQ (.+)"), lambda m: (unit.hq or "none") == m[1]),
        (re.compile(r"throw range (\d+) MP"), lambda m: unit.throw_range == int(m[1])),
        (re.compile(r"in (.+)"), lambda m: unit.hex == m[1] and unit.location == "map"),
        (re.compile(r"eliminated"), lambda m: unit.location == "dead pile"),
        (re.compile(r"placed"), lambda m: unit.location == "map" and unit.hex == action.hex),
        (re.compile(r"fueled, the current phase only"), lambda m: unit.fuel == "phase"),
        (re.compile(r"([+-])(.+)"), lambda m: old is not None and unit.load_tokens - old.load_tokens
         == (1 if m[1] == "+" else -1) * parse_tokens(m[2])),
        (re.compile(r"formed"), lambda m: unit.extender),
        (re.compile(r"Transport Points"), lambda m: not unit.extender),
        (re.compile(r"defends ×(\S+)"), lambda m: Fraction(m[1]) in _defence(unit)),
        (re.compile(r"(may not attack|attacks ×.+|defends ×.+ = .+)"), lambda m: after == before),
    ]  # fmt: skip
    for pattern, holds in checks:
        match = pattern.fullmatch(value)
        if match is not None:
            return None if holds(match) else f"{name}: {value!r}, but the state says {_show(unit)}"
    raise Unmapped(f"({name!r}, {value!r})")


def _defence(unit: Unit) -> set[Fraction]:
    """The multipliers a defender can have with its Out of Supply marker as it is (12.8d)."""
    found = set()
    for supplied in (True, False):
        multiplier = supply_multiplier(
            "defend", out_of_supply=unit.out_of_supply, supplied=supplied
        )
        if multiplier is not None:
            found.add(multiplier)
    return found


def _show(unit: Unit) -> str:
    return (
        f"steps {unit.steps}, RE {unit.re}, internals {unit.internals}, out of supply "
        f"{unit.out_of_supply}, trace {unit.trace}, mode {unit.mode}, hex {unit.hex}, "
        f"location {unit.location}, load {format_tokens(unit.load_tokens)}"
    )


def _side_fact(before: OcsState, after: OcsState, side: str, value: str) -> str | None:
    """``Axis: 2 dumps, 4 units`` after a set-up."""
    counts = {
        "dump": len([d for d in after.dumps if d.side == side]),
        "unit": len([u for u in after.units if u.side == side]),
    }
    for part in value.split(", "):
        number, noun = part.split(" ", 1)
        key = noun.rstrip("s")
        if key not in counts:
            raise Unmapped(f"({side!r}, {value!r})")
        if counts[key] != int(number):
            return f"{side}: {value!r}, but it has {counts[key]} {noun}"
    return None


def problems(before: OcsState, action: Any, outcome: Outcome[OcsState]) -> Iterator[str]:
    """Each fact of ``outcome`` the state after it does not hold."""
    after = outcome.state
    lost = total_supply(before) - total_supply(after)
    for subject, value in outcome.facts:
        problem: str | None
        if subject in ("Dump", "Destroyed") and not value.endswith("captured"):
            amount = parse_tokens(value.lstrip("-"))
            problem = None if lost == amount else f"{subject}: {value}, but {lost} T left the map"
        elif subject == "Wasted":
            problem = None if parse_tokens(value) <= lost else f"Wasted {value}, but {lost} T spent"
        elif subject == "Attrition":
            shown = 0 if value == "no loss" else int(value.split()[0].lstrip("-"))
            actual = _steps_lost(before, after)
            problem = (
                None
                if shown == actual
                else f"Attrition {value}, but {counted(actual, 'step')} lost"
            )
        elif subject.startswith("Dump ") and isinstance(action, DumpAdd | DumpAdjust):
            held = after.dump_tokens(subject.removeprefix("Dump "), action.side)
            problem = None if format_tokens(held) == value else f"{subject} {value}, holds {held} T"
        elif subject == "Phase":
            now = f"{after.phase_side} {_phase(after)}, turn {after.turn}"
            problem = None if now == value else f"Phase {value!r}, but the state says {now!r}"
        elif subject == "Segment":
            problem = None if after.segment == value else f"Segment {value}, state {after.segment}"
        elif subject == "Fuel" and isinstance(action, Cleanup):
            left = [u.name for u in after.units if u.side == action.side and u.fuel != "none"]
            if action.scope == "cleanup":
                left += [m.name for m in after.fuel_markers if m.side == action.side]
            problem = None if not left else f"Fuel ended, but {', '.join(left)} still fueled"
        elif isinstance(action, Breakout) and subject in ("Breakout", "Returns"):
            problem = _breakout(before, after, action, subject, value)
        elif isinstance(action, Capture) and value.endswith("captured"):
            problem = _capture(before, after, action, subject, value)
        elif subject in before.sides or subject == "settings":
            problem = None if subject == "settings" else _side_fact(before, after, subject, value)
        elif subject.endswith(" internals"):
            unit = _unit(after, subject.removesuffix(" internals"))
            problem = None if unit is not None and unit.internals == value else f"{subject} {value}"
        elif value == "fueled, until the next friendly Clean Up Phase":
            marked = any(m.name == subject for m in after.fuel_markers)
            problem = None if marked else f"{subject} fueled, but it has no Fuel marker"
        elif subject.startswith(("Air base ", "Hedgehog ", "Port ")) or subject == "Barrage":
            problem = None  # what was paid for: its cost is the Dump fact beside it
        else:
            problem = _unit_fact(before, action, after, subject, value)
        if problem is not None:
            yield problem


def _phase(state: OcsState) -> str:
    from rules_core.ocs.phases import PHASE_NAMES

    return PHASE_NAMES[state.phase] if state.phase is not None else "no phase"


def _breakout(
    before: OcsState, after: OcsState, action: Breakout, subject: str, value: str
) -> str | None:
    unit = _unit(after, action.unit.strip())
    if value == "failed":
        ok = unit is not None and unit.location == "dead pile"
    elif value == "succeeded":
        ok = unit is not None and unit.location == "reinforcement"
    elif subject == "Returns":
        turns = int(value.split()[1])
        start = before.turn if action.turn is None else action.turn
        ok = unit is not None and unit.return_turn == start + turns
    else:
        won = int(value.split()[0])
        back = [u for u in after.units if u.location == "reinforcement" and u.kind == "transport"]
        ok = sum(u.steps for u in back) >= won
    return None if ok else f"{subject} {value!r}, but the state says {unit and _show(unit)}"


def _capture(
    before: OcsState, after: OcsState, action: Capture, subject: str, value: str
) -> str | None:
    taken = parse_tokens(value.split(" and ")[-1].removesuffix(" captured"))
    gained = after.supply_held(action.hex, action.side) - before.supply_held(
        action.hex, action.side
    )
    if gained < taken:
        return f"{subject}: {value}, but {action.side} gained {gained} T in {action.hex}"
    if subject != "Dump":
        points = int(value.split()[0])
        mine = [u for u in after.units if u.side == action.side and u.kind == "transport"]
        had = [u for u in before.units if u.side == action.side and u.kind == "transport"]
        if sum(u.steps for u in mine) - sum(u.steps for u in had) < points:
            return f"{subject}: {value}, but {action.side} did not gain {counted(points, 'point')}"
    return None


__all__ = ["problems", "total_supply"]
