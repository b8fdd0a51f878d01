"""Trace supply, eating off the map and Out of Supply marking (OCS 12.6, 12.8a).

>>> eating_cost([Fraction(13, 2)])
4
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from fractions import Fraction

from rules_core.errors import IllegalAction, InvalidInput
from rules_core.ocs.actions import Trace
from rules_core.ocs.draw import supply_source, throwing_hq
from rules_core.ocs.state import OcsOutcome, OcsState, TraceCheck, Unit
from rules_core.ocs.tokens import format_tokens
from rules_core.outcome import Fact, Outcome, Step

RE_FED_PER_TOKEN = 2
"""OCS 12.6c: for every 1 T spent, up to 2 RE can be fed; fractions round up."""


def eating_cost(re_fed: Iterable[Fraction]) -> int:
    """Tokens to feed these RE off the map: ceil(RE / 2), pooled per feeding (12.6c).

    Feeding anyone costs at least 1 T: "for every 1 T spent, up to 2 RE can be fed", so a unit
    recorded at 0 RE still pays what the smallest surviving unit pays.

    >>> [eating_cost([Fraction(x)]) for x in ("1/2", "2", "5/2", "4", "0")]
    [1, 1, 2, 2, 1]
    """
    total = sum(re_fed, Fraction(0))
    return max(1, math.ceil(total / RE_FED_PER_TOKEN))


def _record(unit: Unit, check: TraceCheck, out_of_supply: bool) -> Unit:
    # had_genuine_trace_last_check: was the check *before* this one a genuine trace (12.8e)?
    return unit.model_copy(
        update={
            "had_genuine_trace_last_check": unit.trace == "traced",
            "trace": check,
            "out_of_supply": out_of_supply,
        }
    )


def resolve_trace(state: OcsState, action: Trace) -> Outcome[OcsState]:
    """Record a trace check: traced, ate off the map, or marked Out of Supply (12.6, 12.8a).

    Transport Points need no trace (12.9a) and are never marked Out of Supply, but whether they
    are cut off is recorded, for their first-turn Breakout (12.8e).

    :raises IllegalAction: eating when a trace exists (12.6c), eating in Strat Mode (12.6e),
        eating by a non-combat unit (12.9a), too little supply to eat.

    >>> s = OcsState(sides=("Axis",), units=(Unit(name="1 Bn", side="Axis"),))
    >>> resolve_trace(s, Trace(units=("1 Bn",), status="none")).state.units[0].out_of_supply
    True
    """
    units = state.side_units(action.units)
    side = units[0].side
    for unit in units:
        if not unit.is_combat_unit and action.status == "eat":
            raise IllegalAction(
                f"{unit.name} is a non-combat unit and never eats supply.", rule="OCS 12.9a"
            )
        if unit.location != "map":
            raise IllegalAction(f"{unit.name} is not on the map.", rule="OCS 12.6")
    steps: list[Step] = []
    facts: list[Fact] = []
    new_state = state
    if action.status != "eat" and (action.draw_mp is not None or action.throw_mp is not None):
        raise InvalidInput("Path lengths (draw-mp, throw-mp) are stated only for eating.")
    if action.status != "eat" and (
        action.dump is not None or action.trace_available or action.no_recovery
    ):
        raise InvalidInput(
            "dump, trace-available and no-recovery are stated only for eating off the map "
            "(status:eat)."
        )
    if action.status == "none" and action.hq is not None:
        raise InvalidInput(
            "hq names the HQ a unit traces through or eats from; a unit that does neither "
            "(status:none) has none."
        )
    if action.status == "traced":
        if action.hq is not None:
            hq = throwing_hq(state, side, action.hq)  # 12.6e: not from Strat Mode
            steps.append(
                Step(rule="OCS 12.6", text=f"trace supply thrown by {hq.name} (12.3b, 12.6f)")
            )
        changed = [_record(u, "traced", False) for u in units]
        for unit in units:
            text = f"{unit.name} traces to a Supply Source"
            if unit.out_of_supply:
                text += "; its Out of Supply marker is removed"
            steps.append(Step(rule="OCS 12.8a" if unit.out_of_supply else "OCS 12.6", text=text))
            facts.append((unit.name, "in supply"))
        new_state = state.with_units(*changed)
    elif action.status == "eat":
        if action.trace_available:
            raise IllegalAction(
                "Units can only eat off the map if no trace supply is available.",
                rule="OCS 12.6c",
            )
        strat = [u.name for u in units if u.mode == "strat"]
        if strat:
            raise IllegalAction(
                f"{', '.join(strat)} in Strat Mode may not eat off the map.", rule="OCS 12.6e"
            )
        if action.dump is None:
            raise InvalidInput("Name the dump that feeds them (dump:<hex>).")
        source = supply_source(state, side, action.dump, action.hq, action.draw_mp, action.throw_mp)
        held = source.available(state)
        re_fed = sum((u.re for u in units), Fraction(0))
        cost = eating_cost(u.re for u in units)
        if cost > held:
            raise IllegalAction(
                f"Feeding {re_fed} RE costs {format_tokens(cost)}; {source.where} "
                f"{'holds' if len(source.dumps) == 1 else 'hold'} {format_tokens(held)}.",
                rule="OCS 12.6c",
            )
        steps.extend(source.steps)
        steps.append(
            Step(
                rule="OCS 12.6c",
                text=f"{re_fed} RE eat off the map: ceil({re_fed} / 2) = {format_tokens(cost)} "
                f"from {source.where}",
            )
        )
        facts.extend((u.name, "ate off the map") for u in units)
        facts.append(("Dump", f"-{format_tokens(cost)}"))
        fed = state.with_units(*[_record(u, "ate", False) for u in units])
        new_state = source.spend(fed, cost)
    else:
        for unit in units:
            if not unit.is_combat_unit:
                steps.append(
                    Step(
                        rule="OCS 12.9a",
                        text=f"{unit.name} is cut off from trace supply; as a non-combat unit it "
                        "is not marked Out of Supply (it may try Breakout, 12.8e)",
                    )
                )
                facts.append((unit.name, "cut off"))
                continue
            steps.append(
                Step(
                    rule="OCS 12.6d",
                    text=f"{unit.name} neither traces nor eats: marked Out of Supply; "
                    "it checks for Attrition (12.8a)",
                )
            )
            facts.append((unit.name, "Out of Supply"))
        new_state = state.with_units(*[_record(u, "none", u.is_combat_unit) for u in units])
    return OcsOutcome(state=new_state, steps=tuple(steps), facts=tuple(facts))


__all__ = ["RE_FED_PER_TOKEN", "eating_cost", "resolve_trace"]
