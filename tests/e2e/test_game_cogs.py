"""The real bot (``python -m bot run``, as ``referee run``) plays every system through the fake
Discord, with a temporary database and real, secret dice.

Outcomes are made certain by the inputs (a weapon printed B2 malfunctions on every DR) or the
assertions hold for every roll (a result is posted with its sequence number and rule citations;
exactly one log entry is added). One bot serves the module; each test plays in its own channel
or ends the game there first.
"""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from tests.e2e.conftest import ROOT, BotLauncher, BotProcess
from tests.fake_discord import FakeDiscord, Reply, SentInteraction

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]

REFEREE_RUN = ["-m", "bot", "run"]
TIMEOUT = 30.0
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
COMMITMENT = re.compile(r"commitment [0-9a-f]{64}")


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def table(
    tmp_path_factory: pytest.TempPathFactory,
) -> AsyncIterator[tuple[FakeDiscord, BotProcess]]:
    async with FakeDiscord() as discord:
        launcher = BotLauncher(discord, tmp_path_factory.mktemp("referee"))
        bot = await launcher.start_ready(REFEREE_RUN)
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
    channel: str = "table-1",
) -> Reply:
    """Send a slash command and return the bot's answer (the follow-up after a defer)."""
    sent = await discord.slash(path, options or {}, user=user, channel=channel)
    reply = await sent.next_reply(TIMEOUT)
    if reply.type == 5:
        reply = await sent.next_reply(TIMEOUT)
    return reply


async def fresh_game(discord: FakeDiscord, channel: str, system: str, **options: Any) -> Reply:
    """End the channel's game if there is one (as the server owner), then start a new one."""
    await answer(discord, ["game", "end"], user="owner", channel=channel)
    reply = await answer(discord, ["game", "new"], {"system": system, **options}, channel=channel)
    assert f"New {system} game" in reply.embeds[0]["title"], reply.data
    return reply


async def head(discord: FakeDiscord, channel: str) -> int:
    """The sequence number of the game's last log entry (from ``/game status``)."""
    reply = await answer(discord, ["game", "status"], channel=channel)
    fields = {f["name"]: f["value"] for f in reply.embeds[0]["fields"]}
    match = re.match(r"#(\d+) ", fields["Log head"])
    assert match, fields
    return int(match.group(1))


async def click_result(sent: SentInteraction) -> Reply:
    """The result a successful click posts, after the click's own message was updated (its
    button disabled): the update is a callback of type 7 (or 6 and an edit when slow)."""
    while True:
        reply = await sent.next_reply(TIMEOUT)
        if reply.kind == "followup" or (reply.kind == "callback" and reply.type == 4):
            return reply


def embed(reply: Reply) -> dict[str, Any]:
    assert reply.embeds, reply.data
    found: dict[str, Any] = reply.embeds[0]
    return found


def fields(reply: Reply) -> dict[str, str]:
    return {f["name"]: f["value"] for f in embed(reply).get("fields", [])}


def assert_logged_result(reply: Reply, seq: int) -> None:
    """A posted result: public, its entry's number first, rules cited, dice and commitment."""
    assert not reply.ephemeral
    assert embed(reply)["title"].startswith(f"#{seq} "), embed(reply)
    assert "Rules" in fields(reply)
    footer = embed(reply)["footer"]["text"]
    assert re.search(r"dice #\d+", footer) and COMMITMENT.search(footer), footer


