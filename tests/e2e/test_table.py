"""The table around the rules, on the real bot against the fake Discord: /help by group, the
game log's pages, buttons that go stale, and long button payloads.

One bot serves the module; each test plays in its own channel.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from tests.e2e.conftest import BotProcess, answer, running_bot
from tests.fake_discord import FakeDiscord, Reply, SentInteraction

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]

TIMEOUT = 30.0
CHANNELS = ("help-1", "log-1", "buttons-1", "buttons-2", "roll-1", "notice-1")


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def table(
    tmp_path_factory: pytest.TempPathFactory,
) -> AsyncIterator[tuple[FakeDiscord, BotProcess]]:
    async with running_bot(tmp_path_factory.mktemp("table"), CHANNELS) as running:
        yield running


async def test_help_lists_one_group_whatever_its_case(
    table: tuple[FakeDiscord, BotProcess],
) -> None:
    discord, _ = table
    reply = await answer(discord, ["help"], {"group": "ASL"}, channel="help-1")
    assert reply.ephemeral
    assert reply.embeds[0]["title"] == "/asl commands"
    assert "`/asl fire [" in reply.text and "/game new" not in reply.text


async def test_help_of_everything_fits_discord_and_says_each_option(
    table: tuple[FakeDiscord, BotProcess],
) -> None:
    """Regression: /help alone sent 4,090 + 2,454 characters of embeds in one message, which
    Discord refuses (6,000 at most per message): the user got "something went wrong"."""
    discord, _ = table
    reply = await answer(discord, ["help"], channel="help-1")
    assert reply.kind == "callback" and reply.ephemeral, reply
    assert "`/asl` — Advanced Squad Leader" in reply.text
    assert "↳ params · fire · resupply" in reply.text and "↳ unit: add · set" in reply.text
    assert "↳ deadline: set · defaults · pause · resume · extend · claim" in reply.text
    fire = await answer(discord, ["help"], {"command": "/asl fire"}, channel="help-1")
    lines = fire.embeds[0]["description"].splitlines()
    assert any(line.startswith("**drm** · whole number -") for line in lines), lines
    assert lines[-1] == 'Example: `/asl fire weapons:"HMG, LMG" drm:1`'
    log = await answer(discord, ["help"], {"command": "game log"}, channel="help-1")
    assert log.embeds[0]["description"].splitlines()[2:4] == [
        "**last** · whole number 1–50 · default 10 — How many entries to show",
        "**before** · whole number ≥ 2 · optional — Only entries before this entry number "
        "(older pages)",
    ]
    sent = await discord.autocomplete(["help"], {"command": "asl f"}, focused="command")
    assert [c["value"] for c in (await sent.next_reply(TIMEOUT)).choices] == ["asl fire"]
    synced = [c for scope in discord.commands.values() for c in scope]
    groups = [c["name"] for c in synced if any(o["type"] in (1, 2) for o in c.get("options", []))]
    for name in command_names(synced):  # every command's help fits, and every group's
        shown = await answer(discord, ["help"], {"command": name}, channel="help-1")
        assert shown.embeds and shown.embeds[0]["title"].startswith("/"), (name, shown)
    for name in groups:
        shown = await answer(discord, ["help"], {"group": name}, channel="help-1")
        assert shown.embeds[0]["title"] == f"/{name} commands", shown
    assert {"game", "asl", "ocs", "cwb"} <= set(groups)
    assert discord.refusals == []


def command_names(synced: list[dict[str, Any]]) -> list[str]:
    """Every command of a sync, as /help names it (``asl unit add``)."""
    names = []

    def walk(node: dict[str, Any], prefix: str) -> None:
        subs = [o for o in node.get("options", []) if o["type"] in (1, 2)]
        if not subs:
            names.append(prefix)
        for sub in subs:
            walk(sub, f"{prefix} {sub['name']}")

    for command in synced:
        walk(command, command["name"])
    return names


async def click_result(sent: SentInteraction) -> Reply:
    """The result a successful click posts, after the click's own message was updated."""
    while True:
        reply = await sent.next_reply(TIMEOUT)
        if reply.kind == "followup" or (reply.kind == "callback" and reply.type == 4):
            return reply


