"""The real bot on each event loop REFEREE_EVENT_LOOP offers, the standard library's (the
default) and uvloop, against the fake Discord: a game, a roll, a clean stop."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import BotLauncher, answer
from tests.fake_discord import FakeDiscord

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("loop", ["uvloop", "asyncio"])
async def test_the_bot_plays_on_either_event_loop(
    fake_discord: FakeDiscord, bots: BotLauncher, loop: str
) -> None:
    bot = await bots.start_ready(["-m", "bot", "run"], REFEREE_EVENT_LOOP=loop)
    await answer(fake_discord, ["game", "new"], {"system": "asl"}, channel="table-1")
    await answer(fake_discord, ["game", "seat"], {"side": "Axis"}, channel="table-1")
    reply = await answer(fake_discord, ["roll"], {"dice": "DR"}, channel="table-1")
    assert reply.embeds and "#3" in reply.text  # the roll is the game's third log entry
    assert await bot.stop() == 0, bot.output()
    assert f"Event loop: {loop}" in bot.output()
    assert "Traceback" not in bot.output(), bot.output()
