"""A channel's game in memory (:class:`Live`) and what a write decided (:class:`Change`)."""

from __future__ import annotations

import dataclasses
from typing import Any

from pydantic import BaseModel

from bot.dice.game_dice import DieRecord
from bot.storage import GameRow
from rules_core.dice import Roll
from rules_core.outcome import Step
from rules_core.system import GameSystem


@dataclasses.dataclass
class Live:
    """A channel's game as it is: its stored row, its state parsed, its system."""

    row: GameRow
    state: BaseModel
    system: GameSystem[Any, Any]


@dataclasses.dataclass
class Change:
    """What a write decided, to be committed as the game's next log entry: its kind and data,
    the dice it read, and what it changes of the game (state, table, seeds, status)."""

    kind: str
    data: dict[str, Any]
    dice: list[DieRecord] = dataclasses.field(default_factory=list)
    state: BaseModel | None = None
    table: dict[str, Any] | None = None
    players_mix: bytes | None = None
    reveal: tuple[int, bytes] | None = None
    new_seed: bytes | None = None
    status: str | None = None
    shown: Shown | None = None
    """The steps, facts and rolls as the rules made them, for the reply (not logged as such)."""
    ran: BaseModel | None = None
    """The system action that ran (its phase change names the next player); not logged as such."""
    at: str | None = None
    """The entry's time, when the decision read the clock itself (a pause's end is counted from
    it); None: the commit reads the clock."""
    plain: bool = False
    """``data`` holds JSON's own values only and no float (``model_dump(mode="json")`` of
    float-free models, strings, integers): the entry is sealed by orjson
    (:func:`bot.log.gamelog.seal`), the same text faster. False: the standard library's."""


Shown = tuple[tuple[Step, ...], tuple[tuple[str, str], ...], tuple[Roll, ...]]


def copy_table(table: dict[str, Any]) -> dict[str, Any]:
    copy: dict[str, Any] = {
        **table,  # a beacon game's chain and pending declaration are replaced, never mutated
        "sides": list(table["sides"]),
        "seats": dict(table["seats"]),
        "referees": list(table["referees"]),
        "voided": list(table["voided"]),
        "proposals": list(table.get("proposals", ())),
        "voids": dict(table.get("voids", {})),
    }
    if "awaiting_ruling" in table:  # disputes and claims waiting for a referee's ruling
        copy["awaiting_ruling"] = list(table["awaiting_ruling"])
    if table.get("scripted"):
        copy["scripted"] = True
    return copy
