"""Fuel: the Formation, HQ and single-unit methods, their costs and expiry (OCS 12.5).

>>> FUEL_METHODS["hq"].tokens, FUEL_METHODS["unit"].lasts
(4, 'the current phase only')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from rules_core.errors import IllegalAction, InvalidInput
from rules_core.ocs.actions import Cleanup, FuelAction
from rules_core.ocs.draw import supply_source
from rules_core.ocs.state import FuelMarker, OcsOutcome, OcsState, Unit
from rules_core.ocs.tokens import format_tokens
from rules_core.outcome import Outcome, Step

FuelMethod = Literal["formation", "hq", "unit"]


@dataclass(frozen=True)
class FuelMethodRule:
    """One row of the chart "Given Supply" (OCS 12.5c)."""

    rule: str
    tokens: int
    covers: str
    lasts: str


FUEL_METHODS: dict[FuelMethod, FuelMethodRule] = {
    "formation": FuelMethodRule(
        "OCS 12.5c A", 4, "every unit of the formation", "until the next friendly Clean Up Phase"
    ),
    "hq": FuelMethodRule(
        "OCS 12.5c B",
        4,
        "the HQ and every independent unit in its throw range",
        "until the next friendly Clean Up Phase",
    ),
    "unit": FuelMethodRule("OCS 12.5c C", 1, "one unit of any size", "the current phase only"),
}
"""OCS 12.5c and the chart "Given Supply": 1 SP per formation or HQ, or 1 T per unit."""


def fuel_coverage(state: OcsState, unit: Unit) -> str | None:
    """Why ``unit`` may move without paying fuel now, or ``None`` if it needs fuel (OCS 12.5).

    For an independent unit drawing from a fueled HQ, the caller vouches that it starts its
    move within the HQ's throw range (12.5e).

    >>> s = OcsState(sides=("Axis",))
    >>> fuel_coverage(s, Unit(name="Inf", side="Axis", movement="leg"))
    'moves on Leg MP: no fuel needed (OCS 12.5a)'
    >>> fuel_coverage(s, Unit(name="Pz", side="Axis", movement="track")) is None
    True
    """
    if not unit.is_combat_unit:
        return "Transport Points never need fuel (OCS 12.5a)"
    if unit.movement == "leg":
        return "moves on Leg MP: no fuel needed (OCS 12.5a)"
    if unit.fuel == "phase":
        return "fueled for this phase by the single-unit method (OCS 12.5c C)"
    markers = {(m.method, m.name) for m in state.fuel_markers if m.side == unit.side}
    if unit.formation is not None and ("formation", unit.formation) in markers:
        return f"its formation {unit.formation} is fueled (OCS 12.5c A)"
    if unit.kind == "HQ" and ("hq", unit.name) in markers:
        return "the HQ carries a Fuel marker (OCS 12.5c B)"
    if unit.formation is None and unit.hq is not None and ("hq", unit.hq) in markers:
        return f"independent unit in the throw range of the fueled {unit.hq} (OCS 12.5e)"
    return None


def resolve_fuel(state: OcsState, action: FuelAction) -> Outcome[OcsState]:
    """Pay fuel by one of the three methods of OCS 12.5c and mark how long it lasts.

    :raises IllegalAction: internals (12.5g), Leg units and Transport Points (12.5a), an HQ in
        Strat Mode (12.3b C), fuel already in force, or too little supply in the dump. A unit
        covered by its formation's or HQ's fuel may still pay 1 T when the player declares it
        ``cut_off`` from that source (12.5c A, 12.5e).

    >>> from rules_core.ocs.state import Dump
    >>> s = OcsState(sides=("Axis",), dumps=(Dump(side="Axis", hex="A1", tokens=4),),
    ...              units=(Unit(name="Pz", side="Axis", movement="track"),))
    >>> resolve_fuel(s, FuelAction(method="unit", target="Pz", dump="A1")).state.dumps[0].tokens
    3
    """
    rule = FUEL_METHODS[action.method]
    if action.internals:
        raise IllegalAction("Internal stocks can never pay fuel.", rule="OCS 12.5g")
    marker: FuelMarker | None = None
    changed: list[Unit] = []
    extra: list[Step] = []
    if action.method == "formation":
        members = [u for u in state.units if u.formation == action.target]
        if action.side is not None:
            state.check_side(action.side)
            members = [u for u in members if u.side == action.side]
        if not members:
            raise InvalidInput(f"There is no formation called {action.target!r} in this game.")
        side = members[0].side
        if len(members) < 2:
            raise IllegalAction(
                f"{action.target} is not a multi-unit formation; use the single-unit method.",
                rule="OCS 12.5c A",
            )
        marker = FuelMarker(side=side, method="formation", name=action.target)
    else:
        unit = state.unit(action.target)
        side = unit.side
        if action.method == "hq":
            if unit.kind != "HQ":
                raise IllegalAction(f"{unit.name} is not an HQ.", rule="OCS 12.5c B")
            if unit.mode == "strat":
                raise IllegalAction(
                    f"{unit.name} is in Strat Mode and cannot throw supply.", rule="OCS 12.3b C"
                )
            marker = FuelMarker(side=side, method="hq", name=unit.name)
        else:
            covered = fuel_coverage(state, unit)
            by_marker = covered is not None and ("12.5c A" in covered or "12.5e" in covered)
            if covered is not None and not (action.cut_off and by_marker):
                raise IllegalAction(f"{unit.name} needs no fuel: {covered}.", rule="OCS 12.5a")
            if by_marker:
                # 12.5c A: a formation unit that cannot draw from the common source, or 12.5e:
                # an independent unit outside the fueled HQ's throw range as it starts to move
                extra.append(
                    Step(
                        rule="OCS 12.5c A" if "12.5c A" in str(covered) else "OCS 12.5e",
                        text=f"{unit.name} cannot use that fuel (declared): it pays by the "
                        "single-unit method",
                    )
                )
            changed.append(unit.model_copy(update={"fuel": "phase"}))
    if action.side is not None and action.side != side:
        raise InvalidInput(f"{action.target} belongs to {side}, not {action.side}.")
    if marker is not None and marker in state.fuel_markers:
        raise IllegalAction(f"{action.target} is already fueled.", rule=rule.rule)
    source = supply_source(state, side, action.dump, action.hq, action.draw_mp, action.throw_mp)
    held = source.available(state)
    if held < rule.tokens:
        raise IllegalAction(
            f"Fuel costs {format_tokens(rule.tokens)}; {source.where} "
            f"{'holds' if len(source.dumps) == 1 else 'hold'} {format_tokens(held)}.",
            rule=rule.rule,
        )
    extra = [*source.steps, *extra]
    new_state = source.spend(state.with_units(*changed), rule.tokens)
    if marker is not None:
        new_state = new_state.model_copy(update={"fuel_markers": (*state.fuel_markers, marker)})
    step = Step(
        rule=rule.rule,
        text=f"{action.target}: {format_tokens(rule.tokens)} from {action.dump} fuels "
        f"{rule.covers}, lasting {rule.lasts}",
    )
    facts = ((action.target, f"fueled, {rule.lasts}"), ("Dump", f"-{format_tokens(rule.tokens)}"))
    return OcsOutcome(state=new_state, steps=(*extra, step), facts=facts)


def end_fuel(
    state: OcsState, *, side: str | None, markers_of: str | None
) -> tuple[OcsState, list[Step]]:
    """End single-unit fuel (of ``side``, or of every side) and ``markers_of``'s markers (12.5d).

    >>> marker = FuelMarker(side="Axis", method="hq", name="HQ")
    >>> end_fuel(OcsState(sides=("Axis",), fuel_markers=(marker,)), side=None,
    ...          markers_of="Axis")[0].fuel_markers
    ()
    """
    changed = [
        u.model_copy(update={"fuel": "none"})
        for u in state.units
        if side in (None, u.side) and u.fuel != "none"
    ]
    steps = [
        Step(rule="OCS 12.5c C", text=f"{u.name}: single-unit fuel ends with the phase")
        for u in changed
    ]
    markers = state.fuel_markers
    if markers_of is not None:
        ended = [m for m in markers if m.side == markers_of]
        markers = tuple(m for m in markers if m.side != markers_of)
        steps.extend(
            Step(
                rule="OCS 12.5d",
                text=f"{m.name}: "
                + ("Fuel marker removed" if m.method == "hq" else "Formation marker flipped back"),
            )
            for m in ended
        )
    return state.with_units(*changed).model_copy(update={"fuel_markers": markers}), steps


def resolve_cleanup(state: OcsState, action: Cleanup) -> Outcome[OcsState]:
    """End fuel: single-unit fuel at the end of its phase; all fuel in the Clean Up Phase (12.5d).

    >>> marker = FuelMarker(side="Axis", method="hq", name="HQ")
    >>> s = OcsState(sides=("Axis",), fuel_markers=(marker,))
    >>> resolve_cleanup(s, Cleanup(side="Axis")).state.fuel_markers
    ()
    """
    state.check_side(action.side)
    new_state, steps = end_fuel(
        state,
        side=action.side,
        markers_of=action.side if action.scope == "cleanup" else None,
    )
    blown = tuple(b for b in state.blown_this_phase if b[0] != action.side)
    new_state = new_state.model_copy(update={"blown_this_phase": blown})
    return OcsOutcome(state=new_state, steps=tuple(steps), facts=(("Fuel", "ended"),))


__all__ = [
    "FUEL_METHODS",
    "FuelMethodRule",
    "end_fuel",
    "fuel_coverage",
    "resolve_cleanup",
    "resolve_fuel",
]
