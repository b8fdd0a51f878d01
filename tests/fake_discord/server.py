"""A small fake Discord on 127.0.0.1: the REST API a bot calls and the gateway websocket.

Tests own an instance, point a real discord.py bot at it (``DISCORD_API_BASE`` = :attr:`api_base`,
``DISCORD_GATEWAY_URL`` = :attr:`gateway_url`), send interactions and await what the bot answers::

    async with FakeDiscord() as discord:
        bot = start_bot(discord.api_base, discord.gateway_url, discord.token)
        await discord.wait_until_ready()
        sent = await discord.slash(("ping",))
        reply = await sent.next_reply()
        assert reply.content == "Pong"

It enforces what real Discord enforces and a bot can get wrong: the token on REST calls, exact
``application/json`` bodies, the limits of a message on every message created or edited (2000
characters of content, 6000 characters summed over all its embeds, each embed's and each
component's limits: ``limits.py``), 25 autocomplete choices of 100 characters,
a callback within 3 seconds, one callback per interaction, follow-ups only after it and only
within 15 minutes of the interaction (``followup_window``).

Channel messages (the routes of discord.py 2.7's ``channel.send``, ``message.edit``,
``fetch_message``, ``message.delete``, ``message.pin``/``unpin`` and ``channel.pins``) obey the
bot's permissions in that channel, which a test changes with :meth:`FakeDiscord.set_bot_permissions`
(a permission overwrite on the bot's managed role, announced by CHANNEL_UPDATE, so
``channel.permissions_for(guild.me)`` and each interaction's ``app_permissions`` agree): no View
Channel is 50001 Missing Access; no Send Messages (Send Messages in Threads in a thread), Attach
Files for files, Pin Messages for a pin, Manage Messages for another author's message, or Read
Message History for a fetch is 403 with 50013 Missing Permissions; without Embed Links the message
is posted and its embeds are dropped, as Discord does. A deleted message is 404 10008 Unknown
Message. Every change is recorded in :attr:`FakeDiscord.channel_events`.

Direct messages: ``POST /users/@me/channels`` with a member's ``recipient_id`` opens (or
returns) their DM channel, and the bot posts there as in a channel (:meth:`FakeDiscord.dms`
lists them). A member whose DMs are closed (:attr:`FakeDiscord.closed_dms`) gets the channel,
but every message to it is refused as Discord refuses it: 403 with code 50007 "Cannot send
messages to this user".
"""

from __future__ import annotations

import asyncio
import copy
import functools
import hashlib
import re
import time
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson
from aiohttp import BodyPartReader, WSMsgType, web

from tests.fake_discord import limits
from tests.fake_discord import payloads as p

INTERACTION_APPLICATION_COMMAND = 2
INTERACTION_COMPONENT = 3
INTERACTION_AUTOCOMPLETE = 4
INTERACTION_MODAL_SUBMIT = 5

CALLBACK_MESSAGE = 4
CALLBACK_DEFERRED_MESSAGE = 5
CALLBACK_DEFERRED_UPDATE = 6
CALLBACK_UPDATE_MESSAGE = 7
CALLBACK_AUTOCOMPLETE = 8
CALLBACK_MODAL = 9

EPHEMERAL = 1 << 6
LOADING = 1 << 7
SENDABLE_FLAGS = 1 << 2 | 1 << 12
"""The flags a bot may set on a channel message: suppress embeds, suppress notifications."""


@dataclass(frozen=True)
class UploadedFile:
    """A file the bot attached (multipart ``files[n]``)."""

    filename: str
    data: bytes


@dataclass
class Reply:
    """One thing the bot did in answer to an interaction.

    ``kind`` is ``"callback"`` (the interaction response), ``"followup"``, ``"edit"`` or
    ``"delete"``; ``type`` is the callback type for callbacks (4 message, 5 deferred, 7 update,
    8 autocomplete choices); ``data`` is the body the bot sent; ``message`` the message Discord
    made of it; ``echoed``: a callback that asked for it back (``?with_response``; without it
    Discord answers 204).
    """

    kind: str
    type: int | None
    data: dict[str, Any]
    files: list[UploadedFile] = field(default_factory=list)
    message: dict[str, Any] | None = None
    echoed: bool = False

    @property
    def content(self) -> str:
        return str(self.data.get("content") or "")

    @property
    def embeds(self) -> list[dict[str, Any]]:
        return list(self.data.get("embeds") or [])

    @property
    def ephemeral(self) -> bool:
        return bool(int(self.data.get("flags") or 0) & EPHEMERAL)

    @property
    def choices(self) -> list[dict[str, Any]]:
        return list(self.data.get("choices") or [])

    @property
    def custom_ids(self) -> list[str]:
        """The ``custom_id`` of every button or select in the message's components."""
        found: list[str] = []

        def walk(components: list[dict[str, Any]]) -> None:
            for component in components:
                if "custom_id" in component:
                    found.append(component["custom_id"])
                walk(component.get("components", []))

        walk(self.data.get("components") or [])
        return found

    @property
    def text(self) -> str:
        """Content plus every embed's title, description and fields, for loose assertions."""
        parts = [self.content]
        for embed in self.embeds:
            parts += [embed.get("title", ""), embed.get("description", "")]
            for item in embed.get("fields", []):
                parts += [item.get("name", ""), item.get("value", "")]
            parts.append(embed.get("footer", {}).get("text", ""))
        return "\n".join(part for part in parts if part)


@dataclass
class ChannelEvent:
    """One change the bot made to a channel's messages through the channel routes.

    ``action`` is ``"create"``, ``"edit"``, ``"delete"``, ``"pin"`` or ``"unpin"``; ``channel``
    the channel's (or thread's) name; ``message`` the message as it was right after the change;
    ``data`` the body the bot sent (empty for deletes and pins); ``at`` when the fake Discord
    took it (``time.monotonic()``).
    """

    action: str
    channel: str
    message: dict[str, Any]
    data: dict[str, Any] = field(default_factory=dict)
    files: list[UploadedFile] = field(default_factory=list)
    at: float = field(default_factory=time.monotonic)

    @property
    def text(self) -> str:
        """Content plus every embed's title, description, fields and footer."""
        return Reply("event", None, self.message).text


