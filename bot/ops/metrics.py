"""The bot's Prometheus metrics (``prometheus-client``), recorded on the hot path for a few
hundred nanoseconds each: plain counts kept by the event loop's thread (no lock), read by the
registry when Prometheus scrapes.

Nothing is imported or recorded until :func:`enable` (``referee run`` with
``REFEREE_METRICS_PORT``); before that every recorder returns at once, so the console and the
tools pay nothing. The figures (docs/OPERATING.md, "Metrics"):

``referee_interactions_total{command, outcome}``  interactions answered: ``ok``, ``refused`` (a
    player's mistake, one sentence), ``timeout`` / ``busy`` / ``unreachable`` (the database),
    ``error`` (a bug: the apology quoting the interaction id)
``referee_interaction_seconds``                   a whole interaction, from the handler's start
    to its answer sent
``referee_database_seconds{operation}``           one database call: ``read``, ``write`` (a
    transaction), ``append`` (an action's entry)
``referee_rules_seconds``                         the rules resolving one action
``referee_beacon_fetch_seconds``, ``referee_beacon_fetch_failures_total``  fetching a round
``referee_failures_total{kind}``                  the known failures of the operator's log
and, read when scraped (:mod:`bot.ops.health`): the database pool, each shard's gateway latency,
the beacon declarations pending, the reminders due (``referee_reminders_due``).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator
from typing import Any

OUTCOMES = ("ok", "refused", "timeout", "busy", "unreachable", "error")
"""An interaction's outcomes, as the ``outcome`` label says them."""
DATABASE_OPERATIONS = ("read", "write", "append")

_LATENCY_BUCKETS = (
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
    60.0,
)  # fmt: skip


class _Histogram:
    """Counts by bucket and a sum, kept in plain numbers: the event loop's thread records them
    (no lock, one ``bisect`` in C), and the registry reads them when scraped."""

    __slots__ = ("counts", "total")

    def __init__(self) -> None:
        self.counts = [0] * (len(_LATENCY_BUCKETS) + 1)
        self.total = 0.0

    def observe(self, seconds: float) -> None:
        self.counts[bisect_left(_LATENCY_BUCKETS, seconds)] += 1
        self.total += seconds

    def buckets(self) -> list[tuple[str, float]]:
        """Prometheus' cumulative buckets, ``+Inf`` last."""
        out, running = [], 0
        for bound, count in zip((*map(repr, _LATENCY_BUCKETS), "+Inf"), self.counts, strict=True):
            running += count
            out.append((bound, float(running)))
        return out


class _Metrics:
    """The figures, recorded in plain numbers; :meth:`collect` gives them to the registry made
    by :func:`enable` (with prometheus-client's process figures)."""

    def __init__(self) -> None:
        from prometheus_client import CollectorRegistry
        from prometheus_client.process_collector import ProcessCollector

        self.registry = CollectorRegistry()
        ProcessCollector(registry=self.registry)
        self.interactions: dict[tuple[str, str], int] = {}
        self.interaction_seconds = _Histogram()
        self.database = {name: _Histogram() for name in DATABASE_OPERATIONS}
        self.rules_seconds = _Histogram()
        self.beacon_seconds = _Histogram()
        self.beacon_failures = 0
        self.failures: dict[str, int] = {}
        self.registry.register(self)

    def collect(self) -> Iterator[Any]:
        from prometheus_client.core import CounterMetricFamily, HistogramMetricFamily

        counter = CounterMetricFamily(
            "referee_interactions", "Interactions answered, by command and outcome",
            labels=["command", "outcome"],
        )  # fmt: skip
        for labels, count in sorted(self.interactions.items()):
            counter.add_metric(list(labels), count)
        yield counter

        def histogram(name: str, text: str, value: _Histogram) -> Any:
            family = HistogramMetricFamily(name, text)
            family.add_metric([], value.buckets(), value.total)
            return family

        yield histogram(
            "referee_interaction_seconds", "Seconds from an interaction's arrival to its answer",
            self.interaction_seconds,
        )  # fmt: skip
        database = HistogramMetricFamily(
            "referee_database_seconds", "Seconds one database call took, by operation",
            labels=["operation"],
        )  # fmt: skip
        for name, value in self.database.items():
            database.add_metric([name], value.buckets(), value.total)
        yield database
        yield histogram(
            "referee_rules_seconds", "Seconds the rules took to resolve one action",
            self.rules_seconds,
        )  # fmt: skip
        yield histogram(
            "referee_beacon_fetch_seconds", "Seconds fetching one beacon round from the relays",
            self.beacon_seconds,
        )  # fmt: skip
        yield CounterMetricFamily(
            "referee_beacon_fetch_failures", "Beacon fetches no relay answered",
            value=self.beacon_failures,
        )  # fmt: skip
        failures = CounterMetricFamily(
            "referee_failures", "Known failures (the operator's log), by kind", labels=["kind"]
        )
        for kind, count in sorted(self.failures.items()):
            failures.add_metric([kind], count)
        yield failures


_on: _Metrics | None = None


def enable() -> Any:
    """Start recording (once per process); the registry to serve at ``/metrics``."""
    global _on
    if _on is None:
        _on = _Metrics()
    return _on.registry


def registry() -> Any:
    """The registry, or None while metrics are off."""
    return _on.registry if _on is not None else None


def interaction(command: str, outcome: str, seconds: float) -> None:
    """One interaction answered (``command`` as typed, ``"asl fire"``)."""
    if _on is None:
        return
    key = (command, outcome)
    counts = _on.interactions
    counts[key] = counts.get(key, 0) + 1
    _on.interaction_seconds.observe(seconds)


def database(operation: str, seconds: float) -> None:
    """One database call of ``operation`` (``read``, ``write``, ``append``)."""
    if _on is not None:
        _on.database[operation].observe(seconds)


def rules(seconds: float) -> None:
    """The rules resolved one action."""
    if _on is not None:
        _on.rules_seconds.observe(seconds)


def beacon_fetch(seconds: float, *, failed: bool) -> None:
    """One fetch of a beacon round: how long, and whether no relay gave it."""
    if _on is not None:
        _on.beacon_seconds.observe(seconds)
        if failed:
            _on.beacon_failures += 1


def failure(kind: str) -> None:
    """One known failure (``database timeout``)."""
    if _on is not None:
        _on.failures[kind] = _on.failures.get(kind, 0) + 1


__all__ = [
    "DATABASE_OPERATIONS",
    "OUTCOMES",
    "beacon_fetch",
    "database",
    "enable",
    "failure",
    "interaction",
    "registry",
    "rules",
]
