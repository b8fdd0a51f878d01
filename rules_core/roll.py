"""Free dice rolls for ``/roll``: ``DR``, ``dr`` and ``NdS±M``, resolved with injected dice.

A ``DR`` is two six-sided dice read colored first (ASL A1.; the Original DR is their sum), a ``dr``
is one six-sided die, and ``NdS±M`` is ``N`` dice of ``S`` sides plus a modifier ``M``. A batch
repeats an expression: ``3 DR`` is three DRs, each read and reported on its own.

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
MAX_REPEAT = 20
"""At most this many rolls in one batch."""

_EXPRESSION = re.compile(r"^(?P<count>\d*)d(?P<sides>\d+)(?:(?P<sign>[+-])(?P<mod>\d+))?$")


class DiceExpression(BaseModel):
    """A parsed ``/roll`` expression: ``kind`` DR, dr or d, with count, sides and modifier.

    >>> parse_expression("3d6-1")
    DiceExpression(kind='d', count=3, sides=6, modifier=-1, repeat=1)
    """

    model_config = ConfigDict(frozen=True)

    kind: str
    count: int
    sides: int
    modifier: int = 0
    repeat: int = 1
    """How many times the expression is rolled, each roll on its own (a batch: ``3 DR``)."""

    def text(self) -> str:
        """The expression as players write it: ``DR``, ``dr``, ``3d6-1``, ``3 DR``.

        >>> parse_expression(" 1D20 ").text()
        '1d20'
        >>> parse_expression("3 DR").text()
        '3 DR'
        """
        if self.repeat > 1:
            return f"{self.repeat} {self.single().text()}"
        if self.kind in ("DR", "dr"):
            return self.kind if not self.modifier else f"{self.kind}{self.modifier:+d}"
        mod = f"{self.modifier:+d}" if self.modifier else ""
        return f"{self.count}d{self.sides}{mod}"

    def single(self) -> DiceExpression:
        """One roll of a batch."""
        return self.model_copy(update={"repeat": 1})

    def batch(self, repeat: int) -> DiceExpression:
        """This expression rolled ``repeat`` times.

        :raises InvalidInput: beyond ``MAX_REPEAT`` rolls or ``MAX_DICE`` dice in all.

        >>> parse_expression("dr").batch(3).text()
        '3 dr'
        """
        if not 1 <= repeat <= MAX_REPEAT:
            raise InvalidInput(f"Roll between 1 and {MAX_REPEAT} at once, not {repeat}.")
        if repeat * self.count > MAX_DICE:
            raise InvalidInput(
                f"Roll at most {MAX_DICE} dice at a time, not {repeat * self.count}."
            )
        return self.model_copy(update={"repeat": repeat})


_BATCH = re.compile(
    r"^(?P<repeat>\d+)\s*[x×]?\s+(?P<rest>\S.*)$|^(?P<repeat2>\d+)\s*[x×]\s*(?P<rest2>\S.*)$"
)


def parse_expression(text: str) -> DiceExpression:
    """Parse ``DR``, ``dr``, ``DR+2``, or ``NdS±M`` (``d6``, ``2d10+3``), optionally as a batch:
    a count, a space (or ``x``/``×``), then the expression (``3 DR``, ``2x dr``).

    >>> parse_expression("3 DR")
    DiceExpression(kind='DR', count=2, sides=6, modifier=0, repeat=3)
    >>> parse_expression("2×d10").text()
    '2 1d10'

    :raises InvalidInput: for anything else, or dice counts, sizes and modifiers out of range.

    >>> parse_expression("dr")
    DiceExpression(kind='dr', count=1, sides=6, modifier=0, repeat=1)
    >>> parse_expression("DR-1").modifier
    -1
    >>> parse_expression("7d")
    Traceback (most recent call last):
    ...
    rules_core.errors.InvalidInput: Write dice as DR, dr or NdS±M (like 2d6+1), not '7d'.
    """
    raw = text.strip()
    batch = _BATCH.match(raw)
    if batch is not None:
        repeat = int(batch["repeat"] or batch["repeat2"])
        return parse_expression(batch["rest"] or batch["rest2"]).batch(repeat)
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
    def singles(self) -> tuple[RollResult, ...]:
        """Each roll of a batch as a result of its own (the result itself when not a batch)."""
        expr = self.expression
        if expr.repeat == 1:
            return (self,)
        per = len(self.rolls) // expr.repeat
        one = expr.single()
        return tuple(
            RollResult(
                expression=one, reason=self.reason, rolls=self.rolls[i * per : (i + 1) * per]
            )
            for i in range(expr.repeat)
        )

    @property
    def totals(self) -> tuple[int, ...]:
        """The total of each roll of a batch.

        >>> from rules_core.dice import ScriptedDice
        >>> roll_expression(parse_expression("3 DR"), ScriptedDice([1, 2, 3, 4, 5, 6])).totals
        (3, 7, 11)
        """
        return tuple(sum(r.faces) + self.expression.modifier for r in self.singles)

    @property
    def total(self) -> int:
        """The sum of the faces plus the modifier (of every roll of a batch)."""
        return sum(self.totals)

    def render(self) -> str:
        """ASL style for DR/dr (``DR 11 (5,6)``), a sum otherwise (``2d10+3 = 14 (1+10 +3)``).

        >>> from rules_core.dice import ScriptedDice
        >>> roll_expression(parse_expression("DR+1"), ScriptedDice([2, 3])).render()
        'DR+1 6 (2,3)'
        """
        expr = self.expression
        if expr.repeat > 1:
            return "; ".join(single.render() for single in self.singles)
        if expr.kind == "DR":
            return f"{expr.text()} {self.total} ({self.faces[0]},{self.faces[1]})"
        if expr.kind == "dr":
            return f"{expr.text()} {self.total}"
        mod = f" {expr.modifier:+d}" if expr.modifier else ""
        return f"{expr.text()} = {self.total} ({'+'.join(map(str, self.faces))}{mod})"


def roll_expression(
    expression: DiceExpression, dice: Dice, *, reason: str = "", category: str = ""
) -> RollResult:
    """Roll the dice of ``expression`` with ``dice``; the labels carry the category (``IFT
    DR``), else the reason, when given.

    >>> from rules_core.dice import ScriptedDice
    >>> dice = ScriptedDice([3, 4])
    >>> roll_expression(parse_expression("DR"), dice, reason="Morale Check").render()
    'DR 7 (3,4)'
    >>> [r.render() for r in dice.rolls]
    ['Morale Check DR 7 (3,4)']
    """
    name = category.strip() or reason.strip()
    label = f"{name} {expression.kind}" if name else expression.kind
    die_label = f"{name} d{expression.sides}" if name else f"d{expression.sides}"
    for _ in range(expression.repeat):
        if expression.kind == "DR":
            dice.DR(label)
        elif expression.kind == "dr":
            dice.dr(label)
        else:
            for _ in range(expression.count):
                dice.d(expression.sides, die_label)
    read = tuple(dice.rolls[-_rolls_read(expression) :])
    return RollResult(expression=expression, reason=reason, rolls=read)


def _rolls_read(expression: DiceExpression) -> int:
    return expression.repeat * (1 if expression.kind in ("DR", "dr") else expression.count)


__all__ = [
    "MAX_DICE",
    "MAX_MODIFIER",
    "MAX_REPEAT",
    "MAX_SIDES",
    "DiceExpression",
    "RollResult",
    "parse_expression",
    "roll_expression",
]
