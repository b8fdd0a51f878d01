"""A system action through the pipeline: permission → proposal or resolution; previews and
read-only actions; the turn notice after a phase change."""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

from pydantic import BaseModel

from bot.dice.beacon.games import NeedsBeacon, ProbeDice
from bot.errors import BadCommand, NotYourSide
from bot.log.gamelog import outcome_json
from bot.models import Actor, OddsLine, Place, Reply, UserRef
from bot.ops import metrics
from bot.service.beacon import declare
from bot.service.change import Change, Live, copy_table
from bot.service.core import Core, check_system
from bot.service.handlers import Write
from bot.service.options import command_path
from bot.service.permissions import (
    held_sides,
    permit,
    playing_referee,
    referee_only_options,
    sides_as_spelled,
)
from bot.service.replies import odds_lines, who_confirms
from bot.service.snapshot import float_free
from rules_core.dice import ScriptedDice
from rules_core.errors import InvalidInput
from rules_core.odds import OddsTooLarge
from rules_core.system import action_flag


def act(core: Core, live: Live, actor: Actor, action: BaseModel) -> Change:
    """A system action: run it, or — when it concerns a side the actor does not hold and is
    set-up or names nothing of any side, or the actor is a referee who plays — propose it to
    that side."""
    check_system(live, action)
    action = sides_as_spelled(live.row.table["sides"], action)
    concerned, missing = permit(live, actor, action)
    if missing:
        # set-up, and what names nothing of any side (the game's first phase), concern
        # both sides: a player proposes it, the other confirms; a referee who plays acts for
        # the other side only so (docs/TRUST.md)
        if (
            action_flag(type(action), "setup")
            or not live.system.named_sides(live.state, action)
            or playing_referee(live.row, actor)
        ):
            dry_run(live, action)
            return propose(live, actor, action, concerned, missing)
        seats = " and ".join(missing)
        raise NotYourSide(
            f"You do not hold the {seats} seat; only its player or a referee may act for it."
        )
    return run_action(core, live, action, concerned)


def dry_run(live: Live, action: BaseModel) -> None:
    """Run ``action`` on the game as it stands up to its first die, keeping nothing: a
    proposal the rules refuse is refused when proposed, with the sentence its confirmation
    would give, and nothing is logged (the rules refuse before any die is rolled)."""
    with contextlib.suppress(NeedsBeacon):  # it reached its first die: valid as it stands
        live.system.run(live.state, action, ProbeDice())


SYSTEM_ACTION = Write(None, act)
"""The handler of every system action (``/asl fire``, ``/ocs supply``…)."""


def run_action(
    core: Core,
    live: Live,
    action: BaseModel,
    concerned: list[str],
    agreed: dict[str, Any] | None = None,
) -> Change:
    """The change of a permitted action: resolved with the game's dice, or — in a beacon game,
    when it rolls — declared, to be resolved with its round. ``agreed``: a confirmed proposal."""
    system, row = live.system, live.row
    side = system.acting_side(live.state, action)
    if row.table.get("beacon"):
        try:
            system.run(live.state, action, ProbeDice())
        except NeedsBeacon:  # valid, and it rolls: declared now, resolved with its round
            declared: dict[str, Any] = {
                "declares": "action",
                "action": action.model_dump(mode="json"),
                "side": side,
                "sides": concerned,
            }
            if agreed is not None:
                declared["agreed"] = agreed
            change = declare(core, live, declared)
            if agreed is not None and change.table is not None:
                change.table["proposals"] = [
                    p for p in change.table["proposals"] if p["entry"] != agreed["proposal"]
                ]
            return change
        # it reads no die: logged at once, as in any game
    dice = core.dice(row)
    began = time.perf_counter()
    with core.script_rollback():
        outcome = system.run(live.state, action, dice)
    metrics.rules(time.perf_counter() - began)
    data: dict[str, Any] = {
        "action": action.model_dump(mode="json"),
        "side": side,
        "sides": concerned,
        "outcome": outcome_json(outcome),
    }
    referee_only = referee_only_options(action)
    if referee_only:
        data["referee_only"] = list(referee_only)
    table = None
    if agreed is not None:
        data["agreed"] = agreed
        table = copy_table(row.table)
        table["proposals"] = [p for p in table["proposals"] if p["entry"] != agreed["proposal"]]
    return Change(
        kind="action",
        data=data,
        dice=dice.records,
        state=outcome.state,
        table=table,
        shown=(outcome.steps, outcome.facts, outcome.rolls),
        ran=action,
        # the action's and the outcome's dumps, side names and referee-only option names
        plain=agreed is None and float_free(type(action)) and float_free(type(outcome)),
    )


