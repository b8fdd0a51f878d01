"""A beacon result that comes after Discord's follow-up window closed is posted in the channel.

Discord takes an interaction's follow-ups for 15 minutes; the fake Discord and the bot are told a
window of a few seconds (``followup_window``, ``REFEREE_FOLLOWUP_WINDOW``) so the test need not
wait 15 minutes. With the relay down past that window, the player is told the declaration stays
pending; when the relay is back, the result is a message of the channel, and the bot never
sends a follow-up Discord would refuse.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from pathlib import Path

import pytest

from bot.dice.beacon.local import LocalChain, LocalRelay
from tests.e2e.conftest import BotLauncher
from tests.fake_discord import FakeDiscord

pytestmark = [pytest.mark.e2e]

TIMEOUT = 30.0
WINDOW = 12.0
"""Discord's follow-up window, shortened: the "stays pending" follow-up comes within it (the
round's time, up to 1.5 s, then 3 s of patience and the relay's 0.5 s: 5 s, more under load; a
window of 6 s left a loaded machine 1 s), the result after it."""
DECLARED = re.compile(r"declared: waiting for beacon round (\d+)")


async def test_a_result_after_the_follow_up_window_is_posted_in_the_channel(
    tmp_path: Path,
) -> None:
    relay = LocalRelay(LocalChain.new(period=1))
    await relay.start()
    chain_file = tmp_path / "chain.json"
    chain_file.write_text(json.dumps({**relay.info.to_json(), "relay": relay.url}))
    try:
        async with FakeDiscord(followup_window=WINDOW) as discord:
            launcher = BotLauncher(discord, tmp_path)
            bot = await launcher.start_ready(
                ["-m", "bot", "run"],
                REFEREE_BEACON_CHAIN=str(chain_file),
                REFEREE_BEACON_TIMEOUT="0.5",
                REFEREE_FOLLOWUP_WINDOW=str(WINDOW),
            )
            try:
                for path, options in (
                    (["game", "new"], {"system": "asl", "dice": "beacon"}),
                    (["game", "seat"], {"side": "Axis"}),
                ):
                    sent = await discord.slash(path, options, channel="table-1")
                    await sent.next_reply(TIMEOUT)
                relay.down = True
                roll = await discord.slash(["roll"], {"dice": "2d6"}, channel="table-1")
                declared = await roll.next_reply(TIMEOUT)
                assert DECLARED.search(declared.text), declared.data
                pending = await roll.next_reply(TIMEOUT)
                assert pending.kind == "followup" and "stays pending" in pending.content
                await asyncio.sleep(max(0.0, roll.sent_at + WINDOW + 0.5 - time.monotonic()))
                relay.down = False
                posted = await discord.wait_for_event("table-1", "create", timeout=60)
                assert "beacon round" in posted.text and "Total" in posted.text, posted.message
                await roll.no_reply(0.5)
                assert not [code for _, code in discord.refusals if code == 50027]
            finally:
                code = await bot.stop()
            assert code == 0, bot.output()
            assert "Traceback" not in bot.output(), bot.output()
    finally:
        await relay.stop()
