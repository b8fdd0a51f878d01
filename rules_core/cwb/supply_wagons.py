"""Supply Wagons: resupply at the start of the owning player's Movement Phase (CWB Supply).

HPS supply page (seed S2), section "Supply": a unit is resupplied provided it is not Routed and
can trace a path no longer than 5 hexes, through no enemy unit and no empty hex in an enemy
Zone-Of-Control, to a friendly Supply Wagon. It costs the wagon 1 strength for every 10 men in
the unit — ``ceil(men / 10)`` by default (RES-24, A-CWB-CEIL; ``cwb_wagon_rounding``) — and only
if the wagon holds the whole cost (all-or-nothing, P6). A wagon reduced to 0 is removed.

The path is taken from the map when the unit and the wagon both stand on a registered map
(:func:`rules_core.cwb.hexgrid.wagon_path`); otherwise the player declares its length. The
timing (start of the owner's Movement Phase) is the players' to keep: the bot tracks no phases.

>>> from rules_core.cwb.state import Ammo, CwbState, SideData, Unit, Wagon
>>> state = CwbState(sides=(SideData(name="Union"),),
...                  units=(Unit(name="A", side="Union", men=95, ammo=Ammo.LOW),),
...                  wagons=(Wagon(name="W", side="Union", strength=10),))
>>> outcome = resupply(state, "A", "W", path=2)
>>> outcome.state.unit("A").ammo.label, outcome.state.wagons
('Normal', ())
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from math import ceil, floor

from rules_core.cwb.hexgrid import MAX_WAGON_PATH, format_hex, wagon_path
from rules_core.cwb.state import Ammo, CwbState, WagonRounding
from rules_core.errors import IllegalAction, InvalidInput
from rules_core.outcome import Outcome, Step

RULE = "CWB Supply"

MEN_PER_STRENGTH = 10
"""CWB Supply: "each unit of strength of a Supply Wagon represents enough ammunition to resupply
10 men"."""


def _round_half_up(x: Fraction) -> int:
    return floor(x + Fraction(1, 2))


WAGON_ROUNDING: dict[WagonRounding, Callable[[Fraction], int]] = {
    "ceil": ceil,
    "round": _round_half_up,
    "floor": floor,
}
"""RES-24 / A-CWB-CEIL (``cwb_wagon_rounding``): how men/10 becomes whole strength points."""

ROUNDING_WORDS: dict[WagonRounding, str] = {
    "ceil": "rounded up",
    "round": "rounded to the nearest, halves up",
    "floor": "rounded down",
}


def wagon_cost(men: int, rounding: WagonRounding = "ceil") -> int:
    """Wagon strength needed to resupply ``men`` men: 1 per 10, rounded per the flag (RES-24).

    >>> wagon_cost(95), wagon_cost(95, "round"), wagon_cost(95, "floor"), wagon_cost(1)
    (10, 10, 9, 1)
    """
    if men < 0:
        raise InvalidInput(f"A unit cannot have {men} men.")
    return WAGON_ROUNDING[rounding](Fraction(men, MEN_PER_STRENGTH))