def propose(
    live: Live,
    actor: Actor,
    command: BaseModel,
    concerned: list[str],
    missing: list[str],
) -> Change:
    """Log a proposal the player of ``missing`` (or a referee without a seat) confirms; the
    same proposal while one waits is refused, naming the one waiting."""
    row = live.row
    seq = row.head_seq + 1
    dumped = command.model_dump(mode="json")
    for waiting in row.table.get("proposals", ()):
        if waiting["command"] == dumped:
            raise InvalidInput(_proposed_already(waiting, actor))
    table = copy_table(row.table)
    table["proposals"].append(
        {
            "entry": seq,
            "by": {"id": actor.user_id, "name": actor.name},
            "command": dumped,
            "sides": concerned,
            "needs": missing,
            "for": held_sides(row, actor),  # it lapses when its proposer gives up one of them
        }
    )
    return Change(
        kind="game.propose",
        data={"command": command.model_dump(mode="json"), "sides": concerned, "needs": missing},
        table=table,
    )


def _proposed_already(waiting: dict[str, Any], actor: Actor) -> str:
    """The refusal of a proposal that waits already (``waiting``), to ``actor``."""
    entry = waiting["entry"]
    if waiting["by"]["id"] != actor.user_id:
        return (
            f"Proposal #{entry} of {waiting['by']['name']} already proposes this: "
            f"/game confirm entry:{entry} agrees to it."
        )
    return (
        f"Proposal #{entry} already proposes this; {who_confirms(waiting['needs'])} confirms it "
        f"(/game confirm entry:{entry}) or you withdraw it (/game decline entry:{entry})."
    )


def turn_notice(live: Live, actor: Actor, change: Change, reply: Reply) -> Reply:
    """After a phase change (an action that ``advances_turn``), name the player who must act
    next — the holder of the seat of ``GameSystem.next_to_act``: the side whose turn it is,
    or the side that acts in this phase (ASL's DEFENDER in the Defensive Fire Phase) — with
    the phase, unless the game turned notices off (``/game notices on:false``) or that
    player made the change."""
    ran = change.ran
    if ran is None or not action_flag(type(ran), "advances_turn") or change.state is None:
        return reply
    if not live.row.table.get("notices", True):
        return reply
    side = live.system.next_to_act(change.state)
    holder = live.row.table["seats"].get(side) if side else None
    if not side or not holder or holder["id"] == actor.user_id:
        return reply  # nobody to tell, or the one who changed the phase
    phase = next(
        (line for line in live.system.summary(change.state) if line.startswith("Phase")), ""
    )
    detail = phase.split(":", 1)[1].strip() if ":" in phase else ""
    whose = (
        f"it is the {side} player's turn"
        if side == live.system.turn_side(change.state)
        else f"the {side} player acts next"
    )
    notice = f"{holder['name']}, {whose}" + (f": {detail}" if detail else "")
    mention = UserRef(id=holder["id"], name=holder["name"])
    return reply.model_copy(update={"notice": notice, "mention": mention})


# --- previews and read-only ------------------------------------------------------------------


async def preview(core: Core, place: Place, action: BaseModel) -> Reply:
    """The exact odds of a system action (or its system's summary of them); nothing rolled."""
    live = await core.load(place)
    system = live.system
    path = check_system(live, action)
    action = sides_as_spelled(live.row.table["sides"], action)
    state = live.state

    def compute() -> tuple[tuple[tuple[str, str], ...], tuple[OddsLine, ...]]:
        fields = system.preview_fields(state, action)
        if fields is not None:
            return fields, ()
        return (), odds_lines(system.odds(state, action))

    try:
        # exact odds are CPU work: off the event loop, so one preview never stalls the games
        fields, odds = await asyncio.to_thread(compute)
    except OddsTooLarge as exc:
        raise InvalidInput(
            "That declaration has too many dice outcomes to preview exactly; declare it "
            "without preview, or preview a smaller part of it."
        ) from exc
    return Reply(
        command=command_path(path),
        title=f"Odds of {command_path(path)} (nothing rolled)",
        game_title=live.row.title,
        system=system.name,
        game_id=live.row.public_id,
        side=system.acting_side(live.state, action),
        odds=odds,
        fields=fields,
        commitment=live.row.commitment,
        epoch=live.row.epoch,
        scripted=core.scripted,
        ephemeral=True,
        preview=True,
    )


async def read_only_action(core: Core, place: Place, action: BaseModel) -> Reply:
    """A system's listing (``read_only``): run on the game as stored, nothing logged."""
    live = await core.load(place)
    path = check_system(live, action)
    action = sides_as_spelled(live.row.table["sides"], action)
    outcome = live.system.run(live.state, action, ScriptedDice([]))
    if outcome.rolls:
        raise BadCommand(f"{command_path(path)} is declared read-only but rolled dice.")
    return Reply(
        command=command_path(path),
        title=command_path(path),
        game_title=live.row.title,
        system=live.system.name,
        game_id=live.row.public_id,
        steps=outcome.steps,
        facts=outcome.facts,
        scripted=core.scripted,
        ephemeral=True,
    )
