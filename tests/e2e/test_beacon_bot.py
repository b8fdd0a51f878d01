"""The real bot (``python -m bot run``) plays a beacon game through the fake Discord, with a
local drand chain's relay on 127.0.0.1 (a round every second) that the test can take down.

The declaration is the interaction's answer, public, before its round is published; the result
follows as a follow-up; with the relay down the player is told in one sentence that it stays
pending, and the result follows when the relay is back. The export verifies with
``referee verify`` (BLS signatures included) and the standard-library verifier.
"""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from bot.dice.beacon.chain import round_time
from bot.dice.beacon.local import LocalChain, LocalRelay
from tests.e2e.conftest import ROOT, BotLauncher, BotProcess
from tests.fake_discord import FakeDiscord, Reply, SentInteraction

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]

TIMEOUT = 30.0
DECLARED = re.compile(r"declared: waiting for beacon round (\d+)")


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def table(
    tmp_path_factory: pytest.TempPathFactory,
) -> AsyncIterator[tuple[FakeDiscord, LocalRelay, BotProcess]]:
    relay = LocalRelay(LocalChain.new(period=1))
    await relay.start()
    workdir = tmp_path_factory.mktemp("beacon-bot")
    chain_file = workdir / "chain.json"
    chain_file.write_text(json.dumps({**relay.info.to_json(), "relay": relay.url}))
    async with FakeDiscord() as discord:
        launcher = BotLauncher(discord, workdir)
        bot = await launcher.start_ready(
            ["-m", "bot", "run"],
            REFEREE_BEACON_CHAIN=str(chain_file),
            REFEREE_BEACON_TIMEOUT="3",  # the relay answers in milliseconds, seconds under load
            REFEREE_DICE="beacon",  # the operator's default for /game new
        )
        yield discord, relay, bot
        code = await bot.stop()
        assert code == 0, bot.output()
        assert "Traceback" not in bot.output(), bot.output()
    await relay.stop()


async def send(
    discord: FakeDiscord, path: list[str], options: Mapping[str, Any] | None = None,
    *, user: str = "alice",
) -> SentInteraction:  # fmt: skip
    return await discord.slash(path, options or {}, user=user, channel="table-1")


async def answer(
    discord: FakeDiscord, path: list[str], options: Mapping[str, Any] | None = None,
    *, user: str = "alice",
) -> Reply:  # fmt: skip
    sent = await send(discord, path, options, user=user)
    reply = await sent.next_reply(TIMEOUT)
    if reply.type == 5:
        reply = await sent.next_reply(TIMEOUT)
    return reply


async def test_a_beacon_game_declares_publicly_then_answers_with_a_follow_up(
    table: tuple[FakeDiscord, LocalRelay, BotProcess], tmp_path: Path
) -> None:
    discord, relay, _ = table
    new = await answer(discord, ["game", "new"], {"system": "asl", "title": "Beacon"})
    assert "New asl game" in new.text, new.data
    steps: list[tuple[list[str], dict[str, Any], str]] = [
        (["game", "seat"], {"side": "Axis"}, "alice"),
        (["game", "seat"], {"side": "Allied"}, "bob"),
        (["asl", "unit", "add"], {"name": "A1", "side": "Axis", "kind": "squad"}, "alice"),
        (["asl", "weapon", "add"], {"name": "MMG", "side": "Axis", "kind": "sw_mg", "b": 2,
                                    "rof": 2, "repair": 3, "owner": "A1"}, "alice"),
        (["asl", "phase"], {"phase": "pfph", "side": "Axis"}, "alice"),  # proposed: both sides
        (["game", "confirm"], {"entry": 6}, "bob"),
    ]  # fmt: skip
    for path, options, user in steps:
        reply = await answer(discord, path, options, user=user)
        assert "declared" not in reply.text, reply.data  # no dice: logged at once
    started = time.time()
    fire = await send(discord, ["asl", "fire"], {"weapons": "MMG"})
    declared = await fire.next_reply(TIMEOUT)
    shown = time.time()
    assert declared.kind == "callback" and not declared.ephemeral, declared.data
    match = DECLARED.search(declared.text)
    assert match, declared.text
    r = int(match.group(1))
    # the declaration, its entry's hash and R are in the channel before R is published
    assert shown < round_time(relay.info, r)
    assert re.search(r"entry #\d+, hash [0-9a-f]{64}", declared.text), declared.text
    result = await fire.next_reply(TIMEOUT)
    assert result.kind == "followup" and f"(beacon round {r})" in result.text, result.data
    assert "malfunctioned" in result.text  # B2: every DR of 2 or more breaks it
    assert time.time() - started < 20  # the round (1.5 s at most), then seconds under load
    roll = await send(discord, ["roll"], {"dice": "DR", "reason": "Morale"}, user="bob")
    assert DECLARED.search((await roll.next_reply(TIMEOUT)).text)
    rolled = await roll.next_reply(TIMEOUT)
    assert "beacon round" in rolled.text and "Total" in rolled.text, rolled.data

    proposed = await answer(discord, ["game", "end"])  # alice plays: bob confirms her end
    seq = int(proposed.embeds[0]["title"].split()[0].removeprefix("#"))
    end = await answer(discord, ["game", "confirm"], {"entry": seq}, user="bob")
    assert "over" in end.text, end.data
    export = await answer(discord, ["game", "export"])
    (upload,) = export.files
    exported = tmp_path / upload.filename
    exported.write_bytes(upload.data)
    kinds = [json.loads(line).get("kind") for line in upload.data.decode().splitlines()[1:]]
    assert kinds.count("declared") == kinds.count("resolved") == 2
    for argv in (["-m", "bot", "verify"], ["-I", str(ROOT / "bot" / "log" / "verify_dice.py")]):
        checked = await asyncio.to_thread(
            subprocess.run, [sys.executable, *argv, str(exported)], cwd=ROOT,
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert checked.returncode == 0, checked.stdout + checked.stderr
    assert (
        "beacon signatures checked: 2" in checked.stdout or "the 2 beacon rounds" in checked.stdout
    )


async def test_relay_down_the_player_is_told_it_stays_pending_and_the_result_follows(
    table: tuple[FakeDiscord, LocalRelay, BotProcess],
) -> None:
    discord, relay, _ = table
    await answer(discord, ["game", "end"], user="owner")
    await answer(discord, ["game", "new"], {"system": "asl", "dice": "beacon"})
    await answer(discord, ["game", "seat"], {"side": "Axis"})
    relay.down = True
    try:
        roll = await send(discord, ["roll"], {"dice": "2d6"})
        declared = await roll.next_reply(TIMEOUT)
        assert DECLARED.search(declared.text), declared.data
        pending = await roll.next_reply(TIMEOUT)
        assert pending.kind == "followup" and "stays pending" in pending.content, pending.data
        # meanwhile nothing else is taken in this game: one sentence, to the asker only
        other = await answer(discord, ["roll"], {"dice": "dr"})
        assert other.ephemeral and "still waiting for beacon round" in other.content, other.data
        status = await answer(discord, ["game", "status"], user="bob")
        assert re.search(r"entry #\d+, round \d+", status.text), status.text
    finally:
        relay.down = False
    late = await roll.next_reply(TIMEOUT)
    assert late.kind == "followup" and "beacon round" in late.text and "Total" in late.text
    status = await answer(discord, ["game", "status"])
    fields = {f["name"]: f["value"] for f in status.embeds[0]["fields"]}
    assert fields["Waiting for its beacon round"] == "nothing", fields
