"""The game service: load the channel's game → check permission → resolve with its dice → persist.

One writer per game at a time (an asyncio lock per channel); games of different channels never
wait for each other's locks. An interaction id seen before is answered from the log and rolls
nothing. A preview answers with exact odds and rolls and logs nothing; read-only commands are not
logged. Refusals raise :class:`~bot.errors.UserError` or :class:`~rules_core.errors.RulesError`
before anything changes.

The entry point is :meth:`GameService.handle`; ``bot/commands`` builds its commands from the
declarations and the console and Discord both call it. Each table command's handler is
registered beside its code (:mod:`bot.service.handlers`); every system action has one,
:data:`~bot.service.actions.SYSTEM_ACTION`. The whole pipeline is in this file.
"""

from __future__ import annotations

import asyncio
import functools
import random
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel

from bot.dice.beacon.chain import ChainInfo
from bot.dice.beacon.games import BeaconConfig, DeclarationPending, Resolver
from bot.dice.game_dice import FaceScript, new_seed
from bot.errors import BadCommand, NoGameHere
from bot.log.deadlines import Step
from bot.log.signing import signer
from bot.models import Actor, Place, Reply
from bot.service import actions, beacon, proposals
from bot.service.actions import SYSTEM_ACTION, turn_notice
from bot.service.beacon import after_beacon_change, refuse_while_pending, resolve_declaration
from bot.service.change import Change, Live
from bot.service.core import DEFAULT_LIVE_GAMES, HOLD_GAME, Core
from bot.service.handlers import Handler, Read, Start, Write, collect
from bot.service.systems import InstalledSystems, pin_outcome_types
from bot.storage import BoardRow, Repository, StorageConflict
from bot.table import (
    board,
    deadlines,
    league,
    new,
    reads,
    reminders,
    results,
    roll,
    rulings,
    sealed,
    setup,
    stats,
    writes,
)
from bot.table.commands import TABLE_COMMANDS
from bot.table.reminders import MissedDeadline, Notice, StaleTimer
from rules_core.roll_categories import CATEGORIES as ROLL_CATEGORIES
from rules_core.system import GameSystem, action_flag

TIMER_LEASE = 120.0
"""Seconds a process holds a timer it claimed; if it dies meanwhile, another claims it then."""
WRITE_ATTEMPTS = 50
"""How many times one action is decided again when other processes keep writing its game first
(each refusal means another writer made progress; PostgreSQL with several processes)."""

HANDLERS: dict[type[BaseModel], Handler] = collect(
    (
        proposals,
        beacon,
        board,
        deadlines,
        league,
        new,
        reads,
        results,
        roll,
        rulings,
        sealed,
        setup,
        stats,
        writes,
    )
)
"""The handler of every table command, from the modules that register them."""
if set(HANDLERS) != set(TABLE_COMMANDS):  # a command declared without a handler, or the reverse
    raise ImportError(f"table commands and handlers differ: {set(HANDLERS) ^ set(TABLE_COMMANDS)}")


_last_time = ""
_second: tuple[int, str] = (-1, "")
"""The last second read by :func:`_now` and its text up to the seconds (made once a second)."""


def _now() -> str:
    """The time of a new entry; never before the last one this process wrote, so a log's times
    never run backwards when the system clock is set back (the verifiers refuse that)."""
    global _last_time
    _last_time = max(_last_time, utc_milliseconds(time.time_ns()))
    return _last_time


