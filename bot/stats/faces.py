"""Dice statistics for ``/stats``: face counts per die size with the chi-square test of
:mod:`bot.stats.fairness` (which reports when the sample is too small for a verdict).

>>> result = face_stats(6, {1: 10, 2: 10, 3: 10, 4: 10, 5: 10, 6: 10})
>>> result.counts, result.chi_square, round(result.p_value, 3), result.enough_data
((10, 10, 10, 10, 10, 10), 0.0, 1.0, True)
>>> face_stats(6, {1: 60}).p_value < 1e-12
True
"""

from __future__ import annotations

from collections.abc import Mapping

from bot.models import FaceStats
from bot.stats.fairness import chi_square


def face_stats(sides: int, counts: Mapping[int, int]) -> FaceStats:
    """Counts of each face of a ``sides``-sided die and the chi-square test of uniformity."""
    observed = {face: int(counts.get(face, 0)) for face in range(1, sides + 1)}
    test = chi_square(observed)
    return FaceStats(
        sides=sides,
        counts=tuple(observed.values()),
        chi_square=test.statistic,
        degrees_of_freedom=test.degrees_of_freedom,
        p_value=test.p_value,
        enough_data=test.enough_data,
    )


__all__ = ["face_stats"]
