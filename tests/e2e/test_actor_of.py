"""Who is admin (``bot.discord_ui.handler.administers``) is what discord.py's
``guild_permissions`` and ``roles`` say, for every mix of owner, role permissions, the referee
role, the @everyone role and a timeout: discord.py's own ``Guild`` and ``Member`` built from
Discord's payloads."""

from __future__ import annotations

import datetime
import itertools
from typing import Any

import discord
import pytest
from discord.state import ConnectionState

from bot.discord_ui.handler import administers

GUILD, OWNER, MEMBER = 10, 1, 5
ADMIN, MANAGE, KICK = 1 << 3, 1 << 5, 1 << 1


def _role(role_id: int, name: str, permissions: int, position: int) -> dict[str, Any]:
    return {
        "id": str(role_id), "name": name, "permissions": str(permissions),
        "position": position, "color": 0, "hoist": False, "managed": False,
        "mentionable": False, "flags": 0,
    }  # fmt: skip


def _member(
    everyone: int, roles: list[tuple[str, int]], owner: bool, timed_out: bool
) -> discord.Member:
    state = ConnectionState(dispatch=lambda *_: None, handlers={}, hooks={}, http=None)  # type: ignore[arg-type]
    payload = [_role(GUILD, "@everyone", everyone, 0)]
    payload += [_role(20 + i, name, perms, i + 1) for i, (name, perms) in enumerate(roles)]
    guild_data: Any = {
        "id": str(GUILD),
        "name": "g",
        "owner_id": str(MEMBER if owner else OWNER),
        "roles": payload,
        "member_count": 2,
    }
    guild = discord.Guild(data=guild_data, state=state)
    now = datetime.datetime.now(datetime.UTC)
    until = now + datetime.timedelta(hours=1 if timed_out else -1)
    user = {"id": str(MEMBER), "username": "bob", "discriminator": "0", "avatar": None,
            "global_name": None}  # fmt: skip
    data = {"user": user, "roles": [str(20 + i) for i in range(len(roles))] + ["999"],
            "joined_at": None, "deaf": False, "mute": False, "flags": 0,
            "communication_disabled_until": until.isoformat()}  # fmt: skip
    return discord.Member(data=data, guild=guild, state=state)  # type: ignore[arg-type]


ROLE_SETS = [
    [],
    [("Players", KICK)],
    [("Referee", 0)],
    [("Mods", MANAGE)],
    [("Admins", ADMIN | KICK)],
    [("Players", 0), ("referee", MANAGE)],
]


@pytest.mark.parametrize(
    ("everyone", "roles", "owner", "timed_out", "referee_role"),
    list(
        itertools.product(
            [0, MANAGE], ROLE_SETS, [False, True], [False, True], ["Referee", "@everyone"]
        )
    ),
)
def test_admin_as_discord_py_says(
    everyone: int,
    roles: list[tuple[str, int]],
    owner: bool,
    timed_out: bool,
    referee_role: str,
) -> None:
    member = _member(everyone, roles, owner, timed_out)
    permissions = member.guild_permissions
    expected = (
        permissions.administrator
        or permissions.manage_guild
        or any(role.name == referee_role for role in member.roles)
    )
    assert administers(member, referee_role) is expected
