"""The one module that speaks SQL: games, the append-only log, seeds and per-die records.

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
import json
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import aiosqlite

from bot.dice import DieRecord

_PRAGMAS = (
    "PRAGMA journal_mode=WAL",
    "PRAGMA synchronous=FULL",
    "PRAGMA foreign_keys=ON",
    "PRAGMA busy_timeout=10000",
)


class StorageConflict(Exception):
    """The game row changed under a writer: the one-writer-per-game rule was broken (a bug)."""


@dataclass
class GameRow:
    """One game as stored: identity, place, the table (seats, referees), snapshot and log head."""

    id: int
    public_id: str
    guild_id: int
    channel_id: int
    parent_id: int | None
    system: str
    title: str
    status: str
    created_at: str
    created_by: int
    table: dict[str, Any]
    state_json: str
    head_seq: int
    head_hash: str
    next_die: int
    epoch: int
    seed: bytes
    commitment: str
    players_mix: bytes


_GAME_COLUMNS = (
    "id, public_id, guild_id, channel_id, parent_id, system, title, status, created_at, "
    "created_by, table_json, state_json, head_seq, head_hash, next_die, epoch, seed, commitment, "
    "players_mix"
)


def _game(row: Sequence[Any]) -> GameRow:
    return GameRow(
        id=row[0],
        public_id=row[1],
        guild_id=row[2],
        channel_id=row[3],
        parent_id=row[4],
        system=row[5],
        title=row[6],
        status=row[7],
        created_at=row[8],
        created_by=row[9],
        table=json.loads(row[10]),
        state_json=row[11],
        head_seq=row[12],
        head_hash=row[13],
        next_die=row[14],
        epoch=row[15],
        seed=bytes(row[16]),
        commitment=row[17],
        players_mix=bytes(row[18]),
    )


@dataclass(frozen=True)
class StoredEntry:
    """One log entry as stored: its game, sequence number, interaction id, kind, body and hash."""

    game_id: int
    seq: int
    interaction_id: str
    kind: str
    body: str
    hash: str

    def data(self) -> dict[str, Any]:
        """The parsed body."""
        parsed: dict[str, Any] = json.loads(self.body)
        return parsed


@dataclass
class Append:
    """Everything one action writes, in one transaction."""

    entry: StoredEntry
    game: GameRow
    """The game row after the entry (head, snapshot, table, dice counters, seed)."""
    dice: Sequence[DieRecord] = ()
    user_id: int = 0
    reveal: tuple[int, bytes] | None = None
    """``(epoch, seed)`` revealed by this entry."""
    new_epoch: tuple[int, str] | None = None
    """``(epoch, commitment)`` committed by this entry."""
    extra: dict[str, Any] = field(default_factory=dict)


def migrations() -> list[tuple[int, str]]:
    """The numbered migrations shipped in ``bot/storage/migrations``: ``(number, sql)``, sorted."""
    found = []
    for item in resources.files("bot.storage").joinpath("migrations").iterdir():
        name = item.name
        if name.endswith(".sql") and name[:3].isdigit():
            found.append((int(name[:3]), item.read_text(encoding="utf-8")))
    return sorted(found)


class Repository:
    """Games and their logs in one SQLite file."""

    def __init__(
        self,
        writer: aiosqlite.Connection,
        reader: aiosqlite.Connection,
        direct: sqlite3.Connection | None = None,
    ) -> None:
        self._writer = writer
        self._reader = reader
        self._direct = direct
        """A connection of the event loop's thread for lone appends (None: always the writer's
        thread)."""
        self._write_lock = asyncio.Lock()
        self._pending: list[tuple[Append, int, asyncio.Future[None]]] = []
        self._flusher: asyncio.Task[None] | None = None

    @classmethod
    async def open(cls, path: Path | str) -> Repository:
        """Open (creating if needed) the database and bring its schema up to date."""
        path = Path(path)
        if path.parent and not path.parent.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
        writer = await aiosqlite.connect(path, isolation_level=None)
        for pragma in _PRAGMAS:
            await writer.execute(pragma)
        repo_migrated = await _migrate(writer)
        del repo_migrated
        reader = await aiosqlite.connect(path, isolation_level=None)
        for pragma in _PRAGMAS[1:]:
            await reader.execute(pragma)
        direct = sqlite3.connect(path, isolation_level=None)
        for pragma in _PRAGMAS:
            direct.execute(pragma)
        return cls(writer, reader, direct)

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
        rows = await self._reader.execute_fetchall("SELECT version FROM schema_version")
        return int(next(iter(rows))[0])

    # --- reads ---------------------------------------------------------------------------

    async def active_game(self, guild_id: int, channel_id: int) -> GameRow | None:
        """The channel's active game, if any."""
        rows = list(
            await self._reader.execute_fetchall(
                f"SELECT {_GAME_COLUMNS} FROM games "
                "WHERE guild_id = ? AND channel_id = ? AND status = 'active'",
                (guild_id, channel_id),
            )
        )
        return _game(rows[0]) if rows else None

    async def latest_game(self, guild_id: int, channel_id: int) -> GameRow | None:
        """The channel's most recent game, active or ended."""
        rows = list(
            await self._reader.execute_fetchall(
                f"SELECT {_GAME_COLUMNS} FROM games WHERE guild_id = ? AND channel_id = ? "
                "ORDER BY id DESC LIMIT 1",
                (guild_id, channel_id),
            )
        )
        return _game(rows[0]) if rows else None

    async def pending_declarations(self) -> list[GameRow]:
        """Active games with a declaration waiting for its beacon round (bot/beacon)."""
        rows = await self._reader.execute_fetchall(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE status = 'active' "
            "AND json_extract(table_json, '$.pending') IS NOT NULL ORDER BY id"
        )
        return [_game(row) for row in rows]

    async def game(self, game_id: int) -> GameRow | None:
        """A game by its row id."""
        rows = list(
            await self._reader.execute_fetchall(
                f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?", (game_id,)
            )
        )
        return _game(rows[0]) if rows else None

    async def entry_by_interaction(self, interaction_id: str) -> StoredEntry | None:
        """The entry an interaction produced, if it was seen before."""
        rows = list(
            await self._reader.execute_fetchall(
                "SELECT game_id, seq, interaction_id, kind, body, hash FROM entries "
                "WHERE interaction_id = ?",
                (interaction_id,),
            )
        )
        return StoredEntry(*rows[0]) if rows else None

    async def entries(
        self, game_id: int, *, after: int = 0, upto: int | None = None
    ) -> list[StoredEntry]:
        """The game's entries with ``after < seq <= upto``, in order."""
        rows = await self._reader.execute_fetchall(
            "SELECT game_id, seq, interaction_id, kind, body, hash FROM entries "
            "WHERE game_id = ? AND seq > ? AND seq <= ? ORDER BY seq",
            (game_id, after, upto if upto is not None else 2**62),
        )
        return [StoredEntry(*row) for row in rows]

    async def last_entries(self, game_id: int, count: int) -> list[StoredEntry]:
        """The game's last ``count`` entries, oldest first."""
        rows = list(
            await self._reader.execute_fetchall(
                "SELECT game_id, seq, interaction_id, kind, body, hash FROM entries "
                "WHERE game_id = ? ORDER BY seq DESC LIMIT ?",
                (game_id, count),
            )
        )
        return [StoredEntry(*row) for row in reversed(rows)]

    async def face_counts(
        self,
        *,
        guild_id: int,
        channel_id: int | None = None,
        game_id: int | None = None,
        user_id: int | None = None,
    ) -> dict[int, dict[int, int]]:
        """Counts of faces per die size: ``{sides: {face: count}}`` for the scope asked."""
        sql = "SELECT sides, face, COUNT(*) FROM rolls WHERE guild_id = ? AND scripted = 0"
        params: list[Any] = [guild_id]
        if channel_id is not None:
            sql += " AND channel_id = ?"
            params.append(channel_id)
        if game_id is not None:
            sql += " AND game_id = ?"
            params.append(game_id)
        if user_id is not None:
            sql += " AND user_id = ?"
            params.append(user_id)
        sql += " GROUP BY sides, face"
        counts: dict[int, dict[int, int]] = {}
        for sides, face, count in await self._reader.execute_fetchall(sql, params):
            counts.setdefault(int(sides), {})[int(face)] = int(count)
        return counts

    async def revealed_seeds(self, game_id: int) -> list[tuple[int, str, bytes | None]]:
        """``(epoch, commitment, revealed seed or None)`` of every epoch of the game."""
        rows = await self._reader.execute_fetchall(
            "SELECT epoch, commitment, revealed FROM seeds WHERE game_id = ? ORDER BY epoch",
            (game_id,),
        )
        return [(int(e), str(c), bytes(r) if r is not None else None) for e, c, r in rows]

    # --- writes --------------------------------------------------------------------------

    async def create_game(self, game: GameRow, genesis: StoredEntry) -> int:
        """Insert a game, its first seed epoch and its genesis entry in one transaction.

        :returns: the new game's row id.
        """
        async with self._write_lock:
            db = self._writer
            await db.execute("BEGIN IMMEDIATE")
            try:
                cursor = await db.execute(
                    "INSERT INTO games (public_id, guild_id, channel_id, parent_id, system, "
                    "title, status, created_at, created_by, table_json, state_json, head_seq, "
                    "head_hash, next_die, epoch, seed, commitment, players_mix) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        game.public_id,
                        game.guild_id,
                        game.channel_id,
                        game.parent_id,
                        game.system,
                        game.title,
                        game.status,
                        game.created_at,
                        game.created_by,
                        _canonical(game.table),
                        game.state_json,
                        game.head_seq,
                        game.head_hash,
                        game.next_die,
                        game.epoch,
                        game.seed,
                        game.commitment,
                        game.players_mix,
                    ),
                )
                game_id = cursor.lastrowid
                assert game_id is not None
                await db.execute(
                    "INSERT INTO seeds (game_id, epoch, commitment, revealed) VALUES (?, ?, ?, ?)",
                    (game_id, game.epoch, game.commitment, None),
                )
                await db.execute(
                    "INSERT INTO entries (game_id, seq, interaction_id, kind, body, hash) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (
                        game_id,
                        genesis.seq,
                        genesis.interaction_id,
                        genesis.kind,
                        genesis.body,
                        genesis.hash,
                    ),
                )
                await db.execute("COMMIT")
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
        entries = [
            (c.game.id, c.entry.seq, c.entry.interaction_id, c.entry.kind, c.entry.body,
             c.entry.hash)
            for c, _, _ in batch
        ]  # fmt: skip
        rolls = [row for c, _, _ in batch for row in _roll_rows(c.game, c.user_id, c.dice)]
        seeds: list[tuple[str, tuple[Any, ...]]] = []
        for change, _, _ in batch:
            if change.reveal is not None:
                seeds.append(
                    (
                        "UPDATE seeds SET revealed = ? WHERE game_id = ? AND epoch = ?",
                        (change.reveal[1], change.game.id, change.reveal[0]),
                    )
                )
            if change.new_epoch is not None:
                seeds.append(
                    (
                        "INSERT INTO seeds (game_id, epoch, commitment, revealed) "
                        "VALUES (?, ?, ?, ?)",
                        (change.game.id, change.new_epoch[0], change.new_epoch[1], None),
                    )
                )
        games = [
            (
                g.status, _canonical(g.table), g.state_json, g.head_seq, g.head_hash,
                g.next_die, g.epoch, g.seed, g.commitment, g.players_mix, g.id, expected,
            )
            for g, expected in ((c.game, head) for c, head, _ in batch)
        ]  # fmt: skip
        if len(batch) == 1 and self._direct is not None:
            _transaction(self._direct, entries, rolls, seeds, games)
            return
        # aiosqlite's own hand-over to its thread (untyped): the whole transaction in one call
        await self._writer._execute(  # type: ignore[no-untyped-call]
            _transaction, self._writer._conn, entries, rolls, seeds, games
        )


