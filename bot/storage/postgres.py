"""The PostgreSQL engine of the storage, through asyncpg: the same statements and migrations as
SQLite (:mod:`bot.storage.sql`), for several processes sharing one database.

Each write is one transaction on a connection of a small pool. An append first moves the game
row's log head (``UPDATE games … WHERE id = ? AND head_seq = ?``): the row stays locked until the
commit, so a second writer of the same game — another bot process, a console, an overlapping
restart — waits, then finds the head moved and matches no row; it is refused with
:class:`~bot.storage.base.StorageConflict` having written nothing, and the game service reloads
the game and decides again. PostgreSQL commits concurrent transactions together by itself, so no
group commit is done here.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
from collections.abc import AsyncIterator
from typing import Any, ClassVar

import asyncpg

from bot.storage import sql
from bot.storage.base import (
    Append,
    Duplicate,
    GameRow,
    Repository,
    StorageConflict,
    StorageUnavailable,
    StoredEntry,
    describe,
    game_from_row,
    roll_rows,
)
from bot.storage.repository import (
    entry_parameters,
    game_parameters,
    move_parameters,
    seed_statements,
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
            pool = await asyncpg.create_pool(
                url, min_size=1, max_size=POOL_SIZE, timeout=CONNECT_TIMEOUT
            )
        except _ERRORS as exc:
            raise StorageUnavailable(
                f"Cannot open the PostgreSQL database {describe(url)}: {_reason(exc)}."
            ) from exc
        try:
            async with pool.acquire() as connection:
                await _migrate(connection)
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

    async def schema_version(self) -> int:
        """The applied migration number."""
        return int(await self._db().fetchval(sql.SCHEMA_VERSION))

    # --- reads ---------------------------------------------------------------------------

    async def _one_game(self, query: str, *params: Any) -> GameRow | None:
        row = await self._db().fetchrow(_q(query), *params)
        return game_from_row(row) if row is not None else None

    async def active_game(self, guild_id: int, channel_id: int) -> GameRow | None:
        """The channel's active game, if any."""
        return await self._one_game(sql.ACTIVE_GAME, guild_id, channel_id)

    async def latest_game(self, guild_id: int, channel_id: int) -> GameRow | None:
        """The channel's most recent game, active or ended."""
        return await self._one_game(sql.LATEST_GAME, guild_id, channel_id)

    async def pending_declarations(self) -> list[GameRow]:
        """Active games with a declaration waiting for its beacon round (bot/dice/beacon)."""
        rows = await self._db().fetch(_q(sql.PENDING_CANDIDATES))
        return [game for game in map(game_from_row, rows) if game.table.get("pending") is not None]

    async def games_in_guild(self, guild_id: int) -> list[GameRow]:
        """Every game of the server, active and ended, oldest first."""
        rows = await self._db().fetch(_q(sql.GUILD_GAMES), guild_id)
        return [game_from_row(row) for row in rows]

    async def game(self, game_id: int) -> GameRow | None:
        """A game by its row id."""
        return await self._one_game(sql.GAME_BY_ID, game_id)

    async def entry_by_interaction(self, interaction_id: str) -> StoredEntry | None:
        """The entry an interaction produced, if it was seen before."""
        row = await self._db().fetchrow(_q(sql.ENTRY_BY_INTERACTION), interaction_id)
        return StoredEntry(*row) if row is not None else None

    async def entries(
        self, game_id: int, *, after: int = 0, upto: int | None = None
    ) -> list[StoredEntry]:
        """The game's entries with ``after < seq <= upto``, in order."""
        rows = await self._db().fetch(
            _q(sql.ENTRIES), game_id, after, upto if upto is not None else 2**62
        )
        return [StoredEntry(*row) for row in rows]

    async def last_entries(self, game_id: int, count: int) -> list[StoredEntry]:
        """The game's last ``count`` entries, oldest first."""
        rows = await self._db().fetch(_q(sql.LAST_ENTRIES), game_id, count)
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
        for sides, face, count in await self._db().fetch(_q(query), *params):
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
        rows = await self._db().fetch(_q(query), *params)
        return [(str(label), int(sides), int(n), int(total)) for label, sides, n, total in rows]

    async def revealed_seeds(self, game_id: int) -> list[tuple[int, str, bytes | None]]:
        """``(epoch, commitment, revealed seed or None)`` of every epoch of the game."""
        rows = await self._db().fetch(_q(sql.SEEDS), game_id)
        return [(int(e), str(c), bytes(r) if r is not None else None) for e, c, r in rows]

    # --- writes --------------------------------------------------------------------------

    async def create_game(self, game: GameRow, genesis: StoredEntry) -> int:
        """Insert a game, its first seed epoch and its genesis entry in one transaction.

        :returns: the new game's row id.
        :raises Duplicate: the channel has an active game, or the interaction id was stored.
        """
        try:
            async with self._pool.acquire() as connection, connection.transaction():
                game_id = int(
                    await connection.fetchval(
                        _q(sql.INSERT_GAME) + " RETURNING id", *game_parameters(game)
                    )
                )
                await connection.execute(
                    _q(sql.INSERT_SEED), game_id, game.epoch, game.commitment, None
                )
                await connection.execute(_q(sql.INSERT_ENTRY), *entry_parameters(genesis, game_id))
        except asyncpg.UniqueViolationError as exc:
            raise Duplicate(str(exc)) from exc
        return game_id

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
        """Append one entry and write the game row after it, durably, in one transaction
        (inside a :meth:`hold` block: a savepoint of the held transaction, committed with it).

        :raises StorageConflict: the game's head is no longer ``expected_head``.
        :raises Duplicate: the interaction id was stored before.
        """
        try:
            held = self._held()
            if held is not None:
                async with held.transaction():
                    await _append(held, change, expected_head)
                return
            async with self._pool.acquire() as connection, connection.transaction():
                await _append(connection, change, expected_head)
        except asyncpg.UniqueViolationError as exc:
            raise Duplicate(str(exc)) from exc


