"""An action costs the same with a short or a long log: the hot path never reads the log."""

from __future__ import annotations

import asyncio
import time

from bot.service.game_service import GameService
from bot.storage import Repository, SQLiteRepository
from tests.bot.conftest import ALICE, HERE, start_game
from tests.bot.toysystem import Ammo, Shoot
from tests.conftest import ENGINES


async def statements_of_one_action(service: GameService, repo: Repository, iid: str) -> list[str]:
    seen: list[str] = []
    assert isinstance(repo, SQLiteRepository)
    await repo._writer.set_trace_callback(seen.append)
    await repo._reader.set_trace_callback(seen.append)
    assert repo._direct is not None  # a lone append is committed on the loop's connection
    repo._direct.set_trace_callback(seen.append)
    await service.handle(HERE, ALICE, iid, Shoot(side="Axis"))
    await repo._writer.set_trace_callback(None)  # type: ignore[arg-type]
    await repo._reader.set_trace_callback(None)  # type: ignore[arg-type]
    repo._direct.set_trace_callback(None)
    return seen


def shape(statements: list[str]) -> list[str]:
    """The statements with their SQL text only (parameters are bound, not inlined); a statement
    repeated for each row of an ``executemany`` counts once (a DR with doubles rolls one more
    die, so it inserts one more ``rolls`` row)."""
    shapes = [" ".join(s.split())[:60] for s in statements]
    return [s for i, s in enumerate(shapes) if i == 0 or s != shapes[i - 1]]


@ENGINES("sqlite")  # SQLite's own connections and pragmas
async def test_the_same_statements_run_at_entry_10_and_at_entry_1500(
    service: GameService, repo: Repository
) -> None:
    await start_game(service)
    for i in range(6):
        await service.handle(HERE, ALICE, f"w{i}", Ammo(side="Axis", level=1 + i % 3))
    short = await statements_of_one_action(service, repo, "short")
    started = time.process_time()  # CPU time: other processes on a loaded host do not count
    await asyncio.gather(
        *(service.handle(HERE, ALICE, f"x{i}", Ammo(side="Axis", level=2)) for i in range(1500))
    )
    assert time.process_time() - started < 60
    fresh = GameService(repo, service.systems)  # a restart: the first action loads the snapshot
    await fresh.handle(HERE, ALICE, "warm", Shoot(side="Axis"))
    long = await statements_of_one_action(fresh, repo, "long")
    assert shape(short) == shape(long)
    # not even the idempotency look-up: a redelivery is caught by the unique interaction id
    reads_of_the_log = [s for s in long if "FROM entries" in s]
    assert reads_of_the_log == []
    assert [s for s in long if s.startswith("INSERT INTO entries")]
    # a game that stays active keeps its status untouched: setting it, even to the same value,
    # rewrites the one-active-game-per-channel index (one more page synced per action)
    moves = [s for s in long if s.startswith("UPDATE games")]
    assert len(moves) == 1 and "status" not in moves[0].split("WHERE")[0]
