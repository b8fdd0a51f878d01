"""Several processes, one PostgreSQL database, one game: the real bot on the fake Discord and two
``referee console`` processes (``--guild``/``--channel`` name the bot's channel) roll in the same
game at the same time. Afterwards every roll is in the log once, the dice are numbered once, and
the exported chain verifies — the database serialised the writers, not an in-process lock.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

from bot.log.export import export_game
from bot.log.verify import verify_lines
from bot.service.systems import InstalledSystems
from bot.storage import open_repository
from tests.e2e.conftest import ROOT, BotLauncher
from tests.fake_discord import FakeDiscord, Reply
from tests.pgserver import PostgresServer

pytestmark = [pytest.mark.e2e]

TIMEOUT = 60.0
BOT_ROLLS = 20
CONSOLE_ROLLS = 100


async def answer(discord: FakeDiscord, path: list[str], options: dict[str, str]) -> Reply:
    sent = await discord.slash(path, options, user="alice", channel="table-1")
    reply = await sent.next_reply(TIMEOUT)
    if reply.type == 5:  # deferred: the result follows
        reply = await sent.next_reply(TIMEOUT)
    return reply


async def console(url: str, guild: str, channel: str, name: str, script: Path) -> int:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("REFEREE_")}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "console", str(script), "--db", url,
        "--guild", guild, "--channel", channel, "--as", name, "--admin", name,
        cwd=ROOT, env=environment, stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    _, errors = await asyncio.wait_for(process.communicate(), 240)
    assert process.returncode == 0, errors.decode()
    return process.returncode


async def test_a_bot_and_two_consoles_roll_in_one_postgresql_game_at_once(
    fake_discord: FakeDiscord,
    bots: BotLauncher,
    postgres_server: PostgresServer,
    tmp_path: Path,
) -> None:
    url = await postgres_server.create_database()
    bot = await bots.start_ready(["-m", "bot", "run"], REFEREE_DATABASE_URL=url)
    new = await answer(fake_discord, ["game", "new"], {"system": "asl"})
    assert "New asl game" in new.embeds[0]["title"], new.data
    guild, channel = fake_discord.guild_id, fake_discord.channels["table-1"]["id"]
    scripts = []
    for name in ("carol", "dave"):
        script = tmp_path / f"{name}.txt"
        script.write_text(f"/roll dice:2d6 reason:{name}\n" * CONSOLE_ROLLS)
        scripts.append((name, script))

    consoles = [asyncio.ensure_future(console(url, guild, channel, n, s)) for n, s in scripts]
    replies: list[Reply] = []
    while len(replies) < BOT_ROLLS or not all(c.done() for c in consoles):
        # the bot keeps rolling while the consoles roll (and at least BOT_ROLLS times)
        n = len(replies)
        replies.append(await answer(fake_discord, ["roll"], {"dice": "DR", "reason": f"bot {n}"}))
    await asyncio.gather(*consoles)
    assert all(r.embeds for r in replies), [r.data for r in replies if not r.embeds]

    repo = await open_repository(url)
    try:
        row = await repo.active_game(int(guild), int(channel))
        assert row is not None
        entries = await repo.entries(row.id)
        reasons = [e.data().get("reason") for e in entries]
        assert row.head_seq == len(entries) == 1 + len(replies) + 2 * CONSOLE_ROLLS
        assert reasons.count("carol") == reasons.count("dave") == CONSOLE_ROLLS
        assert sorted(r for r in reasons if r and r.startswith("bot ")) == sorted(
            f"bot {i}" for i in range(len(replies))
        )
        for name in ("carol", "dave"):  # the writers really took turns: interleaved entries
            mine = [i for i, r in enumerate(reasons) if r == name]
            between = reasons[mine[0] : mine[-1]]
            # another writer (the bot, or the other console) wrote while this console rolled;
            # a console's rolls are quick (one round trip each), so which one varies with load
            assert any(r != name for r in between), reasons
        dice = [d["seq"] for e in entries for d in e.data()["dice"]]
        assert dice == list(range(1, row.next_die))
        report = verify_lines((await export_game(repo, row)).splitlines(), InstalledSystems())
        assert report.ok, report.message
    finally:
        await repo.close()
    assert "Traceback" not in bot.output(), bot.output()


async def test_two_sharded_bot_processes_and_a_console_share_one_postgresql_game(
    fake_discord: FakeDiscord,
    bots: BotLauncher,
    postgres_server: PostgresServer,
    tmp_path: Path,
) -> None:
    """``referee run --shards 0 --shard-count 2`` and ``--shards 1``: each process identifies as
    its shard, only shard 0's syncs the commands, and both write the same game on one database
    (the fake Discord sends each interaction to the newest connection: first to shard 0's
    process, then to shard 1's, which loads the game from the database), a console beside them."""
    url = await postgres_server.create_database()
    run = ["-m", "bot", "run", "--shard-count", "2", "--shards"]
    first = await bots.start_ready([*run, "0"], REFEREE_DATABASE_URL=url)
    assert fake_discord.identify is not None and fake_discord.identify["shard"] == [0, 2]
    syncs = len(fake_discord.sync_requests)
    assert syncs == 1
    new = await answer(fake_discord, ["game", "new"], {"system": "asl"})
    assert "New asl game" in new.embeds[0]["title"], new.data
    for i in range(5):
        assert (await answer(fake_discord, ["roll"], {"dice": "DR", "reason": f"s0 {i}"})).embeds
    second = await bots.start_ready([*run, "1"], REFEREE_DATABASE_URL=url)
    assert fake_discord.identify["shard"] == [1, 2]
    assert len(fake_discord.sync_requests) == syncs  # shard 1's process does not sync
    guild, channel = fake_discord.guild_id, fake_discord.channels["table-1"]["id"]
    script = tmp_path / "erin.txt"
    script.write_text("/roll dice:2d6 reason:erin\n" * CONSOLE_ROLLS)
    beside = asyncio.ensure_future(console(url, guild, channel, "erin", script))
    for i in range(BOT_ROLLS):
        assert (await answer(fake_discord, ["roll"], {"dice": "DR", "reason": f"s1 {i}"})).embeds
    await beside
    repo = await open_repository(url)
    try:
        row = await repo.active_game(int(guild), int(channel))
        assert row is not None
        entries = await repo.entries(row.id)
        reasons = [e.data().get("reason") or "" for e in entries]
        assert row.head_seq == len(entries) == 1 + 5 + BOT_ROLLS + CONSOLE_ROLLS
        assert [r for r in reasons if r.startswith("s0 ")] == [f"s0 {i}" for i in range(5)]
        assert [r for r in reasons if r.startswith("s1 ")] == [f"s1 {i}" for i in range(BOT_ROLLS)]
        assert reasons.count("erin") == CONSOLE_ROLLS
        report = verify_lines((await export_game(repo, row)).splitlines(), InstalledSystems())
        assert report.ok, report.message
    finally:
        await repo.close()
    for bot in (first, second):
        assert "Traceback" not in bot.output(), bot.output()
    assert "Running shards [1] of 2" in second.output()
