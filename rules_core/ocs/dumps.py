"""Dumps: adding, spending with change, listing, and the Dump Blowing Table (OCS 12.1, 12.11a).

>>> BLOWING_TABLE[1], BLOWING_TABLE[4], BLOWING_TABLE[6]
(25, 75, 100)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from rules_core.dice import Dice, Roll
from rules_core.errors import IllegalAction, InvalidInput
from rules_core.ocs.actions import Blow, DumpAdd, DumpAdjust, DumpList
from rules_core.ocs.state import OcsState, Unit
from rules_core.ocs.tokens import Rounding, format_tokens, parse_tokens, round_nearest
from rules_core.outcome import Fact, Outcome, Step

BLOWING_TABLE: dict[int, int] = {1: 25, 2: 50, 3: 50, 4: 75, 5: 75, 6: 100}
"""OCS chart 12.11a Dump Blowing Table (RES-14): dr → percent of the named SP destroyed."""


def resolve_dump_add(state: OcsState, action: DumpAdd) -> Outcome[OcsState]:
    """Add supply to a side's dump in a hex, making change (OCS 12.1a, 12.1d).

    >>> s = OcsState(sides=("Axis",))
    >>> add = DumpAdd(side="Axis", hex="0905", amount="4 1/2 SP")
    >>> resolve_dump_add(s, add).state.dumps[0].tokens
    18
    """
    state.check_side(action.side)
    tokens = parse_tokens(action.amount)
    if tokens == 0:
        raise InvalidInput("Add at least 1 T.")
    before = state.dump_tokens(action.hex, action.side)
    after = before + tokens
    step = Step(
        rule="OCS 12.1a",
        text=f"{action.side} dump in {action.hex}: {format_tokens(before)} + "
        f"{format_tokens(tokens)} = {format_tokens(after)}",
    )
    return Outcome[OcsState](
        state=state.with_dump(action.side, action.hex, after),
        steps=(step,),
        facts=((f"Dump {action.hex}", format_tokens(after)),),
    )


def resolve_dump_adjust(state: OcsState, action: DumpAdjust) -> Outcome[OcsState]:
    """Spend supply from a dump (making change), or set it to a counted amount (OCS 12.1a).

    :raises IllegalAction: spending more than the dump holds (a dump is never negative).

    >>> from rules_core.ocs.state import Dump
    >>> s = OcsState(sides=("Axis",), dumps=(Dump(side="Axis", hex="A1", tokens=20),))
    >>> resolve_dump_adjust(s, DumpAdjust(side="Axis", hex="A1", amount="2T")).facts
    (('Dump A1', '4 1/2 SP'),)
    """
    state.check_side(action.side)
    tokens = parse_tokens(action.amount)
    if action.how == "set":
        before = state.dump_tokens(action.hex, action.side)
        after = tokens
        text = (
            f"{action.side} dump in {action.hex} set from {format_tokens(before)} to "
            f"{format_tokens(after)}"
        )
    else:
        dump = state.own_dump(action.hex, action.side)
        if tokens > dump.tokens:
            raise IllegalAction(
                f"The dump in {dump.hex} holds {format_tokens(dump.tokens)}; it cannot pay "
                f"{format_tokens(tokens)}.",
                rule="OCS 12.1a",
            )
        after = dump.tokens - tokens
        text = (
            f"{format_tokens(dump.tokens)} − {format_tokens(tokens)} = {format_tokens(after)} "
            f"(making change)"
        )
    if action.reason:
        text += f" for {action.reason}"
    return Outcome[OcsState](
        state=state.with_dump(action.side, action.hex, after),
        steps=(Step(rule="OCS 12.1a", text=text),),
        facts=((f"Dump {action.hex}", format_tokens(after)),),
    )


def resolve_dump_list(state: OcsState, action: DumpList) -> Outcome[OcsState]:
    """List the dumps, ground and loaded, in exact Tokens (OCS 12.1b); changes nothing.

    >>> from rules_core.ocs.state import Dump
    >>> s = OcsState(sides=("Axis",), dumps=(Dump(side="Axis", hex="A1", tokens=9),))
    >>> resolve_dump_list(s, DumpList()).explanation()
    ['OCS 12.1b: Axis A1: 2 SP 1 T']
    """
    if action.side is not None:
        state.check_side(action.side)
    steps = [
        Step(rule="OCS 12.1b", text=d.render())
        for d in state.dumps
        if action.side in (None, d.side)
    ]
    steps.extend(
        Step(
            rule="OCS 12.1b",
            text=f"{u.side} {u.hex}: {format_tokens(u.load_tokens)} loaded on {u.name}",
        )
        for u in state.units
        if u.load_tokens and action.side in (None, u.side)
    )
    if not steps:
        steps.append(Step(rule="OCS 12.1b", text="no dumps"))
    return Outcome[OcsState](state=state, steps=tuple(steps))


def blown_tokens(named: int, percent: int, rounding: Rounding = "half-up") -> int:
    """Tokens destroyed: the percent of the named amount, rounded to the nearest T (12.11a).

    >>> blown_tokens(12, 75), blown_tokens(1, 50), blown_tokens(4, 25)
    (9, 1, 1)
    """
    return round_nearest(Fraction(named * percent, 100), rounding)


@dataclass(frozen=True)
class BlowPlan:
    """A validated attempt to blow part of a dump."""

    side: str
    hex: str
    named: int
    held: int
    transport: Unit | None
    rounding: Rounding


@dataclass(frozen=True)
class BlowRoll:
    """The Dump Blowing dr and the Tokens it destroys."""

    roll: Roll
    percent: int
    destroyed: int
    facts: tuple[Fact, ...]


def plan_blow(state: OcsState, action: Blow) -> BlowPlan:
    """Validate a dump blowing before any die (OCS 12.11a).

    :raises InvalidInput: a zero or malformed amount; :raises IllegalAction: more than is there,
        or a dump of the other side.

    >>> from rules_core.ocs.state import Dump
    >>> s = OcsState(sides=("Axis",), dumps=(Dump(side="Axis", hex="A1", tokens=16),))
    >>> plan_blow(s, Blow(side="Axis", dump="A1", amount="3 SP")).named
    12
    """
    state.check_side(action.side)
    if (action.side, action.dump) in state.blown_this_phase:
        raise IllegalAction(
            f"The dump in {action.dump} was already blown this phase.", rule="OCS 12.11a"
        )
    named = parse_tokens(action.amount)
    if named == 0:
        raise InvalidInput("Name how much to blow: at least 1 T.")
    transport: Unit | None = None
    if action.transport is not None:
        transport = state.unit(action.transport)
        if transport.side != action.side:
            raise IllegalAction(
                f"{transport.name} belongs to {transport.side}; only its owner may blow its load.",
                rule="OCS 12.1d",
            )
        if transport.kind != "transport":
            raise InvalidInput(f"{transport.name} is not a Transport Point counter.")
        if transport.hex != action.dump:
            raise InvalidInput(f"{transport.name} is in {transport.hex}, not in {action.dump}.")
        held = transport.load_tokens
        where = f"loaded on {transport.name}"
    else:
        held = state.own_dump(action.dump, action.side).tokens
        where = f"on the ground in {action.dump}"
    if named > held:
        raise IllegalAction(
            f"Only {format_tokens(held)} is {where}; {format_tokens(named)} cannot be blown.",
            rule="OCS 12.11a",
        )
    return BlowPlan(action.side, action.dump, named, held, transport, state.options.ocs_rounding)


def roll_blow(plan: BlowPlan, dice: Dice) -> BlowRoll:
    """Roll the Dump Blowing dr and read chart 12.11a.

    >>> from rules_core.dice import ScriptedDice
    >>> from rules_core.ocs.state import Dump
    >>> s = OcsState(sides=("Axis",), dumps=(Dump(side="Axis", hex="A1", tokens=16),))
    >>> plan = plan_blow(s, Blow(side="Axis", dump="A1", amount="3 SP"))
    >>> roll_blow(plan, ScriptedDice([4])).facts
    (('Destroyed', '2 SP 1 T'),)
    """
    face = dice.dr("Dump Blowing dr")
    roll = Roll(label="Dump Blowing dr", kind="dr", sides=6, faces=(face,))
    percent = BLOWING_TABLE[face]
    destroyed = blown_tokens(plan.named, percent, plan.rounding)
    return BlowRoll(roll, percent, destroyed, (("Destroyed", format_tokens(destroyed)),))


def apply_blow(state: OcsState, plan: BlowPlan, rolled: BlowRoll) -> Outcome[OcsState]:
    """The new state and explanation of a dump blowing (OCS 12.11a).

    >>> from rules_core.dice import ScriptedDice
    >>> from rules_core.ocs.state import Dump
    >>> s = OcsState(sides=("Axis",), dumps=(Dump(side="Axis", hex="A1", tokens=16),))
    >>> plan = plan_blow(s, Blow(side="Axis", dump="A1", amount="3 SP"))
    >>> apply_blow(s, plan, roll_blow(plan, ScriptedDice([4]))).state.dumps[0].render()
    'Axis A1: 1 SP 3 T'
    """
    exact = Fraction(plan.named * rolled.percent, 100)
    left = plan.held - rolled.destroyed
    steps = [
        Step(
            rule="OCS 12.11a",
            text=f"Dump Blowing dr {rolled.roll.total}: {rolled.percent}% of "
            f"{format_tokens(plan.named)} = {exact} T, rounded to the nearest Token: "
            f"{format_tokens(rolled.destroyed)} destroyed; {format_tokens(left)} left",
            dice=(rolled.roll,),
        )
    ]
    if plan.transport is not None:
        new_state = state.with_units(plan.transport.model_copy(update={"load_tokens": left}))
    else:
        new_state = state.with_dump(plan.side, plan.hex, left)
    blown = (*state.blown_this_phase, (plan.side, plan.hex))
    new_state = new_state.model_copy(update={"blown_this_phase": blown})
    return Outcome[OcsState](
        state=new_state, steps=tuple(steps), rolls=(rolled.roll,), facts=rolled.facts
    )


__all__ = [
    "BLOWING_TABLE",
    "BlowPlan",
    "BlowRoll",
    "apply_blow",
    "blown_tokens",
    "plan_blow",
    "resolve_dump_add",
    "resolve_dump_adjust",
    "resolve_dump_list",
    "roll_blow",
]
