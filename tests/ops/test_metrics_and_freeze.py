"""The real bot on the fake Discord and the test run's PostgreSQL, with ``/metrics``,
``/healthz`` and ``/readyz`` on a port of its own: scraped while it serves, the figures are what
was done (commands by outcome). Then the database freezes (a session locks the games table and
sleeps in ``pg_sleep``): every request is answered within the deadline with the one sentence
that nothing was changed — true once the database thaws —, ``/readyz`` says the database does
not answer, the log holds one line for the failure kind (and its count), no traceback; the bot
serves again when the database thaws, without a restart."""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path

import aiohttp
import pytest
from prometheus_client.parser import text_string_to_metric_families

from bot.storage import open_repository
from tests.e2e.conftest import ROOT, BotLauncher, answer
from tests.fake_discord import FakeDiscord
from tests.pgserver import PostgresServer
from tests.storage.test_deadlines import locked_by_a_sleeper

pytestmark = [pytest.mark.e2e]

SERVING = re.compile(r"Serving /metrics, /healthz and /readyz on (http://127\.0\.0\.1:\d+)")
SENTENCE = "The database did not answer within 1 s, so nothing was changed; try again in a minute."


async def scrape(session: aiohttp.ClientSession, base: str) -> dict[tuple[str, str], float]:
    """The interactions counted, by (command, outcome)."""
    async with session.get(f"{base}/metrics") as response:
        assert response.status == 200
        text = await response.text()
    counts: dict[tuple[str, str], float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == "referee_interactions_total":
                counts[sample.labels["command"], sample.labels["outcome"]] = sample.value
    return counts


def documented_metrics() -> set[str]:
    """The metrics docs/OPERATING.md lists and the Grafana dashboard of docs/ draws."""
    names = set(re.findall(r"^\| `(referee_\w+)", (ROOT / "docs/OPERATING.md").read_text(), re.M))
    names |= set(re.findall(r"referee_\w+", (ROOT / "docs/grafana/referee.json").read_text()))
    families = {re.sub(r"_(total|bucket|count|sum)$", "", name) for name in names}
    assert len(families) >= 10, families
    return families


async def status(session: aiohttp.ClientSession, url: str) -> tuple[int, str]:
    async with session.get(url) as response:
        return response.status, await response.text()


async def test_metrics_health_and_a_frozen_database_seen_from_outside(
    fake_discord: FakeDiscord, postgres_server: PostgresServer, tmp_path: Path
) -> None:
    url = await postgres_server.create_database()
    bot = await BotLauncher(fake_discord, tmp_path).start_ready(
        ["-m", "bot", "run"],
        REFEREE_DATABASE_URL=url,
        REFEREE_DB_TIMEOUT="1",
        REFEREE_METRICS_PORT="0",
    )
    found = SERVING.search(bot.output())
    assert found, bot.output()
    base = found[1]
    async with aiohttp.ClientSession() as session:
        assert await status(session, f"{base}/healthz") == (200, "ok\n")
        for _ in range(600):  # ready once discord.py says so (~2 s after the guilds came)
            code, text = await status(session, f"{base}/readyz")
            if code == 200:
                break
            assert "not connected to Discord's gateway yet" in text, text
            await asyncio.sleep(0.2)
        assert (code, text) == (200, "ready\n")
        new = await answer(fake_discord, ["game", "new"], {"system": "asl"}, channel="table-1")
        assert new.embeds, new.data
        assert (
            await answer(fake_discord, ["game", "seat"], {"side": "Axis"}, channel="table-1")
        ).embeds
        taken = await answer(
            fake_discord, ["game", "seat"], {"side": "Axis"}, user="bob", channel="table-1"
        )
        assert taken.ephemeral and "seat" in taken.content, taken.data
        for n in range(3):
            rolled = await answer(
                fake_discord, ["roll"], {"dice": "DR", "reason": f"r{n}"}, channel="table-1"
            )
            assert rolled.embeds, rolled.data
        assert await scrape(session, base) == {
            ("game new", "ok"): 1,
            ("game seat", "ok"): 1,
            ("game seat", "refused"): 1,
            ("roll", "ok"): 3,
        }
        repo = await open_repository(url)
        row = await repo.active_game(
            int(fake_discord.guild_id), int(fake_discord.channels["table-1"]["id"])
        )
        assert row is not None
        before = [e.interaction_id for e in await repo.entries(row.id)]

        async with locked_by_a_sleeper(url, 60.0) as sleeper:
            began = time.monotonic()
            sent = [
                await fake_discord.slash(
                    ["roll"], {"dice": "DR", "reason": f"f{n}"}, channel="table-1"
                )
                for n in range(4)
            ]
            replies = []
            for one in sent:
                reply = await one.next_reply(30)
                if reply.type == 5:  # "thinking…" first (the answer took over 1.5 s)
                    reply = await one.next_reply(30)
                replies.append(reply)
            assert [r.content for r in replies] == [SENTENCE] * 4, [r.data for r in replies]
            # each within its deadline (1 s, and seconds more under load), not the freeze's 60 s
            assert time.monotonic() - began < 20
            code, text = await status(session, f"{base}/readyz")
            assert code == 503 and "the database did not answer" in text, text
            assert await status(session, f"{base}/healthz") == (200, "ok\n")
            assert not sleeper.done()
        # thawed: the frozen rolls stored nothing; the bot serves again without a restart
        assert [e.interaction_id for e in await repo.entries(row.id)] == before
        rolled = await answer(
            fake_discord, ["roll"], {"dice": "DR", "reason": "thawed"}, channel="table-1"
        )
        assert rolled.embeds, rolled.data
        assert len(await repo.entries(row.id)) == len(before) + 1
        await repo.close()
        assert await status(session, f"{base}/readyz") == (200, "ready\n")
        counts = await scrape(session, base)
        assert counts[("roll", "timeout")] == 4 and counts[("roll", "ok")] == 4, counts
        async with session.get(f"{base}/metrics") as response:
            served = {f.name for f in text_string_to_metric_families(await response.text())}
        assert documented_metrics() <= served, documented_metrics() - served
    code = await bot.stop()
    assert code == 0, bot.output()
    output = bot.output()
    assert "Traceback" not in output, output
    lines = [line for line in output.splitlines() if "database timeout" in line]
    assert 1 <= len(lines) <= 2, lines  # the first of the run, then its count
    assert SENTENCE in lines[0], lines
    if len(lines) == 2:
        assert re.search(r"database timeout: \d+ more", lines[1]), lines
    await postgres_server.drop_database(url)
