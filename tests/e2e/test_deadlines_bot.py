"""Deadlines on the real bot against the fake Discord, with a clock the test moves
(``tests/e2e/clockbot.py``): a silent player gets exactly the reminders due, in the channel
(mentioned) and by direct message, across a restart of the bot and with two bot processes on one
PostgreSQL database (none lost, none doubled); a player whose DMs are closed is told once; a
forfeit claim is ruled by a referee without a seat.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import BotLauncher, BotProcess, answer
from tests.fake_discord import FakeDiscord
from tests.pgserver import PostgresServer

pytestmark = [pytest.mark.e2e]

START = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
CLOCKBOT = ["-m", "tests.e2e.clockbot"]


class Clock:
    """The time the bots read (a file), moved forward by the test."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.now = START
        self.set(START)

    def set(self, moment: datetime) -> None:
        self.now = moment
        written = self.path.with_suffix(".new")
        written.write_text(moment.isoformat())
        written.replace(self.path)  # at once: a bot never reads half a time

    def advance(self, **span: float) -> None:
        self.set(self.now + timedelta(**span))


async def start(bots: BotLauncher, clock: Clock, **env: str) -> BotProcess:
    return await bots.start_ready(CLOCKBOT, CLOCKBOT_TIME=str(clock.path), **env)


async def stop(bot: BotProcess) -> None:
    assert await bot.stop() == 0, bot.output()
    assert "Traceback" not in bot.output(), bot.output()


async def game_with_deadline(discord: FakeDiscord, channel: str, **deadline: str) -> None:
    """ref starts a game (no seat: a referee without a seat), alice and bob sit down, ref sets
    the deadline, bob chooses direct messages, and alice rolls: bob must answer."""
    await answer(discord, ["game", "new"], {"system": "asl"}, user="ref", channel=channel)
    for side, user in (("Axis", "alice"), ("Allied", "bob")):
        await answer(discord, ["game", "seat"], {"side": side}, user=user, channel=channel)
    set_ = await answer(discord, ["game", "deadline", "set"], deadline, user="ref", channel=channel)
    assert set_.embeds and "Deadline: 2d" in set_.embeds[0]["title"], set_.data
    notify = await answer(discord, ["notify"], {}, user="bob", channel=channel)
    assert notify.ephemeral and "Direct messages on" in notify.embeds[0]["title"], notify.data
    roll = await answer(discord, ["roll"], {"dice": "DR"}, user="alice", channel=channel)
    assert not roll.ephemeral, roll.data


def reminders(discord: FakeDiscord, channel: str) -> list[str]:
    """The titles of the bot's own posts in ``channel`` that mention bob (reminders, a missed
    deadline), oldest first."""
    bob = discord.people["bob"].id
    return [
        m["embeds"][0]["title"]
        for m in discord.channel_messages(channel)
        if m["content"].startswith(f"<@{bob}>") and m["embeds"]
    ]


def dm_titles(discord: FakeDiscord, user: str) -> list[str]:
    return [m["embeds"][0]["title"] for m in discord.dms(user) if m["embeds"]]


