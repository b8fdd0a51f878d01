"""``referee_reminders_due``: the real bot on the fake Discord and the test run's PostgreSQL,
scraped while the games' timers are due — the gauge is the count the database holds (timers due
and not sent, whichever process claimed them), follows a timer sent, and is left out, without
holding the scrape, while the database does not answer; it comes back when the database does."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import asyncpg
import pytest
from prometheus_client.parser import text_string_to_metric_families

from bot.storage import TimerPlan, open_repository
from tests.e2e.conftest import BotLauncher, answer
from tests.fake_discord import FakeDiscord
from tests.ops.test_metrics_and_freeze import SERVING
from tests.pgserver import PostgresServer

pytestmark = [pytest.mark.e2e]

HOUR = 3_600_000
"""Milliseconds: the timers are hours away from now, so no clock of this test is close."""


def now_ms() -> int:
    return int(time.time() * 1000)


async def reminders_due(session: aiohttp.ClientSession, base: str) -> float | None:
    """The gauge as scraped, or None when the scrape left it out."""
    async with session.get(f"{base}/metrics") as response:
        assert response.status == 200
        text = await response.text()
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == "referee_reminders_due":
                return sample.value
    return None


@contextlib.asynccontextmanager
async def timers_locked(url: str) -> AsyncIterator[None]:
    """Another session holds the timers table locked (no read of it answers) until the block
    ends."""
    holder = await asyncpg.connect(url)
    try:
        async with holder.transaction():
            await holder.execute("LOCK TABLE timers IN ACCESS EXCLUSIVE MODE")
            yield
    finally:
        await holder.close()


async def test_the_reminders_due_gauge_is_what_the_database_holds(
    fake_discord: FakeDiscord, postgres_server: PostgresServer, tmp_path: Path
) -> None:
    url = await postgres_server.create_database()
    bot = await BotLauncher(fake_discord, tmp_path).start_ready(
        ["-m", "bot", "run"], REFEREE_DATABASE_URL=url, REFEREE_METRICS_PORT="0"
    )
    found = SERVING.search(bot.output())
    assert found, bot.output()
    base = found[1]
    repo = await open_repository(url)
    try:
        async with aiohttp.ClientSession() as session:
            assert await reminders_due(session, base) == 0
            new = await answer(fake_discord, ["game", "new"], {"system": "asl"}, channel="table-1")
            assert new.embeds, new.data
            row = await repo.active_game(
                int(fake_discord.guild_id), int(fake_discord.channels["table-1"]["id"])
            )
            assert row is not None
            planned = now_ms()
            offsets = {"a": -3, "b": -2, "c": -1, "d": 24, "e": 48}  # three past, two to come
            await repo.plan_timers(
                row.id, ball=1, plan=row.head_seq, now=planned,
                timers=[
                    TimerPlan(name=f"{row.id}:1:reminder:{step}", event="reminder",
                              due=planned + hours * HOUR, data={"step": step})
                    for step, hours in offsets.items()
                ],
            )  # fmt: skip
            # a process (another one, still sending them) claimed the due ones for an hour:
            # claimed or not, they are due and not sent
            due = await repo.due_timers(now_ms())
            assert len(due) == 3
            for timer in due:
                assert await repo.claim_timer(timer.id, "elsewhere", now_ms(), HOUR)
            assert await repo.timers_due(now_ms()) == 3
            assert await reminders_due(session, base) == 3

            await repo.finish_timer(due[0].id, "elsewhere", now_ms())  # one was sent
            assert await repo.timers_due(now_ms()) == 2
            assert await reminders_due(session, base) == 2

            async with timers_locked(url):
                # left out, not waited for: the lock is held until this scrape has answered
                assert await asyncio.wait_for(reminders_due(session, base), 60) is None
            assert await reminders_due(session, base) == 2  # the database answers again
            assert "Traceback" not in bot.output(), bot.output()
    finally:
        await repo.close()
        code = await bot.stop()
    assert code == 0, bot.output()
    await postgres_server.drop_database(url)
