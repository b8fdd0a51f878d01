"""Dice pools as players type them elsewhere — ``4d6k3``, ``1d6!``, ``2d6 + 1d6`` — read by avrae's
``d20`` grammar and rolled with injected dice.

``d20`` parses the expression and evaluates it; :class:`CommittedRoller` (a ``d20.Roller``) makes
every die it rolls a die of our :class:`~rules_core.dice.Dice` — ``Die._add_roll`` is the one
place a ``d20`` die gets its value, and ours asks ``dice.d(sides, label)`` there — so each die,
a reroll's and an explosion's too, is committed, numbered and verifiable like any other.

What players type is read as on the usual dice bots: ``k3`` keeps the 3 highest (``kh3``),
``kl3`` the 3 lowest, ``p1``/``pl1`` drops the lowest, ``ph1`` the highest; ``!`` after the dice
explodes on their highest face (``1d6!`` is ``1d6e6``: a 6 is rolled again and added), ``e5``
on a 5, ``ra6`` once; ``rr1`` rerolls 1s until none is left, ``ro1`` once; ``mi2``/``ma5`` set a
minimum/maximum; ``+``, ``-``, ``*`` and parentheses join pools and numbers.

>>> from rules_core.dice import ScriptedDice
>>> roll_pool(read_pool("4d6k3"), ScriptedDice([5, 1, 6, 3]))
PoolRoll(total=14, text='4d6k3 = 14: 4d6kh3 (5, ~~1~~, 6, 3)', dice=4)
>>> roll_pool(read_pool("1d6!"), ScriptedDice([6, 6, 2])).text
'1d6! = 14: 1d6e6 (6!, 6!, 2)'
>>> roll_pool(read_pool("2d6 + 1d6 + 2"), ScriptedDice([3, 4, 6])).total
15
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import d20
from d20 import diceast

from rules_core.dice import Dice
from rules_core.errors import InvalidInput

MAX_POOL_DICE = 100
"""At most this many dice in an expression as written, and rolled in all (rerolls, explosions)."""
MAX_POOL_SIDES = 1000
MAX_NUMBER = 1000
MAX_LENGTH = 100
GRAMMAR = (
    "Write dice as DR, dr or NdS±M (2d6+1), or a pool: 4d6k3 keeps the 3 highest (kl3 the "
    "lowest, p1 drops the lowest), 1d6! explodes on a 6, 3d6rr1 rerolls 1s, 2d6 + 1d6 adds pools"
)

_KEEP = re.compile(r"k(?=\d)")
_EXPLODE = re.compile(r"(\d*)d(\d+)!")
_PERCENT = re.compile(r"d%")
_SIMPLE_OPS = ("+", "-", "*")


@dataclass(frozen=True)
class Pool:
    """A pool expression: as typed (``4d6k3``), as ``d20`` reads it (``4d6kh3``), its dice."""

    typed: str
    source: str
    count: int
    """Dice as written (before rerolls and explosions)."""
    sides: int
    """The largest die."""


@dataclass(frozen=True)
class PoolRoll:
    """One pool rolled: its total, its text, and how many dice it read."""

    total: int
    text: str
    dice: int


def read_pool(text: str) -> Pool:
    """``text`` as a pool, checked: only dice, whole numbers, ``+ - *`` and parentheses, within
    the limits; the refusal says the grammar.

    >>> read_pool("4d6k3")
    Pool(typed='4d6k3', source='4d6kh3', count=4, sides=6)
    >>> read_pool("2d6 >= 7")
    Traceback (most recent call last):
    ...
    rules_core.errors.InvalidInput: Write dice as DR, dr or NdS±M (2d6+1), or a pool: 4d6k3 keeps \
