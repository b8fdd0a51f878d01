"""Random Selection (ASL A.9): one dr per candidate, the highest dr selected, all ties affected.

A.9 (reading 4). With one candidate no die is rolled.

>>> from rules_core.dice import ScriptedDice
>>> sorted(random_selection(("X", "Y", "Z"), ScriptedDice([4, 6, 6])))
['Y', 'Z']
>>> random_selection(("HMG",), ScriptedDice([]))
frozenset({'HMG'})
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from itertools import combinations

from rules_core.dice import Dice


def random_selection(candidates: Sequence[str], dice: Dice) -> frozenset[str]:
    """The candidates selected by A.9 Random Selection, rolling in stack order.

    Each dr is labelled ``Random Selection dr (<candidate>)``.

    >>> from rules_core.dice import ScriptedDice
    >>> sorted(random_selection(("A", "B", "C"), ScriptedDice([2, 2, 2])))
    ['A', 'B', 'C']
    """
    if len(candidates) <= 1:
        return frozenset(candidates)
    rolls = [(name, dice.dr(f"Random Selection dr ({name})")) for name in candidates]
    highest = max(dr for _, dr in rolls)
    return frozenset(name for name, dr in rolls if dr == highest)


def selection_odds(candidates: Sequence[str]) -> dict[frozenset[str], Fraction]:
    """Exact probability of each selected set under A.9 (for fast exact odds).

    A set S is selected when its members all roll some m and every other candidate rolls < m.

    >>> selection_odds(("A", "B"))[frozenset({"A", "B"})]
    Fraction(1, 6)
    >>> sum(selection_odds(("A", "B", "C")).values())
    Fraction(1, 1)
    """
    if len(candidates) <= 1:
        return {frozenset(candidates): Fraction(1)}
    n = len(candidates)
    odds: dict[frozenset[str], Fraction] = {}
    for size in range(1, n + 1):
        p = sum(
            (Fraction(1, 6) ** size * Fraction(m - 1, 6) ** (n - size) for m in range(1, 7)),
            Fraction(0),
        )
        for chosen in combinations(candidates, size):
            odds[frozenset(chosen)] = p
    return odds


__all__ = ["random_selection", "selection_odds"]
