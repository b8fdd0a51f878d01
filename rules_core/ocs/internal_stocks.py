"""Internal stocks recovery in the Supply Phase (OCS 12.10e, chart 12.10b).

>>> recovery_cost_per_level(Unit(name="Div", side="Axis", steps=3, re=Fraction(3)))
6
"""

from __future__ import annotations

import math
from fractions import Fraction

from rules_core.errors import IllegalAction, InvalidInput
from rules_core.ocs.actions import Recover
from rules_core.ocs.draw import supply_source
from rules_core.ocs.state import InternalStocks, OcsOutcome, OcsState, Unit
from rules_core.ocs.tokens import format_tokens
from rules_core.outcome import Fact, Outcome, Step

TOKENS_PER_LEVEL = 2
"""OCS 12.10e / chart 12.10b: 2 T per level recovered, per unit or per RE, whichever is more."""

LEVELS_TO_RECOVER: dict[InternalStocks, int] = {"NONE": 0, "LOW": 1, "EXHAUSTED": 2}
"""OCS 12.10e: recovery from Exhausted costs twice the recovery from Low (two levels)."""

RECOVERED: dict[InternalStocks, InternalStocks] = {"EXHAUSTED": "LOW", "LOW": "NONE"}
"""One level of recovery: Exhausted → Low → no marker (12.10e C)."""


def recovery_cost_per_level(unit: Unit) -> int:
    """Tokens to recover one level: 2 T × max(1, RE) (OCS 12.10e, chart 12.10b).

    >>> recovery_cost_per_level(Unit(name="Bn", side="Axis", re=Fraction(1, 2)))
    2
    """
    return math.ceil(TOKENS_PER_LEVEL * max(Fraction(1), unit.re))


def recovery_reading(unit: Unit) -> str | None:
    """Which reading of the recovery cost applied, when the two readings differ (12.10e).

    12.10e: "2T per unit (or RE if a multi-step unit)"; chart 12.10b: "per unit or RE (whichever
    is more)". They differ for a 1-step unit of more than 1 RE and for a multi-step unit of less
    than 1 RE: the chart's "whichever is more" applies.

    >>> recovery_reading(Unit(name="Bde", side="Axis", re=Fraction(2)))
    '2 T × 2 RE, not per unit: per unit or RE, whichever is more (chart 12.10b)'
    >>> recovery_reading(Unit(name="Bn", side="Axis")) is None
    True
    """
    if unit.steps <= 1 and unit.re > 1:
        return f"2 T × {unit.re} RE, not per unit: per unit or RE, whichever is more (chart 12.10b)"
    if unit.steps > 1 and unit.re < 1:
        return f"2 T per unit, not × {unit.re} RE: per unit or RE, whichever is more (chart 12.10b)"
    return None


def recovery_deficit(unit: Unit) -> int:
    """Tokens a unit needs to recover fully: levels × 2 T × max(1, RE) (OCS 12.10e).

    >>> recovery_deficit(Unit(name="Div", side="Axis", steps=3, re=Fraction(3), internals="LOW"))
    6
    >>> recovery_deficit(Unit(name="Bn", side="Axis", internals="EXHAUSTED"))
    4
    """
    return LEVELS_TO_RECOVER[unit.internals] * recovery_cost_per_level(unit)