@dataclass
class SentInteraction:
    """An interaction the test sent; its replies arrive on :meth:`next_reply`."""

    id: str
    token: str
    payload: dict[str, Any]
    sent_at: float
    acknowledged: bool = False
    original_message_id: str | None = None
    thinking: bool = False
    """Deferred (type 5) and not answered yet: the next follow-up replaces the original."""
    replies: asyncio.Queue[Reply] = field(default_factory=asyncio.Queue)

    async def next_reply(self, timeout: float = 60.0) -> Reply:
        """The next callback, follow-up or edit the bot sent for this interaction."""
        if not self.replies.empty():  # already here: no timer, no task
            return self.replies.get_nowait()
        try:
            async with asyncio.timeout(timeout):  # in this task: wait_for would start another
                return await self.replies.get()
        except TimeoutError:
            raise AssertionError(
                f"the bot sent nothing for interaction {self.id} within {timeout} s"
            ) from None

    async def no_reply(self, wait: float = 1.0) -> None:
        """Assert that the bot sends nothing more within ``wait`` seconds."""
        try:
            reply = await asyncio.wait_for(self.replies.get(), wait)
        except TimeoutError:
            return
        raise AssertionError(f"unexpected {reply.kind} for interaction {self.id}: {reply.data}")


@dataclass
class Person:
    """A member of the fake guild."""

    id: str
    name: str
    roles: list[str]
    permissions: int

    def user(self) -> dict[str, Any]:
        return p.user(self.id, self.name)


