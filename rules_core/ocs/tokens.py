"""Supply Points and Tokens (OCS 12.1a): exact integer Tokens, shown in the players' notation.

One SP is four Tokens (``1 SP = 4 T``). Amounts are stored as an integer count of Tokens and
parsed from what players write: ``"3 SP 2 T"``, ``"4 1/2 SP"``, ``"2T"``, ``"1 SP"``,
``"2 1/4 SP"``; ``"1.5 SP"`` is accepted because it is exactly 6 T, ``"1.3 SP"`` is refused.

>>> parse_tokens("4 1/2 SP")
18
>>> format_tokens(18)
'4 1/2 SP'
>>> format_tokens(9)
'2 SP 1 T'
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Literal

from rules_core.errors import InvalidInput

TOKENS_PER_SP = 4
"""OCS 12.1a: one SP equals four Tokens."""

Rounding = Literal["half-up", "half-even"]

_NUMBER = r"(?:\d+(?:\.\d+)?(?:\s+\d+/\d+)?|\d+/\d+)"
_TERM = re.compile(rf"\s*({_NUMBER})\s*(SP|T)\b\s*,?", re.IGNORECASE)


def _number(text: str) -> Fraction:
    total = Fraction(0)
    for part in text.split():
        total += Fraction(part)
    return total


def parse_tokens(text: str) -> int:
    """The number of Tokens in an amount written the players' way (OCS 12.1a).

    :raises InvalidInput: for anything that is not an exact, non-negative whole number of Tokens.

    >>> [parse_tokens(t) for t in ("3 SP 2 T", "2T", "1 SP", "2 1/4 SP", "1.5 SP", "0 T")]
    [14, 2, 4, 9, 6, 0]
    >>> parse_tokens("1.3 SP")
    Traceback (most recent call last):
    ...
    rules_core.errors.InvalidInput: '1.3 SP' is not a whole number of Tokens (1 SP = 4 T).
    """
    source = text.strip()
    if not source:
        raise InvalidInput("An amount is needed, such as '3 SP 2 T' or '4 1/2 SP'.")
    if source.startswith("-"):
        raise InvalidInput(f"{text!r} is negative; amounts of supply are never negative.")
    position = 0
    total = Fraction(0)
    seen = 0
    while position < len(source):
        match = _TERM.match(source, position)
        if match is None or match.end() == position:
            raise InvalidInput(
                f"{text!r} is not an amount of supply; write it like '3 SP 2 T', "
                "'4 1/2 SP' or '2T'."
            )
        try:
            value = _number(match.group(1))
        except (ValueError, ZeroDivisionError) as exc:
            raise InvalidInput(f"{text!r} is not an amount of supply.") from exc
        unit = match.group(2).upper()
        total += value * TOKENS_PER_SP if unit == "SP" else value
        position = match.end()
        seen += 1
    if total.denominator != 1:
        raise InvalidInput(f"{text!r} is not a whole number of Tokens (1 SP = 4 T).")
    return int(total)


def format_tokens(tokens: int) -> str:
    """Show Tokens as players write them: ``"2 SP 1 T"``, ``"4 1/2 SP"``, ``"1 SP"``, ``"2 T"``.

    A half SP is written as a fraction ("4 1/2 SP", OCS 12.1a Example 2); other remainders as T.

    >>> [format_tokens(t) for t in (0, 1, 2, 4, 7, 14, 18, 36)]
    ['0 T', '1 T', '2 T', '1 SP', '1 SP 3 T', '3 1/2 SP', '4 1/2 SP', '9 SP']
    """
    if tokens < 0:
        raise ValueError(f"a negative amount of supply: {tokens} T")
    sp, t = divmod(tokens, TOKENS_PER_SP)
    if sp == 0:
        return f"{t} T"
    if t == 0:
        return f"{sp} SP"
    if t == 2:
        return f"{sp} 1/2 SP"
    return f"{sp} SP {t} T"


def round_nearest(value: Fraction, rounding: Rounding = "half-up") -> int:
    """Round a non-negative fraction "to the nearest" (halves: ``ocs_rounding``).

    >>> round_nearest(Fraction(1, 2)), round_nearest(Fraction(5, 2), "half-even")
    (1, 2)
    >>> round_nearest(Fraction(3, 4)), round_nearest(Fraction(9, 4))
    (1, 2)
    """
    if rounding == "half-even":
        return round(value)
    return int((value + Fraction(1, 2)).__floor__())


__all__ = ["TOKENS_PER_SP", "Rounding", "format_tokens", "parse_tokens", "round_nearest"]
