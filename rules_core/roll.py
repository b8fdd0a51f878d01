"""Free dice rolls for ``/roll``: ``DR``, ``dr``, ``NdS±M`` and pools, resolved with injected dice.

A ``DR`` is two six-sided dice read colored first (ASL A1.; the Original DR is their sum), a ``dr``
is one six-sided die, and ``NdS±M`` is ``N`` dice of ``S`` sides plus a modifier ``M``. Anything
else players type on other dice bots — ``4d6k3``, ``1d6!``, ``2d6 + 1d6`` — is a pool, read and
rolled by avrae's ``d20`` with our dice (:mod:`rules_core.pools`): every die, an explosion's too,
is one of the game's numbered, verifiable dice. A batch repeats an expression: ``3 DR`` is three
DRs, each read and reported on its own.

>>> from rules_core.dice import ScriptedDice
>>> result = roll_expression(parse_expression("DR"), ScriptedDice([5, 6]), reason="IFT")
>>> result.total, result.render()
(11, 'DR 11 (5,6)')
>>> roll_expression(parse_expression("2d10+3"), ScriptedDice([1, 10])).render()
'2d10+3 = 14 (1+10 +3)'
>>> roll_expression(parse_expression("4d6k3"), ScriptedDice([2, 6, 5, 1])).render()
'4d6k3 = 13: 4d6kh3 (2, 6, 5, ~~1~~)'
"""

from __future__ import annotations

import re
from fractions import Fraction

from pydantic import BaseModel, ConfigDict

from rules_core.dice import Dice, Roll
from rules_core.errors import InvalidInput
from rules_core.odds import OddsTooLarge, exact_odds

MAX_DICE = 100
"""At most this many dice in one expression."""
MAX_SIDES = 1000
"""At most this many sides on one die."""
MAX_MODIFIER = 1000
"""The modifier stays within ±1000."""
MAX_REPEAT = 20
"""At most this many rolls in one batch."""
REASON_IN_LABELS = 24
"""A reason at most this long names the dice (``Sniper check DR``); a longer one is said once, in
the roll's title, not copied into every die's label."""

_EXPRESSION = re.compile(r"^(?P<count>\d*)d(?P<sides>\d+)(?:(?P<sign>[+-])(?P<mod>\d+))?$")


class DiceExpression(BaseModel):
    """A parsed ``/roll`` expression: ``kind`` DR, dr or d, with count, sides and modifier, or a
    ``pool`` as typed (``typed``; ``count`` its dice as written, ``sides`` the largest die).

    >>> parse_expression("3d6-1")
    DiceExpression(kind='d', count=3, sides=6, modifier=-1, repeat=1, typed='')
    """

    model_config = ConfigDict(frozen=True)

    kind: str
    count: int
    sides: int
    modifier: int = 0
    repeat: int = 1
    """How many times the expression is rolled, each roll on its own (a batch: ``3 DR``)."""
    typed: str = ""
    """A pool as typed (``4d6k3``)."""

    def text(self) -> str:
        """The expression as players write it: ``DR``, ``dr``, ``3d6-1``, ``3 DR``.

        >>> parse_expression(" 1D20 ").text()
        '1d20'
        >>> parse_expression("3 DR").text()
        '3 DR'
        """
        if self.repeat > 1:
            return f"{self.repeat} {self.single().text()}"
        if self.kind == "pool":
            return self.typed
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
    r"^(?P<repeat>\d+)\s*[x×]?\s+(?P<rest>[\w(].*)$|^(?P<repeat2>\d+)\s*[x×]\s*(?P<rest2>[\w(].*)$"
)


