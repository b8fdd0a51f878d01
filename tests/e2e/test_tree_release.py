"""A handled interaction is freed by reference counting, not left to the garbage collector.

discord.py's ``Interaction`` and its ``response`` (and ``followup``) point at each other; the
bot's command tree breaks that cycle once a command and its error handling are done
(:func:`bot.discord_ui.tree.release`). Driven by discord.py 2.7 itself against the fake Discord,
with the collector switched off: after a command is answered, and after a command refused (as
the rules refuse an action: the error handler answers the sentence), no ``Interaction`` is left
alive.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import AsyncIterator

import discord
import pytest

from bot.discord_ui.tree import RefereeTree
from bot.errors import UserError
from tests.e2e.conftest import answer, connected
from tests.fake_discord import FakeDiscord

pytestmark = [pytest.mark.e2e]


@pytest.fixture
async def client(fake_discord: FakeDiscord) -> AsyncIterator[discord.Client]:
    """discord.py with the bot's command tree (``/ping``, ``/refuse``), synced and ready."""
    bot = discord.Client(intents=discord.Intents.default())
    tree = RefereeTree(bot)

    @tree.command(name="ping", description="Answer Pong.")
    async def ping(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("Pong")

    @tree.command(name="refuse", description="Refuse, as the rules refuse an action.")
    async def refuse(interaction: discord.Interaction) -> None:
        raise UserError("There is no such side.")

    async with connected(bot, fake_discord, when_ready=tree.sync) as client:
        yield client


def interactions_alive() -> int:
    return sum(isinstance(o, discord.Interaction) for o in gc.get_objects())


async def test_an_answered_or_failed_interaction_is_freed_without_the_collector(
    client: discord.Client, fake_discord: FakeDiscord
) -> None:
    gc.collect()
    gc.disable()
    try:
        assert interactions_alive() == 0
        reply = await answer(fake_discord, ["ping"], channel="table-1")
        assert reply.content == "Pong"
        for _ in range(100):  # the command's task ends just after its answer is sent
            if interactions_alive() == 0:
                break
            await asyncio.sleep(0.01)
        assert interactions_alive() == 0
        reply = await answer(fake_discord, ["refuse"], channel="table-1")
        assert reply.ephemeral and reply.content == "There is no such side."
        for _ in range(100):
            if interactions_alive() == 0:
                break
            await asyncio.sleep(0.01)
        assert interactions_alive() == 0
    finally:
        gc.enable()
