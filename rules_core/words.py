"""Counting things in the replies' words: "1 step", "2 steps" — never "1 step(s)"."""

from __future__ import annotations


def counted(number: int, singular: str, plural: str | None = None) -> str:
    """``number`` and its noun in agreement (``plural`` when adding an s is not English).

    >>> counted(1, "step"), counted(2, "step"), counted(2, "hex", "hexes")
    ('1 step', '2 steps', '2 hexes')
    """
    return f"{number} {singular if number == 1 else plural or singular + 's'}"


__all__ = ["counted"]
