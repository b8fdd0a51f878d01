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
from rules_core.ocs.state import OcsOutcome, OcsState, Unit
from rules_core.ocs.tokens import Rounding, format_tokens, parse_tokens, round_nearest
from rules_core.outcome import Fact, Outcome, Step

BLOWING_TABLE: dict[int, int] = {1: 25, 2: 50, 3: 50, 4: 75, 5: 75, 6: 100}
"""OCS chart 12.11a Dump Blowing Table (its "1" is the top row): dr → percent destroyed."""


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
    return OcsOutcome(
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
    return OcsOutcome(
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
    return OcsOutcome(state=state, steps=tuple(steps))


def blown_tokens(named: int, percent: int, rounding: Rounding = "half-up") -> int:
    """Tokens destroyed: the percent of the named amount, rounded to the nearest T (12.11a).

    >>> blown_tokens(12, 75), blown_tokens(1, 50), blown_tokens(4, 25)
    (9, 1, 1)
    """
    return round_nearest(Fraction(named * percent, 100), rounding)


@dataclass(frozen=True)
class BlowPlan:
    """A validated attempt to blow part of the SP in a hex: on the ground, loaded, or both."""

    side: str
    hex: str
    named: int
    held: int
    ground: int
    """Tokens on the ground that this attempt may destroy (0 when only loads are blown)."""
    carriers: tuple[Unit, ...]
    """Transport Points whose loads this attempt may destroy, in the order they lose SP."""
    rounding: Rounding

    @property
    def dumps(self) -> tuple[str, ...]:
        """The dump this attempt blows: the hex (12.1b: a location is a dump, ground and loads)."""
        return (self.hex,)


@dataclass(frozen=True)
class BlowRoll:
    """The Dump Blowing dr and the Tokens it destroys."""

    roll: Roll
    percent: int
    destroyed: int
    facts: tuple[Fact, ...]


def plan_blow(state: OcsState, action: Blow) -> BlowPlan:
    """Validate a dump blowing before any die (OCS 12.11a, 12.1b).

    All SP in a hex can be blown, on the ground and loaded on Transport Points (12.11a): the
    attempt blows the ground (``what:ground``, the default), every load in the hex
    (``what:loads``), both at once (``what:all``), or one named Transport Point's load. Each of
    the dump — every SP of the side in the hex, on the ground or loaded, 12.1b — is blown at
    most once per phase, whichever part the first attempt named.

    :raises InvalidInput: a zero or malformed amount; :raises IllegalAction: more than is there,
        a dump of the other side, a dump already blown this phase.

    >>> from rules_core.ocs.state import Dump
    >>> s = OcsState(sides=("Axis",), dumps=(Dump(side="Axis", hex="A1", tokens=16),))
    >>> plan_blow(s, Blow(side="Axis", dump="A1", amount="3 SP")).named
    12
    """
    state.check_side(action.side)
    named = parse_tokens(action.amount)
    if named == 0:
        raise InvalidInput("Name how much to blow: at least 1 T.")
    ground = 0
    carriers: list[Unit] = []
    if action.transport is not None:
        transport = state.unit(action.transport.strip())
        if transport.side != action.side:
            raise IllegalAction(
                f"{transport.name} belongs to {transport.side}; only its owner may blow its load.",
                rule="OCS 12.1d",
            )
        if transport.kind != "transport":
            raise InvalidInput(f"{transport.name} is not a Transport Point counter.")
        if transport.hex != action.dump:
            raise InvalidInput(f"{transport.name} is in {transport.hex}, not in {action.dump}.")
        carriers = [transport]
        where = f"loaded on {transport.name}"
    else:
        on_ground = state.dump_at(action.dump, action.side) is not None
        if action.what == "ground" or (action.what == "all" and on_ground):
            ground = state.own_dump(action.dump, action.side).tokens
        if action.what in ("loads", "all"):
            carriers = state.carriers(action.dump, action.side)
        if action.what != "ground" and not carriers and not ground:
            state.own_dump(action.dump, action.side)  # the right refusal: none there, or enemy
            raise InvalidInput(
                f"{action.side} has no SP loaded on Transport Points in {action.dump}."
            )
        where = {
            "ground": f"on the ground in {action.dump}",
            "loads": f"loaded on Transport Points in {action.dump}",
            "all": f"in {action.dump} (ground and loaded)",
        }[action.what]
    held = ground + sum(u.load_tokens for u in carriers)
    plan = BlowPlan(
        action.side,
        action.dump,
        named,
        held,
        ground,
        tuple(carriers),
        state.options.ocs_rounding,
    )
    if (action.side, action.dump) in state.blown_this_phase:
        raise IllegalAction(
            f"The dump in {action.dump} was already blown this phase: the SP on the ground and "
            "those loaded on Transport Points in a hex are one dump (12.1b), blown once a phase.",
            rule="OCS 12.11a",
        )
    if named > held:
        raise IllegalAction(
            f"Only {format_tokens(held)} is {where}; {format_tokens(named)} cannot be blown.",
            rule="OCS 12.11a",
        )
    return plan


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
            f"{format_tokens(rolled.destroyed)} destroyed; {format_tokens(left)} left; the dump "
            f"in {plan.hex} (ground and loads: one dump, 12.1b) is blown for this phase",
            dice=(rolled.roll,),
        )
    ]
    # the destroyed SP come off the ground first, then off the loads in order (12.11a)
    to_destroy = rolled.destroyed
    new_state = state
    if plan.ground:
        off_ground = min(to_destroy, plan.ground)
        to_destroy -= off_ground
        new_state = new_state.with_dump(plan.side, plan.hex, plan.ground - off_ground)
    changed: list[Unit] = []
    for carrier in plan.carriers:
        off_load = min(to_destroy, carrier.load_tokens)
        to_destroy -= off_load
        changed.append(carrier.model_copy(update={"load_tokens": carrier.load_tokens - off_load}))
        if plan.ground or len(plan.carriers) > 1:
            steps.append(
                Step(
                    rule="OCS 12.11a",
                    text=f"{carrier.name}: {format_tokens(off_load)} of its load destroyed; "
                    "the Transport Points themselves are not",
                )
            )
    new_state = new_state.with_units(*changed)
    blown = (*state.blown_this_phase, *((plan.side, d) for d in plan.dumps))
    new_state = new_state.model_copy(update={"blown_this_phase": blown})
    return OcsOutcome(state=new_state, steps=tuple(steps), rolls=(rolled.roll,), facts=rolled.facts)


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
