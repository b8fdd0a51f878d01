"""Option text of a system's parameters (``/game new options:``) and command paths."""

from __future__ import annotations

import json
from typing import Any

from rules_core.errors import InvalidInput


def parse_options(text: str) -> dict[str, Any]:
    """Scenario options of ``/game new``: a JSON object, or ``key=value`` pairs.

    Values ``true``/``false`` are booleans, whole numbers are integers, anything else is text.
    The log holds no floats: a fraction, ``NaN`` or ``Infinity`` is refused, and so is a whole
    number beyond JSON's exact integers (±2**53).

    >>> parse_options("isolation=true, ammo_loss=25, era=1944")
    {'isolation': True, 'ammo_loss': 25, 'era': 1944}
    >>> parse_options('{"nationalities": {"Axis": "German"}}')
    {'nationalities': {'Axis': 'German'}}
    >>> parse_options('{"cwb_ammo_loss_pct": NaN}')
    Traceback (most recent call last):
    ...
    rules_core.errors.InvalidInput: Option values are whole numbers, true/false or text, not NaN.
    >>> parse_options("oops")
    Traceback (most recent call last):
    ...
    rules_core.errors.InvalidInput: Write options as key=value pairs or a JSON object, not 'oops'.
    """
    text = text.strip()
    if not text:
        return {}
    if text.startswith("{"):
        try:
            data = json.loads(
                text,
                parse_constant=_not_a_number,
                parse_float=_not_a_number,
                parse_int=_exact_int,
            )
        except ValueError:
            raise InvalidInput("The options are not a valid JSON object.") from None
        if not isinstance(data, dict):
            raise InvalidInput("The options must be a JSON object.")
        return data
    options: dict[str, Any] = {}
    for part in text.split(","):
        key, equals, value = part.partition("=")
        if not equals or not key.strip():
            raise InvalidInput(f"Write options as key=value pairs or a JSON object, not {part!r}.")
        raw = value.strip()
        parsed: Any = raw
        if raw.lower() in ("true", "false"):
            parsed = raw.lower() == "true"
        elif raw.lstrip("-").isdigit():
            parsed = _exact_int(raw)
        options[key.strip()] = parsed
    return options


def _not_a_number(text: str) -> Any:
    raise InvalidInput(f"Option values are whole numbers, true/false or text, not {text}.")


def _exact_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:  # beyond Python's digits limit
        value = 2**64
    if abs(value) > 2**53:
        raise InvalidInput(f"The option value {text[:20]} is too large; use at most 2**53.")
    return value


def command_path(action: str) -> str:
    """``"asl.unit.add"`` → ``"/asl unit add"``.

    >>> command_path("game.referee.add")
    '/game referee add'
    """
    return "/" + action.replace(".", " ")
