"""/game new: a game with its sides, system, parameters and dice."""

from __future__ import annotations

import logging
from typing import Any

from pydantic import BaseModel

from bot.dice.beacon.chain import ChainInfo
from bot.dice.game_dice import NO_PLAYERS, commitment
from bot.errors import GameAlreadyActive
from bot.log.deadlines import Settings
from bot.log.gamelog import FORMAT_VERSION, GENESIS_PREV, seal, state_hash
from bot.models import Actor, Place, Reply
from bot.service.beacon import beacon_chain_for
from bot.service.change import Live
from bot.service.core import Core
from bot.service.handlers import start
from bot.service.options import parse_options
from bot.service.snapshot import snapshot
from bot.storage import Duplicate, GameRow, StoredEntry
from bot.table import commands as gc
from rules_core.errors import InvalidInput
from rules_core.system import GameSystem

log = logging.getLogger(__name__)


DEFAULT_SIDES: tuple[str, ...] = ("Axis", "Allied")


MAX_SIDE_NAME = 40
"""The longest side name: it must fit a Discord choice (100 characters) inside a list option."""


SYSTEM_SIDES: dict[str, tuple[str, ...]] = {"cwb": ("Union", "Confederate")}
"""Default sides per system when ``/game new`` names none (a system may set ``default_sides``)."""


async def server_clock(core: Core, place: Place) -> dict[str, Any] | None:
    """The organiser's deadline settings a new game of the server starts with (logged in its
    first entry: docs/guide/TABLE.md, "Deadlines"), if they set a deadline."""
    stored = await core.repo.server_settings(place.guild_id)
    if not stored or stored.get("deadline") is None:
        return None
    return Settings.from_json(stored).to_json()


@start(gc.GameNew)
async def new(
    core: Core, place: Place, actor: Actor, interaction_id: str, command: gc.GameNew
) -> Reply:
    """/game new: the channel's game, its sides, options and dice commitment (entry 1)."""
    system = core.system(command.system)
    options = parse_options(command.options)
    sides = _sides(system, command)
    chain = beacon_chain_for(core, command.dice or core.dice_default)
    async with core.locked(place):
        if (seen := await core.seen(interaction_id, place, command)) is not None:
            return seen
        if await core.repo.active_game(place.guild_id, place.channel_id) is not None:
            raise GameAlreadyActive(
                "This channel already has an active game; a referee may /game end it first."
            )
        state = _new_state(system, sides, options)
        clock = await server_clock(core, place)
        entry, row, genesis = _genesis(
            core, place, actor, interaction_id, command, system, state, sides, options, chain,
            clock,
        )  # fmt: skip
        try:
            row.id = await core.repo.create_game(row, genesis)
        except Duplicate:
            seen = await core.seen(interaction_id, place, command)
            if seen is None:
                raise GameAlreadyActive(
                    "This channel already has an active game; a referee may end it first."
                ) from None
            return seen
        core.remember(place, Live(row=row, state=state, system=system))
        return core.reply(entry, row, replayed=False)


def _sides(system: GameSystem[Any, Any], command: gc.GameNew) -> tuple[str, ...]:
    """The sides named (or the system's), each named once and fitting a Discord choice."""
    sides = tuple(s.strip() for s in command.sides if s.strip()) or tuple(
        getattr(system, "default_sides", SYSTEM_SIDES.get(system.name, DEFAULT_SIDES))
    )
    if len({s.casefold() for s in sides}) != len(sides) or len(sides) < 2:
        raise InvalidInput('Name at least two different sides, like sides:"Axis,Allied".')
    for side in sides:
        if len(side) > MAX_SIDE_NAME:
            raise InvalidInput(
                f"A side's name may be at most {MAX_SIDE_NAME} characters; "
                f"{side[:20]}… has {len(side)}."
            )
    return sides


def _new_state(
    system: GameSystem[Any, Any], sides: tuple[str, ...], options: dict[str, Any]
) -> BaseModel:
    """The system's fresh state; options it cannot take are refused in one sentence."""
    try:
        state: BaseModel = system.new_state(sides, options)
    except (TypeError, ValueError, AttributeError, KeyError) as exc:
        log.info("options refused by %s: %r", system.name, exc)
        raise InvalidInput(
            f"Those options do not fit a {system.title} game; see its guide for the "
            "options it takes."
        ) from exc
    return state


def _genesis(
    core: Core,
    place: Place,
    actor: Actor,
    interaction_id: str,
    command: gc.GameNew,
    system: GameSystem[Any, Any],
    state: BaseModel,
    sides: tuple[str, ...],
    options: dict[str, Any],
    chain: ChainInfo | None,
    clock: dict[str, Any] | None = None,
) -> tuple[dict[str, Any], GameRow, StoredEntry]:
    """The game's first entry (``game.new``, sealed), its row and the entry as stored: a new
    seed committed, a new public id, the creator its first referee; ``clock``, the server's
    deadline settings, if its organiser set a deadline."""
    text = snapshot(state)
    seed = core.seeds()
    public_id = core.game_ids()
    creator = {"id": actor.user_id, "name": actor.name}
    table: dict[str, Any] = {
        "sides": list(sides),
        "seats": {side: None for side in sides},
        "referees": [creator],
        "voided": [],
    }
    title = command.title or f"{system.title} game"
    entry: dict[str, Any] = {
        "v": FORMAT_VERSION,
        "game": public_id,
        "seq": 1,
        "prev": GENESIS_PREV,
        "kind": "game.new",
        "at": core.clock(),
        "by": creator,
        "interaction": interaction_id,
        "epoch": 1,
        "rules": system.rules_version,
        "dice": [],
        "state": state_hash(text),
        "system": system.name,
        "title": title,
        "sides": list(sides),
        "options": options,
        "commitment": commitment(seed),
        "place": place.model_dump(),
    }
    if core.scripted:
        table["scripted"] = entry["scripted"] = True
    if clock is not None:
        table["clock"] = entry["clock"] = clock
    if chain is not None:
        table["beacon"] = chain.to_json()
        entry["dice_mode"] = "beacon"
        entry["beacon"] = chain.to_json()
    body, digest = seal(entry)
    row = GameRow(
        id=0,
        public_id=public_id,
        guild_id=place.guild_id,
        channel_id=place.channel_id,
        parent_id=place.parent_id,
        system=system.name,
        title=title,
        status="active",
        created_at=entry["at"],
        created_by=actor.user_id,
        table=table,
        state_json=text,
        head_seq=1,
        head_hash=digest,
        next_die=1,
        epoch=1,
        seed=seed,
        commitment=commitment(seed),
        players_mix=NO_PLAYERS,
    )
    genesis = StoredEntry(
        game_id=0, seq=1, interaction_id=interaction_id, kind="game.new", body=body, hash=digest
    )
    return entry, row, genesis
