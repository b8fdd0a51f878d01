"""/game seal and /game reveal: sealed notes for hidden information (HIP, fortifications, orders).

A sealed note's **commitment** is the lowercase hex SHA-256 of the UTF-8 bytes of
``salt + "\\n" + text``, where ``salt`` is 32 lowercase hex digits (16 random bytes). Only the
commitment is posted and logged (``game.seal``, with who sealed it); the text is posted and
logged when it is revealed (``game.reveal``), and both verifiers check it against the commitment
sealed at that entry. Sealed by the bot (``text:``), the note's text and salt are kept with the
game's table — never in the log, a reply, the status or the board — and revealed by
``/game reveal`` or, at the latest, at ``/game end`` with the dice seed. A player who does not
want even the operator to read it seals a commitment they computed themselves
(``commitment:``, docs/guide/TABLE.md) and reveals ``text`` and ``salt`` with ``/game reveal``
before the game ends.

>>> note_commitment("00" * 16, "HIP: 4-6-7 in K4")
'1215fae613e8175e5296d19cf47e60640440258adae7eb2d74b4b27090050610'
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from bot.errors import NotYourSide
from bot.models import Actor
from bot.service.change import Change, Live, copy_table
from bot.service.core import Core
from bot.service.handlers import write
from bot.service.permissions import require_player
from bot.table import commands as gc
from rules_core.errors import InvalidInput

HEX64 = re.compile(r"[0-9a-f]{64}")
SALT = re.compile(r"[0-9a-f]{32}")


def note_commitment(salt: str, text: str) -> str:
    """The commitment of a sealed note: SHA-256 of ``salt + "\\n" + text`` (UTF-8), in hex."""
    return hashlib.sha256(f"{salt}\n{text}".encode()).hexdigest()


def sealed(table: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The game's sealed notes by entry number (as text): who sealed each, whether the bot holds
    its text (and then the text and salt), whether it was revealed."""
    notes: dict[str, dict[str, Any]] = table.get("sealed", {})
    return notes


@write(gc.GameSeal)
def seal(core: Core, live: Live, actor: Actor, command: gc.GameSeal) -> Change:
    """Seal a note: the bot's own commitment of ``text``, or the player's ``commitment``."""
    row = live.row
    require_player(row, actor)
    text, own = command.text.strip(), command.commitment.strip().lower()
    if bool(text) == bool(own):
        raise InvalidInput(
            "Give the hidden text (text:) for the bot to seal, or your own commitment "
            "(commitment:, 64 hex digits), not both."
        )
    if own and not HEX64.fullmatch(own):
        raise InvalidInput(f"A commitment is 64 hex digits (SHA-256), not {own[:20]!r}.")
    note: dict[str, Any] = {"by": {"id": actor.user_id, "name": actor.name}, "revealed": None}
    if text:
        salt = core.seeds()[:16].hex()
        own = note_commitment(salt, text)
        note.update(text=text, salt=salt)
    table = copy_table(row.table)
    table["sealed"] = {**sealed(row.table), str(row.head_seq + 1): note}
    return Change(kind="game.seal", data={"commitment": own, "held": bool(text)}, table=table)


@write(gc.GameReveal)
async def reveal(core: Core, live: Live, actor: Actor, command: gc.GameReveal) -> Change:
    """Reveal a sealed note: its sealer reveals it (with text and salt when it was their own
    commitment); the text must give the commitment sealed."""
    row = live.row
    note = sealed(row.table).get(str(command.entry))
    if note is None:
        raise InvalidInput(f"Entry {command.entry} is not a sealed note of this game.")
    if note["revealed"] is not None:
        raise InvalidInput(f"The note sealed at entry {command.entry} was revealed at entry "
                           f"{note['revealed']}.")  # fmt: skip
    if note["by"]["id"] != actor.user_id:
        raise NotYourSide(f"Only {note['by']['name']}, who sealed it, may reveal that note.")
    if "text" in note:
        if command.text or command.salt:
            raise InvalidInput(
                f"The bot holds this note: /game reveal entry:{command.entry} alone reveals it."
            )
        text, salt = note["text"], note["salt"]
    else:
        text, salt = command.text, command.salt.strip().lower()
        if not SALT.fullmatch(salt):
            raise InvalidInput("Give the text and the salt you sealed it with (32 hex digits).")
        stored = await core.repo.entries(row.id, after=command.entry - 1, upto=command.entry)
        if note_commitment(salt, text) != stored[0].data()["commitment"]:
            raise InvalidInput(
                f"That text and salt do not give the commitment sealed at entry {command.entry}; "
                "check both, character for character."
            )
    table = copy_table(row.table)
    table["sealed"] = {
        **sealed(row.table),
        str(command.entry): {**note, "revealed": row.head_seq + 1},
    }
    return Change(
        kind="game.reveal",
        data={"entry": command.entry, "text": text, "salt": salt},
        table=table,
    )


def revealed_at_end(table: dict[str, Any]) -> list[dict[str, Any]]:
    """Every note the bot holds that is not revealed yet: ``/game end`` reveals them."""
    return [
        {"entry": int(seq), "text": note["text"], "salt": note["salt"]}
        for seq, note in sorted(sealed(table).items(), key=lambda item: int(item[0]))
        if "text" in note and note["revealed"] is None
    ]


__all__ = ["note_commitment", "reveal", "revealed_at_end", "seal", "sealed"]
