"""The SQLite engine of the storage (the embedded default): games, the append-only log, seeds
and per-die records.

SQLite through aiosqlite in WAL mode with ``synchronous=FULL`` (a commit survives power loss).
Every statement is parameterized. Writes go one short transaction at a time (``BEGIN IMMEDIATE``
… ``COMMIT`` under an asyncio lock); appends that arrive while a commit is in flight are grouped
into the next transaction (group commit), which runs in the writer connection's thread so the
event loop keeps serving while the disk syncs; a lone append (nothing else waiting: the bot is
not busy) is committed directly on the event loop's thread, on a connection of its own, which
spares two thread hand-overs. Reads go through another connection and only ever see committed
data.

The reads and game creation are the interface's (:class:`~bot.storage.base.Repository`), on this
engine's two primitives (a read on the reader connection, a ``BEGIN IMMEDIATE`` transaction on the
writer under the write lock); the append is this engine's own, for the group commit and the lone
append on the loop's thread.

Every call has a deadline (:mod:`bot.storage.limits`). SQLite "freezes" when another process
holds the file's write lock: a write waits for the lock at most until its deadline (the busy
timeout) and, once it holds the lock, checks the deadline before writing anything, so a request
told it timed out is never stored afterwards. The lone append on the event loop's thread never
waits for the lock there (that would stop the whole bot): when the lock is taken it goes to the
writer connection's thread and waits there. Reads never wait for a writer (WAL).

The hot path never scans the log: the game row holds the log head (sequence number and hash), the
next die's sequence number, the seed epoch and the state snapshot, updated in the same transaction
as the appended entry.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any, ClassVar

import aiosqlite

from bot.ops import metrics
from bot.storage import sql
from bot.storage.base import (
    Append,
    BoardRow,
    Duplicate,
    Repository,
    StorageConflict,
    StorageUnavailable,
    Transaction,
    entry_parameters,
    migrate,
    move_parameters,
    roll_rows,
    seed_statements,
)
from bot.storage.limits import Gate, Limits

_PRAGMAS = (
    "PRAGMA journal_mode=WAL",
    "PRAGMA synchronous=FULL",
    "PRAGMA foreign_keys=ON",
)


class _DeadlinePassed(Exception):
    """A write's deadline passed before it held the write lock: nothing was written."""


def _busy(exc: BaseException) -> bool:
    """Whether ``exc`` is SQLite's "database is locked": another connection held the write lock
    past the busy timeout."""
    return isinstance(exc, sqlite3.OperationalError) and getattr(exc, "sqlite_errorcode", None) in (
        sqlite3.SQLITE_BUSY,
        sqlite3.SQLITE_LOCKED,
    )


