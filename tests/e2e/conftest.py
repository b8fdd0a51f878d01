"""Fixtures of the end-to-end tests: a fake Discord and real bots started as subprocesses."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import discord
import pytest
import yarl

from tests.fake_discord import FakeDiscord, Reply

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class BotProcess:
    """A bot running as a subprocess; its output goes to ``log``."""

    process: asyncio.subprocess.Process
    log: Path

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    async def stop(self, timeout: float = 60.0, signum: int = signal.SIGTERM) -> int:
        """SIGTERM, then wait for a graceful exit (SIGKILL only if it hangs); the exit code."""
        if self.process.returncode is None:
            self.process.send_signal(signum)
            try:
                await asyncio.wait_for(self.process.wait(), timeout)
            except TimeoutError:
                self.process.kill()
                await self.process.wait()
                raise AssertionError(f"the bot ignored SIGTERM:\n{self.output()}") from None
        assert self.process.returncode is not None
        return self.process.returncode


class BotLauncher:
    """Starts bots against one fake Discord and stops whatever is left at teardown."""

    def __init__(self, discord: FakeDiscord, workdir: Path) -> None:
        self.discord = discord
        self.workdir = workdir
        self.started: list[BotProcess] = []

    async def start(self, argv: Sequence[str], **env: str) -> BotProcess:
        log = self.workdir / f"bot-{len(self.started)}.log"
        environment = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "REFEREE_"))},
            "DISCORD_TOKEN": self.discord.token,
            "DISCORD_API_BASE": self.discord.api_base,
            "DISCORD_GATEWAY_URL": self.discord.gateway_url,
            "REFEREE_DB": str(self.workdir / "referee.db"),
            "PYTHONUNBUFFERED": "1",
            **env,
        }
        with log.open("wb") as out:
            process = await asyncio.create_subprocess_exec(
                sys.executable,
                *argv,
                cwd=ROOT,
                env=environment,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=out,
                stderr=asyncio.subprocess.STDOUT,
            )
        bot = BotProcess(process, log)
        self.started.append(bot)
        return bot

    async def start_ready(self, argv: Sequence[str], **env: str) -> BotProcess:
        """Start a bot and wait until it identified and got its guild."""
        self.discord.forget_ready()
        bot = await self.start(argv, **env)
        ready = asyncio.ensure_future(self.discord.wait_until_ready())
        exited = asyncio.ensure_future(bot.process.wait())
        done, _ = await asyncio.wait({ready, exited}, return_when=asyncio.FIRST_COMPLETED)
        exited.cancel()
        if ready not in done:
            ready.cancel()
            raise AssertionError(f"the bot exited before connecting:\n{bot.output()}")
        ready.result()
        return bot


@pytest.fixture
async def fake_discord() -> AsyncIterator[FakeDiscord]:
    async with FakeDiscord() as discord:
        yield discord


@pytest.fixture
async def bots(fake_discord: FakeDiscord, tmp_path: Path) -> AsyncIterator[BotLauncher]:
    launcher = BotLauncher(fake_discord, tmp_path)
    yield launcher
    for bot in launcher.started:
        await bot.stop()


REPLY_TIMEOUT = 30.0


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
    reply = await sent.next_reply(REPLY_TIMEOUT)
    if reply.type == 5:
        reply = await sent.next_reply(REPLY_TIMEOUT)
    return reply


@contextlib.asynccontextmanager
async def running_bot(
    directory: Path, channels: Sequence[str]
) -> AsyncIterator[tuple[FakeDiscord, BotProcess]]:
    """A fake Discord with ``channels`` and the real bot on it; the bot must stop cleanly."""
    async with FakeDiscord(extra_channels=tuple(channels)) as discord:
        bot = await BotLauncher(discord, directory).start_ready(["-m", "bot", "run"])
        yield discord, bot
        code = await bot.stop()
        assert code == 0, bot.output()
        assert "Traceback" not in bot.output(), bot.output()


@contextlib.asynccontextmanager
async def connected(
    client: discord.Client,
    fake_discord: FakeDiscord,
    when_ready: Callable[[], Awaitable[object]] | None = None,
) -> AsyncIterator[discord.Client]:
    """``client`` (discord.py itself, in the test's event loop) pointed at the fake, started and
    ready (``when_ready`` awaited first, e.g. a command tree's sync); closed and discord.py's
    endpoints put back afterwards."""
    old_base, old_gateway = (
        discord.http.Route.BASE,
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY,
    )
    discord.http.Route.BASE = fake_discord.api_base
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(fake_discord.gateway_url)
    ready = asyncio.Event()

    @client.event
    async def on_ready() -> None:
        if when_ready is not None:
            await when_ready()
        ready.set()

    task = asyncio.create_task(client.start(fake_discord.token))
    try:
        await asyncio.wait_for(ready.wait(), 30)
        yield client
    finally:
        await client.close()
        await asyncio.gather(task, return_exceptions=True)
        discord.http.Route.BASE = old_base
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = old_gateway
