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

Every call has a deadline (:mod:`bot.storage.limits`): a connection of the pool comes free
within it or the call is refused, every statement is bounded by it (the pool's
``command_timeout``), and an append carries it into the database: the statement reads the
server's clock once it holds the game's row and fails whole if the deadline has passed, so a
frozen server that thaws later never stores an action whose player was told it timed out. A
connection that timed out is dropped (its transaction dies with it), never reused.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import time
from collections.abc import AsyncIterator, Sequence
from typing import Any, ClassVar

import asyncpg

from bot.errors import Unavailable
from bot.ops import metrics
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
from bot.storage.limits import Gate, Limits

CONNECT_TIMEOUT = 10.0

_ERRORS = (OSError, asyncio.TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError)
_UNREACHABLE = (
    OSError,
    asyncpg.PostgresConnectionError,
    asyncpg.CannotConnectNowError,
    asyncpg.AdminShutdownError,
    asyncpg.TooManyConnectionsError,
    asyncpg.ConnectionFailureError,
)
"""The server refused, dropped or never took the connection: down, restarting, out of slots."""

_q = sql.postgres

_HELD: contextvars.ContextVar[asyncpg.Connection | None] = contextvars.ContextVar(
    "referee_held_game", default=None
)
"""The connection whose transaction holds a game for the current task (:meth:`hold`)."""


class PostgresRepository(Repository):
    """Games and their logs in one PostgreSQL database."""

    engine: ClassVar[str] = "postgresql"

    def __init__(
        self, pool: asyncpg.Pool, url: str, limits: Limits | None = None, clock_offset: float = 0.0
    ) -> None:
        self._pool = pool
        self.url = url
        self.limits = limits if limits is not None else Limits()
        self._gate = Gate(self.limits, self.limits.pool + self.limits.queue)
        self._clock_offset = clock_offset
        """The server's clock minus this process's (seconds), read at open: a deadline sent to
        the server is in the server's time."""
        self._holds: set[asyncpg.Connection] = set()
        """The connections holding a game right now (:meth:`hold`)."""

    @classmethod
    async def open(cls, target: Any, limits: Limits | None = None) -> PostgresRepository:
        """Connect to the database at the URL ``target`` and bring its schema up to date.

        :raises StorageUnavailable: the server cannot be reached, refuses the login, or the schema
            cannot be brought up to date; the pool is closed again.
        """
        url = str(target)
        limits = limits if limits is not None else Limits()
        try:
            pool = await create_pool(url, max_size=limits.pool, command_timeout=limits.timeout)
        except _ERRORS as exc:
            raise StorageUnavailable(
                f"Cannot open the PostgreSQL database {describe(url)}: {_reason(exc)}."
            ) from exc
        try:  # under an advisory lock: processes starting at once on a new database migrate once
            async with pool.acquire() as connection:
                async with _begin(connection) as tx:
                    await tx.execute(sql.LOCK_MIGRATIONS, (sql.MIGRATION_LOCK,))
                    await migrate(tx, "postgresql")
                offset = await _clock_offset(connection)
        except _ERRORS as exc:
            await pool.close()
            raise StorageUnavailable(
                f"Cannot bring the PostgreSQL database {describe(url)} up to date: {_reason(exc)}."
            ) from exc
        except BaseException:
            pool.terminate()
            raise
        return cls(pool, url, limits, offset)

    # --- deadlines ---------------------------------------------------------------------------

    def pool_use(self) -> tuple[int, int, int, int]:
        """``(connections open, of them in use, the pool's most, calls in flight)`` (metrics)."""
        size, idle = self._pool.get_size(), self._pool.get_idle_size()
        return size, size - idle, self.limits.pool, self._gate.inside

    def _deadline(self) -> float:
        """This call's deadline, in the server's clock (seconds since the epoch)."""
        return time.time() + self._clock_offset + self.limits.timeout

    def _failure(self, exc: BaseException) -> Unavailable | None:
        """What a user is told for a failure of the database itself (None: any other error)."""
        if isinstance(exc, Unavailable):
            return exc
        kind = failure_kind(exc)
        if kind == "timeout":
            return self.limits.timed_out()
        if kind == "unreachable":
            return self.limits.unreachable()
        return None

    @contextlib.asynccontextmanager
    async def _connection(self) -> AsyncIterator[asyncpg.Connection]:
        """A connection of the pool within the deadline; a failure of the database becomes the
        user's one sentence (:class:`~bot.errors.Unavailable`), and a connection that failed so
        is dropped rather than reused (its open transaction dies with it on the server)."""
        with self._gate:
            try:
                async with asyncio.timeout(self.limits.timeout):
                    connection = await self._pool.acquire()
            except Exception as exc:
                failure = self._failure(exc)
                if failure is None:
                    raise
                raise failure from exc
            try:
                yield connection
            except Exception as exc:
                failure = self._failure(exc)
                if failure is None:
                    raise
                _drop(connection)
                if failure is exc:
                    raise
                raise failure from exc
            finally:
                await self._pool.release(connection)

    def _held(self) -> asyncpg.Connection | None:
        """The connection holding a game for the current task in a :meth:`hold` block of this
        repository (a task started in the block and outliving it does not inherit it)."""
        held = _HELD.get()
        return held if held is not None and held in self._holds else None

    async def close(self) -> None:
        """Wait for the writes in flight, then close the pool."""
        await self._pool.close()

    # --- the primitives --------------------------------------------------------------------

    async def _fetch(self, query: str, params: Sequence[Any] = ()) -> Sequence[Sequence[Any]]:
        """The rows of one read (in a :meth:`hold` block, on the held transaction)."""
        rows: list[asyncpg.Record]
        began = time.perf_counter()
        held = self._held()
        if held is not None:
            rows = await held.fetch(_q(query), *params)
        else:
            async with self._connection() as connection:
                rows = await connection.fetch(_q(query), *params)
        metrics.database("read", time.perf_counter() - began)
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
        began, deadline = time.perf_counter(), self._deadline()
        async with self._connection() as connection, _begin(connection) as tx:
            yield tx
            # the last statement before the commit: past the deadline, nothing is committed
            await connection.execute(sql.CHECK_DEADLINE_POSTGRES, deadline)
        metrics.database("write", time.perf_counter() - began)

    # --- writes --------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def hold(self, guild_id: int, channel_id: int) -> AsyncIterator[None]:
        """Lock the channel's active game row until the block ends (see the interface); the
        block's reads and append run in that transaction, which commits when the block ends."""
        async with self._connection() as connection, _begin(connection):
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
        began = time.perf_counter()
        parameters = (*append_parameters(change, expected_head), self._deadline())
        wait = self.limits.timeout + self.limits.margin
        try:
            held = self._held()
            if held is not None:
                async with _begin(held):
                    moved = await held.fetchval(sql.APPEND_POSTGRES, *parameters, timeout=wait)
            else:
                async with self._connection() as connection:
                    moved = await connection.fetchval(
                        sql.APPEND_POSTGRES, *parameters, timeout=wait
                    )
        except asyncpg.UniqueViolationError as exc:
            raise Duplicate(str(exc)) from exc
        except Exception as exc:  # in a hold block: the held transaction fails with it
            failure = self._failure(exc)
            if failure is None or failure is exc:
                raise
            raise failure from exc
        metrics.database("append", time.perf_counter() - began)
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
    options.setdefault("max_size", Limits().pool)
    return await asyncpg.create_pool(
        url, min_size=1, timeout=CONNECT_TIMEOUT, reset=_keep_session, **options
    )


