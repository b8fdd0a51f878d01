"""Exact odds by enumeration: every dice sequence an action can consume, never sampling.

An *experiment* is any function of the dice — typically ``lambda dice: resolve(state, action,
dice).facts``. :func:`branches` runs it once per possible sequence of faces, including dice that
are only rolled after an earlier result (a Random Selection after a breakdown, the return-turn
dr after a successful breakout). It explores the tree depth-first like an odometer: each run
replays a prefix of faces and then takes face 1 for every new die; the next prefix increments the
deepest die that has faces left. A branch's probability is the product of ``1/sides`` over the
dice it read, so the probabilities of all branches sum to exactly 1.

>>> from fractions import Fraction
>>> odds = exact_odds(lambda dice: sum(dice.DR("DR")) >= 10)
>>> odds[True]
Fraction(1, 6)
>>> sum(odds.values())
Fraction(1, 1)

A roll that only happens after an earlier result:

>>> def repair(dice):
...     first = dice.dr("dr")
...     return "again" if first == 6 and dice.dr("dr") == 6 else "done"
>>> exact_odds(repair)["again"]
Fraction(1, 36)
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Generic, TypeVar

from rules_core.dice import Dice, RecordingDice
from rules_core.outcome import Fact

K = TypeVar("K", bound=Hashable)
R = TypeVar("R")

DEFAULT_BRANCH_LIMIT = 200_000


class OddsTooLarge(Exception):
    """The experiment has more dice sequences than the limit allows."""


@dataclass(frozen=True)
class Branch(Generic[R]):
    """One complete dice sequence: the faces read, their die sizes, its probability, its result."""

    faces: tuple[int, ...]
    sides: tuple[int, ...]
    probability: Fraction
    result: R


class _PathDice(RecordingDice):
    """Replays a prefix of faces, then answers 1 to every new die and remembers its size."""

    def __init__(self, prefix: tuple[int, ...]) -> None:
        super().__init__()
        self._prefix = prefix
        self.faces: list[int] = []
        self.sides: list[int] = []

    def _face(self, sides: int, label: str) -> int:
        position = len(self.faces)
        face = self._prefix[position] if position < len(self._prefix) else 1
        if face > sides:  # pragma: no cover - only if an experiment is not deterministic
            raise RuntimeError(
                f"experiment is not deterministic: die {position} ({label!r}) changed size"
            )
        self.faces.append(face)
        self.sides.append(sides)
        return face


def branches(
    experiment: Callable[[Dice], R], *, limit: int = DEFAULT_BRANCH_LIMIT
) -> Iterator[Branch[R]]:
    """Yield every dice sequence the experiment can read, with its exact probability.

    The experiment must be deterministic given the faces (rules functions are).

    :raises OddsTooLarge: after ``limit`` branches.

    >>> [b.faces for b in branches(lambda dice: dice.dr("dr") > 4)][:3]
    [(1,), (2,), (3,)]
    >>> sum(b.probability for b in branches(lambda dice: dice.d(100, "d100")))
    Fraction(1, 1)
    """
    prefix: tuple[int, ...] = ()
    count = 0
    while True:
        dice = _PathDice(prefix)
        result = experiment(dice)
        faces, sides = tuple(dice.faces), tuple(dice.sides)
        if len(faces) < len(prefix):  # pragma: no cover - non-deterministic experiment
            raise RuntimeError("experiment is not deterministic: it read fewer dice on replay")
        probability = Fraction(1)
        for size in sides:
            probability /= size
        count += 1
        if count > limit:
            raise OddsTooLarge(f"more than {limit} dice sequences")
        yield Branch(faces=faces, sides=sides, probability=probability, result=result)
        # Odometer: the deepest die that still has faces left goes up by one.
        position = len(faces) - 1
        while position >= 0 and faces[position] == sides[position]:
            position -= 1
        if position < 0:
            return
        prefix = (*faces[:position], faces[position] + 1)


def exact_odds(
    experiment: Callable[[Dice], K], *, limit: int = DEFAULT_BRANCH_LIMIT
) -> dict[K, Fraction]:
    """The exact probability of each distinct result of the experiment.

    >>> exact_odds(lambda dice: dice.dr("dr") <= 3)
    {True: Fraction(1, 2), False: Fraction(1, 2)}
    """
    odds: dict[K, Fraction] = {}
    for branch in branches(experiment, limit=limit):
        odds[branch.result] = odds.get(branch.result, Fraction(0)) + branch.probability
    return odds


def marginals(joint: Mapping[tuple[Fact, ...], Fraction]) -> dict[str, dict[str, Fraction]]:
    """Per-subject probabilities from odds keyed by outcome facts.

    A subject absent from some outcomes is shown there as ``"—"`` so each subject's column
    still sums to 1.

    >>> joint = {(("HMG", "malfunctioned"),): Fraction(1, 6), (("HMG", "ok"),): Fraction(5, 6)}
    >>> marginals(joint)["HMG"]["malfunctioned"]
    Fraction(1, 6)
    """
    subjects: list[str] = []
    for facts in joint:
        for subject, _ in facts:
            if subject not in subjects:
                subjects.append(subject)
    table: dict[str, dict[str, Fraction]] = {subject: {} for subject in subjects}
    for facts, probability in joint.items():
        present = dict(facts)
        for subject in subjects:
            value = present.get(subject, "—")
            column = table[subject]
            column[value] = column.get(value, Fraction(0)) + probability
    return table


def format_probability(p: Fraction) -> str:
    """A probability as players read it: ``1/6 (16.7%)``.

    >>> format_probability(Fraction(1, 36))
    '1/36 (2.8%)'
    >>> format_probability(Fraction(1))
    '1 (100%)'
    """
    percent = p * 100
    shown = f"{float(percent):.1f}".rstrip("0").rstrip(".")
    return f"{p} ({shown}%)"


__all__ = [
    "Branch",
    "OddsTooLarge",
    "branches",
    "exact_odds",
    "format_probability",
    "marginals",
]