async def _append(connection: asyncpg.Connection, change: Append, expected_head: int) -> None:
    """The statements of one append, in the caller's transaction: the game row first."""
    status = await connection.execute(
        _q(sql.MOVE_GAME), *move_parameters(change.game, expected_head)
    )
    if status != "UPDATE 1":
        raise StorageConflict("a game moved past its expected log head under a writer")
    await connection.execute(_q(sql.INSERT_ENTRY), *entry_parameters(change.entry, change.game.id))
    rolls = roll_rows(change.game, change.user_id, change.dice)
    if rolls:
        await connection.executemany(_q(sql.INSERT_ROLL), rolls)
    for statement, parameters in seed_statements(change):
        await connection.execute(_q(statement), *parameters)


async def _migrate(connection: asyncpg.Connection) -> int:
    """Apply the pending migrations in one transaction holding an advisory lock: processes
    starting at once on a new database migrate it once, and the version table holds one row."""
    async with connection.transaction():
        await connection.execute("SELECT pg_advisory_xact_lock($1)", sql.MIGRATION_LOCK)
        await connection.execute(
            "CREATE TABLE IF NOT EXISTS schema_version (version BIGINT NOT NULL)"
        )
        found = await connection.fetchval(sql.SCHEMA_VERSION)
        if found is None:
            await connection.execute("INSERT INTO schema_version (version) VALUES (0)")
        current = int(found or 0)
        for number, statements in sql.migrations("postgresql"):
            if number <= current:
                continue
            for statement in statements:
                await connection.execute(statement)
            await connection.execute("UPDATE schema_version SET version = $1", number)
            current = number
    return current


def _reason(exc: BaseException) -> str:
    if isinstance(exc, asyncio.TimeoutError):
        return f"no answer within {CONNECT_TIMEOUT:g} s"
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text.rstrip(".")


__all__ = ["PostgresRepository"]
