"""The handler's "thinking…" timers (bot/discord_ui/defer_timers.py): one timer for every
interaction in flight runs each callback as ``call_later`` would — not before its delay, in the
order added, never once cancelled — and a failing callback stops none of the others."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from bot.discord_ui.defer_timers import EARLY, DeferTimers


async def test_each_callback_runs_after_its_delay_in_order_unless_cancelled() -> None:
    loop = asyncio.get_running_loop()
    timers = DeferTimers(0.05)
    ran: list[tuple[int, float]] = []
    added: dict[int, float] = {}
    cancelled = set()

    def runs(i: int) -> Callable[[], None]:
        return lambda: ran.append((i, loop.time()))

    for i in range(12):
        added[i] = loop.time()
        timer = timers.call_later(runs(i))
        if i % 3 == 1:  # answered in time
            timer.cancel()
            cancelled.add(i)
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.1)
    assert [i for i, _ in ran] == [i for i in range(12) if i not in cancelled]
    for i, at in ran:
        assert at - added[i] >= 0.05 - EARLY, (i, at - added[i])


async def test_a_failing_callback_stops_none_of_the_others() -> None:
    loop = asyncio.get_running_loop()
    errors: list[dict[str, Any]] = []
    loop.set_exception_handler(lambda _, context: errors.append(context))
    timers = DeferTimers(0.01)
    ran: list[str] = []

    def fail() -> None:
        raise RuntimeError("broken")

    timers.call_later(fail)
    timers.call_later(lambda: ran.append("next"))
    await asyncio.sleep(0.05)
    assert ran == ["next"]
    assert [type(e["exception"]) for e in errors] == [RuntimeError]


def test_the_timers_serve_a_new_event_loop() -> None:
    timers = DeferTimers(0.01)
    ran: list[int] = []

    async def one(n: int, wait: float) -> None:
        timers.call_later(lambda: ran.append(n))
        await asyncio.sleep(wait)

    asyncio.run(one(1, 0.0))  # the loop ends before the deadline: its callback never runs
    asyncio.run(one(2, 0.05))
    assert ran == [2]
