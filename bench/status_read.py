"""Wall time of a read (``/game status``) through the game service, on both engines, for
comparing two checkouts (a read now checks the cached game's head in the database first).

    TREE=/path/to/a/checkout LABEL=old .venv/bin/python bench/status_read.py
    TREE=$PWD LABEL=new .venv/bin/python bench/status_read.py

One game with 50 rolls, then 2,000 ``/game status`` after 200 warm-up ones, on SQLite and on a
PostgreSQL server started for the run (``fsync`` on, as in production); p50 and p99 per read.
Run the two checkouts interleaved: on a shared machine the figures follow the load.
"""

import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.environ.get("TREE", str(Path(__file__).resolve().parents[1])))
import bot.storage
from bot.models import Actor, Place
from bot.service.game_service import GameService
from bot.storage import open_repository
from bot.table import commands as gc
from tests.bot.toysystem import SYSTEM
from tests.pgserver import PostgresServer, find_bindir

assert bot.storage.__file__.startswith(sys.path[0]), bot.storage.__file__


async def measure(target: str) -> tuple[float, float]:
    repo = await open_repository(target)
    try:
        service = GameService(repo, {"toy": SYSTEM})
        place = Place(guild_id=1, channel_id=1)
        actor = Actor(user_id=1, name="a", is_admin=True)
        await service.handle(place, actor, "new", gc.GameNew(system="toy"))
        for i in range(50):
            await service.handle(place, actor, f"r{i}", gc.RollDice(dice="DR"))
        times = []
        for i in range(2200):
            started = time.perf_counter()
            await service.handle(place, actor, f"s{i}", gc.GameStatus())
            times.append((time.perf_counter() - started) * 1000)
        kept = sorted(times[200:])
        return statistics.median(kept), kept[int(len(kept) * 0.99) - 1]
    finally:
        await repo.close()


async def main() -> None:
    label = os.environ.get("LABEL", "this checkout")
    with tempfile.TemporaryDirectory() as directory:
        p50, p99 = await measure(str(Path(directory) / "r.db"))
    print(f"{label}: SQLite /game status p50 {p50:.3f} ms, p99 {p99:.3f} ms")
    bindir = find_bindir()
    assert bindir is not None, "PostgreSQL is not installed (apt-get install -y postgresql)"
    server = PostgresServer(bindir, durable=True)
    try:
        server.start()
        p50, p99 = await measure(await server.create_database())
    finally:
        server.stop()
    print(f"{label}: PostgreSQL /game status p50 {p50:.3f} ms, p99 {p99:.3f} ms")


if __name__ == "__main__":
    asyncio.run(main())
