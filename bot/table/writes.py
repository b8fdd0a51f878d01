"""The logged table commands that change seats, referees, seeds and the game's end: /game seat,
referee add/remove, seed, result, notices, rotate, end."""

from __future__ import annotations

from typing import Any

from bot.dice.game_dice import commitment, mix_phrase
from bot.errors import NotAReferee, SeatTaken
from bot.models import Actor, UserRef, with_verb
from bot.service.change import Change, Live, copy_table
from bot.service.core import Core
from bot.service.handlers import write
from bot.service.permissions import is_referee, require_player, require_referee, side_named
from bot.table import commands as gc
from bot.table.sealed import revealed_at_end
from rules_core.errors import InvalidInput


@write(gc.GameSeat)
def seat(core: Core, live: Live, actor: Actor, command: gc.GameSeat) -> Change:
    row = live.row
    sides = row.table["sides"]
    side = side_named(sides, command.side)
    player = command.player or UserRef(id=actor.user_id, name=actor.name)
    referee = is_referee(row, actor)
    if player.id != actor.user_id and not referee:
        raise NotAReferee("Only a referee may seat another player.")
    holder = row.table["seats"].get(side)
    if holder and holder["id"] != player.id and not referee:
        raise SeatTaken(f"The {side} seat is held by {holder['name']}; ask a referee to reseat it.")
    table = copy_table(row.table)
    table["seats"][side] = player.model_dump()
    return Change(
        kind="game.seat",
        data={"side": side, "player": player.model_dump()},
        table=table,
    )


@write(gc.GameRefereeAdd)
def referee_add(core: Core, live: Live, actor: Actor, command: gc.GameRefereeAdd) -> Change:
    row = live.row
    require_referee(row, actor, "name referees")
    if any(r["id"] == command.user.id for r in row.table["referees"]):
        raise InvalidInput(f"{with_verb(command.user.name, 'is')} already a referee of this game.")
    table = copy_table(row.table)
    table["referees"].append(command.user.model_dump())
    return Change(kind="game.referee.add", data={"user": command.user.model_dump()}, table=table)


@write(gc.GameRefereeRemove)
def referee_remove(core: Core, live: Live, actor: Actor, command: gc.GameRefereeRemove) -> Change:
    row = live.row
    require_referee(row, actor, "remove referees")
    if not any(r["id"] == command.user.id for r in row.table["referees"]):
        raise InvalidInput(f"{with_verb(command.user.name, 'is')} not a referee of this game.")
    if len(row.table["referees"]) == 1:
        raise InvalidInput("A game keeps at least one referee; name another one first.")
    table = copy_table(row.table)
    table["referees"] = [r for r in table["referees"] if r["id"] != command.user.id]
    return Change(kind="game.referee.remove", data={"user": command.user.model_dump()}, table=table)


@write(gc.GameSeed)
def seed(core: Core, live: Live, actor: Actor, command: gc.GameSeed) -> Change:
    require_player(live.row, actor)
    mixed = mix_phrase(live.row.players_mix, command.phrase)
    return Change(
        kind="game.seed",
        data={"phrase": command.phrase, "players": mixed.hex()},
        players_mix=mixed,
    )


@write(gc.GameResult)
def result(core: Core, live: Live, actor: Actor, command: gc.GameResult) -> Change:
    require_player(live.row, actor)
    sides = live.row.table["sides"]
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
    data = {
        "winner": winner,
        "scenario": scenario,
        "attacker": side_named(sides, command.attacker),
        "tournament": command.tournament.strip(),
        "round": command.round,
    }
    table = copy_table(live.row.table)
    table["result"] = data
    return Change(kind="game.result", data=data, table=table)


@write(gc.GameNotices)
def notices(core: Core, live: Live, actor: Actor, command: gc.GameNotices) -> Change:
    require_player(live.row, actor)
    table = copy_table(live.row.table)
    table["notices"] = command.on
    return Change(kind="game.notices", data={"on": command.on}, table=table)


@write(gc.GameRotate)
def rotate(core: Core, live: Live, actor: Actor, command: gc.GameRotate) -> Change:
    row = live.row
    require_referee(row, actor, "rotate the dice seed")
    seed = core.seeds()
    return Change(
        kind="game.rotate",
        data={
            "revealed_epoch": row.epoch,
            "revealed_seed": row.seed.hex(),
            "next_epoch": row.epoch + 1,
            "next_commitment": commitment(seed),
        },
        reveal=(row.epoch, row.seed),
        new_seed=seed,
    )


@write(gc.GameEnd)
def end(core: Core, live: Live, actor: Actor, command: gc.GameEnd) -> Change:
    row = live.row
    require_referee(row, actor, "end the game")
    data: dict[str, Any] = {"revealed_epoch": row.epoch, "revealed_seed": row.seed.hex()}
    notes = revealed_at_end(row.table)  # every sealed note the bot holds, like the seed
    if notes:
        data["revealed_notes"] = notes
    return Change(kind="game.end", data=data, reveal=(row.epoch, row.seed), status="ended")
