"""What one ``/game setup`` costs: a whole ASL scenario in one entry, against one command a counter.

    .venv/bin/python -m bench.scenario_setup

For scenarios of 60 commands (an ordinary ASL scenario: 40 units, 20 weapons) and of 500 (the
most a scenario may hold), on SQLite: the process's CPU time and the wall time of the one
``/game setup`` (read, checked whole, permitted, applied, logged), of the same commands sent one
by one, and of ``referee verify`` replaying the export; and the size of the set-up's log entry.
Each figure is the median of five fresh games.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from bot.commands import Request, build_registry, execute, parse_line
from bot.console import console_user
from bot.log.verify import verify_text
from bot.models import Actor, AttachedFile, Place
from bot.service.game_service import GameService
from bot.service.systems import InstalledSystems
from bot.storage import open_repository
from bot.table import commands as gc

PLACE = Place(guild_id=1, channel_id=1)
REFEREE = Actor(user_id=1, name="ref")


def scenario(commands: int) -> list[str]:
    """ASL set-up lines: two units for each weapon, both sides, every weapon held."""
    lines: list[str] = []
    units = commands * 2 // 3
    for n in range(units):
        side = "Axis" if n % 2 == 0 else "Allied"
        lines.append(f'unit add name:"U{n}" side:{side} kind:squad quality:4-6-7 replaced-by:4-4-7')
    for n in range(commands - units):
        side = "Axis" if n % 2 == 0 else "Allied"
        lines.append(
            f'weapon add name:"W{n}" side:{side} kind:sw_mg b:11 rof:2 repair:5 owner:"U{n}"'
        )
    return lines


async def one_game(lines: list[str], batch: bool, root: Path) -> tuple[float, float, float, int]:
    repo = await open_repository(root / f"{batch}-{len(lines)}-{time.monotonic_ns()}.db")
    service = GameService(repo, InstalledSystems())
    registry = build_registry(service.systems)
    await service.handle(PLACE, REFEREE, "new", gc.GameNew(system="asl"))
    c0, t0 = time.process_time(), time.perf_counter()
    if batch:
        file = AttachedFile(filename="scenario.txt", text="\n".join(lines))
        reply = await service.handle(PLACE, REFEREE, "setup", gc.GameSetup(file=file))
        assert reply.command == "/game setup", reply.title
    else:
        for n, line in enumerate(lines):
            words, options = parse_line(f"/asl {line}")
            request = Request(PLACE, REFEREE, f"i{n}", words, options)
            await execute(service, request, registry, console_user)
    c1, t1 = time.process_time(), time.perf_counter()
    export = (await service.handle(PLACE, REFEREE, "export", gc.GameExport())).file
    assert export is not None
    text = export.content.decode("utf-8")
    v0 = time.perf_counter()
    report = verify_text(text, InstalledSystems())
    verify = time.perf_counter() - v0
    assert report.ok, report.message
    entry = max(len(line) for line in text.splitlines())
    await repo.close()
    return (c1 - c0) * 1000, (t1 - t0) * 1000, verify * 1000, entry


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for commands in (60, 500):
            lines = scenario(commands)
            for batch in (True, False):
                runs = [await one_game(lines, batch, Path(tmp)) for _ in range(5)]
                cpu, wall, verify, entry = (statistics.median(r[i] for r in runs) for i in range(4))
                how = "one /game setup" if batch else "one command each"
                print(
                    f"{commands} commands, {how}: CPU {cpu:.0f} ms, wall {wall:.0f} ms; "
                    f"referee verify {verify:.0f} ms; largest entry {entry / 1024:.1f} KiB"
                )


if __name__ == "__main__":
    asyncio.run(main())
