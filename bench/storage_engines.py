"""The storage engines compared: SQLite (the default) against PostgreSQL, one process against two.

    .venv/bin/python -m bench.storage_engines [--quick] [--results FILE]

Every figure goes through the real game service (``GameService.handle`` with ``/roll DR``, a
durable commit each) in real processes; PostgreSQL is a real server started for the run
(``tests/pgserver.py``, with ``fsync`` and ``synchronous_commit`` on, as in production) on a Unix
socket. Measured on each engine:

* latency: one process, one game, actions one after another (p50, p99);
* throughput, one game per channel (the usual case: several channels, each its own game):
  one process, then two processes each with half the channels, 20 channels in flight in each;
* contention: two processes writing the *same* game as fast as they can (every refusal is decided
  again holding the game); afterwards the chain is checked whole.

Not part of the test run; the figures go to docs/PERFORMANCE.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bot.log.export import export_game
from bot.log.verify import verify_lines
from bot.models import Actor, Place
from bot.service.game_service import GameService
from bot.storage import open_repository
from bot.table import commands as gc
from tests.bot.toysystem import SYSTEM
from tests.pgserver import PostgresServer, find_bindir

ROOT = Path(__file__).resolve().parents[1]
SYSTEMS = {"toy": SYSTEM}
ALICE = Actor(user_id=1, name="alice", is_admin=True)
GUILD = 1


def place(channel: int) -> Place:
    return Place(guild_id=GUILD, channel_id=channel)


async def child(target: str, name: str, channels: list[int], actions: int) -> None:
    """One writer process: ``actions`` rolls in each of ``channels``, all channels in flight;
    prints the seconds it took after every process is ready (a line on stdin starts it)."""
    repo = await open_repository(target)
    service = GameService(repo, SYSTEMS)
    roll = gc.RollDice(dice="DR")
    try:
        print("READY", flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
        started = time.perf_counter()

        async def player(channel: int) -> None:
            for i in range(actions):
                await service.handle(place(channel), ALICE, f"{name}-{channel}-{i}", roll)

        await asyncio.gather(*(player(c) for c in channels))
        print(json.dumps({"seconds": time.perf_counter() - started}), flush=True)
    finally:
        await repo.close()


async def new_games(target: str, channels: list[int]) -> None:
    repo = await open_repository(target)
    try:
        service = GameService(repo, SYSTEMS)
        for channel in channels:
            await service.handle(place(channel), ALICE, f"new-{channel}", gc.GameNew(system="toy"))
    finally:
        await repo.close()


async def latency(target: str, actions: int) -> tuple[float, float]:
    """p50 and p99 of one process's sequential rolls in one game, in ms."""
    await new_games(target, [1])
    repo = await open_repository(target)
    try:
        service = GameService(repo, SYSTEMS)
        roll = gc.RollDice(dice="DR")
        times = []
        for i in range(actions + 20):
            started = time.perf_counter()
            await service.handle(place(1), ALICE, f"lat-{i}", roll)
            times.append((time.perf_counter() - started) * 1000)
        times = sorted(times[20:])  # the first ones warm up the caches
        return statistics.median(times), times[int(len(times) * 0.99) - 1]
    finally:
        await repo.close()


def run_children(target: str, plans: list[tuple[str, list[int]]], actions: int) -> float:
    """Start one writer per plan, start them together; the wall time until the last is done."""
    processes = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "bench.storage_engines",
                "--child",
                target,
                name,
                ",".join(map(str, channels)),
                str(actions),
            ],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for name, channels in plans
    ]
    for process in processes:
        assert process.stdout is not None and process.stdout.readline().strip() == "READY"
    started = time.perf_counter()
    for process in processes:
        assert process.stdin is not None
        process.stdin.write("go\n")
        process.stdin.flush()
    for process in processes:
        out, _ = process.communicate(timeout=900)
        assert process.returncode == 0, out
    return time.perf_counter() - started


async def check(target: str, channels: list[int], expected: int) -> None:
    repo = await open_repository(target)
    try:
        for channel in channels:
            row = await repo.active_game(GUILD, channel)
            assert row is not None and row.head_seq == expected, (channel, row)
            report = verify_lines((await export_game(repo, row)).splitlines(), SYSTEMS)
            assert report.ok, report.message
    finally:
        await repo.close()


async def measure(engine: str, target: str, quick: bool, rows: list[tuple[str, str]]) -> None:
    sequential = 200 if quick else 1000
    channels, per_channel = (20, 20) if quick else (40, 50)
    p50, p99 = await latency(target, sequential)
    rows.append(
        (f"{engine}: /roll DR, sequential, 1 process", f"p50 {p50:.2f} ms, p99 {p99:.2f} ms")
    )
    for processes in (1, 2):
        ids = list(range(1000 * processes + 1, 1000 * processes + channels + 1))
        await new_games(target, ids)
        plans = [(f"p{n}", ids[n::processes]) for n in range(processes)]
        seconds = run_children(target, plans, per_channel)
        await check(target, ids, 1 + per_channel)
        total = channels * per_channel
        rows.append(
            (
                f"{engine}: throughput, {channels} games, {processes} process(es)",
                f"{total / seconds:,.0f} actions/s ({total} actions in {seconds:.1f} s)",
            )
        )
    shared = 9999
    await new_games(target, [shared])
    count = 100 if quick else 300
    seconds = run_children(target, [("a", [shared]), ("b", [shared])], count)
    await check(target, [shared], 1 + 2 * count)
    rows.append(
        (
            f"{engine}: contention, 2 processes writing one game",
            f"{2 * count / seconds:,.0f} actions/s ({2 * count} actions in {seconds:.1f} s; "
            "chain verified, head = every action)",
        )
    )


async def main_async(quick: bool) -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []
    with tempfile.TemporaryDirectory(prefix="bench-engines-") as directory:
        await measure("SQLite", str(Path(directory) / "referee.db"), quick, rows)
    bindir = find_bindir()
    assert bindir is not None, "PostgreSQL is not installed (apt-get install -y postgresql)"
    server = PostgresServer(bindir, durable=True)
    try:
        server.start()
        url = await server.create_database()
        await measure("PostgreSQL", url, quick, rows)
    finally:
        server.stop()
    return rows


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        target, name, channels, actions = sys.argv[2:6]
        asyncio.run(child(target, name, [int(c) for c in channels.split(",")], int(actions)))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller samples (a smoke test)")
    parser.add_argument("--results", type=Path, help="write the table (markdown) to this file")
    args = parser.parse_args()
    rows = asyncio.run(main_async(args.quick))
    text = "| measurement | figure |\n|---|---|\n" + "".join(f"| {a} | {b} |\n" for a, b in rows)
    text += f"\n{os.cpu_count()} CPUs; `python -m bench.storage_engines{' --quick' * args.quick}`\n"
    print(text)
    if args.results:
        args.results.write_text(text)


if __name__ == "__main__":
    main()
