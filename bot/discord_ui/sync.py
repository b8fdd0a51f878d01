"""Command sync that stays clear of Discord's rate limits: sync only when the commands changed.

Discord allows few command syncs per day, and a bot that syncs at every start soon meets a 429.
So the JSON payload of the command tree is hashed, and the hash of the last successful sync is
kept in a small file next to the database (``referee.db`` → ``referee.db.sync.json``). At start
the bot syncs only if the hash differs; the owner-only ``/sync`` forces it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from pathlib import Path
from typing import Any

import discord
from discord import app_commands

log = logging.getLogger(__name__)

GLOBAL_SCOPE = "global"


def state_path(database: Path) -> Path:
    """Where the hashes of the last syncs are kept: beside the database file."""
    return database.with_name(database.name + ".sync.json")


def tree_payload(tree: app_commands.CommandTree[Any], guild: discord.abc.Snowflake | None) -> Any:
    """What ``tree.sync(guild=...)`` would send Discord, as JSON-ready data."""
    return [command.to_dict(tree) for command in tree.get_commands(guild=guild)]


def payload_hash(application_id: int | None, scope: str, payload: Any) -> str:
    """SHA-256 of the payload (and of the application and scope it is synced to)."""
    text = json.dumps(
        {"application_id": application_id, "scope": scope, "commands": payload},
        sort_keys=True,
        separators=(",", ":"),
        default=str,
    )
    return hashlib.sha256(text.encode()).hexdigest()


def _read(path: Path) -> dict[str, str]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def _write(path: Path, hashes: dict[str, str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(hashes, indent=2, sort_keys=True) + "\n")
    os.replace(temporary, path)


async def sync_commands(
    tree: app_commands.CommandTree[Any],
    state_file: Path,
    *,
    application_id: int | None,
    force: bool = False,
    guild: discord.abc.Snowflake | None = None,
) -> int | None:
    """Sync the tree's commands for ``guild`` (global when ``None``) if they changed.

    :returns: the number of commands synced, or ``None`` when nothing changed and no sync was
        needed. The new hash is stored only after Discord accepted the sync.
    :raises discord.HTTPException: when Discord refuses the sync (nothing is stored then).
    """
    scope = GLOBAL_SCOPE if guild is None else f"guild:{guild.id}"
    digest = payload_hash(application_id, scope, tree_payload(tree, guild))
    hashes = _read(state_file)
    if not force and hashes.get(scope) == digest:
        log.info("Commands unchanged since the last sync (%s); not syncing.", scope)
        return None
    synced = await tree.sync(guild=guild)
    hashes[scope] = digest
    _write(state_file, hashes)
    log.info("Synced %d commands (%s).", len(synced), scope)
    return len(synced)


__all__ = ["GLOBAL_SCOPE", "payload_hash", "state_path", "sync_commands", "tree_payload"]
