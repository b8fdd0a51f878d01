"""How long a database call may take and how many may wait: the deadline, the pool and the queue.

Every call of either engine has a deadline (``REFEREE_DB_TIMEOUT``, 60 s by default, as
RoboDanny's pool has): a read waits at most that long, a connection of the PostgreSQL pool comes
free within it or not at all, and a write carries its deadline *into the database*, which refuses
to store it once the deadline has passed (PostgreSQL: the append statement checks the clock after
it locked the game's row; SQLite: the write transaction checks it once it holds the file's write
lock, and waits for that lock no longer than the deadline). So a user told that their request
timed out is told the truth: a database that thaws later does not store it behind their back.

A process lets at most ``pool + queue`` calls be in flight at once (``REFEREE_DB_POOL``,
``REFEREE_DB_QUEUE``); one more is refused at once with :class:`~bot.errors.DatabaseBusy`, before
anything is sent, so a frozen database never piles up waiting requests without bound.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.errors import DatabaseBusy, DatabaseTimeout, DatabaseUnreachable

DEFAULT_TIMEOUT = 60.0
DEFAULT_POOL = 8
DEFAULT_QUEUE = 1000


@dataclass(frozen=True)
class Limits:
    """The deadline of one database call, the pool's size and the waiting queue's."""

    timeout: float = DEFAULT_TIMEOUT
    """Seconds one call may take (a connection's wait included)."""
    pool: int = DEFAULT_POOL
    """Connections a PostgreSQL process opens at most (SQLite: three, whatever this says)."""
    queue: int = DEFAULT_QUEUE
    """Calls that may wait for a connection beyond those holding one; more are refused at once."""

    @property
    def margin(self) -> float:
        """Seconds the client waits for a write beyond its deadline before giving up on it: the
        database's own check of the deadline decides, this only bounds the wait (a twentieth of
        the deadline, at least 1 s, at most 5 s)."""
        return min(5.0, max(1.0, self.timeout / 20))

    def timed_out(self) -> DatabaseTimeout:
        """The one sentence a user whose request ran out of time gets."""
        return DatabaseTimeout(
            f"The database did not answer within {self.timeout:g} s, so nothing was changed; "
            "try again in a minute."
        )

    def busy(self) -> DatabaseBusy:
        return DatabaseBusy(
            "Too many requests are waiting for the database right now, so nothing was changed; "
            "try again in a minute."
        )

    def unreachable(self) -> DatabaseUnreachable:
        return DatabaseUnreachable(
            "The bot cannot reach its database right now, so nothing was changed; "
            "try again in a minute."
        )


class Gate:
    """Counts the calls in flight; refuses one beyond ``capacity`` (:meth:`Limits.busy`)."""

    __slots__ = ("capacity", "inside", "limits", "peak")

    def __init__(self, limits: Limits, capacity: int) -> None:
        self.limits = limits
        self.capacity = capacity
        self.inside = 0
        self.peak = 0

    def __enter__(self) -> None:
        if self.inside >= self.capacity:
            raise self.limits.busy()
        self.inside += 1
        if self.inside > self.peak:
            self.peak = self.inside

    def __exit__(self, *exc: object) -> None:
        self.inside -= 1


__all__ = ["DEFAULT_POOL", "DEFAULT_QUEUE", "DEFAULT_TIMEOUT", "Gate", "Limits"]