async def _clock_offset(connection: asyncpg.Connection) -> float:
    """The server's clock minus ours, in seconds (read once, halfway through one round trip)."""
    before = time.time()
    server = float(await connection.fetchval(sql.SERVER_CLOCK))
    return server - (before + time.time()) / 2


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
    block raises; a unique key refusing a write is :class:`~bot.storage.base.Duplicate`. A
    failure of the database itself (a deadline passed, the connection lost) drops the connection
    instead: no rollback is sent to a server that may not answer it, and the server rolls the
    transaction back when it sees the connection gone."""
    transaction = connection.transaction()
    await transaction.start()
    try:
        yield _PostgresTransaction(connection)
    except BaseException as exc:
        if failure_kind(exc) is not None or isinstance(exc, Unavailable):
            _drop(connection)
        elif not connection.is_closed():
            await transaction.rollback()
        if isinstance(exc, asyncpg.UniqueViolationError):
            raise Duplicate(str(exc)) from exc
        raise
    await transaction.commit()


def _drop(connection: asyncpg.Connection) -> None:
    """Close a connection that failed, at once (asyncpg may have dropped it already)."""
    with contextlib.suppress(asyncpg.InterfaceError):
        connection.terminate()


def failure_kind(exc: BaseException) -> str | None:
    """``"timeout"`` (a deadline passed: the client's, or the database's own check of it),
    ``"unreachable"`` (the connection was refused or lost), or None (any other error)."""
    if isinstance(exc, asyncio.TimeoutError | asyncpg.QueryCanceledError):
        return "timeout"
    if isinstance(exc, asyncpg.InvalidTextRepresentationError) and sql.DEADLINE_PASSED in str(exc):
        return "timeout"
    if isinstance(exc, _UNREACHABLE):
        return "unreachable"
    if isinstance(exc, asyncpg.InterfaceError) and "closed" in str(exc):
        return "unreachable"
    return None


def _reason(exc: BaseException) -> str:
    if isinstance(exc, asyncio.TimeoutError):
        return f"no answer within {CONNECT_TIMEOUT:g} s"
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text.rstrip(".")


__all__ = ["PostgresRepository"]
