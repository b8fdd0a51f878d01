"""Units through a game: add, list, change after combat, move or place, remove (OCS 12.0).

The supply rules read a unit's current steps, RE, mode and location: combat supply costs 1 T per
step now left (12.4), eating feeds its RE now (12.6c), attrition reads its mode (12.8c). These
commands keep that data current as play goes on.

>>> s = OcsState(sides=("Axis",), units=(Unit(name="Pz", side="Axis", steps=2, re=Fraction(2)),))
>>> resolve_unit_change(s, UnitChange(unit="Pz", steps=1)).state.unit("Pz").re
Fraction(1, 1)
"""

from __future__ import annotations

from fractions import Fraction

from rules_core.errors import IllegalAction, InvalidInput
from rules_core.ocs.actions import UnitAdd, UnitChange, UnitList, UnitMove, UnitRemove
from rules_core.ocs.fuel import fuel_coverage
from rules_core.ocs.state import FuelMarker, OcsOutcome, OcsState, Unit
from rules_core.ocs.tokens import format_tokens, parse_tokens
from rules_core.outcome import Fact, Outcome, Step
from rules_core.words import counted

NO_MOVE_FUEL: dict[str, str] = {
    "retreat": "a retreat after combat needs no fuel (OCS 12.5b)",
    "advance": "an advance after combat needs no fuel (OCS 12.5b)",
    "rail": "rail movement needs no fuel (chart Given Supply)",
    "displaced": "Transport Points displaced by a capture need no fuel (OCS 12.11b, 12.5a)",
    "placed": "placing a reinforcement needs no fuel (OCS 12.5f)",
}
"""Moves that never need fuel, with the rule that says so."""


def parse_re(text: str) -> Fraction:
    """Regimental Equivalents as an exact fraction: "1", "1/2", "2 1/2", "1.5" (series rule 9.11d).

    >>> parse_re("2 1/2"), parse_re("1/2")
    (Fraction(5, 2), Fraction(1, 2))
    >>> parse_re("-1")
    Traceback (most recent call last):
    ...
    rules_core.errors.InvalidInput: RE '-1' must be a number of 0 or more, like '1/2' or '2 1/2'.
    """
    try:
        value = sum((Fraction(part) for part in text.split()), Fraction(0))
    except (ValueError, ZeroDivisionError):
        value = Fraction(-1)
    if not text.strip() or value < 0:
        raise InvalidInput(f"RE {text!r} must be a number of 0 or more, like '1/2' or '2 1/2'.")
    return value


def describe(unit: Unit) -> str:
    """One line about a unit: where it is, its steps, RE, AR, mode and markers (OCS 12).

    >>> describe(Unit(name="1 Bn", side="Axis", hex="0905", internals="LOW"))
    '1 Bn (Axis combat unit) in 0905: 1 step, 1 RE, AR 3, Combat Mode, leg MP, Low'
    """
    kinds = {"combat": "combat unit", "HQ": "HQ", "transport": "Transport Points"}
    where = {
        "map": f"in {unit.hex}" if unit.hex else "on the map",
        "dead pile": "in the Dead Pile",
        "reinforcement": "returning as a Reinforcement"
        + (f" on turn {unit.return_turn}" if unit.return_turn else ""),
    }[unit.location]
    if unit.kind == "transport":
        text = f"{unit.name} ({unit.side} Transport Points) {where}: "
        text += f"{counted(unit.steps, 'point')}, MA {unit.printed_ma}"
        if unit.organic:
            text += ", Organic"
        if unit.load_tokens:
            text += f", carrying {format_tokens(unit.load_tokens)}"
        return text
    mode = "DG" if unit.mode == "DG" else f"{unit.mode.capitalize()} Mode"
    text = (
        f"{unit.name} ({unit.side} {kinds[unit.kind]}) {where}: {counted(unit.steps, 'step')}, "
        f"{unit.re} RE, AR {unit.ar}, {mode}, {unit.movement} MP"
    )
    if unit.kind == "HQ" and unit.throw_range:
        text += f", throw range {unit.throw_range} MP"
    if unit.formation:
        text += f", formation {unit.formation}"
    if unit.hq:
        text += f", HQ {unit.hq}"
    markers = []
    if unit.out_of_supply:
        markers.append("Out of Supply")
    if unit.internals != "NONE":
        markers.append(unit.internals.capitalize())
    if unit.fuel == "phase":
        markers.append("fueled this phase")
    return text + "".join(f", {m}" for m in markers)


