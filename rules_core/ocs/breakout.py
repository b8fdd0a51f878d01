"""Breakout of units out of trace supply, and their return as Reinforcements (OCS 12.8e).

>>> breakout_succeeds(4 + FIRST_TURN_DRM)
True
>>> breakout_succeeds(4)
False
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from fractions import Fraction

from rules_core.dice import Dice, Roll
from rules_core.errors import IllegalAction, InvalidInput
from rules_core.ocs.actions import Breakout
from rules_core.ocs.state import OcsOutcome, OcsState, Unit
from rules_core.outcome import Fact, Modifier, Outcome, Step
from rules_core.words import counted

BREAKOUT_SUCCESS = 5
"""OCS 12.8e: a Final dr of 1-4 fails (Dead Pile); 5-6 (7 with the +1) succeeds."""
FIRST_TURN_DRM = 1
"""OCS 12.8e: +1 on the first turn a unit finds itself out of trace supply."""
MAX_DISTANCE = 15
"""OCS 12.8e B: within 15 hexes of a friendly combat unit in trace supply."""


def breakout_succeeds(final_dr: int) -> bool:
    """Whether a Final Breakout dr succeeds (OCS 12.8e: 5-6, or 7 with the +1).

    >>> [breakout_succeeds(d) for d in (1, 4, 5, 7)]
    [False, False, True, True]
    """
    return final_dr >= BREAKOUT_SUCCESS


@dataclass(frozen=True)
class BreakoutPlan:
    """A validated Breakout attempt."""

    unit: Unit
    first_turn: bool
    declared: bool
    points: int
    modifiers: tuple[Modifier, ...]
    turn: int


@dataclass(frozen=True)
class BreakoutRoll:
    """The dice of a Breakout: per point (or for the unit) the Breakout dr and any Return dr."""

    rolls: tuple[Roll, ...]
    results: tuple[tuple[int, int | None], ...]
    """Per point: (Final Breakout dr, Return dr or None when it failed)."""
    facts: tuple[Fact, ...]


def plan_breakout(state: OcsState, action: Breakout) -> BreakoutPlan:
    """Validate a Breakout before any die (OCS 12.8e).

    :raises IllegalAction: a unit in trace, printed MA 0, a Transport Point after its first turn,
        conditions A or B unmet after the first turn.

    >>> s = OcsState(sides=("Axis",), units=(Unit(name="a", side="Axis", trace="none",
    ...              out_of_supply=True),))
    >>> plan_breakout(s, Breakout(unit="a")).first_turn
    True
    """
    unit = state.unit(action.unit)
    if unit.location != "map":
        raise IllegalAction(f"{unit.name} is not on the map.", rule="OCS 12.8e")
    if unit.trace != "none":
        raise IllegalAction(
            f"{unit.name} is not out of trace supply; record its failed trace check first.",
            rule="OCS 12.8e",
        )
    if unit.printed_ma < 1:
        raise IllegalAction(
            f"{unit.name} has a printed MA of {unit.printed_ma}; Breakout needs at least 1.",
            rule="OCS 12.8e",
        )
    if unit.steps < 1:
        raise InvalidInput(f"{unit.name} has no steps left.")
    first_turn = (
        unit.had_genuine_trace_last_check if action.first_turn is None else action.first_turn
    )
    if not unit.is_combat_unit:
        if not first_turn:
            raise IllegalAction(
                f"{unit.name} is a Transport Point: it may try Breakout only on its first turn "
                "out of trace supply.",
                rule="OCS 12.8e",
            )
        if unit.load_tokens:
            raise InvalidInput(
                f"Unload {unit.name} before its Breakout; its load cannot break out."
            )
    if not first_turn:
        if not action.path:
            raise IllegalAction(
                f"{unit.name} needs a path free of enemy combat units to a friendly unit in "
                "trace supply (condition A).",
                rule="OCS 12.8e",
            )
        if action.distance is None:
            raise InvalidInput(
                "Give the distance to the nearest friendly combat unit in trace supply (distance)."
            )
        if action.distance > MAX_DISTANCE:
            raise IllegalAction(
                f"{unit.name} is {action.distance} hexes from a friendly combat unit in trace "
                f"supply; condition B needs {MAX_DISTANCE} or less.",
                rule="OCS 12.8e",
            )
    modifiers = (
        (Modifier(label="first turn out of trace", value=FIRST_TURN_DRM, rule="OCS 12.8e"),)
        if first_turn
        else ()
    )
    return BreakoutPlan(
        unit=unit,
        first_turn=first_turn,
        declared=action.first_turn is not None,
        points=1 if unit.is_combat_unit else unit.steps,
        modifiers=modifiers,
        turn=_turn(state, action),
    )


def _turn(state: OcsState, action: Breakout) -> int:
    """The turn the return is counted from: the game's, once phases are tracked (12.8e)."""
    if action.turn is None:
        return state.turn
    if state.phase is not None and action.turn != state.turn:
        raise IllegalAction(
            f"It is turn {state.turn}, not turn {action.turn}: the return is counted from the "
            "game's turn (leave turn out).",
            rule="OCS 12.8e",
        )
    return action.turn


