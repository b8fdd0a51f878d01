"""The storage interface both engines implement (SQLite, PostgreSQL) and the records they exchange.

Two engines implement it, :mod:`bot.storage.repository` (SQLite) and :mod:`bot.storage.postgres`
(PostgreSQL), and know this module; it knows neither (:func:`bot.storage.open_repository` chooses
one from its target). Both keep the same guarantees: the log is append-only (the
database itself refuses to change or delete an entry), one action is one transaction, an
interaction id is stored once, and a game is written by one writer at a time *in the database*:
the game row's log head is checked and moved in the action's transaction, so a second process that
read the same head is refused with :class:`StorageConflict` and reloads instead of forking the
chain or using a die twice.
"""

from __future__ import annotations

import abc
import contextlib
import json
import re
from collections.abc import AsyncIterator, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Protocol

from bot.dice.game_dice import DieRecord
from bot.storage import sql
from bot.storage.limits import Limits


class StorageConflict(Exception):
    """Another writer moved the game's log head first: reload the game and try again."""


class Duplicate(Exception):
    """A unique key refused the write: an interaction id stored before, or a second active game
    in one channel."""


class StorageUnavailable(Exception):
    """The database could not be opened or brought up to date; the message is one sentence."""


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
    table_json: str | None = field(default=None, compare=False, repr=False)
    """The table's canonical JSON (:func:`canonical`) as last written, when this process wrote
    it (None: not known, written afresh). A table is never changed in place — a command that
    changes it commits a new one — so a commit that leaves it as it was writes this text again
    rather than encoding the table anew on every action."""

    def moved(
        self,
        *,
        head_seq: int,
        head_hash: str,
        state_json: str,
        next_die: int,
        table: dict[str, Any],
        players_mix: bytes,
        status: str,
        table_json: str | None = None,
    ) -> GameRow:
        """A copy with a new head, snapshot, table and status: what a commit makes of the row.
        (``dataclasses.replace`` with those fields, without its per-field look-ups: one is made
        on every action; a field added to the row is added here too.) ``table_json``: the new
        table's canonical JSON, if known.

        >>> import dataclasses
        >>> row = GameRow(1, "g", 2, 3, None, "asl", "t", "active", "now", 4, {}, "{}", 1, "h",
        ...               1, 0, b"s", "c", b"")
        >>> moved = row.moved(head_seq=2, head_hash="h2", state_json="{}", next_die=3,
        ...                   table={}, players_mix=b"", status="active")
        >>> moved == dataclasses.replace(row, head_seq=2, head_hash="h2", next_die=3)
        True
        """
        return GameRow(
            id=self.id,
            public_id=self.public_id,
            guild_id=self.guild_id,
            channel_id=self.channel_id,
            parent_id=self.parent_id,
            system=self.system,
            title=self.title,
            status=status,
            created_at=self.created_at,
            created_by=self.created_by,
            table=table,
            state_json=state_json,
            head_seq=head_seq,
            head_hash=head_hash,
            next_die=next_die,
            epoch=self.epoch,
            seed=self.seed,
            commitment=self.commitment,
            players_mix=players_mix,
            table_json=table_json,
        )


def game_from_row(row: Sequence[Any]) -> GameRow:
    """A :class:`GameRow` from a row of :data:`bot.storage.sql.GAME_COLUMNS`."""
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


@dataclass(frozen=True)
class BoardRow:
    """A game's status board in Discord (``/game board``): operational, kept outside the log."""

    game_id: int
    message_id: int | None
    """The board's message, once posted (None: not posted yet)."""
    enabled: bool
    """Updated after every action (False: turned off with ``/game board on:false``)."""


@dataclass(frozen=True)
class TimerRow:
    """A game's timer (migration 003): when to look at the game again, for which wait and step.

    Its ``name`` is the game, the wait (``ball``: the log entry the wait began at) and the step:
    one timer per step of a wait, so a step that fired never fires again, whoever planned it."""

    id: int
    game_id: int
    name: str
    event: str
    ball: int
    due: int
    """Milliseconds since 1970-01-01 UTC."""
    plan: int
    """The log head it was planned at: a plan at a later head moves it, an earlier one does not."""
    data: dict[str, Any]


@dataclass(frozen=True)
class TimerPlan:
    """One timer as planned (see :meth:`Repository.plan_timers`)."""

    name: str
    event: str
    due: int
    data: dict[str, Any]


