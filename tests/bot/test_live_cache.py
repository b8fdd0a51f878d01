"""The service's bounded cache of live games and its per-channel locks (issue 8).

Evicting a game from the cache loses nothing: it reloads from its stored snapshot to the same
state and goes on with the same hash chain. Locks exist only while someone holds or awaits them.
The ``/roll`` preview counts its odds by convolution, equal to the full enumeration.
"""

from __future__ import annotations

import asyncio
import gc as garbage
from fractions import Fraction

import pytest

from bot.log.export import export_game
from bot.log.verify import verify_lines
from bot.models import Place
from bot.service.game_service import GameService
from bot.storage import Repository
from bot.storage.base import canonical
from bot.table import commands as gc
from bot.table.roll import roll_total_odds
from rules_core.errors import InvalidInput
from rules_core.odds import exact_odds
from rules_core.roll import parse_expression, roll_expression
from tests.bot.conftest import ALICE, start_game
from tests.bot.toysystem import SYSTEM, Ammo, Shoot

PLACES = [Place(guild_id=100, channel_id=300 + i) for i in range(5)]


async def test_the_cache_holds_at_most_live_games_and_evicts_the_least_recently_used(
    repo: Repository,
) -> None:
    service = GameService(repo, {"toy": SYSTEM}, live_games=2)
    for place in PLACES:
        await start_game(service, place)
        assert len(service.core.live) <= 2
    assert list(service.core.live) == [(100, 303), (100, 304)]
    await service.handle(PLACES[3], ALICE, "touch-3", Ammo(side="Axis", level=2))
    await service.handle(PLACES[0], ALICE, "touch-0", Ammo(side="Axis", level=2))
    assert list(service.core.live) == [(100, 303), (100, 300)]


async def test_an_evicted_game_reloads_to_the_same_state_and_chain(repo: Repository) -> None:
    service = GameService(repo, {"toy": SYSTEM}, live_games=1)
    roomy = GameService(repo, {"toy": SYSTEM}, live_games=100)
    first, other = PLACES[0], PLACES[1]
    await start_game(service, first)
    for i in range(5):
        await service.handle(first, ALICE, f"shot-{i}", Shoot(side="Axis"))
    before = service.core.live[(100, 300)]
    await start_game(service, other)  # evicts the first game
    assert (100, 300) not in service.core.live
    reloaded = await roomy.core.load(first)
    assert reloaded.state == before.state
    assert (reloaded.row.head_seq, reloaded.row.head_hash) == (
        before.row.head_seq,
        before.row.head_hash,
    )
    assert reloaded.row.next_die == before.row.next_die
    reply = await service.handle(first, ALICE, "after-eviction", Shoot(side="Axis"))
    assert reply.seq == before.row.head_seq + 1
    assert reply.dice[0].seq == before.row.next_die
    row = await repo.active_game(100, 300)
    assert row is not None
    report = verify_lines((await export_game(repo, row)).splitlines(), {"toy": SYSTEM})
    assert report.ok, report


async def test_concurrent_actions_on_many_games_through_a_tiny_cache_lose_no_update(
    repo: Repository,
) -> None:
    service = GameService(repo, {"toy": SYSTEM}, live_games=1)
    for place in PLACES:
        await start_game(service, place)

    async def play(place: Place) -> None:
        await asyncio.gather(
            *(
                service.handle(place, ALICE, f"{place.channel_id}-{i}", Ammo(side="Axis", level=1))
                for i in range(20)
            )
        )

    await asyncio.gather(*(play(place) for place in PLACES))
    for place in PLACES:
        row = await repo.active_game(place.guild_id, place.channel_id)
        assert row is not None
        entries = await repo.entries(row.id)
        assert [e.seq for e in entries] == list(range(1, 24))  # new, two seats, 20 actions
        prev = [e.data()["prev"] for e in entries[1:]]
        assert prev == [e.hash for e in entries[:-1]]


async def test_locks_go_away_when_no_one_holds_or_awaits_them(repo: Repository) -> None:
    service = GameService(repo, {"toy": SYSTEM}, live_games=1)
    for place in PLACES:
        await start_game(service, place)
    lock = service.core.lock(PLACES[0])
    assert service.core.lock(PLACES[0]) is lock  # the same lock while it is referenced
    async with lock:
        waiting = asyncio.ensure_future(
            service.handle(PLACES[0], ALICE, "waits", Ammo(side="Axis", level=3))
        )
        await asyncio.sleep(0.05)
        assert not waiting.done()  # the action waits for the lock it shares
    await waiting
    del lock
    garbage.collect()
    assert len(service.core.locks) == 0