def _transaction(
    db: sqlite3.Connection,
    entries: list[tuple[Any, ...]],
    rolls: list[tuple[Any, ...]],
    seeds: list[tuple[str, tuple[Any, ...]]],
    games: list[tuple[Any, ...]],
) -> None:
    """The statements of :meth:`Repository._write`, run in the writer's thread."""
    db.execute("BEGIN IMMEDIATE")
    try:
        db.executemany(
            "INSERT INTO entries (game_id, seq, interaction_id, kind, body, hash) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            entries,
        )
        if rolls:
            db.executemany(
                "INSERT INTO rolls (game_id, seq, guild_id, channel_id, user_id, sides, "
                "face, label, scripted) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                rolls,
            )
        for sql, parameters in seeds:
            db.execute(sql, parameters)
        cursor = db.executemany(
            "UPDATE games SET status = ?, table_json = ?, state_json = ?, head_seq = ?, "
            "head_hash = ?, next_die = ?, epoch = ?, seed = ?, commitment = ?, "
            "players_mix = ? WHERE id = ? AND head_seq = ?",
            games,
        )
        if cursor.rowcount != len(games):
            raise StorageConflict("a game moved past its expected log head under a writer")
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def _roll_rows(
    game: GameRow, user_id: int, dice: Iterable[DieRecord]
) -> list[tuple[int, int, int, int, int, int, int, str, int]]:
    return [
        (
            game.id,
            die.seq,
            game.guild_id,
            game.channel_id,
            user_id,
            die.sides,
            die.face,
            die.label,
            int(die.scripted),
        )
        for die in dice
    ]


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _canonical(data: Any) -> str:
    return _CANONICAL.encode(data)