async def test_a_short_asl_game_from_new_to_export(
    table: tuple[FakeDiscord, BotProcess], tmp_path: Path
) -> None:
    discord, _ = table
    new = await fresh_game(discord, "table-1", "asl", title="Hill 621")
    assert COMMITMENT.search(embed(new)["footer"]["text"])
    start = await head(discord, "table-1")
    steps: list[tuple[list[str], dict[str, Any], str]] = [
        (["game", "seat"], {"side": "Axis"}, "alice"),
        (["game", "seat"], {"side": "Allied"}, "bob"),
        (["asl", "unit", "add"], {"name": "A1", "side": "Axis", "kind": "squad"}, "alice"),
        (
            ["asl", "weapon", "add"],
            {
                "name": "MMG",
                "side": "Axis",
                "kind": "sw_mg",
                "b": 2,
                "rof": 2,
                "repair": 3,
                "owner": "A1",
            },
            "alice",
        ),
        # the first Player Turn concerns both sides: alice, who plays Axis, proposes it
        (["asl", "phase"], {"phase": "pfph", "side": "Axis"}, "alice"),
        (["game", "confirm"], {"entry": start + 5}, "bob"),
    ]
    for offset, (path, options, user) in enumerate(steps, start=1):
        reply = await answer(discord, path, options, user=user)
        assert embed(reply)["title"].startswith(f"#{start + offset} "), reply.data

    fire = await answer(discord, ["asl", "fire"], {"weapons": "MMG"})
    assert_logged_result(fire, start + 7)
    assert fields(fire)["Result"].startswith("**MMG**: malfunctioned")
    assert "`A9.7` Original DR" in fields(fire)["Rules"]
    assert re.search(
        r"colored \*\*\d\*\*, white \*\*\d\*\* · Original DR \d+ · Final DR",
        embed(fire)["description"],
    )
    (repair_id,) = fire.custom_ids  # the entry it sits under; the weapon is read from the log
    assert re.fullmatch(rf"entry:[0-9a-f]{{16}}:{start + 7}:repair\.0", repair_id), repair_id
    assert fire.message is not None

    # the rest of the Axis Player Turn, then the Allied RPh (A3): MPh, DFPh, AFPh, RtPh, CCPh, RPh
    for _ in range(6):
        await answer(discord, ["asl", "phase"], {})
    # the Allied player may not repair the Axis MG: refused, only to him, nothing logged
    refused = await (
        await discord.click(repair_id, fire.message["id"], user="bob", channel="table-1")
    ).next_reply(TIMEOUT)
    assert refused.ephemeral and "Axis" in refused.content, refused.data
    assert await head(discord, "table-1") == start + 13

    clicked = await discord.click(repair_id, fire.message["id"], user="alice", channel="table-1")
    repair = await click_result(clicked)
    assert_logged_result(repair, start + 14)
    assert embed(repair)["title"].endswith("/asl repair — Axis")
    assert "Repair dr" in embed(repair)["description"]
    assert "A9.72" in fields(repair)["Rules"] or "FB16" in fields(repair)["Rules"]

    export = await answer(discord, ["game", "export"])
    assert not export.ephemeral
    (upload,) = export.files
    assert upload.filename.endswith(".jsonl")
    lines = [json.loads(line) for line in upload.data.decode().splitlines()]
    assert lines[0]["format"] == "referee-game-log"
    assert [entry["seq"] for entry in lines[1:]] == list(range(1, start + 15))
    exported = tmp_path / upload.filename
    exported.write_bytes(upload.data)
    verify = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "bot", "verify", str(exported)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert verify.returncode == 0, verify.stdout + verify.stderr


async def test_roll_again_reruns_a_fire_whose_mg_kept_its_rof(
    table: tuple[FakeDiscord, BotProcess],
) -> None:
    discord, _ = table
    await fresh_game(discord, "table-1", "asl")  # alice referees without a seat: every side
    await answer(discord, ["asl", "phase"], {"phase": "pfph", "side": "Axis"})
    # ROF 4 is kept on a colored die of 1-4: some fire out of twenty keeps it
    for attempt in range(20):
        name = f"HMG{attempt}"
        squad = {"name": f"S{attempt}", "side": "Axis", "kind": "squad"}
        await answer(discord, ["asl", "unit", "add"], squad)  # A9.1: each HMG has its possessor
        options = {"name": name, "side": "Axis", "kind": "sw_mg", "rof": 4, "owner": f"S{attempt}"}
        await answer(discord, ["asl", "weapon", "add"], options)
        fire = await answer(discord, ["asl", "fire"], {"weapons": name})
        kept = f"**ROF ({name})**: kept" in fields(fire)["Result"]
        again = [c for c in fire.custom_ids if c.endswith(":again")]
        assert bool(again) == kept, fire.data
        if kept:
            break
    else:
        pytest.fail("no ROF 4 fire kept its ROF in twenty tries")
    before = await head(discord, "table-1")
    assert fire.message is not None
    sent = await discord.click(again[0], fire.message["id"], channel="table-1")
    second = await click_result(sent)
    assert_logged_result(second, before + 1)
    assert embed(second)["title"].endswith("/asl fire — Axis")
    assert f"**{name}**" in fields(second)["Result"] or f"({name})" in fields(second)["Result"]


