"""``/metrics``, ``/healthz`` and ``/readyz`` on the port the operator chooses
(``REFEREE_METRICS_PORT``; off by default), served by the bot's own event loop (aiohttp).

- ``/healthz``: 200 while the process runs its event loop (a liveness probe: restart it if not).
- ``/readyz``: 200 when every shard of the process is connected to Discord's gateway and the
  database answers a small read of the games within 5 s; 503 with the reason otherwise (a
  readiness probe).
- ``/metrics``: Prometheus' text format (:mod:`bot.ops.metrics`), with, read at each scrape, the
  database pool's use, each shard's gateway latency, the beacon declarations this process is
  waiting on, and the reminders due (one count of the games' timers, read before each scrape).
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Iterator
from typing import Any

from aiohttp import web

from bot.ops import metrics

log = logging.getLogger(__name__)

READY_DATABASE_TIMEOUT = 5.0


class BotCollector:
    """The figures read from the running bot when Prometheus scrapes (gauges)."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.reminders_due: int | None = None
        """The reminders (the games' timers) due and not sent, read before each scrape."""

    def collect(self) -> Iterator[Any]:
        from prometheus_client.core import GaugeMetricFamily

        service = getattr(self.bot, "game_service", None)
        repo = getattr(service, "repo", None)
        if repo is not None:
            opened, in_use, most, in_flight = repo.pool_use()
            pool = GaugeMetricFamily(
                "referee_database_connections", "Database connections of this process",
                labels=["state"],
            )  # fmt: skip
            pool.add_metric(["open"], opened)
            pool.add_metric(["in_use"], in_use)
            pool.add_metric(["max"], most)
            yield pool
            yield GaugeMetricFamily(
                "referee_database_calls_in_flight",
                "Database calls holding or waiting for a connection",
                value=in_flight,
            )
        latency = GaugeMetricFamily(
            "referee_gateway_latency_seconds", "Heartbeat round trip of each shard",
            labels=["shard"],
        )  # fmt: skip
        for shard, seconds in gateway_latencies(self.bot):
            latency.add_metric([str(shard)], seconds)
        yield latency
        resolver = getattr(service, "resolver", None)
        yield GaugeMetricFamily(
            "referee_beacon_pending",
            "Beacon declarations this process waits to resolve",
            value=resolver.waiting() if resolver is not None else 0,
        )
        if self.reminders_due is not None:
            yield GaugeMetricFamily(
                "referee_reminders_due",
                "Reminders (the games' timers) due and not sent yet, all processes",
                value=self.reminders_due,
            )


def gateway_latencies(bot: Any) -> list[tuple[int, float]]:
    """``(shard, seconds)`` of each connected shard (a bot without shards: shard 0)."""
    pairs = list(getattr(bot, "latencies", None) or [(0, getattr(bot, "latency", math.nan))])
    return [(int(s), float(v)) for s, v in pairs if math.isfinite(v)]


def gateway_problems(bot: Any) -> list[str]:
    """What keeps the bot from serving Discord now (empty: every shard is connected)."""
    if bot.is_closed():
        return ["the bot is closing"]
    if not bot.is_ready():
        return ["not connected to Discord's gateway yet"]
    shards = getattr(bot, "shards", None)
    if shards:
        closed = sorted(shard_id for shard_id, info in shards.items() if info.is_closed())
        if closed:
            return [
                f"{'shards' if len(closed) > 1 else 'shard'} {closed} not connected to "
                "Discord's gateway"
            ]
    return []


class HealthServer:
    """The HTTP server of the three endpoints, in the bot's event loop."""

    def __init__(self, bot: Any, host: str, port: int) -> None:
        self.bot = bot
        self.host = host
        self.port = port
        self.registry = metrics.enable()
        self.collector = BotCollector(bot)
        self.registry.register(self.collector)
        self._runner: web.AppRunner | None = None

    async def start(self) -> int:
        """Listen; the port (``REFEREE_METRICS_PORT=0`` picks a free one)."""
        app = web.Application()
        app.router.add_get("/metrics", self._metrics)
        app.router.add_get("/healthz", self._healthz)
        app.router.add_get("/readyz", self._readyz)
        self._runner = web.AppRunner(app, handle_signals=False, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        await site.start()
        server = site._server
        if server is not None and server.sockets:  # type: ignore[attr-defined]
            self.port = int(server.sockets[0].getsockname()[1])  # type: ignore[attr-defined]
        log.info("Serving /metrics, /healthz and /readyz on http://%s:%d", self.host, self.port)
        return self.port

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def _metrics(self, request: web.Request) -> web.Response:
        from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

        repo = getattr(getattr(self.bot, "game_service", None), "repo", None)
        if repo is not None and hasattr(repo, "timers_due"):  # one small count, per scrape
            try:
                now = int(time.time() * 1000)
                due = await asyncio.wait_for(repo.timers_due(now), READY_DATABASE_TIMEOUT)
                self.collector.reminders_due = int(due)
            except Exception:  # the database does not answer: the gauge is left out
                self.collector.reminders_due = None
        body = generate_latest(self.registry)
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})

    async def _healthz(self, request: web.Request) -> web.Response:
        return web.Response(text="ok\n")

    async def _readyz(self, request: web.Request) -> web.Response:
        problems = gateway_problems(self.bot)
        service = getattr(self.bot, "game_service", None)
        if service is None:
            problems.append("the database is not open yet")
        else:
            try:
                await asyncio.wait_for(service.repo.game_head(0), READY_DATABASE_TIMEOUT)
            except Exception as exc:
                reason = getattr(exc, "user_message", None) or type(exc).__name__
                problems.append(f"the database did not answer: {reason}")
        if problems:
            return web.Response(status=503, text="not ready: " + "; ".join(problems) + "\n")
        return web.Response(text="ready\n")


__all__ = ["BotCollector", "HealthServer", "gateway_latencies", "gateway_problems"]