def utc_milliseconds(ns: int) -> str:
    """``datetime.now(UTC).isoformat(timespec="milliseconds")`` at ``ns`` nanoseconds since the
    epoch (the clock ``datetime.now`` reads, truncated alike), its date and time formatted once a
    second: it is read on every action.

    >>> from datetime import timedelta
    >>> ns = 1_795_650_000_123_999_999
    >>> utc_milliseconds(ns)
    '2026-11-25T23:40:00.123+00:00'
    >>> read = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=ns // 1000)
    >>> utc_milliseconds(ns) == read.isoformat(timespec="milliseconds")
    True
    """
    global _second
    second, milli = divmod(ns // 1_000_000, 1000)
    if second != _second[0]:
        _second = (second, datetime.fromtimestamp(second, UTC).isoformat(timespec="seconds")[:19])
    return f"{_second[1]}.{milli:03d}+00:00"


def _new_game_id() -> str:
    return uuid.uuid4().hex


class GameService:
    """Games per channel, their dice and their logs."""

    def __init__(
        self,
        repo: Repository,
        systems: Mapping[str, GameSystem[Any, Any]] | None = None,
        *,
        script: FaceScript | None = None,
        clock: Callable[[], str] = _now,
        peek: Callable[[], str] | None = None,
        seeds: Callable[[], bytes] = new_seed,
        game_ids: Callable[[], str] = _new_game_id,
        live_games: int = DEFAULT_LIVE_GAMES,
        beacon: BeaconConfig | None = None,
        dice_default: str = "server",
    ) -> None:
        """``clock``, ``seeds`` and ``game_ids`` are the sources of time, secret seeds and public
        game ids; only scripted runs (the console with ``--dice``) replace them, to print the same
        output for the same lines (``peek`` then reads a scripted clock without moving it on;
        a test's clock may be given both)."""
        systems = systems if systems is not None else InstalledSystems()
        pin_outcome_types(systems)
        self.core = Core(
            repo,
            systems,
            script=script,
            clock=clock,
            peek=peek,
            seeds=seeds,
            game_ids=game_ids,
            live_games=live_games,
            beacon=beacon,
            dice_default=dice_default,
        )
        """What every handler is given (:class:`~bot.service.core.Core`)."""
        self.core.handlers = HANDLERS
        if beacon is not None:
            self.core.resolver = Resolver(beacon, functools.partial(resolve_declaration, self.core))
        self.core.after_commit = functools.partial(reminders.replan, self.core)

    @property
    def repo(self) -> Repository:
        return self.core.repo

    @property
    def systems(self) -> Mapping[str, GameSystem[Any, Any]]:
        return self.core.systems

    @property
    def script(self) -> FaceScript | None:
        return self.core.script

    @property
    def resolver(self) -> Resolver | None:
        return self.core.resolver

    def system(self, name: str) -> GameSystem[Any, Any]:
        """The system called ``name`` from this service's registry, case ignored (``ASL``)."""
        return self.core.system(name)

    # --- the pipeline --------------------------------------------------------------------

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
        if preview and not action_flag(type(command), "rolls_dice"):
            raise BadCommand("Only commands that roll dice take preview.")
        handler = HANDLERS.get(type(command), SYSTEM_ACTION)
        if isinstance(handler, Read):  # nothing is logged
            return await handler.answer(self.core, place, actor, command)
        if preview:  # exact odds; nothing rolled or logged
            if isinstance(handler, Write) and handler.preview is not None:
                return handler.preview(self.core, command)
            return await actions.preview(self.core, place, command)
        if handler is SYSTEM_ACTION and action_flag(type(command), "read_only"):
            return await actions.read_only_action(self.core, place, command)
        if isinstance(handler, Start):  # /game new: no game to load yet
            return await handler.begin(self.core, place, actor, interaction_id, command)
        return await self._attempts(place, actor, interaction_id, command, handler, prepare)

    async def _attempts(
        self,
        place: Place,
        actor: Actor,
        interaction_id: str,
        command: BaseModel,
        handler: Write,
        prepare: Callable[[Reply], object] | None,
    ) -> Reply:
        """One log entry, decided again after each refusal by another writer."""
        for attempt in range(1, WRITE_ATTEMPTS + 1):
            # after a refusal, decide again holding the game in the database (docs/DEVELOPING.md)
            retrying = HOLD_GAME.set(attempt > 1)
            try:
                return await self._write(place, actor, interaction_id, command, handler, prepare)
            except StorageConflict:
                # another process wrote this game first (nothing of ours was written): decide
                # again on the game as it is now (reloaded: the cached copy was dropped)
                self.core.forget(place)
                if attempt == WRITE_ATTEMPTS:
                    raise
                await asyncio.sleep(random.uniform(0, 0.002 * attempt))
            finally:
                HOLD_GAME.reset(retrying)
        raise AssertionError("unreachable")

    async def _write(
        self,
        place: Place,
        actor: Actor,
        interaction_id: str,
        command: BaseModel,
        handler: Write,
        prepare: Callable[[Reply], object] | None,
    ) -> Reply:
        """load → permit and decide (the handler) → commit → reply, under the channel's lock."""
        core = self.core
        if core.resolver is not None and handler.pending == "wait":
            # a declaration waiting for its round goes first: the state depends on its result
            await core.resolver.wait_clear(place)
        async with core.locked(place):
            # scripted dice (console, tests): a redelivery must not consume scripted faces, so
            # the log is asked first
            seen = await core.seen(interaction_id, place, command) if core.scripted else None
            if seen is not None:
                return seen
            try:
                live = await core.load(place, locked=True)
                if handler.pending != "act":
                    refuse_while_pending(live.row)
                decided = handler.decide(core, live, actor, command)
                # a system action's change is decided at once; a few table commands await
                change = decided if isinstance(decided, Change) else await decided
            except Exception:
                # a refusal of an interaction seen before: answer it from the log instead
                if (seen := await core.seen(interaction_id, place, command)) is not None:
                    return seen
                raise
            # an interaction seen before and accepted again is caught by the log's unique
            # interaction id at commit (rolled back, answered from the log): no read here
            reply = await core.commit(
                place, live, actor, interaction_id, change, prepare, command=command
            )
            if not reply.replayed:
                after_beacon_change(core, place, live.row.id, change)
                reply = turn_notice(live, actor, change, reply)
            return reply

    # --- deadlines ------------------------------------------------------------------------

    async def fire_timers(
        self,
        now: datetime,
        owner: str,
        *,
        place: Place | None = None,
        skip_guild: int | None = None,
        lease: float = TIMER_LEASE,
        deliver: Callable[[Notice], Awaitable[None]] | None = None,
    ) -> list[Notice]:
        """Fire the timers due at ``now``: of ``place``'s games only, or of every server but
        ``skip_guild``. Each is claimed by this process (``owner``) in the database first, so
        several processes on one database fire each once; ``deliver`` is awaited with each
        notice before its timer is marked fired (a process that dies meanwhile leaves it to be
        claimed again when its claim lapses). The notices, in order."""
        repo, fired = self.core.repo, []
        stamp = reminders.ms(now)
        where = (place.guild_id, place.channel_id) if place is not None else None
        for timer in await repo.due_timers(stamp, place=where, skip_guild=skip_guild):
            if not await repo.claim_timer(timer.id, owner, stamp, int(lease * 1000)):
                continue  # another process has it
            try:
                outcome, notices = await reminders.fire(self.core, timer, now, self._missed)
                for notice in notices:
                    if deliver is not None:
                        await deliver(notice)
                    fired.append(notice)
            except BaseException:
                await repo.release_timer(timer.id, owner)
                raise
            if outcome == "later":
                await repo.release_timer(timer.id, owner)
            else:
                await repo.finish_timer(timer.id, owner, stamp)
        return fired

    async def _missed(
        self, live: Live, ball: reminders.Ball, step: Step, interaction: str
    ) -> Reply:
        """Write the missed deadline of ``ball``'s wait into the log (once: its interaction id);
        :raises StaleTimer: the wait ended or its miss was written meanwhile."""
        place = Place(
            guild_id=live.row.guild_id, channel_id=live.row.channel_id, parent_id=live.row.parent_id
        )

        async def decide(core: Core, fresh: Live, actor: Actor, command: BaseModel) -> Change:
            found = await reminders.ball_of(core, fresh)
            if found is None or found[0].wait.seq != ball.wait.seq or found[0].wait.missed:
                raise StaleTimer(f"the wait of entry {ball.wait.seq} is over")
            return reminders.missed_change(fresh, found[0], found[1].deadline())

        actor = Actor(user_id=reminders.BOT.id, name=reminders.BOT.name)
        return await self._attempts(
            place, actor, interaction, MissedDeadline(), Write(None, decide), None
        )

    async def replan_timers(self) -> int:
        """Plan the timers of every active game with a deadline (at a process's start)."""
        return await reminders.replan_all(self.core)

    # --- for the front ends -----------------------------------------------------------------

    async def autocomplete(self, place: Place, kind: str, typed: str = "") -> list[str]:
        """Names of ``kind`` for an option's autocomplete (at most 25, Discord's limit).

        ``"systems"`` lists the installed systems; ``"side"`` the game's sides; any other kind
        asks the channel's game system (``GameSystem.names``). No game here: no names.
        """
        if kind == "systems":
            names = list(self.core.systems)
        elif kind == "category":
            names = [category.name for category in ROLL_CATEGORIES]
        else:
            try:
                live = await self.core.load(place)
            except NoGameHere:
                return []
            if kind == "side":
                names = list(live.row.table["sides"])
            else:
                names = list(live.system.names(live.state, kind))
        wanted = typed.strip().lower()
        return [n for n in names if wanted in n.lower()][:25]

    async def logged_action(
        self, place: Place, game_prefix: str, seq: int
    ) -> tuple[dict[str, Any], list[tuple[str, str]]]:
        """The action and facts of log entry ``seq`` of this channel's game whose id starts with
        ``game_prefix`` (what a button under that entry runs again or acts on)."""
        row = await self.core.readable(place)
        if not row.public_id.startswith(game_prefix):
            raise BadCommand("That button belongs to an earlier game of this channel.")
        if seq in set(row.table["voided"]):
            raise BadCommand(f"Entry #{seq} is void, so its button no longer applies.")
        found = await self.core.repo.entries(row.id, after=seq - 1, upto=seq)
        if not found or found[0].kind != "action":
            raise BadCommand(f"Entry #{seq} is not an action a button can act on.")
        data = found[0].data()
        facts = [(str(subject), str(result)) for subject, result in data["outcome"]["facts"]]
        action: dict[str, Any] = data["action"]
        return action, facts

    async def board_of(self, place: Place) -> tuple[Reply, BoardRow] | None:
        """The board of the channel's game and where it is posted, if the board is on."""
        return await board.board_of(self.core, place)

    async def board_posted(self, place: Place, game_id: int, message_id: int) -> None:
        """Remember the message the board of game ``game_id`` now lives in."""
        await board.board_posted(self.core, place, game_id, message_id)

    async def resolution(
        self, place: Place, declared: Reply, *, wait: float | None = None
    ) -> Reply:
        """The reply of a declaration's resolution, once its round is fetched and verified.

        :raises DeclarationPending: no relay gave the round in time (it resolves later);
        :raises DeclarationCancelled: a referee cancelled it.
        """
        assert declared.seq is not None
        if self.core.resolver is None:
            raise DeclarationPending(
                f"This bot has no beacon relays configured, so entry {declared.seq} stays pending."
            )
        return await self.core.resolver.result(place, declared.seq, wait=wait)

    async def signing_key(self, seed: bytes | None = None) -> str:
        """The bot's public key (hex), made at the first start on this database (``seed``: a
        scripted console run's, so that its output is the same every time)."""
        return (await signer(self.core.repo, seed=seed)).public_key

    async def resume_beacon(self, owns: Callable[[int], bool] | None = None) -> int:
        """Resume resolving the pending declarations (after a restart) of the servers ``owns``
        says this process serves (all: None); how many. Should two processes resume one, the
        database still lets only one resolve it (its resolution holds the game)."""
        resolver = self.core.resolver
        if resolver is None:
            return 0
        rows = await self.core.repo.pending_declarations()
        if owns is not None:
            rows = [row for row in rows if owns(row.guild_id)]
        for row in rows:
            pending = row.table["pending"]
            place = Place(guild_id=row.guild_id, channel_id=row.channel_id, parent_id=row.parent_id)
            chain = ChainInfo.from_json(row.table["beacon"])
            resolver.schedule(place, row.id, pending["seq"], pending["round"], chain, late=True)
        return len(rows)

    async def close_beacon(self) -> None:
        """Stop resolving (pending declarations stay pending in the log and resume later)."""
        if self.core.resolver is not None:
            await self.core.resolver.close()
