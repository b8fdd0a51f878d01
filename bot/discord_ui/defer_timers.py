"""One timer for every interaction's "thinking…" deadline.

The handler defers an interaction (Discord's "thinking…") when the service has not answered
``DEFER_AFTER`` seconds after it began. A timer per interaction (``loop.call_later``, then
``cancel``) costs a timer handle, a push on the event loop's heap of timers and a cancelled
handle left on it until it would have fired — on every interaction, though almost none is slow.
Every deadline lies the same delay after its start, so the deadlines fall due in the order the
interactions began: :class:`DeferTimers` keeps them in that order, with one timer for the earliest
still pending. A callback runs when its deadline passes, as ``call_later``'s would, unless it
was cancelled first.

>>> async def main() -> list[str]:
...     ran: list[str] = []
...     timers = DeferTimers(0.01)
...     slow = timers.call_later(lambda: ran.append("slow"))
...     quick = timers.call_later(lambda: ran.append("quick"))
...     quick.cancel()  # answered in time
...     await asyncio.sleep(0.05)
...     return ran
>>> asyncio.run(main())
['slow']
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable

EARLY = 0.001
"""A deadline this close is due: the event loop runs a timer up to its clock's resolution early."""


class DeferTimer:
    """One interaction's deadline: its callback runs when it passes, unless cancelled."""

    __slots__ = ("callback", "due")

    def __init__(self, due: float, callback: Callable[[], object]) -> None:
        self.due = due
        self.callback: Callable[[], object] | None = callback

    def cancel(self) -> None:
        """The interaction was answered in time: the callback will not run."""
        self.callback = None


class DeferTimers:
    """Callbacks run ``delay`` seconds after they were added, in the order added, with one
    timer handle on the event loop for all of them."""

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self._queue: deque[DeferTimer] = deque()
        self._timer: asyncio.TimerHandle | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def call_later(self, callback: Callable[[], object]) -> DeferTimer:
        """Run ``callback`` ``delay`` seconds from now, unless the deadline is cancelled first."""
        loop = asyncio.get_running_loop()
        if loop is not self._loop:  # another event loop (tests): nothing of the last one runs
            if self._timer is not None:
                self._timer.cancel()
            self._queue.clear()
            self._timer = None
            self._loop = loop
        deadline = DeferTimer(loop.time() + self.delay, callback)
        self._queue.append(deadline)
        if self._timer is None:
            self._timer = loop.call_at(deadline.due, self._expire)
        return deadline

    def _expire(self) -> None:
        """Run the callbacks whose deadline passed; the timer then waits for the next one."""
        self._timer = None
        loop, queue = self._loop, self._queue
        assert loop is not None
        now = loop.time()
        while queue:
            first = queue[0]
            callback = first.callback
            if callback is not None and first.due - now > EARLY:
                self._timer = loop.call_at(first.due, self._expire)
                return
            queue.popleft()
            if callback is None:  # answered in time
                continue
            first.callback = None
            try:
                callback()
            except Exception as exc:  # as the event loop treats a failing timer: logged
                loop.call_exception_handler(
                    {"message": "A deferral's callback failed", "exception": exc}
                )


__all__ = ["DeferTimer", "DeferTimers"]
