"""Transport Points: loading and unloading (12.2a, chart 13.2d) and Extenders (OCS 12.7).

* Loading or unloading costs a Transport Point 10 % of its printed MA (adjusted for weather),
  rounded to the nearest at that moment (chart 13.2d) — Movement Points, not supply.
* Leapfrogging: SP unloaded in a phase may not be loaded again in that phase (12.2a); moving SP
  and using them at once is no leapfrog (12.2b), so drawing loaded SP is never limited.
* Extenders: five Transport Points of one type (Trucks, or other Transport Points) in a hex,
  none Organic, none loaded, become an Extender where it connects to a trace Supply Source at
  that moment (12.7, 12.7d-e); it never moves or carries SP; it turns back into Transport Points
  (12.7d, 12.7f), or collapses when enemy combat units enter its hex or voluntarily (12.7h).

>>> load_cost_mp(12), load_cost_mp(15), load_cost_mp(4)
(1, 2, 0)
"""

from __future__ import annotations

from fractions import Fraction

from rules_core.errors import IllegalAction, InvalidInput
from rules_core.ocs.actions import Extender, Load
from rules_core.ocs.state import OcsOutcome, OcsState, Unit
from rules_core.ocs.tokens import Rounding, format_tokens, parse_tokens, round_nearest
from rules_core.outcome import Fact, Outcome, Step
from rules_core.words import counted

EXTENDER_POINTS = 5
"""OCS 12.7: five Transport Points of the same type make one Extender."""


def load_cost_mp(ma: int, rounding: Rounding = "half-up") -> int:
    """MP to load or unload: 10 % of the MA, rounded to the nearest (chart 13.2d).

    >>> load_cost_mp(25), load_cost_mp(25, "half-even")
    (3, 2)
    """
    return round_nearest(Fraction(ma, 10), rounding)


def _transport(state: OcsState, name: str) -> Unit:
    unit = state.unit(name.strip())
    if unit.kind != "transport":
        raise InvalidInput(f"{unit.name} is not a Transport Point counter.")
    if unit.location != "map" or unit.steps == 0:
        raise IllegalAction(f"{unit.name} is not on the map.", rule="OCS 12.2")
    return unit


def resolve_load(state: OcsState, action: Load) -> Outcome[OcsState]:
    """Load SP from the ground onto a Transport Point counter, or unload them (12.2a, 13.2d).

    :raises IllegalAction: loading SP unloaded this phase (12.2a), an Extender (12.7),
        more than there is.

    >>> from rules_core.ocs.state import Dump
    >>> trucks = Unit(name="T", side="Axis", kind="transport", hex="A1", printed_ma=12)
    >>> s = OcsState(sides=("Axis",), units=(trucks,), dumps=(Dump(side="Axis", hex="A1",
    ...              tokens=8),))
    >>> resolve_load(s, Load(transport="T", amount="1 SP")).state.unit("T").load_tokens
    4
    """
    unit = _transport(state, action.transport)
    if unit.extender:
        raise IllegalAction(f"{unit.name} is an Extender: it carries no SP.", rule="OCS 12.7a")
    if unit.hex is None:
        raise InvalidInput(f"Give {unit.name} a hex first (/ocs unit move).")
    tokens = parse_tokens(action.amount)
    if tokens == 0:
        raise InvalidInput("Name how much: at least 1 T.")
    ma = unit.printed_ma if action.ma is None else action.ma
    mp = load_cost_mp(ma, state.options.ocs_rounding)
    cost = Step(
        rule="OCS 13.2d",
        text=f"{'unloading' if action.unload else 'loading'} costs {unit.name} 10% of its MA "
        f"{ma} = {mp} MP",
    )
    side, hex = unit.side, unit.hex
    if action.unload:
        if tokens > unit.load_tokens:
            raise IllegalAction(
                f"{unit.name} carries {format_tokens(unit.load_tokens)}; it cannot unload "
                f"{format_tokens(tokens)}.",
                rule="OCS 12.1b",
            )
        new_state = state.with_units(
            unit.model_copy(update={"load_tokens": unit.load_tokens - tokens})
        ).with_dump(side, hex, state.dump_tokens(hex, side) + tokens)
        new_state = new_state.model_copy(
            update={"unloaded": (*state.unloaded, (side, hex, tokens))}
        )
        text = (
            f"{unit.name} unloads {format_tokens(tokens)} in {hex}; they may not be loaded "
            "again this phase (12.2a)"
        )
        facts: tuple[Fact, ...] = ((unit.name, f"-{format_tokens(tokens)}"),)
    else:
        ground = state.own_dump(hex, side).tokens
        barred = min(ground, state.unloaded_in(hex, side))
        if tokens > ground - barred:
            why = (
                f"; {format_tokens(barred)} of it was unloaded this phase and may not be "
                "loaded again (leapfrogging)"
                if barred
                else ""
            )
            raise IllegalAction(
                f"The dump in {hex} holds {format_tokens(ground)}{why}: {format_tokens(tokens)} "
                "cannot be loaded.",
                rule="OCS 12.2a",
            )
        new_state = state.with_dump(side, hex, ground - tokens).with_units(
            unit.model_copy(update={"load_tokens": unit.load_tokens + tokens})
        )
        text = f"{unit.name} loads {format_tokens(tokens)} in {hex}"
        facts = ((unit.name, f"+{format_tokens(tokens)}"),)
    loaded = new_state.unit(unit.name).load_tokens
    steps = (
        Step(rule="OCS 12.2a", text=f"{text}; it carries {format_tokens(loaded)}"),
        cost,
    )
    return OcsOutcome(state=new_state, steps=steps, facts=facts)


