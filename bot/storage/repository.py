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

The hot path never scans the log: the game row holds the log head (sequence number and hash), the
next die's sequence number, the seed epoch and the state snapshot, updated in the same transaction
as the appended entry.
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any, ClassVar

import aiosqlite

from bot.storage import sql
from bot.storage.base import (
    Append,
    Duplicate,
    GameRow,
    Repository,
    StorageConflict,
    StorageUnavailable,
    StoredEntry,
    canonical,
    game_from_row,
    roll_rows,
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
            await _migrate(writer)
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

    async def schema_version(self) -> int:
        """The applied migration number."""
        rows = await self._reader.execute_fetchall(sql.SCHEMA_VERSION)
        return int(next(iter(rows))[0])

    # --- reads ---------------------------------------------------------------------------

    async def _one_game(self, query: str, params: tuple[Any, ...]) -> GameRow | None:
        rows = list(await self._reader.execute_fetchall(query, params))
        return game_from_row(rows[0]) if rows else None

    async def active_game(self, guild_id: int, channel_id: int) -> GameRow | None:
        """The channel's active game, if any."""
        return await self._one_game(sql.ACTIVE_GAME, (guild_id, channel_id))

    async def latest_game(self, guild_id: int, channel_id: int) -> GameRow | None:
        """The channel's most recent game, active or ended."""
        return await self._one_game(sql.LATEST_GAME, (guild_id, channel_id))

    async def pending_declarations(self) -> list[GameRow]:
        """Active games with a declaration waiting for its beacon round (bot/dice/beacon)."""
        rows = await self._reader.execute_fetchall(sql.PENDING_CANDIDATES)
        return [game for game in map(game_from_row, rows) if game.table.get("pending") is not None]

    async def games_in_guild(self, guild_id: int) -> list[GameRow]:
        """Every game of the server, active and ended, oldest first."""
        rows = await self._reader.execute_fetchall(sql.GUILD_GAMES, (guild_id,))
        return [game_from_row(row) for row in rows]

    async def game(self, game_id: int) -> GameRow | None:
        """A game by its row id."""
        return await self._one_game(sql.GAME_BY_ID, (game_id,))

    async def entry_by_interaction(self, interaction_id: str) -> StoredEntry | None:
        """The entry an interaction produced, if it was seen before."""
        rows = list(
            await self._reader.execute_fetchall(sql.ENTRY_BY_INTERACTION, (interaction_id,))
        )
        return StoredEntry(*rows[0]) if rows else None

    async def entries(
        self, game_id: int, *, after: int = 0, upto: int | None = None
    ) -> list[StoredEntry]:
        """The game's entries with ``after < seq <= upto``, in order."""
        rows = await self._reader.execute_fetchall(
            sql.ENTRIES, (game_id, after, upto if upto is not None else 2**62)
        )
        return [StoredEntry(*row) for row in rows]

    async def last_entries(self, game_id: int, count: int) -> list[StoredEntry]:
        """The game's last ``count`` entries, oldest first."""
        rows = list(await self._reader.execute_fetchall(sql.LAST_ENTRIES, (game_id, count)))
        return [StoredEntry(*row) for row in reversed(rows)]

    async def face_counts(
        self,
        *,
        guild_id: int,
        channel_id: int | None = None,
        game_id: int | None = None,
        user_id: int | None = None,
        category: str | None = None,
    ) -> dict[int, dict[int, int]]:
        """Counts of faces per die size: ``{sides: {face: count}}`` for the scope asked; with
        ``category``, only dice whose label starts with it and a space."""
        query, params = sql.face_counts(guild_id, channel_id, game_id, user_id, category)
        counts: dict[int, dict[int, int]] = {}
        for sides, face, count in await self._reader.execute_fetchall(query, params):
            counts.setdefault(int(sides), {})[int(face)] = int(count)
        return counts

    async def label_sums(
        self,
        *,
        guild_id: int,
        channel_id: int | None = None,
        game_id: int | None = None,
        user_id: int | None = None,
    ) -> list[tuple[str, int, int, int]]:
        """``(label, sides, dice, sum of faces)`` per die label for the scope asked."""
        query, params = sql.label_sums(guild_id, channel_id, game_id, user_id)
        rows = await self._reader.execute_fetchall(query, params)
        return [(str(label), int(sides), int(n), int(total)) for label, sides, n, total in rows]

    async def revealed_seeds(self, game_id: int) -> list[tuple[int, str, bytes | None]]:
        """``(epoch, commitment, revealed seed or None)`` of every epoch of the game."""
        rows = await self._reader.execute_fetchall(sql.SEEDS, (game_id,))
        return [(int(e), str(c), bytes(r) if r is not None else None) for e, c, r in rows]

    # --- writes --------------------------------------------------------------------------

    async def create_game(self, game: GameRow, genesis: StoredEntry) -> int:
        """Insert a game, its first seed epoch and its genesis entry in one transaction.

        :returns: the new game's row id.
        :raises Duplicate: the channel has an active game, or the interaction id was stored.
        """
        async with self._write_lock:
            db = self._writer
            await db.execute("BEGIN IMMEDIATE")
            try:
                cursor = await db.execute(sql.INSERT_GAME, game_parameters(game))
                game_id = cursor.lastrowid
                assert game_id is not None
                await db.execute(sql.INSERT_SEED, (game_id, game.epoch, game.commitment, None))
                await db.execute(sql.INSERT_ENTRY, entry_parameters(genesis, game_id))
                await db.execute("COMMIT")
            except sqlite3.IntegrityError as exc:
                await db.execute("ROLLBACK")
                raise Duplicate(str(exc)) from exc
            except BaseException:
                await db.execute("ROLLBACK")
                raise
            return int(game_id)

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
            _transaction(self._direct, entries, rolls, seeds, games)
            return
        # aiosqlite's own hand-over to its thread (untyped): the whole transaction in one call
        await self._writer._execute(  # type: ignore[no-untyped-call]
            _transaction, self._writer._conn, entries, rolls, seeds, games
        )


def game_parameters(game: GameRow) -> tuple[Any, ...]:
    """The parameters of :data:`bot.storage.sql.INSERT_GAME`."""
    return (
        game.public_id, game.guild_id, game.channel_id, game.parent_id, game.system, game.title,
        game.status, game.created_at, game.created_by, canonical(game.table), game.state_json,
        game.head_seq, game.head_hash, game.next_die, game.epoch, game.seed, game.commitment,
        game.players_mix,
    )  # fmt: skip


def entry_parameters(entry: StoredEntry, game_id: int) -> tuple[Any, ...]:
    """The parameters of :data:`bot.storage.sql.INSERT_ENTRY`."""
    return (game_id, entry.seq, entry.interaction_id, entry.kind, entry.body, entry.hash)


def move_parameters(game: GameRow, expected_head: int) -> tuple[Any, ...]:
    """The parameters of :data:`bot.storage.sql.MOVE_GAME`."""
    return (
        game.status, canonical(game.table), game.state_json, game.head_seq, game.head_hash,
        game.next_die, game.epoch, game.seed, game.commitment, game.players_mix, game.id,
        expected_head,
    )  # fmt: skip


def seed_statements(change: Append) -> list[tuple[str, tuple[Any, ...]]]:
    """The seed reveal and new epoch an append writes, as ``(sql, parameters)``."""
    out: list[tuple[str, tuple[Any, ...]]] = []
    if change.reveal is not None:
        out.append((sql.REVEAL_SEED, (change.reveal[1], change.game.id, change.reveal[0])))
    if change.new_epoch is not None:
        out.append(
            (sql.INSERT_SEED, (change.game.id, change.new_epoch[0], change.new_epoch[1], None))
        )
    return out


def _transaction(
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


async def _migrate(db: aiosqlite.Connection) -> int:
    """Apply the pending migrations under SQLite's write lock (``BEGIN IMMEDIATE``): processes
    opening a new file at once migrate it once, and the version table holds one row."""
    await db.execute("BEGIN IMMEDIATE")
    try:
        await db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        rows = list(await db.execute_fetchall(sql.SCHEMA_VERSION))
        if not rows:
            await db.execute("INSERT INTO schema_version (version) VALUES (0)")
        current = int(rows[0][0]) if rows else 0
        for number, statements in sql.migrations("sqlite"):
            if number <= current:
                continue
            for statement in statements:
                await db.execute(statement)
            await db.execute("UPDATE schema_version SET version = ?", (number,))
            current = number
        await db.execute("COMMIT")
    except BaseException:
        await db.execute("ROLLBACK")
        raise
    return current


__all__ = ["SQLiteRepository"]
