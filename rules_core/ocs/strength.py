"""Combat-strength multipliers: supply and Out of Supply (OCS 12.8d), Combined Arms (v3 9.4e).

>>> supply_multiplier("defend", out_of_supply=True, supplied=False)
Fraction(1, 4)
>>> combined_arms_multiplier("armor", ["mech"], terrain_x2=True)
Fraction(2, 1)
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Literal

from rules_core.ocs.state import Arms

CombatMode = Literal["attack", "defend"]

SUPPLY_MATRIX: dict[tuple[CombatMode, bool, bool], Fraction | None] = {
    # (mode, marked Out of Supply, combat supply paid) -> multiplier; None = may not attack.
    # OCS 12.4 Important Note, 12.8b chart, 12.8d (the reductions combine).
    ("attack", False, True): Fraction(1),
    ("attack", False, False): None,
    ("attack", True, True): Fraction(1, 2),
    ("attack", True, False): None,
    ("defend", False, True): Fraction(1),
    ("defend", False, False): Fraction(1, 2),
    ("defend", True, True): Fraction(1, 2),
    ("defend", True, False): Fraction(1, 4),
}
"""OCS 12.8d / chart 12.8b: the supply multiplier of a unit's combat strength."""


def supply_multiplier(mode: CombatMode, *, out_of_supply: bool, supplied: bool) -> Fraction | None:
    """The supply multiplier (OCS 12.8d, chart 12.8b); ``None`` when the unit may not attack.

    >>> [supply_multiplier("attack", out_of_supply=o, supplied=True) for o in (False, True)]
    [Fraction(1, 1), Fraction(1, 2)]
    >>> supply_multiplier("attack", out_of_supply=False, supplied=False) is None
    True
    """
    return SUPPLY_MATRIX[(mode, out_of_supply, supplied)]


COMBINED_ARMS_PROVOKED_BY: dict[Arms, frozenset[str]] = {
    # v3 9.4e 1) Armor: the defending hex holds Armor or Antitank units.
    "armor": frozenset({"armor", "antitank"}),
    # v3 9.4e 2) Mech: the defending hex holds Armor, Mech or Antitank units.
    "mech": frozenset({"armor", "mech", "antitank"}),
    # "Other" units are never changed.
    "other": frozenset(),
}
"""OCS v3 9.4e Combined Arms: which defenders turn an attacker's ×2 into ×1.5."""


def combined_arms_multiplier(
    attacker: Arms,
    defenders: Iterable[str],
    *,
    terrain_x2: bool,
    hedgehog: bool = False,
) -> Fraction:
    """The attacker's terrain multiplier after v3 9.4e Combined Arms.

    ``defenders`` are the codes present in the defending hex: ``"armor"``, ``"mech"``,
    ``"other"`` and ``"antitank"`` (a unit with the AT or AA symbol). A Hedgehog counts as a
    nominal Antitank unit. Only a ×2 multiplier is reduced, to ×3/2.

    >>> combined_arms_multiplier("armor", ["antitank"], terrain_x2=True)
    Fraction(3, 2)
    >>> combined_arms_multiplier("mech", [], terrain_x2=True, hedgehog=True)
    Fraction(3, 2)
    >>> combined_arms_multiplier("armor", ["armor"], terrain_x2=False)
    Fraction(1, 1)
    """
    if not terrain_x2:
        return Fraction(1)
    present = set(defenders)
    if hedgehog:
        present.add("antitank")
    if present & COMBINED_ARMS_PROVOKED_BY[attacker]:
        return Fraction(3, 2)
    return Fraction(2)


__all__ = [
    "COMBINED_ARMS_PROVOKED_BY",
    "SUPPLY_MATRIX",
    "CombatMode",
    "combined_arms_multiplier",
    "supply_multiplier",
]