async def test_preview_answers_the_asker_with_exact_odds_and_rolls_nothing(
    table: tuple[FakeDiscord, BotProcess],
) -> None:
    discord, _ = table
    await fresh_game(discord, "table-1", "asl")  # alice referees without a seat: every side
    await answer(discord, ["asl", "unit", "add"], {"name": "A", "side": "Axis", "kind": "squad"})
    options = {"name": "LMG", "side": "Axis", "kind": "sw_mg", "b": 11, "owner": "A"}
    await answer(discord, ["asl", "weapon", "add"], options)
    await answer(discord, ["asl", "phase"], {"phase": "pfph", "side": "Axis"})
    before = await head(discord, "table-1")
    reply = await answer(discord, ["asl", "fire"], {"weapons": "LMG", "preview": True})
    assert reply.ephemeral
    assert fields(reply)["Each weapon and unit"].startswith("LMG: fine 91.7% · malfunctioned 8.3%")
    nothing_bad = fields(reply)["Nothing bad happens"]
    assert nothing_bad.startswith("11/12 (91.7%)"), nothing_bad  # DR 11 or 12 breaks it: 3/36
    odds = fields(reply)["Most likely results"]
    assert "1/18 (5.6%) LMG: malfunctioned" in odds, odds  # DR 11 without doubles (A7.9)
    assert "footer" not in embed(reply) or "dice #" not in embed(reply)["footer"]["text"]
    assert await head(discord, "table-1") == before


async def test_a_redelivered_interaction_does_not_roll_twice(
    table: tuple[FakeDiscord, BotProcess],
) -> None:
    discord, _ = table
    await fresh_game(discord, "general", "asl")
    before = await head(discord, "general")
    sent = await discord.slash(["roll"], {"dice": "DR", "reason": "sniper"}, channel="general")
    first = await sent.next_reply(TIMEOUT)
    assert embed(first)["title"].startswith(f"#{before + 1} ")
    refusals = len(discord.refusals)
    await discord.redeliver(sent)
    for _ in range(600):  # the bot's second answer is refused by Discord (already acknowledged)
        if len(discord.refusals) > refusals:
            break
        await asyncio.sleep(0.1)
    assert [code for _, code in discord.refusals[refusals:]] == [40060]
    assert await head(discord, "general") == before + 1
    log = await answer(discord, ["game", "log"], {"last": 50}, channel="general")
    assert sum("/roll" in value for value in fields(log).values()) == 1


async def test_the_bot_asks_the_gateway_for_its_servers_only(
    table: tuple[FakeDiscord, BotProcess],
) -> None:
    """The bot identifies with the guilds intent alone (1 << 0): it answers interactions, which
    come whatever the intents, and reads no message, so Discord sends it no MESSAGE_CREATE (its
    own answers included), reaction, typing or voice event to parse."""
    discord, _ = table
    assert discord.identify is not None
    assert discord.identify["intents"] == 1 << 0


