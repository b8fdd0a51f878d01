"""The operator's log: one line per kind of failure with a count, and JSON lines as an option.

A database that froze for ten seconds used to write a traceback per failed request (1,377 of them
per process). A failure the bot knows — the database timed out, is busy, cannot be reached — is
now logged once when a run of them starts, with the user's sentence, and then as one line per
kind and window with the count (``database timeout: 1374 more in the last 10 s``); only an
unexpected error (a bug) still gets its traceback. ``REFEREE_LOG_FORMAT=json`` writes every log
record as one JSON object a line (``time``, ``level``, ``logger``, ``message``, and ``exception``
with the traceback when there is one), for a log collector.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from bot.ops import metrics

log = logging.getLogger("bot.failures")

WINDOW = 10.0
"""Seconds a run's count gathers before its line is written."""


@dataclass
class _Run:
    started: float
    counted: int = 0
    """Failures of the kind since the run's last line."""
    total: int = 1


class FailureLog:
    """Counts failures by kind: the first of a run is logged at once (one line, no traceback),
    the rest as one line per kind each ``window`` seconds while they go on."""

    def __init__(self, window: float = WINDOW, clock: Callable[[], float] = time.monotonic) -> None:
        self.window = window
        self._clock = clock
        self._runs: dict[str, _Run] = {}
        self.totals: dict[str, int] = {}
        """Every failure counted by kind since the process started."""

    def note(self, kind: str, detail: str) -> None:
        """One failure of ``kind`` (``"database timeout"``); ``detail`` is its one sentence."""
        self.totals[kind] = self.totals.get(kind, 0) + 1
        metrics.failure(kind)
        run = self._runs.get(kind)
        if run is not None:
            run.counted += 1
            run.total += 1
            return
        self._runs[kind] = _Run(self._clock())
        log.warning("%s: %s", kind, detail)
        try:
            asyncio.get_running_loop().call_later(self.window, self._close_window, kind)
        except RuntimeError:  # no event loop (a tool): the run ends at once
            self._runs.pop(kind, None)

    def _close_window(self, kind: str) -> None:
        """The window of a run ended: its count as one line; the run goes on while it grows."""
        run = self._runs.get(kind)
        if run is None:
            return
        if run.counted == 0:  # nothing since the last line: the run is over
            del self._runs[kind]
            return
        log.warning(
            "%s: %d more in the last %g s (%d since this run began)",
            kind, run.counted, self.window, run.total,
        )  # fmt: skip
        run.counted = 0
        asyncio.get_running_loop().call_later(self.window, self._close_window, kind)

    def flush(self) -> None:
        """Write the counts of the runs going on now (at shutdown)."""
        for kind, run in list(self._runs.items()):
            if run.counted:
                log.warning("%s: %d more (%d in this run)", kind, run.counted, run.total)
            del self._runs[kind]


FAILURES = FailureLog()
"""The process's failure counts (the Discord error handler notes each known failure here)."""


class JsonFormatter(logging.Formatter):
    """One JSON object a line: ``time`` (UTC, ISO 8601), ``level``, ``logger``, ``message`` and,
    with a traceback, ``exception``."""

    def format(self, record: logging.LogRecord) -> str:
        data = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            data["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            data["exception"] = record.exc_text
        return json.dumps(data, ensure_ascii=False)


__all__ = ["FAILURES", "WINDOW", "FailureLog", "JsonFormatter"]
