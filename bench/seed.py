"""Seeding large databases fast, through the real game service (so every chain is genuine).

:class:`SeedingRepository` is a :class:`~bot.storage.SQLiteRepository` whose appends are
buffered and written in large transactions with ``synchronous=OFF``: the entries, hashes, dice
and game rows are exactly what the service computes, only the durability of each single action
is skipped while seeding (the file is checkpointed and closed before the bot opens it).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bot.models import Actor, Place
from bot.service.game_service import GameService
from bot.storage import Append, SQLiteRepository
from bot.table import commands as gc
from rules_core.asl.actions import AddUnit, AddWeapon, SetLevel, SetPhase

CHUNK = 5_000


class SeedingRepository(SQLiteRepository):
    """Appends return at once and are written ``CHUNK`` at a time (one transaction each)."""

    _buffer: list[tuple[Append, int, asyncio.Future[None], float]]

    @classmethod
    async def open_seeding(cls, path: Path | str) -> SeedingRepository:
        repo = await SQLiteRepository.open(path)
        if repo._direct is not None:  # every seeding write goes through the writer, unsynced
            repo._direct.close()
        seeding = cls(repo._writer, repo._reader)
        seeding._buffer = []
        await seeding._writer.execute("PRAGMA synchronous=OFF")
        return seeding

    async def append(self, change: Append, expected_head: int) -> None:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        future.set_result(None)
        self._buffer.append((change, expected_head, future, float("inf")))  # no deadline
        if len(self._buffer) >= CHUNK:
            await self.flush()

    async def flush(self) -> None:
        batch, self._buffer = self._buffer, []
        if batch:
            async with self._write_lock:
                await self._write(batch)

    async def close(self) -> None:
        await self.flush()
        await self._writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        await super().close()


def asl_setup() -> list[Any]:
    """The setup of the benchmark's ASL table: level 4, squads A and B, HMG and LMG, the PFPh."""
    return [  # the creator holds no seat, as at the benchmark's table: a referee for every side
        SetLevel(side="Axis", level=4),
        AddUnit(name="A", side="Axis", kind="squad"),
        AddUnit(name="B", side="Axis", kind="squad"),
        AddWeapon(name="HMG", side="Axis", kind="sw_mg", rof=3, owner="A"),
        AddWeapon(name="LMG", side="Axis", kind="sw_mg", rof=1, owner="B"),
        SetPhase(phase="pfph", side="Axis"),
    ]


async def seed_asl_game(
    service: GameService, place: Place, actor: Actor, entries: int, tag: str
) -> None:
    """An ASL game at ``place`` set up like the benchmark's table, with ``entries`` log entries
    in all (the rest are ``/roll DR`` entries)."""
    await service.handle(place, actor, f"{tag}-new", gc.GameNew(system="asl"))
    setup = asl_setup()
    for i, command in enumerate(setup):
        await service.handle(place, actor, f"{tag}-setup-{i}", command)
    for i in range(entries - 1 - len(setup)):
        await service.handle(place, actor, f"{tag}-roll-{i}", gc.RollDice(dice="DR"))


async def seed(
    path: Path,
    *,
    guild_id: int,
    actor: Actor,
    big: tuple[int, int] | None = None,
    many: Sequence[int] = (),
    entries_each: int = 3,
) -> None:
    """Seed ``path``: one big game (``(channel_id, entries)``) and a small game in each channel
    of ``many``."""
    repo = await SeedingRepository.open_seeding(path)
    try:
        service = GameService(repo, live_games=64)
        if big is not None:
            channel, entries = big
            await seed_asl_game(
                service, Place(guild_id=guild_id, channel_id=channel), actor, entries, "big"
            )
        for channel in many:
            place = Place(guild_id=guild_id, channel_id=channel)
            await service.handle(place, actor, f"many-{channel}-new", gc.GameNew(system="asl"))
            await service.handle(place, actor, f"many-{channel}-seat", gc.GameSeat(side="Axis"))
            for i in range(entries_each - 2):
                await service.handle(place, actor, f"many-{channel}-{i}", gc.RollDice(dice="DR"))
    finally:
        await repo.close()