async def _migrate(db: aiosqlite.Connection) -> int:
    await db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
    rows = list(await db.execute_fetchall("SELECT version FROM schema_version"))
    if not rows:
        await db.execute("INSERT INTO schema_version (version) VALUES (0)")
        current = 0
    else:
        current = int(rows[0][0])
    for number, sql in migrations():
        if number <= current:
            continue
        await db.execute("BEGIN IMMEDIATE")
        try:
            for statement in _statements(sql):
                await db.execute(statement)
            await db.execute("UPDATE schema_version SET version = ?", (number,))
            await db.execute("COMMIT")
        except BaseException:
            await db.execute("ROLLBACK")
            raise
        current = number
    return current


def _statements(sql: str) -> list[str]:
    """Split a migration into statements (triggers keep their ``BEGIN … END;`` bodies)."""
    statements: list[str] = []
    buffer = ""
    for line in sql.splitlines(keepends=True):
        if line.strip().startswith("--") and not buffer.strip():
            continue
        buffer += line
        if sqlite3.complete_statement(buffer):
            statements.append(buffer.strip())
            buffer = ""
    if buffer.strip():
        statements.append(buffer.strip())
    return statements


__all__ = ["Append", "GameRow", "Repository", "StorageConflict", "StoredEntry", "migrations"]