def resolve_recover(state: OcsState, action: Recover) -> Outcome[OcsState]:
    """Compulsory recovery of Low/Exhausted units from one dump they reach (OCS 12.10e A-C).

    By default the marked units in the dump's hex recover; units further away reach it by a draw
    or throw path the player states by naming them (12.10e B). When the dump covers every level,
    exactly that is spent. Otherwise all of it is expended:
    units buy whole levels in priority order (the order named; by default the largest deficit
    in Tokens first) and the Tokens that buy no level are wasted (12.10e C).

    >>> from rules_core.ocs.state import Dump
    >>> s = OcsState(sides=("Axis",), dumps=(Dump(side="Axis", hex="A1", tokens=3),),
    ...              units=(Unit(name="Bn", side="Axis", internals="EXHAUSTED", hex="A1"),))
    >>> out = resolve_recover(s, Recover(side="Axis", dump="A1"))
    >>> out.state.units[0].internals, out.state.dumps
    ('LOW', ())
    """
    state.check_side(action.side)
    # 12.10e B: every dump the units reach must pay, except SP loaded on Organic Trucks
    source = supply_source(
        state, action.side, action.dump, action.hq, action.draw_mp, action.throw_mp
    )
    available = source.available(state, organic=False)
    if action.units:
        units = state.side_units(action.units, action.side)
        unmarked = [u.name for u in units if u.internals == "NONE"]
        if unmarked:
            raise InvalidInput(f"{', '.join(unmarked)} has no Low or Exhausted marker.")
    else:
        marked = [
            u
            for u in state.units
            if u.side == action.side and u.location == "map" and u.internals != "NONE"
        ]
        if not marked:
            raise IllegalAction(
                f"{action.side} has no unit marked Low or Exhausted.", rule="OCS 12.10e"
            )
        # the units that surely reach the dump: those in its hex (12.3a); the others reach it
        # only by a draw or throw path, a fact the player states by naming them
        hq = source.hq.name if source.hq else None
        marked = [
            u for u in marked if u.hex in source.dumps or (hq is not None and hq in (u.hq, u.name))
        ]
        if not marked:
            raise IllegalAction(
                f"No unit of {action.side} marked Low or Exhausted is in {action.dump}"
                + (f" or draws from {hq}" if hq else "")
                + "; name the marked units that can draw from the dump or be thrown its "
                "supply (units).",
                rule="OCS 12.10e B",
            )
        # default allocation: largest deficit (in Tokens) first, then state order
        units = sorted(marked, key=lambda u: -recovery_deficit(u))
    needed = sum(LEVELS_TO_RECOVER[u.internals] * recovery_cost_per_level(u) for u in units)
    steps: list[Step] = list(source.steps)
    facts: list[Fact] = []
    changed: list[Unit] = []
    left = available
    for unit in units:
        per_level = recovery_cost_per_level(unit)
        level = unit.internals
        while level != "NONE" and left >= per_level:
            left -= per_level
            level = RECOVERED[level]
        if level != unit.internals:
            changed.append(unit.model_copy(update={"internals": level}))
            spent = (LEVELS_TO_RECOVER[unit.internals] - LEVELS_TO_RECOVER[level]) * per_level
            shown = "no marker" if level == "NONE" else level
            reading = recovery_reading(unit)
            steps.append(
                Step(
                    rule="OCS 12.10e",
                    text=f"{unit.name}: {unit.internals} → {shown} for {format_tokens(spent)} "
                    f"({format_tokens(per_level)} per level"
                    + (f"; {reading}" if reading else "")
                    + ")",
                )
            )
            facts.append((unit.name, shown))
        else:
            steps.append(
                Step(
                    rule="OCS 12.10e C",
                    text=f"{unit.name} stays {unit.internals}: a level costs "
                    f"{format_tokens(per_level)}",
                )
            )
            facts.append((unit.name, unit.internals))
    spent_total = needed if available >= needed else available
    wasted = left if available < needed else 0
    if available < needed:
        steps.append(
            Step(
                rule="OCS 12.10e C",
                text=f"recovery needs {format_tokens(needed)}, {action.dump} holds "
                f"{format_tokens(available)}: all of it is expended"
                + (f"; {format_tokens(wasted)} buys no level and is wasted" if wasted else ""),
            )
        )
    facts.append(("Dump", f"-{format_tokens(spent_total)}"))
    new_state = source.spend(state.with_units(*changed), spent_total, organic=False)
    return OcsOutcome(state=new_state, steps=tuple(steps), facts=tuple(facts))


__all__ = [
    "LEVELS_TO_RECOVER",
    "RECOVERED",
    "TOKENS_PER_LEVEL",
    "recovery_cost_per_level",
    "recovery_deficit",
    "recovery_reading",
    "resolve_recover",
]
