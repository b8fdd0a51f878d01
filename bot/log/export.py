"""The export of a game's log (docs/EXPORT.md)."""

from __future__ import annotations

from bot.log.gamelog import FORMAT_VERSION, canonical
from bot.log.signing import signer
from bot.storage import GameRow, Repository


async def export_game(repo: Repository, row: GameRow) -> str:
    """The game's log in the export format of docs/EXPORT.md (JSON Lines, header first), its
    head signed by the bot's key (:mod:`bot.log.signing`)."""
    header = {
        "format": "referee-game-log",
        "version": FORMAT_VERSION,
        "game": row.public_id,
        "system": row.system,
        "title": row.title,
        "status": row.status,
        "guild": row.guild_id,
        "channel": row.channel_id,
        "head": {"seq": row.head_seq, "hash": row.head_hash},
        "dice": "docs/DICE.md version 2" if row.table.get("beacon") else "docs/DICE.md version 1",
    }
    key = await signer(repo)
    signature = key.sign_head(row.public_id, row.head_seq, row.head_hash)
    header["signature"] = {"key": key.public_key, "sig": signature}
    lines = [canonical(header)]
    for stored in await repo.entries(row.id, upto=row.head_seq):
        data = stored.data()
        data["hash"] = stored.hash
        lines.append(canonical(data))
    return "\n".join(lines) + "\n"
