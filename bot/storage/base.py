"""The storage interface both engines implement (SQLite, PostgreSQL) and the records they exchange.

:meth:`Repository.open` chooses the engine from its target: a ``postgresql://`` URL opens
PostgreSQL (:mod:`bot.storage.postgres`), anything else is an SQLite file
(:mod:`bot.storage.repository`). Both keep the same guarantees: the log is append-only (the
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
from typing import Any, ClassVar

from bot.dice.game_dice import DieRecord


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


GAME_COLUMNS = (
    "id, public_id, guild_id, channel_id, parent_id, system, title, status, created_at, "
    "created_by, table_json, state_json, head_seq, head_hash, next_die, epoch, seed, commitment, "
    "players_mix"
)


def game_from_row(row: Sequence[Any]) -> GameRow:
    """A :class:`GameRow` from a row of :data:`GAME_COLUMNS`."""
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


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def canonical(data: Any) -> str:
    """Canonical JSON of the table as stored."""
    return _CANONICAL.encode(data)


def roll_rows(
    game: GameRow, user_id: int, dice: Iterable[DieRecord]
) -> list[tuple[int, int, int, int, int, int, int, str, int]]:
    """The ``rolls`` rows of an action's dice."""
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


class Repository(abc.ABC):
    """Games and their logs in one database; :meth:`open` picks the engine."""

    engine: ClassVar[str]
    """``"sqlite"`` or ``"postgresql"``."""

    @classmethod
    async def open(cls, target: Path | str) -> Repository:
        """Open (creating if needed) the database and bring its schema up to date.

        :raises StorageUnavailable: the database cannot be opened or migrated (one sentence).
        """
        if is_database_url(target):
            from bot.storage.postgres import PostgresRepository

            return await PostgresRepository.open(str(target))
        from bot.storage.repository import SQLiteRepository

        return await SQLiteRepository.open(target)

    @abc.abstractmethod
    async def close(self) -> None:
        """Finish the pending appends, then close the connections."""

    @abc.abstractmethod
    async def schema_version(self) -> int:
        """The applied migration number."""

    # --- reads ---------------------------------------------------------------------------

    @abc.abstractmethod
    async def active_game(self, guild_id: int, channel_id: int) -> GameRow | None:
        """The channel's active game, if any."""

    @abc.abstractmethod
    async def latest_game(self, guild_id: int, channel_id: int) -> GameRow | None:
        """The channel's most recent game, active or ended."""

    @abc.abstractmethod
    async def pending_declarations(self) -> list[GameRow]:
        """Active games with a declaration waiting for its beacon round (bot/dice/beacon)."""

    @abc.abstractmethod
    async def games_in_guild(self, guild_id: int) -> list[GameRow]:
        """Every game of the server, active and ended, oldest first."""

    @abc.abstractmethod
    async def game(self, game_id: int) -> GameRow | None:
        """A game by its row id."""

    @abc.abstractmethod
    async def entry_by_interaction(self, interaction_id: str) -> StoredEntry | None:
        """The entry an interaction produced, if it was seen before."""

    @abc.abstractmethod
    async def entries(
        self, game_id: int, *, after: int = 0, upto: int | None = None
    ) -> list[StoredEntry]:
        """The game's entries with ``after < seq <= upto``, in order."""

    @abc.abstractmethod
    async def last_entries(self, game_id: int, count: int) -> list[StoredEntry]:
        """The game's last ``count`` entries, oldest first."""

    @abc.abstractmethod
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

    @abc.abstractmethod
    async def label_sums(
        self,
        *,
        guild_id: int,
        channel_id: int | None = None,
        game_id: int | None = None,
        user_id: int | None = None,
    ) -> list[tuple[str, int, int, int]]:
        """``(label, sides, dice, sum of faces)`` per die label for the scope asked (random dice
        only), for statistics per roll category."""

    @abc.abstractmethod
    async def revealed_seeds(self, game_id: int) -> list[tuple[int, str, bytes | None]]:
        """``(epoch, commitment, revealed seed or None)`` of every epoch of the game."""

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

    @abc.abstractmethod
    async def create_game(self, game: GameRow, genesis: StoredEntry) -> int:
        """Insert a game, its first seed epoch and its genesis entry in one transaction.

        :returns: the new game's row id.
        :raises Duplicate: the channel has an active game, or the interaction id was stored.
        """

    @abc.abstractmethod
    async def append(self, change: Append, expected_head: int) -> None:
        """Append one entry and write the game row after it, durably, in one transaction.

        :raises StorageConflict: the game's head is no longer ``expected_head`` (another writer
            moved it): nothing was written.
        :raises Duplicate: the interaction id was stored before: nothing was written.
        """


__all__ = [
    "GAME_COLUMNS",
    "Append",
    "Duplicate",
    "GameRow",
    "Repository",
    "StorageConflict",
    "StorageUnavailable",
    "StoredEntry",
    "canonical",
    "describe",
    "game_from_row",
    "is_database_url",
    "roll_rows",
]
