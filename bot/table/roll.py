"""/roll: free dice expressions and their exact odds."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from bot.models import Actor, Reply
from bot.service.beacon import declare
from bot.service.change import Change, Live
from bot.service.core import Core
from bot.service.handlers import write
from bot.service.permissions import held_sides, require_player
from bot.service.replies import odds_lines
from bot.table import commands as gc
from rules_core.errors import InvalidInput
from rules_core.outcome import Step
from rules_core.roll import DiceExpression, parse_expression, pool_odds, roll_expression
from rules_core.roll_categories import category_named, default_dice

ROLL_ODDS_LIMIT = 50_000
"""A ``/roll`` preview lists at most this many dice sequences' worth of outcomes."""


def roll_total_odds(expression: DiceExpression) -> dict[tuple[tuple[str, str], ...], Fraction]:
    """The exact odds of each total of a ``/roll`` expression, ``{(("total", "7"),): 1/6}``.

    Counted by convolution (ways to make each sum, die by die) rather than by enumerating every
    dice sequence: the same fractions as :func:`rules_core.odds.exact_odds` over
    :func:`~rules_core.roll.roll_expression`, in a fraction of the time (``3d6``: 216 sequences,
    16 sums). An expression of more than ``ROLL_ODDS_LIMIT`` sequences is refused, as before.

    >>> odds = roll_total_odds(parse_expression("DR+1"))
    >>> odds[(("total", "8"),)], odds[(("total", "13"),)]
    (Fraction(1, 6), Fraction(1, 36))
    >>> roll_total_odds(parse_expression("7d6"))
    Traceback (most recent call last):
    ...
    rules_core.errors.InvalidInput: 7d6 has too many outcomes to list.
    """
    if expression.kind == "pool":  # keep, explode, reroll: every dice sequence, enumerated
        return pool_odds(expression, ROLL_ODDS_LIMIT)
    sides, count = expression.sides, expression.count
    if sides**count > ROLL_ODDS_LIMIT:
        raise InvalidInput(f"{expression.text()} has too many outcomes to list.")
    ways = [1]  # ways[k]: sequences whose faces sum to k + (dice so far)
    for _ in range(count):
        prefix = [0]
        for value in ways:
            prefix.append(prefix[-1] + value)
        size = len(ways) + sides - 1
        ways = [prefix[min(k + 1, len(ways))] - prefix[max(0, k - sides + 1)] for k in range(size)]
    total = sides**count
    low = count + expression.modifier
    return {(("total", str(low + k)),): Fraction(n, total) for k, n in enumerate(ways) if n}


def roll_odds(core: Core, command: gc.RollDice) -> Reply:
    """/roll preview:true: the exact odds of each total; nothing rolled."""
    category = category_named(command.category) if command.category.strip() else ""
    expression = parse_expression(command.dice or default_dice(category))
    rolls = expression.repeat * command.count
    expression = expression.single()
    odds = roll_total_odds(expression)
    lines = sorted(odds_lines(odds), key=lambda line: int(line.facts[0][1]))
    each = f", each of {rolls} rolls" if rolls > 1 else ""
    return Reply(
        command="/roll",
        title=f"Odds of {category + ' ' if category else ''}{expression.text()}"
        f" (nothing rolled{each})",
        odds=tuple(lines),
        scripted=core.scripted,
        ephemeral=True,
        preview=True,
    )


@write(gc.RollDice, preview=roll_odds)
def roll(core: Core, live: Live, actor: Actor, command: gc.RollDice) -> Change:
    """/roll: a logged roll of the game's dice (declared for its round in a beacon game)."""
    require_player(live.row, actor)
    held = held_sides(live.row, actor)
    category = category_named(command.category) if command.category.strip() else ""
    expression = parse_expression(command.dice or default_dice(category))
    if command.count > 1:
        if expression.repeat > 1:
            raise InvalidInput('Give the batch once: dice:DR count:3, or dice:"3 DR".')
        expression = expression.batch(command.count)
    if live.row.table.get("beacon"):
        declared: dict[str, Any] = {
            "declares": "roll",
            "expression": expression.text(),
            "reason": command.reason,
            "sides": held,
        }
        if category:
            declared["category"] = category
        return declare(core, live, declared)
    dice = core.dice(live.row)
    with core.script_rollback():
        result = roll_expression(expression, dice, reason=command.reason, category=category)
    notes: tuple[Step, ...] = ()
    if category:
        notes = tuple(
            n
            for roll in result.rolls
            for n in live.system.roll_notes(live.state, category, roll, held)
        )
    data: dict[str, Any] = {
        "expression": expression.text(),
        "reason": command.reason,
        "total": result.total,
        "text": result.render(),
        "rolls": [r.model_dump(mode="json") for r in result.rolls],
        "sides": held,
    }
    if category:
        data["category"] = category
    if expression.repeat > 1:
        data["totals"] = list(result.totals)
    if notes:
        data["notes"] = [n.model_dump(mode="json") for n in notes]
    return Change(
        kind="roll",
        data=data,
        dice=dice.records,
        shown=(notes, (), tuple(result.rolls)),
    )