async def test_a_request_cancelled_while_it_waits_leaves_no_lock_behind(repo: Repository) -> None:
    service = GameService(repo, {"toy": SYSTEM})
    await start_game(service, PLACES[0])
    first = asyncio.ensure_future(
        service.handle(PLACES[0], ALICE, "first", Ammo(side="Axis", level=2))
    )
    async with service.core.lock(PLACES[0]):  # the service's requests wait behind it
        waiting = [
            asyncio.ensure_future(
                service.handle(PLACES[0], ALICE, f"w{i}", Ammo(side="Axis", level=3))
            )
            for i in range(3)
        ]
        await asyncio.sleep(0.05)
        assert service.core.locks[(100, 300)].users == 4  # one lock for all of them
        waiting[1].cancel()
        await asyncio.sleep(0)
        assert service.core.locks[(100, 300)].users == 3
    await asyncio.gather(first, waiting[0], waiting[2])
    assert waiting[1].cancelled()
    assert len(service.core.locks) == 0
    row = await repo.active_game(100, 300)
    assert row is not None and row.head_seq == 3 + 3  # new, two seats; three actions


async def test_a_preview_of_an_uncached_game_does_not_fill_the_cache(repo: Repository) -> None:
    service = GameService(repo, {"toy": SYSTEM}, live_games=1)
    await start_game(service, PLACES[0])
    await start_game(service, PLACES[1])
    assert (100, 300) not in service.core.live
    reply = await service.handle(PLACES[0], ALICE, "p", Shoot(side="Axis"), preview=True)
    assert reply.preview and reply.odds
    assert list(service.core.live) == [(100, 301)]


def test_live_games_must_be_positive(repo: Repository) -> None:
    with pytest.raises(ValueError):
        GameService(repo, {"toy": SYSTEM}, live_games=0)


@pytest.mark.parametrize("text", ["DR", "dr", "DR-2", "dr+1", "3d6", "2d10+3", "d20", "4d6-1"])
def test_roll_odds_by_convolution_equal_the_full_enumeration(text: str) -> None:
    expression = parse_expression(text)
    enumerated = exact_odds(lambda dice: (("total", str(roll_expression(expression, dice).total)),))
    assert roll_total_odds(expression) == enumerated
    assert sum(roll_total_odds(expression).values()) == Fraction(1)


def test_roll_odds_refuse_what_they_refused_before() -> None:
    with pytest.raises(InvalidInput):
        roll_total_odds(parse_expression("7d6"))
    assert len(roll_total_odds(parse_expression("6d6"))) == 31


async def test_the_table_kept_as_text_is_the_table_written(repo: Repository) -> None:
    """A commit that leaves the table as it was writes the text kept of it (encoded once, not on
    every action): the stored table is always the game's, whether the table changed, stayed, or
    the game was read afresh from the database."""
    service = GameService(repo, {"toy": SYSTEM})
    place = PLACES[0]
    key = (place.guild_id, place.channel_id)

    async def stored_is_cached() -> None:
        live = service.core.live[key]
        assert live.row.table_json == canonical(live.row.table)
        row = await repo.active_game(place.guild_id, place.channel_id)
        assert row is not None and row.table == live.row.table

    await start_game(service, place)
    await stored_is_cached()
    await service.handle(place, ALICE, "same-1", Ammo(side="Axis", level=2))  # the table stays
    await stored_is_cached()
    await service.handle(place, ALICE, "notices", gc.GameNotices(on=False))  # the table changes
    await stored_is_cached()
    await service.handle(place, ALICE, "same-2", Ammo(side="Axis", level=3))
    await stored_is_cached()
    assert service.core.live[key].row.table["notices"] is False
    fresh = GameService(repo, {"toy": SYSTEM})  # a restart: the row is read, its text not known
    await fresh.handle(place, ALICE, "fresh-1", Ammo(side="Axis", level=1))
    service = fresh
    await stored_is_cached()
    await fresh.handle(place, ALICE, "notices-on", gc.GameNotices(on=True))
    await fresh.handle(place, ALICE, "fresh-2", Ammo(side="Axis", level=2))
    await stored_is_cached()
    row = await repo.active_game(place.guild_id, place.channel_id)
    assert row is not None and row.table["notices"] is True and row.head_seq == 9
