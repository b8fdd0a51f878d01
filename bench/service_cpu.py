"""CPU per ``/roll DR`` through the game service on SQLite, for comparing two checkouts.

    TREE=/path/to/a/checkout LABEL=old .venv/bin/python bench/service_cpu.py
    TREE=$PWD LABEL=new .venv/bin/python bench/service_cpu.py

2,000 rolls in one game after 200 warm-up rolls; the process's CPU time (the event loop's thread
and aiosqlite's) and the wall time per action. Run the two checkouts interleaved a few times: on a
shared machine the wall time follows the load, the CPU time much less.
"""

import asyncio
import os
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

assert bot.storage.__file__.startswith(sys.path[0]), bot.storage.__file__


async def main() -> None:
    with tempfile.TemporaryDirectory() as d:
        repo = await open_repository(Path(d) / "r.db")
        s = GameService(repo, {"toy": SYSTEM})
        p = Place(guild_id=1, channel_id=1)
        a = Actor(user_id=1, name="a", is_admin=True)
        await s.handle(p, a, "new", gc.GameNew(system="toy"))
        await s.handle(p, a, "seat", gc.GameSeat(side="Axis"))
        for i in range(200):
            await s.handle(p, a, f"w{i}", gc.RollDice(dice="DR"))
        c0, t0 = time.process_time(), time.perf_counter()
        n = 2000
        for i in range(n):
            await s.handle(p, a, f"x{i}", gc.RollDice(dice="DR"))
        c1, t1 = time.process_time(), time.perf_counter()
        label = os.environ.get("LABEL", "this checkout")
        cpu, wall = 1000 * (c1 - c0) / n, 1000 * (t1 - t0) / n
        print(f"{label}: CPU {cpu:.3f} ms/action, wall {wall:.3f} ms/action")
        await repo.close()


if __name__ == "__main__":
    asyncio.run(main())