def _form(state: OcsState, action: Extender) -> Outcome[OcsState]:
    if action.hex is None or not action.hex.strip():
        raise InvalidInput("Name the common hex the Extender forms in (hex).")
    hex = action.hex.strip()
    units = [_transport(state, n) for n in action.units]
    state.side_units([u.name for u in units])  # one side, no name twice
    for unit in units:
        if unit.organic:
            raise IllegalAction(
                f"{unit.name} is Organic Trucks: they never form an Extender.", rule="OCS 12.7"
            )
        if unit.extender:
            raise InvalidInput(f"{unit.name} is already an Extender.")
        if unit.load_tokens:
            raise IllegalAction(
                f"{unit.name} is loaded; it must unload before it forms an Extender.",
                rule="OCS 12.7d",
            )
    if len({u.is_trucks for u in units}) > 1:
        raise IllegalAction(
            "An Extender is formed by one type of Transport Points only (Trucks or others).",
            rule="OCS 12.7d",
        )
    points = sum(u.steps for u in units)
    if points < EXTENDER_POINTS:
        raise IllegalAction(
            f"An Extender takes {EXTENDER_POINTS} Transport Points; these have {points}.",
            rule="OCS 12.7",
        )
    if not action.connected:
        raise IllegalAction(
            f"An Extender cannot be created in {hex} unless it connects to a trace Supply "
            "Source at that moment (say so with connected:true).",
            rule="OCS 12.7d",
        )
    name = (action.name or "").strip() or state.unique_name(f"Extender {hex}")
    if any(u.name.casefold() == name.casefold() for u in state.units):
        raise InvalidInput(f"There is already a unit called {name!r}.")
    need = EXTENDER_POINTS
    changed: list[Unit] = []
    removed: list[str] = []
    steps: list[Step] = []
    for unit in units:
        taken = min(need, unit.steps)
        need -= taken
        if taken == 0:
            continue
        steps.append(
            Step(
                rule="OCS 12.7e",
                text=f"{unit.name}: {counted(taken, 'point')} spend half their MA "
                f"({Fraction(unit.printed_ma, 2)} MP) and join in {hex}",
            )
        )
        if taken == unit.steps:
            removed.append(unit.name)
        else:
            changed.append(unit.model_copy(update={"steps": unit.steps - taken}))
    first = units[0]
    extender = first.model_copy(
        update={
            "name": name,
            "hex": hex,
            "steps": EXTENDER_POINTS,
            "extender": True,
            "load_tokens": 0,
            "fuel": "none",
        }
    )
    kept = tuple(u for u in state.with_units(*changed).units if u.name not in removed)
    new_state = state.model_copy(update={"units": (*kept, extender)})
    steps.append(
        Step(
            rule="OCS 12.7a",
            text=f"{name} in {hex}: a trace supply location; it neither moves nor carries SP",
        )
    )
    return OcsOutcome(state=new_state, steps=tuple(steps), facts=((name, "formed"),))


def resolve_extender(state: OcsState, action: Extender) -> Outcome[OcsState]:
    """Form an Extender from 5 Transport Points, or turn one back (OCS 12.7, 12.7d-h).

    :raises IllegalAction: Organic Trucks, loaded or mixed Transport Points, fewer than 5
        points, no connection to a Supply Source (12.7d).

    >>> trucks = Unit(name="T", side="Axis", kind="transport", hex="A1", steps=5, printed_ma=12)
    >>> s = OcsState(sides=("Axis",), units=(trucks,))
    >>> out = resolve_extender(s, Extender(how="form", units=("T",), hex="A1", connected=True))
    >>> [(u.name, u.steps, u.extender) for u in out.state.units]
    [('Extender A1', 5, True)]
    """
    if action.how == "form":
        return _form(state, action)
    if action.hex is not None or action.connected or action.name is not None:
        raise InvalidInput(
            "hex, connected and name are an Extender's as it forms (12.7d-e); one that turns "
            "back or collapses takes none of them."
        )
    if len(action.units) != 1:
        raise InvalidInput("Name the one Extender.")
    unit = _transport(state, action.units[0])
    if not unit.extender:
        raise InvalidInput(f"{unit.name} is not an Extender.")
    back = unit.model_copy(update={"extender": False})
    if action.how == "unform":
        text = (
            f"{unit.name} turns back into {unit.steps} Transport Points, spending half their "
            f"MA ({Fraction(unit.printed_ma, 2)} MP); they may move apart (12.7f)"
        )
        rule = "OCS 12.7d"
    else:
        text = (
            f"{unit.name} collapses into {unit.steps} Transport Points in {unit.hex} (enemy "
            "combat units entered, or by choice); they can be captured as such"
        )
        rule = "OCS 12.7h"
    return OcsOutcome(
        state=state.with_units(back),
        steps=(Step(rule=rule, text=text),),
        facts=((unit.name, "Transport Points"),),
    )


__all__ = ["EXTENDER_POINTS", "load_cost_mp", "resolve_extender", "resolve_load"]
