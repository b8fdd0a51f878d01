"""What recording the metrics costs one interaction (docs/PERFORMANCE.md, "Metrics").

    .venv/bin/python -m bench.metrics_cost

Two measures, each an interleaved before/after pair (metrics off, then on, then off…, ROUNDS
times), so the machine's load falls on both alike:

1. the recorders one ``/roll`` goes through when metrics are on — the interaction's counter and
   histogram, its append's database histogram, and the rules' histogram of a system action —
   called 100,000 times: the added CPU per interaction;
2. ``/roll DR`` through the game service on SQLite (the handler's wrapper included), 1,000 rolls
   a block: the CPU per roll with and without.

It prints the medians and the load average (``os.getloadavg``): on a shared machine say it with
the figures.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path

from bot.models import Actor, Place
from bot.ops import metrics
from bot.service.game_service import GameService
from bot.storage import open_repository
from bot.table import commands as gc
from tests.bot.toysystem import SYSTEM

ROUNDS = 7
CALLS = 100_000
ROLLS = 1_000


def recorders(on: bool) -> float:
    """CPU µs per interaction of the recorders, metrics on or off."""
    saved = metrics._on
    metrics._on = saved if on else None
    try:
        began = time.process_time()
        for _ in range(CALLS):
            metrics.interaction("roll", "ok", 0.0012)
            metrics.database("append", 0.0003)
            metrics.rules(0.0001)
        return (time.process_time() - began) / CALLS * 1e6
    finally:
        metrics._on = saved


async def rolls(service: GameService, on: bool, block: int) -> float:
    """CPU µs per ``/roll DR`` through the service, with the handler's recording."""
    saved = metrics._on
    metrics._on = saved if on else None
    place, actor = Place(guild_id=1, channel_id=1), Actor(user_id=1, name="a", is_admin=True)
    try:
        began = time.process_time()
        for i in range(ROLLS):
            start = time.perf_counter()
            await service.handle(place, actor, f"{block}-{i}", gc.RollDice(dice="DR"))
            metrics.interaction("roll", "ok", time.perf_counter() - start)
        return (time.process_time() - began) / ROLLS * 1e6
    finally:
        metrics._on = saved


async def main() -> None:
    metrics.enable()
    off, on = [], []
    for _ in range(ROUNDS):
        off.append(recorders(False))
        on.append(recorders(True))
    print(f"load average before: {os.getloadavg()}")
    print(
        f"recorders per interaction: off {statistics.median(off):.2f} µs, "
        f"on {statistics.median(on):.2f} µs CPU (medians of {ROUNDS})"
    )
    with tempfile.TemporaryDirectory() as directory:
        repo = await open_repository(Path(directory) / "r.db")
        service = GameService(repo, {"toy": SYSTEM})
        place, actor = Place(guild_id=1, channel_id=1), Actor(user_id=1, name="a", is_admin=True)
        await service.handle(place, actor, "new", gc.GameNew(system="toy"))
        await service.handle(place, actor, "seat", gc.GameSeat(side="Axis"))
        await rolls(service, True, -1)  # warm up
        off, on = [], []
        for block in range(ROUNDS):
            off.append(await rolls(service, False, 2 * block))
            on.append(await rolls(service, True, 2 * block + 1))
        await repo.close()
    print(
        f"/roll DR through the service: off {statistics.median(off):.1f} µs, "
        f"on {statistics.median(on):.1f} µs CPU per roll (medians of {ROUNDS} blocks of {ROLLS})"
    )
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    asyncio.run(main())
