"""The handler of every table command, registered beside its code by naming its declaration.

A table command's model (``bot/table/commands.py``) is its declaration; its handler is a
function decorated with the model it answers, in the module of its group (``bot/table/*.py``,
or ``bot/service/*.py`` for the commands that are part of the pipeline: void, confirm, decline,
cancel)::

    @write(gc.GameSeat)
    def seat(core: Core, live: Live, actor: Actor, command: gc.GameSeat) -> Change: ...

A handler is given the :class:`~bot.service.core.Core` (the repository, the systems, the clock,
the game's dice, the commit) and what its kind needs, never the service itself. There are three
kinds, and :meth:`GameService.handle <bot.service.game_service.GameService.handle>` runs each
through one pipeline:

* :class:`Read` — logs nothing: answers from the game as stored (``/game status``, ``/stats``);
* :class:`Write` — decides one :class:`~bot.service.change.Change` on the channel's game, which the
  pipeline commits as the next log entry (``/game seat``, ``/roll``); a system action is one too
  (:data:`bot.service.actions.SYSTEM_ACTION`);
* :class:`Start` — ``/game new``: makes the channel's game, so there is none to load first.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Iterable
from types import ModuleType
from typing import Any, Literal

from pydantic import BaseModel

from bot.models import Actor, Place, Reply
from bot.service.change import Change, Live
from bot.service.core import Core

Answer = Callable[[Core, Place, Actor, Any], Awaitable[Reply]]
Decide = Callable[[Core, Live, Actor, Any], Change | Awaitable[Change]]
Agreed = Callable[[Core, Live, Actor, Any, dict[str, Any]], Change | Awaitable[Change]]
"""Carries out a confirmed proposal: ``(core, live, confirmer, command, agreed)``."""
Disputed = Callable[[Core, Live, Actor, dict[str, Any], str], Change]
"""The other side's refusal of a proposal as a dispute: ``(core, live, actor, proposal,
reason)``."""
Preview = Callable[[Core, Any], Reply]
Begin = Callable[[Core, Place, Actor, str, Any], Awaitable[Reply]]


@dataclasses.dataclass(frozen=True)
class Read:
    """A table command that logs nothing: ``answer(core, place, actor, command)``."""

    model: type[BaseModel]
    answer: Answer


@dataclasses.dataclass(frozen=True)
class Write:
    """A logged command: ``decide(core, live, actor, command)`` returns the change the pipeline
    commits (nothing is written by the handler); it may be a coroutine (it reads the log).

    ``pending`` says what happens while a beacon declaration of the game waits for its round:
    ``"wait"`` (the declaration resolves first: the state depends on it), ``"refuse"`` (refused
    at once) or ``"act"`` (``/game cancel``, which acts on it). ``preview`` answers the command
    with ``preview:true`` (exact odds; nothing rolled or logged) when it is not a system action.
    ``agreed`` carries out a proposal of the command once the other side (or a referee without
    a seat) confirms it (``/game confirm``): a command a referee who plays may only propose.
    ``disputed``, if given, is what the other side's refusal of such a proposal is (``/game
    decline`` of a proposed result: a dispute that a referee without a seat rules on).
    """

    model: type[BaseModel] | None
    decide: Decide
    pending: Literal["wait", "refuse", "act"] = "wait"
    preview: Preview | None = None
    agreed: Agreed | None = None
    disputed: Disputed | None = None


@dataclasses.dataclass(frozen=True)
class Start:
    """``/game new``: ``begin(core, place, actor, interaction_id, command)`` makes the game."""

    model: type[BaseModel]
    begin: Begin


Handler = Read | Write | Start


def read(model: type[BaseModel]) -> Callable[[Answer], Read]:
    """Register the decorated coroutine as the answer of ``model``, a command that logs nothing."""
    return lambda answer: Read(model, answer)


def write(
    model: type[BaseModel],
    *,
    pending: Literal["wait", "refuse", "act"] = "wait",
    preview: Preview | None = None,
    agreed: Agreed | None = None,
    disputed: Disputed | None = None,
) -> Callable[[Decide], Write]:
    """Register the decorated function as the decision of ``model``, a logged command."""
    return lambda decide: Write(model, decide, pending, preview, agreed, disputed)


def start(model: type[BaseModel]) -> Callable[[Begin], Start]:
    """Register the decorated coroutine as the maker of a new game (``/game new``)."""
    return lambda begin: Start(model, begin)


def collect(modules: Iterable[ModuleType]) -> dict[type[BaseModel], Handler]:
    """The handlers registered in ``modules``, by the model they answer (one each)."""
    found: dict[type[BaseModel], Handler] = {}
    for module in modules:
        for value in vars(module).values():
            if isinstance(value, Read | Write | Start) and value.model is not None:
                if value.model in found and found[value.model] is not value:
                    raise ValueError(f"{value.model.__name__} has two handlers")
                found[value.model] = value
    return found