class SQLiteRepository(Repository):
    """Games and their logs in one SQLite file."""

    engine: ClassVar[str] = "sqlite"

    def __init__(
        self,
        writer: aiosqlite.Connection,
        reader: aiosqlite.Connection,
        direct: sqlite3.Connection | None = None,
        path: Path | None = None,
        limits: Limits | None = None,
    ) -> None:
        self.limits = limits if limits is not None else Limits()
        self._gate = Gate(self.limits, 3 + self.limits.queue)
        self._writer = writer
        self._reader = reader
        self._direct = direct
        """A connection of the event loop's thread for lone appends (None: always the writer's
        thread)."""
        self.path = path
        self._write_lock = asyncio.Lock()
        self._pending: list[tuple[Append, int, asyncio.Future[None], float]] = []
        """Appends waiting for the next transaction: ``(change, head, answer, deadline)``."""
        self._flusher: asyncio.Task[None] | None = None

    @classmethod
    async def open(cls, target: Path | str, limits: Limits | None = None) -> SQLiteRepository:
        """Open (creating if needed) the database file and bring its schema up to date.

        :raises StorageUnavailable: the file cannot be opened, is not a database, or its schema
            cannot be brought up to date; every connection opened is closed again.
        """
        path = Path(target)
        limits = limits if limits is not None else Limits()
        waits = f"PRAGMA busy_timeout={int(limits.timeout * 1000)}"
        opened: list[aiosqlite.Connection | sqlite3.Connection] = []
        try:
            if path.parent and not path.parent.exists():
                path.parent.mkdir(parents=True, exist_ok=True)
            # the loop's own connection first: a file that cannot be opened or is no database
            # is refused here, before aiosqlite starts a thread that would outlive the failure
            # opening waits up to the deadline for another process's lock (a fresh file being
            # migrated by a process started at the same time), not sqlite3's default of 5 s
            direct = sqlite3.connect(path, isolation_level=None, timeout=limits.timeout)
            opened.append(direct)
            for pragma in (*_PRAGMAS, "PRAGMA busy_timeout=0"):  # the loop's thread never waits
                direct.execute(pragma)
            writer = await aiosqlite.connect(path, isolation_level=None, timeout=limits.timeout)
            opened.append(writer)
            for pragma in (*_PRAGMAS, waits):
                await writer.execute(pragma)
            async with _begin(writer) as tx:  # processes opening a new file migrate it once
                await migrate(tx, "sqlite")
            reader = await aiosqlite.connect(path, isolation_level=None, timeout=limits.timeout)
            opened.append(reader)
            for pragma in (*_PRAGMAS[1:], waits):
                await reader.execute(pragma)
        except (OSError, sqlite3.Error) as exc:
            for connection in reversed(opened):
                if isinstance(connection, aiosqlite.Connection):
                    await connection.close()
                else:
                    connection.close()
            reason = str(exc).rstrip(".") or type(exc).__name__
            raise StorageUnavailable(f"Cannot open the SQLite database {path}: {reason}.") from exc
        return cls(writer, reader, direct, path, limits)

    async def close(self) -> None:
        """Finish the pending appends, then close both connections."""
        if self._flusher is not None and not self._flusher.done():
            await self._flusher
        if self._direct is not None:
            self._direct.close()
        await self._reader.close()
        await self._writer.close()

    # --- the primitives --------------------------------------------------------------------

    def pool_use(self) -> tuple[int, int, int, int]:
        """``(connections open, of them in use, the most, calls in flight)`` (metrics)."""
        return 3, min(3, self._gate.inside), 3, self._gate.inside

    async def _fetch(self, query: str, params: Sequence[Any] = ()) -> Sequence[Sequence[Any]]:
        """The rows of one read, on the reader connection (committed data only)."""
        with self._gate:
            began = time.perf_counter()
            try:
                async with asyncio.timeout(self.limits.timeout):
                    rows = list(await self._reader.execute_fetchall(query, params))
                metrics.database("read", time.perf_counter() - began)
                return rows
            except TimeoutError:
                raise self.limits.timed_out() from None
            except sqlite3.OperationalError as exc:
                if _busy(exc):
                    raise self.limits.timed_out() from exc
                raise

    async def game_head(self, game_id: int) -> tuple[int, str] | None:
        """The game's log head and status, read on the event loop's own connection (a lookup by
        key in WAL mode never waits for a writer): no thread hand-over, the cost of the other
        reads, for the check every read of a cached game makes."""
        if self._direct is None:
            return await super().game_head(game_id)
        try:
            row = self._direct.execute(sql.GAME_HEAD, (game_id,)).fetchone()
        except sqlite3.OperationalError as exc:  # a rare wait (a checkpoint): on the reader
            if not _busy(exc):
                raise
            return await super().game_head(game_id)
        return (int(row[0]), str(row[1])) if row is not None else None

    async def channel_board(self, guild_id: int, channel_id: int) -> BoardRow | None:
        """The board of the channel's latest game, read on the event loop's own connection as
        :meth:`game_head` is (keyed lookups): asked after every action's burst, board or not."""
        if self._direct is None:
            return await super().channel_board(guild_id, channel_id)
        try:
            row = self._direct.execute(sql.CHANNEL_BOARD, (guild_id, channel_id)).fetchone()
        except sqlite3.OperationalError as exc:  # a rare wait (a checkpoint): on the reader
            if not _busy(exc):
                raise
            return await super().channel_board(guild_id, channel_id)
        return BoardRow(int(row[0]), row[1], bool(row[2])) if row is not None else None

    @contextlib.asynccontextmanager
    async def _transaction(self) -> AsyncIterator[Transaction]:
        """One write transaction on the writer connection, under the write lock; it waits for
        the file's write lock until the deadline, and commits only before it."""
        deadline = time.monotonic() + self.limits.timeout
        with self._gate:
            began = time.perf_counter()
            try:
                async with self._write_lock, _begin(self._writer, deadline) as tx:
                    yield tx
                metrics.database("write", time.perf_counter() - began)
            except _DeadlinePassed:
                raise self.limits.timed_out() from None
            except sqlite3.OperationalError as exc:
                if _busy(exc):
                    raise self.limits.timed_out() from exc
                raise

    # --- writes --------------------------------------------------------------------------

    async def append(self, change: Append, expected_head: int) -> None:
        """Append one entry and write the game row after it, durably, in one transaction.

        Appends that arrive while a commit is in flight are committed together in the next
        transaction (group commit: one fsync for many games' actions). If a grouped transaction
        fails, it is rolled back and each append is retried alone, so one bad append never
        fails another.

        :raises StorageConflict: if the game's head is no longer ``expected_head``.
        :raises Duplicate: the interaction id was stored before.
        """
        with self._gate:
            deadline = time.monotonic() + self.limits.timeout
            # nothing else is writing: the lone append's transaction runs right here, on the
            # loop's thread (no flusher task, no future, one turn of the loop fewer)
            if self._idle() and self._lone_append(change, expected_head, deadline):
                metrics.database("append", time.monotonic() + self.limits.timeout - deadline)
                # an append yields to the loop as a queued one does: a caller that appends in a
                # loop never starves the others (timers, the gateway's heartbeat)
                await asyncio.sleep(0)
                return
            future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._pending.append((change, expected_head, future, deadline))
            if self._flusher is None or self._flusher.done():
                self._flusher = asyncio.create_task(self._flush())
            # not shielded: a cancelled caller cancels only its future (the flusher skips a
            # done one, the append is written all the same), and the answer wakes the caller
            # in the loop's next turn, not the one after
            await future
            metrics.database("append", time.monotonic() + self.limits.timeout - deadline)

    def _idle(self) -> bool:
        """Whether an append may be written at once on the loop's thread: the loop has its own
        connection, no other write is in flight or waiting (the flusher, the write lock), and
        nothing else is ready to run in this turn of the loop — so no other append could join
        this one's transaction (the flusher would start in the next turn with this append
        alone and write it on the loop's thread all the same). The ready queue is asyncio's own
        loop's (``_ready``); another loop (uvloop) does not show it, and its appends always go
        through the flusher."""
        if self._direct is None or self._pending or self._write_lock.locked():
            return False
        if self._flusher is not None and not self._flusher.done():
            return False
        ready = getattr(asyncio.get_running_loop(), "_ready", None)
        return ready is not None and not ready

    def _lone_append(self, change: Append, expected_head: int, deadline: float) -> bool:
        """Write one append in a transaction of the loop's connection, synchronously: True when
        written; False when another process holds the file's write lock (the caller queues the
        append for the writer's thread, which waits for the lock). A refusal raises what a
        queued append's refusal raises (:meth:`_refusal`)."""
        assert self._direct is not None
        try:
            _append_transaction(
                self._direct,
                [entry_parameters(change.entry, change.game.id)],
                roll_rows(change.game, change.user_id, change.dice),
                seed_statements(change),
                [move_parameters(change.game, expected_head)],
                deadline,
            )
        except Exception as exc:
            if _busy(exc):
                return False
            refusal = self._refusal(exc)
            if refusal is exc:
                raise
            raise refusal from exc
        return True

    async def _flush(self) -> None:
        while self._pending:
            batch, self._pending = self._pending, []
            async with self._write_lock:
                if len(batch) > 1:
                    try:
                        await self._write(batch)
                    except Exception as exc:  # fall back to one transaction per append
                        if _busy(exc):  # the lock stayed taken past the deadline: all refused
                            for item in batch:
                                self._answer(item, self.limits.timed_out())
                            continue
                    else:
                        for item in batch:
                            self._answer(item, None)
                        continue
                for item in batch:
                    try:
                        await self._write([item])
                    except Exception as exc:
                        self._answer(item, exc)
                    else:
                        self._answer(item, None)

    def _answer(self, item: tuple[Append, int, asyncio.Future[None], float], exc: Any) -> None:
        """Settle one append's future: written (``exc`` None) or refused with what it means."""
        future = item[2]
        if future.done():
            return
        if exc is None:
            future.set_result(None)
        else:
            future.set_exception(self._refusal(exc))

    def _refusal(self, exc: BaseException) -> BaseException:
        """What a failed append's caller is told: a unique key is :class:`Duplicate`, a deadline
        passed or a lock held past it is the storage's time-out, anything else itself."""
        if isinstance(exc, sqlite3.IntegrityError):
            return Duplicate(str(exc))
        if isinstance(exc, _DeadlinePassed) or _busy(exc):
            return self.limits.timed_out()
        return exc

    async def _write(self, batch: list[tuple[Append, int, asyncio.Future[None], float]]) -> None:
        """One transaction for the whole batch: each kind of statement once, for every append.

        The parameters are prepared here; a group's transaction runs in the writer connection's
        thread as one call (one hand-over to that thread per transaction, not one per statement),
        a lone append's on the event loop's thread (the loop waits for its fsync, ~0.2 ms, rather
        than for two thread wake-ups).
        """
        entries = [entry_parameters(c.entry, c.game.id) for c, _, _, _ in batch]
        rolls = [row for c, _, _, _ in batch for row in roll_rows(c.game, c.user_id, c.dice)]
        seeds = [seed for c, _, _, _ in batch for seed in seed_statements(c)]
        games = [move_parameters(c.game, head) for c, head, _, _ in batch]
        deadline = min(item[3] for item in batch)
        if len(batch) == 1 and self._direct is not None:
            try:
                _append_transaction(self._direct, entries, rolls, seeds, games, deadline)
                return
            except sqlite3.OperationalError as exc:  # another process holds the write lock:
                if not _busy(exc):  # wait for it in the writer's thread, not on the loop's
                    raise
        # aiosqlite's own hand-over to its thread (untyped): the whole transaction in one call
        await self._writer._execute(  # type: ignore[no-untyped-call]
            _waiting_append, self._writer._conn, entries, rolls, seeds, games, deadline
        )


