"""Breakdown of one weapon in one attack: A9.7 B#/X#, A9.3 Sustained Fire, A.11 lowering.

docs/rules/ASL.md readings 1 (malfunction when the Original DR ≥ B#) and 3 (a lowered B# makes the
Original B# an X#).

>>> normal_breakdown(None, None, 0, 12)
<Fate.MALF: 1>
>>> normal_breakdown(None, None, 2, 12)  # B12 with Sustained Fire: B10, X12
<Fate.ELIM: 2>
"""

from __future__ import annotations

from enum import IntEnum

INHERENT_B = 12
"""A9.7: a weapon with no printed B# or X# has an inherent B12 (Guns likewise, C2.28)."""
SUSTAINED_FIRE_LOWERING = 2
"""A9.3: Sustained Fire lowers the B# by 2."""
INTENSIVE_FIRE_LOWERING = 2
"""C5.6: Intensive Fire lowers the B# by 2."""


class Fate(IntEnum):
    """Weapon outcomes ordered by severity: fine < malfunctioned < eliminated (or Disabled)."""

    OK = 0
    MALF = 1
    ELIM = 2


def original_b(printed_b: int | None, printed_x: int | None) -> int | None:
    """The Original B# (reading 7): the printed B#, B12 when none is printed, none if X#-only.

    A9.7.

    >>> original_b(11, None), original_b(None, None), original_b(None, 10)
    (11, 12, None)
    """
    if printed_b is not None:
        return printed_b
    return INHERENT_B if printed_x is None else None


def breakdown_numbers(
    printed_b: int | None, printed_x: int | None, lowering: int
) -> tuple[int | None, int | None]:
    """The effective (B#, X#) for one use after lowering ``lowering`` (A9.7, A.11).

    >>> breakdown_numbers(None, None, 0)
    (12, None)
    >>> breakdown_numbers(11, None, 2)
    (9, 11)
    >>> breakdown_numbers(None, 10, 0)
    (None, 10)
    """
    b0 = original_b(printed_b, printed_x)
    b_eff = None if b0 is None else b0 - lowering
    candidates = []
    if printed_x is not None:
        candidates.append(printed_x - lowering)
    if lowering > 0 and b0 is not None:
        candidates.append(b0)
    x_eff = min(candidates) if candidates else None
    return b_eff, x_eff


def normal_breakdown(
    printed_b: int | None, printed_x: int | None, lowering: int, original_dr: int
) -> Fate:
    """The A9.7/A.11 outcome of one Original DR for one weapon (no FB16).

    >>> [normal_breakdown(11, None, 2, dr).name for dr in (8, 9, 10, 11, 12)]
    ['OK', 'MALF', 'MALF', 'ELIM', 'ELIM']
    >>> [normal_breakdown(None, 10, 0, dr).name for dr in (9, 10)]
    ['OK', 'ELIM']
    """
    b_eff, x_eff = breakdown_numbers(printed_b, printed_x, lowering)
    if x_eff is not None and original_dr >= x_eff:
        return Fate.ELIM
    if b_eff is not None and original_dr >= b_eff:
        return Fate.MALF
    return Fate.OK


__all__ = [
    "INHERENT_B",
    "INTENSIVE_FIRE_LOWERING",
    "SUSTAINED_FIRE_LOWERING",
    "Fate",
    "breakdown_numbers",
    "normal_breakdown",
    "original_b",
]
