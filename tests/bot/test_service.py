"""The game service on a real SQLite file: idempotency, serialization, permissions, void, dice."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from bot.dice.game_dice import NO_PLAYERS, FaceScript, derive_face, mix_phrase
from bot.errors import (
    BadCommand,
    CannotVoid,
    DiceScriptRanOut,
    GameAlreadyActive,
    NoGameHere,
    NotAReferee,
    NotYourSide,
    SeatTaken,
    WrongSystem,
)
from bot.log.verify import verify_lines
from bot.models import DieView, Place, Reply, UserRef
from bot.service.game_service import GameService
from bot.storage import Repository, open_repository
from bot.storage.sql import migrations
from bot.table import commands as gc
from rules_core.errors import IllegalAction, InvalidInput
from tests.bot.conftest import ADMIN, ALICE, BOB, CAROL, HERE, end_game, start_game
from tests.bot.toysystem import SYSTEM, Ammo, Shoot, ShowTally

SYSTEMS = {"toy": SYSTEM}


async def head(repo: Repository, place: Place = HERE) -> tuple[int, str, int, str]:
    row = await repo.active_game(place.guild_id, place.channel_id)
    assert row is not None
    return row.head_seq, row.head_hash, row.next_die, row.state_json


async def export_lines(service: GameService, place: Place = HERE) -> list[str]:
    reply = await service.handle(place, ALICE, "export", gc.GameExport())
    assert reply.file is not None
    return reply.file.content.decode("utf-8").splitlines()


async def test_a_new_game_posts_its_commitment_and_one_active_game_per_channel(
    service: GameService,
) -> None:
    reply = await service.handle(HERE, ALICE, "i1", gc.GameNew(system="toy", sides=("A", "B")))
    assert reply.seq == 1
    assert reply.commitment is not None and len(reply.commitment) == 64
    with pytest.raises(GameAlreadyActive):
        await service.handle(HERE, BOB, "i2", gc.GameNew(system="toy"))
    elsewhere = Place(guild_id=100, channel_id=201)
    other = await service.handle(elsewhere, BOB, "i3", gc.GameNew(system="toy"))
    assert other.game_id != reply.game_id


async def test_a_redelivered_interaction_rolls_nothing_and_returns_the_stored_result(
    service: GameService, repo: Repository
) -> None:
    await start_game(service)
    first = await service.handle(HERE, ALICE, "shot-1", Shoot(side="Axis"))
    before = await head(repo)
    again = await service.handle(HERE, ALICE, "shot-1", Shoot(side="Axis"))
    assert again.replayed and not first.replayed
    assert again.dice == first.dice and again.seq == first.seq and again.facts == first.facts
    assert await head(repo) == before
    # also after a restart: a fresh service on the same file
    fresh = GameService(repo, SYSTEMS)
    assert (await fresh.handle(HERE, ALICE, "shot-1", Shoot(side="Axis"))).dice == first.dice
    assert await head(repo) == before


async def test_a_redelivery_the_rules_would_now_refuse_is_answered_from_the_log(
    service: GameService, repo: Repository
) -> None:
    await start_game(service)
    first = await service.handle(HERE, ALICE, "shot-1", Shoot(side="Axis"))
    await service.handle(HERE, ALICE, "dry", Ammo(side="Axis", level=0))
    before = await head(repo)
    with pytest.raises(IllegalAction):  # a new interaction is refused: Axis has no ammunition
        await service.handle(HERE, ALICE, "shot-2", Shoot(side="Axis"))
    again = await service.handle(HERE, ALICE, "shot-1", Shoot(side="Axis"))
    assert again.replayed and again.seq == first.seq and again.dice == first.dice
    await end_game(service)
    ended = await service.handle(HERE, ALICE, "shot-1", Shoot(side="Axis"))  # no game here now
    assert ended.replayed and ended.seq == first.seq
    latest = await repo.latest_game(HERE.guild_id, HERE.channel_id)
    # only the end was logged: alice's proposal, bob's confirmation
    assert latest is not None and latest.head_seq == before[0] + 2


async def test_a_redelivery_accepted_again_is_rolled_back_and_the_game_goes_on(
    service: GameService, repo: Repository
) -> None:
    await start_game(service)
    first = await service.handle(HERE, ALICE, "shot-1", Shoot(side="Axis"))
    second = await service.handle(HERE, ALICE, "shot-2", Shoot(side="Axis"))
    before = await head(repo)
    again = await service.handle(HERE, ALICE, "shot-1", Shoot(side="Axis"))
    assert again.replayed and again.seq == first.seq and again.dice == first.dice
    assert await head(repo) == before  # nothing written, the next die is the same
    third = await service.handle(HERE, ALICE, "shot-3", Shoot(side="Axis"))
    assert second.seq is not None
    assert third.seq == second.seq + 1 and third.dice[0].seq == before[2]
    assert verify_lines(await export_lines(service), SYSTEMS).ok


async def test_fifty_concurrent_actions_on_one_game_give_fifty_consecutive_entries(
    service: GameService, repo: Repository
) -> None:
    await start_game(service)
    start, _, next_die, _ = await head(repo)
    replies = await asyncio.gather(
        *(service.handle(HERE, ALICE, f"c{i}", Shoot(side="Axis")) for i in range(50))
    )
    assert sorted(r.seq or 0 for r in replies) == list(range(start + 1, start + 51))
    dice = sorted(d.seq for r in replies for d in r.dice)
    assert dice == list(range(next_die, next_die + len(dice)))  # no die number twice or skipped
    hits = sum(int(dict(r.facts)["hits"]) for r in replies)
    row = await repo.active_game(HERE.guild_id, HERE.channel_id)
    assert row is not None and row.head_seq == start + 50
    assert json.loads(row.state_json)["hits"][0] == hits  # no lost update
    assert verify_lines(await export_lines(service), SYSTEMS).ok


async def test_different_games_do_not_wait_for_each_other(service: GameService) -> None:
    there = Place(guild_id=100, channel_id=999)
    await start_game(service)
    await start_game(service, there)
    async with service.core.lock(HERE):  # a writer holds this game's lock
        reply = await asyncio.wait_for(service.handle(there, ALICE, "x", Shoot(side="Axis")), 60)
        assert reply.seq == 4
        blocked = asyncio.create_task(service.handle(HERE, ALICE, "y", Shoot(side="Axis")))
        await asyncio.sleep(0.05)
        assert not blocked.done()
    assert (await blocked).seq == 4


async def test_permissions_seats_and_referees(service: GameService, repo: Repository) -> None:
    await start_game(service)
    before = await head(repo)
    with pytest.raises(NotYourSide, match="Axis seat"):
        await service.handle(HERE, BOB, "p1", Shoot(side="Axis"))
    with pytest.raises(NotYourSide, match="Take a seat"):
        await service.handle(HERE, CAROL, "p2", gc.RollDice(dice="DR"))
    with pytest.raises(SeatTaken):
        await service.handle(HERE, CAROL, "p3", gc.GameSeat(side="Axis"))
    with pytest.raises(NotAReferee):
        await service.handle(HERE, BOB, "p4", gc.GameEnd())
    with pytest.raises(NotAReferee):
        await service.handle(HERE, BOB, "p5", gc.GameVoid(entry=2, reason="x"))
    with pytest.raises(NotAReferee):
        await service.handle(HERE, BOB, "p6", gc.GameRotate())
    with pytest.raises(NotAReferee):
        await service.handle(
            HERE, BOB, "p7", gc.GameSeat(side="Allied", player=UserRef(id=3, name="carol"))
        )
    assert await head(repo) == before  # refusals change nothing
    # the creator referees but plays Axis: for Allied she only proposes, bob confirms
    proposed = await service.handle(HERE, ALICE, "ok1", Shoot(side="Allied"))
    assert proposed.command == "/game propose" and proposed.seq == 4
    confirmed = await service.handle(HERE, BOB, "ok1b", gc.GameConfirm(entry=4))
    assert confirmed.side == "Allied" and confirmed.actor == "bob"
    # referees and administrators without a seat act for any side
    assert (await service.handle(HERE, ADMIN, "ok2", Shoot(side="Axis"))).seq == 6
    naming = await service.handle(
        HERE, ALICE, "ok3", gc.GameRefereeAdd(user=UserRef(id=3, name="carol"))
    )
    assert naming.command == "/game propose"  # a referee who plays names one with agreement
    await service.handle(HERE, BOB, "ok3b", gc.GameConfirm(entry=7))
    assert (await service.handle(HERE, CAROL, "ok4", Ammo(side="Allied", level=2))).seq == 9
    # everyone may read
    status = await service.handle(HERE, CAROL, "r", gc.GameStatus())
    assert ("Referees", "alice, carol") in status.fields
    assert ("Table", "Axis: ammo 1\nAllied: ammo 2") in status.fields  # the system's summary


async def test_bad_input_and_illegal_actions_change_nothing(
    service: GameService, repo: Repository
) -> None:
    await start_game(service)
    await service.handle(HERE, ALICE, "a0", Ammo(side="Axis", level=0))
    before = await head(repo)
    with pytest.raises(IllegalAction, match="no ammunition"):
        await service.handle(HERE, ALICE, "a1", Shoot(side="Axis"))
    with pytest.raises(InvalidInput):
        await service.handle(HERE, ALICE, "a2", gc.RollDice(dice="7x"))
    with pytest.raises(InvalidInput):
        await service.handle(HERE, ALICE, "a3", gc.GameSeat(side="Soviet"))
    with pytest.raises(CannotVoid):
        await service.handle(HERE, ALICE, "a4", gc.GameVoid(entry=2, reason="seat"))
    with pytest.raises(CannotVoid):
        await service.handle(HERE, ALICE, "a5", gc.GameVoid(entry=99, reason="none"))
    with pytest.raises(NoGameHere):
        await service.handle(Place(guild_id=1, channel_id=1), ALICE, "a6", Shoot(side="Axis"))
    assert await head(repo) == before
    assert await repo.entry_by_interaction("a1") is None


async def test_preview_gives_exact_odds_and_rolls_and_logs_nothing(
    service: GameService, repo: Repository
) -> None:
    await start_game(service)
    before = await head(repo)
    reply = await service.handle(HERE, CAROL, "pv", Shoot(side="Axis", target=7), preview=True)
    odds = {line.facts: line.probability for line in reply.odds}
    assert sum(odds.values()) == 1
    assert reply.preview and reply.ephemeral and reply.seq is None and reply.dice == ()
    listing = await service.handle(HERE, CAROL, "ls", ShowTally())
    assert listing.steps[0].text == "Axis 0, Allied 0"
    assert await head(repo) == before
    assert await repo.entry_by_interaction("pv") is None


async def test_void_rebuilds_the_state_without_the_voided_entry(
    service: GameService, repo: Repository
) -> None:
    script = FaceScript([1, 2, 1, 3, 6, 5])  # hit, hit, miss
    scripted = GameService(repo, SYSTEMS, script=script)
    await start_game(scripted)
    first = await scripted.handle(HERE, ALICE, "s1", Shoot(side="Axis"))
    await scripted.handle(HERE, ALICE, "s2", Shoot(side="Axis"))
    await scripted.handle(HERE, ALICE, "s3", Shoot(side="Axis"))
    assert json.loads((await head(repo))[3])["hits"] == [2, 0]
    assert first.scripted and all(d.scripted for d in first.dice)
    # alice referees and holds Axis: her void of an Axis entry waits for the Allied player
    proposal = await scripted.handle(HERE, ALICE, "v", gc.GameVoid(entry=4, reason="wrong hex"))
    assert proposal.seq == 7 and proposal.command == "/game propose"
    assert json.loads((await head(repo))[3])["hits"] == [2, 0]
    with pytest.raises(NotYourSide, match="other side confirms"):
        await scripted.handle(HERE, ALICE, "v1", gc.GameConfirm(entry=7))
    void = await scripted.handle(HERE, BOB, "v1b", gc.GameConfirm(entry=7))
    assert json.loads((await head(repo))[3])["hits"] == [1, 0]
    assert void.seq == 8 and void.title == "Entry 4 is void: wrong hex"
    with pytest.raises(CannotVoid, match="not a proposal"):
        await scripted.handle(HERE, BOB, "v1c", gc.GameConfirm(entry=7))
    with pytest.raises(CannotVoid, match="already void"):
        await scripted.handle(HERE, ALICE, "v2", gc.GameVoid(entry=4, reason="again"))
    status = await scripted.handle(HERE, BOB, "st", gc.GameStatus())
    assert ("Voids by", "alice 1") in status.fields
    report = verify_lines(await export_lines(scripted), SYSTEMS)
    assert report.ok, report.message


async def test_a_void_that_later_entries_depend_on_is_refused(
    service: GameService, repo: Repository
) -> None:
    scripted = GameService(repo, SYSTEMS, script=FaceScript([1, 2]))
    await start_game(scripted)
    await scripted.handle(HERE, ALICE, "z1", Ammo(side="Axis", level=0))
    await scripted.handle(HERE, ALICE, "z2", Ammo(side="Axis", level=3))
    await scripted.handle(HERE, ALICE, "z3", Shoot(side="Axis"))
    before = await head(repo)
    with pytest.raises(CannotVoid, match="Entry 6 no longer replays"):
        await scripted.handle(HERE, ALICE, "z4", gc.GameVoid(entry=5, reason="x"))
    assert await head(repo) == before


async def test_dice_derived_from_the_revealed_seeds_match_what_was_posted(
    service: GameService,
) -> None:
    await start_game(service)
    posted: list[DieView] = []
    posted += (await service.handle(HERE, ALICE, "d1", Shoot(side="Axis"))).dice
    await service.handle(HERE, BOB, "d2", gc.GameSeed(phrase="Bob's luck ☘"))
    posted += (await service.handle(HERE, BOB, "d3", gc.RollDice(dice="3d10+2"))).dice
    rotate = await service.handle(HERE, ALICE, "d4", gc.GameRotate())
    late = (await service.handle(HERE, BOB, "d5", Shoot(side="Allied"))).dice
    assert {d.epoch for d in posted} == {1} and {d.epoch for d in late} == {2}
    posted += late
    end = await end_game(service, key="d6")
    assert rotate.revealed_seed and end.revealed_seed
    seeds = {1: bytes.fromhex(rotate.revealed_seed), 2: bytes.fromhex(end.revealed_seed)}
    game = rotate.game_id
    assert game is not None
    mixed = mix_phrase(NO_PLAYERS, "Bob's luck ☘")
    for die in posted:
        players = mixed if die.label.startswith("d10") or die.epoch == 2 else NO_PLAYERS
        face = derive_face(
            seeds[die.epoch], game=game, players=players, seq=die.seq, sides=die.sides
        )
        assert face == die.face, die
    assert [d.seq for d in posted] == list(range(1, len(posted) + 1))
    # the ended game stays readable, and a new one may start
    assert (await service.handle(HERE, CAROL, "st", gc.GameStatus())).title.endswith("(ended)")
    report = verify_lines(await export_lines(service), SYSTEMS)
    assert report.ok and report.counts is not None
    assert report.counts["dice checked"] == len(posted)
    await service.handle(HERE, BOB, "new2", gc.GameNew(system="toy"))


async def test_commands_of_another_system_and_exhausted_scripts_are_refused(
    repo: Repository,
) -> None:
    scripted = GameService(repo, SYSTEMS, script=FaceScript([4]))
    await start_game(scripted)
    before = await head(repo)
    with pytest.raises(DiceScriptRanOut):
        await scripted.handle(HERE, ALICE, "e1", Shoot(side="Axis"))
    assert scripted.script is not None and scripted.script.remaining == (4,)
    other = Shoot.model_construct(side="Axis")
    object.__setattr__(other, "action", "chess.move")
    with pytest.raises(WrongSystem):
        await scripted.handle(HERE, ALICE, "e2", other)
    assert await head(repo) == before


async def test_stats_count_the_persisted_dice(service: GameService) -> None:
    await start_game(service)
    for i in range(10):
        await service.handle(HERE, ALICE, f"r{i}", gc.RollDice(dice="dr"))
    reply = await service.handle(HERE, BOB, "st", gc.Stats(player=UserRef(id=1, name="alice")))
    (d6,) = reply.stats
    assert sum(d6.counts) == 10 and d6.sides == 6
    nobody = await service.handle(HERE, BOB, "st2", gc.Stats(player=UserRef(id=2, name="bob")))
    assert nobody.stats == ()


async def test_a_failing_append_in_a_group_commit_does_not_fail_the_others(
    service: GameService, repo: Repository
) -> None:
    places = [Place(guild_id=5, channel_id=c) for c in (1, 2, 3)]
    for place in places:
        await start_game(service, place)
    # the same interaction id reaches two channels at once: both pass the look-up, one commits;
    # the other is refused (a replay answers only in the same channel's game, for the same
    # command), and the third channel's append in the same group is not failed by it
    replies = await asyncio.gather(
        service.handle(places[0], ALICE, "same", Shoot(side="Axis")),
        service.handle(places[1], ALICE, "same", Shoot(side="Axis")),
        service.handle(places[2], ALICE, "other", Shoot(side="Axis")),
        return_exceptions=True,
    )
    outcomes = sorted(type(r).__name__ for r in replies[:2])
    assert outcomes == ["BadCommand", "Reply"], replies
    third = replies[2]
    assert isinstance(third, Reply) and not third.replayed and third.seq == 4
    heads = [(await head(repo, place))[0] for place in places]
    assert sorted(heads[:2]) == [3, 4] and heads[2] == 4
    stored = await repo.entry_by_interaction("same")
    assert stored is not None and stored.seq == 4


async def test_autocomplete_names_come_from_the_channels_game(service: GameService) -> None:
    assert await service.autocomplete(HERE, "side") == []
    await start_game(service)
    assert await service.autocomplete(HERE, "side", "all") == ["Allied"]
    assert await service.autocomplete(HERE, "systems") == ["toy"]
    assert await service.autocomplete(HERE, "weapon") == []


async def test_reopening_the_database_applies_no_migration_twice(
    service: GameService, repo: Repository, database: Path | str
) -> None:
    await start_game(service)
    again = await open_repository(database)
    try:
        assert await again.schema_version() == migrations()[-1][0]
        row = await again.active_game(HERE.guild_id, HERE.channel_id)
        assert row is not None and row.head_seq == 3
    finally:
        await again.close()


async def test_a_listing_of_another_system_is_refused(repo: Repository) -> None:
    from tests.bot.toysystem import Toy

    class Other(Toy):
        name = "other"

    service = GameService(repo, {"toy": SYSTEM, "other": Other()})
    await service.handle(HERE, ALICE, "n", gc.GameNew(system="other"))
    with pytest.raises(WrongSystem, match="belongs to another game"):
        await service.handle(HERE, ALICE, "l", ShowTally())
    with pytest.raises(WrongSystem):
        await service.handle(HERE, ALICE, "p", Shoot(side="Axis"), preview=True)


async def test_prepare_gets_the_reply_while_the_commit_is_in_flight_and_a_replay_replaces_it(
    service: GameService, repo: Repository
) -> None:
    await start_game(service)
    prepared: list[tuple[Reply, int]] = []

    def prepare(reply: Reply) -> None:  # the cached game is still at the head before the entry
        prepared.append((reply, service.core.live[(HERE.guild_id, HERE.channel_id)].row.head_seq))

    first = await service.handle(HERE, ALICE, "s1", Shoot(side="Axis"), prepare=prepare)
    ((reply, cached_head),) = prepared
    assert first.seq is not None
    assert reply is first and cached_head == first.seq - 1 and not first.replayed
    assert (await head(repo))[0] == first.seq  # and it was committed before handle returned
    again = await service.handle(HERE, ALICE, "s1", Shoot(side="Axis"), prepare=prepare)
    assert again.replayed and again is not prepared[-1][0] and again.seq == first.seq


async def test_a_referee_only_option_is_refused_to_players(
    service: GameService, repo: Repository
) -> None:
    await start_game(service)
    before = await head(repo)
    with pytest.raises(NotAReferee, match="option correction"):
        await service.handle(HERE, BOB, "c1", Ammo(side="Allied", level=2, correction=True))
    assert await head(repo) == before
    assert (
        await service.handle(HERE, ALICE, "c2", Ammo(side="Allied", level=1, correction=True))
    ).seq


async def test_a_repeated_interaction_is_answered_only_for_the_same_game_and_command(
    service: GameService, repo: Repository
) -> None:
    there = Place(guild_id=HERE.guild_id + 1, channel_id=HERE.channel_id + 1)
    await start_game(service)
    await start_game(service, there)
    first = await service.handle(HERE, ALICE, "once", Shoot(side="Axis"))
    again = await service.handle(HERE, ALICE, "once", Shoot(side="Axis"))
    assert again.replayed and again.seq == first.seq and again.dice == first.dice
    before = (await head(repo, HERE), await head(repo, there))
    with pytest.raises(BadCommand, match="another command or channel"):
        await service.handle(there, ALICE, "once", Shoot(side="Axis"))
    with pytest.raises(BadCommand, match="another command or channel"):
        await service.handle(HERE, ALICE, "once", gc.RollDice(dice="DR"))
    with pytest.raises(BadCommand, match="another command or channel"):
        await service.handle(HERE, ALICE, "once", gc.GameSeat(side="Axis"))
    assert (await head(repo, HERE), await head(repo, there)) == before