def resolve_unit_add(state: OcsState, action: UnitAdd) -> Outcome[OcsState]:
    """Add a unit with its printed and current data (OCS 12.9b HQs, 12.9a Transport Points).

    >>> s = OcsState(sides=("Axis",))
    >>> resolve_unit_add(s, UnitAdd(name="1 Bn", side="Axis", steps=1, re="1/2")).state.units[0].re
    Fraction(1, 2)
    """
    state.check_side(action.side)
    name = action.name.strip()
    if not name:
        raise InvalidInput("A unit needs a name.")
    if any(u.name.casefold() == name.casefold() for u in state.units):  # one name, any case
        raise InvalidInput(f"There is already a unit called {name!r}.")
    load = parse_tokens(action.load)
    if load and action.kind != "transport":
        raise InvalidInput("Only Transport Points carry loaded SP.")
    if action.throw_range and action.kind != "HQ":
        raise InvalidInput("Only an HQ has a throw range.")
    unit = Unit(
        name=name,
        side=action.side,
        kind=action.kind,
        hex=action.hex,
        steps=action.steps,
        re=parse_re(action.re),
        ar=action.ar,
        arms=action.arms,
        antitank=action.antitank,
        formation=action.formation,
        hq=action.hq,
        brigade=action.brigade,
        mode=action.mode,
        movement=action.movement,
        printed_ma=action.ma,
        out_of_supply=action.out_of_supply,
        internals=action.internals,
        load_tokens=load,
        organic=action.organic,
        throw_range=action.throw_range,
        location="reinforcement" if action.reinforcement else "map",
    )
    what = counted(unit.steps, "point" if action.kind == "transport" else "step")
    text = f"{name} ({action.side} {action.kind}, {what}, {unit.re} RE, AR {unit.ar})"
    if load:
        text += f" carrying {format_tokens(load)}"
    if action.reinforcement:
        text += ", arriving as a Reinforcement (placing it needs no fuel, moving on does: 12.5f)"
    return OcsOutcome(
        state=state.with_units(unit),
        steps=(Step(rule="OCS 12.1", text=f"added {text}"),),
        facts=((name, "added"),),
    )


def resolve_unit_list(state: OcsState, action: UnitList) -> Outcome[OcsState]:
    """List the units with their current steps, RE, mode and supply markers; changes nothing.

    >>> s = OcsState(sides=("Axis",), units=(Unit(name="1 Bn", side="Axis", hex="0905"),))
    >>> resolve_unit_list(s, UnitList()).explanation()
    ['OCS 12.6: 1 Bn (Axis combat unit) in 0905: 1 step, 1 RE, AR 3, Combat Mode, leg MP']
    """
    if action.side is not None:
        state.check_side(action.side)
    units = [
        u for u in state.units if action.side in (None, u.side) and action.hex in (None, u.hex)
    ]
    steps = [Step(rule="OCS 12.6", text=describe(u)) for u in units]
    if not steps:
        steps.append(Step(rule="OCS 12.6", text="no units"))
    return OcsOutcome(state=state, steps=tuple(steps))


def _optional_name(text: str | None, current: str | None) -> str | None:
    if text is None:
        return current
    cleaned = text.strip()
    return None if cleaned.lower() in ("", "none", "independent") else cleaned


def resolve_unit_change(state: OcsState, action: UnitChange) -> Outcome[OcsState]:
    """Change a unit after play: steps left, RE, AR, mode, formation, HQ (9.11, OCS 12.8c).

    Steps left after combat losses set its combat-supply cost (1 T per step, 12.4); a multi-step
    unit's RE follows its steps unless a new RE is given (9.11d); with no step left it goes
    to the Dead Pile.

    :raises IllegalAction: a change of a unit that is not on the map (only its formation, HQ
        or data may change off it), an HQ throw range for a unit that is not an HQ.

    >>> s = OcsState(sides=("Axis",), units=(Unit(name="Pz", side="Axis"),))
    >>> resolve_unit_change(s, UnitChange(unit="Pz", mode="strat")).facts
    (('Pz', 'Strat Mode'),)
    """
    unit = state.unit(action.unit.strip())
    fields = (
        action.steps,
        action.re,
        action.ar,
        action.mode,
        action.formation,
        action.hq,
        action.throw_range,
    )
    if all(f is None for f in fields):
        raise InvalidInput(
            f"Say what changes for {unit.name} (steps, re, ar, mode, formation, hq)."
        )
    if unit.location == "dead pile":
        raise IllegalAction(
            f"{unit.name} is in the Dead Pile; a rebuilt unit is added anew.", rule="OCS 12.8e"
        )
    new = unit
    steps: list[Step] = []
    facts: list[Fact] = []
    for change in (_change_steps, _change_ratings, _change_mode, _change_links):
        new = change(state, unit, new, action, steps, facts)
    if not steps:
        raise InvalidInput(f"Nothing changes: {unit.name} already has that.")
    if action.reason:
        steps[0] = steps[0].model_copy(update={"text": f"{steps[0].text} — {action.reason}"})
    return OcsOutcome(state=state.with_units(new), steps=tuple(steps), facts=tuple(facts))


