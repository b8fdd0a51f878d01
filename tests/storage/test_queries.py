"""Every read of the storage, on both engines (a real SQLite file, a real PostgreSQL server),
against what the game service posted: the games of a server (``/game list``, a league's
results), a channel's latest and active game, the label sums per scope (``/stats`` per
category and player), the face counts with a category, the log's ranges and the seeds.

The expected figures are computed from the replies (the dice each player was shown), never from
the database, so the queries are checked rather than restated.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections import Counter, defaultdict
from pathlib import Path

import asyncpg
import pytest

from bot.dice.game_dice import DieRecord, FaceScript
from bot.models import Actor, DieView, Place
from bot.service.game_service import GameService
from bot.storage import Append, Duplicate, Repository, StoredEntry, open_repository
from bot.storage.postgres import PostgresRepository, create_pool
from bot.table import commands as gc
from tests.bot.conftest import ADMIN, ALICE, BOB, HERE, end_game, start_game
from tests.bot.toysystem import SYSTEM
from tests.conftest import ENGINES
from tests.pgserver import PostgresServer

SYSTEMS = {"toy": SYSTEM}
SEED = hashlib.sha256(b"the storage queries").digest()
NEXT_DOOR = Place(guild_id=HERE.guild_id, channel_id=201)
SCRIPTED = Place(guild_id=HERE.guild_id, channel_id=202)
ELSEWHERE = Place(guild_id=300, channel_id=400)


@dataclasses.dataclass
class Posted:
    """The random dice the players were shown, by game row id and player."""

    dice: dict[tuple[int, int], list[DieView]] = dataclasses.field(
        default_factory=lambda: defaultdict(list)
    )

    def of(self, games: set[int], user_id: int | None = None) -> list[DieView]:
        return [
            die
            for (game, user), dice in self.dice.items()
            if game in games and (user_id is None or user == user_id)
            for die in dice
            if not die.scripted
        ]


def sums(dice: list[DieView]) -> list[tuple[str, int, int, int]]:
    """``(label, sides, dice, sum of faces)`` per label, as :meth:`Repository.label_sums`."""
    groups: dict[tuple[str, int], list[int]] = defaultdict(list)
    for die in dice:
        groups[(die.label, die.sides)].append(die.face)
    return sorted((label, sides, len(f), sum(f)) for (label, sides), f in groups.items())


def faces(dice: list[DieView]) -> dict[int, dict[int, int]]:
    """``{sides: {face: count}}``, as :meth:`Repository.face_counts`."""
    counts: dict[int, Counter[int]] = defaultdict(Counter)
    for die in dice:
        counts[die.sides][die.face] += 1
    return {sides: dict(c) for sides, c in counts.items()}


async def game_id(repo: Repository, place: Place) -> int:
    row = await repo.active_game(place.guild_id, place.channel_id)
    assert row is not None
    return row.id


async def roll(
    service: GameService, repo: Repository, posted: Posted, place: Place, actor: Actor, key: str,
    **options: object,
) -> None:  # fmt: skip
    reply = await service.handle(place, actor, key, gc.RollDice.model_validate(options))
    assert reply.dice
    posted.dice[(await game_id(repo, place), actor.user_id)].extend(reply.dice)


async def test_every_query_answers_what_was_posted(repo: Repository) -> None:
    service = GameService(repo, SYSTEMS, seeds=lambda: SEED)
    posted = Posted()
    await start_game(service)
    first = await game_id(repo, HERE)
    await roll(service, repo, posted, HERE, ALICE, "a1", category="IFT", count=3)
    await roll(service, repo, posted, HERE, ALICE, "a2", category="RS", count=2)
    await roll(service, repo, posted, HERE, BOB, "b1", category="IFT")
    await roll(service, repo, posted, HERE, BOB, "b2", dice="2d6", reason="Morale")
    await end_game(service)
    await service.handle(HERE, ALICE, "new-again", gc.GameNew(system="toy"))  # a second game
    await service.handle(HERE, BOB, "seat-again", gc.GameSeat(side="Allied"))
    second = await game_id(repo, HERE)
    await roll(service, repo, posted, HERE, BOB, "b3", category="IFT", count=2)
    await start_game(service, NEXT_DOOR)
    door = await game_id(repo, NEXT_DOOR)
    await roll(service, repo, posted, NEXT_DOOR, ALICE, "a3", category="Sniper check", dice="3d6")
    await roll(service, repo, posted, NEXT_DOOR, BOB, "b4", category="IFTX")  # not IFT
    scripted = GameService(repo, SYSTEMS, script=FaceScript([6] * 8))  # the console's --dice
    await start_game(scripted, SCRIPTED)
    rehearsal = await game_id(repo, SCRIPTED)
    await roll(scripted, repo, posted, SCRIPTED, BOB, "b5", category="IFT", count=2)
    await start_game(service, ELSEWHERE)
    far = await game_id(repo, ELSEWHERE)
    await roll(service, repo, posted, ELSEWHERE, ALICE, "a4", category="IFT", count=4)

    # the games of a server, oldest first; a channel's latest and active game
    in_guild = await repo.games_in_guild(HERE.guild_id)
    assert [(g.id, g.channel_id, g.status) for g in in_guild] == [
        (first, HERE.channel_id, "ended"),
        (second, HERE.channel_id, "active"),
        (door, NEXT_DOOR.channel_id, "active"),
        (rehearsal, SCRIPTED.channel_id, "active"),
    ]
    assert [g.id for g in await repo.games_in_guild(ELSEWHERE.guild_id)] == [far]
    assert await repo.games_in_guild(12345) == []
    latest = await repo.latest_game(HERE.guild_id, HERE.channel_id)
    active = await repo.active_game(HERE.guild_id, HERE.channel_id)
    assert latest is not None and active is not None and latest.id == active.id == second
    ended = await repo.game(first)
    assert ended is not None and ended.status == "ended" and ended.public_id != latest.public_id
    assert await repo.active_game(HERE.guild_id, 999) is None
    assert await repo.latest_game(HERE.guild_id, 999) is None

    # /stats per category and per player: label sums for each scope (random dice only)
    guild_games = {first, second, door, rehearsal}
    assert posted.of({rehearsal}) == [] and len(posted.dice[(rehearsal, BOB.user_id)]) == 4
    assert await repo.label_sums(guild_id=HERE.guild_id) == sums(posted.of(guild_games))
    assert await repo.label_sums(guild_id=HERE.guild_id, user_id=BOB.user_id) == sums(
        posted.of(guild_games, BOB.user_id)
    )
    assert await repo.label_sums(
        guild_id=HERE.guild_id, channel_id=HERE.channel_id
    ) == sums(posted.of({first, second}))  # fmt: skip
    assert await repo.label_sums(guild_id=HERE.guild_id, game_id=door) == sums(posted.of({door}))
    assert await repo.label_sums(guild_id=ELSEWHERE.guild_id) == sums(posted.of({far}))
    assert all(label.startswith("IFTX ") for label, *_ in sums(posted.of({door}, BOB.user_id)))

    # a category: the dice whose label is the category and a space ("IFTX dr" is not IFT)
    def is_ift(die: DieView) -> bool:
        return die.label.startswith("IFT ")

    ift = [d for d in posted.of(guild_games) if is_ift(d)]
    assert len(ift) == 2 * (3 + 1 + 2)
    assert await repo.face_counts(guild_id=HERE.guild_id, category="IFT") == faces(ift)
    assert await repo.face_counts(
        guild_id=HERE.guild_id, user_id=BOB.user_id, category="IFT"
    ) == faces([d for d in posted.of(guild_games, BOB.user_id) if is_ift(d)])  # fmt: skip
    sniper = await repo.face_counts(guild_id=HERE.guild_id, category="Sniper check")
    assert sniper == faces([d for d in posted.of({door}) if d.label.startswith("Sniper check ")])
    assert sum(sniper[6].values()) == 3
    assert await repo.face_counts(guild_id=HERE.guild_id, game_id=second) == faces(
        posted.of({second})
    )

    # the log's ranges and the seeds
    log = await repo.entries(first)
    assert [e.seq for e in log] == list(range(1, len(log) + 1))
    assert await repo.entries(first, after=2, upto=4) == log[2:4]
    assert await repo.last_entries(first, 2) == log[-2:]
    assert await repo.entry_by_interaction("b2") == log[-3]  # the end proposed, then confirmed
    assert await repo.entry_by_interaction("never") is None
    seeds = await repo.revealed_seeds(first)
    assert len(seeds) == 1 and seeds[0][1] == ended.commitment
    assert seeds[0][2] is not None and hashlib.sha256(seeds[0][2]).hexdigest() == seeds[0][1]
    assert [(e, c, r) for e, c, r in await repo.revealed_seeds(second)] == [
        (1, latest.commitment, None)
    ]


async def test_an_append_refused_by_a_unique_key_writes_nothing_at_all(repo: Repository) -> None:
    """An append repeating an interaction id (or a die's number) is refused whole: no entry, no
    die, no seed, and the head stays where it was."""
    service = GameService(repo, SYSTEMS)
    await start_game(service)
    await service.handle(HERE, ALICE, "r1", gc.RollDice(dice="DR"))
    row = await repo.active_game(HERE.guild_id, HERE.channel_id)
    assert row is not None
    before = await repo.face_counts(guild_id=HERE.guild_id)
    die = _die(row.next_die)
    entry = StoredEntry(row.id, row.head_seq + 1, "r1", "roll", "{}", "e" * 8)  # "r1" again
    moved = dataclasses.replace(
        row, head_seq=row.head_seq + 1, head_hash="e" * 8, next_die=row.next_die + 1, epoch=2
    )
    change = Append(
        entry=entry, game=moved, dice=[die], user_id=ALICE.user_id,
        reveal=(1, row.seed), new_epoch=(2, "c" * 64),
    )  # fmt: skip
    with pytest.raises(Duplicate):
        await repo.append(change, expected_head=row.head_seq)
    after = await repo.active_game(HERE.guild_id, HERE.channel_id)
    assert after is not None and (after.head_seq, after.head_hash) == (row.head_seq, row.head_hash)
    assert await repo.face_counts(guild_id=HERE.guild_id) == before
    assert await repo.revealed_seeds(row.id) == [(1, row.commitment, None)]
    # the same append with a fresh interaction id lands whole
    fresh = dataclasses.replace(change, entry=dataclasses.replace(entry, interaction_id="r2"))
    await repo.append(fresh, expected_head=row.head_seq)
    assert await repo.revealed_seeds(row.id) == [(1, row.commitment, row.seed), (2, "c" * 64, None)]
    counts = await repo.face_counts(guild_id=HERE.guild_id)
    assert sum(counts[6].values()) == sum(before[6].values()) + 1
    landed = await repo.active_game(HERE.guild_id, HERE.channel_id)
    assert landed is not None and (landed.head_seq, landed.epoch) == (row.head_seq + 1, 2)


def _die(seq: int) -> DieRecord:
    return DieRecord(seq=seq, sides=6, face=4, label="Test dr", epoch=1)


@ENGINES("postgresql")
async def test_a_postgresql_append_is_one_statement(database: str) -> None:
    """The whole append — head, entry, dice, seed revealed, epoch committed — is one statement
    sent to the server (one round trip once the connection has prepared it), not a transaction
    of five; a read is one too (no reset query when the connection goes back to the pool)."""
    repo = await open_repository(database)
    try:
        await start_game(GameService(repo, SYSTEMS))
    finally:
        await repo.close()
    sent: list[str] = []

    async def watch(connection: asyncpg.Connection) -> None:
        connection.add_query_logger(lambda record: sent.append(record.query))

    watched = PostgresRepository(await create_pool(database, init=watch), database)
    try:
        row = await watched.active_game(HERE.guild_id, HERE.channel_id)
        assert row is not None

        def change(
            name: str,
            head: int,
            reveal: tuple[int, bytes] | None = None,
            new_epoch: tuple[int, str] | None = None,
        ) -> Append:
            entry = StoredEntry(row.id, head + 1, name, "roll", "{}", name * 8)
            dice = [_die(row.next_die + 2 * (head - row.head_seq) + n) for n in range(2)]
            moved = dataclasses.replace(
                row, head_seq=head + 1, head_hash=name * 8, next_die=dice[-1].seq + 1
            )
            return Append(
                entry=entry, game=moved, dice=dice, user_id=ADMIN.user_id,
                reveal=reveal, new_epoch=new_epoch,
            )  # fmt: skip

        await watched.append(change("a", row.head_seq), expected_head=row.head_seq)  # prepares
        sent.clear()
        last = change("b", row.head_seq + 1, reveal=(1, row.seed), new_epoch=(2, "d" * 64))
        await watched.append(last, expected_head=row.head_seq + 1)
        assert len(sent) == 1 and sent[0].lstrip().startswith("WITH moved AS"), sent
        sent.clear()
        assert await watched.entry_by_interaction("b") == last.entry
        assert len(sent) == 1, sent
        assert await watched.revealed_seeds(row.id) == [
            (1, row.commitment, row.seed), (2, "d" * 64, None)
        ]  # fmt: skip
        counts = await watched.face_counts(guild_id=HERE.guild_id, game_id=row.id)
        assert counts == {6: {4: 4}}
        head = await watched.game(row.id)
        assert head is not None and (head.head_seq, head.head_hash) == (
            row.head_seq + 2,
            "bbbbbbbb",
        )
    finally:
        await watched.close()


async def test_label_sums_come_in_the_same_order_whatever_a_database_collates(
    postgres_server: PostgresServer, tmp_path: Path
) -> None:
    """A production PostgreSQL database usually collates text by a language's rules (``alpha``
    before ``Bravo``), SQLite by code point (``Bravo`` first): the sums come sorted by code point
    from both, so /stats reads the same on either engine."""
    admin = await asyncpg.connect(postgres_server.url("postgres"))
    try:
        await admin.execute(
            "CREATE DATABASE english TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' "
            "LOCALE 'C'"
        )
        assert await admin.fetchval("SELECT 'alpha' < 'Bravo' COLLATE \"en-US-x-icu\"")
    finally:
        await admin.close()
    english = postgres_server.url("english")
    results = []
    try:
        for target in (tmp_path / "referee.db", english):
            repo = await open_repository(target)
            try:
                service = GameService(repo, SYSTEMS)
                await start_game(service)
                for reason in ("alpha", "Bravo", "charlie", "Delta"):
                    await service.handle(HERE, ALICE, reason, gc.RollDice(dice="dr", reason=reason))
                labels = [label for label, *_ in await repo.label_sums(guild_id=HERE.guild_id)]
                results.append(labels)
            finally:
                await repo.close()
    finally:
        await postgres_server.drop_database(english)
    assert results[0] == results[1] == ["Bravo dr", "Delta dr", "alpha dr", "charlie dr"]