@dataclass(frozen=True)
class NotifyRow:
    """How a user takes notices: by direct message or not, and whether Discord refused one."""

    user_id: int
    dm: bool
    refused: int | None
    """When Discord refused a DM (the user's DMs are closed), in milliseconds; None: not."""


def _timer(row: Sequence[Any]) -> TimerRow:
    return TimerRow(
        id=int(row[0]),
        game_id=int(row[1]),
        name=str(row[2]),
        event=str(row[3]),
        ball=int(row[4]),
        due=int(row[5]),
        plan=int(row[6]),
        data=json.loads(row[7]),
    )


@dataclass(frozen=True)
class SigningKeyRow:
    """One of the bot's Ed25519 signing keys as stored (migration 004)."""

    public_key: str
    """64 lowercase hex digits."""
    private_key: bytes
    created_at: str
    current: bool
    """The key in use (the others are retired: kept to tell what they signed)."""


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


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def canonical(data: Any) -> str:
    """Canonical JSON of the table as stored."""
    return _CANONICAL.encode(data)


def roll_rows(
    game: GameRow, user_id: int, dice: Iterable[DieRecord]
) -> list[tuple[int, int, int, int, int, int, int, str, int]]:
    """The ``rolls`` rows of an action's dice (:data:`bot.storage.sql.INSERT_ROLL`)."""
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
    """The parameters of :data:`bot.storage.sql.MOVE_GAME` (the table's text as the commit kept
    it, :attr:`GameRow.table_json`, when it did)."""
    table = game.table_json if game.table_json is not None else canonical(game.table)
    return (
        game.status, table, game.state_json, game.head_seq, game.head_hash,
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


def is_database_url(target: Path | str) -> bool:
    """Whether ``target`` names a PostgreSQL server rather than an SQLite file.

    >>> is_database_url("postgresql://referee@db/referee"), is_database_url("data/referee.db")
    (True, False)
    """
    return isinstance(target, str) and target.startswith(("postgresql://", "postgres://"))


def describe(target: Path | str) -> str:
    """``target`` fit for a log line or a message: a URL's password is hidden.

    >>> describe("postgresql://referee:secret@db:5432/referee")
    'postgresql://referee:***@db:5432/referee'
    """
    return re.sub(r"^(postgres(?:ql)?://[^:/@]*:)[^@]*@", r"\1***@", str(target))


class Transaction(Protocol):
    """One write transaction of an engine, spoken in the shared SQL's words (:mod:`bot.storage.sql`,
    ``?`` placeholders; a statement without parameters is sent as written)."""

    async def execute(self, query: str, params: Sequence[Any] = ()) -> int:
        """Run one statement; the number of rows it changed."""

    async def insert(self, query: str, params: Sequence[Any]) -> int:
        """Run one ``INSERT`` into a table with an ``id`` column; the new row's id."""

    async def fetch(self, query: str, params: Sequence[Any] = ()) -> Sequence[Sequence[Any]]:
        """The rows of a read, as the transaction sees them."""


async def migrate(tx: Transaction, engine: str) -> int:
    """Apply the pending migrations of ``engine`` in the caller's transaction (which holds the
    engine's migration lock); the applied migration number. The version table holds one row."""
    await tx.execute(sql.schema_table(engine))
    rows = await tx.fetch(sql.SCHEMA_VERSION)
    if not rows:
        await tx.execute(sql.INSERT_SCHEMA_VERSION, (0,))
    current = int(rows[0][0]) if rows else 0
    for number, statements in sql.migrations(engine):
        if number <= current:
            continue
        for statement in statements:
            await tx.execute(statement)
        await tx.execute(sql.SET_SCHEMA_VERSION, (number,))
        current = number
    return current


class Repository(abc.ABC):
    """Games and their logs in one database (:func:`bot.storage.open_repository` opens one).

    An engine provides two primitives — :meth:`_fetch` (the rows of a read) and
    :meth:`_transaction` (a write transaction) — and its own :meth:`append` (each engine's fast
    path); every read and :meth:`create_game` are written here once, on top of them.
    """

    engine: ClassVar[str]
    """``"sqlite"`` or ``"postgresql"``."""

    limits: Limits
    """A call's deadline, the pool's size, the waiting queue's (:mod:`bot.storage.limits`)."""

    def pool_use(self) -> tuple[int, int, int, int]:
        """``(connections open, of them in use, the most it opens, calls in flight)``."""
        return 0, 0, 0, 0

    @abc.abstractmethod
    async def close(self) -> None:
        """Finish the pending appends, then close the connections."""

    # --- what an engine provides ---------------------------------------------------------

    @abc.abstractmethod
    async def _fetch(self, query: str, params: Sequence[Any] = ()) -> Sequence[Sequence[Any]]:
        """The rows of one read in the shared SQL's words (committed data; in a :meth:`hold`
        block, as the held transaction sees it)."""

    @abc.abstractmethod
    def _transaction(self) -> contextlib.AbstractAsyncContextManager[Transaction]:
        """One write transaction: committed when the block ends, rolled back if it raises.

        :raises Duplicate: a unique key refused a write of the block (nothing was written).
        """

    async def _fetch_one(self, query: str, params: Sequence[Any] = ()) -> Sequence[Any] | None:
        """The first row of a read, or None."""
        rows = await self._fetch(query, params)
        return rows[0] if rows else None

    async def schema_version(self) -> int:
        """The applied migration number."""
        row = await self._fetch_one(sql.SCHEMA_VERSION)
        return int(row[0]) if row is not None else 0

    # --- reads ---------------------------------------------------------------------------

    async def _one_game(self, query: str, params: Sequence[Any]) -> GameRow | None:
        row = await self._fetch_one(query, params)
        return game_from_row(row) if row is not None else None

    async def active_game(self, guild_id: int, channel_id: int) -> GameRow | None:
        """The channel's active game, if any."""
        return await self._one_game(sql.ACTIVE_GAME, (guild_id, channel_id))

    async def latest_game(self, guild_id: int, channel_id: int) -> GameRow | None:
        """The channel's most recent game, active or ended."""
        return await self._one_game(sql.LATEST_GAME, (guild_id, channel_id))

    async def pending_declarations(self) -> list[GameRow]:
        """Active games with a declaration waiting for its beacon round (bot/dice/beacon)."""
        rows = await self._fetch(sql.PENDING_CANDIDATES)
        return [game for game in map(game_from_row, rows) if game.table.get("pending") is not None]

    async def games_in_guild(self, guild_id: int) -> list[GameRow]:
        """Every game of the server, active and ended, oldest first."""
        return [game_from_row(row) for row in await self._fetch(sql.GUILD_GAMES, (guild_id,))]

    async def game(self, game_id: int) -> GameRow | None:
        """A game by its row id."""
        return await self._one_game(sql.GAME_BY_ID, (game_id,))

    async def game_head(self, game_id: int) -> tuple[int, str] | None:
        """The game's log head (sequence number) and status, or None: one small read, for a
        process to tell whether its cached copy of the game is still the stored one."""
        row = await self._fetch_one(sql.GAME_HEAD, (game_id,))
        return (int(row[0]), str(row[1])) if row is not None else None

    async def entry_by_interaction(self, interaction_id: str) -> StoredEntry | None:
        """The entry an interaction produced, if it was seen before."""
        row = await self._fetch_one(sql.ENTRY_BY_INTERACTION, (interaction_id,))
        return StoredEntry(*row) if row is not None else None

    async def entries(
        self, game_id: int, *, after: int = 0, upto: int | None = None
    ) -> list[StoredEntry]:
        """The game's entries with ``after < seq <= upto``, in order."""
        rows = await self._fetch(sql.ENTRIES, (game_id, after, upto if upto is not None else 2**62))
        return [StoredEntry(*row) for row in rows]

    async def last_entries(self, game_id: int, count: int) -> list[StoredEntry]:
        """The game's last ``count`` entries, oldest first."""
        rows = await self._fetch(sql.LAST_ENTRIES, (game_id, count))
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
        ``category``, only dice whose label starts with it and a space (``IFT DR (colored)``)."""
        query, params = sql.face_counts(guild_id, channel_id, game_id, user_id, category)
        counts: dict[int, dict[int, int]] = {}
        for sides, face, count in await self._fetch(query, params):
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
        """``(label, sides, dice, sum of faces)`` per die label for the scope asked (random dice
        only), for statistics per roll category; sorted by label (by code point: a PostgreSQL
        database's collation would order labels otherwise than SQLite) and die size."""
        query, params = sql.label_sums(guild_id, channel_id, game_id, user_id)
        rows = await self._fetch(query, params)
        return sorted(
            (str(label), int(sides), int(n), int(total)) for label, sides, n, total in rows
        )

    async def revealed_seeds(self, game_id: int) -> list[tuple[int, str, bytes | None]]:
        """``(epoch, commitment, revealed seed or None)`` of every epoch of the game."""
        rows = await self._fetch(sql.SEEDS, (game_id,))
        return [(int(e), str(c), bytes(r) if r is not None else None) for e, c, r in rows]

    # --- writes --------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def hold(self, guild_id: int, channel_id: int) -> AsyncIterator[None]:
        """Hold the channel's active game for the current task until the block ends: its reads
        and its one append see and write the game with no other writer in between.

        The game service takes it to decide again after a :class:`StorageConflict`, so a writer
        refused once is not refused again however busy the game is. PostgreSQL locks the game row
        (``SELECT … FOR UPDATE``) in a transaction that the block's append joins and that commits
        when the block ends. SQLite holds nothing here (one process writes an SQLite file; a
        second one, such as a console, is refused and decides again like any stale writer).
        """
        yield

    async def board(self, game_id: int) -> BoardRow | None:
        """The game's status board, if ``/game board`` was ever used in it."""
        row = await self._fetch_one(sql.BOARD, (game_id,))
        return BoardRow(int(row[0]), row[1], bool(row[2])) if row is not None else None

    async def channel_board(self, guild_id: int, channel_id: int) -> BoardRow | None:
        """The status board of the channel's latest game, if ``/game board`` was used in it."""
        row = await self._fetch_one(sql.CHANNEL_BOARD, (guild_id, channel_id))
        return BoardRow(int(row[0]), row[1], bool(row[2])) if row is not None else None

    async def set_board(self, game_id: int, message_id: int | None, enabled: bool) -> None:
        """Record the game's status board (its message and whether it is on), durably."""
        async with self._transaction() as tx:
            await tx.execute(sql.SET_BOARD, (game_id, message_id, int(enabled)))

    # --- timers, server settings, direct messages (migration 003) --------------------------

    async def plan_timers(
        self, game_id: int, ball: int, plan: int, timers: Sequence[TimerPlan], now: int
    ) -> None:
        """Plan the timers of the game's wait that began at entry ``ball``, as the game stood at
        log head ``plan``: each is added, or moved if it has not fired and no later plan moved it;
        the game's timers of earlier waits, and of this wait but left out by this plan, are
        retired (marked done at ``now``). Plans of one game made by several processes in any
        order leave the latest plan's timers: a plan never retires a later one's."""
        async with self._transaction() as tx:
            for timer in timers:
                await tx.execute(
                    sql.PLAN_TIMER,
                    (game_id, timer.name, timer.event, ball, timer.due, plan,
                     canonical(timer.data)),
                )  # fmt: skip
            await tx.execute(sql.DROP_STALE_TIMERS, (now, game_id, ball, ball, plan))

    async def drop_timers(self, game_id: int, now: int) -> None:
        """Retire every timer of the game (it ended)."""
        async with self._transaction() as tx:
            await tx.execute(sql.DROP_GAME_TIMERS, (now, game_id))

    async def game_timers(self, game_id: int) -> list[TimerRow]:
        """The game's timers that have not fired, soonest first."""
        return [_timer(row) for row in await self._fetch(sql.GAME_TIMERS, (game_id,))]

    async def due_timers(
        self,
        now: int,
        limit: int = 50,
        *,
        place: tuple[int, int] | None = None,
        skip_guild: int | None = None,
    ) -> list[TimerRow]:
        """Timers due at ``now`` that no live claim holds, soonest first: of the games of one
        channel (``place``: guild and channel ids), or of every server but ``skip_guild``."""
        params = (now, now, *(place or ()), limit)
        query = sql.due_timers(place, skip_guild)
        return [_timer(row) for row in await self._fetch(query, params)]

    async def games_with_clock(self) -> list[GameRow]:
        """Active games with deadline settings (their timers are planned at a process's start)."""
        rows = await self._fetch(sql.GAMES_WITH_CLOCK)
        return [game for game in map(game_from_row, rows) if game.table.get("clock")]

    async def claim_timer(self, timer_id: int, owner: str, now: int, lease: int) -> bool:
        """Claim a due timer for ``lease`` milliseconds: True for exactly one of the processes
        that try at once (the database changes the row for one of them)."""
        async with self._transaction() as tx:
            changed = await tx.execute(sql.CLAIM_TIMER, (owner, now + lease, timer_id, now))
        return changed == 1

    async def finish_timer(self, timer_id: int, owner: str, now: int) -> None:
        """The claimed timer fired (or is no longer due): it never fires again."""
        async with self._transaction() as tx:
            await tx.execute(sql.FINISH_TIMER, (now, timer_id, owner))

    async def release_timer(self, timer_id: int, owner: str) -> None:
        """Give up a claim without firing (another process may claim the timer at once)."""
        async with self._transaction() as tx:
            await tx.execute(sql.RELEASE_TIMER, (timer_id, owner))

    async def next_timer(self) -> int | None:
        """When the soonest timer not yet fired is due (milliseconds), or None."""
        row = await self._fetch_one(sql.NEXT_TIMER)
        return int(row[0]) if row is not None and row[0] is not None else None

    async def timers_due(self, now: int) -> int:
        """How many timers are due at ``now`` and not fired yet (a gauge for operators)."""
        row = await self._fetch_one(sql.COUNT_DUE_TIMERS, (now,))
        return int(row[0]) if row is not None else 0

    async def server_settings(self, guild_id: int) -> dict[str, Any] | None:
        """The organiser's settings of the server (``/game defaults``), if any were set."""
        row = await self._fetch_one(sql.SERVER_SETTINGS, (guild_id,))
        if row is None:
            return None
        settings: dict[str, Any] = json.loads(row[0])
        return settings

    async def set_server_settings(self, guild_id: int, settings: dict[str, Any]) -> None:
        """Record the organiser's settings of the server, durably."""
        async with self._transaction() as tx:
            await tx.execute(sql.SET_SERVER_SETTINGS, (guild_id, canonical(settings)))

    async def notify(self, user_id: int) -> NotifyRow | None:
        """How the user takes notices, if they ever chose (``/notify``)."""
        row = await self._fetch_one(sql.NOTIFY, (user_id,))
        if row is None:
            return None
        return NotifyRow(int(row[0]), bool(row[1]), int(row[2]) if row[2] is not None else None)

    async def set_notify(self, user_id: int, dm: bool) -> None:
        """The user's choice of direct messages; a refusal recorded before is forgotten."""
        async with self._transaction() as tx:
            await tx.execute(sql.SET_NOTIFY, (user_id, int(dm)))

    async def dm_refused(self, user_id: int, now: int) -> bool:
        """Record that Discord refused a DM to the user: True the first time (say it once)."""
        async with self._transaction() as tx:
            return await tx.execute(sql.DM_REFUSED, (now, user_id)) == 1

    async def signing_keys(self) -> list[SigningKeyRow]:
        """The bot's signing keys, oldest first (the one in use last, ``current``)."""
        rows = await self._fetch(sql.SIGNING_KEYS)
        return [SigningKeyRow(str(r[0]), bytes(r[1]), str(r[2]), r[3] == 1) for r in rows]

    async def add_signing_key(self, key: SigningKeyRow, *, retire: bool) -> None:
        """Store ``key`` as the one in use; ``retire``: the key in use until now is kept, retired.

        :raises Duplicate: another key is in use (without ``retire``: another process made one).
        """
        async with self._transaction() as tx:
            if retire:
                await tx.execute(sql.RETIRE_SIGNING_KEY)
            row = (key.public_key, key.private_key, key.created_at)
            await tx.execute(sql.INSERT_SIGNING_KEY, row)

    async def create_game(self, game: GameRow, genesis: StoredEntry) -> int:
        """Insert a game, its first seed epoch and its genesis entry in one transaction.

        :returns: the new game's row id.
        :raises Duplicate: the channel has an active game, or the interaction id was stored.
        """
        async with self._transaction() as tx:
            game_id = await tx.insert(sql.INSERT_GAME, game_parameters(game))
            await tx.execute(sql.INSERT_SEED, (game_id, game.epoch, game.commitment, None))
            await tx.execute(sql.INSERT_ENTRY, entry_parameters(genesis, game_id))
        return game_id

    @abc.abstractmethod
    async def append(self, change: Append, expected_head: int) -> None:
        """Append one entry and write the game row after it, durably, in one transaction.

        :raises StorageConflict: the game's head is no longer ``expected_head`` (another writer
            moved it): nothing was written.
        :raises Duplicate: the interaction id was stored before: nothing was written.
        """


__all__ = [
    "Append",
    "BoardRow",
    "Duplicate",
    "GameRow",
    "NotifyRow",
    "Repository",
    "SigningKeyRow",
    "StorageConflict",
    "StorageUnavailable",
    "StoredEntry",
    "TimerPlan",
    "TimerRow",
    "Transaction",
    "canonical",
    "describe",
    "entry_parameters",
    "game_from_row",
    "game_parameters",
    "is_database_url",
    "migrate",
    "move_parameters",
    "roll_rows",
    "seed_statements",
]
