"""The error family of the rules core.

Every error carries a message that is safe to show a player as it is: one sentence saying what
was wrong and, where it helps, what to do. Two kinds, kept apart as python-chess keeps "cannot
parse" apart from "illegal here":

* :class:`InvalidInput` — the declaration itself is malformed: an unknown unit, a negative or
  inexact amount, a level outside 0-5. Nothing about the game state makes it right.
* :class:`IllegalAction` — the declaration is well-formed but the rules forbid it in this state:
  Sustained Fire at Ammunition Shortage level 4, a third MG for one squad, an attack that cannot
  be supplied. It cites the rule that forbids it.

Both are raised *before* any die is rolled, so a refused declaration never changes anything.

>>> err = IllegalAction("Sustained Fire is not allowed at level 4.", rule="FB16.51")
>>> err.user_message
'Sustained Fire is not allowed at level 4. (FB16.51)'
>>> isinstance(err, RulesError)
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class RulesError(Exception):
    """Base class: a declaration the rules refuse, with a user-safe message.

    :param message: one sentence for the player; it is shown verbatim.
    :param rule: the rule number that decides the refusal, e.g. ``"A9.3"``; optional.
    """

    def __init__(self, message: str, *, rule: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.rule = rule

    @property
    def user_message(self) -> str:
        """The message with its rule citation appended when there is one."""
        if self.rule:
            return f"{self.message} ({self.rule})"
        return self.message

    def __str__(self) -> str:
        return self.user_message


class InvalidInput(RulesError):
    """The declaration cannot be understood: bad names, amounts or values.

    >>> InvalidInput("There is no unit called 'Bob' in this game.").user_message
    "There is no unit called 'Bob' in this game."
    """


class IllegalAction(RulesError):
    """The declaration is understood but the rules forbid it in the current state.

    >>> IllegalAction("A lone leader may not use Sustained Fire.", rule="A9.3").rule
    'A9.3'
    """


def explain_validation_error(error: Mapping[str, Any]) -> str:
    """One sentence for a player from one pydantic validation error (``exc.errors()[0]``).

    The option is named as it is typed (``replaced-by`` for the field ``replaced_by``).

    >>> explain_validation_error({"type": "less_than_equal", "loc": ("level",),
    ...                           "ctx": {"le": 5}, "input": 9, "msg": "..."})
    'level must be 5 or less, not 9.'
    >>> explain_validation_error({"type": "missing", "loc": ("side",), "msg": "Field required"})
    'Give the option side.'
    >>> explain_validation_error({"type": "literal_error", "loc": ("kind",), "input": "laser",
    ...                           "ctx": {"expected": "'sw_mg' or 'gun'"}, "msg": "..."})
    "kind must be 'sw_mg' or 'gun', not 'laser'."
    """
    parts = [str(p).replace("_", "-") for p in error.get("loc", ()) if not isinstance(p, int)]
    name = ".".join(parts) or "the value"
    kind = str(error.get("type", ""))
    ctx: Mapping[str, Any] = error.get("ctx") or {}
    given = error.get("input")
    shown = f"{given!r}" if isinstance(given, str) else f"{given}"
    templates = {
        "missing": "Give the option {name}.",
        "less_than_equal": "{name} must be {le} or less, not {given}.",
        "less_than": "{name} must be less than {lt}, not {given}.",
        "greater_than_equal": "{name} must be {ge} or more, not {given}.",
        "greater_than": "{name} must be more than {gt}, not {given}.",
        "literal_error": "{name} must be {expected}, not {given}.",
        "enum": "{name} must be {expected}, not {given}.",
        "int_parsing": "{name} must be a whole number, not {given}.",
        "int_from_float": "{name} must be a whole number, not {given}.",
        "bool_parsing": "{name} must be true or false, not {given}.",
        "string_too_short": "{name} may not be empty."
        if ctx.get("min_length") == 1
        else "{name} needs at least {min_length} characters.",
        "string_too_long": "{name} may have at most {max_length} characters.",
        "extra_forbidden": "This command has no option {name}.",
    }
    if kind == "value_error":
        message = str(error.get("msg", "")).removeprefix("Value error, ").strip()
        return message if message.endswith(".") else f"{message}."
    template = templates.get(kind)
    if template is None:
        message = str(error.get("msg", "is not valid")).rstrip(".")
        return f"{name}: {message[:1].lower()}{message[1:]}."
    return template.format(name=name, given=shown, **ctx)


__all__ = ["IllegalAction", "InvalidInput", "RulesError", "explain_validation_error"]
