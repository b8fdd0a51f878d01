"""The table around the rules, on the real bot against the fake Discord: /help by group, the
game log's pages, buttons that go stale, and long button payloads.

One bot serves the module; each test plays in its own channel.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any

import pytest
import pytest_asyncio

from tests.e2e.conftest import BotLauncher, BotProcess
from tests.fake_discord import FakeDiscord, Reply

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]

TIMEOUT = 30.0
CHANNELS = ("help-1", "log-1", "buttons-1", "buttons-2")


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def table(
    tmp_path_factory: pytest.TempPathFactory,
) -> AsyncIterator[tuple[FakeDiscord, BotProcess]]:
    async with FakeDiscord(extra_channels=CHANNELS) as discord:
        launcher = BotLauncher(discord, tmp_path_factory.mktemp("table"))
        bot = await launcher.start_ready(["-m", "bot", "run"])
        yield discord, bot
        code = await bot.stop()
        assert code == 0, bot.output()
        assert "Traceback" not in bot.output(), bot.output()


async def answer(
    discord: FakeDiscord,
    path: list[str],
    options: Mapping[str, Any] | None = None,
    *,
    user: str = "alice",
    channel: str,
) -> Reply:
    """Send a slash command and return the bot's answer (the follow-up after a defer)."""
    sent = await discord.slash(path, options or {}, user=user, channel=channel)
    reply = await sent.next_reply(TIMEOUT)
    if reply.type == 5:
        reply = await sent.next_reply(TIMEOUT)
    return reply


async def test_help_lists_one_group_whatever_its_case(
    table: tuple[FakeDiscord, BotProcess],
) -> None:
    discord, _ = table
    reply = await answer(discord, ["help"], {"group": "ASL"}, channel="help-1")
    assert reply.ephemeral
    assert reply.embeds[0]["title"] == "/asl commands"
    assert "`/asl fire`" in reply.text and "/game new" not in reply.text
