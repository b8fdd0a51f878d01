"""The floor: the smallest discord.py bot there is, answering ``/ping`` with "Pong".

The performance work measures the referee bot against this one, run the same way against the same
fake Discord, so that the cost of discord.py itself is known. Run it as::

    DISCORD_TOKEN=... DISCORD_API_BASE=http://127.0.0.1:PORT/api/v10 \\
    DISCORD_GATEWAY_URL=ws://127.0.0.1:PORT/gateway python bench/floor_bot.py

It syncs its one command globally at every start and needs no other setting.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal

import discord
import yarl
from discord import app_commands


class FloorBot(discord.Client):
    """A client with a command tree of one command."""

    def __init__(self) -> None:
        super().__init__(intents=discord.Intents.default())
        self.tree = app_commands.CommandTree(self)

        @self.tree.command(name="ping", description="Answer Pong.")
        async def ping(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("Pong")

    async def setup_hook(self) -> None:
        await self.tree.sync()


async def main() -> None:
    if api_base := os.environ.get("DISCORD_API_BASE"):
        discord.http.Route.BASE = api_base.rstrip("/")
    if gateway := os.environ.get("DISCORD_GATEWAY_URL"):
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway)
    bot = FloorBot()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, lambda: asyncio.ensure_future(bot.close()))
    async with bot:
        await bot.start(os.environ["DISCORD_TOKEN"])


if __name__ == "__main__":
    discord.utils.setup_logging(level=logging.INFO)
    asyncio.run(main())
