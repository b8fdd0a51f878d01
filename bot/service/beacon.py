"""Beacon dice in the pipeline: declarations waiting for their drand round, resolved later."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel

from bot.dice.beacon.chain import Beacon, ChainInfo, round_time
from bot.dice.beacon.games import BeaconNotConfigured, DeclarationWaiting
from bot.dice.game_dice import GameDice
from bot.errors import BadCommand, NoGameHere, NotYourSide
from bot.log.gamelog import outcome_json
from bot.models import Actor, Place, Reply
from bot.service.change import Change, Live, Shown, copy_table
from bot.service.core import Core
from bot.service.handlers import write
from bot.service.permissions import free_hand, missing_sides, require_referee
from bot.storage import GameRow
from bot.table import commands as gc
from rules_core.errors import InvalidInput
from rules_core.outcome import Step
from rules_core.roll import parse_expression, roll_expression


def refuse_while_pending(row: GameRow) -> None:
    """Nothing else is written in a game whose declaration waits for its beacon round."""
    pending = row.table.get("pending")
    if pending:
        raise DeclarationWaiting(
            f"Entry {pending['seq']} is still waiting for beacon round {pending['round']}, so "
            "nothing else can happen in this game until it resolves (a referee may /game cancel "
            "it)."
        )


def beacon_status(table: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """The beacon lines of /game status: the chain, and the declaration waiting, if any."""
    chain = table["beacon"]
    pending = table.get("pending")
    return (
        ("Beacon", f"{chain['name']} (chain {chain['chain_hash'][:16]}…), a round every "
                   f"{chain['period']} s"),
        ("Waiting for its beacon round",
         f"entry #{pending['seq']}, round {pending['round']}" if pending else "nothing"),
    )  # fmt: skip


def beacon_chain_for(core: Core, mode: str) -> ChainInfo | None:
    """The chain of a new game with ``mode`` dice (None: server dice)."""
    if mode != "beacon":
        return None
    if core.beacon is None:
        raise BeaconNotConfigured(
            "This bot has no beacon relays configured; start the game with dice:server."
        )
    if core.script is not None:
        raise BadCommand("Scripted dice cannot stand in for beacon dice; use dice:server.")
    return core.beacon.chain


def declare(core: Core, live: Live, data: dict[str, Any]) -> Change:
    """The ``declared`` entry of a valid action or roll of a beacon game: it names round R,
    the first published at least the margin after now; nothing is rolled yet."""
    if core.beacon is None:
        raise BeaconNotConfigured(
            "This bot has no beacon relays configured now, so this beacon game cannot roll."
        )
    chain = ChainInfo.from_json(live.row.table["beacon"])
    r = core.beacon.target_round(chain)
    table = copy_table(live.row.table)
    table["pending"] = {"seq": live.row.head_seq + 1, "round": r, "sides": data.get("sides", [])}
    due = datetime.fromtimestamp(round_time(chain, r), UTC).isoformat()
    return Change(kind="declared", data={**data, "round": r, "round_at": due}, table=table)


@write(gc.GameCancel, pending="act")
def cancel(core: Core, live: Live, actor: Actor, command: gc.GameCancel) -> Change:
    """/game cancel: a referee cancels the declaration waiting for its beacon round."""
    row = live.row
    require_referee(row, actor, "cancel a declaration")
    pending = row.table.get("pending")
    if not pending:
        raise InvalidInput("No declaration of this game is waiting for a beacon round.")
    if not free_hand(row, actor):  # a referee who plays cancels only their own side's
        missing = missing_sides(row, actor, pending.get("sides", row.table["sides"]))
        if missing:
            raise NotYourSide(
                f"The declaration waiting concerns {' and '.join(missing)}; only a referee "
                "without a seat may cancel it."
            )
    table = copy_table(row.table)
    del table["pending"]
    return Change(
        kind="game.cancel",
        data={"entry": pending["seq"], "round": pending["round"], "reason": command.reason},
        table=table,
    )


def after_beacon_change(core: Core, place: Place, game_id: int, change: Change) -> None:
    """Start resolving a new declaration; stop resolving a cancelled one."""
    if core.resolver is None or change.table is None:
        return
    if change.kind == "declared":
        pending = change.table["pending"]
        chain = ChainInfo.from_json(change.table["beacon"])
        core.resolver.schedule(place, game_id, pending["seq"], pending["round"], chain)
    elif change.kind == "game.cancel":
        core.resolver.cancel(place, int(change.data["entry"]))


async def resolve_declaration(
    core: Core, place: Place, game_id: int, seq: int, beacon: Beacon
) -> Reply | None:
    """Append the ``resolved`` entry of declaration ``seq`` with the dice of ``beacon``
    (holding the game in the database: another process cannot write it in between)."""
    async with core.locked(place, hold=True):
        try:
            live = await core.load(place, locked=True)
        except NoGameHere:
            return None
        row = live.row
        pending = row.table.get("pending")
        if row.id != game_id or not pending or pending["seq"] != seq:
            return None
        if beacon.round != pending["round"]:
            raise ValueError(f"round {beacon.round} is not the declared {pending['round']}")
        stored = await core.repo.entries(row.id, after=seq - 1, upto=seq)
        declared = stored[0].data()
        dice = GameDice(
            row.seed,
            game=row.public_id,
            players=row.players_mix,
            next_seq=row.next_die,
            epoch=row.epoch,
            beacon=beacon.randomness,
        )
        state: BaseModel | None = None
        if declared["declares"] == "action":
            action = live.system.parse_action(declared["action"])
            outcome = live.system.run(live.state, action, dice)
            data: dict[str, Any] = {
                "resolves": "action",
                "action": declared["action"],
                "side": declared["side"],
                "sides": declared["sides"],
                "outcome": outcome_json(outcome),
            }
            if "agreed" in declared:
                data["agreed"] = declared["agreed"]
            state = outcome.state
            shown: Shown = (outcome.steps, outcome.facts, outcome.rolls)
        else:
            expression = parse_expression(declared["expression"])
            result = roll_expression(
                expression,
                dice,
                reason=declared["reason"],
                category=declared.get("category", ""),
            )
            data = {
                "resolves": "roll",
                "expression": declared["expression"],
                "reason": declared["reason"],
                "total": result.total,
                "text": result.render(),
                "rolls": [r.model_dump(mode="json") for r in result.rolls],
                "sides": declared["sides"],
            }
            category = str(declared.get("category", ""))
            notes: tuple[Step, ...] = ()
            if category:
                held = declared["sides"]
                notes = tuple(
                    n
                    for r in result.rolls
                    for n in live.system.roll_notes(live.state, category, r, held)
                )
            if category:
                data["category"] = category
            if expression.repeat > 1:
                data["totals"] = list(result.totals)
            if notes:
                data["notes"] = [n.model_dump(mode="json") for n in notes]
            shown = (notes, (), tuple(result.rolls))
        table = copy_table(row.table)
        del table["pending"]
        change = Change(
            kind="resolved",
            data={**data, "declared": seq, "beacon": beacon.to_json()},
            dice=dice.records,
            state=state,
            table=table,
            shown=shown,
        )
        by = declared["by"]
        actor = Actor(user_id=int(by["id"]), name=str(by["name"]))
        interaction = f"{declared['interaction']}:resolved"
        return await core.commit(place, live, actor, interaction, change)
