"""Time one BLS verification of a drand quicknet round (bot/beacon/chain.py), and the v2 dice.

    .venv/bin/python -m bench.beacon

Prints the median of many runs of each; the figures go to docs/PERFORMANCE.md.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

from bot.beacon.chain import QUICKNET, QUICKNET_ROUND_123, verify_round


def median_ms(work: Callable[[], object], runs: int = 300) -> float:
    """The median wall time of ``work`` in milliseconds over ``runs`` calls (after one warm-up)."""
    work()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> None:
    signature = bytes.fromhex(QUICKNET_ROUND_123)
    verify = median_ms(lambda: verify_round(QUICKNET, 123, signature))
    print(f"verify one quicknet round: {verify:.2f} ms")


if __name__ == "__main__":
    main()
