"""Shards for a bot in many servers: Discord's recommended count, a cluster's slices, and the
pace of identifying.

``referee run --shards auto`` asks Discord how many shards the bot needs (``GET /gateway/bot``,
as discord.py's ``AutoShardedClient`` does) and ``--cluster I/N`` gives process I its slice of
them (:func:`bot.config.cluster_shards`): each of N processes, started by a supervisor with its
own I, runs an equal share, and together they run every shard. Discord lets a bot start
``max_concurrency`` sessions every 5 seconds, in buckets (shard id modulo ``max_concurrency``);
:class:`IdentifyPace` keeps to that, so shards of different buckets identify at once instead of
discord.py's fixed 5 s between any two.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bot.config import cluster_shards

IDENTIFY_PERIOD = 5.0
"""Seconds between two identifies of one bucket (Discord's rule)."""


@dataclass(frozen=True)
class ShardPlan:
    """The shards this process runs, of how many, and how many may identify at once."""

    count: int
    ids: list[int] | None
    """This process's shards (None: all of them)."""
    max_concurrency: int = 1

    def owns(self, guild_id: int) -> bool:
        """Whether a server's events come to this process (Discord: ``(id >> 22) % count``)."""
        return self.ids is None or (guild_id >> 22) % self.count in self.ids

    def describe(self) -> str:
        shards = self.ids if self.ids is not None else list(range(self.count))
        return f"shards {shards} of {self.count}, {self.max_concurrency} identifying at once"


def plan_from_gateway(
    data: tuple[int, str, Any], cluster: tuple[int, int] | None, count: int | None = None
) -> ShardPlan:
    """The plan from ``GET /gateway/bot``'s answer (``shards``, ``url``,
    ``session_start_limit``): Discord's recommended count (or ``count``, when given), raised to
    a multiple of the cluster's processes so that each runs as many, and this process's slice.

    >>> limit = {"max_concurrency": 16, "total": 1000, "remaining": 999, "reset_after": 0}
    >>> plan_from_gateway((3, "wss://gateway", limit), (1, 2))
    ShardPlan(count=4, ids=[2, 3], max_concurrency=16)
    >>> plan_from_gateway((3, "wss://gateway", limit), None).ids is None
    True
    """
    recommended, _url, limit = data
    concurrency = max(1, int(limit.get("max_concurrency", 1)))
    if count is None:
        count = max(1, int(recommended))
        if cluster is not None:
            processes = cluster[1]
            count = -(-count // processes) * processes
    ids = cluster_shards(count, *cluster) if cluster is not None else None
    return ShardPlan(count=count, ids=ids, max_concurrency=concurrency)


@dataclass
class IdentifyPace:
    """Discord's session start limit: one identify per bucket (shard id modulo
    ``max_concurrency``) every 5 seconds; shards of different buckets go at once."""

    max_concurrency: int = 1
    clock: Callable[[], float] = time.monotonic
    period: float = IDENTIFY_PERIOD
    _last: dict[int, float] = field(default_factory=dict)
    _locks: dict[int, asyncio.Lock] = field(default_factory=dict)

    async def wait(self, shard_id: int | None) -> None:
        """Return when shard ``shard_id`` may identify (its bucket's turn)."""
        bucket = (shard_id or 0) % max(1, self.max_concurrency)
        lock = self._locks.setdefault(bucket, asyncio.Lock())
        async with lock:
            last = self._last.get(bucket)
            if last is not None:
                delay = last + self.period - self.clock()
                if delay > 0:
                    await asyncio.sleep(delay)
            self._last[bucket] = self.clock()


__all__ = ["IDENTIFY_PERIOD", "IdentifyPace", "ShardPlan", "plan_from_gateway"]
