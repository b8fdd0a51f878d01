"""User mistakes the application refuses (beside rules_core's RulesError family).

Every error here carries ``user_message``: one sentence saying what was wrong and what to do,
shown only to the user who caused it. Nothing changes when one is raised. The Discord tree's error
handler and the console answer ``RulesError`` and ``UserError`` alike; anything else is a bug,
logged with the interaction id.
"""

from __future__ import annotations


class SettingsUnusable(Exception):
    """A setting of the environment the program cannot use (for the operator, not a player): its
    message is one sentence naming the setting and what to do; ``referee run`` and ``referee
    console`` print it and end with exit status 2, before opening anything."""


class UserError(Exception):
    """Base of the application's user-facing refusals."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.user_message = message


class NoGameHere(UserError):
    """There is no active game in this channel or thread."""


class GameAlreadyActive(UserError):
    """The channel already has an active game."""


class WrongSystem(UserError):
    """The command belongs to another game system than this channel's game."""


class NotYourSide(UserError):
    """The user does not hold the seat of the side the action is declared for."""


class NotAReferee(UserError):
    """Only a referee (or a server administrator) may do this."""


class BadCommand(UserError):
    """The command line or its options could not be understood."""


__all__ = [
    "BadCommand",
    "GameAlreadyActive",
    "NoGameHere",
    "NotAReferee",
    "NotYourSide",
    "UserError",
    "WrongSystem",
]


class SeatTaken(UserError):
    """The side's seat is held by another player; only a referee may reseat it."""


class CannotVoid(UserError):
    """The entry cannot be voided: unknown, already void, not an action, or others need it."""


class DiceScriptRanOut(UserError):
    """The console's scripted dice ran out or held a face the die cannot show."""


__all__ += ["CannotVoid", "DiceScriptRanOut", "SeatTaken"]


class Unavailable(UserError):
    """The bot could not do it now, for a reason of its own rather than the user's (its database
    did not answer in time, is overloaded, or cannot be reached); nothing was changed. ``kind``
    names the failure for the operator's log and metrics (one line per kind, with a count)."""

    kind = "unavailable"


class DatabaseTimeout(Unavailable):
    """A database call passed its deadline (``REFEREE_DB_TIMEOUT``), or no connection of the pool
    came free in time; what it would have written is refused by the database after the deadline,
    so nothing was changed."""

    kind = "database timeout"


class DatabaseBusy(Unavailable):
    """Too many requests of this process already wait for the database (``REFEREE_DB_QUEUE``):
    refused at once, before anything is sent."""

    kind = "database busy"


class DatabaseUnreachable(Unavailable):
    """The database refused or dropped the connection (down, restarting, out of connections)."""

    kind = "database unreachable"


__all__ += ["DatabaseBusy", "DatabaseTimeout", "DatabaseUnreachable", "Unavailable"]
