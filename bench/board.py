"""The cost of one status board update: the board of an ASL game read and built by the service
(``board_of``: the game and its board from the database, the last entries, the system's markers)
and rendered as the Discord embed, on SQLite.

    .venv/bin/python -m bench.board --updates 500

The game holds 40 units, 20 weapons (some malfunctioned, some Low Ammo) and 300 log entries.
Printed: the median and 95th percentile wall time per update, and the embed's size.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from bot.commands import Request, build_registry, execute, parse_line
from bot.console import console_id, console_user
from bot.models import Actor, Place
from bot.render.embed import render_embed
from bot.service.game_service import GameService
from bot.service.systems import InstalledSystems
from bot.storage import open_repository

PLACE = Place(guild_id=1, channel_id=1)
REF = Actor(user_id=console_id("ref"), name="ref")


async def main(updates: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        repo = await open_repository(Path(folder) / "board.db")
        service = GameService(repo, InstalledSystems())
        registry = build_registry(service.systems)
        counter = iter(range(10**9))

        async def line(text: str) -> None:
            words, options = parse_line(text)
            request = Request(PLACE, REF, f"i{next(counter)}", words, options)
            await execute(service, request, registry, console_user)

        await line("/game new system:asl")
        await line("/asl level side:Axis level:3")
        for n in range(40):
            side = "Axis" if n % 2 else "Allied"
            broken = " broken:true" if n % 5 == 0 else ""
            await line(f"/asl unit add name:U{n} side:{side} kind:squad{broken}")
        for n in range(20):
            status = " status:malfunctioned" if n % 4 == 0 else ""
            await line(f"/asl weapon add name:W{n} side:Axis kind:sw_mg b:11 owner:U1{status}")
        await line("/asl phase side:Axis phase:pfph")
        for _ in range(237):  # 300 entries in all
            await line("/roll dice:dr")
        await line("/game board")
        game = await repo.active_game(PLACE.guild_id, PLACE.channel_id)
        assert game is not None and game.head_seq == 300, game
        times = []
        size = 0
        for _ in range(updates):
            started = time.perf_counter()
            found = await service.board_of(PLACE)
            assert found is not None
            embed = render_embed(found[0])
            times.append(time.perf_counter() - started)
            size = len(embed)
        await repo.close()
    times.sort()
    median = statistics.median(times) * 1000
    p95 = times[int(len(times) * 0.95)] * 1000
    print(f"{updates} updates: median {median:.2f} ms, p95 {p95:.2f} ms; embed {size} characters")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--updates", type=int, default=500, help="how many board updates")
    asyncio.run(main(parser.parse_args().updates))
