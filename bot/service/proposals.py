"""/game void, /game confirm and /game decline: voiding entries, confirming or refusing
proposals."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from bot.errors import CannotVoid, NotYourSide
from bot.log.gamelog import VOIDABLE, ReplayError, rebuild_state
from bot.models import Actor, Place, Reply
from bot.service.actions import Actions
from bot.service.beacon import refuse_while_pending
from bot.service.change import Change, Live, copy_table
from bot.table import commands as gc
from rules_core.scenario import SetupRefused

log = logging.getLogger(__name__)


def _entry_sides(entry: Mapping[str, Any], sides: list[str]) -> list[str]:
    """The sides a logged action or roll concerns (older entries: the declared side, or all)."""
    if "sides" in entry:
        return list(entry["sides"])
    if entry.get("side"):
        return [entry["side"]]
    return list(sides)


class Proposals(Actions):
    """Voids and confirmations; the last layer of the pipeline, which the table commands extend."""

    # --- /game void --------------------------------------------------------------------------

    async def _void_write(
        self,
        place: Place,
        actor: Actor,
        interaction_id: str,
        command: gc.GameVoid | gc.GameConfirm,
    ) -> Reply:
        async with self._locked(place):
            seen = await self.repo.entry_by_interaction(interaction_id)
            if seen is not None:
                return await self._replay(seen, place, command)
            live = await self._load(place, locked=True)
            refuse_while_pending(live.row)
            if isinstance(command, gc.GameConfirm):
                change = await self._confirm(live, actor, command)
            else:
                change = await self._void(live, actor, command)
            reply = await self._commit(place, live, actor, interaction_id, change, command=command)
            if not reply.replayed and change.kind == "action":  # a confirmed proposal
                action = live.system.parse_action(change.data["action"])
                reply = self._turn_notice(live, actor, action, change, reply)
            return reply

    async def _void(
        self,
        live: Live,
        actor: Actor,
        command: gc.GameVoid,
        agreed: dict[str, Any] | None = None,
    ) -> Change:
        """A void of ``command.entry``; a playing referee's void of an entry concerning their
        own side becomes a proposal for the other side (or a referee without a seat)."""
        row = live.row
        if agreed is None:
            self._require_referee(row, actor, "void entries")
        voided = set(row.table["voided"])
        targets = await self.repo.entries(row.id, after=command.entry - 1, upto=command.entry)
        if not targets:
            raise CannotVoid(f"There is no entry {command.entry} in this game's log.")
        target = targets[0]
        if target.kind not in VOIDABLE:
            raise CannotVoid(
                f"Entry {command.entry} is a {target.kind} entry; only actions and rolls "
                "can be voided."
            )
        if command.entry in voided:
            raise CannotVoid(f"Entry {command.entry} is already void.")
        voided.add(command.entry)
        new_state: BaseModel | None = None
        if target.kind == "action" or (
            target.kind == "resolved" and target.data().get("resolves") == "action"
        ):
            entries = [e.data() for e in await self.repo.entries(row.id)]
            try:
                new_state = rebuild_state(live.system, entries, voided)
            except ReplayError as exc:
                raise CannotVoid(
                    f"Entry {exc.seq} no longer replays without entry {command.entry} "
                    f"({exc.reason}); void entry {exc.seq} first."
                ) from exc
        concerned = _entry_sides(target.data(), row.table["sides"])
        held = self.held_sides(row, actor)
        if agreed is None and set(held) & set(concerned):
            # a playing referee's void of their own side's entry: the other side agrees first
            others = [s for s in row.table["sides"] if s not in held]
            return self._propose(live, actor, command, concerned, others)
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

    def _decline(self, live: Live, actor: Actor, command: gc.GameDecline) -> Change:
        """Refuse a waiting proposal (a player of a side that would confirm it, or a referee), or
        withdraw it (its proposer): logged, and it can no longer be confirmed."""
        row = live.row
        proposal = next(
            (p for p in row.table.get("proposals", ()) if p["entry"] == command.entry), None
        )
        if proposal is None:
            raise CannotVoid(f"Entry {command.entry} is not a proposal waiting for confirmation.")
        withdrawn = proposal["by"]["id"] == actor.user_id
        held = set(self.held_sides(row, actor))
        if not (withdrawn or self.is_referee(row, actor) or held & set(proposal["needs"])):
            player = f"the {' or '.join(proposal['needs'])} player or " if proposal["needs"] else ""
            raise NotYourSide(
                f"Only {player}a referee may decline this proposal; its proposer may withdraw it."
            )
        table = copy_table(row.table)
        table["proposals"] = [p for p in table["proposals"] if p["entry"] != command.entry]
        data = {"entry": command.entry, "reason": command.reason.strip(), "withdrawn": withdrawn}
        return Change(kind="game.decline", data=data, table=table)

    async def _confirm(self, live: Live, actor: Actor, command: gc.GameConfirm) -> Change:
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
        held = set(self.held_sides(row, actor))
        proposer_held = {
            s for s, p in row.table["seats"].items() if p and p["id"] == proposer["id"]
        }
        data = dict(proposal["command"])
        if data.get("action") == "game.void":
            if not (self.free_hand(row, actor) or held & set(proposal["needs"])):
                player = (
                    f"the {' or '.join(proposal['needs'])} player or " if proposal["needs"] else ""
                )
                raise NotYourSide(f"Only {player}a referee without a seat may confirm this void.")
            return await self._void(live, actor, gc.GameVoid.model_validate(data), agreed)
        action = live.system.parse_action(data)
        concerned = sorted(live.system.concerned_sides(live.state, action))
        if not (self.is_referee(row, actor) or set(concerned) <= held | proposer_held):
            raise NotYourSide(
                f"This proposal concerns {', '.join(concerned)}; only their players together, "
                "or a referee, may agree to it."
            )
        try:
            return self._run_action(live, action, concerned, agreed)
        except SetupRefused as exc:  # the game changed since: the confirmer did not write it
            raise SetupRefused(
                exc.errors,
                f"Proposal {command.entry} no longer sets up as proposed; decline it "
                f"(/game decline entry:{command.entry}) and let its proposer send it again:",
            ) from None
