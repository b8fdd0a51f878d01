"""A writer killed with SIGKILL at random points leaves a consistent game whose chain verifies.

On each engine (SQLite files; databases on the test run's PostgreSQL server), ten databases, each
written by ten successive processes that are killed at random moments (one
hundred kills), the ten chains running side by side. Each writer is a real process forked from a
zygote that imported everything once (tests/bot/crash_writer.py), so it starts in milliseconds.
After every kill the database is reopened:
the game row's head is the last entry, its snapshot is the state the log replays to, every die is
numbered once, and the exported chain verifies, dice and rulings included.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import random
import signal
import sys
from pathlib import Path

import pytest

from bot.log.export import export_game
from bot.log.verify import verify_lines
from bot.storage import open_repository, postgres
from tests.bot.crash_writer import CONNECT_WITHIN
from tests.bot.toysystem import SYSTEM
from tests.pgserver import PostgresServer

ROOT = Path(__file__).resolve().parents[2]
CHAINS = 10
KILLS_PER_CHAIN = 10
READY_WITHIN = 180
"""Seconds to wait for a writer's line: ten zygotes importing everything at once take ~40 s on a
loaded 2-core machine (a quiet one: ~2 s)."""


async def check_consistent(path: Path | str) -> int:
    repo = await open_repository(path)
    try:
        row = await repo.active_game(1, 1)
        assert row is not None
        entries = await repo.entries(row.id)
        assert entries[-1].seq == row.head_seq == len(entries)
        assert entries[-1].hash == row.head_hash
        last = entries[-1].data()
        assert hashlib.sha256(row.state_json.encode()).hexdigest() == last["state"]
        dice = [d for e in entries for d in e.data()["dice"]]
        assert [d["seq"] for d in dice] == list(range(1, row.next_die))
        counts = await repo.face_counts(guild_id=1)
        assert sum(sum(c.values()) for c in counts.values()) == len(dice)
        seeds = await repo.revealed_seeds(row.id)
        assert seeds[-1][0] == row.epoch and seeds[-1][2] is None
        report = verify_lines((await export_game(repo, row)).splitlines(), {"toy": SYSTEM})
        assert report.ok, report.message
        return row.head_seq
    finally:
        await repo.close()


async def chain(path: Path | str, rng: random.Random) -> list[int]:
    zygote = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.bot.crash_writer",
        cwd=ROOT, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert zygote.stdin is not None and zygote.stdout is not None
    heads = []
    try:
        for run in range(KILLS_PER_CHAIN):
            zygote.stdin.write(f"RUN {path} run{run}\n".encode())
            await zygote.stdin.drain()
            ready = (await asyncio.wait_for(zygote.stdout.readline(), READY_WITHIN)).split()
            assert ready[0] == b"READY", ready
            pid = int(ready[1])
            await asyncio.sleep(rng.uniform(0.0, 0.25))
            os.kill(pid, signal.SIGKILL)
            zygote.stdin.write(f"WAIT {pid}\n".encode())
            await zygote.stdin.drain()
            dead = (await asyncio.wait_for(zygote.stdout.readline(), READY_WITHIN)).split()
            assert dead == [b"DEAD", str(pid).encode(), str(int(signal.SIGKILL)).encode()]
            heads.append(await check_consistent(path))
    finally:
        zygote.stdin.close()
        await zygote.wait()
    return heads


@pytest.mark.timeout(1800)  # ~60 s on a quiet machine; ten times that under a loaded one
async def test_sigkill_at_random_points_always_leaves_a_consistent_verifiable_game(
    engine: str, tmp_path: Path, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the checks connect as patiently as the writers: ten chains' replays share this event loop,
    # and a connection opened while they run is not what this test is about
    monkeypatch.setattr(postgres, "CONNECT_TIMEOUT", CONNECT_WITHIN)
    rng = random.Random()
    targets: list[Path | str] = [tmp_path / f"crash{n}.db" for n in range(CHAINS)]
    if engine == "postgresql":
        server: PostgresServer = request.getfixturevalue("postgres_server")
        targets = [await server.create_database() for _ in range(CHAINS)]
    results = await asyncio.gather(
        *(chain(target, random.Random(rng.random())) for target in targets)
    )
    kills = sum(len(heads) for heads in results)
    assert kills == CHAINS * KILLS_PER_CHAIN >= 100
    for heads in results:
        assert heads == sorted(heads)  # nothing committed was ever lost
    # and the writers made progress (all chains together: on a loaded machine one chain's ten
    # writers may each be killed before their first commit)
    assert sum(heads[-1] for heads in results) > sum(heads[0] for heads in results)
    print(json.dumps({"kills": kills, "entries": [h[-1] for h in results]}))
