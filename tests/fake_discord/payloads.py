"""Discord JSON objects as the real API shapes them (API v10), with string snowflakes.

Only the fields discord.py 2.7 reads are filled in, plus the ones Discord always sends.
"""

from __future__ import annotations

import itertools
import time
from datetime import UTC, datetime
from typing import Any

DISCORD_EPOCH_MS = 1420070400000
_increment = itertools.count(1)

# Permission bits (https://discord.com/developers/docs/topics/permissions).
ADMINISTRATOR = 1 << 3
VIEW_CHANNEL = 1 << 10
SEND_MESSAGES = 1 << 11
MANAGE_MESSAGES = 1 << 13
EMBED_LINKS = 1 << 14
ATTACH_FILES = 1 << 15
READ_MESSAGE_HISTORY = 1 << 16
SEND_MESSAGES_IN_THREADS = 1 << 38
PIN_MESSAGES = 1 << 51
EVERYONE_PERMISSIONS = 0x0000_0640_0000_0000 | (1 << 10) | (1 << 11) | (1 << 16) | (1 << 31)
VOICE_PERMISSIONS = 0x1_2480_03F0_0300
"""Connect, Speak, soundboard and the other voice permissions, which a text channel has none of."""
BOT_PERMISSIONS = EMBED_LINKS | ATTACH_FILES | PIN_MESSAGES
"""What the bot's own (managed) role grants on top of ``@everyone``, as its invite asks."""

OPTION_SUB_COMMAND = 1
OPTION_SUB_COMMAND_GROUP = 2


def snowflake() -> str:
    """A fresh, increasing snowflake id (as Discord sends it: a string)."""
    ms = int(time.time() * 1000) - DISCORD_EPOCH_MS
    return str((ms << 22) | (next(_increment) & 0x3FFFFF))


def now_iso() -> str:
    return datetime.now(UTC).isoformat()


def user(user_id: str, name: str, *, bot: bool = False) -> dict[str, Any]:
    return {
        "id": user_id,
        "username": name,
        "global_name": name,
        "discriminator": "0",
        "avatar": None,
        "bot": bot,
        "public_flags": 0,
        "flags": 0,
    }


def member(user_obj: dict[str, Any], roles: list[str]) -> dict[str, Any]:
    return {
        "user": user_obj,
        "nick": None,
        "avatar": None,
        "roles": roles,
        "joined_at": now_iso(),
        "deaf": False,
        "mute": False,
        "flags": 0,
        "pending": False,
    }


def role(
    role_id: str, name: str, permissions: int, position: int, *, bot_id: str | None = None
) -> dict[str, Any]:
    """A role; ``bot_id`` makes it the managed role Discord creates for a bot it invites."""
    found = {
        "id": role_id,
        "name": name,
        "color": 0,
        "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
        "hoist": False,
        "icon": None,
        "unicode_emoji": None,
        "position": position,
        "permissions": str(permissions),
        "managed": bot_id is not None,
        "mentionable": False,
        "flags": 0,
    }
    if bot_id is not None:
        found["tags"] = {"bot_id": bot_id}
    return found


def text_channel(channel_id: str, guild_id: str, name: str, position: int) -> dict[str, Any]:
    return {
        "id": channel_id,
        "type": 0,
        "guild_id": guild_id,
        "name": name,
        "position": position,
        "permission_overwrites": [],
        "nsfw": False,
        "parent_id": None,
        "topic": None,
        "last_message_id": None,
        "rate_limit_per_user": 0,
        "flags": 0,
    }


def thread(
    thread_id: str, guild_id: str, parent_id: str, owner_id: str, name: str
) -> dict[str, Any]:
    """A public thread (type 11) of a text channel."""
    return {
        "id": thread_id,
        "type": 11,
        "guild_id": guild_id,
        "parent_id": parent_id,
        "owner_id": owner_id,
        "name": name,
        "last_message_id": None,
        "message_count": 0,
        "member_count": 2,
        "total_message_sent": 0,
        "rate_limit_per_user": 0,
        "flags": 0,
        "applied_tags": [],
        "thread_metadata": {
            "archived": False,
            "auto_archive_duration": 1440,
            "archive_timestamp": now_iso(),
            "locked": False,
            "create_timestamp": now_iso(),
        },
    }


def guild(
    guild_id: str,
    name: str,
    owner_id: str,
    *,
    channels: list[dict[str, Any]],
    threads: list[dict[str, Any]],
    roles: list[dict[str, Any]],
    members: list[dict[str, Any]],
) -> dict[str, Any]:
    return {
        "id": guild_id,
        "name": name,
        "icon": None,
        "splash": None,
        "discovery_splash": None,
        "owner_id": owner_id,
        "afk_channel_id": None,
        "afk_timeout": 300,
        "verification_level": 0,
        "default_message_notifications": 0,
        "explicit_content_filter": 0,
        "roles": roles,
        "emojis": [],
        "stickers": [],
        "features": [],
        "mfa_level": 0,
        "application_id": None,
        "system_channel_id": None,
        "system_channel_flags": 0,
        "rules_channel_id": None,
        "vanity_url_code": None,
        "description": None,
        "banner": None,
        "premium_tier": 0,
        "premium_subscription_count": 0,
        "preferred_locale": "en-US",
        "public_updates_channel_id": None,
        "nsfw_level": 0,
        "premium_progress_bar_enabled": False,
        "joined_at": now_iso(),
        "large": False,
        "unavailable": False,
        "member_count": len(members),
        "members": members,
        "channels": channels,
        "threads": threads,
        "presences": [],
        "voice_states": [],
        "stage_instances": [],
        "guild_scheduled_events": [],
        "soundboard_sounds": [],
    }


def message(
    message_id: str,
    channel_id: str,
    author: dict[str, Any],
    body: dict[str, Any],
    *,
    application_id: str,
    guild_id: str | None,
    kind: int = 20,
    webhook: bool = True,
) -> dict[str, Any]:
    """The message Discord creates from a callback or webhook body (``content``, ``embeds``…),
    or (``kind`` 0, ``webhook`` false) one the bot posted in a channel itself."""
    msg: dict[str, Any] = {
        "id": message_id,
        "channel_id": channel_id,
        "author": author,
        "content": body.get("content") or "",
        "timestamp": now_iso(),
        "edited_timestamp": None,
        "tts": False,
        "mention_everyone": False,
        "mentions": [],
        "mention_roles": [],
        "attachments": body.get("attachments", []),
        "embeds": body.get("embeds", []),
        "components": body.get("components", []),
        "pinned": False,
        "type": kind,
        "flags": int(body.get("flags") or 0),
    }
    if webhook:
        msg["webhook_id"] = application_id
        msg["application_id"] = application_id
    if guild_id is not None:
        msg["guild_id"] = guild_id
    return msg


def application(app_id: str, name: str, owner: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": app_id,
        "name": name,
        "description": "",
        "icon": None,
        "bot_public": True,
        "bot_require_code_grant": False,
        "owner": owner,
        "team": None,
        "verify_key": "0" * 64,
        "flags": 0,
        "summary": "",
        "redirect_uris": [],
        "interactions_endpoint_url": None,
    }
