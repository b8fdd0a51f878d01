"""The Attrition Table for stacks with Out of Supply units (OCS 12.8a-c, chart 12.8).

>>> attrition_result("3", 9)
2
>>> attrition_result("0", 2)
1
>>> attrition_result("5-4", 13)
'all'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from rules_core.dice import Dice, Roll
from rules_core.errors import IllegalAction, InvalidInput
from rules_core.ocs.actions import Attrition
from rules_core.ocs.state import OcsOutcome, OcsState, Unit
from rules_core.outcome import Fact, Modifier, Outcome, Step
from rules_core.words import counted

Column = Literal["5-4", "3", "2", "1", "0"]
Loss = int | Literal["all"]

ATTRITION_TABLE: dict[Column, tuple[tuple[int, Loss], ...]] = {
    # OCS chart 12.8 Attrition Table, read column by column: (lowest Final DR, steps lost)
    # per row, per OOS AR column. Rows: No Loss, -1 Step, -2 Steps, -4 Steps, -All Steps.
    # AR 0 has no No-Loss row.
    "5-4": ((2, 0), (9, 1), (11, 2), (12, 4), (13, "all")),
    "3": ((2, 0), (6, 1), (8, 2), (10, 4), (12, "all")),
    "2": ((2, 0), (4, 1), (6, 2), (8, 4), (10, "all")),
    "1": ((2, 0), (3, 1), (5, 2), (7, 4), (9, "all")),
    "0": ((2, 1), (4, 2), (6, 4), (8, "all")),
}
"""OCS 12.8 Attrition Table: Final DR → steps lost, by the best OOS Action Rating."""

MANY_OOS_STEPS = 5
MANY_OOS_STEPS_DRM = 3
"""OCS 12.8 Attrition Table DRM: +3 if 5 OOS steps or more in the hex."""


def attrition_column(action_rating: int) -> Column:
    """The column for an Action Rating: 4 and 5 share "5-4" (chart 12.8).

    >>> attrition_column(4), attrition_column(1)
    ('5-4', '1')
    """
    if action_rating >= 4:
        return "5-4"
    return ("0", "1", "2", "3")[action_rating]


def attrition_result(column: Column, final_dr: int) -> Loss:
    """Steps lost for a Final DR on a column of the Attrition Table (chart 12.8).

    >>> [attrition_result("1", dr) for dr in (2, 3, 7, 9)]
    [0, 1, 4, 'all']
    """
    loss: Loss = 0
    for lowest, result in ATTRITION_TABLE[column]:
        if final_dr >= lowest:
            loss = result
    return loss


def attrition_ar(unit: Unit) -> int:
    """The AR used for attrition: Strat Mode makes it 0, DG is ignored (OCS 12.8c, 9.6a).

    >>> attrition_ar(Unit(name="a", side="Axis", ar=5, mode="DG"))
    5
    """
    return 0 if unit.mode == "strat" else unit.ar


@dataclass(frozen=True)
class AttritionPlan:
    """A validated attrition check: the stack's OOS units, column and modifiers."""

    side: str
    oos: tuple[Unit, ...]
    loss_order: tuple[Unit, ...]
    oos_steps: int
    column: Column
    modifiers: tuple[Modifier, ...]
    joined: tuple[str, ...] = ()
    """Out of Supply units of the stack that were not named: they roll with it (chart 12.8)."""


@dataclass(frozen=True)
class AttritionRoll:
    """The Attrition DR read and what it means."""

    roll: Roll
    final: int
    result: Loss
    steps_lost: int
    facts: tuple[Fact, ...]


def attrition_stack(state: OcsState, action: Attrition) -> list[Unit]:
    """The whole stack the named units stand in: every unit of their side on the map in that hex.

    One roll per stack (chart 12.8): the bot knows every unit's hex, so naming one unit of a
    stack checks the stack. Units without a hex are a stack of the units named.

    :raises InvalidInput: the units named stand in different hexes.

    >>> s = OcsState(sides=("Axis",), units=(Unit(name="a", side="Axis", hex="A1"),
    ...              Unit(name="b", side="Axis", hex="A1"), Unit(name="c", side="Axis", hex="B1")))
    >>> [u.name for u in attrition_stack(s, Attrition(units=("a",)))]
    ['a', 'b']
    """
    units = state.side_units(action.units)
    hexes = {u.hex for u in units}
    if len(hexes) > 1:
        raise InvalidInput("A stack is the units of one hex; these are in different hexes.")
    (hex,) = hexes
    if hex is None:
        return units
    named = {u.name for u in units}
    side = units[0].side
    others = [
        u
        for u in state.units
        if u.hex == hex
        and u.side == side
        and u.name not in named
        and u.location == "map"
        and u.steps > 0
    ]
    return units + others


