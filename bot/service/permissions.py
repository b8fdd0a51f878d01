"""Who may do what: referees, seats, the sides an action concerns (docs/TRUST.md)."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import BaseModel

from bot.errors import NotAReferee, NotYourSide
from bot.models import Actor
from bot.service.change import Live
from bot.storage import GameRow
from rules_core.errors import InvalidInput


@functools.cache
def _side_options(model: type[BaseModel]) -> tuple[str, ...]:
    """The fields of ``model`` that name a side (``json_schema_extra={"autocomplete": "side"}``)."""
    return tuple(
        name
        for name, info in model.model_fields.items()
        if isinstance(info.json_schema_extra, dict)
        and info.json_schema_extra.get("autocomplete") == "side"
    )


def sides_as_spelled(sides: Sequence[str], action: BaseModel) -> BaseModel:
    """``action`` with every option naming a side written as the game spells it (case ignored).

    So every system matches side names with case ignored, and the log records one spelling.
    A name that is no side of the game is left for the rules to refuse.
    """
    names = _side_options(type(action))
    if not names:
        return action
    spelled = _spelling(tuple(sides))
    changes: dict[str, Any] | None = None
    for name in names:
        value = getattr(action, name)
        respelled = _respelled(spelled, value)
        if respelled != value:
            changes = changes or {}
            changes[name] = respelled
    return action.model_copy(update=changes) if changes else action


@functools.lru_cache(maxsize=256)
def _spelling(sides: tuple[str, ...]) -> dict[str, str]:
    """Each side's name casefolded, with the game's spelling of it (made once per game's sides;
    read only)."""
    return {side.casefold(): side for side in sides}


def _respelled(spelled: dict[str, str], value: Any) -> Any:
    """``value`` (a side's name, or a tuple of them) as ``spelled`` (casefolded name: spelling)
    writes it; anything else as it is. (A function of the module, not a closure calling itself:
    that would be a reference cycle left to the garbage collector on every action.)"""
    if isinstance(value, str):
        return spelled.get(value.strip().casefold(), value)
    if isinstance(value, tuple):
        return tuple(_respelled(spelled, item) for item in value)
    return value


def side_named(sides: Sequence[str], name: str) -> str:
    """The side of ``sides`` called ``name``, case and outer spaces ignored, as the game spells it.

    >>> side_named(["Axis", "Allied"], " axis ")
    'Axis'
    """
    wanted = name.strip().casefold()
    for side in sides:
        if side.casefold() == wanted:
            return side
    raise InvalidInput(f"{name!r} is not a side of this game; the sides are {', '.join(sides)}.")


def referee_only_options(action: BaseModel) -> tuple[str, ...]:
    """The options of ``action`` marked ``json_schema_extra={"referee_only": True}`` that are set
    (truthy): only a referee may declare them, and the log and the result say so.

    >>> from rules_core.asl.actions import SetPhase
    >>> referee_only_options(SetPhase(phase="mph", correction=True))
    ('correction',)
    >>> referee_only_options(SetPhase())
    ()
    """
    names = _referee_only(type(action))
    return tuple(name for name in names if getattr(action, name)) if names else ()


@functools.cache
def _referee_only(model: type[BaseModel]) -> tuple[str, ...]:
    """The fields of ``model`` marked ``referee_only`` (read once per model, then looked up)."""
    return tuple(
        name
        for name, info in model.model_fields.items()
        if isinstance(info.json_schema_extra, dict) and info.json_schema_extra.get("referee_only")
    )


def is_referee(row: GameRow, actor: Actor) -> bool:
    """Referees of the game and the server's administrators referee it."""
    return actor.is_admin or any(r["id"] == actor.user_id for r in row.table["referees"])


def held_sides(row: GameRow, actor: Actor) -> list[str]:
    """The sides whose seat the actor holds, in the game's order of sides (storage may sort the
    seats' keys)."""
    seats = row.table["seats"]
    return [
        side for side in row.table["sides"] if (p := seats.get(side)) and p["id"] == actor.user_id
    ]


def require_referee(row: GameRow, actor: Actor, what: str) -> None:
    """Refuses anyone but a referee: ``what`` is what only a referee may do."""
    if not is_referee(row, actor):
        raise NotAReferee(f"Only a referee or a server administrator may {what}.")


def require_player(row: GameRow, actor: Actor) -> None:
    """Refuses a spectator: only a seated player or a referee acts in the game."""
    if not (is_referee(row, actor) or held_sides(row, actor)):
        raise NotYourSide("Take a seat with /game seat before acting in this game.")


def free_hand(row: GameRow, actor: Actor) -> bool:
    """A referee who holds no seat: nobody's opponent, so the only one who acts for every side
    alone (docs/TRUST.md)."""
    return is_referee(row, actor) and not held_sides(row, actor)


def playing_referee(row: GameRow, actor: Actor) -> bool:
    """A referee who holds a seat: a player, who acts for another side only by a proposal."""
    return is_referee(row, actor) and bool(held_sides(row, actor))


def alone_at_the_table(row: GameRow, actor: Actor) -> bool:
    """Nobody but the actor holds a seat: no other side's player to agree (or to be wronged)."""
    return all(p is None or p["id"] == actor.user_id for p in row.table["seats"].values())


def other_sides(row: GameRow, actor: Actor) -> list[str]:
    """The sides whose seat the actor does not hold, in the game's order."""
    held = set(held_sides(row, actor))
    return [side for side in row.table["sides"] if side not in held]


def missing_sides(row: GameRow, actor: Actor, concerned: Iterable[str]) -> list[str]:
    """The sides of ``concerned`` the actor may not act for alone (none: allowed).

    A referee without a seat acts for every side; anyone holding a seat — a player, or a
    referee who plays — only for the sides whose seat they hold.
    """
    if free_hand(row, actor):
        return []
    held = {side.casefold() for side in held_sides(row, actor)}
    return sorted(side for side in set(concerned) if side.casefold() not in held)


def require_free_hand(row: GameRow, actor: Actor, what: str) -> None:
    """Refuses anyone but a referee without a seat: ``what`` is what only they may do."""
    if free_hand(row, actor):
        return
    if is_referee(row, actor):
        played = " and ".join(held_sides(row, actor))
        raise NotAReferee(f"Only a referee without a seat may {what}; you play {played}.")
    raise NotAReferee(f"Only a referee without a seat may {what}.")


def check_referee_only(row: GameRow, actor: Actor, action: BaseModel) -> None:
    """Options marked ``referee_only`` (a referee's correction) given by a non-referee."""
    if is_referee(row, actor):
        return
    model = type(action)
    for name in _referee_only(model):
        default = model.model_fields[name].get_default(call_default_factory=True)
        if getattr(action, name) != default:
            option = name.replace("_", "-")
            raise NotAReferee(f"Only a referee may give the option {option}.")


def permit(live: Live, actor: Actor, action: BaseModel) -> tuple[list[str], list[str]]:
    """The sides ``action`` concerns and those the actor may not act for alone: the sides to
    propose it to (a referee's correction by a referee who plays: every other side).

    The one permission check of every system action (docs/TRUST.md): derived from the
    action's model by :meth:`GameSystem.concerned_sides`, never per command.

    :raises NotYourSide: a player without a seat, or acting on another side's things.
    :raises NotAReferee: a ``referee_only`` option given by a player.
    """
    row = live.row
    # the actor's standing, read once (the helpers above each read it again)
    referee, held = is_referee(row, actor), held_sides(row, actor)
    if not referee:
        check_referee_only(row, actor, action)
        if not held:
            raise NotYourSide("Take a seat with /game seat before acting in this game.")
    concerned = sorted(live.system.concerned_sides(live.state, action))
    if referee and not held:  # a free hand (free_hand): acts for every side alone
        return concerned, []
    holds = {side.casefold() for side in held}  # missing_sides
    missing = sorted(side for side in set(concerned) if side.casefold() not in holds)
    if not missing and referee_only_options(action):
        # a playing referee's correction, even of their own side: the other side agrees
        missing = [side for side in row.table["sides"] if side not in held]  # other_sides
    return concerned, missing