async def new_asl_game(discord: FakeDiscord, channel: str) -> None:
    await answer(discord, ["game", "new"], {"system": "asl"}, channel=channel)
    await answer(discord, ["game", "seat"], {"side": "Axis"}, channel=channel)


async def test_the_log_shows_the_newest_entries_and_pages_the_rest(
    table: tuple[FakeDiscord, BotProcess],
) -> None:
    """Regression: last:50 on a 37-entry game showed #1-#25 and dropped the 12 newest."""
    discord, _ = table
    channel = "log-1"
    await new_asl_game(discord, channel)
    for n in range(35):
        await answer(discord, ["roll"], {"dice": "dr", "reason": f"r{n}"}, channel=channel)
    page = await answer(discord, ["game", "log"], {"last": 50}, channel=channel)
    shown = [f["name"] for f in page.embeds[0]["fields"]]
    assert shown == [f"#{n}" for n in range(18, 38)] + ["Older entries"], shown
    assert page.embeds[0]["title"] == "Advanced Squad Leader game: log entries #18–#37 of 37"
    older = page.embeds[0]["fields"][-1]["value"]
    assert older.endswith("/game log last:17 before:18")
    (button,) = page.custom_ids
    assert page.message is not None
    sent = await discord.click(button, page.message["id"], channel=channel)
    rest = await sent.next_reply(TIMEOUT)
    assert rest.ephemeral
    assert [f["name"] for f in rest.embeds[0]["fields"]] == [f"#{n}" for n in range(1, 18)]


async def test_a_used_repair_button_is_disabled_and_names_its_entry(
    table: tuple[FakeDiscord, BotProcess],
) -> None:
    """Regression: "Repair MMG" stayed active and a second click answered "MMG is ok"."""
    discord, _ = table
    channel = "buttons-1"
    # alice referees without a seat: she acts for every side, the first Player Turn too
    await answer(discord, ["game", "new"], {"system": "asl"}, channel=channel)
    squad = {"name": "A", "side": "Axis", "kind": "squad"}
    await answer(discord, ["asl", "unit", "add"], squad, channel=channel)
    weapon = {"name": "MMG", "side": "Axis", "kind": "sw_mg", "b": 2, "repair": 3, "owner": "A"}
    await answer(discord, ["asl", "weapon", "add"], weapon, channel=channel)
    await answer(discord, ["asl", "phase"], {"phase": "pfph", "side": "Axis"}, channel=channel)
    fire = await answer(discord, ["asl", "fire"], {"weapons": "MMG"}, channel=channel)
    (repair_id,) = fire.custom_ids  # B2: every DR malfunctions it
    for _ in range(6):  # MPh, DFPh, AFPh, RtPh, CCPh, then the next Player Turn's RPh (A3)
        await answer(discord, ["asl", "phase"], {}, channel=channel)
    assert fire.message is not None
    sent = await discord.click(repair_id, fire.message["id"], channel=channel)
    update = await sent.next_reply(TIMEOUT)
    result = await click_result(sent)
    seq = int(result.embeds[0]["title"].split()[0].removeprefix("#"))
    assert update.kind in ("callback", "edit")
    (button,) = discord.messages[fire.message["id"]]["components"][0]["components"]
    assert button["disabled"] is True
    assert button["label"] == f"Repair MMG ✓ #{seq}"
    with pytest.raises(AssertionError, match="is disabled"):
        await discord.click(repair_id, fire.message["id"], channel=channel)