def plan_attrition(state: OcsState, action: Attrition) -> AttritionPlan:
    """Validate an attrition check before any die (OCS 12.8a-c).

    >>> s = OcsState(sides=("Axis",), units=(Unit(name="a", side="Axis", out_of_supply=True),))
    >>> plan_attrition(s, Attrition(units=("a",))).column
    '3'
    """
    units = attrition_stack(state, action)
    named = {u.name for u in units[: len(action.units)]}
    oos = tuple(u for u in units if u.out_of_supply and u.location == "map" and u.steps > 0)
    if not oos:
        raise IllegalAction(
            "No unit of this stack is marked Out of Supply; no Attrition check.", rule="OCS 12.8a"
        )
    order: list[Unit] = []
    for name in action.losses:
        unit = state.unit(name.strip())
        if unit not in oos:
            raise InvalidInput(f"{unit.name} is not an Out of Supply unit of this stack.")
        if unit not in order:
            order.append(unit)
    order.extend(u for u in oos if u not in order)
    oos_steps = sum(u.steps for u in oos)
    best = max(attrition_ar(u) for u in oos)
    modifiers: tuple[Modifier, ...] = ()
    if oos_steps >= MANY_OOS_STEPS:
        modifiers = (
            Modifier(label="5+ OOS steps in the hex", value=MANY_OOS_STEPS_DRM, rule="OCS 12.8"),
        )
    return AttritionPlan(
        side=units[0].side,
        oos=oos,
        loss_order=tuple(order),
        oos_steps=oos_steps,
        column=attrition_column(best),
        modifiers=modifiers,
        joined=tuple(u.name for u in oos if u.name not in named),
    )


def roll_attrition(plan: AttritionPlan, dice: Dice) -> AttritionRoll:
    """Roll the Attrition DR and read the table (chart 12.8); losses capped at the OOS steps.

    >>> from rules_core.dice import ScriptedDice
    >>> s = OcsState(sides=("Axis",), units=(Unit(name="a", side="Axis", out_of_supply=True),))
    >>> roll_attrition(plan_attrition(s, Attrition(units=("a",))), ScriptedDice([6, 6])).facts
    (('Attrition', '-1 step'),)
    """
    colored, white = dice.DR("Attrition DR")
    roll = Roll(label="Attrition DR", kind="DR", sides=6, faces=(colored, white))
    final = colored + white + sum(m.value for m in plan.modifiers)
    result = attrition_result(plan.column, final)
    lost = plan.oos_steps if result == "all" else min(result, plan.oos_steps)
    shown = "no loss" if lost == 0 else f"-{lost} step" + ("s" if lost > 1 else "")
    return AttritionRoll(
        roll=roll, final=final, result=result, steps_lost=lost, facts=(("Attrition", shown),)
    )


def _lose_steps(unit: Unit, lost: int) -> Unit:
    # 9.11d: a multi-step unit's RE follows its steps (never 0 RE while a step is left)
    return unit.with_steps(unit.steps - lost)


def apply_attrition(
    state: OcsState, plan: AttritionPlan, rolled: AttritionRoll
) -> Outcome[OcsState]:
    """The new state and explanation of an attrition check (OCS 12.8b, 9.11b).

    >>> from rules_core.dice import ScriptedDice
    >>> s = OcsState(sides=("Axis",), units=(Unit(name="a", side="Axis", out_of_supply=True),))
    >>> plan = plan_attrition(s, Attrition(units=("a",)))
    >>> apply_attrition(s, plan, roll_attrition(plan, ScriptedDice([6, 6]))).state.units[0].location
    'dead pile'
    """
    names = ", ".join(u.name for u in plan.oos)
    mods = "".join(f" {m.render()}" for m in plan.modifiers)
    result_text = "all steps" if rolled.result == "all" else counted(rolled.result, "step")
    steps: list[Step] = []
    if plan.joined:
        steps.append(
            Step(
                rule="OCS 12.8",
                text=f"one roll per stack: {', '.join(plan.joined)} "
                + ("is" if len(plan.joined) == 1 else "are")
                + f" Out of Supply in the same hex ({plan.oos[0].hex}) and "
                + ("rolls" if len(plan.joined) == 1 else "roll")
                + " with it; every OOS step in the hex counts",
            )
        )
    steps += [
        Step(
            rule="OCS 12.8b",
            text=f"Out of Supply: {names} ({counted(plan.oos_steps, 'step')}); "
            f"column {plan.column} (best OOS Action Rating, DG ignored, Strat Mode AR 0 — 12.8c)",
        ),
        Step(
            rule="OCS 12.8",
            text=f"Attrition DR {rolled.roll.total}{mods} = {rolled.final}: "
            + ("no loss" if rolled.result == 0 else f"-{result_text}"),
            dice=(rolled.roll,),
            modifiers=plan.modifiers,
        ),
    ]
    if rolled.result != "all" and rolled.result > plan.oos_steps:
        steps.append(
            Step(
                rule="OCS 12.8b",
                text=f"only {counted(plan.oos_steps, 'OOS step')}: the rest of the loss is ignored",
            )
        )
    left = rolled.steps_lost
    changed: list[Unit] = []
    for unit in plan.loss_order:
        if left == 0:
            break
        lost = min(left, unit.steps)
        left -= lost
        new = _lose_steps(unit, lost)
        changed.append(new)
        steps.append(
            Step(
                rule="OCS 12.8b",
                text=f"{unit.name} loses {counted(lost, 'step')}"
                + (": eliminated, to the Dead Pile" if new.steps == 0 else ""),
            )
        )
    return OcsOutcome(
        state=state.with_units(*changed),
        steps=tuple(steps),
        rolls=(rolled.roll,),
        facts=rolled.facts,
    )


__all__ = [
    "ATTRITION_TABLE",
    "MANY_OOS_STEPS",
    "MANY_OOS_STEPS_DRM",
    "AttritionPlan",
    "AttritionRoll",
    "Column",
    "Loss",
    "apply_attrition",
    "attrition_ar",
    "attrition_column",
    "attrition_result",
    "attrition_stack",
    "plan_attrition",
    "roll_attrition",
]