def _change_steps(
    state: OcsState,
    unit: Unit,
    new: Unit,
    action: UnitChange,
    steps: list[Step],
    facts: list[Fact],
) -> Unit:
    """Steps left after losses (9.11d: a multi-step unit's RE follows them; 12.4: 1 T a step)."""
    if action.steps is None or action.steps == unit.steps:
        return new
    if unit.kind == "transport" and action.steps == 0 and unit.load_tokens:
        raise InvalidInput(
            f"{unit.name} carries {format_tokens(unit.load_tokens)}; unload or blow it first."
        )
    new = new.with_steps(action.steps)
    lost = unit.steps - action.steps
    what = "point" if unit.kind == "transport" else "step"
    text = (
        f"{unit.name} loses {counted(lost, what)}"
        if lost > 0
        else f"{unit.name} gains {counted(-lost, what)}"
    )
    text += f": {action.steps} left"
    if new.re != unit.re:
        text += f", {new.re} RE"
    if new.location == "dead pile":
        text += "; eliminated, to the Dead Pile"
    steps.append(Step(rule="OCS 12.4", text=text + " (combat supply is 1 T per step left)"))
    facts.append((unit.name, counted(action.steps, what)))
    return new


def _change_ratings(
    state: OcsState,
    unit: Unit,
    new: Unit,
    action: UnitChange,
    steps: list[Step],
    facts: list[Fact],
) -> Unit:
    """A new RE (12.6c eating, 12.10e recovery) or Action Rating (12.8b Attrition)."""
    if action.re is not None:
        re = parse_re(action.re)
        if new.steps > 0 and re == 0 and new.is_combat_unit:
            raise InvalidInput(f"{unit.name} has steps left, so its RE is more than 0.")
        new = new.model_copy(update={"re": re})
        steps.append(Step(rule="OCS 12.6c", text=f"{unit.name}: {re} RE"))
        facts.append((unit.name, f"{re} RE"))
    if action.ar is not None:
        new = new.model_copy(update={"ar": action.ar})
        steps.append(Step(rule="OCS 12.8b", text=f"{unit.name}: Action Rating {action.ar}"))
        facts.append((unit.name, f"AR {action.ar}"))
    return new


_MODE_NOTES = {
    "strat": " (it may not eat off the map, 12.6e; an HQ in Strat Mode cannot throw "
    "supply, 12.3b C; Attrition reads its AR as 0, 12.8c)",
    "DG": " (Attrition ignores DG, 12.8c)",
}
"""What a new mode means for supply, said when a unit enters it."""


def _change_mode(
    state: OcsState,
    unit: Unit,
    new: Unit,
    action: UnitChange,
    steps: list[Step],
    facts: list[Fact],
) -> Unit:
    """A new mode: Strat Mode and DG matter to eating, throwing and Attrition (12.6e, 12.8c)."""
    if action.mode is None or action.mode == unit.mode:
        return new
    if not unit.is_combat_unit:
        raise InvalidInput(f"{unit.name} is a Transport Point counter; it has no mode.")
    new = new.model_copy(update={"mode": action.mode})
    shown = "DG" if action.mode == "DG" else f"{action.mode.capitalize()} Mode"
    steps.append(
        Step(
            rule="OCS 12.8c",
            text=f"{unit.name} is now in {shown}" + _MODE_NOTES.get(action.mode, ""),
        )
    )
    facts.append((unit.name, shown))
    return new