async def test_answers_do_not_ask_discord_to_echo_the_message(
    table: tuple[FakeDiscord, BotProcess],
) -> None:
    """A command's answer and a refusal are posted without ``?with_response`` (Discord answers
    204, discord.py builds no message from an echo); the answer is still a message with its
    buttons, and the interaction counts as answered (its follow-up goes to the webhook)."""
    discord, _ = table
    await fresh_game(discord, "general", "asl")
    rolled = await (await discord.slash(["roll"], {"dice": "DR"}, channel="general")).next_reply()
    assert (rolled.kind, rolled.type, rolled.echoed) == ("callback", 4, False), rolled
    assert rolled.message is not None and embed(rolled)["title"].startswith("#")
    bad = await (await discord.slash(["roll"], {"dice": "banana"}, channel="general")).next_reply()
    assert (bad.kind, bad.type, bad.echoed, bad.ephemeral) == ("callback", 4, False, True), bad
    for _ in range(25):  # a page of the log with "Older entries" (an ephemeral answer's button)
        await answer(discord, ["roll"], {"dice": "1d6"}, channel="general")
    page = await (await discord.slash(["game", "log"], {"last": 5}, channel="general")).next_reply()
    assert (page.type, page.echoed, page.ephemeral) == (4, False, True), page
    (older,) = page.custom_ids
    assert page.message is not None
    clicked = await discord.click(older, page.message["id"], channel="general")
    rest = await clicked.next_reply(TIMEOUT)
    assert (rest.kind, rest.type, rest.echoed, rest.ephemeral) == ("callback", 4, False, True)
    assert any(name.startswith("#") for name in fields(rest)), rest.data
    await clicked.no_reply(0.5)
    # a click that logs an entry: its message's buttons are replaced (type 7, no echo), then
    # the result follows (the interaction counts as answered)
    await answer(discord, ["game", "seat"], {"side": "Axis"}, channel="general")
    await answer(discord, ["game", "seat"], {"side": "Allied"}, user="bob", channel="general")
    level = {"side": "Axis", "level": 3}
    proposal = await answer(discord, ["asl", "level"], level, user="bob", channel="general")
    _, decline = proposal.custom_ids
    assert proposal.message is not None
    sent = await discord.click(decline, proposal.message["id"], user="bob", channel="general")
    update = await sent.next_reply(TIMEOUT)
    # (type 6 with the echo: discord.py's defer, when the service took over DEFER_AFTER)
    assert (update.kind, update.type, update.echoed) in (
        ("callback", 7, False),
        ("callback", 6, True),
    )
    withdrawn = await click_result(sent)
    assert withdrawn.kind == "followup" and embed(withdrawn)["title"].startswith("#")
    buttons = discord.messages[proposal.message["id"]]["components"][0]["components"]
    assert [button["disabled"] for button in buttons] == [True, True], buttons


async def test_permission_and_bad_input_refusals_are_one_private_sentence(
    table: tuple[FakeDiscord, BotProcess],
) -> None:
    discord, _ = table
    await fresh_game(discord, "general", "asl")
    before = await head(discord, "general")
    not_referee = await answer(discord, ["game", "end"], user="bob", channel="general")
    assert not_referee.ephemeral and not not_referee.embeds
    assert "referee" in not_referee.content.lower(), not_referee.content
    bad = await answer(discord, ["roll"], {"dice": "banana"}, channel="general")
    assert bad.ephemeral and not bad.embeds and bad.content.count("\n") == 0
    assert bad.content, bad.data
    unknown = await answer(discord, ["asl", "repair"], {"weapon": "Nothing"}, channel="general")
    assert unknown.ephemeral and "Nothing" in unknown.content, unknown.content
    wrong_system = await answer(discord, ["ocs", "cleanup"], {"side": "Axis"}, channel="general")
    assert wrong_system.ephemeral and wrong_system.content, wrong_system.data
    # a member of the Referee role may end it
    ended = await answer(discord, ["game", "end"], user="ref", channel="general")
    assert embed(ended)["title"].startswith(f"#{before + 1} ")