def parse_expression(text: str) -> DiceExpression:
    """Parse ``DR``, ``dr``, ``DR+2``, or ``NdS±M`` (``d6``, ``2d10+3``), optionally as a batch:
    a count, a space (or ``x``/``×``), then the expression (``3 DR``, ``2x dr``).

    >>> parse_expression("3 DR")
    DiceExpression(kind='DR', count=2, sides=6, modifier=0, repeat=3, typed='')
    >>> parse_expression("2×d10").text()
    '2 1d10'

    :raises InvalidInput: for anything else, or dice counts, sizes and modifiers out of range.

    >>> parse_expression("dr")
    DiceExpression(kind='dr', count=1, sides=6, modifier=0, repeat=1, typed='')
    >>> parse_expression("DR-1").modifier
    -1
    >>> parse_expression("2d6 + 1d6").text()
    '2d6 + 1d6'
    >>> parse_expression("7d")
    Traceback (most recent call last):
    ...
    rules_core.errors.InvalidInput: Write dice as DR, dr or NdS±M (2d6+1), or a pool: 4d6k3 keeps \
the 3 highest (kl3 the lowest, p1 drops the lowest), 1d6! explodes on a 6, 3d6rr1 rerolls 1s, \
2d6 + 1d6 adds pools — not '7d'.
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
        from rules_core.pools import read_pool  # d20 builds its grammar when first imported

        pool = read_pool(raw)
        return DiceExpression(kind="pool", count=pool.count, sides=pool.sides, typed=pool.typed)
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
    pools: tuple[tuple[int, str, int], ...] = ()
    """A pool's rolls: each one's total, text and how many dice it read."""

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
        one = expr.single()
        if expr.kind == "pool":
            found, start = [], 0
            for pool in self.pools:
                rolls = self.rolls[start : start + pool[2]]
                found.append(RollResult(expression=one, reason=self.reason, rolls=rolls,
                                        pools=(pool,)))  # fmt: skip
                start += pool[2]
            return tuple(found)
        per = len(self.rolls) // expr.repeat
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
        if self.expression.kind == "pool":
            return tuple(total for total, _, _ in self.pools)
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
        if expr.kind == "pool":
            return self.pools[0][1]
        if expr.kind == "DR":
            return f"{expr.text()} {self.total} ({self.faces[0]},{self.faces[1]})"
        if expr.kind == "dr":
            return f"{expr.text()} {self.total}"
        mod = f" {expr.modifier:+d}" if expr.modifier else ""
        return f"{expr.text()} = {self.total} ({'+'.join(map(str, self.faces))}{mod})"


def roll_expression(
    expression: DiceExpression,
    dice: Dice,
    *,
    reason: str = "",
    category: str = "",
    reason_chars: int = REASON_IN_LABELS,
) -> RollResult:
    """Roll the dice of ``expression`` with ``dice``; the labels carry the category (``IFT
    DR``), else the reason when it is at most ``reason_chars`` long (a verifier passes a
    larger one for a log written when every reason named the dice).

    >>> from rules_core.dice import ScriptedDice
    >>> dice = ScriptedDice([3, 4, 1, 2])
    >>> roll_expression(parse_expression("DR"), dice, reason="Morale Check").render()
    'DR 7 (3,4)'
    >>> long = "the squad in the woods after the Sniper's attack"
    >>> roll_expression(parse_expression("2d6"), dice, reason=long).rolls[0].label
    'd6'
    >>> [r.render() for r in dice.rolls][0]
    'Morale Check DR 7 (3,4)'
    """
    said = reason.strip()
    name = category.strip() or (said if len(said) <= reason_chars else "")
    label = f"{name} {expression.kind}" if name else expression.kind
    die_label = f"{name} d{expression.sides}" if name else f"d{expression.sides}"
    if expression.kind == "pool":
        from rules_core.pools import read_pool, roll_pool

        pool = read_pool(expression.typed)
        prefix = f"{name} " if name else ""
        rolled = [roll_pool(pool, dice, prefix) for _ in range(expression.repeat)]
        read = tuple(dice.rolls[len(dice.rolls) - sum(r.dice for r in rolled) :])
        pools = tuple((r.total, r.text, r.dice) for r in rolled)
        return RollResult(expression=expression, reason=reason, rolls=read, pools=pools)
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


def pool_odds(
    expression: DiceExpression, limit: int
) -> dict[tuple[tuple[str, str], ...], Fraction]:
    """The exact odds of each total of one roll of a pool, every dice sequence enumerated
    (an explosion or a reroll reads more dice); more than ``limit`` sequences is refused.

    >>> odds = pool_odds(parse_expression("2d6k1"), 1000)
    >>> odds[(("total", "6"),)], odds[(("total", "1"),)]
    (Fraction(11, 36), Fraction(1, 36))
    >>> pool_odds(parse_expression("1d6!"), 1000)
    Traceback (most recent call last):
    ...
    rules_core.errors.InvalidInput: 1d6! has too many outcomes to list.
    """
    single = expression.single()

    def total(dice: Dice) -> tuple[tuple[str, str], ...]:
        return (("total", str(roll_expression(single, dice).total)),)

    try:
        found = exact_odds(total, limit=limit)
    except (OddsTooLarge, InvalidInput):
        raise InvalidInput(f"{single.text()} has too many outcomes to list.") from None
    return dict(found)


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
    "pool_odds",
    "roll_expression",
]