def _change_links(
    state: OcsState,
    unit: Unit,
    new: Unit,
    action: UnitChange,
    steps: list[Step],
    facts: list[Fact],
) -> Unit:
    """Its formation (12.5c A), the HQ it draws from and an HQ's throw range (12.3b)."""
    if action.formation is not None:
        formation = _optional_name(action.formation, unit.formation)
        new = new.model_copy(update={"formation": formation})
        steps.append(
            Step(
                rule="OCS 12.5c A",
                text=f"{unit.name}: "
                + (f"formation {formation}" if formation else "independent (no formation)"),
            )
        )
        facts.append((unit.name, f"formation {formation or 'none'}"))
    if action.hq is not None:
        hq = _optional_name(action.hq, unit.hq)
        if hq is not None:
            headquarters = state.unit(hq)
            if headquarters.kind != "HQ" or headquarters.side != unit.side:
                raise InvalidInput(f"{hq} is not an HQ of {unit.side}.")
        new = new.model_copy(update={"hq": hq})
        steps.append(Step(rule="OCS 12.3b", text=f"{unit.name}: draws from HQ {hq or 'none'}"))
        facts.append((unit.name, f"HQ {hq or 'none'}"))
    if action.throw_range is not None:
        if unit.kind != "HQ":
            raise InvalidInput(f"{unit.name} is not an HQ; only an HQ has a throw range.")
        new = new.model_copy(update={"throw_range": action.throw_range})
        steps.append(
            Step(rule="OCS 12.3b", text=f"{unit.name}: throw range {action.throw_range} MP")
        )
        facts.append((unit.name, f"throw range {action.throw_range} MP"))
    return new


def resolve_unit_move(state: OcsState, action: UnitMove) -> Outcome[OcsState]:
    """Move a unit to a hex, or place one that returns or arrives (OCS 12.5a-f, 12.8e, 12.11b).

    A unit moving on Truck or Track MP under its own power must be fueled (12.5a), also for an
    Overrun (12.5b); retreats, advances and rail moves need none (12.5b, chart Given Supply).
    A Reinforcement — one arriving or one back from a Breakout on its return turn — is placed
    (12.5f: placing needs no fuel, moving on does); Transport Points displaced by a capture are
    placed by their owner (12.11b).

    :raises IllegalAction: an unfueled move, a placement before the return turn, a unit in the
        Dead Pile.

    >>> s = OcsState(sides=("Axis",), units=(Unit(name="Pz", side="Axis", movement="track"),))
    >>> resolve_unit_move(s, UnitMove(unit="Pz", hex="0906"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rules_core.errors.IllegalAction: Pz moves on track MP and is not fueled; pay fuel first...
    """
    unit = state.unit(action.unit.strip())
    hex = action.hex.strip()
    if not hex:
        raise InvalidInput("Name the hex it moves to.")
    if unit.location == "dead pile":
        raise IllegalAction(
            f"{unit.name} is in the Dead Pile; a rebuilt unit is added anew.", rule="OCS 12.8e"
        )
    if unit.extender:
        raise IllegalAction(
            f"{unit.name} is an Extender and cannot move; turn it back into Transport Points "
            "first (/ocs extender how:unform).",
            rule="OCS 12.7",
        )
    steps: list[Step] = []
    if unit.location == "reinforcement":
        if action.how != "placed":
            raise IllegalAction(
                f"{unit.name} is a Reinforcement: place it first (how:placed); moving beyond its "
                "entry hex then needs fuel.",
                rule="OCS 12.5f",
            )
        if unit.return_turn is not None and state.turn < unit.return_turn:
            raise IllegalAction(
                f"{unit.name} returns on turn {unit.return_turn}; it is turn {state.turn}.",
                rule="OCS 12.8e",
            )
        text = f"{unit.name} enters at {hex} as a Reinforcement: placing it needs no fuel"
        if unit.return_turn is not None:
            text += f" (back from its Breakout, turn {unit.return_turn})"
        steps.append(Step(rule="OCS 12.5f", text=text))
        new = unit.model_copy(update={"hex": hex, "location": "map", "return_turn": None})
        fact = "placed"
    else:
        if action.how == "placed":
            raise InvalidInput(
                f"{unit.name} is already on the map; only a Reinforcement is placed."
            )
        if action.how == "displaced" and unit.kind != "transport":
            raise InvalidInput(
                f"{unit.name} is not a Transport Point counter; only those are displaced."
            )
        if action.how in NO_MOVE_FUEL:
            steps.append(Step(rule="OCS 12.5b", text=f"{unit.name}: {NO_MOVE_FUEL[action.how]}"))
        else:
            covered = fuel_coverage(state, unit)
            if covered is None:
                raise IllegalAction(
                    f"{unit.name} moves on {unit.movement} MP and is not fueled; pay fuel first "
                    f"(/ocs fuel)"
                    + ("; an Overrun needs fuel too." if action.how == "overrun" else "."),
                    rule="OCS 12.5b" if action.how == "overrun" else "OCS 12.5a",
                )
            steps.append(Step(rule="OCS 12.5a", text=f"{unit.name}: {covered}"))
            markers, note = _hq_fuel_location(state, unit, action.hq_at)
            if note is not None:
                steps.append(note)
            state = state.model_copy(update={"fuel_markers": markers})
        word = {"overrun": "overruns into", "displaced": "is displaced to"}.get(
            action.how, "moves to"
        )
        rule = {"overrun": "OCS 12.5b", "displaced": "OCS 12.11b"}.get(action.how, "OCS 12.5a")
        origin = f" from {unit.hex}" if unit.hex else ""
        steps.append(Step(rule=rule, text=f"{unit.name} {word} {hex}{origin}"))
        new = unit.model_copy(update={"hex": hex})
        fact = f"in {hex}"
    return OcsOutcome(state=state.with_units(new), steps=tuple(steps), facts=((unit.name, fact),))


