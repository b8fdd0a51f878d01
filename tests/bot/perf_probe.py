"""A quick throughput probe of the service (not a test; issue 8 owns the real benchmark).

    python -m tests.bot.perf_probe CHANNELS ACTIONS_PER_CHANNEL [DB_FILE]

Starts a toy game in each channel, then every channel declares its actions one after another,
all channels at once, through ``GameService.handle`` on a real SQLite file (WAL,
``synchronous=FULL``). Prints actions per second and the latency percentiles.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

from bot.models import Actor, Place
from bot.service.game_service import GameService
from bot.storage import open_repository
from bot.table import commands as gc
from tests.bot.toysystem import SYSTEM, Shoot

ALICE = Actor(user_id=1, name="alice")


async def probe(channels: int, per_channel: int, path: Path) -> str:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    repo = await open_repository(path)
    try:
        service = GameService(repo, {"toy": SYSTEM})
        places = [Place(guild_id=1, channel_id=c) for c in range(channels)]
        for place in places:
            await service.handle(place, ALICE, f"new-{place.channel_id}", gc.GameNew(system="toy"))

        async def player(place: Place) -> list[float]:
            latencies = []
            for i in range(per_channel):
                started = time.perf_counter()
                await service.handle(place, ALICE, f"{place.channel_id}-{i}", Shoot(side="Axis"))
                latencies.append(time.perf_counter() - started)
            return latencies

        started = time.perf_counter()
        results = await asyncio.gather(*(player(place) for place in places))
        elapsed = time.perf_counter() - started
    finally:
        await repo.close()
    latencies = sorted(x for result in results for x in result)
    n = len(latencies)
    return (
        f"{channels} channels x {per_channel} actions: {n / elapsed:.0f} actions/s, "
        f"p50 {latencies[n // 2] * 1000:.1f} ms, p99 {latencies[int(n * 0.99)] * 1000:.1f} ms"
    )


if __name__ == "__main__":
    channels, per_channel = int(sys.argv[1]), int(sys.argv[2])
    path = Path(sys.argv[3] if len(sys.argv) > 3 else "/tmp/referee-perf.db")
    print(asyncio.run(probe(channels, per_channel, path)))
