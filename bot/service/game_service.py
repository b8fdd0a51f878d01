"""The game service: load the channel's game → check permission → resolve with its dice → persist.

One writer per game at a time (an asyncio lock per channel); games of different channels never
wait for each other's locks. An interaction id seen before is answered from the log and rolls
nothing. A preview answers with exact odds and rolls and logs nothing; read-only commands are not
logged. Refusals raise :class:`~bot.errors.UserError` or :class:`~rules_core.errors.RulesError`
before anything changes.

The entry point is :meth:`GameService.handle`; ``bot/commands`` builds its commands from the
declarations and the console and Discord both call it.
"""

from __future__ import annotations

import asyncio
import random
import uuid
import weakref
from collections import OrderedDict
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel

from bot.dice.beacon.games import BeaconConfig, Resolver
from bot.dice.game_dice import FaceScript, new_seed
from bot.errors import BadCommand
from bot.models import Actor, Place, Reply
from bot.service.change import Change, Live
from bot.service.core import DEFAULT_LIVE_GAMES, HOLD_GAME
from bot.service.systems import InstalledSystems, pin_outcome_types
from bot.storage import Repository, StorageConflict
from bot.table import commands as gc
from bot.table.board import Board
from bot.table.league import League
from bot.table.new import NewGame
from bot.table.reads import Reads
from bot.table.roll import Rolls
from bot.table.setup import Scenarios
from bot.table.stats import StatsCommand
from bot.table.writes import TableWrites
from rules_core.system import GameSystem

WRITE_ATTEMPTS = 50
"""How many times one action is decided again when other processes keep writing its game first
(each refusal means another writer made progress; PostgreSQL with several processes)."""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _new_game_id() -> str:
    return uuid.uuid4().hex


class GameService(TableWrites, NewGame, Rolls, Board, Reads, League, StatsCommand, Scenarios):
    """Games per channel, their dice and their logs."""

    def __init__(
        self,
        repo: Repository,
        systems: Mapping[str, GameSystem[Any, Any]] | None = None,
        *,
        script: FaceScript | None = None,
        clock: Callable[[], str] = _now,
        seeds: Callable[[], bytes] = new_seed,
        game_ids: Callable[[], str] = _new_game_id,
        live_games: int = DEFAULT_LIVE_GAMES,
        beacon: BeaconConfig | None = None,
        dice_default: str = "server",
    ) -> None:
        """``clock``, ``seeds`` and ``game_ids`` are the sources of time, secret seeds and public
        game ids; only scripted runs (the console with ``--dice``) replace them, to print the same
        output for the same lines."""
        if live_games < 1:
            raise ValueError("live_games must be at least 1")
        self.repo = repo
        self.systems: Mapping[str, GameSystem[Any, Any]] = (
            systems if systems is not None else InstalledSystems()
        )
        pin_outcome_types(self.systems)
        self.script = script
        self.beacon = beacon
        """The beacon of new beacon games and its relays (None: beacon dice are unavailable)."""
        self.dice_default = dice_default
        """The dice of ``/game new`` without ``dice:`` (``REFEREE_DICE``: server or beacon)."""
        self.resolver = Resolver(beacon, self._resolve_declaration) if beacon else None
        self._clock = clock
        self._seeds = seeds
        self._game_ids = game_ids
        self.live_games = live_games
        self._locks: weakref.WeakValueDictionary[tuple[int, int], asyncio.Lock] = (
            weakref.WeakValueDictionary()
        )
        """A channel's lock lives while a coroutine holds or awaits it, then goes away."""
        self._live: OrderedDict[tuple[int, int], Live] = OrderedDict()
        """The most recently used games (at most ``live_games``), least recent first."""
        self._writers: dict[type[BaseModel], Callable[[Live, Actor, Any], Change]] = {
            gc.GameSeat: self._seat,
            gc.GameRefereeAdd: self._referee_add,
            gc.GameRefereeRemove: self._referee_remove,
            gc.GameSeed: self._seed,
            gc.GameNotices: self._notices,
            gc.GameResult: self._result,
            gc.GameRotate: self._rotate,
            gc.GameEnd: self._end,
            gc.RollDice: self._roll,
            gc.GameCancel: self._cancel,
            gc.GameSetup: self._setup,
            gc.GameDecline: self._decline,
        }
        """The write handler of each table command; a system action goes to ``_act``."""

    # --- entry point -----------------------------------------------------------------------

    async def handle(
        self,
        place: Place,
        actor: Actor,
        interaction_id: str,
        command: BaseModel,
        *,
        preview: bool = False,
        prepare: Callable[[Reply], object] | None = None,
    ) -> Reply:
        """Carry out one declared command (a table command or a system action).

        ``prepare``, if given, is called with the reply of a logged action while its commit is
        in flight, so a caller may render it meanwhile; the reply is final only when ``handle``
        returns it (a redelivery or a failed commit returns another reply or raises).
        """
        if preview and not getattr(command, "rolls_dice", False):
            raise BadCommand("Only commands that roll dice take preview.")
        # reads: nothing is logged
        if isinstance(command, gc.GameStatus):
            return await self._status(place)
        if isinstance(command, gc.GameList):
            return await self._list(place)
        if isinstance(command, gc.GameLeague):
            return await self._league(place, actor, command)
        if isinstance(command, gc.GameTimes):
            return await self._times(place, actor, command)
        if isinstance(command, gc.GameLog):
            return await self._log(place, command.last, command.before)
        if isinstance(command, gc.GameExport):
            return await self._export(place, command.page)
        if isinstance(command, gc.GameForces):
            return await self._forces(place)
        if isinstance(command, gc.Stats):
            return await self._stats(place, actor, command)
        if isinstance(command, gc.GameBoard):  # not logged: the board is kept beside the game
            return await self._board(place, actor, command)
        if isinstance(command, gc.RollDice) and preview:
            return self._roll_odds(command)
        if preview:
            return await self._preview(place, command)
        if getattr(command, "read_only", False):
            return await self._read_only_action(place, command)
        # writes: one log entry each
        if isinstance(command, gc.GameNew):
            return await self._new(place, actor, interaction_id, command)
        for attempt in range(1, WRITE_ATTEMPTS + 1):
            # after a refusal, decide again holding the game in the database (docs/DEVELOPING.md)
            retrying = HOLD_GAME.set(attempt > 1)
            try:
                if isinstance(command, gc.GameVoid | gc.GameConfirm):
                    return await self._void_write(place, actor, interaction_id, command)
                writer = self._writers.get(type(command), self._act)
                return await self._write(place, actor, interaction_id, command, writer, prepare)
            except StorageConflict:
                # another process wrote this game first (nothing of ours was written): decide
                # again on the game as it is now (reloaded: the cached copy was dropped)
                self._live.pop((place.guild_id, place.channel_id), None)
                if attempt == WRITE_ATTEMPTS:
                    raise
                await asyncio.sleep(random.uniform(0, 0.002 * attempt))
            finally:
                HOLD_GAME.reset(retrying)
        raise AssertionError("unreachable")
