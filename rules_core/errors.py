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


__all__ = ["IllegalAction", "InvalidInput", "RulesError"]
