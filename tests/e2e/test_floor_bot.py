"""The harness proved with the smallest bot there is (bench/floor_bot.py)."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import BotLauncher
from tests.fake_discord import FakeDiscord

pytestmark = pytest.mark.e2e


async def test_floor_bot_connects_syncs_and_answers_ping(
    fake_discord: FakeDiscord, bots: BotLauncher
) -> None:
    bot = await bots.start_ready(["bench/floor_bot.py"])
    assert fake_discord.identify is not None
    assert fake_discord.gateway_compression == "zlib-stream"
    privileged = (1 << 1) | (1 << 8) | (1 << 15)  # members, presences, message content
    assert fake_discord.identify["intents"] & privileged == 0
    assert [c["name"] for c in fake_discord.commands[None]] == ["ping"]

    sent = await fake_discord.slash(["ping"])
    reply = await sent.next_reply()
    assert (reply.kind, reply.type, reply.content) == ("callback", 4, "Pong")
    assert not reply.ephemeral
    await sent.no_reply(0.3)

    assert fake_discord.unknown_routes == []
    assert await bot.stop() == 0