async def test_autocomplete_offers_the_channel_games_names(
    table: tuple[FakeDiscord, BotProcess],
) -> None:
    discord, _ = table
    await fresh_game(discord, "general", "asl")
    await answer(discord, ["game", "seat"], {"side": "Axis"}, channel="general")
    for name in ("MMG", "HMG", "LMG"):
        options = {"name": name, "side": "Axis", "kind": "sw_mg"}
        await answer(discord, ["asl", "weapon", "add"], options, channel="general")
    sent = await discord.autocomplete(
        ["asl", "fire"], {"weapons": "LMG, h"}, focused="weapons", channel="general"
    )
    reply = await sent.next_reply(TIMEOUT)
    assert reply.type == 8
    assert [c["value"] for c in reply.choices] == ["LMG, HMG"]
    sides = await discord.autocomplete(
        ["game", "seat"], {"side": "al"}, focused="side", channel="general"
    )
    assert [c["value"] for c in (await sides.next_reply(TIMEOUT)).choices] == ["Allied"]
    nothing = await discord.autocomplete(
        ["asl", "repair"], {"weapon": ""}, focused="weapon", channel="game-thread"
    )
    assert (await nothing.next_reply(TIMEOUT)).choices == []


async def test_ocs_supply_sequence(table: tuple[FakeDiscord, BotProcess]) -> None:
    discord, _ = table
    await fresh_game(discord, "game-thread", "ocs", sides="Axis,Soviet")
    start = await head(discord, "game-thread")
    channel = {"channel": "game-thread"}
    await answer(discord, ["game", "seat"], {"side": "Axis"}, **channel)
    dump = await answer(
        discord,
        ["ocs", "dump", "add"],
        {"side": "Axis", "hex": "12.05", "amount": "4 SP"},
        **channel,
    )
    assert "**Dump 12.05**: 4 SP" in fields(dump)["Result"]
    for name in ("1/5 Pz", "2/5 Pz"):
        unit = {"name": name, "side": "Axis", "steps": 2, "re": "1", "ar": 4, "hex": "12.05"}
        await answer(discord, ["ocs", "unit", "add"], unit, **channel)
    attack = await answer(
        discord, ["ocs", "attack"], {"attackers": "1/5 Pz, 2/5 Pz", "dump": "12.05"}, **channel
    )
    assert embed(attack)["title"] == f"#{start + 5} /ocs attack — Axis"
    assert "**1/5 Pz**: paid 2 T" in fields(attack)["Result"]
    assert "`OCS 12.4`" in fields(attack)["Rules"]
    listing = await answer(discord, ["ocs", "dump", "list"], {"side": "Axis"}, **channel)
    assert listing.ephemeral and "3 SP" in fields(listing)["Rules"], listing.data
    blow = await answer(
        discord, ["ocs", "blow"], {"side": "Axis", "dump": "12.05", "amount": "1 SP"}, **channel
    )
    assert_logged_result(blow, start + 6)
    assert "Dump Blowing dr" in embed(blow)["description"]
    assert await head(discord, "game-thread") == start + 6


async def test_cwb_fire_and_resupply(table: tuple[FakeDiscord, BotProcess]) -> None:
    discord, _ = table
    await fresh_game(discord, "table-1", "cwb")
    start = await head(discord, "table-1")
    await answer(discord, ["game", "seat"], {"side": "Union"})
    await answer(discord, ["cwb", "params"], {"ammo-loss": 30}, user="owner")
    await answer(
        discord, ["cwb", "map"], {"columns": 20, "rows": 20, "sources": "1/1"}, user="owner"
    )
    unit = {"name": "1st Minnesota", "side": "Union", "men": 262, "hex": "5,5"}
    await answer(discord, ["cwb", "unit", "add"], unit)
    wagon = {"name": "Wagon A", "side": "Union", "strength": 40, "hex": "5,6"}
    await answer(discord, ["cwb", "wagon", "add"], wagon)
    fire = await answer(discord, ["cwb", "fire"], {"unit": "1st Minnesota", "mode": "defensive"})
    assert_logged_result(fire, start + 6)
    assert embed(fire)["color"] == 0x2B4C8C  # the Union's blue
    resupply = await answer(
        discord, ["cwb", "resupply"], {"unit": "1st Minnesota", "wagon": "Wagon A"}
    )
    assert embed(resupply)["title"] == f"#{start + 7} /cwb resupply — Union"
    assert "Rules" in fields(resupply)