def _label(plan: BreakoutPlan, base: str, point: int) -> str:
    return f"{base} (point {point})" if plan.points > 1 else base


def _points_succeed(won: int, points: int) -> str:
    """How many of a Transport Breakout's points succeed, in English.

    >>> _points_succeed(1, 2), _points_succeed(2, 2), _points_succeed(0, 2)
    ('1 of 2 points succeeds', '2 of 2 points succeed', '0 of 2 points succeed')
    """
    return f"{won} of {points} points {'succeeds' if won == 1 else 'succeed'}"


def roll_breakout(plan: BreakoutPlan, dice: Dice) -> BreakoutRoll:
    """Roll the Breakout dr (one per Transport Point) and, on success, the unmodified Return dr.

    OCS 12.8e; the Return dr is unmodified (the +1 is for the Breakout dr only).

    >>> from rules_core.dice import ScriptedDice
    >>> s = OcsState(sides=("Axis",), units=(Unit(name="a", side="Axis", trace="none"),))
    >>> roll_breakout(plan_breakout(s, Breakout(unit="a")), ScriptedDice([4, 2])).facts
    (('Breakout', 'succeeded'), ('Returns', 'in 2 turns'))
    """
    rolls: list[Roll] = []
    results: list[tuple[int, int | None]] = []
    drm = sum(m.value for m in plan.modifiers)
    for point in range(1, plan.points + 1):
        label = _label(plan, "Breakout dr", point)
        face = dice.dr(label)
        rolls.append(Roll(label=label, kind="dr", sides=6, faces=(face,)))
        final = face + drm
        returns: int | None = None
        if breakout_succeeds(final):
            label = _label(plan, "Return dr", point)
            returns = dice.dr(label)  # unmodified: the +1 is for the Breakout dr only
            rolls.append(Roll(label=label, kind="dr", sides=6, faces=(returns,)))
        results.append((final, returns))
    if plan.points == 1:
        returns = results[0][1]
        facts: tuple[Fact, ...] = (
            (("Breakout", "failed"),)
            if returns is None
            else (("Breakout", "succeeded"), ("Returns", f"in {counted(returns, 'turn')}"))
        )
    else:
        won = sum(1 for _, r in results if r is not None)
        facts = (("Breakout", _points_succeed(won, plan.points)),)
    return BreakoutRoll(rolls=tuple(rolls), results=tuple(results), facts=facts)


def _returning(unit: Unit, name: str, points: int, turn: int) -> Unit:
    # 12.8e: keeps its step-loss marker (its steps), loses every other marker.
    return unit.model_copy(
        update={
            "name": name,
            "steps": points,
            "location": "reinforcement",
            "return_turn": turn,
            "internals": "NONE",
            "mode": "combat",
            "out_of_supply": False,
            "fuel": "none",
            "trace": "traced",
            "had_genuine_trace_last_check": True,
        }
    )