class DiscordError(Exception):
    """Answered to the bot as Discord's JSON error body."""

    def __init__(self, status: int, code: int, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


class FakeDiscord:
    """REST + gateway for one bot in one guild with a few members.

    Members: ``owner`` (owns the guild and the application, administrator), ``ref`` (holds the
    ``Referee`` role), ``alice`` and ``bob``. Channels: ``general`` and ``table-1``, and the
    public thread ``game-thread`` in ``general``, and any ``extra_channels``.

    Sharding: ``GET /gateway/bot`` recommends ``shards`` shards and lets ``max_concurrency``
    sessions start at once. Each ``extra_guilds`` name is a channel in a server of its own (the
    same members), placed on shard ``k % shards`` for the k-th (the first server is on shard 0).
    A connection that identified as a shard gets READY and GUILD_CREATE for its shard's servers
    only, and a server's interactions go to the newest open connection of its shard (a dead
    process's servers get nothing until a connection for their shard identifies again). With
    ``shards=1`` (the default) every connection gets every server and the newest gets the
    interactions, whatever shard it says it is, as before.
    ``identified`` lists every identify as ``(time.monotonic(), shard id, shard count)``.
    """

    def __init__(
        self,
        *,
        token: str = "fake-token",
        callback_deadline: float = 3.0,
        followup_window: float = 15 * 60.0,
        extra_channels: Sequence[str] = (),
        extra_guilds: Sequence[str] = (),
        shards: int = 1,
        max_concurrency: int = 1,
    ) -> None:
        self.token = token
        self.recommended_shards = shards
        self.max_concurrency = max_concurrency
        self.by_shard = shards > 1
        """Route servers by shard (a test asked for several shards), as Discord does."""
        self.callback_deadline = callback_deadline
        self.followup_window = followup_window
        """Seconds an interaction's token takes follow-ups and edits (Discord: 15 minutes);
        later calls are refused with 401, code 50027 Invalid Webhook Token."""
        self.application_id = p.snowflake()
        self.bot_user = p.user(self.application_id, "Referee", bot=True)
        self.guild_id = _snowflake_on_shard(0, shards)
        referee_role = p.snowflake()
        self.bot_role_id = p.snowflake()
        self.roles = {
            "@everyone": p.role(self.guild_id, "@everyone", p.EVERYONE_PERMISSIONS, 0),
            "Referee": p.role(referee_role, "Referee", p.EVERYONE_PERMISSIONS, 1),
            "Referee Bot": p.role(
                self.bot_role_id, "Referee Bot", p.BOT_PERMISSIONS, 2, bot_id=self.application_id
            ),
        }
        everyone = p.EVERYONE_PERMISSIONS
        self.people = {
            "owner": Person(p.snowflake(), "owner", [], everyone | p.ADMINISTRATOR),
            "ref": Person(p.snowflake(), "ref", [referee_role], everyone),
            "alice": Person(p.snowflake(), "alice", [], everyone),
            "bob": Person(p.snowflake(), "bob", [], everyone),
        }
        self.channels = {
            name: p.text_channel(p.snowflake(), self.guild_id, name, position)
            for position, name in enumerate(("general", "table-1", *extra_channels))
        }
        self.guild_ids = [self.guild_id]
        """Every server: the first, then one for each of ``extra_guilds``."""
        for index, name in enumerate(extra_guilds, start=1):
            guild_id = _snowflake_on_shard(index % shards, shards)
            self.guild_ids.append(guild_id)
            self.channels[name] = p.text_channel(p.snowflake(), guild_id, name, 0)
        self.threads = {
            "game-thread": p.thread(
                p.snowflake(),
                self.guild_id,
                self.channels["general"]["id"],
                self.people["alice"].id,
                "game-thread",
            )
        }
        """Threads, which interactions may come from like channels (``channel="game-thread"``)."""
        self.commands: dict[str | None, list[dict[str, Any]]] = {}
        """Synced commands by guild id (``None``: global), as the bot last PUT them."""
        self.sync_requests: list[str | None] = []
        """The scope of every bulk command sync the bot made, in order."""
        self.unknown_routes: list[str] = []
        self.refusals: list[tuple[str, int]] = []
        """Every request refused with a Discord error: ``("POST /path", code)``."""
        self.identify: dict[str, Any] | None = None
        self.identified: list[tuple[float, int, int]] = []
        """Every identify: ``(time.monotonic(), shard id, shard count)``."""
        self.gateway_bot_requests = 0
        """How many times the bot asked ``GET /gateway/bot``."""
        self._ready_changed = asyncio.Condition()
        self.gateway_compression: str | None = None
        """The transport compression the bot asked for (``zlib-stream``) when it connected."""
        self.messages: dict[str, dict[str, Any]] = {}
        self.channel_events: list[ChannelEvent] = []
        """What the bot did to channel messages (create, edit, delete, pin, unpin), in order."""
        self.pins: dict[str, list[tuple[str, str]]] = {}
        """Pinned messages by channel id, newest first: ``(message id, pinned_at)``."""
        self.attachments: dict[str, UploadedFile] = {}
        """Files members attached to an option (``ATTACHMENT``), served at their CDN url by id."""
        self.downloads: list[str] = []
        """The id of every attachment the bot downloaded, in order."""
        self.closed_dms: set[str] = set()
        """Members whose DMs are closed to the bot: each message to them is 403 code 50007."""
        self.dm_channels: dict[str, str] = {}
        """Each member's DM channel id, by member name, once the bot opened it."""
        self._interactions: dict[str, SentInteraction] = {}
        self._gateways: list[_Gateway] = []
        self._guild_sent = asyncio.Event()
        self._runner: web.AppRunner | None = None
        self.port = 0

    # -- lifecycle -------------------------------------------------------------------------

    async def start(self) -> None:
        app = web.Application()
        app.router.add_get("/gateway", self._gateway)
        app.router.add_get("/attachments/{id}/{filename}", self._attachment)
        app.router.add_route("*", "/api/v10/{path:.*}", self._rest)
        self._runner = web.AppRunner(app, handle_signals=False, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        server = site._server
        assert server is not None and server.sockets  # type: ignore[attr-defined]
        self.port = server.sockets[0].getsockname()[1]  # type: ignore[attr-defined]

    async def stop(self) -> None:
        for gateway in self._gateways:
            await gateway.ws.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeDiscord:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/v10"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway"

    def forget_ready(self) -> None:
        """Make :meth:`wait_until_ready` wait for the next bot to connect."""
        self._guild_sent.clear()

    async def wait_until_ready(self, timeout: float = 120.0) -> None:
        """Wait until the bot identified and received READY and GUILD_CREATE."""
        try:
            await asyncio.wait_for(self._guild_sent.wait(), timeout)
        except TimeoutError:
            raise AssertionError(f"the bot did not connect within {timeout} s") from None

    # -- sending interactions --------------------------------------------------------------

    async def slash(
        self,
        path: Sequence[str],
        options: Mapping[str, Any] | None = None,
        *,
        user: str = "alice",
        channel: str = "general",
    ) -> SentInteraction:
        """Send ``/path options`` as the member ``user`` types it (an APPLICATION_COMMAND)."""
        data = self._command_data(path, options or {}, focused=None)
        return await self._send(INTERACTION_APPLICATION_COMMAND, data, user, channel)

    async def autocomplete(
        self,
        path: Sequence[str],
        options: Mapping[str, Any],
        focused: str,
        *,
        user: str = "alice",
        channel: str = "general",
    ) -> SentInteraction:
        """Send an autocomplete request while ``user`` types option ``focused``."""
        data = self._command_data(path, options, focused=focused)
        return await self._send(INTERACTION_AUTOCOMPLETE, data, user, channel)

    async def click(
        self, custom_id: str, message_id: str, *, user: str = "alice", channel: str = "general"
    ) -> SentInteraction:
        """Click the button ``custom_id`` on a message the bot posted (as Discord, only an
        enabled button on the message can be clicked)."""
        message = self.messages[message_id]
        buttons = {
            button["custom_id"]: button
            for row in message.get("components") or []
            for button in row.get("components", [row])
            if "custom_id" in button
        }
        if custom_id not in buttons:
            raise AssertionError(f"message {message_id} has no button {custom_id!r}")
        if buttons[custom_id].get("disabled"):
            raise AssertionError(f"the button {custom_id!r} is disabled")
        data = {"custom_id": custom_id, "component_type": 2}
        return await self._send(INTERACTION_COMPONENT, data, user, channel, message=message)

    async def submit_modal(
        self,
        modal: Reply,
        values: Mapping[str, str],
        *,
        user: str = "alice",
        channel: str = "general",
    ) -> SentInteraction:
        """Fill in a modal the bot opened (a type 9 callback) and submit it (a MODAL_SUBMIT):
        ``values`` by each text input's label, as the member types them."""
        if modal.type != CALLBACK_MODAL:
            raise AssertionError(f"the bot answered with a type {modal.type} callback, not a modal")
        rows = []
        for row in modal.data["components"]:
            inputs = []
            for item in row["components"]:
                value = values.get(item["label"], "")
                if item.get("required", True) and not value:
                    raise AssertionError(f"the modal's {item['label']!r} is required")
                if len(value) > int(item.get("max_length", 4000)):
                    raise AssertionError(f"{item['label']!r} takes at most {item['max_length']}")
                inputs.append({"type": 4, "custom_id": item["custom_id"], "value": value})
            rows.append({"type": 1, "components": inputs})
        data = {"custom_id": modal.data["custom_id"], "components": rows}
        return await self._send(INTERACTION_MODAL_SUBMIT, data, user, channel)

    async def redeliver(self, sent: SentInteraction) -> SentInteraction:
        """Dispatch the same INTERACTION_CREATE again (same id and token), as a resume can."""
        await self._dispatch("INTERACTION_CREATE", sent.payload)
        return sent

    def command(self, name: str) -> tuple[dict[str, Any], str | None]:
        """The synced command called ``name`` and its guild id (guild commands win)."""
        for scope in (self.guild_id, None):
            for command in self.commands.get(scope, []):
                if command["name"] == name:
                    return command, scope
        raise AssertionError(f"the bot has not synced a command called {name!r}")

    def _command_data(
        self, path: Sequence[str], options: Mapping[str, Any], focused: str | None
    ) -> dict[str, Any]:
        command, scope = self.command(path[0])
        data: dict[str, Any] = {
            "id": command["id"],
            "name": command["name"],
            "type": 1,
            "options": [],
        }
        if scope is not None:
            data["guild_id"] = scope
        level = data
        schema = command.get("options", [])
        for name in path[1:]:
            match = [o for o in schema if o["name"] == name and o["type"] in (1, 2)]
            if not match:
                raise AssertionError(f"/{' '.join(path)}: no subcommand {name!r}")
            child: dict[str, Any] = {"name": name, "type": match[0]["type"], "options": []}
            level["options"].append(child)
            level, schema = child, match[0].get("options", [])
        resolved: dict[str, dict[str, Any]] = {}
        for name, value in options.items():
            match = [o for o in schema if o["name"] == name]
            if not match:
                raise AssertionError(f"/{' '.join(path)} has no option {name!r}")
            option: dict[str, Any] = {"name": name, "type": match[0]["type"]}
            option["value"] = self._option_value(match[0]["type"], value, name == focused, resolved)
            if name == focused:
                option["focused"] = True
            level["options"].append(option)
        if resolved:
            data["resolved"] = resolved
        return data

    def _option_value(
        self, kind: int, value: Any, focused: bool, resolved: dict[str, dict[str, Any]]
    ) -> Any:
        if focused:
            return str(value)  # what the user has typed so far
        if kind == 6:  # USER: the member's name in the fake guild
            person = self.people[value]
            resolved.setdefault("users", {})[person.id] = person.user()
            member = p.member(person.user(), person.roles)
            del member["user"]
            member["permissions"] = str(person.permissions)
            resolved.setdefault("members", {})[person.id] = member
            return person.id
        if kind == 11:  # ATTACHMENT: an UploadedFile, uploaded first, then named by its id
            if not isinstance(value, UploadedFile):
                raise AssertionError("an attachment option takes an UploadedFile")
            attachment_id = p.snowflake()
            self.attachments[attachment_id] = value
            url = f"http://127.0.0.1:{self.port}/attachments/{attachment_id}/{value.filename}"
            resolved.setdefault("attachments", {})[attachment_id] = {
                "id": attachment_id,
                "filename": value.filename,
                "size": len(value.data),
                "url": url,
                "proxy_url": url,
                "content_type": "text/plain; charset=utf-8",
            }
            return attachment_id
        return value

    async def _attachment(self, request: web.Request) -> web.Response:
        """The bytes of an attached file, as Discord's CDN serves them (no token needed)."""
        found = self.attachments.get(request.match_info["id"])
        if found is None or found.filename != request.match_info["filename"]:
            return web.Response(status=404, text="404: Not Found")
        self.downloads.append(request.match_info["id"])
        return web.Response(body=found.data, content_type="text/plain")

    async def _send(
        self,
        kind: int,
        data: dict[str, Any],
        user: str,
        channel: str,
        *,
        message: dict[str, Any] | None = None,
    ) -> SentInteraction:
        person = self.people[user]
        member = p.member(person.user(), person.roles)
        member["permissions"] = str(person.permissions)
        interaction_id, token = p.snowflake(), "tok-" + p.snowflake()
        guild_id = self._channel(channel).get("guild_id") or self.guild_id
        payload: dict[str, Any] = {
            "id": interaction_id,
            "application_id": self.application_id,
            "type": kind,
            "data": data,
            "guild_id": guild_id,
            "channel_id": self._channel(channel)["id"],
            "channel": self._channel(channel),
            "member": member,
            "token": token,
            "version": 1,
            "app_permissions": str(self.bot_permissions(channel)),
            "locale": "en-US",
            "guild_locale": "en-US",
            "entitlements": [],
            "authorizing_integration_owners": {"0": guild_id},
            "context": 0,
            "attachment_size_limit": 10 * 1024 * 1024,
        }
        if message is not None:
            payload["message"] = message
        sent = SentInteraction(interaction_id, token, payload, time.monotonic())
        self._interactions[token] = sent
        await self._dispatch("INTERACTION_CREATE", payload)
        return sent

    def _channel(self, name: str) -> dict[str, Any]:
        found = self.channels.get(name) or self.threads.get(name)
        if found is None:
            raise AssertionError(f"the fake guild has no channel or thread called {name!r}")
        return found

    def _channel_by_id(self, channel_id: str) -> tuple[str, dict[str, Any]]:
        for name, found in (*self.channels.items(), *self.threads.items()):
            if found["id"] == channel_id:
                return name, found
        raise DiscordError(404, 10003, "Unknown Channel")

    # -- the bot's permissions and channel messages ------------------------------------------

    def bot_permissions(self, channel: str) -> int:
        """The bot's permissions in ``channel`` (a thread has its parent's), as Discord computes
        them: ``@everyone`` and the bot's role, then the channel's overwrites, less the voice
        permissions a text channel does not have."""
        found = self._channel(channel)
        if found["type"] == 11:
            found = self._channel_by_id(found["parent_id"])[1]
        allowed = p.EVERYONE_PERMISSIONS | p.BOT_PERMISSIONS
        if allowed & p.ADMINISTRATOR:
            return (1 << 53) - 1
        overwrites = {o["id"]: o for o in found.get("permission_overwrites", [])}
        for target in (self.guild_id, self.bot_role_id):
            if target in overwrites:
                allowed &= ~int(overwrites[target]["deny"])
                allowed |= int(overwrites[target]["allow"])
        return allowed & ~p.VOICE_PERMISSIONS

    async def set_bot_permissions(self, channel: str, *, deny: int = 0, allow: int = 0) -> None:
        """Overwrite the bot role's permissions in ``channel`` (a text channel), as a server admin
        does in the channel's settings; the bot hears of it by CHANNEL_UPDATE."""
        found = self.channels[channel]
        overwrites = [o for o in found["permission_overwrites"] if o["id"] != self.bot_role_id]
        if deny or allow:
            overwrites.append(
                {"id": self.bot_role_id, "type": 0, "allow": str(allow), "deny": str(deny)}
            )
        found["permission_overwrites"] = overwrites
        if self._gateways:
            await self._dispatch("CHANNEL_UPDATE", found)

    async def delete_message(self, message_id: str, *, user: str = "owner") -> None:
        """Delete a message as the member ``user`` does (a moderator removing the bot's post)."""
        message = self.messages.pop(message_id)
        channel_id = message["channel_id"]
        self.pins[channel_id] = [x for x in self.pins.get(channel_id, []) if x[0] != message_id]
        if self._gateways:
            deleted = {"id": message_id, "channel_id": channel_id, "guild_id": self.guild_id}
            await self._dispatch("MESSAGE_DELETE", deleted)

    def channel_messages(self, channel: str) -> list[dict[str, Any]]:
        """The messages the bot posted in ``channel`` itself (not interaction answers) that still
        exist, oldest first."""
        channel_id = self._channel(channel)["id"]
        return [
            m for m in self.messages.values() if m["channel_id"] == channel_id and m["type"] == 0
        ]

    def pinned(self, channel: str) -> list[dict[str, Any]]:
        """The messages pinned in ``channel``, newest pin first."""
        return [self.messages[mid] for mid, _ in self.pins.get(self._channel(channel)["id"], [])]

    def events(self, channel: str, action: str | None = None) -> list[ChannelEvent]:
        """The recorded channel events in ``channel`` (of one ``action``), oldest first."""
        return [
            event
            for event in self.channel_events
            if event.channel == channel and action in (None, event.action)
        ]

    async def wait_for_event(
        self, channel: str, action: str, *, count: int = 1, timeout: float = 60.0
    ) -> ChannelEvent:
        """Wait until ``channel`` has seen ``count`` events of ``action``; the last of them."""
        deadline = time.monotonic() + timeout
        while len(found := self.events(channel, action)) < count:
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"{len(found)} {action} event(s) in {channel} within {timeout} s, not {count}: "
                    f"{[(e.action, e.message['id']) for e in self.events(channel)]}"
                )
            await asyncio.sleep(0.05)
        return found[count - 1]

    async def _channel_route(
        self, request: web.Request, channel_id: str, rest: list[str], path: str
    ) -> web.Response:
        name, channel = self._channel_by_id(channel_id)
        allowed = self.bot_permissions(name)
        if not allowed & p.VIEW_CHANNEL:
            raise DiscordError(403, 50001, "Missing Access")
        method = request.method
        route = f"/channels/{channel_id}/" + "/".join(rest[:1])
        if rest[:2] == ["messages", "pins"] or rest[:1] == ["pins"]:  # 2.7's route, and the old one
            pin_rest = rest[2:] if rest[0] == "messages" else rest[1:]
            if not pin_rest and method == "GET":
                return self._list_pins(channel_id, allowed, route)
            if len(pin_rest) == 1 and method in ("PUT", "DELETE"):
                return self._pin(name, channel_id, pin_rest[0], method == "PUT", allowed)
        elif rest == ["messages"] and method == "POST":
            return await self._create(request, name, channel, allowed, route)
        elif len(rest) == 2 and rest[0] == "messages":
            return await self._message(request, name, channel_id, rest[1], allowed, route)
        self.unknown_routes.append(f"{method} {path}")
        raise DiscordError(404, 0, "404: Not Found")

    # -- direct messages ------------------------------------------------------------------

    def dms(self, user: str) -> list[dict[str, Any]]:
        """The direct messages the bot sent the member ``user``, oldest first."""
        channel_id = self.dm_channels.get(user)
        return [m for m in self.messages.values() if channel_id and m["channel_id"] == channel_id]

    def _dm_channel(self, name: str) -> dict[str, Any]:
        return {
            "id": self.dm_channels[name],
            "type": 1,
            "last_message_id": None,
            "flags": 0,
            "recipients": [self.people[name].user()],
        }

    async def _open_dm(self, request: web.Request, path: str) -> web.Response:
        body = await request.json()
        recipient = str(body.get("recipient_id"))
        name = next((n for n, person in self.people.items() if person.id == recipient), None)
        if name is None:
            raise DiscordError(400, 50033, "Invalid Recipient(s)")
        self.dm_channels.setdefault(name, p.snowflake())
        return _json(self._dm_channel(name), route=path)

    async def _dm_route(
        self, request: web.Request, channel_id: str, rest: list[str], path: str
    ) -> web.Response:
        name = next(n for n, c in self.dm_channels.items() if c == channel_id)
        route = f"/channels/{channel_id}/messages"
        if rest != ["messages"] or request.method != "POST":
            self.unknown_routes.append(f"{request.method} {path}")
            raise DiscordError(404, 0, "404: Not Found")
        body, files = await _read_body(request)
        _check_message(body)
        if name in self.closed_dms:
            raise DiscordError(403, 50007, "Cannot send messages to this user")
        if not (body.get("content") or body.get("embeds") or files):
            raise DiscordError(400, 50006, "Cannot send an empty message")
        message_id = p.snowflake()
        stored = {**body, "attachments": self._attachments(message_id, files)}
        message = p.message(
            message_id, channel_id, self.bot_user, stored,
            application_id=self.application_id, guild_id=None, kind=0, webhook=False,
        )  # fmt: skip
        self.messages[message_id] = message
        self._record("create", f"dm:{name}", message, body, files)
        return _json(message, route=route)

    def _own(self, channel_id: str, message_id: str) -> dict[str, Any]:
        message = self.messages.get(message_id)
        if message is None or message["channel_id"] != channel_id:
            raise DiscordError(404, 10008, "Unknown Message")
        return message

    def _record(
        self,
        action: str,
        channel: str,
        message: dict[str, Any],
        data: dict[str, Any] | None = None,
        files: list[UploadedFile] | None = None,
    ) -> None:
        event = ChannelEvent(action, channel, copy.deepcopy(message), data or {}, files or [])
        self.channel_events.append(event)

    async def _create(
        self,
        request: web.Request,
        name: str,
        channel: dict[str, Any],
        allowed: int,
        route: str,
    ) -> web.Response:
        send = p.SEND_MESSAGES_IN_THREADS if channel["type"] == 11 else p.SEND_MESSAGES
        body, files = await _read_body(request)
        if not allowed & send or (files and not allowed & p.ATTACH_FILES):
            raise DiscordError(403, 50013, "Missing Permissions")
        _check_message(body)
        if not (body.get("content") or body.get("embeds") or files or body.get("components")):
            raise DiscordError(400, 50006, "Cannot send an empty message")
        stored = dict(body)
        if not allowed & p.EMBED_LINKS:  # Discord posts the message and drops the embeds
            stored["embeds"] = []
        message_id = p.snowflake()
        stored["attachments"] = self._attachments(message_id, files)
        message = p.message(
            message_id,
            channel["id"],
            self.bot_user,
            stored,
            application_id=self.application_id,
            guild_id=self.guild_id,
            kind=0,
            webhook=False,
        )
        message["flags"] = int(body.get("flags") or 0) & SENDABLE_FLAGS
        self.messages[message_id] = message
        self._record("create", name, message, body, files)
        return _json(message, route=route)

    async def _message(
        self,
        request: web.Request,
        name: str,
        channel_id: str,
        message_id: str,
        allowed: int,
        route: str,
    ) -> web.Response:
        message = self._own(channel_id, message_id)
        mine = message["author"]["id"] == self.bot_user["id"]
        if request.method == "GET":
            if not allowed & p.READ_MESSAGE_HISTORY:
                raise DiscordError(403, 50013, "Missing Permissions")
            return _json(message, route=route)
        if request.method == "PATCH":
            if not mine:
                raise DiscordError(403, 50005, "Cannot edit a message authored by another user")
            body, files = await _read_body(request)
            _check_message(body)
            if files and not allowed & p.ATTACH_FILES:
                raise DiscordError(403, 50013, "Missing Permissions")
            fields = _message_fields(body, self._attachments(message_id, files) if files else None)
            if "embeds" in fields and not allowed & p.EMBED_LINKS:
                fields["embeds"] = []
            message.update(fields)
            message["edited_timestamp"] = p.now_iso()
            self._record("edit", name, message, body, files)
            return _json(message, route=route)
        if request.method == "DELETE":
            if not mine and not allowed & p.MANAGE_MESSAGES:
                raise DiscordError(403, 50013, "Missing Permissions")
            del self.messages[message_id]
            self.pins[channel_id] = [x for x in self.pins.get(channel_id, []) if x[0] != message_id]
            self._record("delete", name, message)
            return web.Response(status=204)
        raise DiscordError(405, 0, "405: Method Not Allowed")

    def _pin(
        self, name: str, channel_id: str, message_id: str, pin: bool, allowed: int
    ) -> web.Response:
        if not allowed & p.PIN_MESSAGES:
            raise DiscordError(403, 50013, "Missing Permissions")
        message = self._own(channel_id, message_id)
        pins = [x for x in self.pins.get(channel_id, []) if x[0] != message_id]
        if pin:
            if len(pins) >= MAX_PINS:
                raise DiscordError(400, 30003, f"Maximum number of pins reached ({MAX_PINS})")
            pins.insert(0, (message_id, p.now_iso()))
        self.pins[channel_id] = pins
        message["pinned"] = pin
        self._record("pin" if pin else "unpin", name, message)
        return web.Response(status=204)

    def _list_pins(self, channel_id: str, allowed: int, route: str) -> web.Response:
        if not allowed & p.READ_MESSAGE_HISTORY:
            raise DiscordError(403, 50013, "Missing Permissions")
        items = [
            {"pinned_at": at, "message": self.messages[mid]}
            for mid, at in self.pins.get(channel_id, [])
        ]
        return _json({"items": items, "has_more": False}, route=route)

    async def _dispatch(self, event: str, data: dict[str, Any]) -> None:
        if not self._gateways:
            raise AssertionError("the bot is not connected to the gateway")
        guild_id = data.get("guild_id")
        if guild_id is not None and self.by_shard:  # the newest open connection of its shard
            for gateway in reversed(self._gateways):
                if not gateway.closed and gateway.serves(guild_id):
                    await gateway.dispatch(event, data)
                    return
            if any(gateway.shard is not None for gateway in self._gateways):
                return  # no process runs the server's shard now: Discord delivers nothing
        await self._gateways[-1].dispatch(event, data)

    async def wait_until_shard_ready(
        self, shard_id: int, count: int = 1, timeout: float = 120
    ) -> None:
        """Wait until shard ``shard_id`` has identified ``count`` times in all (and got its
        servers)."""

        def ready() -> bool:
            return sum(1 for _, shard, _ in self.identified if shard == shard_id) >= count

        async with self._ready_changed:
            try:
                await asyncio.wait_for(self._ready_changed.wait_for(ready), timeout)
            except TimeoutError:
                raise AssertionError(
                    f"shard {shard_id} did not identify {count} time(s) within {timeout} s"
                ) from None

    # -- gateway ---------------------------------------------------------------------------

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        self.gateway_compression = request.query.get("compress")
        gateway = _Gateway(ws, zlib_stream=self.gateway_compression == "zlib-stream")
        self._gateways.append(gateway)
        await gateway.send({"op": 10, "d": {"heartbeat_interval": 41250}, "s": None, "t": None})
        async for msg in ws:
            if msg.type not in (WSMsgType.TEXT, WSMsgType.BINARY):
                break
            frame = orjson.loads(msg.data)
            op = frame.get("op")
            if op == 1:  # HEARTBEAT
                await gateway.send({"op": 11, "d": None, "s": None, "t": None})
            elif op == 2:  # IDENTIFY
                await self._identified(gateway, frame["d"])
            elif op == 6:  # RESUME: this fake keeps no sessions
                await gateway.send({"op": 9, "d": False, "s": None, "t": None})
        gateway.closed = True
        return ws

    async def _identified(self, gateway: _Gateway, identify: dict[str, Any]) -> None:
        if identify.get("token") != f"Bot {self.token}" and identify.get("token") != self.token:
            await gateway.ws.close(code=4004, message=b"Authentication failed.")
            return
        self.identify = identify
        shard = identify.get("shard")
        if shard is not None and self.by_shard:
            gateway.shard = (int(shard[0]), int(shard[1]))
        guilds = [g for g in self.guild_ids if gateway.serves(g)]
        await gateway.dispatch(
            "READY",
            {
                "v": 10,
                "user": self.bot_user,
                "guilds": [{"id": guild_id, "unavailable": True} for guild_id in guilds],
                "session_id": "session-" + p.snowflake(),
                "resume_gateway_url": self.gateway_url,
                "shard": list(gateway.shard or shard or (0, 1)),
                "application": {"id": self.application_id, "flags": 0},
                "private_channels": [],
                "relationships": [],
            },
        )
        members = [p.member(person.user(), person.roles) for person in self.people.values()]
        members.append(p.member(self.bot_user, [self.bot_role_id]))
        for guild_id in guilds:
            first = guild_id == self.guild_id
            roles = list(self.roles.values()) if first else [
                p.role(guild_id, "@everyone", p.EVERYONE_PERMISSIONS, 0),
                p.role(self.bot_role_id, "Referee Bot", p.BOT_PERMISSIONS, 1,
                       bot_id=self.application_id),
            ]  # fmt: skip
            guild = p.guild(
                guild_id,
                "Wargames League" if first else f"Wargames League {self.guild_ids.index(guild_id)}",
                self.people["owner"].id,
                channels=[c for c in self.channels.values() if c["guild_id"] == guild_id],
                threads=list(self.threads.values()) if first else [],
                roles=roles,
                members=members,
            )
            await gateway.dispatch("GUILD_CREATE", guild)
        self._guild_sent.set()
        shard_id, count = gateway.shard or tuple(shard or (0, 1))
        async with self._ready_changed:
            self.identified.append((time.monotonic(), shard_id, count))
            self._ready_changed.notify_all()

    # -- REST ------------------------------------------------------------------------------

    async def _rest(self, request: web.Request) -> web.Response:
        path = "/" + request.match_info["path"]
        try:
            return await self._route(request, path)
        except DiscordError as exc:
            self.refusals.append((f"{request.method} {path}", exc.code))
            return _json({"code": exc.code, "message": exc.message}, exc.status, path)

    async def _route(self, request: web.Request, path: str) -> web.Response:
        parts = path.strip("/").split("/")
        method = request.method
        app = self.application_id
        if parts[0] == "interactions" and len(parts) == 4 and method == "POST":
            return await self._callback(request, parts[1], parts[2])
        if parts[0] == "webhooks" and len(parts) >= 3 and parts[1] == app:
            return await self._webhook(request, parts[2], parts[3:])
        if request.headers.get("Authorization") != f"Bot {self.token}":
            raise DiscordError(401, 0, "401: Unauthorized")
        if path == "/users/@me/channels" and method == "POST":
            return await self._open_dm(request, path)
        if parts[0] == "channels" and len(parts) >= 3 and parts[1] in self.dm_channels.values():
            return await self._dm_route(request, parts[1], parts[2:], path)
        if parts[0] == "channels" and len(parts) >= 3:
            return await self._channel_route(request, parts[1], parts[2:], path)
        if path == "/users/@me" and method == "GET":
            return _json(self.bot_user, route=path)
        if path == "/gateway/bot" and method == "GET":  # as AutoShardedClient asks it
            self.gateway_bot_requests += 1
            limit = {
                "total": 1000, "remaining": 1000 - len(self.identified),
                "reset_after": 14_400_000, "max_concurrency": self.max_concurrency,
            }  # fmt: skip
            data = {"url": self.gateway_url, "shards": self.recommended_shards}
            return _json({**data, "session_start_limit": limit}, route=path)
        if path == "/oauth2/applications/@me" and method == "GET":
            owner = self.people["owner"].user()
            return _json(p.application(app, "Referee", owner), route=path)
        if parts[:2] == ["applications", app] and parts[-1] == "commands":
            scope = parts[3] if len(parts) == 5 and parts[2] == "guilds" else None
            if len(parts) in (3, 5):
                return await self._commands(request, scope, path)
        self.unknown_routes.append(f"{method} {path}")
        raise DiscordError(404, 0, "404: Not Found")

    async def _commands(self, request: web.Request, scope: str | None, path: str) -> web.Response:
        if request.method == "GET":
            return _json(self.commands.get(scope, []), route=path)
        if request.method != "PUT":
            raise DiscordError(405, 0, "405: Method Not Allowed")
        body = await request.json()
        if len(body) > 100:
            raise DiscordError(400, 30032, "Maximum number of application commands reached (100)")
        for command in body:
            check_command(command)
        known = {c["name"]: c["id"] for c in self.commands.get(scope, [])}
        stored = []
        for command in body:
            command = dict(command)
            command["id"] = known.get(command["name"]) or p.snowflake()
            command["application_id"] = self.application_id
            command["version"] = p.snowflake()
            if command.get("default_member_permissions") is not None:  # Discord answers a string
                command["default_member_permissions"] = str(command["default_member_permissions"])
            if scope is not None:
                command["guild_id"] = scope
            stored.append(command)
        self.commands[scope] = stored
        self.sync_requests.append(scope)
        return _json(stored, route=path)

    async def _callback(
        self, request: web.Request, interaction_id: str, token: str
    ) -> web.Response:
        sent = self._interactions.get(token)
        if sent is None or sent.id != interaction_id:
            raise DiscordError(404, 10062, "Unknown interaction")
        if time.monotonic() - sent.sent_at > self.callback_deadline:
            raise DiscordError(404, 10062, "Unknown interaction")
        if sent.acknowledged:
            raise DiscordError(400, 40060, "Interaction has already been acknowledged.")
        body, files = await _read_body(request)
        kind = int(body["type"])
        data = dict(body.get("data") or {})
        if kind not in (CALLBACK_AUTOCOMPLETE, CALLBACK_MODAL):  # a message, or its edit
            _check_message(data)
        if kind == CALLBACK_AUTOCOMPLETE:
            _check_choices(data)
        if kind == CALLBACK_MODAL:
            if sent.payload["type"] in (INTERACTION_AUTOCOMPLETE, INTERACTION_MODAL_SUBMIT):
                raise DiscordError(400, 50035, "Invalid Form Body: a modal cannot answer this.")
            _check_modal(data)
        sent.acknowledged = True
        message: dict[str, Any] | None = None
        if kind in (CALLBACK_MESSAGE, CALLBACK_DEFERRED_MESSAGE):
            if kind == CALLBACK_DEFERRED_MESSAGE:
                data["flags"] = int(data.get("flags") or 0) | LOADING
            message = self._new_message(sent, data, files)
            sent.original_message_id = message["id"]
            sent.thinking = kind == CALLBACK_DEFERRED_MESSAGE
        elif kind in (CALLBACK_DEFERRED_UPDATE, CALLBACK_UPDATE_MESSAGE):
            message = sent.payload.get("message")
            if message is not None and kind == CALLBACK_UPDATE_MESSAGE:
                message.update(_message_fields(data, None))
            sent.original_message_id = message["id"] if message else None
        echoed = "with_response" in request.query
        sent.replies.put_nowait(Reply("callback", kind, data, files, message, echoed))
        if not echoed:
            return web.Response(status=204)
        response: dict[str, Any] = {
            "interaction": {
                "id": sent.id,
                "type": sent.payload["type"],
                "response_message_id": sent.original_message_id,
                "response_message_loading": kind == CALLBACK_DEFERRED_MESSAGE,
                "response_message_ephemeral": bool(int(data.get("flags") or 0) & EPHEMERAL),
            },
        }
        if message is not None:
            response["resource"] = {"type": kind, "message": message}
        return _json(response, route="/interactions/callback")

    async def _webhook(self, request: web.Request, token: str, rest: list[str]) -> web.Response:
        sent = self._interactions.get(token)
        if sent is None or not sent.acknowledged:
            raise DiscordError(404, 10015, "Unknown Webhook")
        if time.monotonic() - sent.sent_at > self.followup_window:
            raise DiscordError(401, 50027, "Invalid Webhook Token")
        route = "/webhooks/" + "/".join(rest[:1])
        if not rest and request.method == "POST":
            body, files = await _read_body(request)
            _check_message(body)
            if sent.thinking:  # the first follow-up after a defer replaces the "thinking" message
                created = self.messages[sent.original_message_id or ""]
                visibility = int(created.get("flags") or 0) & EPHEMERAL  # the defer decided it
                created.update(_message_fields(body, self._attachments(created["id"], files)))
                created["flags"] = visibility
                sent.thinking = False
            else:
                created = self._new_message(sent, body, files)
            sent.replies.put_nowait(Reply("followup", None, body, files, created))
            return _json(created, route=route)
        if len(rest) == 2 and rest[0] == "messages":
            message_id = sent.original_message_id if rest[1] == "@original" else rest[1]
            message = self.messages.get(message_id or "")
            if message is None:
                raise DiscordError(404, 10008, "Unknown Message")
            if request.method == "GET":
                return _json(message, route=route)
            if request.method == "PATCH":
                body, files = await _read_body(request)
                _check_message(body)
                attachments = self._attachments(message["id"], files) if files else None
                message.update(_message_fields(body, attachments))
                message["flags"] = int(message.get("flags") or 0) & ~LOADING
                message["edited_timestamp"] = p.now_iso()
                sent.thinking = False
                sent.replies.put_nowait(Reply("edit", None, body, files, message))
                return _json(message, route=route)
            if request.method == "DELETE":
                del self.messages[message["id"]]
                sent.replies.put_nowait(Reply("delete", None, {}, [], message))
                return web.Response(status=204)
        self.unknown_routes.append(f"{request.method} /webhooks/{{app}}/{{token}}/{rest}")
        raise DiscordError(404, 0, "404: Not Found")

    def _new_message(
        self, sent: SentInteraction, body: dict[str, Any], files: list[UploadedFile]
    ) -> dict[str, Any]:
        message_id = p.snowflake()
        attachments = self._attachments(message_id, files)
        message = p.message(
            message_id,
            sent.payload["channel_id"],
            self.bot_user,
            {**body, "attachments": attachments},
            application_id=self.application_id,
            guild_id=self.guild_id,
        )
        self.messages[message_id] = message
        return message

    def _attachments(self, message_id: str, files: list[UploadedFile]) -> list[dict[str, Any]]:
        return [
            {
                "id": p.snowflake(),
                "filename": upload.filename,
                "size": len(upload.data),
                "url": f"{self.api_base}/attachments/{message_id}/{upload.filename}",
                "proxy_url": f"{self.api_base}/attachments/{message_id}/{upload.filename}",
            }
            for upload in files
        ]


def _message_fields(
    body: Mapping[str, Any], attachments: list[dict[str, Any]] | None
) -> dict[str, Any]:
    """The fields of a stored message that an edit (or a follow-up replacing it) sets."""
    fields = {k: v for k, v in body.items() if k in ("content", "embeds", "components")}
    if attachments is not None:
        fields["attachments"] = attachments
    return fields


class _Gateway:
    """One websocket connection: sequence numbers and the connection-wide zlib stream."""

    def __init__(self, ws: web.WebSocketResponse, *, zlib_stream: bool) -> None:
        self.ws = ws
        self.shard: tuple[int, int] | None = None
        """``(shard id, shard count)`` the connection identified as (None: not sharded)."""
        self.closed = False
        self.sequence = 0
        self._compressor = zlib.compressobj() if zlib_stream else None
        self._lock = asyncio.Lock()

    async def send(self, frame: dict[str, Any]) -> None:
        text = orjson.dumps(frame)  # the same JSON as json.dumps, without its spaces
        async with self._lock:
            if self._compressor is None:
                await self.ws.send_str(text.decode())
            else:
                data = self._compressor.compress(text)
                await self.ws.send_bytes(data + self._compressor.flush(zlib.Z_SYNC_FLUSH))

    def serves(self, guild_id: str) -> bool:
        """Whether this connection gets the server's events (Discord: ``(id >> 22) % count``)."""
        return self.shard is None or (int(guild_id) >> 22) % self.shard[1] == self.shard[0]

    async def dispatch(self, event: str, data: dict[str, Any]) -> None:
        self.sequence += 1
        await self.send({"op": 0, "t": event, "s": self.sequence, "d": data})


def _snowflake_on_shard(shard_id: int, shards: int) -> str:
    """A fresh server id that Discord would put on shard ``shard_id`` of ``shards``."""
    while True:
        candidate = p.snowflake()
        if (int(candidate) >> 22) % shards == shard_id:
            return candidate


@functools.lru_cache(maxsize=256)
def _bucket(route: str) -> str:
    """The rate-limit bucket of a route (the same route, the same bucket)."""
    return hashlib.sha1(route.encode()).hexdigest()[:16]


def _json(data: Any, status: int = 200, route: str = "") -> web.Response:
    """A JSON response with exactly ``Content-Type: application/json`` and generous rate limits."""
    bucket = _bucket(route)
    headers = {
        "Content-Type": "application/json",
        "X-RateLimit-Limit": "50",
        "X-RateLimit-Remaining": "49",
        "X-RateLimit-Reset": f"{time.time() + 1:.3f}",
        "X-RateLimit-Reset-After": "1.000",
        "X-RateLimit-Bucket": bucket,
    }
    return web.Response(body=orjson.dumps(data), status=status, headers=headers)


async def _read_body(request: web.Request) -> tuple[dict[str, Any], list[UploadedFile]]:
    """The JSON body, or ``payload_json`` and the files of a multipart body."""
    if request.content_type == "application/json":
        return dict(await request.json(loads=orjson.loads)), []
    if not request.content_type.startswith("multipart/"):
        raise DiscordError(400, 50035, f"Unsupported Content-Type {request.content_type}")
    body: dict[str, Any] = {}
    files: list[UploadedFile] = []
    reader = await request.multipart()
    while (part := await reader.next()) is not None:
        if not isinstance(part, BodyPartReader):
            raise DiscordError(400, 50035, "Nested multipart bodies are not accepted.")
        if part.name == "payload_json":
            body = orjson.loads(await part.text())
        else:
            files.append(UploadedFile(part.filename or "file", bytes(await part.read())))
    return body, files


MAX_PINS = 250
"""Pinned messages a channel may hold (Discord raised it from 50 to 250 in 2025)."""


def _check_message(data: Mapping[str, Any]) -> None:
    """Discord's form checks on a message body (error 50035 Invalid Form Body), per message:
    every embed's characters summed, components too (``tests/fake_discord/limits.py``)."""
    try:
        limits.check_message(data)
    except limits.FormError as exc:
        raise DiscordError(400, 50035, f"Invalid Form Body: {exc}") from None


def _check_modal(data: Mapping[str, Any]) -> None:
    """Discord's checks on a modal: a title of 1-45 characters, a custom id of 1-100, 1-5 rows of
    one text input each, labels of 1-45 characters, lengths of at most 4000."""

    def refuse(why: str) -> DiscordError:
        return DiscordError(400, 50035, f"Invalid Form Body: modal: {why}")

    if not 1 <= len(str(data.get("title") or "")) <= 45:
        raise refuse("title must be 1-45 characters")
    if not 1 <= len(str(data.get("custom_id") or "")) <= 100:
        raise refuse("custom_id must be 1-100 characters")
    rows = data.get("components") or []
    if not 1 <= len(rows) <= 5:
        raise refuse("1 to 5 components")
    for row in rows:
        items = row.get("components") or []
        if row.get("type") != 1 or len(items) != 1 or items[0].get("type") != 4:
            raise refuse("each row holds one text input")
        item = items[0]
        if not 1 <= len(str(item.get("label") or "")) <= 45:
            raise refuse("a label must be 1-45 characters")
        if int(item.get("max_length", 4000)) > 4000:
            raise refuse("max_length is at most 4000")


def _check_choices(data: Mapping[str, Any]) -> None:
    try:
        limits.check_choices(data)
    except limits.FormError as exc:
        raise DiscordError(400, 50035, f"Invalid Form Body: {exc}") from None


COMMAND_NAME = re.compile(r"^[-_\w]{1,32}$")
COMMAND_SIZE_LIMIT = 8000


def check_command(command: Mapping[str, Any]) -> None:
    """Discord's checks on one slash command of a sync (error 50035 Invalid Form Body).

    Names of 1-32 lowercase word characters or dashes; descriptions of 1-100 characters; at most
    25 options per level and 25 choices per option; required options before optional ones; at
    most 8000 characters of names, descriptions and choices in the whole command.
    """

    def refuse(where: str, why: str) -> DiscordError:
        return DiscordError(400, 50035, f"Invalid Form Body: {where}: {why}")

    def walk(node: Mapping[str, Any], where: str) -> int:
        name, description = str(node.get("name", "")), str(node.get("description", ""))
        if not COMMAND_NAME.match(name) or name != name.lower():
            raise refuse(where, f"invalid name {name!r}")
        if not 1 <= len(description) <= 100:
            raise refuse(where, "description must be 1-100 characters")
        size = len(name) + len(description)
        choices = node.get("choices") or []
        if len(choices) > 25:
            raise refuse(where, "at most 25 choices")
        for choice in choices:
            if not 1 <= len(str(choice["name"])) <= 100:
                raise refuse(where, "choice names must be 1-100 characters")
            size += len(str(choice["name"])) + len(str(choice["value"]))
        options = node.get("options") or []
        if len(options) > 25:
            raise refuse(where, "at most 25 options")
        required = [bool(o.get("required")) for o in options if o.get("type") not in (1, 2)]
        if required != sorted(required, reverse=True):
            raise refuse(where, "required options must come before optional ones")
        for option in options:
            size += walk(option, f"{where}.{option.get('name')}")
        return size

    where = str(command.get("name"))
    if walk(command, where) > COMMAND_SIZE_LIMIT:
        raise refuse(where, f"names, descriptions and choices exceed {COMMAND_SIZE_LIMIT}")
