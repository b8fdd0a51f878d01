"""The PostgreSQL engine of the storage, through asyncpg: the same statements and migrations as
SQLite (:mod:`bot.storage.sql`), for several processes sharing one database.

Reads and game creation are the interface's (:class:`~bot.storage.base.Repository`), on this
engine's two primitives: a read on a connection of a small pool, a transaction on one. An append
is one statement (:data:`~bot.storage.sql.APPEND_POSTGRES`: one round trip, its own transaction)
that first moves the game row's log head (``UPDATE games … WHERE id = $11 AND head_seq = $12``)
and writes the entry, the dice and the seeds only from the row it moved: the row stays locked
until the commit, so a second writer of the same game — another bot process, a console, an
overlapping restart — waits, then finds the head moved and matches no row; it is refused with
:class:`~bot.storage.base.StorageConflict` having written nothing, and the game service reloads
the game and decides again. PostgreSQL commits concurrent transactions together by itself, so no
group commit is done here.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
from collections.abc import AsyncIterator, Sequence
from typing import Any, ClassVar

import asyncpg

from bot.storage import sql
from bot.storage.base import (
    Append,
    Duplicate,
    Repository,
    StorageConflict,
    StorageUnavailable,
    Transaction,
    describe,
    migrate,
    move_parameters,
)

POOL_SIZE = 8
CONNECT_TIMEOUT = 10.0

_ERRORS = (OSError, asyncio.TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError)

_q = sql.postgres

_HELD: contextvars.ContextVar[asyncpg.Connection | None] = contextvars.ContextVar(
    "referee_held_game", default=None
)
"""The connection whose transaction holds a game for the current task (:meth:`hold`)."""


class PostgresRepository(Repository):
    """Games and their logs in one PostgreSQL database."""

    engine: ClassVar[str] = "postgresql"

    def __init__(self, pool: asyncpg.Pool, url: str) -> None:
        self._pool = pool
        self.url = url
        self._holds: set[asyncpg.Connection] = set()
        """The connections holding a game right now (:meth:`hold`)."""

    @classmethod
    async def open(cls, target: Any) -> PostgresRepository:
        """Connect to the database at the URL ``target`` and bring its schema up to date.

        :raises StorageUnavailable: the server cannot be reached, refuses the login, or the schema
            cannot be brought up to date; the pool is closed again.
        """
        url = str(target)
        try:
            pool = await create_pool(url)
        except _ERRORS as exc:
            raise StorageUnavailable(
                f"Cannot open the PostgreSQL database {describe(url)}: {_reason(exc)}."
            ) from exc
        try:  # under an advisory lock: processes starting at once on a new database migrate once
            async with pool.acquire() as connection, _begin(connection) as tx:
                await tx.execute(sql.LOCK_MIGRATIONS, (sql.MIGRATION_LOCK,))
                await migrate(tx, "postgresql")
        except _ERRORS as exc:
            await pool.close()
            raise StorageUnavailable(
                f"Cannot bring the PostgreSQL database {describe(url)} up to date: {_reason(exc)}."
            ) from exc
        except BaseException:
            pool.terminate()
            raise
        return cls(pool, url)

    def _held(self) -> asyncpg.Connection | None:
        """The connection holding a game for the current task in a :meth:`hold` block of this
        repository (a task started in the block and outliving it does not inherit it)."""
        held = _HELD.get()
        return held if held is not None and held in self._holds else None

    def _db(self) -> Any:
        """The held game's connection in a :meth:`hold` block, else the pool."""
        held = self._held()
        return held if held is not None else self._pool

    async def close(self) -> None:
        """Wait for the writes in flight, then close the pool."""
        await self._pool.close()

    # --- the primitives --------------------------------------------------------------------

    async def _fetch(self, query: str, params: Sequence[Any] = ()) -> Sequence[Sequence[Any]]:
        """The rows of one read (in a :meth:`hold` block, on the held transaction)."""
        rows: list[asyncpg.Record] = await self._db().fetch(_q(query), *params)
        return rows

    @contextlib.asynccontextmanager
    async def _transaction(self) -> AsyncIterator[Transaction]:
        """One write transaction on a connection of the pool (in a :meth:`hold` block, a
        savepoint of the held transaction, committed with it)."""
        held = self._held()
        if held is not None:
            async with _begin(held) as tx:
                yield tx
            return
        async with self._pool.acquire() as connection, _begin(connection) as tx:
            yield tx

    # --- writes --------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def hold(self, guild_id: int, channel_id: int) -> AsyncIterator[None]:
        """Lock the channel's active game row until the block ends (see the interface); the
        block's reads and append run in that transaction, which commits when the block ends."""
        async with self._pool.acquire() as connection, connection.transaction():
            await connection.execute(_q(sql.HOLD_GAME), guild_id, channel_id)
            token = _HELD.set(connection)
            self._holds.add(connection)
            try:
                yield
            finally:
                self._holds.discard(connection)
                _HELD.reset(token)

    async def append(self, change: Append, expected_head: int) -> None:
        """Append one entry and write the game row after it, durably, in one transaction: one
        statement, so one round trip to the server (:data:`bot.storage.sql.APPEND_POSTGRES`).
        Inside a :meth:`hold` block it runs in a savepoint of the held transaction, committed
        with it.

        :raises StorageConflict: the game's head is no longer ``expected_head``.
        :raises Duplicate: the interaction id (or a die's number) was stored before.
        """
        parameters = append_parameters(change, expected_head)
        try:
            held = self._held()
            if held is not None:
                async with held.transaction():
                    moved = await held.fetchval(sql.APPEND_POSTGRES, *parameters)
            else:
                moved = await self._pool.fetchval(sql.APPEND_POSTGRES, *parameters)
        except asyncpg.UniqueViolationError as exc:
            raise Duplicate(str(exc)) from exc
        if moved != 1:
            raise StorageConflict("a game moved past its expected log head under a writer")