def _hq_fuel_location(
    state: OcsState, unit: Unit, hq_at: str | None
) -> tuple[tuple[FuelMarker, ...], Step | None]:
    """The Fuel markers after ``unit`` moves, with the HQ's one fuel-throwing hex (12.5e)."""
    markers = list(state.fuel_markers)
    own = next(
        (
            i
            for i, m in enumerate(markers)
            if m.method == "hq" and m.side == unit.side and m.name == unit.name
        ),
        None,
    )
    if own is not None and markers[own].started_in is None:
        # a fueled HQ that moves: its starting hex stays a place it may throw fuel from
        markers[own] = markers[own].model_copy(update={"started_in": unit.hex})
    independent = (
        unit.formation is None
        and unit.hq is not None
        and unit.fuel == "none"
        and unit.kind != "HQ"
        and unit.movement != "leg"
    )
    index = next(
        (
            i
            for i, m in enumerate(markers)
            if independent and m.method == "hq" and m.side == unit.side and m.name == unit.hq
        ),
        None,
    )
    if index is None:
        if hq_at is not None:
            raise InvalidInput(f"{unit.name} does not move on an HQ's fuel; leave out hq-at.")
        return tuple(markers), None
    marker = markers[index]
    hq = state.unit(marker.name)
    places = [h for h in (hq.hex, marker.started_in) if h is not None]
    where = (hq_at or "").strip() or marker.throws_from or hq.hex
    if where not in places:
        raise IllegalAction(
            f"{hq.name} throws fuel from its starting or its ending hex "
            f"({' or '.join(dict.fromkeys(places))}), not from {where}.",
            rule="OCS 12.5e",
        )
    if marker.throws_from is not None and where != marker.throws_from:
        raise IllegalAction(
            f"{hq.name} throws fuel from a single location each phase: {marker.throws_from}, "
            f"not {where}.",
            rule="OCS 12.5e",
        )
    markers[index] = marker.model_copy(update={"throws_from": where})
    note = Step(
        rule="OCS 12.5e",
        text=f"{hq.name} throws its fuel from {where} this phase (the range counted as "
        f"{unit.name} begins to move)",
    )
    return tuple(markers), note


def resolve_unit_remove(state: OcsState, action: UnitRemove) -> Outcome[OcsState]:
    """Remove a unit: eliminated to the Dead Pile, or taken out of the game (OCS 12.8e).

    >>> s = OcsState(sides=("Axis",), units=(Unit(name="Pz", side="Axis"),))
    >>> resolve_unit_remove(s, UnitRemove(unit="Pz")).state.unit("Pz").location
    'dead pile'
    """
    unit = state.unit(action.unit.strip())
    if unit.load_tokens:
        raise InvalidInput(
            f"{unit.name} carries {format_tokens(unit.load_tokens)}; unload or blow it first."
        )
    if action.how == "withdrawn":
        units = tuple(u for u in state.units if u.name != unit.name)
        new_state = state.model_copy(update={"units": units})
        step = Step(rule="OCS 12.0", text=f"{unit.name} is taken out of the game")
        fact: Fact = (unit.name, "removed")
    else:
        if unit.location == "dead pile":
            raise InvalidInput(f"{unit.name} is already in the Dead Pile.")
        new_state = state.with_units(
            unit.model_copy(
                update={
                    "location": "dead pile",
                    "fuel": "none",
                    "return_turn": None,
                    "out_of_supply": False,
                    "internals": "NONE",
                }
            )
        )
        step = Step(rule="OCS 12.8e", text=f"{unit.name} is eliminated, to the Dead Pile")
        fact = (unit.name, "eliminated")
    if action.reason:
        step = step.model_copy(update={"text": f"{step.text} — {action.reason}"})
    return OcsOutcome(state=new_state, steps=(step,), facts=(fact,))


__all__ = [
    "NO_MOVE_FUEL",
    "describe",
    "parse_re",
    "resolve_unit_add",
    "resolve_unit_change",
    "resolve_unit_list",
    "resolve_unit_move",
    "resolve_unit_remove",
]
