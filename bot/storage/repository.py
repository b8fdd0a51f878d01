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

The hot path never scans the log: the game row holds the log head (sequence number and hash), the
next die's sequence number, the seed epoch and the state snapshot, updated in the same transaction
as the appended entry.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any, ClassVar

import aiosqlite

from bot.storage import sql
from bot.storage.base import (
    Append,
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

_PRAGMAS = (
    "PRAGMA journal_mode=WAL",
    "PRAGMA synchronous=FULL",
    "PRAGMA foreign_keys=ON",
    "PRAGMA busy_timeout=10000",
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
    ) -> None:
        self._writer = writer
        self._reader = reader
        self._direct = direct
        """A connection of the event loop's thread for lone appends (None: always the writer's
        thread)."""
        self.path = path
        self._write_lock = asyncio.Lock()
        self._pending: list[tuple[Append, int, asyncio.Future[None]]] = []
        self._flusher: asyncio.Task[None] | None = None

    @classmethod
    async def open(cls, target: Path | str) -> SQLiteRepository:
        """Open (creating if needed) the database file and bring its schema up to date.

        :raises StorageUnavailable: the file cannot be opened, is not a database, or its schema
            cannot be brought up to date; every connection opened is closed again.
        """
        path = Path(target)
        opened: list[aiosqlite.Connection | sqlite3.Connection] = []
        try:
            if path.parent and not path.parent.exists():
                path.parent.mkdir(parents=True, exist_ok=True)
            # the loop's own connection first: a file that cannot be opened or is no database
            # is refused here, before aiosqlite starts a thread that would outlive the failure
            direct = sqlite3.connect(path, isolation_level=None)
            opened.append(direct)
            for pragma in _PRAGMAS:
                direct.execute(pragma)
            writer = await aiosqlite.connect(path, isolation_level=None)
            opened.append(writer)
            for pragma in _PRAGMAS:
                await writer.execute(pragma)
            async with _begin(writer) as tx:  # processes opening a new file migrate it once
                await migrate(tx, "sqlite")
            reader = await aiosqlite.connect(path, isolation_level=None)
            opened.append(reader)
            for pragma in _PRAGMAS[1:]:
                await reader.execute(pragma)
        except (OSError, sqlite3.Error) as exc:
            for connection in reversed(opened):
                if isinstance(connection, aiosqlite.Connection):
                    await connection.close()
                else:
                    connection.close()
            reason = str(exc).rstrip(".") or type(exc).__name__
            raise StorageUnavailable(f"Cannot open the SQLite database {path}: {reason}.") from exc
        return cls(writer, reader, direct, path)

    async def close(self) -> None:
        """Finish the pending appends, then close both connections."""
        if self._flusher is not None and not self._flusher.done():
            await self._flusher
        if self._direct is not None:
            self._direct.close()
        await self._reader.close()
        await self._writer.close()

    # --- the primitives --------------------------------------------------------------------

    async def _fetch(self, query: str, params: Sequence[Any] = ()) -> Sequence[Sequence[Any]]:
        """The rows of one read, on the reader connection (committed data only)."""
        return list(await self._reader.execute_fetchall(query, params))

    async def game_head(self, game_id: int) -> tuple[int, str] | None:
        """The game's log head and status, read on the event loop's own connection (a lookup by
        key in WAL mode never waits for a writer): no thread hand-over, the cost of the other
        reads, for the check every read of a cached game makes."""
        if self._direct is None:
            return await super().game_head(game_id)
        row = self._direct.execute(sql.GAME_HEAD, (game_id,)).fetchone()
        return (int(row[0]), str(row[1])) if row is not None else None

    @contextlib.asynccontextmanager
    async def _transaction(self) -> AsyncIterator[Transaction]:
        """One write transaction on the writer connection, under the write lock."""
        async with self._write_lock, _begin(self._writer) as tx:
            yield tx

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
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending.append((change, expected_head, future))
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush())
        await asyncio.shield(future)

    async def _flush(self) -> None:
        while self._pending:
            batch, self._pending = self._pending, []
            async with self._write_lock:
                if len(batch) > 1:
                    try:
                        await self._write(batch)
                    except Exception:  # fall back to one transaction per append
                        pass
                    else:
                        for _, _, future in batch:
                            if not future.done():
                                future.set_result(None)
                        continue
                for item in batch:
                    try:
                        await self._write([item])
                    except sqlite3.IntegrityError as exc:
                        if not item[2].done():
                            item[2].set_exception(Duplicate(str(exc)))
                    except Exception as exc:
                        if not item[2].done():
                            item[2].set_exception(exc)
                    else:
                        if not item[2].done():
                            item[2].set_result(None)

    async def _write(self, batch: list[tuple[Append, int, asyncio.Future[None]]]) -> None:
        """One transaction for the whole batch: each kind of statement once, for every append.

        The parameters are prepared here; a group's transaction runs in the writer connection's
        thread as one call (one hand-over to that thread per transaction, not one per statement),
        a lone append's on the event loop's thread (the loop waits for its fsync, ~0.2 ms, rather
        than for two thread wake-ups).
        """
        entries = [entry_parameters(c.entry, c.game.id) for c, _, _ in batch]
        rolls = [row for c, _, _ in batch for row in roll_rows(c.game, c.user_id, c.dice)]
        seeds = [seed for c, _, _ in batch for seed in seed_statements(c)]
        games = [move_parameters(c.game, head) for c, head, _ in batch]
        if len(batch) == 1 and self._direct is not None:
            _append_transaction(self._direct, entries, rolls, seeds, games)
            return
        # aiosqlite's own hand-over to its thread (untyped): the whole transaction in one call
        await self._writer._execute(  # type: ignore[no-untyped-call]
            _append_transaction, self._writer._conn, entries, rolls, seeds, games
        )


def _append_transaction(
    db: sqlite3.Connection,
    entries: list[tuple[Any, ...]],
    rolls: list[tuple[Any, ...]],
    seeds: list[tuple[str, tuple[Any, ...]]],
    games: list[tuple[Any, ...]],
) -> None:
    """The statements of :meth:`SQLiteRepository._write`, run in one transaction.

    The game rows move first: a game whose head moved under the writer (another process wrote
    it) is refused before anything else is written.
    """
    db.execute("BEGIN IMMEDIATE")
    try:
        cursor = db.executemany(sql.MOVE_GAME, games)
        if cursor.rowcount != len(games):
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
async def _begin(db: aiosqlite.Connection) -> AsyncIterator[Transaction]:
    """``BEGIN IMMEDIATE`` (SQLite's write lock, across processes) … ``COMMIT``, rolled back if
    the block raises; a unique key refusing a write is :class:`~bot.storage.base.Duplicate`."""
    await db.execute("BEGIN IMMEDIATE")
    try:
        yield _SQLiteTransaction(db)
        await db.execute("COMMIT")
    except sqlite3.IntegrityError as exc:
        await db.execute("ROLLBACK")
        raise Duplicate(str(exc)) from exc
    except BaseException:
        await db.execute("ROLLBACK")
        raise


__all__ = ["SQLiteRepository"]
