"""A backup taken while bots write is consistent: ``referee backup`` (a real process) runs three
times while two writers (two services on the database, as two bot processes) roll in four games;
in every backup each game's head is its last entry, its dice are numbered once, and its exported
chain verifies. On both engines (SQLite's online backup API; PostgreSQL's one snapshot)."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from bot.log.export import export_game
from bot.log.verify import verify_lines
from bot.models import Place
from bot.service.game_service import GameService
from bot.storage import open_repository
from bot.table import commands as gc
from tests.bot.conftest import ALICE, start_game
from tests.bot.toysystem import SYSTEM

ROOT = Path(__file__).resolve().parents[2]
PLACES = [Place(guild_id=100, channel_id=500 + n) for n in range(4)]


async def check_backup(path: Path) -> int:
    """Every game of the backup is whole; how many entries it holds."""
    repo = await open_repository(path)
    total = 0
    try:
        for place in PLACES:
            row = await repo.active_game(place.guild_id, place.channel_id)
            assert row is not None
            entries = await repo.entries(row.id)
            assert [e.seq for e in entries] == list(range(1, row.head_seq + 1))
            assert entries[-1].hash == row.head_hash
            dice = [d["seq"] for e in entries for d in e.data()["dice"]]
            assert dice == list(range(1, row.next_die))
            report = verify_lines((await export_game(repo, row)).splitlines(), {"toy": SYSTEM})
            assert report.ok, report.message
            total += len(entries)
    finally:
        await repo.close()
    return total


async def test_backups_taken_while_two_writers_roll_are_consistent(
    database: Path | str, tmp_path: Path
) -> None:
    writers = [GameService(await open_repository(database), {"toy": SYSTEM}) for _ in range(2)]
    for place in PLACES:
        await start_game(writers[0], place)
    stop = asyncio.Event()

    async def write(service: GameService, name: str) -> int:
        n = 0
        while not stop.is_set():
            for place in PLACES:
                n += 1
                await service.handle(place, ALICE, f"{name}-{n}", gc.RollDice(dice="2d6"))
        return n

    rolling = [asyncio.ensure_future(write(w, f"w{i}")) for i, w in enumerate(writers)]
    environment = {k: v for k, v in os.environ.items() if not k.startswith("REFEREE_")}
    sizes = []
    try:
        for attempt in range(3):
            await asyncio.sleep(0.3)
            target = tmp_path / f"backup-{attempt}.db"
            process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot", "backup", str(target), "--db", str(database),
                cwd=ROOT, env=environment, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
            )  # fmt: skip
            out, err = await asyncio.wait_for(process.communicate(), 120)
            assert process.returncode == 0, err.decode()
            assert out.decode().startswith("Backed up "), out
            sizes.append(await check_backup(target))
    finally:
        stop.set()
        written = await asyncio.gather(*rolling)
        for service in writers:
            await service.repo.close()
    assert all(n > 0 for n in written), written
    assert sizes == sorted(sizes) and sizes[0] >= 4 * 3, sizes  # later backups hold more
