"""Free dice rolls for ``/roll``: ``DR``, ``dr`` and ``NdS±M``, resolved with injected dice.

A ``DR`` is two six-sided dice read colored first (ASL A1.; the Original DR is their sum), a ``dr``
is one six-sided die, and ``NdS±M`` is ``N`` dice of ``S`` sides plus a modifier ``M``.

>>> from rules_core.dice import ScriptedDice
>>> result = roll_expression(parse_expression("DR"), ScriptedDice([5, 6]), reason="IFT")
>>> result.total, result.render()
(11, 'DR 11 (5,6)')
>>> roll_expression(parse_expression("2d10+3"), ScriptedDice([1, 10])).render()
'2d10+3 = 14 (1+10 +3)'
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict

from rules_core.dice import Dice, Roll
from rules_core.errors import InvalidInput

MAX_DICE = 100
"""At most this many dice in one expression."""
MAX_SIDES = 1000
"""At most this many sides on one die."""
MAX_MODIFIER = 1000
"""The modifier stays within ±1000."""

_EXPRESSION = re.compile(r"^(?P<count>\d*)d(?P<sides>\d+)(?:(?P<sign>[+-])(?P<mod>\d+))?$")


class DiceExpression(BaseModel):
    """A parsed ``/roll`` expression: ``kind`` DR, dr or d, with count, sides and modifier.

    >>> parse_expression("3d6-1")
    DiceExpression(kind='d', count=3, sides=6, modifier=-1)
    """

    model_config = ConfigDict(frozen=True)

    kind: str
    count: int
    sides: int
    modifier: int = 0

    def text(self) -> str:
        """The expression as players write it: ``DR``, ``dr``, ``3d6-1``.

        >>> parse_expression(" 1D20 ").text()
        '1d20'
        """
        if self.kind in ("DR", "dr"):
            return self.kind if not self.modifier else f"{self.kind}{self.modifier:+d}"
        mod = f"{self.modifier:+d}" if self.modifier else ""
        return f"{self.count}d{self.sides}{mod}"


def parse_expression(text: str) -> DiceExpression:
    """Parse ``DR``, ``dr``, ``DR+2``, or ``NdS±M`` (``d6``, ``2d10+3``).

    :raises InvalidInput: for anything else, or dice counts, sizes and modifiers out of range.

    >>> parse_expression("dr")
    DiceExpression(kind='dr', count=1, sides=6, modifier=0)
    >>> parse_expression("DR-1").modifier
    -1
    >>> parse_expression("7d")
    Traceback (most recent call last):
    ...
    rules_core.errors.InvalidInput: Write dice as DR, dr or NdS±M (like 2d6+1), not '7d'.
    """
    raw = text.strip()
    for kind, count in (("DR", 2), ("dr", 1)):
        if raw == kind or (raw.startswith(kind) and raw[2:3] in ("+", "-")):
            rest = raw[2:]
            if rest and not re.fullmatch(r"[+-]\d+", rest):
                break
            modifier = int(rest) if rest else 0
            _check_modifier(modifier)
            return DiceExpression(kind=kind, count=count, sides=6, modifier=modifier)
    match = _EXPRESSION.match(raw.lower())
    if match is None:
        raise InvalidInput(f"Write dice as DR, dr or NdS±M (like 2d6+1), not {raw!r}.")
    count = int(match["count"]) if match["count"] else 1
    sides = int(match["sides"])
    modifier = int(match["mod"]) * (-1 if match["sign"] == "-" else 1) if match["mod"] else 0
    if not 1 <= count <= MAX_DICE:
        raise InvalidInput(f"Roll between 1 and {MAX_DICE} dice at a time, not {count}.")
    if not 2 <= sides <= MAX_SIDES:
        raise InvalidInput(f"A die has between 2 and {MAX_SIDES} sides, not {sides}.")
    _check_modifier(modifier)
    return DiceExpression(kind="d", count=count, sides=sides, modifier=modifier)


def _check_modifier(modifier: int) -> None:
    if abs(modifier) > MAX_MODIFIER:
        raise InvalidInput(f"Keep the modifier within ±{MAX_MODIFIER}, not {modifier}.")


class RollResult(BaseModel):
    """The result of a ``/roll``: the expression, the dice read, and the total with its modifier.

    >>> from rules_core.dice import ScriptedDice
    >>> roll_expression(parse_expression("dr+1"), ScriptedDice([4])).total
    5
    """

    model_config = ConfigDict(frozen=True)

    expression: DiceExpression
    reason: str = ""
    rolls: tuple[Roll, ...]

    @property
    def faces(self) -> tuple[int, ...]:
        """Every face read, in order (colored die first for a DR)."""
        return tuple(face for roll in self.rolls for face in roll.faces)

    @property
    def total(self) -> int:
        """The sum of the faces plus the modifier."""
        return sum(self.faces) + self.expression.modifier

    def render(self) -> str:
        """ASL style for DR/dr (``DR 11 (5,6)``), a sum otherwise (``2d10+3 = 14 (1+10 +3)``).

        >>> from rules_core.dice import ScriptedDice
        >>> roll_expression(parse_expression("DR+1"), ScriptedDice([2, 3])).render()
        'DR+1 6 (2,3)'
        """
        expr = self.expression
        if expr.kind == "DR":
            return f"{expr.text()} {self.total} ({self.faces[0]},{self.faces[1]})"
        if expr.kind == "dr":
            return f"{expr.text()} {self.total}"
        mod = f" {expr.modifier:+d}" if expr.modifier else ""
        return f"{expr.text()} = {self.total} ({'+'.join(map(str, self.faces))}{mod})"


def roll_expression(expression: DiceExpression, dice: Dice, *, reason: str = "") -> RollResult:
    """Roll the dice of ``expression`` with ``dice``; the labels carry the reason when given.

    >>> from rules_core.dice import ScriptedDice
    >>> dice = ScriptedDice([3, 4])
    >>> roll_expression(parse_expression("DR"), dice, reason="Morale Check").render()
    'DR 7 (3,4)'
    >>> [r.render() for r in dice.rolls]
    ['Morale Check DR 7 (3,4)']
    """
    label = f"{reason} {expression.kind}".strip() if reason else expression.kind
    if expression.kind == "DR":
        dice.DR(label)
    elif expression.kind == "dr":
        dice.dr(label)
    else:
        die_label = f"{reason} d{expression.sides}".strip() if reason else f"d{expression.sides}"
        for _ in range(expression.count):
            dice.d(expression.sides, die_label)
    read = tuple(dice.rolls[-_rolls_read(expression) :])
    return RollResult(expression=expression, reason=reason, rolls=read)


def _rolls_read(expression: DiceExpression) -> int:
    return 1 if expression.kind in ("DR", "dr") else expression.count


__all__ = [
    "MAX_DICE",
    "MAX_MODIFIER",
    "MAX_SIDES",
    "DiceExpression",
    "RollResult",
    "parse_expression",
    "roll_expression",
]
