"""Writes toy-game actions into a database forever; tests/bot/test_crash.py kills it with SIGKILL.

Usage: ``python -m tests.bot.crash_writer`` starts a *zygote* that has imported everything once and
reads commands on stdin, so a hundred writers start in milliseconds:

* ``RUN DB_FILE NAME`` forks a writer process; the writer prints ``READY <pid>`` once its game is
  open and then writes until it is killed;
* ``WAIT <pid>`` reaps that writer and prints ``DEAD <pid> <signal number>``.
"""

from __future__ import annotations

import asyncio
import ctypes
import os
import signal
import sys

from bot.errors import NoGameHere
from bot.models import Actor, Place
from bot.service.game_service import GameService
from bot.storage import open_repository, postgres
from bot.table import commands as gc
from tests.bot.toysystem import SYSTEM, Ammo, Shoot

CONNECT_WITHIN = 120.0
"""Seconds a writer waits to connect to PostgreSQL (the bot's 10 s is for an unreachable server:
here the server is up, and ten writers starting at once on a loaded 2-core machine once took
longer: "Cannot open the PostgreSQL database ... no answer within 10 s")."""

PLACE = Place(guild_id=1, channel_id=1)
ALICE = Actor(user_id=1, name="alice")


async def main(path: str, run: str) -> None:
    repo = await open_repository(path)
    service = GameService(repo, {"toy": SYSTEM})
    try:
        await service.handle(PLACE, ALICE, "status", gc.GameStatus())
    except NoGameHere:
        await service.handle(PLACE, ALICE, "new", gc.GameNew(system="toy"))
        await service.handle(PLACE, ALICE, "seat", gc.GameSeat(side="Axis"))
    print(f"READY {os.getpid()}", flush=True)
    i = 0
    while True:
        i += 1
        iid = f"{run}-{i}"
        if i % 17 == 0:
            await service.handle(PLACE, ALICE, iid, gc.GameRotate())
        elif i % 7 == 0:
            await service.handle(PLACE, ALICE, iid, gc.GameSeed(phrase=f"phrase {iid}"))
        elif i % 5 == 0:
            await service.handle(PLACE, ALICE, iid, Ammo(side="Axis", level=1 + i % 3))
        elif i % 3 == 0:
            await service.handle(PLACE, ALICE, iid, gc.RollDice(dice="3d6"))
        else:
            await service.handle(PLACE, ALICE, iid, Shoot(side="Axis"))


PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """Linux: this writer is killed when its zygote ends, so a test that times out (its zygote's
    stdin closed) never leaves writers running forever."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() == 1:  # the zygote ended before prctl took effect
        os._exit(1)


def zygote() -> None:
    for line in sys.stdin:
        words = line.split()
        if words[0] == "RUN":
            if os.fork() == 0:
                die_with_parent()
                try:
                    asyncio.run(main(words[1], words[2]))
                finally:
                    os._exit(1)
        elif words[0] == "WAIT":
            pid = int(words[1])
            _, status = os.waitpid(pid, 0)
            signal_number = os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0
            print(f"DEAD {pid} {signal_number}", flush=True)


if __name__ == "__main__":
    postgres.CONNECT_TIMEOUT = CONNECT_WITHIN
    zygote()