async def test_stats_posts_a_histogram_and_a_fairness_test_with_its_sample_size(
    table: tuple[FakeDiscord, BotProcess],
) -> None:
    discord, _ = table
    await fresh_game(discord, "general", "asl")
    for _ in range(3):
        await answer(discord, ["roll"], {"dice": "DR"}, channel="general")
    reply = await answer(discord, ["stats"], {"scope": "game"}, channel="general")
    assert reply.ephemeral
    (png,) = reply.files
    assert png.filename == "stats-d6.png" and png.data.startswith(PNG_MAGIC)
    assert fields(reply)["d6: 6 dice"].endswith(
        "6 rolls are too few for a fairness test (need at least 5 expected per result)."
    )
    assert embed(reply)["image"]["url"] == "attachment://stats-d6.png"


async def test_stats_of_one_player_counts_only_their_dice(
    table: tuple[FakeDiscord, BotProcess],
) -> None:
    discord, _ = table
    await fresh_game(discord, "general", "asl")
    nothing = await answer(
        discord, ["stats"], {"player": "bob", "scope": "game"}, channel="general"
    )
    assert embed(nothing)["description"] == "No dice rolled yet."
    assert not nothing.files
    await answer(discord, ["game", "seat"], {"side": "Allied"}, channel="general", user="bob")
    await answer(discord, ["roll"], {"dice": "2d6"}, channel="general", user="bob")
    await answer(discord, ["roll"], {"dice": "dr"}, channel="general")
    reply = await answer(
        discord, ["stats"], {"player": "bob", "scope": "game"}, user="alice", channel="general"
    )
    assert embed(reply)["title"] == "Dice of bob in this game"
    assert list(fields(reply)) == ["d6: 2 dice"]


async def test_a_set_up_proposal_is_confirmed_by_the_other_player_with_a_button(
    table: tuple[FakeDiscord, BotProcess],
) -> None:
    discord, _ = table
    channel = "game-thread"
    await answer(discord, ["game", "end"], user="owner", channel=channel)
    await answer(discord, ["game", "new"], {"system": "asl"}, user="ref", channel=channel)
    await answer(discord, ["game", "seat"], {"side": "Axis"}, user="alice", channel=channel)
    await answer(discord, ["game", "seat"], {"side": "Allied"}, user="bob", channel=channel)
    options = {"side": "Axis", "level": 3}
    proposal = await answer(discord, ["asl", "level"], options, user="bob", channel=channel)
    seq = await head(discord, channel)
    assert embed(proposal)["title"].startswith(f"#{seq} bob proposes /asl level"), proposal.data
    confirm, decline = proposal.custom_ids
    assert confirm == f'act:game.confirm:{{"entry":{seq}}}'
    assert decline == f'act:game.decline:{{"entry":{seq}}}'
    assert proposal.message is not None
    # the proposer cannot confirm it; the other side's player can, with the button
    mine = await discord.click(confirm, proposal.message["id"], user="bob", channel=channel)
    own = await mine.next_reply(TIMEOUT)
    assert own.ephemeral and "other side" in own.content, own.data
    sent = await discord.click(confirm, proposal.message["id"], user="alice", channel=channel)
    done = await click_result(sent)
    assert embed(done)["title"] == f"#{seq + 1} /asl level", done.data
    used, settled = discord.messages[proposal.message["id"]]["components"][0]["components"]
    assert used["disabled"] and used["label"] == f"Confirm #{seq} ✓ #{seq + 1}"
    assert settled["disabled"] and settled["label"] == f"Decline #{seq}"  # nothing to decline
    status = await answer(discord, ["game", "status"], channel=channel)
    assert "Axis: Ammunition Shortage level 3" in fields(status)["Table"]
    # at a glance: hashes shortened, no field that says nothing (no seed phrase, no void yet)
    assert re.fullmatch(r"#\d+ [0-9a-f]{12}…", fields(status)["Log head"]), fields(status)
    assert "Players' seeds" not in fields(status) and "Voids by" not in fields(status)
    log = await answer(discord, ["game", "log"], {"last": 1}, channel=channel)
    assert fields(log)[f"#{seq + 1}"].startswith(
        f"alice: /asl level → Axis: Ammunition Shortage level 3 (proposal #{seq} confirmed)"
    ), fields(log)