def _append_transaction(
    db: sqlite3.Connection,
    entries: list[tuple[Any, ...]],
    rolls: list[tuple[Any, ...]],
    seeds: list[tuple[str, tuple[Any, ...]]],
    games: list[tuple[Any, ...]],
    deadline: float,
) -> None:
    """The statements of :meth:`SQLiteRepository._write`, run in one transaction.

    Once the write lock is held, a batch whose deadline (``time.monotonic()``) passed is refused
    (:class:`_DeadlinePassed`) before anything is written. The game rows move first: a game
    whose head moved under the writer (another process wrote it) is refused before anything
    else is written.
    """
    db.execute("BEGIN IMMEDIATE")
    if time.monotonic() > deadline:
        db.execute("ROLLBACK")
        raise _DeadlinePassed
    try:
        # a game that stays active keeps its status untouched (:data:`sql.MOVE_ACTIVE_GAME`)
        staying = [game[1:] for game in games if game[0] == "active"]
        ending = [game for game in games if game[0] != "active"]
        moved = db.executemany(sql.MOVE_ACTIVE_GAME, staying).rowcount if staying else 0
        moved += db.executemany(sql.MOVE_GAME, ending).rowcount if ending else 0
        if moved != len(games):
            raise StorageConflict("a game moved past its expected log head under a writer")
        db.executemany(sql.INSERT_ENTRY, entries)
        if rolls:
            db.executemany(sql.INSERT_ROLL, rolls)
        for statement, parameters in seeds:
            db.execute(statement, parameters)
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def _waiting_append(
    db: sqlite3.Connection,
    entries: list[tuple[Any, ...]],
    rolls: list[tuple[Any, ...]],
    seeds: list[tuple[str, tuple[Any, ...]]],
    games: list[tuple[Any, ...]],
    deadline: float,
) -> None:
    """:func:`_append_transaction` in the writer's thread, waiting for the write lock until the
    deadline at most (SQLite's busy timeout)."""
    wait = _milliseconds_until(deadline)
    db.execute(f"PRAGMA busy_timeout={wait}")
    _append_transaction(db, entries, rolls, seeds, games, deadline)


