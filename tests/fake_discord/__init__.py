"""A fake Discord for end-to-end tests: REST and gateway on 127.0.0.1 (see ``server.py``).

Quick reference (all awaited inside the test's event loop)::

    async with FakeDiscord() as discord:           # or the ``fake_discord`` fixture in tests/e2e
        bot = await bots.start_ready(["-m", "tests.e2e.toybot"])     # tests/e2e/conftest.py
        sent = await discord.slash(["asl", "weapon", "add"], {"name": "MMG", "b": 11},
                                   user="alice", channel="table-1")
        reply = await sent.next_reply()             # Reply: kind, type, content, embeds,
                                                    # ephemeral, files, custom_ids, message
        await discord.autocomplete(["asl", "repair"], {"weapon": "mm"}, focused="weapon")
        await discord.click("repair:MMG", reply.message["id"], user="alice")
        await discord.redeliver(sent)               # the same INTERACTION_CREATE again
        discord.refusals, discord.sync_requests, discord.commands, discord.unknown_routes
        # messages the bot posts in a channel itself (channel.send, edit, pin, delete):
        await discord.set_bot_permissions("table-1", deny=payloads.PIN_MESSAGES)
        event = await discord.wait_for_event("table-1", "edit", count=2)   # ChannelEvent
        discord.channel_messages("table-1"), discord.pinned("table-1"), discord.events("table-1")
        await discord.delete_message(message_id)     # as a moderator deletes it

Option names are as Discord shows them (``replaced-by``); user options take a member's name
(``owner``, ``ref``, ``alice``, ``bob``); an attachment option takes an ``UploadedFile(filename,
data)``, which the fake serves at its CDN url (``discord.downloads`` lists what the bot fetched).
Channels: ``general``, ``table-1``, ``game-thread``.
"""

from __future__ import annotations

from tests.fake_discord.server import (
    ChannelEvent,
    FakeDiscord,
    Reply,
    SentInteraction,
    UploadedFile,
    check_command,
)

__all__ = [
    "ChannelEvent",
    "FakeDiscord",
    "Reply",
    "SentInteraction",
    "UploadedFile",
    "check_command",
]
