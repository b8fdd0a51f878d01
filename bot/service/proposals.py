"""/game void, /game confirm and /game decline: voiding entries, confirming or refusing
proposals — of system actions, and of the table commands a referee who plays may only propose
(each carried out by its own handler's ``agreed``: a seat, a result, a deadline, a pause…)."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Mapping
from typing import Any

from pydantic import BaseModel

from bot.errors import BadCommand, CannotVoid, NotYourSide
from bot.log.gamelog import VOIDABLE, ReplayError, rebuild_state
from bot.models import Actor
from bot.service.actions import propose, run_action
from bot.service.change import Change, Live, copy_table
from bot.service.core import Core
from bot.service.handlers import Write, write
from bot.service.options import command_path
from bot.service.permissions import free_hand, held_sides, other_sides, require_referee
from bot.storage import GameRow
from bot.table import commands as gc
from rules_core.scenario import SETUP_ACTION, SetupRefused


def _entry_sides(entry: Mapping[str, Any], sides: list[str]) -> list[str]:
    """The sides a logged action or roll concerns (older entries: the declared side, or all)."""
    if "sides" in entry:
        return list(entry["sides"])
    if entry.get("side"):
        return [entry["side"]]
    return list(sides)


def drop_proposal(table: dict[str, Any], agreed: Mapping[str, Any]) -> None:
    """Take the proposal an agreed entry carries out off the waiting list (``table``: a copy)."""
    table["proposals"] = [p for p in table["proposals"] if p["entry"] != agreed["proposal"]]


def _voided(
    core: Core, live: Live, actor: Actor, command: gc.GameVoid, agreed: dict[str, Any]
) -> Awaitable[Change]:
    return _void(core, live, actor, command, agreed)


@write(gc.GameVoid, pending="refuse", agreed=_voided)
async def void(core: Core, live: Live, actor: Actor, command: gc.GameVoid) -> Change:
    """/game void: a referee without a seat voids an entry (a referee who plays proposes the
    void to the other side)."""
    return await _void(core, live, actor, command)


async def _void(
    core: Core,
    live: Live,
    actor: Actor,
    command: gc.GameVoid,
    agreed: dict[str, Any] | None = None,
) -> Change:
    """A void of ``command.entry``; a playing referee's void of any entry becomes a proposal for
    the other side (or a referee without a seat)."""
    row = live.row
    if agreed is None:
        require_referee(row, actor, "void entries")
    voided = set(row.table["voided"])
    targets = await core.repo.entries(row.id, after=command.entry - 1, upto=command.entry)
    if not targets:
        raise CannotVoid(f"There is no entry {command.entry} in this game's log.")
    target = targets[0]
    if target.kind not in VOIDABLE:
        raise CannotVoid(_not_voidable(command.entry, target.kind))
    if command.entry in voided:
        raise CannotVoid(f"Entry {command.entry} is already void.")
    voided.add(command.entry)
    new_state: BaseModel | None = None
    if target.kind == "action" or (
        target.kind == "resolved" and target.data().get("resolves") == "action"
    ):
        entries = [e.data() for e in await core.repo.entries(row.id)]
        try:
            new_state = rebuild_state(live.system, entries, voided)
        except ReplayError as exc:
            raise CannotVoid(
                f"Entry {exc.seq} no longer replays without entry {command.entry} "
                f"({exc.reason}); void entry {exc.seq} first."
            ) from exc
    concerned = _entry_sides(target.data(), row.table["sides"])
    if agreed is None and held_sides(row, actor):
        # a referee who plays voids nothing alone, of either side: the other side agrees first
        return propose(live, actor, command, concerned, other_sides(row, actor))
    table = copy_table(row.table)
    table["voided"] = sorted(voided)
    voider = (
        agreed["proposed_by"]
        if agreed is not None
        else {
            "id": actor.user_id,
            "name": actor.name,
        }
    )
    count = table["voids"].get(str(voider["id"]), {"name": voider["name"], "count": 0})
    table["voids"][str(voider["id"])] = {"name": voider["name"], "count": count["count"] + 1}
    data: dict[str, Any] = {"entry": command.entry, "reason": command.reason}
    if agreed is not None:
        data["agreed"] = agreed
        drop_proposal(table, agreed)
    return Change(kind="game.void", data=data, table=table, state=new_state)


ENTRY_WORDS = {
    "game.new": "the game's start",
    "game.seat": "a seat taken",
    "game.referee.add": "a referee named",
    "game.referee.remove": "a referee removed",
    "game.seed": "a seed phrase",
    "game.rotate": "a new dice seed",
    "game.notices": "turn notices turned on or off",
    "game.result": "a result",
    "game.end": "the game's end",
    "game.void": "a void",
    "game.decline": "a proposal's refusal",
    "game.dispute": "a dispute",
    "game.ruling": "a ruling",
    "game.cancel": "a declaration's cancelling",
    "game.seal": "a sealed note",
    "game.reveal": "a note revealed",
    "game.deadline": "a deadline",
    "game.pause": "a pause",
    "game.resume": "a pause's end",
    "game.extend": "an extension",
    "game.missed": "a missed deadline",
    "game.claim": "a forfeit claim",
    "declared": "a declaration waiting for its beacon round",
}
"""What a log entry of each kind is, in the table's words (not the log's kinds)."""


def _not_voidable(entry: int, kind: str) -> str:
    """Why entry ``entry`` (of ``kind``) cannot be voided, in one sentence.

    >>> print(_not_voidable(4, "game.propose"))  # doctest: +ELLIPSIS
    Entry 4 is a proposal (#4), not an action or a roll: /game decline entry:4 refuses or ...
    >>> _not_voidable(2, "game.seat")
    'Entry 2 is a seat taken, not an action or a roll; only those can be voided.'
    """
    if kind == "game.propose":
        return (
            f"Entry {entry} is a proposal (#{entry}), not an action or a roll: "
            f"/game decline entry:{entry} refuses or withdraws it."
        )
    what = ENTRY_WORDS.get(kind, f"a {command_path(kind)} entry")
    return f"Entry {entry} is {what}, not an action or a roll; only those can be voided."


def _waiting(row: GameRow, entry: int) -> dict[str, Any]:
    """The proposal logged as ``entry`` that still waits for confirmation."""
    for proposal in row.table.get("proposals", ()):
        if proposal["entry"] == entry:
            return dict(proposal)
    raise CannotVoid(f"Entry {entry} is not a proposal waiting for confirmation.")


async def _lapse(core: Core, row: GameRow, entry: int) -> str | None:
    """Why proposal ``entry`` no longer waits when a reseat made it lapse (None: it did not)."""
    for later in await core.repo.entries(row.id, after=entry):
        if later.kind != "game.seat":
            continue
        seat = later.data()
        if entry in seat.get("lapsed", ()):
            return (
                f"Proposal {entry} lapsed at entry {later.seq}, when {seat['player']['name']} "
                f"took the {seat['side']} seat its proposer held; it can no longer be "
                f"confirmed (the {seat['side']} player may propose it again)."
            )
    return None


def _may_answer(row: GameRow, actor: Actor, proposal: Mapping[str, Any]) -> bool:
    """Whether the actor answers for the other side: a referee without a seat, or the player of
    a side the proposal waits for."""
    return free_hand(row, actor) or bool(set(held_sides(row, actor)) & set(proposal["needs"]))


def _table_handler(proposal: Mapping[str, Any], core: Core) -> Write | None:
    """The handler of the table command a proposal names (None: a system action, or a
    scenario's set-up, which every system runs as its own action)."""
    action = str(proposal["command"].get("action"))
    model = gc.TABLE_BY_ACTION.get(action)
    if model is None or action == SETUP_ACTION:
        return None
    handler = core.handlers.get(model)
    if not isinstance(handler, Write) or handler.agreed is None:
        raise BadCommand(f"{command_path(str(proposal['command']['action']))} cannot be proposed.")
    return handler


@write(gc.GameDecline)
def decline(core: Core, live: Live, actor: Actor, command: gc.GameDecline) -> Change:
    """Refuse a waiting proposal (a player of a side that would confirm it, or a referee without
    a seat), or withdraw it (its proposer): logged, and it can no longer be confirmed. The other
    side's refusal of a proposed result is a dispute (:mod:`bot.table.results`)."""
    row = live.row
    proposal = _waiting(row, command.entry)
    withdrawn = proposal["by"]["id"] == actor.user_id
    if not (withdrawn or _may_answer(row, actor, proposal)):
        raise NotYourSide(
            f"Only {_who_answers(proposal)} may decline this proposal; its proposer may "
            "withdraw it."
        )
    handler = _table_handler(proposal, core)
    disputed = handler.disputed if handler is not None else None
    if disputed is not None and not withdrawn and not free_hand(row, actor):
        # the other side's player refuses a proposed result: a dispute
        return disputed(core, live, actor, proposal, command.reason.strip())
    table = copy_table(row.table)
    table["proposals"] = [p for p in table["proposals"] if p["entry"] != command.entry]
    data = {"entry": command.entry, "reason": command.reason.strip(), "withdrawn": withdrawn}
    return Change(kind="game.decline", data=data, table=table)


def _who_answers(proposal: Mapping[str, Any]) -> str:
    """``the Axis player or a referee without a seat``."""
    needs = proposal["needs"]
    return (f"the {' or '.join(needs)} player or " if needs else "") + "a referee without a seat"


@write(gc.GameConfirm, pending="refuse")
async def confirm(core: Core, live: Live, actor: Actor, command: gc.GameConfirm) -> Change:
    """Carry out a proposal with the agreement of the other side: its player, or a referee
    without a seat."""
    row = live.row
    try:
        proposal = _waiting(row, command.entry)
    except CannotVoid:
        lapse = await _lapse(core, row, command.entry)
        if lapse is None:
            raise
        raise CannotVoid(lapse) from None
    proposer = proposal["by"]
    if proposer["id"] == actor.user_id:
        raise NotYourSide("The other side confirms a proposal, not its proposer.")
    if not _may_answer(row, actor, proposal):
        raise NotYourSide(f"Only {_who_answers(proposal)} may confirm this proposal.")
    agreed = {"proposal": command.entry, "proposed_by": proposer}
    data = dict(proposal["command"])
    handler = _table_handler(proposal, core)
    if handler is not None:
        assert handler.agreed is not None and handler.model is not None
        done = handler.agreed(core, live, actor, handler.model.model_validate(data), agreed)
        return await done if inspect.isawaitable(done) else done
    held = set(held_sides(row, actor))
    proposer_held = {s for s, p in row.table["seats"].items() if p and p["id"] == proposer["id"]}
    action = live.system.parse_action(data)
    concerned = sorted(live.system.concerned_sides(live.state, action))
    if not (free_hand(row, actor) or set(concerned) <= held | proposer_held):
        raise NotYourSide(
            f"This proposal concerns {', '.join(concerned)}; only their players together, "
            "or a referee without a seat, may agree to it."
        )
    try:
        return run_action(core, live, action, concerned, agreed)
    except SetupRefused as exc:  # the game changed since: the confirmer did not write it
        raise SetupRefused(
            exc.errors,
            f"Proposal {command.entry} no longer sets up as proposed; decline it "
            f"(/game decline entry:{command.entry}) and let its proposer send it again:",
        ) from None
