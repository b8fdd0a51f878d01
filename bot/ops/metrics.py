"""The bot's Prometheus metrics (``prometheus-client``), recorded on the hot path for a few
hundred nanoseconds each.

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
the beacon declarations pending, the reminders due.
"""

from __future__ import annotations

from typing import Any

OUTCOMES = ("ok", "refused", "timeout", "busy", "unreachable", "error")
"""An interaction's outcomes, as the ``outcome`` label says them."""
DATABASE_OPERATIONS = ("read", "write", "append")

_LATENCY_BUCKETS = (
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
    60.0,
)  # fmt: skip


class _Metrics:
    """The metric objects, made by :func:`enable` in one registry of their own."""

    def __init__(self) -> None:
        from prometheus_client import CollectorRegistry, Counter, Histogram
        from prometheus_client.process_collector import ProcessCollector

        self.registry = CollectorRegistry()
        ProcessCollector(registry=self.registry)
        r = self.registry
        self.interactions = Counter(
            "referee_interactions", "Interactions answered, by command and outcome",
            ["command", "outcome"], registry=r,
        )  # fmt: skip
        self.interaction_seconds = Histogram(
            "referee_interaction_seconds", "Seconds from an interaction's arrival to its answer",
            buckets=_LATENCY_BUCKETS, registry=r,
        )  # fmt: skip
        database = Histogram(
            "referee_database_seconds", "Seconds one database call took, by operation",
            ["operation"], buckets=_LATENCY_BUCKETS, registry=r,
        )  # fmt: skip
        self.database = {name: database.labels(name) for name in DATABASE_OPERATIONS}
        self.rules_seconds = Histogram(
            "referee_rules_seconds", "Seconds the rules took to resolve one action",
            buckets=_LATENCY_BUCKETS, registry=r,
        )  # fmt: skip
        self.beacon_seconds = Histogram(
            "referee_beacon_fetch_seconds", "Seconds fetching one beacon round from the relays",
            buckets=_LATENCY_BUCKETS, registry=r,
        )  # fmt: skip
        self.beacon_failures = Counter(
            "referee_beacon_fetch_failures", "Beacon fetches no relay answered", registry=r
        )
        self.failures = Counter(
            "referee_failures", "Known failures (the operator's log), by kind", ["kind"],
            registry=r,
        )  # fmt: skip
        self.counted: dict[tuple[str, str], Any] = {}
        """The interactions' counters by (command, outcome), made once each."""


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
    counter = _on.counted.get((command, outcome))
    if counter is None:
        counter = _on.counted[command, outcome] = _on.interactions.labels(command, outcome)
    counter.inc()
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
            _on.beacon_failures.inc()


def failure(kind: str) -> None:
    """One known failure (``database timeout``)."""
    if _on is not None:
        _on.failures.labels(kind).inc()


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
