"""Is a pile of dice consistent with fair dice? Pearson's chi-square test, standard library only.

For ``n`` rolls of a die with ``k`` faces, each face is expected ``n/k`` times (for totals such as
a DR, the expected count of each total comes from its exact probability). The statistic
``Σ (observed - expected)² / expected`` has ``k - 1`` degrees of freedom; its p-value is the
chance that fair dice would look at least this uneven. The test says nothing reliable when an
expected count is below 5, so :func:`chi_square` reports that the sample is too small instead of
a verdict.

>>> result = chi_square({1: 10, 2: 10, 3: 10, 4: 10, 5: 10, 6: 10})
>>> result.statistic, result.degrees_of_freedom, round(result.p_value, 3)
(0.0, 5, 1.0)
>>> chi_square({1: 2, 2: 1}).enough_data
False
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from rules_core.words import counted

MIN_EXPECTED = 5
"""Below this expected count per cell the chi-square approximation is not trusted."""


@dataclass(frozen=True)
class ChiSquare:
    """The result of a goodness-of-fit test, with the sample size it rests on."""

    sample_size: int
    statistic: float
    degrees_of_freedom: int
    p_value: float
    enough_data: bool

    def verdict(self, alpha: float = 0.01) -> str:
        """One sentence a player can read."""
        if not self.enough_data:
            return (
                f"{counted(self.sample_size, 'roll')} {'is' if self.sample_size == 1 else 'are'} "
                "too few for a fairness test "
                f"(need at least {MIN_EXPECTED} expected per result)."
            )
        word = "consistent with" if self.p_value >= alpha else "unusually far from"
        return (
            f"{counted(self.sample_size, 'roll')}: χ² = {self.statistic:.2f} with "
            f"{counted(self.degrees_of_freedom, 'degree')} of freedom, p = {self.p_value:.3f} — "
            f"{word} fair dice."
        )


def chi_square(
    observed: Mapping[int, int], expected_share: Mapping[int, Fraction] | None = None
) -> ChiSquare:
    """Pearson's test of observed counts against expected shares (uniform if omitted).

    :param observed: count per result (results never seen may be omitted when shares are given).
    :param expected_share: probability of each result; must sum to 1.
    """
    if expected_share is None:
        faces = sorted(observed)
        if not faces:
            return ChiSquare(0, 0.0, 0, 1.0, False)
        expected_share = {face: Fraction(1, len(faces)) for face in faces}
    if sum(expected_share.values()) != 1:
        raise ValueError("expected shares must sum to 1")
    n = sum(observed.values())
    cells = sorted(expected_share)
    statistic = 0.0
    enough = n > 0
    for cell in cells:
        expected = float(expected_share[cell]) * n
        if expected < MIN_EXPECTED:
            enough = False
        if expected > 0:
            statistic += (observed.get(cell, 0) - expected) ** 2 / expected
    dof = len(cells) - 1
    p_value = upper_regularized_gamma(dof / 2, statistic / 2) if dof > 0 else 1.0
    return ChiSquare(n, statistic, dof, p_value, enough)


def upper_regularized_gamma(a: float, x: float) -> float:
    """Q(a, x) = Γ(a, x) / Γ(a), the chi-square survival function at 2x with 2a dof.

    >>> round(upper_regularized_gamma(2.5, 5.5), 4)  # χ² = 11 with 5 dof
    0.0514
    """
    if x <= 0:
        return 1.0
    if x < a + 1:  # series for P(a, x), then Q = 1 - P
        term = total = 1.0 / a
        k = a
        for _ in range(10_000):
            k += 1
            term *= x / k
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(-x + a * math.log(x) - math.lgamma(a)))
    # continued fraction for Q(a, x) (Lentz)
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return min(1.0, math.exp(-x + a * math.log(x) - math.lgamma(a)) * h)


__all__ = ["MIN_EXPECTED", "ChiSquare", "chi_square", "upper_regularized_gamma"]
