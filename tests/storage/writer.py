"""Writes toy-game actions into one game of a shared database; tests/storage runs several at once.

Usage: ``python -m tests.storage.writer DATABASE NAME COUNT`` — DATABASE is an SQLite file or a
``postgresql://`` URL holding an active toy game at guild 1, channel 1 (alice holds Axis). The
writer starts when a line arrives on stdin (so that every writer is connected before any
writes), writes COUNT actions with interaction ids ``NAME-1`` … ``NAME-COUNT``, and prints
``DONE NAME``.
"""

from __future__ import annotations

import asyncio
import sys

from pydantic import BaseModel

from bot.models import Actor, Place
from bot.service.game_service import GameService
from bot.storage import open_repository
from bot.table import commands as gc
from tests.bot.toysystem import SYSTEM, Ammo, Shoot

PLACE = Place(guild_id=1, channel_id=1)
ALICE = Actor(user_id=1, name="alice")


def action(i: int) -> BaseModel:
    """The i-th action of a writer: mostly shots and rolls, sometimes a seed phrase or a
    rotation (the epochs and reveals change hands between processes too)."""
    if i % 17 == 0:
        return gc.GameRotate()
    if i % 7 == 0:
        return gc.GameSeed(phrase=f"phrase {i}")
    if i % 5 == 0:
        return Ammo(side="Axis", level=1 + i % 3)
    if i % 3 == 0:
        return gc.RollDice(dice="3d6")
    return Shoot(side="Axis")


async def main(target: str, name: str, count: int) -> None:
    repo = await open_repository(target)
    service = GameService(repo, {"toy": SYSTEM})
    try:
        print(f"READY {name}", flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
        for i in range(1, count + 1):
            await service.handle(PLACE, ALICE, f"{name}-{i}", action(i))
    finally:
        await repo.close()
    print(f"DONE {name}", flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
