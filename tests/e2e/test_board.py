"""The live status board on the real bot against the fake Discord: posted and pinned by
``/game board``, edited in place after each action, unpinned but working without the Pin Messages
permission (saying so once), posted again after someone deleted it, a burst of actions making a
bounded number of edits, and no edits once it is turned off.

One bot serves the module; each test plays in its own channel.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from tests.e2e.conftest import BotProcess, answer, running_bot
from tests.fake_discord import FakeDiscord
from tests.fake_discord import payloads as p

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]

TIMEOUT = 30.0
CHANNELS = ("board-1", "board-2", "board-3", "board-4", "board-5", "board-6")
BOARD_TITLE = "Advanced Squad Leader game: status board"


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def table(
    tmp_path_factory: pytest.TempPathFactory,
) -> AsyncIterator[tuple[FakeDiscord, BotProcess]]:
    async with running_bot(tmp_path_factory.mktemp("board"), CHANNELS) as running:
        yield running


async def new_game(discord: FakeDiscord, channel: str) -> None:
    await answer(discord, ["game", "new"], {"system": "asl"}, user="ref", channel=channel)
    await answer(discord, ["game", "seat"], {"side": "Axis"}, user="alice", channel=channel)
    await answer(discord, ["game", "seat"], {"side": "Allied"}, user="bob", channel=channel)


def field(message: dict[str, Any], name: str) -> str:
    (embed,) = message["embeds"]
    return next((f["value"] for f in embed.get("fields", []) if f["name"] == name), "")


async def test_the_board_is_posted_pinned_and_edited_after_an_action(
    table: tuple[FakeDiscord, BotProcess],
) -> None:
    discord, _ = table
    channel = "board-1"
    await new_game(discord, channel)
    reply = await answer(discord, ["game", "board"], {}, user="bob", channel=channel)
    assert reply.ephemeral
    (board,) = discord.channel_messages(channel)
    assert reply.content.startswith("Status board posted and pinned") or (
        reply.text.startswith("Status board posted and pinned")
    ), reply.data
    # the link to the board is in a field, where Discord makes it clickable (not in the title)
    (embed,) = reply.embeds
    assert "discord.com/channels/" not in embed["title"], embed
    link = next(f["value"] for f in embed["fields"] if f["name"] == "Board")
    assert link.endswith(f"/{board['channel_id']}/{board['id']}"), link
    assert board["embeds"][0]["title"] == BOARD_TITLE
    assert discord.pinned(channel) == [board]
    assert field(board, "Seats") == "Axis: alice · Allied: bob"
    assert "#3 bob: /game seat → Allied seat: bob" in field(board, "Last entries")
    await answer(discord, ["asl", "phase"], {"side": "Axis", "phase": "rph"}, user="ref",
                 channel=channel)  # fmt: skip
    edit = await discord.wait_for_event(channel, "edit")
    assert edit.message["id"] == board["id"]
    assert field(edit.message, "Turn") == (
        "Rally Phase of Axis (Player Turn 1)\nAxis to act: alice"
    )
    squad = {"name": "4-6-7 A", "side": "Axis", "kind": "squad"}
    await answer(discord, ["asl", "unit", "add"], squad, channel=channel)
    await answer(discord, ["asl", "unit", "set"], {"name": "4-6-7 A", "status": "broken"},
                 channel=channel)  # fmt: skip
    for _ in range(600):  # a minute at most (a second or two on a quiet machine)
        if "Broken: 4-6-7 A" in field(discord.messages[board["id"]], "Table"):
            break
        await asyncio.sleep(0.1)
    assert "Broken: 4-6-7 A" in field(discord.messages[board["id"]], "Table")
    assert len(discord.channel_messages(channel)) == 1


async def test_without_pin_messages_the_board_works_unpinned_and_says_so_once(
    table: tuple[FakeDiscord, BotProcess],
) -> None:
    discord, _ = table
    channel = "board-2"
    await discord.set_bot_permissions(channel, deny=p.PIN_MESSAGES)
    await new_game(discord, channel)
    reply = await answer(discord, ["game", "board"], {}, channel=channel)
    assert reply.ephemeral
    assert "but not pinned" in reply.text
    assert "Give me the Pin Messages permission in this channel" in reply.text
    assert reply.text.count("Pin Messages") == 1
    assert len(discord.channel_messages(channel)) == 1
    assert discord.pinned(channel) == []
    assert [r for r, _ in discord.refusals if "/pins/" in r] == []  # it did not even try
    await answer(discord, ["roll"], {"dice": "DR"}, channel=channel)
    edit = await discord.wait_for_event(channel, "edit")
    assert "#4 alice: /roll" in field(edit.message, "Last entries")


async def test_a_deleted_board_is_posted_again_once_and_then_edited(
    table: tuple[FakeDiscord, BotProcess],
) -> None:
    discord, _ = table
    channel = "board-3"
    await new_game(discord, channel)
    await answer(discord, ["game", "board"], {}, channel=channel)
    (old,) = discord.channel_messages(channel)
    await discord.delete_message(old["id"])
    await answer(discord, ["roll"], {"dice": "dr"}, channel=channel)
    posted = await discord.wait_for_event(channel, "create", count=2)
    assert posted.message["id"] != old["id"]
    assert "#4 alice: /roll" in field(posted.message, "Last entries")
    await discord.wait_for_event(channel, "pin", count=2)
    assert [m["id"] for m in discord.pinned(channel)] == [posted.message["id"]]
    await answer(discord, ["roll"], {"dice": "dr"}, channel=channel)
    edit = await discord.wait_for_event(channel, "edit")
    assert edit.message["id"] == posted.message["id"]
    assert len(discord.events(channel, "create")) == 2


async def test_a_burst_of_actions_makes_a_bounded_number_of_edits(
    table: tuple[FakeDiscord, BotProcess],
) -> None:
    discord, _ = table
    channel = "board-4"
    await new_game(discord, channel)
    await answer(discord, ["game", "board"], {}, channel=channel)
    burst = 12
    sent = [  # all at once, as a busy table types them
        await discord.slash(["roll"], {"dice": "dr", "reason": f"burst {n}"}, channel=channel)
        for n in range(burst)
    ]
    for each in sent:
        if (await each.next_reply(TIMEOUT)).type == 5:
            await each.next_reply(TIMEOUT)
    last = 3 + burst
    for _ in range(600):  # a minute at most (a second or two on a quiet machine)
        edits = discord.events(channel, "edit")
        if edits and f"#{last} alice" in field(edits[-1].message, "Last entries"):
            break
        await asyncio.sleep(0.1)
    edits = discord.events(channel, "edit")
    assert f"#{last} alice" in field(edits[-1].message, "Last entries")
    # at most one edit a second, however slowly a loaded machine answers the burst: the next
    # edit is sent a second after the last one was answered (a count of edits against the
    # burst's duration was wrong when the last edit came more than a second after the last reply,
    # and a loaded machine may spread twelve rolls over more than twelve seconds)
    gaps = [later.at - earlier.at for earlier, later in itertools.pairwise(edits)]
    assert all(gap >= 0.999 for gap in gaps), gaps


async def test_a_board_turned_off_is_no_longer_edited(
    table: tuple[FakeDiscord, BotProcess],
) -> None:
    discord, _ = table
    channel = "board-5"
    await new_game(discord, channel)
    await answer(discord, ["game", "board"], {}, channel=channel)
    off = await answer(discord, ["game", "board"], {"on": False}, user="bob", channel=channel)
    assert off.ephemeral and "Status board off" in off.text
    await answer(discord, ["roll"], {"dice": "dr"}, channel=channel)
    await asyncio.sleep(2.5)
    assert discord.events(channel, "edit") == []
    again = await answer(discord, ["game", "board"], {}, channel=channel)
    assert "Status board posted" in again.text
    assert len(discord.channel_messages(channel)) == 1  # the same message, updated in place


async def test_without_send_messages_the_board_is_refused_and_stays_off(
    table: tuple[FakeDiscord, BotProcess],
) -> None:
    discord, _ = table
    channel = "board-6"
    await new_game(discord, channel)
    await discord.set_bot_permissions(channel, deny=p.SEND_MESSAGES)
    reply = await answer(discord, ["game", "board"], {}, channel=channel)
    assert reply.ephemeral
    assert reply.content == (
        "I may not post the board here: give me the Send Messages permission in this channel, "
        "then run /game board again."
    ), reply.data
    await discord.set_bot_permissions(channel)
    await answer(discord, ["roll"], {"dice": "dr"}, channel=channel)
    await asyncio.sleep(2.0)
    assert discord.events(channel) == []


async def test_a_game_in_a_thread_gets_its_board_in_the_thread(
    table: tuple[FakeDiscord, BotProcess],
) -> None:
    discord, _ = table
    channel = "game-thread"
    await new_game(discord, channel)
    reply = await answer(discord, ["game", "board"], {}, channel=channel)
    assert "Status board posted and pinned" in reply.text, reply.data
    (board,) = discord.channel_messages(channel)
    assert board["channel_id"] == discord.threads[channel]["id"]
    await answer(discord, ["roll"], {"dice": "dr"}, channel=channel)
    edit = await discord.wait_for_event(channel, "edit")
    assert "#4 alice: /roll" in field(edit.message, "Last entries")
