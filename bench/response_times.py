"""The cost of /game times: a game of N log entries (two seated players alternating /roll) read
from SQLite and its response times computed and answered by the service.

    .venv/bin/python -m bench.response_times --entries 200 2000 --repeat 20

Printed per size: the median and the fastest of ``repeat`` answers, and the figures shown.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from bot.models import Actor, Place
from bot.service.game_service import GameService
from bot.storage import open_repository
from bot.table import commands as gc

REF, ANN, BEN = (
    Actor(user_id=1, name="ref"),
    Actor(user_id=2, name="ann"),
    Actor(user_id=3, name="ben"),
)


async def measure(entries: int, repeat: int, workdir: Path) -> tuple[float, float, str]:
    """Median and fastest seconds of one /game times on a game of ``entries`` log entries."""
    repo = await open_repository(workdir / f"times-{entries}.db")
    try:
        service = GameService(repo)
        place = Place(guild_id=1, channel_id=entries)
        await service.handle(place, REF, "new", gc.GameNew(system="asl"))
        await service.handle(place, ANN, "seat-1", gc.GameSeat(side="Axis"))
        await service.handle(place, BEN, "seat-2", gc.GameSeat(side="Allied"))
        for n in range(entries - 3):
            await service.handle(place, ANN if n % 2 else BEN, f"roll-{n}", gc.RollDice())
        spent = []
        for _ in range(repeat):
            start = time.perf_counter()
            reply = await service.handle(place, ANN, "times", gc.GameTimes())
            spent.append(time.perf_counter() - start)
        return statistics.median(spent), min(spent), reply.fields[0][1]
    finally:
        await repo.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--entries", type=int, nargs="+", default=[200, 2000])
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        for entries in args.entries:
            median, fastest, shown = await measure(entries, args.repeat, Path(directory))
            print(
                f"{entries} entries: median {median * 1000:.1f} ms, fastest "
                f"{fastest * 1000:.1f} ms ({shown})"
            )


if __name__ == "__main__":
    asyncio.run(main())
