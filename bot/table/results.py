"""/game result: a result both sides sign (docs/guide/TABLE.md, *League play*).

A player's result is a proposal the other side's player confirms (``/game confirm``) — or
disputes (``/game decline``): the game's result is then *disputed* until a referee without a
seat rules on it (``/game rule``, :mod:`bot.table.rulings`). A player who names the other side
the winner concedes: that is recorded at once, as a concession. A referee without a seat records
a result alone. Only a settled result is the game's (``table["result"]``, with how it was
settled), and only settled results reach the league's export (:mod:`bot.table.league`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.models import Actor
from bot.service.actions import propose
from bot.service.change import Change, Live, copy_table
from bot.service.core import Core
from bot.service.handlers import write
from bot.service.permissions import (
    free_hand,
    other_sides,
    require_player,
    side_named,
)
from bot.service.proposals import drop_proposal
from bot.service.replies import result_words
from bot.storage import GameRow
from bot.table import commands as gc
from bot.table.rulings import await_ruling, awaiting, rules_on
from rules_core.errors import InvalidInput

RESULT = "result"
"""The kind of matter a disputed result is (``awaiting_ruling``)."""

SETTLED = ("agreed", "conceded", "referee", "ruled")
"""How a result was settled: confirmed by the other side, conceded by the loser, recorded by a
referee without a seat, or granted by one's ruling on a dispute."""


def result_fields(row: GameRow, command: gc.GameResult) -> dict[str, Any]:
    """The result as the log records it: the winner and attacker as the game spells its sides,
    the scenario id checked."""
    sides = row.table["sides"]
    if len(sides) != 2:
        raise InvalidInput("A result names one winner of two sides; this game has more.")
    winner = "draw" if command.winner.strip().lower() == "draw" else None
    if winner is None and command.winner.strip().casefold() not in {
        side.casefold() for side in sides
    }:
        raise InvalidInput(
            f"{command.winner!r} is neither a side of this game nor a draw; "
            f"write winner:{sides[0]}, winner:{sides[1]} or winner:draw."
        )
    winner = winner or side_named(sides, command.winner)
    scenario = command.scenario.strip()
    if not all(ch.isalnum() or ch in "-_." for ch in scenario):
        raise InvalidInput(f"Write the scenario's id as published, like FT91, not {scenario!r}.")
    return {
        "winner": winner,
        "scenario": scenario,
        "attacker": side_named(sides, command.attacker),
        "tournament": command.tournament.strip(),
        "round": command.round,
    }


def _refuse_unsettled(row: GameRow) -> None:
    """A result is not recorded or proposed while another waits for the other side or for a
    referee's ruling."""
    for matter in awaiting(row.table, RESULT):
        entry = matter["entry"]
        raise InvalidInput(
            f"The result is disputed (entry {entry}); a referee without a seat rules on it "
            f"first (/game rule entry:{entry})."
        )
    for proposal in row.table.get("proposals", ()):
        if proposal["command"].get("action") == "game.result":
            entry = proposal["entry"]
            raise InvalidInput(
                f"Proposal {entry} of a result waits for the other side to confirm or dispute "
                f"it; its proposer may withdraw it (/game decline entry:{entry})."
            )


def _refuse_against_forfeit(row: GameRow, fields: Mapping[str, Any]) -> None:
    """After a forfeit granted by a referee's ruling, the result names its winner."""
    forfeit = row.table.get("forfeit")
    if forfeit and fields["winner"] != forfeit["side"]:
        raise InvalidInput(
            f"Entry {forfeit['entry']} granted {forfeit['side']} a win by forfeit; the result "
            f"names winner:{forfeit['side']}."
        )


def _recorded(
    row: GameRow,
    actor: Actor,
    result: dict[str, Any],
    settled: str,
    agreed: dict[str, Any] | None = None,
) -> Change:
    """The ``game.result`` entry of a settled result, and the game's result."""
    table = copy_table(row.table)
    table["result"] = settled_result(row, actor, result, settled)
    data: dict[str, Any] = {**result, "settled": settled}
    if agreed is not None:
        data["agreed"] = agreed
        drop_proposal(table, agreed)
    return Change(kind="game.result", data=data, table=table)