async def create_pool(url: str, **options: Any) -> asyncpg.Pool:
    """The pool of connections a repository uses (``options``: more of asyncpg's, such as
    ``init``).

    A connection going back to the pool is not sent asyncpg's reset query (``RESET ALL``,
    ``UNLISTEN *``, ``CLOSE ALL``, ``pg_advisory_unlock_all()``: one more round trip after every
    read and every append): the storage leaves no session state behind — no ``SET``, no
    ``LISTEN``, no cursor, and its advisory lock is a transaction's. A transaction left open is
    still rolled back by asyncpg before the connection is reused.
    """
    return await asyncpg.create_pool(
        url, min_size=1, max_size=POOL_SIZE, timeout=CONNECT_TIMEOUT, reset=_keep_session,
        **options,
    )  # fmt: skip


async def _keep_session(connection: asyncpg.Connection) -> None:
    """Nothing to reset (see :func:`create_pool`)."""


def append_parameters(change: Append, expected_head: int) -> tuple[Any, ...]:
    """The parameters of :data:`bot.storage.sql.APPEND_POSTGRES`: the game row's
    (:func:`~bot.storage.base.move_parameters`), the entry's, the dice as one array per column,
    the seed revealed and the epoch committed (None when there is none)."""
    entry, dice = change.entry, list(change.dice)
    revealed_epoch, revealed_seed = change.reveal if change.reveal is not None else (None, None)
    new_epoch, commitment = change.new_epoch if change.new_epoch is not None else (None, None)
    return (
        *move_parameters(change.game, expected_head),
        entry.seq, entry.interaction_id, entry.kind, entry.body, entry.hash,
        change.user_id, [d.seq for d in dice], [d.sides for d in dice], [d.face for d in dice],
        [d.label for d in dice], [int(d.scripted) for d in dice],
        revealed_seed, revealed_epoch, new_epoch, commitment,
    )  # fmt: skip


class _PostgresTransaction:
    """A :class:`~bot.storage.base.Transaction` on an asyncpg connection (``?`` placeholders
    numbered for it)."""

    def __init__(self, connection: asyncpg.Connection) -> None:
        self.connection = connection

    async def execute(self, query: str, params: Sequence[Any] = ()) -> int:
        if params:
            status: str = await self.connection.execute(_q(query), *params)
        else:
            status = await self.connection.execute(query)
        count = status.rsplit(" ", 1)[-1]
        return int(count) if count.isdigit() else 0

    async def insert(self, query: str, params: Sequence[Any]) -> int:
        return int(await self.connection.fetchval(_q(query) + " RETURNING id", *params))

    async def fetch(self, query: str, params: Sequence[Any] = ()) -> Sequence[Sequence[Any]]:
        rows: list[asyncpg.Record] = await self.connection.fetch(_q(query), *params)
        return rows


@contextlib.asynccontextmanager
async def _begin(connection: asyncpg.Connection) -> AsyncIterator[Transaction]:
    """A transaction (or a savepoint, in one already open) on ``connection``, rolled back if the
    block raises; a unique key refusing a write is :class:`~bot.storage.base.Duplicate`."""
    try:
        async with connection.transaction():
            yield _PostgresTransaction(connection)
    except asyncpg.UniqueViolationError as exc:
        raise Duplicate(str(exc)) from exc


def _reason(exc: BaseException) -> str:
    if isinstance(exc, asyncio.TimeoutError):
        return f"no answer within {CONNECT_TIMEOUT:g} s"
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text.rstrip(".")


__all__ = ["PostgresRepository"]