the 3 highest (kl3 the lowest, p1 drops the lowest), 1d6! explodes on a 6, 3d6rr1 rerolls 1s, \
2d6 + 1d6 adds pools — not '2d6 >= 7' (>= compares).
    """
    typed = " ".join(text.split())
    if len(typed) > MAX_LENGTH:
        raise InvalidInput(f"A roll is at most {MAX_LENGTH} characters, not {len(typed)}.")
    source = _PERCENT.sub("d100", _EXPLODE.sub(r"\1d\2e\2", _KEEP.sub("kh", typed.lower())))
    try:
        tree = d20.Roller().parse(source)
    except d20.RollError:
        raise InvalidInput(f"{GRAMMAR} — not {typed!r}.") from None
    count, sides = _check(tree.roll, typed)
    if count == 0:
        raise InvalidInput(f"{GRAMMAR} — not {typed!r} (it rolls no dice).")
    return Pool(typed=typed, source=source, count=count, sides=sides)


def _check(node: Any, typed: str) -> tuple[int, int]:
    """Dice written and the largest die under ``node``; refuses what a roll may not hold."""

    def refuse(why: str) -> InvalidInput:
        return InvalidInput(f"{GRAMMAR} — not {typed!r} ({why}).")

    if isinstance(node, diceast.Dice):
        if node.size == "%" or not 2 <= int(node.size) <= MAX_POOL_SIDES:
            raise refuse(f"a die has 2 to {MAX_POOL_SIDES} sides")
        if not 1 <= node.num <= MAX_POOL_DICE:
            raise refuse(f"roll 1 to {MAX_POOL_DICE} dice at a time")
        return node.num, int(node.size)
    if isinstance(node, diceast.Literal):
        if not isinstance(node.value, int) or abs(node.value) > MAX_NUMBER:
            raise refuse(f"numbers are whole, within ±{MAX_NUMBER}")
        return 0, 0
    if isinstance(node, diceast.BinOp) and node.op not in _SIMPLE_OPS:
        kind = "compares" if node.op in ("==", ">=", "<=", "!=", "<", ">") else "divides"
        raise refuse(f"{node.op} {kind}")
    if isinstance(node, diceast.AnnotatedNumber):
        raise refuse("no [notes] in a roll: give them as its reason")
    parts = [_check(child, typed) for child in node.children]
    count = sum(found for found, _ in parts)
    if count > MAX_POOL_DICE:
        raise refuse(f"roll at most {MAX_POOL_DICE} dice at a time")
    return count, max((size for _, size in parts), default=0)


class _Source:
    """Where a ``d20`` die gets its value: our dice, each die labelled and counted."""

    def __init__(self, dice: Dice, prefix: str) -> None:
        self.dice = dice
        self.prefix = prefix
        self.read = 0
        self.dice_made = 0

    def made(self) -> int:
        """A number for each die made, in order."""
        self.dice_made += 1
        return self.dice_made

    def draw(self, sides: int) -> int:
        self.read += 1
        return self.dice.d(sides, f"{self.prefix}d{sides}")


class CommittedDie(d20.Die):  # type: ignore[misc]
    """A ``d20`` die whose every value (first roll, reroll) is drawn from our dice.

    ``d20`` picks the dice to reroll or explode as a set; a die hashes by the order it was
    made in, so that set is walked in the same order at every replay (by object ids it was
    not), and the same faces land on the same dice when a verifier rolls it again.
    """

    __slots__ = ("made", "source")

    def __init__(self, size: int, values: list[Any], context: Any = None, source: Any = None):
        self.source = source
        self.made = source.made() if source is not None else 0
        super().__init__(size, values, context=context)

    def __hash__(self) -> int:
        return hash(self.made)

    def __eq__(self, other: object) -> bool:
        return self is other

    @classmethod
    def new(cls, size: int, context: Any = None, source: Any = None) -> CommittedDie:
        die = cls(size, [], context=context, source=source)
        die._add_roll()
        return die

    def _add_roll(self) -> None:
        if self._context:
            self._context.count_roll()
        self.values.append(d20.Literal(self.source.draw(int(self.size))))


class CommittedDice(d20.Dice):  # type: ignore[misc]
    """A ``d20`` pool of :class:`CommittedDie` (an explosion adds one more)."""

    __slots__ = ("source",)

    def __init__(self, num: int, size: int, values: list[Any], source: Any = None, **kw: Any):
        self.source = source
        super().__init__(num, size, values, **kw)

    def roll_another(self) -> None:
        self.values.append(CommittedDie.new(self.size, context=self._context, source=self.source))

    def __copy__(self) -> CommittedDice:
        return CommittedDice(
            self.num, self.size, self.values.copy(), source=self.source,
            operations=self.operations.copy(), context=self._context,
        )  # fmt: skip


class CommittedRoller(d20.Roller):  # type: ignore[misc]
    """``d20.Roller`` whose dice come from our dice, in the order ``d20`` rolls them."""

    def __init__(self, source: _Source) -> None:
        super().__init__(d20.RollContext(max_rolls=MAX_POOL_DICE))
        self.source = source

    def _eval_dice(self, node: Any) -> CommittedDice:
        size = int(node.size)
        dice = [
            CommittedDie.new(size, context=self.context, source=self.source)
            for _ in range(node.num)
        ]
        return CommittedDice(node.num, size, dice, source=self.source, context=self.context)


class PlainStringifier(d20.SimpleStringifier):  # type: ignore[misc]
    """``2d6 (6, 5) + 1d6 (4)``: every die, a dropped one struck through (``~~1~~``), an
    exploded one marked ``!``; no total (the text gives it first)."""

    def __init__(self) -> None:
        super().__init__()
        self.in_dropped = False
        self._nodes[CommittedDice] = self._str_dice
        self._nodes[CommittedDie] = self._str_die

    def _stringify(self, node: Any) -> str:
        if not node.kept and not self.in_dropped:
            self.in_dropped = True
            try:
                return f"~~{super()._stringify(node)}~~"
            finally:
                self.in_dropped = False
        text: str = super()._stringify(node)
        return text

    def _str_expression(self, node: Any) -> str:
        text: str = self._stringify(node.roll)
        return text


def roll_pool(pool: Pool, dice: Dice, prefix: str = "") -> PoolRoll:
    """Roll ``pool`` with ``dice``; each die labelled ``prefix`` and its size (``Sniper d6``).

    :raises InvalidInput: when rerolls or explosions would need more than ``MAX_POOL_DICE``.
    """
    source = _Source(dice, prefix)
    try:
        result = CommittedRoller(source).roll(pool.source, stringifier=PlainStringifier())
    except d20.TooManyRolls:
        raise InvalidInput(
            f"{pool.typed} would roll more than {MAX_POOL_DICE} dice (rerolls and explosions "
            "count); roll fewer."
        ) from None
    return PoolRoll(total=result.total, text=f"{pool.typed} = {result.total}: {result.result}",
                    dice=source.read)  # fmt: skip


__all__ = ["GRAMMAR", "MAX_POOL_DICE", "Pool", "PoolRoll", "read_pool", "roll_pool"]
