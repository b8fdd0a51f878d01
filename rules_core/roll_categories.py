"""Roll categories for ``/roll``, VASL-style, and what the ASL rules make of some rolls.

A category names what a free roll is for — ``IFT``, ``TH``, ``TK``, ``MC``, ``Rally``, ``CC``,
``TC``, ``SA``, ``RS`` or any word of the players' own — so that statistics can be kept per
category. Each standard category has its usual dice (a DR, or a dr for sniper and Random
Selection rolls). For a few categories an Original DR means something by the rules whatever the
modifiers; :func:`notes` says so, citing the rule, and leaves it to the players to apply.

>>> from rules_core.dice import Roll
>>> [n.render() for n in notes("IFT", Roll(label="IFT DR", kind="DR", sides=6, faces=(3, 3)))]
['A7.9: Original IFT DR 6 is doubles — the firer Cowers unless a leader directs the fire']
"""

from __future__ import annotations

from dataclasses import dataclass

from rules_core.dice import Roll
from rules_core.errors import InvalidInput
from rules_core.outcome import Step


@dataclass(frozen=True)
class Category:
    """A standard category: its name as players write it, what it is for, and its dice."""

    name: str
    meaning: str
    dice: str


CATEGORIES: tuple[Category, ...] = (
    Category("IFT", "Infantry Fire Table attack", "DR"),
    Category("TH", "To Hit", "DR"),
    Category("TK", "To Kill", "DR"),
    Category("MC", "Morale Check", "DR"),
    Category("Rally", "Rally attempt", "DR"),
    Category("CC", "Close Combat", "DR"),
    Category("TC", "Task Check", "DR"),
    Category("SA", "Sniper", "dr"),
    Category("RS", "Random Selection", "dr"),
)
"""The standard categories, in the order VASL's dice buttons list them."""

MAX_CATEGORY = 20
"""A free-text category is at most this long (it prefixes every die's label)."""


def category_named(text: str) -> str:
    """The category as it is kept: a standard one in its own spelling, else the words typed.

    :raises InvalidInput: for a category longer than ``MAX_CATEGORY`` characters or with
        characters other than letters, digits, spaces, ``-`` and ``/``.

    >>> category_named(" rally "), category_named("ift"), category_named("Sniper check")
    ('Rally', 'IFT', 'Sniper check')
    """
    clean = " ".join(text.split())
    for category in CATEGORIES:
        if clean.lower() == category.name.lower():
            return category.name
    if len(clean) > MAX_CATEGORY:
        raise InvalidInput(f"Keep a roll category to {MAX_CATEGORY} characters, not {len(clean)}.")
    if not all(ch.isalnum() or ch in " -/" for ch in clean):
        raise InvalidInput(
            f"Write a roll category with letters, digits, spaces, - or /, not {text!r}."
        )
    return clean


def default_dice(category: str) -> str:
    """The dice a category usually rolls: a DR, or a dr for SA and RS (a free category: DR).

    >>> default_dice("RS"), default_dice("MC"), default_dice("Morale")
    ('dr', 'DR', 'DR')
    """
    for known in CATEGORIES:
        if known.name == category:
            return known.dice
    return "DR"


ORIGINAL_DR_MEANINGS: tuple[tuple[str, int, str, str], ...] = (
    ("MC", 2, "A15.1", "Original MC DR 2 — the unit may enter Heat of Battle"),
    ("MC", 12, "A10.31", "Original MC DR 12 — the unit also suffers Casualty Reduction"),
    ("TH", 2, "C3.7", "Original TH DR 2 — a Critical Hit if the shot hits"),
)
"""(category, Original DR, rule, meaning): what an Original DR of that category means by itself
(A15.1, A10.31, C3.7); IFT doubles (A7.9) depend on the colored die and are read apart."""


def notes(category: str, roll: Roll) -> tuple[Step, ...]:
    """What the ASL rules make of this Original DR in this category, each with its rule.

    Only rolls whose meaning does not depend on anything the bot is not told: doubles on an IFT
    DR (Cowering, A7.9 — not when a leader directs the fire, nor for a MG fired by a lone leader,
    A9.12), an Original 2 on a Morale Check (Heat of Battle, A15.1), an Original 12 on a Morale
    Check (Casualty Reduction, A10.31), and an Original 2 on a To Hit DR (Critical Hit, C3.7).

    >>> mc = Roll(label="MC DR", kind="DR", sides=6, faces=(6, 6))
    >>> [n.rule for n in notes("MC", mc)]
    ['A10.31']
    >>> notes("Rally", mc)
    ()
    """
    if roll.kind != "DR":
        return ()
    total, (colored, white) = roll.total, roll.faces
    found: list[Step] = []
    if category == "IFT" and colored == white:
        found.append(
            Step(
                rule="A7.9",
                text=f"Original IFT DR {total} is doubles — the firer Cowers unless a leader "
                "directs the fire",
                dice=(roll,),
            )
        )
    found.extend(
        Step(rule=rule, text=text, dice=(roll,))
        for wanted, original, rule, text in ORIGINAL_DR_MEANINGS
        if category == wanted and total == original
    )
    return tuple(found)


__all__ = ["CATEGORIES", "MAX_CATEGORY", "Category", "category_named", "default_dice", "notes"]
