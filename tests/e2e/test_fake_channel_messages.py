"""The fake Discord's channel-message routes, driven by discord.py 2.7 itself.

A plain ``discord.Client`` runs in the test's event loop against the fake and calls the library's
own ``channel.send``, ``message.edit``, ``fetch_message``, ``message.pin``, ``channel.pins`` and
``message.delete``: whatever route or payload the library uses, the fake must understand it, and
refuse what Discord refuses (no permission, a deleted message, content over 2000 characters).
The real bot's use of these routes is tested where the bot uses them (the status board).
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator

import discord
import pytest

from tests.e2e.conftest import connected
from tests.fake_discord import FakeDiscord
from tests.fake_discord import payloads as p

pytestmark = [pytest.mark.e2e]


@pytest.fixture
async def client(fake_discord: FakeDiscord) -> AsyncIterator[discord.Client]:
    """discord.py pointed at the fake, connected and ready."""
    async with connected(discord.Client(intents=discord.Intents.default()), fake_discord) as bot:
        yield bot


def channel_of(client: discord.Client, fake: FakeDiscord, name: str) -> discord.TextChannel:
    found = client.get_channel(int(fake.channels[name]["id"]))
    assert isinstance(found, discord.TextChannel)
    return found


async def test_send_edit_fetch_pin_list_and_delete_a_message(
    client: discord.Client, fake_discord: FakeDiscord
) -> None:
    channel = channel_of(client, fake_discord, "table-1")
    embed = discord.Embed(title="Board", description="Axis to move")
    message = await channel.send(embed=embed)
    assert fake_discord.channel_messages("table-1")[0]["embeds"][0]["title"] == "Board"
    await message.edit(embed=discord.Embed(title="Board", description="Allied to move"))
    fetched = await channel.fetch_message(message.id)
    assert fetched.embeds[0].description == "Allied to move"
    assert fetched.edited_at is not None
    await message.pin()
    pinned = [m async for m in channel.pins()]
    assert [m.id for m in pinned] == [message.id]
    assert fake_discord.pinned("table-1")[0]["id"] == str(message.id)
    await message.unpin()
    assert [m async for m in channel.pins()] == []
    with_file = await channel.send("the log", file=discord.File(io.BytesIO(b"#1"), "log.txt"))
    assert with_file.attachments[0].filename == "log.txt"
    await message.delete()
    with pytest.raises(discord.NotFound) as gone:
        await message.edit(content="again")
    assert gone.value.code == 10008
    with pytest.raises(discord.NotFound):
        await channel.fetch_message(message.id)
    actions = [event.action for event in fake_discord.events("table-1")]
    assert actions == ["create", "edit", "pin", "unpin", "create", "delete"]
    assert fake_discord.events("table-1", "create")[1].files[0].data == b"#1"


async def test_a_message_deleted_by_a_member_is_unknown_to_the_bot(
    client: discord.Client, fake_discord: FakeDiscord
) -> None:
    channel = channel_of(client, fake_discord, "general")
    message = await channel.send("status")
    await fake_discord.delete_message(str(message.id))
    with pytest.raises(discord.NotFound) as gone:
        await message.edit(content="status, later")
    assert gone.value.code == 10008
    assert fake_discord.refusals[-1] == (
        f"PATCH /channels/{channel.id}/messages/{message.id}",
        10008,
    )


async def test_content_over_2000_characters_and_empty_messages_are_refused(
    client: discord.Client, fake_discord: FakeDiscord
) -> None:
    channel = channel_of(client, fake_discord, "general")
    with pytest.raises(discord.HTTPException) as long:
        await channel.send("x" * 2001)
    assert long.value.code == 50035
    message = await channel.send("x" * 2000)
    with pytest.raises(discord.HTTPException) as edited:
        await message.edit(content="y" * 2001)
    assert edited.value.code == 50035
    assert fake_discord.channel_messages("general")[0]["content"] == "x" * 2000


async def test_without_pin_messages_the_pin_is_refused_and_the_bot_knows_it(
    client: discord.Client, fake_discord: FakeDiscord
) -> None:
    await fake_discord.set_bot_permissions("table-1", deny=p.PIN_MESSAGES)
    channel = channel_of(client, fake_discord, "table-1")
    for _ in range(600):  # the CHANNEL_UPDATE reaches the client's cache (30 s at most)
        if not channel.permissions_for(channel.guild.me).pin_messages:
            break
        await asyncio.sleep(0.05)
    assert not channel.permissions_for(channel.guild.me).pin_messages
    assert channel.permissions_for(channel.guild.me).send_messages
    message = await channel.send("board")
    with pytest.raises(discord.Forbidden) as refused:
        await message.pin()
    assert refused.value.code == 50013
    assert fake_discord.pinned("table-1") == []
    assert not int(fake_discord.bot_permissions("table-1")) & p.PIN_MESSAGES
    assert fake_discord.bot_permissions("general") & p.PIN_MESSAGES


async def test_without_send_messages_nothing_is_posted_and_without_embed_links_embeds_drop(
    client: discord.Client, fake_discord: FakeDiscord
) -> None:
    await fake_discord.set_bot_permissions("table-1", deny=p.SEND_MESSAGES)
    await fake_discord.set_bot_permissions("general", deny=p.EMBED_LINKS)
    with pytest.raises(discord.Forbidden) as refused:
        await channel_of(client, fake_discord, "table-1").send("board")
    assert refused.value.code == 50013
    message = await channel_of(client, fake_discord, "general").send(
        "board", embed=discord.Embed(title="Board")
    )
    assert message.content == "board" and message.embeds == []
    assert fake_discord.channel_messages("table-1") == []


async def test_the_interactions_app_permissions_agree_with_the_channel(
    client: discord.Client, fake_discord: FakeDiscord
) -> None:
    await fake_discord.set_bot_permissions("table-1", deny=p.PIN_MESSAGES | p.EMBED_LINKS)
    channel = channel_of(client, fake_discord, "table-1")
    sent = await fake_discord._send(2, {"id": "1", "name": "x", "type": 1}, "alice", "table-1")
    for _ in range(600):  # the CHANNEL_UPDATE reaches the client's cache (30 s at most)
        if not channel.permissions_for(channel.guild.me).pin_messages:
            break
        await asyncio.sleep(0.05)
    assert int(sent.payload["app_permissions"]) == channel.permissions_for(channel.guild.me).value
    everywhere = (p.EVERYONE_PERMISSIONS | p.BOT_PERMISSIONS) & ~p.VOICE_PERMISSIONS
    assert fake_discord.bot_permissions("general") == everywhere
    assert fake_discord.bot_permissions("game-thread") == everywhere  # a thread: its parent's
    assert fake_discord.bot_permissions("table-1") == everywhere & ~(p.PIN_MESSAGES | p.EMBED_LINKS)
    await fake_discord.set_bot_permissions("table-1")
    assert fake_discord.bot_permissions("table-1") == everywhere
