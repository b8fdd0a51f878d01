"""One malformed gateway event must not stop the bot: the real bot, the fake Discord sends a
THREAD_CREATE without ``owner_id`` (discord.py raises while parsing it), and the bot goes on
answering commands; the event is logged by name and dropped."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from tests.e2e.conftest import BotLauncher, BotProcess
from tests.fake_discord import FakeDiscord
from tests.fake_discord import payloads as p

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def table(
    tmp_path_factory: pytest.TempPathFactory,
) -> AsyncIterator[tuple[FakeDiscord, BotProcess]]:
    async with FakeDiscord() as discord:
        launcher = BotLauncher(discord, tmp_path_factory.mktemp("gateway"))
        bot = await launcher.start_ready(["-m", "bot", "run"])
        yield discord, bot
        code = await bot.stop()
        assert code == 0, bot.output()


async def test_a_thread_without_owner_id_is_dropped_and_the_bot_goes_on(
    table: tuple[FakeDiscord, BotProcess],
) -> None:
    discord, bot = table
    thread = p.thread(
        p.snowflake(), discord.guild_id, discord.channels["general"]["id"], "0", "broken"
    )
    del thread["owner_id"]
    await discord._dispatch("THREAD_CREATE", {**thread, "newly_created": True})
    sent = await discord.slash(["game", "status"], {}, channel="table-1")
    reply = await sent.next_reply(30.0)
    assert reply.ephemeral and "no game" in reply.content.lower(), reply.data
    assert bot.process.returncode is None
    assert "Ignored a malformed THREAD_CREATE event from the gateway" in bot.output()
    assert "Traceback" not in bot.output()
