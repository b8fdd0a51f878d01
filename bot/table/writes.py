"""The logged table commands that change seats, referees, seeds and the game's end: /game seat,
referee add/remove, seed, notices, rotate, end. A referee who plays (holds a seat) reseats
another player, names or removes another referee and ends the game only by a proposal the other
side confirms — unless nobody else holds a seat (docs/TRUST.md)."""

from __future__ import annotations

from typing import Any

from bot.dice.game_dice import commitment, mix_phrase
from bot.errors import NotAReferee, SeatTaken
from bot.models import Actor, UserRef, with_verb
from bot.service.actions import propose
from bot.service.change import Change, Live, copy_table
from bot.service.core import Core
from bot.service.handlers import write
from bot.service.permissions import (
    alone_at_the_table,
    free_hand,
    is_referee,
    other_sides,
    playing_referee,
    require_player,
    require_referee,
    side_named,
)
from bot.service.proposals import drop_proposal
from bot.storage import GameRow
from bot.table import commands as gc
from bot.table.rulings import refuse_while_awaiting_ruling
from bot.table.sealed import revealed_at_end
from rules_core.errors import InvalidInput


def _seated(
    core: Core, live: Live, actor: Actor, command: gc.GameSeat, agreed: dict[str, Any]
) -> Change:
    """A reseat the seat's player (or a referee without a seat) agreed to."""
    return _seat(live, side_named(live.row.table["sides"], command.side), command, agreed)


@write(gc.GameSeat, agreed=_seated)
def seat(core: Core, live: Live, actor: Actor, command: gc.GameSeat) -> Change:
    """/game seat: take an empty seat (or your own); a referee seats anyone — a referee who plays
    takes another player's seat from them only by a proposal that player confirms."""
    row = live.row
    sides = row.table["sides"]
    side = side_named(sides, command.side)
    player = command.player or UserRef(id=actor.user_id, name=actor.name)
    referee = is_referee(row, actor)
    if player.id != actor.user_id and not referee:
        raise NotAReferee("Only a referee may seat another player.")
    holder = row.table["seats"].get(side)
    taken = holder is not None and holder["id"] not in (player.id, actor.user_id)
    if taken and not referee:
        raise SeatTaken(f"The {side} seat is held by {holder['name']}; ask a referee to reseat it.")
    if taken and not free_hand(row, actor):  # a referee who plays: that seat's player agrees
        spelled = command.model_copy(update={"side": side, "player": player})
        return propose(live, actor, spelled, [side], [side])
    if handing_over(row, actor, holder, player) and not alone_at_the_table(row, actor):
        # giving their own seat away would leave them a referee without a seat: the other
        # side's player agrees first
        spelled = command.model_copy(update={"side": side, "player": player})
        return propose(live, actor, spelled, [side], other_sides(row, actor))
    return _seat(live, side, command.model_copy(update={"player": player}), None)


def handing_over(
    row: GameRow, actor: Actor, holder: dict[str, Any] | None, player: UserRef
) -> bool:
    """A referee who plays gives their own seat to someone else (and is then without a seat)."""
    mine = holder is not None and holder["id"] == actor.user_id
    return mine and player.id != actor.user_id and playing_referee(row, actor)


def _seat(live: Live, side: str, command: gc.GameSeat, agreed: dict[str, Any] | None) -> Change:
    assert command.player is not None
    table = copy_table(live.row.table)
    holder = table["seats"].get(side)
    table["seats"][side] = command.player.model_dump()
    data: dict[str, Any] = {"side": side, "player": command.player.model_dump()}
    if agreed is not None:
        data["agreed"] = agreed
        drop_proposal(table, agreed)
    if holder is not None and holder["id"] != command.player.id:
        lapsed = lapsing(table["proposals"], holder["id"], side)
        if lapsed:
            table["proposals"] = [p for p in table["proposals"] if p["entry"] not in lapsed]
            data["lapsed"] = lapsed
    return Change(kind="game.seat", data=data, table=table)


def lapsing(proposals: list[dict[str, Any]], holder: int, side: str) -> list[int]:
    """The proposals waiting that lapse when ``holder`` gives up the seat of ``side``: those
    they made while holding it, for they no longer speak for that side (docs/TRUST.md).

    >>> waiting = [{"entry": 4, "by": {"id": 1}, "for": ["Axis"]},
    ...            {"entry": 5, "by": {"id": 2}, "for": ["Allied"]}]
    >>> lapsing(waiting, 1, "Axis"), lapsing(waiting, 1, "Allied")
    ([4], [])
    """
    return [
        p["entry"]
        for p in proposals
        if p["by"]["id"] == holder and side in p.get("for", [side])  # older: made while holding
    ]


def _referee_added(
    core: Core, live: Live, actor: Actor, command: gc.GameRefereeAdd, agreed: dict[str, Any]
) -> Change:
    return _referee_add(live, command, agreed)


