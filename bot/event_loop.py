"""The event loop the bot runs on (``REFEREE_EVENT_LOOP``): the standard library's by default, or
uvloop, libuv's loop, when asked for (a dependency on Linux and macOS, where it is built); without
uvloop installed, the standard library's. docs/PERFORMANCE.md says what each measured."""

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