def _confirmed(
    core: Core, live: Live, actor: Actor, command: gc.GameResult, agreed: dict[str, Any]
) -> Change:
    """A proposed result the other side confirmed — or a referee without a seat, whose result it
    then is (the other side's player never agreed)."""
    settled = "referee" if free_hand(live.row, actor) else "agreed"
    return _recorded(live.row, actor, result_fields(live.row, command), settled, agreed)


def _disputed(
    core: Core, live: Live, actor: Actor, proposal: dict[str, Any], reason: str
) -> Change:
    """The other side's player refuses a proposed result: the game's result is disputed until
    a referee without a seat rules on it."""
    row = live.row
    result = {k: v for k, v in proposal["command"].items() if k != "action"}
    table = copy_table(row.table)
    table["proposals"] = [p for p in table["proposals"] if p["entry"] != proposal["entry"]]
    seq = row.head_seq + 1
    await_ruling(
        table,
        seq,
        RESULT,
        result=result,
        proposal=proposal["entry"],
        proposed_by=proposal["by"],
        by={"id": actor.user_id, "name": actor.name},
    )
    return Change(
        kind="game.dispute",
        data={"entry": proposal["entry"], "reason": reason, "result": result},
        table=table,
    )


@write(gc.GameResult, agreed=_confirmed, disputed=_disputed)
def result(core: Core, live: Live, actor: Actor, command: gc.GameResult) -> Change:
    """/game result: a referee without a seat records it; a player proposes it to the other side,
    or concedes by naming the other side the winner."""
    row = live.row
    require_player(row, actor)
    fields = result_fields(row, command)
    _refuse_unsettled(row)
    _refuse_against_forfeit(row, fields)
    if free_hand(row, actor):
        return _recorded(row, actor, fields, "referee")
    settled = row.table.get("result")
    if settled:
        raise InvalidInput(
            f"This game's result is settled ({result_words(settled)}); only a referee without a "
            "seat may record another."
        )
    others = other_sides(row, actor)
    if fields["winner"] in others:  # the other side wins: a concession needs nobody's word
        return _recorded(row, actor, fields, "conceded")
    spelled = gc.GameResult.model_validate({"action": "game.result", **fields})
    return propose(live, actor, spelled, list(row.table["sides"]), others)


def settled_result(
    row: GameRow, actor: Actor, result: Mapping[str, Any], settled: str
) -> dict[str, Any]:
    """The game's result as its table keeps it: how, by whom and at which entry it was settled."""
    by = {"id": actor.user_id, "name": actor.name}
    return {**result, "settled": settled, "entry": row.head_seq + 1, "by": by}


@rules_on(RESULT)
def _ruled(
    live: Live, actor: Actor, matter: Mapping[str, Any], command: gc.GameRule, table: dict[str, Any]
) -> dict[str, Any]:
    """A ruling on a disputed result: granted, it is the game's result; refused, there is none
    (the players may propose another)."""
    result = dict(matter["result"])
    if command.decision == "grant":
        table["result"] = settled_result(live.row, actor, result, "ruled")
    return {"result": result}


def settled_by(result: Mapping[str, Any]) -> str:
    """How the game's result was settled, in words.

    >>> settled_by({"settled": "ruled", "by": {"name": "org"}, "entry": 12})
    'ruled by org, a referee without a seat (entry 12)'
    >>> settled_by({"winner": "Axis"})  # recorded before results needed both sides
    'recorded by one side (before results needed both sides)'
    """
    how = str(result.get("settled"))
    if how not in SETTLED:
        return "recorded by one side (before results needed both sides)"
    name, entry = result["by"]["name"], result["entry"]
    said = {
        "agreed": f"confirmed by {name}",
        "conceded": f"conceded by {name}",
        "referee": f"recorded by {name}, a referee without a seat",
        "ruled": f"ruled by {name}, a referee without a seat",
    }[how]
    return f"{said} (entry {entry})"


__all__ = ["RESULT", "SETTLED", "result", "result_fields", "settled_by"]
