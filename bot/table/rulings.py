"""/game rule: a referee without a seat rules on what the players could not settle between them —
a disputed result (:mod:`bot.table.results`), a claim — by the entry that asked for the ruling,
with a decision and a reason, logged as ``game.ruling``.

What may be ruled on waits in the game's table under ``awaiting_ruling``, one *matter* each:
``{"entry": N, "kind": "result", …}``, put there by the entry ``N`` that raised it
(:func:`await_ruling`). Each kind of matter registers what a ruling on it does
(:func:`rules_on`): a module that raises a new kind of matter registers its ruling beside it, and
``/game rule`` needs nothing else.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from bot.errors import BadCommand
from bot.models import Actor
from bot.service.change import Change, Live, copy_table
from bot.service.core import Core
from bot.service.handlers import write
from bot.service.permissions import require_free_hand
from bot.table import commands as gc
from rules_core.errors import InvalidInput

Ruling = Callable[[Live, Actor, Mapping[str, Any], gc.GameRule, dict[str, Any]], dict[str, Any]]
"""What a ruling on a kind of matter does: ``(live, referee, matter, command, table)`` changes
``table`` (a copy) and returns what the ``game.ruling`` entry records besides the entry,
the decision and the reason."""

RULINGS: dict[str, Ruling] = {}
"""The ruling of each kind of matter, registered by :func:`rules_on`."""


def rules_on(kind: str) -> Callable[[Ruling], Ruling]:
    """Register the decorated function as what a ruling on a matter of ``kind`` does."""

    def register(ruling: Ruling) -> Ruling:
        if RULINGS.get(kind, ruling) is not ruling:
            raise ValueError(f"matters of kind {kind!r} have two rulings")
        RULINGS[kind] = ruling
        return ruling

    return register


def await_ruling(table: dict[str, Any], entry: int, kind: str, **facts: Any) -> None:
    """Put a matter of ``kind``, raised by entry ``entry``, before the referees (``table``: a
    copy of the game's table)."""
    table.setdefault("awaiting_ruling", [])
    table["awaiting_ruling"].append({"entry": entry, "kind": kind, **facts})


def awaiting(table: Mapping[str, Any], kind: str | None = None) -> list[dict[str, Any]]:
    """The matters waiting for a ruling (of ``kind``, if given)."""
    return [m for m in table.get("awaiting_ruling", ()) if kind is None or m["kind"] == kind]


def refuse_while_awaiting_ruling(table: Mapping[str, Any], doing: str) -> None:
    """Refuses ``doing`` while a dispute or a claim waits for a referee's ruling."""
    waiting = awaiting(table)
    if waiting:
        entry = waiting[0]["entry"]
        raise InvalidInput(
            f"Entry {entry} waits for a ruling; a referee without a seat rules on it "
            f"(/game rule entry:{entry}) before {doing}."
        )


@write(gc.GameRule, pending="refuse")
def rule(core: Core, live: Live, actor: Actor, command: gc.GameRule) -> Change:
    """/game rule: a referee without a seat grants or refuses a disputed result or a claim."""
    row = live.row
    require_free_hand(row, actor, "rule on a dispute or a claim")
    matter = next((m for m in awaiting(row.table) if m["entry"] == command.entry), None)
    if matter is None:
        waiting = ", ".join(str(m["entry"]) for m in awaiting(row.table))
        raise InvalidInput(
            f"Entry {command.entry} is not a dispute or a claim waiting for a ruling"
            + (f"; these are: {waiting}." if waiting else "; nothing waits for one.")
        )
    reason = command.reason.strip()
    if not reason:
        raise BadCommand("Give the ruling's reason in words (reason:…): it goes in the log.")
    ruling = RULINGS.get(matter["kind"])
    if ruling is None:
        raise BadCommand(f"This bot cannot rule on a matter of kind {matter['kind']!r}.")
    table = copy_table(row.table)
    table["awaiting_ruling"] = [m for m in awaiting(table) if m["entry"] != command.entry]
    recorded = ruling(live, actor, matter, command, table)
    data = {
        "entry": command.entry,
        "matter": matter["kind"],
        "decision": command.decision,
        "reason": reason,
        **recorded,
    }
    return Change(kind="game.ruling", data=data, table=table)


__all__ = [
    "RULINGS",
    "await_ruling",
    "awaiting",
    "refuse_while_awaiting_ruling",
    "rule",
    "rules_on",
]