@write(gc.GameRefereeAdd, agreed=_referee_added)
def referee_add(core: Core, live: Live, actor: Actor, command: gc.GameRefereeAdd) -> Change:
    """/game referee add: a referee names another (a referee who plays: the other side agrees,
    since a referee without a seat acts for every side)."""
    row = live.row
    require_referee(row, actor, "name referees")
    _check_new_referee(row.table, command)
    if not (free_hand(row, actor) or alone_at_the_table(row, actor)):
        return propose(live, actor, command, row.table["sides"], other_sides(row, actor))
    return _referee_add(live, command, None)


def _check_new_referee(table: dict[str, Any], command: gc.GameRefereeAdd) -> None:
    if any(r["id"] == command.user.id for r in table["referees"]):
        raise InvalidInput(f"{with_verb(command.user.name, 'is')} already a referee of this game.")


def _referee_add(live: Live, command: gc.GameRefereeAdd, agreed: dict[str, Any] | None) -> Change:
    _check_new_referee(live.row.table, command)
    table = copy_table(live.row.table)
    table["referees"].append(command.user.model_dump())
    data: dict[str, Any] = {"user": command.user.model_dump()}
    if agreed is not None:
        data["agreed"] = agreed
        drop_proposal(table, agreed)
    return Change(kind="game.referee.add", data=data, table=table)


def _referee_removed(
    core: Core, live: Live, actor: Actor, command: gc.GameRefereeRemove, agreed: dict[str, Any]
) -> Change:
    return _referee_remove(live, command, agreed)


@write(gc.GameRefereeRemove, agreed=_referee_removed)
def referee_remove(core: Core, live: Live, actor: Actor, command: gc.GameRefereeRemove) -> Change:
    """/game referee remove: a referee removes another, or themselves (a referee who plays
    removes another only with the other side's agreement)."""
    row = live.row
    require_referee(row, actor, "remove referees")
    _check_removal(row.table, command)
    if command.user.id != actor.user_id and not (
        free_hand(row, actor) or alone_at_the_table(row, actor)
    ):
        return propose(live, actor, command, row.table["sides"], other_sides(row, actor))
    return _referee_remove(live, command, None)


def _check_removal(table: dict[str, Any], command: gc.GameRefereeRemove) -> None:
    if not any(r["id"] == command.user.id for r in table["referees"]):
        raise InvalidInput(f"{with_verb(command.user.name, 'is')} not a referee of this game.")
    if len(table["referees"]) == 1:
        raise InvalidInput("A game keeps at least one referee; name another one first.")


def _referee_remove(
    live: Live, command: gc.GameRefereeRemove, agreed: dict[str, Any] | None
) -> Change:
    _check_removal(live.row.table, command)
    table = copy_table(live.row.table)
    table["referees"] = [r for r in table["referees"] if r["id"] != command.user.id]
    data: dict[str, Any] = {"user": command.user.model_dump()}
    if agreed is not None:
        data["agreed"] = agreed
        drop_proposal(table, agreed)
    return Change(kind="game.referee.remove", data=data, table=table)


@write(gc.GameSeed)
def seed(core: Core, live: Live, actor: Actor, command: gc.GameSeed) -> Change:
    require_player(live.row, actor)
    mixed = mix_phrase(live.row.players_mix, command.phrase)
    return Change(
        kind="game.seed",
        data={"phrase": command.phrase, "players": mixed.hex()},
        players_mix=mixed,
    )


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


def _ended(
    core: Core, live: Live, actor: Actor, command: gc.GameEnd, agreed: dict[str, Any]
) -> Change:
    return _end(live, agreed)


@write(gc.GameEnd, agreed=_ended)
def end(core: Core, live: Live, actor: Actor, command: gc.GameEnd) -> Change:
    """/game end: a referee reveals the seed and closes the game (a referee who plays: the
    other side agrees)."""
    row = live.row
    require_referee(row, actor, "end the game")
    refuse_while_awaiting_ruling(row.table, "ending the game")
    if not (free_hand(row, actor) or alone_at_the_table(row, actor)):
        return propose(live, actor, command, row.table["sides"], other_sides(row, actor))
    return _end(live, None)


def _end(live: Live, agreed: dict[str, Any] | None) -> Change:
    row = live.row
    refuse_while_awaiting_ruling(row.table, "ending the game")
    data: dict[str, Any] = {"revealed_epoch": row.epoch, "revealed_seed": row.seed.hex()}
    notes = revealed_at_end(row.table)  # every sealed note the bot holds, like the seed
    if notes:
        data["revealed_notes"] = notes
    table = None
    if agreed is not None:
        data["agreed"] = agreed
        table = copy_table(row.table)
        drop_proposal(table, agreed)
    return Change(
        kind="game.end",
        data=data,
        table=table,
        reveal=(row.epoch, row.seed),
        status="ended",
    )