def _milliseconds_until(deadline: float) -> int:
    """SQLite's busy timeout for waiting until ``deadline`` (``time.monotonic()``), at most a
    day (a bulk tool's ``inf``: no deadline)."""
    return int(min(max(0.0, deadline - time.monotonic()), 86_400.0) * 1000)


class _SQLiteTransaction:
    """A :class:`~bot.storage.base.Transaction` on an aiosqlite connection."""

    def __init__(self, db: aiosqlite.Connection) -> None:
        self.db = db

    async def execute(self, query: str, params: Sequence[Any] = ()) -> int:
        cursor = await self.db.execute(query, params)
        return int(cursor.rowcount)

    async def insert(self, query: str, params: Sequence[Any]) -> int:
        cursor = await self.db.execute(query, params)
        assert cursor.lastrowid is not None
        return int(cursor.lastrowid)

    async def fetch(self, query: str, params: Sequence[Any] = ()) -> Sequence[Sequence[Any]]:
        return list(await self.db.execute_fetchall(query, params))


@contextlib.asynccontextmanager
async def _begin(
    db: aiosqlite.Connection, deadline: float | None = None
) -> AsyncIterator[Transaction]:
    """``BEGIN IMMEDIATE`` (SQLite's write lock, across processes) … ``COMMIT``, rolled back if
    the block raises or its ``deadline`` (``time.monotonic()``) passed before the commit; a
    unique key refusing a write is :class:`~bot.storage.base.Duplicate`."""
    if deadline is not None:  # wait for the write lock until the deadline at most
        wait = _milliseconds_until(deadline)
        await db.execute(f"PRAGMA busy_timeout={wait}")
    await db.execute("BEGIN IMMEDIATE")
    try:
        yield _SQLiteTransaction(db)
        if deadline is not None and time.monotonic() > deadline:
            raise _DeadlinePassed
        await db.execute("COMMIT")
    except sqlite3.IntegrityError as exc:
        await db.execute("ROLLBACK")
        raise Duplicate(str(exc)) from exc
    except BaseException:
        await db.execute("ROLLBACK")
        raise


__all__ = ["SQLiteRepository"]
