"""/game void, /game confirm and /game decline: voiding entries, confirming or refusing
proposals."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

from pydantic import BaseModel

from bot.errors import CannotVoid, NotYourSide
from bot.log.gamelog import VOIDABLE, ReplayError, rebuild_state
from bot.models import Actor
from bot.service.actions import propose, run_action
from bot.service.change import Change, Live, copy_table
from bot.service.core import Core
from bot.service.handlers import write
from bot.service.permissions import free_hand, held_sides, is_referee, require_referee
from bot.table import commands as gc
from rules_core.scenario import SetupRefused

Agree = Callable[[Core, Live, Actor, Any, dict[str, Any]], Change | Awaitable[Change]]
AGREEMENTS: dict[str, tuple[type[BaseModel], Agree]] = {}
"""Table commands a player proposes and another side confirms, by action: their model and the
decision carrying one out once agreed (``agreed``: the proposal and its proposer). Registered
beside each command's handler with :func:`agreement`."""


AgreeT = TypeVar("AgreeT", bound=Callable[..., Any])


def agreement(model: type[BaseModel]) -> Callable[[AgreeT], AgreeT]:
    """Register the decorated function as what a confirmed proposal of ``model`` does."""
    action = str(model.model_fields["action"].default)

    def register(agree: AgreeT) -> AgreeT:
        AGREEMENTS[action] = (model, agree)
        return agree

    return register


def _entry_sides(entry: Mapping[str, Any], sides: list[str]) -> list[str]:
    """The sides a logged action or roll concerns (older entries: the declared side, or all)."""
    if "sides" in entry:
        return list(entry["sides"])
    if entry.get("side"):
        return [entry["side"]]
    return list(sides)


@write(gc.GameVoid, pending="refuse")
async def void(core: Core, live: Live, actor: Actor, command: gc.GameVoid) -> Change:
    """/game void: a referee voids an entry (a playing referee's void of their own side's entry
    is proposed to the other side)."""
    return await _void(core, live, actor, command)


async def _void(
    core: Core,
    live: Live,
    actor: Actor,
    command: gc.GameVoid,
    agreed: dict[str, Any] | None = None,
) -> Change:
    """A void of ``command.entry``; a playing referee's void of an entry concerning their
    own side becomes a proposal for the other side (or a referee without a seat)."""
    row = live.row
    if agreed is None:
        require_referee(row, actor, "void entries")
    voided = set(row.table["voided"])
    targets = await core.repo.entries(row.id, after=command.entry - 1, upto=command.entry)
    if not targets:
        raise CannotVoid(f"There is no entry {command.entry} in this game's log.")
    target = targets[0]
    if target.kind not in VOIDABLE:
        raise CannotVoid(
            f"Entry {command.entry} is a {target.kind} entry; only actions and rolls can be voided."
        )
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
    held = held_sides(row, actor)
    if agreed is None and set(held) & set(concerned):
        # a playing referee's void of their own side's entry: the other side agrees first
        others = [s for s in row.table["sides"] if s not in held]
        return propose(live, actor, command, concerned, others)
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
        table["proposals"] = [p for p in table["proposals"] if p["entry"] != agreed["proposal"]]
    return Change(kind="game.void", data=data, table=table, state=new_state)


@write(gc.GameDecline)
def decline(core: Core, live: Live, actor: Actor, command: gc.GameDecline) -> Change:
    """Refuse a waiting proposal (a player of a side that would confirm it, or a referee), or
    withdraw it (its proposer): logged, and it can no longer be confirmed."""
    row = live.row
    proposal = next(
        (p for p in row.table.get("proposals", ()) if p["entry"] == command.entry), None
    )
    if proposal is None:
        raise CannotVoid(f"Entry {command.entry} is not a proposal waiting for confirmation.")
    withdrawn = proposal["by"]["id"] == actor.user_id
    held = set(held_sides(row, actor))
    if not (withdrawn or is_referee(row, actor) or held & set(proposal["needs"])):
        player = f"the {' or '.join(proposal['needs'])} player or " if proposal["needs"] else ""
        raise NotYourSide(
            f"Only {player}a referee may decline this proposal; its proposer may withdraw it."
        )
    table = copy_table(row.table)
    table["proposals"] = [p for p in table["proposals"] if p["entry"] != command.entry]
    data = {"entry": command.entry, "reason": command.reason.strip(), "withdrawn": withdrawn}
    return Change(kind="game.decline", data=data, table=table)


@write(gc.GameConfirm, pending="refuse")
async def confirm(core: Core, live: Live, actor: Actor, command: gc.GameConfirm) -> Change:
    """Carry out a proposal with the agreement of the other side."""
    row = live.row
    proposal = next(
        (p for p in row.table.get("proposals", ()) if p["entry"] == command.entry), None
    )
    if proposal is None:
        raise CannotVoid(f"Entry {command.entry} is not a proposal waiting for confirmation.")
    proposer = proposal["by"]
    if proposer["id"] == actor.user_id:
        raise NotYourSide("The other side confirms a proposal, not its proposer.")
    agreed = {"proposal": command.entry, "proposed_by": proposer}
    held = set(held_sides(row, actor))
    proposer_held = {s for s, p in row.table["seats"].items() if p and p["id"] == proposer["id"]}
    data = dict(proposal["command"])
    if data.get("action") == "game.void":
        if not (free_hand(row, actor) or held & set(proposal["needs"])):
            player = f"the {' or '.join(proposal['needs'])} player or " if proposal["needs"] else ""
            raise NotYourSide(f"Only {player}a referee without a seat may confirm this void.")
        return await _void(core, live, actor, gc.GameVoid.model_validate(data), agreed)
    if (agreed_command := AGREEMENTS.get(str(data.get("action")))) is not None:
        if not (free_hand(row, actor) or held & set(proposal["needs"])):
            player = f"the {' or '.join(proposal['needs'])} player or " if proposal["needs"] else ""
            raise NotYourSide(f"Only {player}a referee without a seat may confirm this proposal.")
        model, agree = agreed_command
        decided = agree(core, live, actor, model.model_validate(data), agreed)
        return await decided if inspect.isawaitable(decided) else decided
    action = live.system.parse_action(data)
    concerned = sorted(live.system.concerned_sides(live.state, action))
    if not (is_referee(row, actor) or set(concerned) <= held | proposer_held):
        raise NotYourSide(
            f"This proposal concerns {', '.join(concerned)}; only their players together, "
            "or a referee, may agree to it."
        )
    try:
        return run_action(core, live, action, concerned, agreed)
    except SetupRefused as exc:  # the game changed since: the confirmer did not write it
        raise SetupRefused(
            exc.errors,
            f"Proposal {command.entry} no longer sets up as proposed; decline it "
            f"(/game decline entry:{command.entry}) and let its proposer send it again:",
        ) from None