async def test_roll_again_survives_options_longer_than_a_custom_id(
    table: tuple[FakeDiscord, BotProcess],
) -> None:
    """Regression: "Roll again" vanished when its options passed 100 characters."""
    discord, _ = table
    channel = "buttons-2"
    # alice referees without a seat: she acts for every side, the first Player Turn too
    await answer(discord, ["game", "new"], {"system": "asl"}, channel=channel)
    await answer(discord, ["asl", "phase"], {"phase": "pfph", "side": "Axis"}, channel=channel)
    for attempt in range(20):  # ROF 4 is kept on a colored die of 1-4
        names = [f"Heavy machine gun {attempt}{letter} of 1st Platoon" for letter in "ABCD"]
        for name in names:
            squad = {"name": f"Squad {name}", "side": "Axis", "kind": "squad"}  # A9.1 possessor
            await answer(discord, ["asl", "unit", "add"], squad, channel=channel)
            weapon = {
                "name": name,
                "side": "Axis",
                "kind": "sw_mg",
                "rof": 4,
                "owner": f"Squad {name}",
            }
            await answer(discord, ["asl", "weapon", "add"], weapon, channel=channel)
        fire = await answer(
            discord, ["asl", "fire"], {"weapons": ", ".join(names)}, channel=channel
        )
        if any(c.endswith(":again") for c in fire.custom_ids):
            break
    else:
        pytest.fail("no ROF 4 fire kept its ROF in twenty tries")
    assert len(", ".join(names)) > 100
    (again,) = [c for c in fire.custom_ids if c.endswith(":again")]
    assert fire.message is not None
    second = await click_result(await discord.click(again, fire.message["id"], channel=channel))
    assert second.embeds[0]["title"].endswith("/asl fire — Axis"), second.data
    assert all(name in second.text for name in names)  # the same weapons, read from the log
    used = [
        b for b in discord.messages[fire.message["id"]]["components"][0]["components"]
        if b["custom_id"] == again
    ]  # fmt: skip
    assert used[0]["disabled"] is True


async def test_roll_takes_a_category_and_a_count_and_shows_each_dr_colored_first(
    table: tuple[FakeDiscord, BotProcess],
) -> None:
    discord, _ = table
    channel = "roll-1"
    await new_asl_game(discord, channel)
    offered = await (
        await discord.autocomplete(["roll"], {"category": "r"}, "category", channel=channel)
    ).next_reply(TIMEOUT)
    assert [c["name"] for c in offered.choices] == ["Rally", "RS"]
    reply = await answer(discord, ["roll"], {"category": "MC", "count": 3}, channel=channel)
    embed = reply.embeds[0]
    assert not reply.ephemeral
    assert embed["title"].split(" ", 1)[1].startswith("MC DR ")
    lines = embed["description"].splitlines()
    assert len(lines) == 3
    assert all(
        re.fullmatch(r"🎲 \*\*MC DR \d+\*\* — colored \*\*\d\*\*, white \*\*\d\*\* · .*", line)
        for line in lines
    ), lines
    fields = {f["name"]: f["value"] for f in embed["fields"]}
    assert len(fields["Totals"].split(", ")) == 3
    stats = await answer(discord, ["stats"], {"category": "MC"}, channel=channel)
    assert stats.embeds[0]["title"] == "MC dice of everyone in this channel"


async def test_a_phase_change_mentions_the_player_whose_turn_it_is(
    table: tuple[FakeDiscord, BotProcess],
) -> None:
    discord, _ = table
    channel = "notice-1"
    await answer(discord, ["game", "new"], {"system": "asl"}, user="ref", channel=channel)
    await answer(discord, ["game", "seat"], {"side": "Axis"}, user="alice", channel=channel)
    await answer(discord, ["game", "seat"], {"side": "Allied"}, user="bob", channel=channel)
    phase = {"side": "Axis", "phase": "rph"}
    reply = await answer(discord, ["asl", "phase"], phase, user="ref", channel=channel)
    alice = discord.people["alice"].id
    assert reply.content == (
        f"<@{alice}>, it is the Axis player's turn: Rally Phase of Axis (Player Turn 1)"
    ), reply.data
    assert [str(u) for u in reply.data["allowed_mentions"]["users"]] == [alice]
    assert reply.data["allowed_mentions"]["parse"] == []
    off = await answer(discord, ["game", "notices"], {"on": False}, user="bob", channel=channel)
    assert "Turn notices off" in off.embeds[0]["title"]
    quiet = await answer(discord, ["asl", "phase"], {}, user="ref", channel=channel)
    assert quiet.content == "" and "Prep Fire Phase" in quiet.text