def resupply(
    state: CwbState,
    unit_name: str,
    wagon_name: str,
    path: int | None = None,
    routed: bool | None = None,
) -> Outcome[CwbState]:
    """Resupply a unit from a friendly Supply Wagon, all-or-nothing (CWB Supply, RES-24).

    :param path: the declared length in hexes of the shortest path that avoids enemy units and
        empty enemy-ZOC hexes; ignored when the map gives it.
    :param routed: the unit's Routed status as declared now (default: as recorded).
    :raises InvalidInput: unknown unit or wagon, a negative path, or no path to go by.
    :raises IllegalAction: a wagon of another side, a Routed unit, a path over 5 hexes, or a
        wagon too weak for the whole unit.

    >>> from rules_core.cwb.state import CwbState, SideData, Unit, Wagon
    >>> state = CwbState(sides=(SideData(name="Union"),),
    ...                  units=(Unit(name="A", side="Union", men=95, ammo=Ammo.OUT),),
    ...                  wagons=(Wagon(name="W", side="Union", strength=9),))
    >>> resupply(state, "A", "W", path=1)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rules_core.errors.IllegalAction: Wagon W holds 9 strength but A's 95 men need 10 (1 per 10 ...
    """
    unit = state.unit(unit_name)
    wagon = state.wagon(wagon_name)
    if wagon.side != unit.side:
        raise IllegalAction(
            f"Wagon {wagon.name} belongs to {wagon.side}; {unit.name} can only draw from a "
            f"friendly Supply Wagon of {unit.side}.",
            rule=RULE,
        )
    if path is not None and path < 0:
        raise InvalidInput(f"A path cannot be {path} hexes long.")
    if unit.ammo is Ammo.NORMAL:
        step = Step(
            rule=RULE,
            text=f"{unit.name} already has Normal ammunition: nothing to resupply, "
            f"wagon {wagon.name} unchanged",
        )
        return Outcome[CwbState](
            state=state, steps=(step,), facts=((unit.name, "not resupplied (Normal)"),)
        )
    is_routed = unit.routed if routed is None else routed
    if is_routed:
        raise IllegalAction(f"{unit.name} is Routed and cannot be resupplied.", rule=RULE)
    steps: list[Step] = []
    if state.map is not None and unit.hex is not None and wagon.hex is not None:
        traced = wagon_path(state, unit, wagon)
        if traced is None:
            raise IllegalAction(
                f"{unit.name} at {format_hex(unit.hex)} has no path of at most "
                f"{MAX_WAGON_PATH} hexes to wagon {wagon.name} at {format_hex(wagon.hex)} "
                "that avoids enemy units and empty hexes in enemy Zones-Of-Control.",
                rule=RULE,
            )
        length = len(traced) - 1
        route = " → ".join(format_hex(h) for h in traced)
        note = "" if path is None or path == length else f" (declared {path} ignored)"
        steps.append(
            Step(rule=RULE, text=f"Path traced on the map: {length} hex(es), {route}{note}")
        )
    elif path is None:
        raise InvalidInput(
            f"Declare the path from {unit.name} to wagon {wagon.name} in hexes (path:), "
            "since they are not both placed on a registered map."
        )
    else:
        if path > MAX_WAGON_PATH:
            raise IllegalAction(
                f"A path of {path} hexes is longer than the {MAX_WAGON_PATH} hexes allowed "
                "between a unit and the Supply Wagon that resupplies it.",
                rule=RULE,
            )
        steps.append(
            Step(
                rule=RULE,
                text=f"Declared path: {path} hex(es), through no enemy unit and no empty "
                "enemy-ZOC hex",
            )
        )
    cost = wagon_cost(unit.men, state.wagon_rounding)
    words = ROUNDING_WORDS[state.wagon_rounding]
    if cost > wagon.strength:
        raise IllegalAction(
            f"Wagon {wagon.name} holds {wagon.strength} strength but {unit.name}'s {unit.men} "
            f"men need {cost} (1 per 10 men, {words}); resupply is all-or-nothing.",
            rule=f"{RULE}; RES-24",
        )
    left = wagon.strength - cost
    new_unit = unit.model_copy(update={"ammo": Ammo.NORMAL, "routed": False})
    new_state = state.with_unit(new_unit)
    steps.append(
        Step(
            rule=f"{RULE}; RES-24",
            text=f"{unit.men} men cost {cost} wagon strength (1 per 10 men, {words}); "
            f"{unit.name} {unit.ammo.label} → Normal",
        )
    )
    if left == 0:
        new_state = new_state.without_wagon(wagon.name)
        steps.append(
            Step(rule=RULE, text=f"Wagon {wagon.name} reduced to 0 and removed from the map")
        )
        wagon_fact = "removed"
    else:
        new_state = new_state.with_wagon(wagon.model_copy(update={"strength": left}))
        steps.append(Step(rule=RULE, text=f"Wagon {wagon.name}: {wagon.strength} → {left}"))
        wagon_fact = f"strength {left}"
    return Outcome[CwbState](
        state=new_state,
        steps=tuple(steps),
        facts=((unit.name, "resupplied"), (f"wagon {wagon.name}", wagon_fact)),
    )


__all__ = ["MEN_PER_STRENGTH", "RULE", "WAGON_ROUNDING", "resupply", "wagon_cost"]