async def until(check: Any, what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {timeout} s")
        await asyncio.sleep(0.1)


async def settle(seconds: float = 1.5) -> None:
    """Long enough for the bots' timer loops (0.2 s) to fire anything due twice over."""
    await asyncio.sleep(seconds)


def titles_like(titles: Sequence[str], *expected: str) -> bool:
    return len(titles) == len(expected) and all(
        e in t for t, e in zip(titles, expected, strict=True)
    )


async def test_a_silent_player_gets_exactly_the_reminders_due_across_a_restart(
    fake_discord: FakeDiscord, bots: BotLauncher, tmp_path: Path
) -> None:
    discord, clock = fake_discord, Clock(tmp_path / "now")
    bot = await start(bots, clock)
    await game_with_deadline(discord, "table-1", duration="48h")
    await until(lambda: dm_titles(discord, "bob"), "the DM of alice's roll")
    assert "DR" in dm_titles(discord, "bob")[0]  # the other side's roll, by DM

    clock.advance(hours=23, minutes=59)
    await settle()
    assert reminders(discord, "table-1") == []  # nothing is due yet
    clock.advance(minutes=1)  # 50 % of 48 h
    await until(lambda: reminders(discord, "table-1"), "the 50 % reminder")
    await settle()
    assert titles_like(reminders(discord, "table-1"), "Reminder: Allied to act (50 %")
    assert titles_like(dm_titles(discord, "bob")[1:], "Reminder: Allied to act (50 %")

    await stop(bot)  # the bot is down when the deadline (100 %) and 200 % pass
    clock.advance(days=3, hours=1)
    bot = await start(bots, clock)
    await until(lambda: len(reminders(discord, "table-1")) == 3, "the reminders missed while down")
    await settle()
    expected = ("Reminder: Allied to act (50 %", "missed the deadline", "(200 % of the deadline)")
    assert titles_like(reminders(discord, "table-1"), *expected)
    assert titles_like(dm_titles(discord, "bob")[1:], *expected)

    await stop(bot)  # a second restart: nothing fires twice
    bot = await start(bots, clock)
    clock.advance(days=10)
    await settle(2.5)
    assert titles_like(reminders(discord, "table-1"), *expected)
    times = await answer(discord, ["game", "times"], {}, user="alice", channel="table-1")
    assert "missed deadlines 1" in str(times.embeds[0]["fields"]), times.data
    await stop(bot)


async def test_closed_dms_are_said_once_and_never_retried(
    fake_discord: FakeDiscord, bots: BotLauncher, tmp_path: Path
) -> None:
    discord, clock = fake_discord, Clock(tmp_path / "now")
    discord.closed_dms.add("bob")
    bot = await start(bots, clock)
    await game_with_deadline(discord, "table-1", duration="48h")
    bob = discord.people["bob"].id
    said = f"<@{bob}>, Discord refused my direct message"
    await until(
        lambda: any(m["content"].startswith(said) for m in discord.channel_messages("table-1")),
        "the refusal said in the channel",
    )
    for hours in (24, 24, 48):  # 50 %, 100 %, 200 %
        clock.advance(hours=hours)
        await settle()
    await until(lambda: len(reminders(discord, "table-1")) == 3, "three reminders")
    refusals = [m for m in discord.channel_messages("table-1") if m["content"].startswith(said)]
    assert len(refusals) == 1  # said once
    assert [code for _, code in discord.refusals].count(50007) == 1  # tried once, not again
    assert discord.dms("bob") == []
    again = await answer(discord, ["notify"], {}, user="bob", channel="table-1")
    assert "Direct messages on" in again.embeds[0]["title"]  # /notify again: tried afresh
    await stop(bot)


async def test_two_bot_processes_on_one_postgresql_database_remind_once(
    fake_discord: FakeDiscord, bots: BotLauncher, tmp_path: Path, postgres_server: PostgresServer
) -> None:
    discord, clock = fake_discord, Clock(tmp_path / "now")
    url = await postgres_server.create_database()
    first = await start(bots, clock, REFEREE_DATABASE_URL=url)
    second = await start(bots, clock, REFEREE_DATABASE_URL=url)  # answers the interactions
    await game_with_deadline(discord, "table-1", duration="48h")
    await game_with_deadline(discord, "general", duration="48h")
    await until(lambda: len(dm_titles(discord, "bob")) == 2, "the DMs of alice's rolls")
    for _ in range(8):  # 8 × 12 h: 50 %, 100 % and 200 % of both games, both processes awake
        clock.advance(hours=12)
        await settle(0.6)
    expected = ("Reminder: Allied to act (50 %", "missed the deadline", "(200 % of the deadline)")
    for channel in ("table-1", "general"):
        await until(lambda c=channel: len(reminders(discord, c)) >= 3, f"{channel}'s reminders")
    await settle()
    for channel in ("table-1", "general"):
        assert titles_like(reminders(discord, channel), *expected), reminders(discord, channel)
    assert len(dm_titles(discord, "bob")) == 2 + 6
    await stop(second)
    await stop(first)


async def test_a_forfeit_claim_is_ruled_by_a_referee_without_a_seat(
    fake_discord: FakeDiscord, bots: BotLauncher, tmp_path: Path
) -> None:
    """bob is silent past the organiser's three days: alice is told and claims; alice, a player,
    cannot rule on her own claim (one sentence, only to her); ref, who holds no seat, grants it,
    and the game's status says who won by forfeit."""
    discord, clock = fake_discord, Clock(tmp_path / "now")
    bot = await start(bots, clock)
    await game_with_deadline(discord, "table-1", duration="48h", silence="3d")
    clock.advance(days=3)
    await until(
        lambda: any("may claim a forfeit" in str(m) for m in discord.channel_messages("table-1")),
        "the notice that alice may claim a forfeit",
    )
    claim = await answer(
        discord, ["game", "deadline", "claim"], {"reason": "three days"}, channel="table-1"
    )
    found = re.search(r"/game rule entry:(\d+)", claim.embeds[0]["title"])
    assert found is not None and "alice claims a forfeit" in claim.embeds[0]["title"], claim.data
    rule = {"entry": int(found[1]), "decision": "grant", "reason": "three days without a word"}
    refused = await answer(discord, ["game", "rule"], rule, channel="table-1")
    assert refused.ephemeral and "Only a referee without a seat" in str(refused.data)
    granted = await answer(discord, ["game", "rule"], rule, user="ref", channel="table-1")
    assert not granted.ephemeral, granted.data
    assert "granted — Axis wins by forfeit" in granted.embeds[0]["title"], granted.data
    status = await answer(discord, ["game", "status"], {}, user="bob", channel="table-1")
    assert "Axis wins by forfeit: bob (Allied) was silent" in str(status.embeds[0]["fields"])
    await stop(bot)
