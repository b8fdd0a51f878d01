"""Beacon games on a database that several bot processes share: each process resumes only the
pending declarations of the servers its shards serve, and should two resolve the same one (a
shard moved between processes, two processes of one shard during a restart), the database lets
exactly one of them write its result: the other finds it resolved and writes nothing."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bot.dice.beacon.local import LocalRelay
from bot.models import Place, Reply
from bot.service.game_service import GameService
from bot.storage import open_repository
from bot.table import commands as gc
from tests.beacon.conftest import ALICE, HERE, beacon_config, start_beacon_game
from tests.beacon.test_beacon_games import SHOOT
from tests.bot.toysystem import SYSTEM


async def a_process(db: Path | str, relay: LocalRelay) -> tuple[GameService, list[Reply]]:
    """A bot process's service on the shared database; the results it posts late."""
    service = GameService(
        await open_repository(db), {"toy": SYSTEM}, beacon=beacon_config(relay, patience=0.2)
    )
    posted: list[Reply] = []

    async def on_late(place: Place, reply: Reply) -> None:
        posted.append(reply)

    assert service.resolver is not None
    service.resolver.on_late = on_late
    return service, posted


async def test_two_processes_resuming_one_declaration_resolve_it_once(
    db: Path | str, relay: LocalRelay
) -> None:
    first, first_posted = await a_process(db, relay)
    second, second_posted = await a_process(db, relay)
    try:
        relay.down = True
        await start_beacon_game(first)
        declared = await first.handle(HERE, ALICE, "shoot", SHOOT)
        await first.close_beacon()  # the process stopped with the declaration pending
        assert await first.resume_beacon() == await second.resume_beacon() == 1
        relay.down = False  # both fetch the round and try to resolve it
        for _ in range(600):  # a minute at most (a second or two on a quiet machine)
            if first_posted or second_posted:
                break
            await asyncio.sleep(0.1)
        await asyncio.sleep(1.0)  # the slower one has had its turn too
        assert len(first_posted) + len(second_posted) == 1
        row = await first.repo.active_game(HERE.guild_id, HERE.channel_id)
        assert row is not None
        kinds = [e.kind for e in await first.repo.entries(row.id)]
        assert kinds.count("resolved") == 1 and kinds[-1] == "resolved", kinds
        assert "pending" not in row.table
        assert declared.seq == row.head_seq - 1
    finally:
        for service in (first, second):
            await service.close_beacon()
            await service.repo.close()


async def test_a_process_resumes_only_the_declarations_of_its_own_servers(
    db: Path | str, relay: LocalRelay
) -> None:
    first, _ = await a_process(db, relay)
    try:
        relay.down = True
        await start_beacon_game(first)
        other = Place(guild_id=HERE.guild_id + (1 << 22), channel_id=201)  # on the other shard
        await first.handle(other, ALICE, "new-2", gc.GameNew(system="toy", dice="beacon"))
        await first.handle(other, ALICE, "seat-2", gc.GameSeat(side="Axis"))
        await first.handle(HERE, ALICE, "shoot-here", SHOOT)
        await first.handle(other, ALICE, "shoot-there", SHOOT)
        await first.close_beacon()

        def shard_of(guild_id: int) -> int:
            return (guild_id >> 22) % 2

        mine = shard_of(HERE.guild_id)
        assert shard_of(other.guild_id) != mine
        assert await first.resume_beacon(owns=lambda guild: shard_of(guild) == mine) == 1
        assert first.resolver is not None
        assert first.resolver.pending(HERE) is not None
        assert first.resolver.pending(other) is None
    finally:
        await first.close_beacon()
        await first.repo.close()