def apply_breakout(state: OcsState, plan: BreakoutPlan, rolled: BreakoutRoll) -> Outcome[OcsState]:
    """The new state and explanation of a Breakout (OCS 12.8e).

    >>> from rules_core.dice import ScriptedDice
    >>> s = OcsState(sides=("Axis",), units=(Unit(name="a", side="Axis", trace="none"),))
    >>> plan = plan_breakout(s, Breakout(unit="a", turn=3))
    >>> out = apply_breakout(s, plan, roll_breakout(plan, ScriptedDice([6, 2])))
    >>> out.state.units[0].return_turn
    5
    """
    unit = plan.unit
    how = "declared" if plan.declared else "from its trace record"
    if plan.first_turn:
        cond = "first turn out of trace supply (" + how + "): conditions A and B waived, +1 drm"
    else:
        cond = "not its first turn out of trace (" + how + "): conditions A and B met, no drm"
    steps = [Step(rule="OCS 12.8e", text=f"{unit.name}: {cond}", modifiers=plan.modifiers)]
    roll_iter = iter(rolled.rolls)
    for point, (final, returns) in enumerate(rolled.results, start=1):
        who = f"{unit.name} point {point}" if plan.points > 1 else unit.name
        breakout_roll = next(roll_iter)
        mods = "".join(f" {m.render()}" for m in plan.modifiers)
        if returns is None:
            steps.append(
                Step(
                    rule="OCS 12.8e",
                    text=f"{who}: Breakout dr {breakout_roll.total}{mods} = {final}: fails, "
                    "to the Dead Pile",
                    dice=(breakout_roll,),
                    modifiers=plan.modifiers,
                )
            )
        else:
            return_roll = next(roll_iter)
            steps.append(
                Step(
                    rule="OCS 12.8e",
                    text=f"{who}: Breakout dr {breakout_roll.total}{mods} = {final}: succeeds; "
                    f"Return dr {returns} (unmodified): back as a Reinforcement on turn "
                    f"{plan.turn + returns}, keeping its step losses, losing its other markers",
                    dice=(breakout_roll, return_roll),
                    modifiers=plan.modifiers,
                )
            )
    if plan.points == 1:
        returns = rolled.results[0][1]
        if returns is None:
            new = unit.model_copy(update={"location": "dead pile"})
        else:
            new = _returning(unit, unit.name, unit.steps, plan.turn + returns)
        new_state = state.with_units(new)
    else:
        failed = sum(1 for _, r in rolled.results if r is None)
        groups = Counter(plan.turn + r for _, r in rolled.results if r is not None)
        units = [u for u in state.units if u.name != unit.name]
        if failed:
            units.append(unit.model_copy(update={"steps": failed, "location": "dead pile"}))
        for turn, count in sorted(groups.items()):
            name = state.unique_name(f"{unit.name} (returns turn {turn})", (u.name for u in units))
            units.append(_returning(unit, name, count, turn))
        new_state = state.model_copy(update={"units": tuple(units)})
    return OcsOutcome(state=new_state, steps=tuple(steps), rolls=rolled.rolls, facts=rolled.facts)


def transport_breakout_odds(plan: BreakoutPlan) -> dict[tuple[Fact, ...], Fraction]:
    """Exact odds of a Transport Point Breakout: points succeed independently (12.8e).

    >>> p = BreakoutPlan(unit=Unit(name="T", side="Axis", kind="transport"), first_turn=True,
    ...     declared=False, points=2, modifiers=(Modifier(label="first", value=1),), turn=1)
    >>> transport_breakout_odds(p)[(("Breakout", "2 of 2 points succeed"),)]
    Fraction(1, 4)
    """
    drm = sum(m.value for m in plan.modifiers)
    success = Fraction(sum(1 for face in range(1, 7) if breakout_succeeds(face + drm)), 6)
    distribution = {0: Fraction(1)}
    for _ in range(plan.points):
        step: dict[int, Fraction] = {}
        for won, p in distribution.items():
            step[won + 1] = step.get(won + 1, Fraction(0)) + p * success
            step[won] = step.get(won, Fraction(0)) + p * (1 - success)
        distribution = step
    return {
        (("Breakout", _points_succeed(won, plan.points)),): p
        for won, p in sorted(distribution.items())
    }


__all__ = [
    "BREAKOUT_SUCCESS",
    "FIRST_TURN_DRM",
    "MAX_DISTANCE",
    "BreakoutPlan",
    "BreakoutRoll",
    "apply_breakout",
    "breakout_succeeds",
    "plan_breakout",
    "roll_breakout",
    "transport_breakout_odds",
]
