"""Supply Wagons: resupply at the start of the owning player's Movement Phase (CWB Supply).

HPS supply page, section "Supply": a unit is resupplied provided it is not Routed and
can trace a path no longer than 5 hexes, through no enemy unit and no empty hex in an enemy
Zone-Of-Control, to a friendly Supply Wagon. It costs the wagon 1 strength for every 10 men in
the unit — ``ceil(men / 10)`` by default (``cwb_wagon_rounding``) — and only
if the wagon holds the whole cost (all-or-nothing). A wagon reduced to 0 is removed.

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

from rules_core.cwb.ammunition import MORALE_PLAYERS, morale_text
from rules_core.cwb.hexgrid import MAX_WAGON_PATH, format_hex, wagon_path
from rules_core.cwb.state import Ammo, CwbOutcome, CwbState, WagonRounding
from rules_core.errors import IllegalAction, InvalidInput
from rules_core.outcome import Outcome, Step
from rules_core.words import counted

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
"""``cwb_wagon_rounding``: how men/10 becomes whole strength points."""

ROUNDING_WORDS: dict[WagonRounding, str] = {
    "ceil": "rounded up",
    "round": "rounded to the nearest, halves up",
    "floor": "rounded down",
}


def _men_need(men: int, verb: str = "need") -> str:
    """A unit's men and the verb agreeing with them: "1 man needs", "95 men need"."""
    return f"{counted(men, 'man', 'men')} {verb + 's' if men == 1 else verb}"


def wagon_cost(men: int, rounding: WagonRounding = "ceil") -> int:
    """Wagon strength needed to resupply ``men`` men: 1 per 10, rounded per the flag.

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
    """Resupply a unit from a friendly Supply Wagon, all-or-nothing (CWB Supply).

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
        return CwbOutcome(
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
        traced_text = f"Path traced on the map: {counted(length, 'hex', 'hexes')}, {route}{note}"
        steps.append(Step(rule=RULE, text=traced_text))
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
                text=f"Declared path: {counted(path, 'hex', 'hexes')}, through no enemy unit and "
                "no empty enemy-ZOC hex",
            )
        )
    cost = wagon_cost(unit.men, state.wagon_rounding)
    words = ROUNDING_WORDS[state.wagon_rounding]
    if cost > wagon.strength:
        raise IllegalAction(
            f"Wagon {wagon.name} holds {wagon.strength} strength but {unit.name}'s "
            f"{_men_need(unit.men)} {cost} (1 per 10 men, {words}); resupply is all-or-nothing.",
            rule=RULE,
        )
    left = wagon.strength - cost
    new_unit = unit.model_copy(update={"ammo": Ammo.NORMAL, "routed": False})
    new_state = state.with_unit(new_unit)
    ends = ""
    if morale_text(state, unit) is not None and morale_text(new_state, new_unit) is None:
        ends = f" (its morale checks no longer take −1; {MORALE_PLAYERS})"
    steps.append(
        Step(
            rule=RULE,
            text=f"{_men_need(unit.men, 'cost')} {cost} wagon strength (1 per 10 men, {words}); "
            f"{unit.name} {unit.ammo.label} → Normal{ends}",
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
    return CwbOutcome(
        state=new_state,
        steps=tuple(steps),
        facts=((unit.name, "resupplied"), (f"wagon {wagon.name}", wagon_fact)),
    )


def resupply_side(state: CwbState, side_name: str) -> Outcome[CwbState]:
    """Start of a side's Movement Phase: resupply each eligible unit from its nearest wagon.

    On the registered map, in the order the units were added (the default order), every
    Low or Out unit of the side that is not Routed draws from the nearest friendly wagon (path
    length, then the order wagons were added) that can pay its whole cost. Units off the map,
    Routed, or with no such wagon are listed and left as they are (CWB Supply).

    :raises InvalidInput: unknown side, or no map registered.

    >>> from rules_core.cwb.state import CwbState, HexMap, SideData, Unit, Wagon
    >>> state = CwbState(sides=(SideData(name="U"),), map=HexMap(columns=9, rows=9),
    ...     units=(Unit(name="A", side="U", men=40, ammo=Ammo.LOW, hex=(4, 4)),),
    ...     wagons=(Wagon(name="Far", side="U", strength=9, hex=(4, 8)),
    ...             Wagon(name="Near", side="U", strength=9, hex=(4, 6))))
    >>> resupply_side(state, "U").facts
    (('A', 'resupplied'), ('wagon Near', 'strength 5'))
    """
    side = state.side(side_name)
    if state.map is None:
        raise InvalidInput(
            "No map is registered; register it with /cwb map, or resupply each unit with "
            "/cwb resupply and its declared path."
        )
    new_state = state
    steps: list[Step] = []
    facts: list[tuple[str, str]] = []
    for name in [u.name for u in state.units if u.side == side.name]:
        unit = new_state.unit(name)
        if unit.ammo is Ammo.NORMAL:
            continue
        if unit.routed:
            steps.append(Step(rule=RULE, text=f"{unit.name} is Routed: not resupplied"))
            facts.append((unit.name, "not resupplied (Routed)"))
            continue
        if unit.hex is None:
            steps.append(Step(rule=RULE, text=f"{unit.name} has no hex: not resupplied"))
            facts.append((unit.name, "not resupplied (no hex)"))
            continue
        cost = wagon_cost(unit.men, new_state.wagon_rounding)
        reachable: list[tuple[int, int, str]] = []
        for index, wagon in enumerate(new_state.wagons):
            if wagon.side != side.name or wagon.hex is None:
                continue
            traced = wagon_path(new_state, unit, wagon)
            if traced is not None:
                reachable.append((len(traced) - 1, index, wagon.name))
        payers = [r for r in sorted(reachable) if new_state.wagon(r[2]).strength >= cost]
        if not payers:
            why = (
                "no friendly wagon within 5 hexes"
                if not reachable
                else f"no wagon within 5 hexes holds the {cost} strength its {_men_need(unit.men)}"
            )
            steps.append(Step(rule=RULE, text=f"{unit.name}: {why}"))
            facts.append((unit.name, "not resupplied"))
            continue
        outcome = resupply(new_state, unit.name, payers[0][2])
        new_state = outcome.state
        steps.extend(outcome.steps)
        facts.extend(outcome.facts)
    if not steps:
        steps.append(Step(rule=RULE, text=f"No unit of {side.name} is Low or Out Of Ammo"))
    return CwbOutcome(state=new_state, steps=tuple(steps), facts=tuple(facts))


__all__ = [
    "MEN_PER_STRENGTH",
    "RULE",
    "WAGON_ROUNDING",
    "resupply",
    "resupply_side",
    "wagon_cost",
]
