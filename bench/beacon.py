"""Beacon dice, measured: one BLS verification of a quicknet round, and the latency a beacon game
adds to an action (from the command to its result) against a local chain with quicknet's
3-second period, the relay on 127.0.0.1.

    .venv/bin/python -m bench.beacon [--actions N]

Prints medians (and the spread of the latency); the figures go to docs/PERFORMANCE.md.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bot.dice.beacon.chain import QUICKNET, QUICKNET_ROUND_123, verify_round
from bot.dice.beacon.games import BeaconConfig
from bot.dice.beacon.local import LocalChain, LocalRelay
from bot.models import Actor, Place
from bot.service.game_service import GameService
from bot.storage import open_repository
from bot.table import commands as gc


def median_ms(work: Callable[[], object], runs: int = 300) -> float:
    """The median wall time of ``work`` in milliseconds over ``runs`` calls (after one warm-up)."""
    work()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


async def latencies(actions: int) -> tuple[list[float], list[float]]:
    """Seconds from each ``/roll`` to its declaration and to its result, in a beacon game."""
    relay = LocalRelay(LocalChain.new(period=3, genesis=int(time.time()) - 1))
    await relay.start()
    declared, resolved = [], []
    with tempfile.TemporaryDirectory() as tmp:
        repo = await open_repository(Path(tmp) / "bench.db")
        config = BeaconConfig(chain=relay.info, relays=(relay.url,))
        service = GameService(repo, beacon=config)
        place, alice = Place(guild_id=1, channel_id=1), Actor(user_id=1, name="alice")
        await service.handle(place, alice, "new", gc.GameNew(system="asl", dice="beacon"))
        await service.handle(place, alice, "seat", gc.GameSeat(side="Axis"))
        for n in range(actions):
            start = time.perf_counter()
            reply = await service.handle(place, alice, f"roll-{n}", gc.RollDice(dice="DR"))
            declared.append(time.perf_counter() - start)
            await service.resolution(place, reply)
            resolved.append(time.perf_counter() - start)
            await asyncio.sleep((n % 7) * 0.37)  # actions arrive at any point of a period
        await service.close_beacon()
        await repo.close()
    await relay.stop()
    return declared, resolved


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.beacon")
    parser.add_argument("--actions", type=int, default=20, help="beacon actions to time")
    args = parser.parse_args()
    signature = bytes.fromhex(QUICKNET_ROUND_123)
    verify = median_ms(lambda: verify_round(QUICKNET, 123, signature))
    print(f"verify one quicknet round: {verify:.2f} ms (median of 300)")
    declared, resolved = asyncio.run(latencies(args.actions))
    ms = sorted(x * 1000 for x in declared)
    s = sorted(resolved)
    print(
        f"{args.actions} beacon /roll DR, period 3 s: declaration posted after median "
        f"{statistics.median(ms):.1f} ms; result after median {statistics.median(s):.2f} s, "
        f"mean {statistics.mean(s):.2f} s, min {s[0]:.2f} s, max {s[-1]:.2f} s"
    )


if __name__ == "__main__":
    main()
