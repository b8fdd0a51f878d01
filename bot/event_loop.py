"""The event loop the bot runs on (``REFEREE_EVENT_LOOP``): uvloop, libuv's loop, by default; the
standard library's when asked for, or when uvloop is not installed (it is a dependency on
Linux and macOS, where it is built; docs/PERFORMANCE.md says what it saves)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

log = logging.getLogger(__name__)

LoopFactory = Callable[[], asyncio.AbstractEventLoop]


def loop_factory(choice: str) -> LoopFactory | None:
    """What makes the event loop of ``choice`` (``asyncio.Runner(loop_factory=...)``); None:
    the standard library's.

    >>> loop_factory("asyncio") is None
    True
    """
    if choice != "uvloop":
        return None
    try:
        import uvloop
    except ImportError:
        log.warning("uvloop is not installed; running on the standard library's event loop")
        return None
    return uvloop.new_event_loop
