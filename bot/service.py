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
import contextlib
import contextvars
import csv
import dataclasses
import functools
import importlib.util
import io
import json
import logging
import random
import uuid
import weakref
import zipfile
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from fractions import Fraction
from typing import Any

from pydantic import BaseModel

from bot import game_commands as gc
from bot.beacon.chain import Beacon, ChainInfo, round_time
from bot.beacon.games import (
    BeaconConfig,
    BeaconNotConfigured,
    DeclarationPending,
    DeclarationWaiting,
    NeedsBeacon,
    ProbeDice,
    Resolver,
)
from bot.dice import (
    NO_PLAYERS,
    DiceScriptExhausted,
    DieRecord,
    FaceScript,
    GameDice,
    commitment,
    mix_phrase,
    new_seed,
)
from bot.errors import (
    BadCommand,
    CannotVoid,
    DiceScriptRanOut,
    GameAlreadyActive,
    NoGameHere,
    NotAReferee,
    NotYourSide,
    SeatTaken,
    WrongSystem,
)
from bot.gamelog import (
    FORMAT_VERSION,
    GENESIS_PREV,
    VOIDABLE,
    ReplayError,
    canonical,
    outcome_json,
    rebuild_state,
    seal,
    state_hash,
    state_json,
)
from bot.models import Actor, DieView, FollowUp, OddsLine, Place, Reply, ReplyFile, UserRef
from bot.stats import face_stats
from bot.storage import Append, Duplicate, GameRow, Repository, StorageConflict, StoredEntry
from bot.web import PAGE_NAME, verifier_page
from rules_core.dice import Roll, ScriptedDice
from rules_core.errors import InvalidInput
from rules_core.odds import OddsTooLarge
from rules_core.outcome import Outcome, Step
from rules_core.roll import DiceExpression, parse_expression, roll_expression
from rules_core.roll_categories import CATEGORIES as ROLL_CATEGORIES
from rules_core.roll_categories import category_named, default_dice
from rules_core.roll_categories import notes as roll_notes
from rules_core.system import SYSTEM_NAMES, GameSystem, get_system

log = logging.getLogger(__name__)

DEFAULT_LIVE_GAMES = 1000
WRITE_ATTEMPTS = 50
_HOLD_GAME: contextvars.ContextVar[bool] = contextvars.ContextVar("hold_game", default=False)
"""How many times one action is decided again when other processes keep writing its game first
(each refusal means another writer made progress; PostgreSQL with several processes)."""
"""How many games the service keeps parsed in memory by default (``REFEREE_LIVE_GAMES``)."""
DEFAULT_SIDES: tuple[str, ...] = ("Axis", "Allied")
MAX_SIDE_NAME = 40
"""The longest side name: it must fit a Discord choice (100 characters) inside a list option."""
SYSTEM_SIDES: dict[str, tuple[str, ...]] = {"cwb": ("Union", "Confederate")}
"""Default sides per system when ``/game new`` names none (a system may set ``default_sides``)."""


def parse_options(text: str) -> dict[str, Any]:
    """Scenario options of ``/game new``: a JSON object, or ``key=value`` pairs.

    Values ``true``/``false`` are booleans, whole numbers are integers, anything else is text.
    The log holds no floats: a fraction, ``NaN`` or ``Infinity`` is refused, and so is a whole
    number beyond JSON's exact integers (±2**53).

    >>> parse_options("isolation=true, ammo_loss=25, era=1944")
    {'isolation': True, 'ammo_loss': 25, 'era': 1944}
    >>> parse_options('{"nationalities": {"Axis": "German"}}')
    {'nationalities': {'Axis': 'German'}}
    >>> parse_options('{"cwb_ammo_loss_pct": NaN}')
    Traceback (most recent call last):
    ...
    rules_core.errors.InvalidInput: Option values are whole numbers, true/false or text, not NaN.
    >>> parse_options("oops")
    Traceback (most recent call last):
    ...
    rules_core.errors.InvalidInput: Write options as key=value pairs or a JSON object, not 'oops'.
    """
    text = text.strip()
    if not text:
        return {}
    if text.startswith("{"):
        try:
            data = json.loads(
                text,
                parse_constant=_not_a_number,
                parse_float=_not_a_number,
                parse_int=_exact_int,
            )
        except ValueError:
            raise InvalidInput("The options are not a valid JSON object.") from None
        if not isinstance(data, dict):
            raise InvalidInput("The options must be a JSON object.")
        return data
    options: dict[str, Any] = {}
    for part in text.split(","):
        key, equals, value = part.partition("=")
        if not equals or not key.strip():
            raise InvalidInput(f"Write options as key=value pairs or a JSON object, not {part!r}.")
        raw = value.strip()
        parsed: Any = raw
        if raw.lower() in ("true", "false"):
            parsed = raw.lower() == "true"
        elif raw.lstrip("-").isdigit():
            parsed = _exact_int(raw)
        options[key.strip()] = parsed
    return options


def _not_a_number(text: str) -> Any:
    raise InvalidInput(f"Option values are whole numbers, true/false or text, not {text}.")


def _exact_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:  # beyond Python's digits limit
        value = 2**64
    if abs(value) > 2**53:
        raise InvalidInput(f"The option value {text[:20]} is too large; use at most 2**53.")
    return value


ROLL_ODDS_LIMIT = 50_000
"""A ``/roll`` preview lists at most this many dice sequences' worth of outcomes."""


def roll_total_odds(expression: DiceExpression) -> dict[tuple[tuple[str, str], ...], Fraction]:
    """The exact odds of each total of a ``/roll`` expression, ``{(("total", "7"),): 1/6}``.

    Counted by convolution (ways to make each sum, die by die) rather than by enumerating every
    dice sequence: the same fractions as :func:`rules_core.odds.exact_odds` over
    :func:`~rules_core.roll.roll_expression`, in a fraction of the time (``3d6``: 216 sequences,
    16 sums). An expression of more than ``ROLL_ODDS_LIMIT`` sequences is refused, as before.

    >>> odds = roll_total_odds(parse_expression("DR+1"))
    >>> odds[(("total", "8"),)], odds[(("total", "13"),)]
    (Fraction(1, 6), Fraction(1, 36))
    >>> roll_total_odds(parse_expression("7d6"))
    Traceback (most recent call last):
    ...
    rules_core.errors.InvalidInput: 7d6 has too many outcomes to list.
    """
    sides, count = expression.sides, expression.count
    if sides**count > ROLL_ODDS_LIMIT:
        raise InvalidInput(f"{expression.text()} has too many outcomes to list.")
    ways = [1]  # ways[k]: sequences whose faces sum to k + (dice so far)
    for _ in range(count):
        prefix = [0]
        for value in ways:
            prefix.append(prefix[-1] + value)
        size = len(ways) + sides - 1
        ways = [prefix[min(k + 1, len(ways))] - prefix[max(0, k - sides + 1)] for k in range(size)]
    total = sides**count
    low = count + expression.modifier
    return {(("total", str(low + k)),): Fraction(n, total) for k, n in enumerate(ways) if n}


_PINNED_OUTCOMES: dict[type[BaseModel], type[BaseModel]] = {}


def pin_outcome_types(systems: Mapping[str, GameSystem[Any, Any]]) -> None:
    """Hold ``Outcome[State]`` of every system for the life of the process.

    The rules build their results as ``Outcome[AslState](...)``; pydantic keeps each
    parametrized class only in a weak cache, so when the last outcome of a class has gone and
    the garbage collector ran, the next action builds the class again (its schema, ~0.7 ms) —
    under load, several times a second. A strong reference here keeps the cache warm.
    """
    for system in systems.values():
        state_type = system.state_type
        if state_type not in _PINNED_OUTCOMES:
            _PINNED_OUTCOMES[state_type] = Outcome[state_type]  # type: ignore[valid-type]


class InstalledSystems(Mapping[str, GameSystem[Any, Any]]):
    """The game systems of ``rules_core`` that are present and expose ``SYSTEM``."""

    def __init__(self) -> None:
        self._systems: dict[str, GameSystem[Any, Any]] | None = None

    def _load(self) -> dict[str, GameSystem[Any, Any]]:
        if self._systems is None:
            found: dict[str, GameSystem[Any, Any]] = {}
            for name in SYSTEM_NAMES:
                if importlib.util.find_spec(f"rules_core.{name}") is None:
                    continue
                try:
                    found[name] = get_system(name)
                except (ImportError, AttributeError):  # a system still being written
                    continue
            self._systems = found
        return self._systems

    def __getitem__(self, name: str) -> GameSystem[Any, Any]:
        return self._load()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._load())

    def __len__(self) -> int:
        return len(self._load())


@dataclasses.dataclass
class _Live:
    row: GameRow
    state: BaseModel
    system: GameSystem[Any, Any]


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _new_game_id() -> str:
    return uuid.uuid4().hex


def command_path(action: str) -> str:
    """``"asl.unit.add"`` → ``"/asl unit add"``.

    >>> command_path("game.referee.add")
    '/game referee add'
    """
    return "/" + action.replace(".", " ")


class GameService:
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
        self._live: OrderedDict[tuple[int, int], _Live] = OrderedDict()
        """The most recently used games (at most ``live_games``), least recent first."""
        self._writers: dict[type[BaseModel], Callable[[_Live, Actor, Any], _Change]] = {
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
        if isinstance(command, gc.GameLog):
            return await self._log(place, command.last, command.before)
        if isinstance(command, gc.GameExport):
            return await self._export(place, command.page)
        if isinstance(command, gc.Stats):
            return await self._stats(place, actor, command)
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
            retrying = _HOLD_GAME.set(attempt > 1)
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
                _HOLD_GAME.reset(retrying)
        raise AssertionError("unreachable")

    async def autocomplete(self, place: Place, kind: str, typed: str = "") -> list[str]:
        """Names of ``kind`` for an option's autocomplete (at most 25, Discord's limit).

        ``"systems"`` lists the installed systems; ``"side"`` the game's sides; any other kind
        asks the channel's game system (``GameSystem.names``). No game here: no names.
        """
        if kind == "systems":
            names = list(self.systems)
        elif kind == "category":
            names = [category.name for category in ROLL_CATEGORIES]
        else:
            try:
                live = await self._load(place)
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
        row = await self._readable(place)
        if not row.public_id.startswith(game_prefix):
            raise BadCommand("That button belongs to an earlier game of this channel.")
        if seq in set(row.table["voided"]):
            raise BadCommand(f"Entry #{seq} is void, so its button no longer applies.")
        found = await self.repo.entries(row.id, after=seq - 1, upto=seq)
        if not found or found[0].kind != "action":
            raise BadCommand(f"Entry #{seq} is not an action a button can act on.")
        data = found[0].data()
        facts = [(str(subject), str(result)) for subject, result in data["outcome"]["facts"]]
        action: dict[str, Any] = data["action"]
        return action, facts

    # --- loading and locking ---------------------------------------------------------------

    def _lock(self, place: Place) -> asyncio.Lock:
        key = (place.guild_id, place.channel_id)
        lock = self._locks.get(key)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[key] = lock
        return lock

    @contextlib.asynccontextmanager
    async def _locked(self, place: Place, *, hold: bool = False) -> AsyncIterator[None]:
        """The channel's lock; when deciding again after a refusal (or ``hold``), the game held
        in the database too (taken after the channel's lock, so two tasks never wait on each
        other) and read afresh from it."""
        async with self._lock(place):
            if not (hold or _HOLD_GAME.get()):
                yield
                return
            self._live.pop((place.guild_id, place.channel_id), None)
            try:
                async with self.repo.hold(place.guild_id, place.channel_id):
                    yield
            except BaseException:
                self._live.pop((place.guild_id, place.channel_id), None)
                raise

    def _cached(self, key: tuple[int, int]) -> _Live | None:
        """The cached game of ``key``, marked most recently used."""
        live = self._live.get(key)
        if live is not None:
            self._live.move_to_end(key)
        return live

    def _remember(self, key: tuple[int, int], live: _Live) -> None:
        """Cache ``live`` (only writers holding the channel's lock call this), evicting the
        least recently used games beyond ``live_games``."""
        self._live[key] = live
        self._live.move_to_end(key)
        while len(self._live) > self.live_games:
            self._live.popitem(last=False)

    def system(self, name: str) -> GameSystem[Any, Any]:
        """The system called ``name`` from this service's registry, case ignored (``ASL``)."""
        try:
            return self.systems[name]
        except KeyError:
            wanted = name.strip().casefold()
            for key, system in self.systems.items():
                if key.casefold() == wanted:
                    return system
            raise InvalidInput(
                f"Unknown game system {name!r}; choose one of {', '.join(self.systems)}."
            ) from None

    async def _load(self, place: Place, *, locked: bool = False) -> _Live:
        """The channel's active game, from the cache or the database.

        Only a caller holding the channel's lock (``locked``) caches what it read: a reader
        without the lock could otherwise cache a row that a writer moved past meanwhile.
        """
        key = (place.guild_id, place.channel_id)
        live = self._cached(key)
        if live is not None:
            return live
        row = await self.repo.active_game(place.guild_id, place.channel_id)
        if row is None:
            raise await self._no_active_game(place)
        system = self.system(row.system)
        live = _Live(row=row, state=system.parse_state(row.state_json), system=system)
        if locked:
            self._remember(key, live)
        return live

    async def _no_active_game(self, place: Place) -> NoGameHere:
        """What to say when the channel has no active game: none ever, or the last one ended."""
        last = await self.repo.latest_game(place.guild_id, place.channel_id)
        if last is None:
            return NoGameHere("There is no game in this channel; start one with /game new.")
        return NoGameHere(
            f'The game in this channel, "{last.title}", has ended; a referee starts the next one '
            "with /game new (/game status, /game log and /game export still show the ended game)."
        )

    async def _readable(self, place: Place) -> GameRow:
        """The active game, or the channel's last ended game (everyone may read it)."""
        key = (place.guild_id, place.channel_id)
        live = self._live.get(key)
        if live is not None:
            return live.row
        row = await self.repo.latest_game(place.guild_id, place.channel_id)
        if row is None:
            raise NoGameHere("There is no game in this channel; start one with /game new.")
        return row

    async def _write(
        self,
        place: Place,
        actor: Actor,
        interaction_id: str,
        command: BaseModel,
        handler: Callable[[_Live, Actor, Any], _Change],
        prepare: Callable[[Reply], object] | None = None,
    ) -> Reply:
        cancel = isinstance(command, gc.GameCancel)
        if self.resolver is not None and not cancel:
            # a declaration waiting for its round goes first: the state depends on its result
            await self.resolver.wait_clear(place)
        async with self._locked(place):
            if self.script is not None:
                # scripted dice (console, tests): a redelivery must not consume scripted faces,
                # so the log is asked first
                seen = await self.repo.entry_by_interaction(interaction_id)
                if seen is not None:
                    return await self._replay(seen, place, command)
            try:
                live = await self._load(place, locked=True)
                if not cancel:
                    _refuse_while_pending(live.row)
                change = handler(live, actor, command)
            except Exception:
                # a refusal of an interaction seen before: answer it from the log instead
                seen = await self.repo.entry_by_interaction(interaction_id)
                if seen is not None:
                    return await self._replay(seen, place, command)
                raise
            # an interaction seen before and accepted again is caught by the log's unique
            # interaction id at commit (rolled back, answered from the log): no read here
            reply = await self._commit(
                place, live, actor, interaction_id, change, prepare, command=command
            )
            if not reply.replayed:
                self._after_beacon_change(place, live.row.id, change)
                reply = self._turn_notice(live, actor, command, change, reply)
            return reply

    # --- permissions -----------------------------------------------------------------------

    @staticmethod
    def is_referee(row: GameRow, actor: Actor) -> bool:
        """Referees of the game and the server's administrators referee it."""
        return actor.is_admin or any(r["id"] == actor.user_id for r in row.table["referees"])

    @staticmethod
    def held_sides(row: GameRow, actor: Actor) -> list[str]:
        """The sides whose seat the actor holds."""
        return [side for side, p in row.table["seats"].items() if p and p["id"] == actor.user_id]

    def _require_referee(self, row: GameRow, actor: Actor, what: str) -> None:
        if not self.is_referee(row, actor):
            raise NotAReferee(f"Only a referee or a server administrator may {what}.")

    def _require_player(self, row: GameRow, actor: Actor) -> None:
        if not (self.is_referee(row, actor) or self.held_sides(row, actor)):
            raise NotYourSide("Take a seat with /game seat before acting in this game.")

    def free_hand(self, row: GameRow, actor: Actor) -> bool:
        """A referee who holds no seat: the only one who may void an entry of any side alone."""
        return self.is_referee(row, actor) and not self.held_sides(row, actor)

    def missing_sides(self, row: GameRow, actor: Actor, concerned: Iterable[str]) -> list[str]:
        """The sides of ``concerned`` the actor may not act for alone (none: allowed).

        A referee acts for every side; a player only for the sides whose seat they hold.
        """
        if self.is_referee(row, actor):
            return []
        held = {side.casefold() for side in self.held_sides(row, actor)}
        return sorted(side for side in set(concerned) if side.casefold() not in held)

    def _check_referee_only(self, row: GameRow, actor: Actor, action: BaseModel) -> None:
        """Options marked ``referee_only`` (a referee's correction) given by a non-referee."""
        if self.is_referee(row, actor):
            return
        for name, info in type(action).model_fields.items():
            extra = info.json_schema_extra
            given = getattr(action, name) != info.get_default(call_default_factory=True)
            if isinstance(extra, dict) and extra.get("referee_only") and given:
                option = name.replace("_", "-")
                raise NotAReferee(f"Only a referee may give the option {option}.")

    def permit(self, live: _Live, actor: Actor, action: BaseModel) -> tuple[list[str], list[str]]:
        """The sides ``action`` concerns and those of them the actor may not act for alone.

        The one permission check of every system action (docs/TRUST.md): derived from the
        action's model by :meth:`GameSystem.concerned_sides`, never per command.

        :raises NotYourSide: a player without a seat, or acting on another side's things.
        :raises NotAReferee: a ``referee_only`` option given by a player.
        """
        row = live.row
        self._check_referee_only(row, actor, action)
        if not (self.is_referee(row, actor) or self.held_sides(row, actor)):
            raise NotYourSide("Take a seat with /game seat before acting in this game.")
        concerned = sorted(live.system.concerned_sides(live.state, action))
        return concerned, self.missing_sides(row, actor, concerned)

    # --- the write handlers: each returns a _Change, nothing is written yet -----------------

    def _act(self, live: _Live, actor: Actor, action: BaseModel) -> _Change:
        self._check_system(live, action)
        action = sides_as_spelled(live.row.table["sides"], action)
        concerned, missing = self.permit(live, actor, action)
        if missing:
            # set-up, and what names nothing of any side (the game's first phase), concern
            # both sides: a player proposes it, the other confirms
            if getattr(type(action), "setup", False) or not live.system.named_sides(
                live.state, action
            ):
                return self._propose(live, actor, action, concerned, missing)
            seats = " and ".join(missing)
            raise NotYourSide(
                f"You do not hold the {seats} seat; only its player or a referee may act for it."
            )
        return self._run_action(live, action, concerned)

    def _run_action(
        self,
        live: _Live,
        action: BaseModel,
        concerned: list[str],
        agreed: dict[str, Any] | None = None,
    ) -> _Change:
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
                change = self._declare(live, declared)
                if agreed is not None and change.table is not None:
                    change.table["proposals"] = [
                        p for p in change.table["proposals"] if p["entry"] != agreed["proposal"]
                    ]
                return change
            # it reads no die: logged at once, as in any game
        dice = self._dice(row)
        with self._script_rollback():
            outcome = system.run(live.state, action, dice)
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
            table = _copy_table(row.table)
            table["proposals"] = [p for p in table["proposals"] if p["entry"] != agreed["proposal"]]
        return _Change(
            kind="action",
            data=data,
            dice=dice.records,
            state=outcome.state,
            table=table,
            shown=(outcome.steps, outcome.facts, outcome.rolls),
        )

    def _propose(
        self,
        live: _Live,
        actor: Actor,
        command: BaseModel,
        concerned: list[str],
        missing: list[str],
    ) -> _Change:
        """Log a proposal the player of ``missing`` (or a referee without a seat) confirms."""
        row = live.row
        seq = row.head_seq + 1
        table = _copy_table(row.table)
        table["proposals"].append(
            {
                "entry": seq,
                "by": {"id": actor.user_id, "name": actor.name},
                "command": command.model_dump(mode="json"),
                "sides": concerned,
                "needs": missing,
            }
        )
        return _Change(
            kind="game.propose",
            data={"command": command.model_dump(mode="json"), "sides": concerned, "needs": missing},
            table=table,
        )

    def _roll(self, live: _Live, actor: Actor, command: gc.RollDice) -> _Change:
        self._require_player(live.row, actor)
        held = self.held_sides(live.row, actor)
        category = category_named(command.category) if command.category.strip() else ""
        expression = parse_expression(command.dice or default_dice(category))
        if command.count > 1:
            if expression.repeat > 1:
                raise InvalidInput('Give the batch once: dice:DR count:3, or dice:"3 DR".')
            expression = expression.batch(command.count)
        if live.row.table.get("beacon"):
            declared: dict[str, Any] = {
                "declares": "roll",
                "expression": expression.text(),
                "reason": command.reason,
                "sides": held,
            }
            if category:
                declared["category"] = category
            return self._declare(live, declared)
        dice = self._dice(live.row)
        with self._script_rollback():
            result = roll_expression(expression, dice, reason=command.reason, category=category)
        notes: tuple[Step, ...] = ()
        if live.row.system == "asl" and category:
            notes = tuple(n for roll in result.rolls for n in roll_notes(category, roll))
        data: dict[str, Any] = {
            "expression": expression.text(),
            "reason": command.reason,
            "total": result.total,
            "text": result.render(),
            "rolls": [r.model_dump(mode="json") for r in result.rolls],
            "sides": held,
        }
        if category:
            data["category"] = category
        if expression.repeat > 1:
            data["totals"] = list(result.totals)
        if notes:
            data["notes"] = [n.model_dump(mode="json") for n in notes]
        return _Change(
            kind="roll",
            data=data,
            dice=dice.records,
            shown=(notes, (), tuple(result.rolls)),
        )

    def _seat(self, live: _Live, actor: Actor, command: gc.GameSeat) -> _Change:
        row = live.row
        sides = row.table["sides"]
        side = side_named(sides, command.side)
        player = command.player or UserRef(id=actor.user_id, name=actor.name)
        referee = self.is_referee(row, actor)
        if player.id != actor.user_id and not referee:
            raise NotAReferee("Only a referee may seat another player.")
        holder = row.table["seats"].get(side)
        if holder and holder["id"] != player.id and not referee:
            raise SeatTaken(f"{holder['name']} holds the {side} seat; ask a referee to reseat it.")
        table = _copy_table(row.table)
        table["seats"][side] = player.model_dump()
        return _Change(
            kind="game.seat",
            data={"side": side, "player": player.model_dump()},
            table=table,
        )

    def _referee_add(self, live: _Live, actor: Actor, command: gc.GameRefereeAdd) -> _Change:
        row = live.row
        self._require_referee(row, actor, "name referees")
        if any(r["id"] == command.user.id for r in row.table["referees"]):
            raise InvalidInput(f"{command.user.name} is already a referee of this game.")
        table = _copy_table(row.table)
        table["referees"].append(command.user.model_dump())
        return _Change(
            kind="game.referee.add", data={"user": command.user.model_dump()}, table=table
        )

    def _referee_remove(self, live: _Live, actor: Actor, command: gc.GameRefereeRemove) -> _Change:
        row = live.row
        self._require_referee(row, actor, "remove referees")
        if not any(r["id"] == command.user.id for r in row.table["referees"]):
            raise InvalidInput(f"{command.user.name} is not a referee of this game.")
        if len(row.table["referees"]) == 1:
            raise InvalidInput("A game keeps at least one referee; name another one first.")
        table = _copy_table(row.table)
        table["referees"] = [r for r in table["referees"] if r["id"] != command.user.id]
        return _Change(
            kind="game.referee.remove", data={"user": command.user.model_dump()}, table=table
        )

    def _seed(self, live: _Live, actor: Actor, command: gc.GameSeed) -> _Change:
        self._require_player(live.row, actor)
        mixed = mix_phrase(live.row.players_mix, command.phrase)
        return _Change(
            kind="game.seed",
            data={"phrase": command.phrase, "players": mixed.hex()},
            players_mix=mixed,
        )

    def _result(self, live: _Live, actor: Actor, command: gc.GameResult) -> _Change:
        self._require_player(live.row, actor)
        sides = live.row.table["sides"]
        if len(sides) != 2:
            raise InvalidInput("A result names one winner of two sides; this game has more.")
        winner = "draw" if command.winner.strip().lower() == "draw" else None
        winner = winner or side_named(sides, command.winner)
        scenario = command.scenario.strip()
        if not all(ch.isalnum() or ch in "-_." for ch in scenario):
            raise InvalidInput(
                f"Write the scenario's id as published, like FT91, not {scenario!r}."
            )
        data = {
            "winner": winner,
            "scenario": scenario,
            "attacker": side_named(sides, command.attacker),
            "tournament": command.tournament.strip(),
            "round": command.round,
        }
        table = _copy_table(live.row.table)
        table["result"] = data
        return _Change(kind="game.result", data=data, table=table)

    async def _list(self, place: Place) -> Reply:
        """The server's active games by player: where each plays, what and which side."""
        games = [g for g in await self.repo.games_in_guild(place.guild_id) if g.status == "active"]
        by_player: dict[str, list[str]] = {}
        for game in games:
            for side, player in game.table["seats"].items():
                if player:
                    by_player.setdefault(player["name"], []).append(
                        f"<#{game.channel_id}> {game.title} ({game.system}, {side})"
                    )
        fields = tuple((name, "\n".join(lines)) for name, lines in sorted(by_player.items()))
        return Reply(
            command="/game list",
            title=f"Active games in this server: {len(games)}",
            fields=fields or (("Players", "nobody is seated in an active game"),),
            scripted=self.script is not None,
            ephemeral=True,
        )

    async def _league(self, place: Place, actor: Actor, command: gc.GameLeague) -> Reply:
        """The tournament's recorded results as the ASL Player Ratings upload CSV, and each of
        its games' exports, in one zip file (server administrators and referees)."""
        if not actor.is_admin:
            raise NotAReferee("Only a server administrator or referee exports a league's results.")
        tournament = command.tournament.strip()
        rows: list[list[str]] = []
        exports: list[tuple[str, str]] = []
        for game in await self.repo.games_in_guild(place.guild_id):
            result = game.table.get("result")
            if not result or result.get("tournament") != tournament:
                continue
            entries = await self.repo.entries(game.id)
            recorded = [e.data() for e in entries if e.kind == "game.result"][-1]
            rows.append(ratings_row(game, result, recorded["at"][:10]))
            exports.append((f"game-{game.public_id}.jsonl", await export_game(self.repo, game)))
        if not rows:
            raise InvalidInput(
                f"No game of this server has a result recorded for {tournament!r} "
                "(/game result tournament:…)."
            )
        content = league_zip(rows, exports)
        return Reply(
            command="/game league",
            title=f"{tournament}: {len(rows)} results and their games' exports",
            scripted=self.script is not None,
            ephemeral=True,
            file=ReplyFile(filename=f"{_file_safe(tournament)}-results.zip", content=content),
        )

    def _notices(self, live: _Live, actor: Actor, command: gc.GameNotices) -> _Change:
        self._require_player(live.row, actor)
        table = _copy_table(live.row.table)
        table["notices"] = command.on
        return _Change(kind="game.notices", data={"on": command.on}, table=table)

    def _turn_notice(
        self, live: _Live, actor: Actor, command: BaseModel, change: _Change, reply: Reply
    ) -> Reply:
        """After a phase change (an action that ``advances_turn``), name the player whose turn it
        is now — the holder of the seat of ``GameSystem.turn_side`` — with the phase, unless the
        game turned notices off (``/game notices on:false``) or that player made the change."""
        if not getattr(command, "advances_turn", False) or change.state is None:
            return reply
        if not live.row.table.get("notices", True):
            return reply
        side = live.system.turn_side(change.state)
        holder = live.row.table["seats"].get(side) if side else None
        if not side or not holder or holder["id"] == actor.user_id:
            return reply  # nobody to tell, or the one who changed the phase
        phase = next(
            (line for line in live.system.summary(change.state) if line.startswith("Phase")), ""
        )
        detail = phase.split(":", 1)[1].strip() if ":" in phase else ""
        notice = f"{holder['name']}, it is the {side} player's turn" + (
            f": {detail}" if detail else ""
        )
        mention = UserRef(id=holder["id"], name=holder["name"])
        return reply.model_copy(update={"notice": notice, "mention": mention})

    def _rotate(self, live: _Live, actor: Actor, command: gc.GameRotate) -> _Change:
        row = live.row
        self._require_referee(row, actor, "rotate the dice seed")
        seed = self._seeds()
        return _Change(
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

    def _end(self, live: _Live, actor: Actor, command: gc.GameEnd) -> _Change:
        row = live.row
        self._require_referee(row, actor, "end the game")
        return _Change(
            kind="game.end",
            data={"revealed_epoch": row.epoch, "revealed_seed": row.seed.hex()},
            reveal=(row.epoch, row.seed),
            status="ended",
        )

    @contextlib.contextmanager
    def _script_rollback(self) -> Iterator[None]:
        """A refused declaration consumes no scripted face."""
        used = self.script.used if self.script is not None else 0
        try:
            yield
        except BaseException as exc:
            if self.script is not None:
                self.script.used = used
            if isinstance(exc, DiceScriptExhausted):
                raise DiceScriptRanOut(str(exc)) from exc
            raise

    # --- commit ---------------------------------------------------------------------------

    @staticmethod
    def _check_system(live: _Live, action: BaseModel) -> str:
        """The action's path; refuses a command of another system than the channel's game."""
        path = str(getattr(action, "action", ""))
        if path.split(".")[0] != live.system.name:
            raise WrongSystem(
                f"This channel plays {live.system.title}; {command_path(path)} belongs to "
                "another game."
            )
        return path

    def _dice(self, row: GameRow) -> GameDice:
        if self.script is not None and not row.table.get("scripted"):
            raise DiceScriptRanOut(
                "This game was started without scripted dice, so its dice come only from its "
                "seed; run the console without --dice for it."
            )
        return GameDice(
            row.seed,
            game=row.public_id,
            players=row.players_mix,
            next_seq=row.next_die,
            epoch=row.epoch,
            script=self.script,
        )

    async def _commit(
        self,
        place: Place,
        live: _Live,
        actor: Actor,
        interaction_id: str,
        change: _Change,
        prepare: Callable[[Reply], object] | None = None,
        *,
        command: BaseModel | None = None,
    ) -> Reply:
        row = live.row
        state = change.state if change.state is not None else live.state
        snapshot = state_json(state) if change.state is not None else row.state_json
        entry: dict[str, Any] = {
            "v": FORMAT_VERSION,
            "game": row.public_id,
            "seq": row.head_seq + 1,
            "prev": row.head_hash,
            "kind": change.kind,
            "at": self._clock(),
            "by": _by(row, actor),
            "interaction": interaction_id,
            "epoch": row.epoch,
            "dice": [d.to_json() for d in change.dice],
            "state": state_hash(snapshot),
            **change.data,
        }
        body, digest = seal(entry)
        new_row = dataclasses.replace(
            row,
            head_seq=row.head_seq + 1,
            head_hash=digest,
            state_json=snapshot,
            next_die=change.dice[-1].seq + 1 if change.dice else row.next_die,
            table=change.table if change.table is not None else row.table,
            players_mix=change.players_mix if change.players_mix is not None else row.players_mix,
            status=change.status or row.status,
        )
        new_epoch = None
        if change.new_seed is not None:
            new_row.epoch = row.epoch + 1
            new_row.seed = change.new_seed
            new_row.commitment = commitment(change.new_seed)
            new_epoch = (new_row.epoch, new_row.commitment)
        stored = StoredEntry(
            game_id=row.id,
            seq=new_row.head_seq,
            interaction_id=interaction_id,
            kind=change.kind,
            body=body,
            hash=digest,
        )
        key = (place.guild_id, place.channel_id)
        # the reply is built (and handed to ``prepare``) while the disk syncs; it is returned,
        # and so answered, only after the commit
        reply = self._reply(entry, new_row, replayed=False, shown=change.shown)
        if prepare is not None:
            try:
                prepare(reply)
            except Exception:  # the caller renders again after the commit and sees the error
                log.debug("prepare failed for interaction %s", interaction_id, exc_info=True)
        try:
            await self.repo.append(
                Append(
                    entry=stored,
                    game=new_row,
                    dice=change.dice,
                    user_id=actor.user_id,
                    reveal=change.reveal,
                    new_epoch=new_epoch,
                ),
                expected_head=row.head_seq,
            )
        except Duplicate:
            self._live.pop(key, None)
            seen = await self.repo.entry_by_interaction(interaction_id)
            if seen is None:
                raise
            return await self._replay(seen, place, command)
        except BaseException:
            self._live.pop(key, None)
            raise
        if new_row.status == "active":
            self._remember(key, _Live(row=new_row, state=state, system=live.system))
        else:
            self._live.pop(key, None)
        return reply

    # --- /game new ---------------------------------------------------------------------------

    async def _new(
        self, place: Place, actor: Actor, interaction_id: str, command: gc.GameNew
    ) -> Reply:
        system = self.system(command.system)
        sides = tuple(s.strip() for s in command.sides if s.strip()) or tuple(
            getattr(system, "default_sides", SYSTEM_SIDES.get(system.name, DEFAULT_SIDES))
        )
        options = parse_options(command.options)
        if len({s.casefold() for s in sides}) != len(sides) or len(sides) < 2:
            raise InvalidInput('Name at least two different sides, like sides:"Axis,Allied".')
        for side in sides:
            if len(side) > MAX_SIDE_NAME:
                raise InvalidInput(
                    f"A side's name may be at most {MAX_SIDE_NAME} characters; "
                    f"{side[:20]}… has {len(side)}."
                )
        chain = self._beacon_chain_for(command.dice or self.dice_default)
        async with self._locked(place):
            seen = await self.repo.entry_by_interaction(interaction_id)
            if seen is not None:
                return await self._replay(seen, place, command)
            if await self.repo.active_game(place.guild_id, place.channel_id) is not None:
                raise GameAlreadyActive(
                    "This channel already has an active game; a referee may /game end it first."
                )
            try:
                state = system.new_state(sides, options)
            except (TypeError, ValueError, AttributeError, KeyError) as exc:
                log.info("options refused by %s: %r", system.name, exc)
                raise InvalidInput(
                    f"Those options do not fit a {system.title} game; see its guide for the "
                    "options it takes."
                ) from exc
            snapshot = state_json(state)
            seed = self._seeds()
            public_id = self._game_ids()
            creator = {"id": actor.user_id, "name": actor.name}
            table: dict[str, Any] = {
                "sides": list(sides),
                "seats": {side: None for side in sides},
                "referees": [creator],
                "voided": [],
            }
            if self.script is not None:
                table["scripted"] = True
            if chain is not None:
                table["beacon"] = chain.to_json()
            title = command.title or f"{system.title} game"
            entry: dict[str, Any] = {
                "v": FORMAT_VERSION,
                "game": public_id,
                "seq": 1,
                "prev": GENESIS_PREV,
                "kind": "game.new",
                "at": self._clock(),
                "by": creator,
                "interaction": interaction_id,
                "epoch": 1,
                "dice": [],
                "state": state_hash(snapshot),
                "system": system.name,
                "title": title,
                "sides": list(sides),
                "options": options,
                "commitment": commitment(seed),
                "place": place.model_dump(),
            }
            if self.script is not None:
                entry["scripted"] = True
            if chain is not None:
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
                state_json=snapshot,
                head_seq=1,
                head_hash=digest,
                next_die=1,
                epoch=1,
                seed=seed,
                commitment=commitment(seed),
                players_mix=NO_PLAYERS,
            )
            genesis = StoredEntry(
                game_id=0,
                seq=1,
                interaction_id=interaction_id,
                kind="game.new",
                body=body,
                hash=digest,
            )
            try:
                row.id = await self.repo.create_game(row, genesis)
            except Duplicate:
                seen = await self.repo.entry_by_interaction(interaction_id)
                if seen is None:
                    raise GameAlreadyActive(
                        "This channel already has an active game; a referee may end it first."
                    ) from None
                return await self._replay(seen, place, command)
            self._remember(
                (place.guild_id, place.channel_id), _Live(row=row, state=state, system=system)
            )
            return self._reply(entry, row, replayed=False)

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
            _refuse_while_pending(live.row)
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
        live: _Live,
        actor: Actor,
        command: gc.GameVoid,
        agreed: dict[str, Any] | None = None,
    ) -> _Change:
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
        table = _copy_table(row.table)
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
        return _Change(kind="game.void", data=data, table=table, state=new_state)

    async def _confirm(self, live: _Live, actor: Actor, command: gc.GameConfirm) -> _Change:
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
                raise NotYourSide(
                    f"Only the {' or '.join(proposal['needs'])} player or a referee without a "
                    "seat may confirm this void."
                )
            return await self._void(live, actor, gc.GameVoid.model_validate(data), agreed)
        action = live.system.parse_action(data)
        concerned = sorted(live.system.concerned_sides(live.state, action))
        if not (self.is_referee(row, actor) or set(concerned) <= held | proposer_held):
            raise NotYourSide(
                f"This proposal concerns {', '.join(concerned)}; only their players together, "
                "or a referee, may agree to it."
            )
        return self._run_action(live, action, concerned, agreed)

    # --- previews and read-only --------------------------------------------------------------

    async def _preview(self, place: Place, action: BaseModel) -> Reply:
        live = await self._load(place)
        system = live.system
        path = self._check_system(live, action)
        action = sides_as_spelled(live.row.table["sides"], action)
        state = live.state

        def compute() -> tuple[tuple[tuple[str, str], ...], tuple[OddsLine, ...]]:
            fields = system.preview_fields(state, action)
            if fields is not None:
                return fields, ()
            return (), _odds_lines(system.odds(state, action))

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
            scripted=self.script is not None,
            ephemeral=True,
            preview=True,
        )

    def _roll_odds(self, command: gc.RollDice) -> Reply:
        category = category_named(command.category) if command.category.strip() else ""
        expression = parse_expression(command.dice or default_dice(category))
        rolls = expression.repeat * command.count
        expression = expression.single()
        odds = roll_total_odds(expression)
        lines = sorted(_odds_lines(odds), key=lambda line: int(line.facts[0][1]))
        each = f", each of {rolls} rolls" if rolls > 1 else ""
        return Reply(
            command="/roll",
            title=f"Odds of {category + ' ' if category else ''}{expression.text()}"
            f" (nothing rolled{each})",
            odds=tuple(lines),
            scripted=self.script is not None,
            ephemeral=True,
            preview=True,
        )

    async def _read_only_action(self, place: Place, action: BaseModel) -> Reply:
        live = await self._load(place)
        path = self._check_system(live, action)
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
            scripted=self.script is not None,
            ephemeral=True,
        )

    async def _status(self, place: Place) -> Reply:
        row = await self._readable(place)
        seats = ", ".join(
            f"{side}: {p['name'] if p else '(empty)'}" for side, p in row.table["seats"].items()
        )
        fields: tuple[tuple[str, str], ...] = (
            ("System", row.system),
            ("Status", row.status),
            ("Seats", seats),
            ("Referees", ", ".join(r["name"] for r in row.table["referees"])),
            ("Log head", f"#{row.head_seq} {row.head_hash}"),
            ("Next die", f"#{row.next_die}"),
            ("Dice commitment", f"epoch {row.epoch}: {row.commitment}"),
            ("Players' seeds", row.players_mix.hex()),
            ("Voided entries", ", ".join(map(str, row.table["voided"])) or "none"),
            ("Turn notices", "on" if row.table.get("notices", True) else "off"),
            (
                "Voids by",
                ", ".join(f"{v['name']} {v['count']}" for v in row.table.get("voids", {}).values())
                or "none",
            ),
        )
        proposals = row.table.get("proposals", ())
        if proposals:
            fields = (
                *fields,
                (
                    "Waiting for confirmation",
                    "\n".join(
                        f"#{p['entry']} {p['by']['name']}: {_proposal_text(p['command'])}"
                        for p in proposals
                    ),
                ),
            )
        if row.table.get("beacon"):
            fields = (*fields, *_beacon_status(row.table))
        system = self.system(row.system)
        live = self._live.get((place.guild_id, place.channel_id))
        state = live.state if live is not None else system.parse_state(row.state_json)
        summary = system.summary(state)
        if summary:
            fields = (*fields, ("Table", "\n".join(summary)))
        return self._listing(row, "/game status", f"{row.title} ({row.status})", fields)

    async def _log(self, place: Place, last: int, before: int | None = None) -> Reply:
        """The ``last`` entries before entry ``before`` (default: up to the head), newest kept:
        a page holds at most ``LOG_PAGE`` entries and ``LOG_PAGE_CHARS`` characters (what one
        Discord embed shows), and the entries asked for but not shown are named with the command
        that shows them, never dropped silently."""
        row = await self._readable(place)
        voided = set(row.table["voided"])
        upto = row.head_seq if before is None else min(before - 1, row.head_seq)
        asked = await self.repo.entries(row.id, after=max(0, upto - last), upto=upto)
        page: list[tuple[int, str]] = []
        size = 0
        for entry in reversed(asked):
            text = _summary(entry.data()) + (" (void)" if entry.seq in voided else "")
            if len(text) > LOG_ENTRY_CHARS:
                text = text[: LOG_ENTRY_CHARS - 1] + "…"
            if len(page) == LOG_PAGE or size + len(text) + 8 > LOG_PAGE_CHARS:
                break
            page.append((entry.seq, text))
            size += len(text) + 8
        page.reverse()
        fields = tuple((f"#{seq}", text) for seq, text in page)
        first, newest = page[0][0], page[-1][0]
        span = f"entry #{first}" if first == newest else f"entries #{first}–#{newest}"
        title = f"{row.title}: log {span} of {row.head_seq}"
        left = len(asked) - len(page)
        follow_ups: tuple[FollowUp, ...] = ()
        if first > 1:
            more = left or min(LOG_PAGE, first - 1)
            line = f"/game log last:{more} before:{first}"
            note = (
                f"{left} of the {len(asked)} entries asked for are older than this page: {line}"
                if left
                else f"{'#1' if first == 2 else f'#1–#{first - 1}'}; the next page: {line}"
            )
            fields = (*fields, ("Older entries", note))
            follow_ups = (
                FollowUp(
                    label="Older entries",
                    command="game.log",
                    options=(("last", more), ("before", first)),
                ),
            )
        reply = self._listing(row, "/game log", title, fields)
        return reply.model_copy(update={"follow_ups": follow_ups})

    def _listing(
        self, row: GameRow, command: str, title: str, fields: tuple[tuple[str, str], ...]
    ) -> Reply:
        """A read of the game's table, shown only to the asker."""
        return Reply(
            command=command,
            title=title,
            game_title=row.title,
            system=row.system,
            game_id=row.public_id,
            seq=row.head_seq,
            fields=fields,
            commitment=row.commitment,
            epoch=row.epoch,
            scripted=self.script is not None,
            ephemeral=True,
        )

    async def _export(self, place: Place, page: bool = False) -> Reply:
        row = await self._readable(place)
        text = await export_game(self.repo, row)
        attachments = (ReplyFile(filename=PAGE_NAME, content=verifier_page()),) if page else ()
        return Reply(
            attachments=attachments,
            command="/game export",
            title=f"{row.title}: {row.head_seq} log entries exported",
            game_title=row.title,
            system=row.system,
            game_id=row.public_id,
            seq=row.head_seq,
            commitment=row.commitment,
            epoch=row.epoch,
            scripted=self.script is not None,
            file=ReplyFile(filename=f"game-{row.public_id}.jsonl", content=text.encode("utf-8")),
        )

    async def _stats(self, place: Place, actor: Actor, command: gc.Stats) -> Reply:
        game_id = None
        channel_id: int | None = place.channel_id
        if command.scope == "game":
            game_id = (await self._readable(place)).id
        elif command.scope == "server":
            channel_id = None
        user_id = command.player.id if command.player else None
        category = category_named(command.category) if command.category.strip() else None
        counts = await self.repo.face_counts(
            guild_id=place.guild_id,
            channel_id=channel_id,
            game_id=game_id,
            user_id=user_id,
            category=category,
        )
        stats = tuple(face_stats(sides, counts[sides]) for sides in sorted(counts))
        who = command.player.name if command.player else "everyone"
        fields: tuple[tuple[str, str], ...] = ()
        if category is None:
            sums = await self.repo.label_sums(
                guild_id=place.guild_id, channel_id=channel_id, game_id=game_id, user_id=user_id
            )
            lines = category_lines(sums)
            if lines:
                fields = (("By category", "\n".join(lines)),)
        kind = f"{category} dice" if category else "Dice"
        return Reply(
            command="/stats",
            title=f"{kind} of {who} in this {command.scope}",
            fields=fields,
            stats=stats,
            scripted=self.script is not None,
            ephemeral=True,
        )

    # --- replies -----------------------------------------------------------------------------

    async def _replay(self, stored: StoredEntry, place: Place, command: BaseModel | None) -> Reply:
        """The answer to an interaction seen before, from the log — only in the same channel's
        game and for the same command; any other reuse of its id is refused, nothing done."""
        row = await self.repo.game(stored.game_id)
        entry = stored.data()
        same_place = row is not None and (row.guild_id, row.channel_id) == (
            place.guild_id,
            place.channel_id,
        )
        if row is None or not same_place or not _same_command(entry, command):
            raise BadCommand(
                "That interaction was answered before, for another command or channel; "
                "nothing was done."
            )
        return self._reply(entry, row, replayed=True)

    async def _reply_from_stored(self, stored: StoredEntry, *, replayed: bool) -> Reply:
        row = await self.repo.game(stored.game_id)
        assert row is not None
        data = stored.data()
        data["hash"] = stored.hash
        return self._reply(data, row, replayed=replayed)

    def _reply(
        self,
        entry: Mapping[str, Any],
        row: GameRow,
        *,
        replayed: bool,
        shown: _Shown | None = None,
    ) -> Reply:
        """The reply of a logged entry; ``shown`` are the steps, facts and rolls as the rules
        made them (a fresh commit), so they are not rebuilt from the entry's JSON."""
        kind = entry["kind"]
        if kind in ("declared", "resolved"):
            return self._beacon_reply(entry, row, replayed=replayed, shown=shown)
        dice = tuple(DieView(**d) for d in entry.get("dice", ()))
        scripted = self.script is not None or any(d.scripted for d in dice)
        base: dict[str, Any] = {
            "game_title": row.title,
            "system": row.system,
            "game_id": row.public_id,
            "actor": entry["by"]["name"],
            "seq": entry["seq"],
            "dice": dice,
            "epoch": entry["epoch"],
            "commitment": row.commitment,
            "scripted": scripted,
            "replayed": replayed,
        }
        if kind == "action":
            outcome = entry["outcome"]
            path = command_path(entry["action"]["action"])
            side = entry.get("side")
            referee_only = entry.get("referee_only") or ()
            return Reply(
                command=path,
                title=f"{path}" + (f" — {side}" if side else ""),
                side=side,
                fields=(
                    (("Referee", f"{', '.join(referee_only)} — declared by a referee"),)
                    if referee_only
                    else ()
                ),
                steps=shown[0]
                if shown is not None
                else tuple(Step.model_validate(s) for s in outcome["steps"]),
                facts=shown[1]
                if shown is not None
                else tuple((str(a), str(b)) for a, b in outcome["facts"]),
                rolls=shown[2] if shown is not None else tuple(_roll(r) for r in outcome["rolls"]),
                **base,
            )
        if kind == "roll":
            reason = f" for {entry['reason']}" if entry["reason"] else ""
            category = f"{entry['category']} " if entry.get("category") else ""
            totals = entry.get("totals")
            return Reply(
                command="/roll",
                title=f"{category}{entry['text']}{reason}",
                rolls=shown[2] if shown is not None else tuple(_roll(r) for r in entry["rolls"]),
                steps=(
                    shown[0]
                    if shown is not None
                    else tuple(Step.model_validate(n) for n in entry.get("notes", []))
                ),
                fields=(
                    ("Totals", ", ".join(map(str, totals)))
                    if totals
                    else ("Total", str(entry["total"])),
                ),
                **base,
            )
        titles: dict[str, Callable[[Mapping[str, Any]], str]] = {
            "game.new": lambda e: f"New {e['system']} game: {', '.join(e['sides'])}",
            "game.seat": lambda e: f"{e['player']['name']} takes the {e['side']} seat",
            "game.referee.add": lambda e: f"{e['user']['name']} is a referee",
            "game.referee.remove": lambda e: f"{e['user']['name']} is no longer a referee",
            "game.seed": lambda e: f"{e['by']['name']} added a seed phrase",
            "game.rotate": lambda e: (
                f"Dice seed of epoch {e['revealed_epoch']} revealed; "
                f"epoch {e['next_epoch']} committed"
            ),
            "game.void": lambda e: f"Entry {e['entry']} is void: {e['reason']}",
            "game.notices": lambda e: f"Turn notices {'on' if e['on'] else 'off'}",
            "game.result": lambda e: (
                f"Result of {e['scenario']}: "
                + ("a draw" if e["winner"] == "draw" else f"{e['winner']} wins")
                + f" ({e['attacker']} attacked)"
            ),
            "game.propose": lambda e: (
                f"{e['by']['name']} proposes {_proposal_text(e['command'])}; the "
                f"{' or '.join(e['needs'])} player confirms with /game confirm entry:{e['seq']}"
            ),
            "game.end": lambda e: "The game is over; the dice seed is revealed",
            "game.cancel": lambda e: (
                f"Entry {e['entry']} is cancelled before beacon round {e['round']}: {e['reason']}"
            ),
        }
        fields: tuple[tuple[str, str], ...] = ()
        revealed = entry.get("revealed_seed")
        shown_commitment = row.commitment
        if kind == "game.new":
            shown_commitment = entry["commitment"]
            fields = (("Dice commitment", entry["commitment"]), ("Game id", entry["game"]))
        elif kind == "game.rotate":
            shown_commitment = entry["next_commitment"]
            fields = (
                (f"Seed of epoch {entry['revealed_epoch']}", entry["revealed_seed"]),
                (f"Commitment of epoch {entry['next_epoch']}", entry["next_commitment"]),
            )
        elif kind == "game.end":
            fields = ((f"Seed of epoch {entry['revealed_epoch']}", entry["revealed_seed"]),)
        elif kind == "game.seed":
            fields = (("Phrase", entry["phrase"]), ("Players' seeds", entry["players"]))
        base["commitment"] = shown_commitment
        return Reply(
            command=command_path(kind),
            title=titles[kind](entry),
            fields=fields,
            revealed_seed=revealed,
            **base,
        )

    # --- beacon games (bot/beacon/games.py) ---------------------------------------------

    def _beacon_chain_for(self, mode: str) -> ChainInfo | None:
        """The chain of a new game with ``mode`` dice (None: server dice)."""
        if mode != "beacon":
            return None
        if self.beacon is None:
            raise BeaconNotConfigured(
                "This bot has no beacon relays configured; start the game with dice:server."
            )
        if self.script is not None:
            raise BadCommand("Scripted dice cannot stand in for beacon dice; use dice:server.")
        return self.beacon.chain

    def _declare(self, live: _Live, data: dict[str, Any]) -> _Change:
        """The ``declared`` entry of a valid action or roll of a beacon game: it names round R,
        the first published at least the margin after now; nothing is rolled yet."""
        if self.beacon is None:
            raise BeaconNotConfigured(
                "This bot has no beacon relays configured now, so this beacon game cannot roll."
            )
        chain = ChainInfo.from_json(live.row.table["beacon"])
        r = self.beacon.target_round(chain)
        table = _copy_table(live.row.table)
        table["pending"] = {"seq": live.row.head_seq + 1, "round": r}
        due = datetime.fromtimestamp(round_time(chain, r), UTC).isoformat()
        return _Change(kind="declared", data={**data, "round": r, "round_at": due}, table=table)

    def _cancel(self, live: _Live, actor: Actor, command: gc.GameCancel) -> _Change:
        row = live.row
        self._require_referee(row, actor, "cancel a declaration")
        pending = row.table.get("pending")
        if not pending:
            raise InvalidInput("No declaration of this game is waiting for a beacon round.")
        table = _copy_table(row.table)
        del table["pending"]
        return _Change(
            kind="game.cancel",
            data={"entry": pending["seq"], "round": pending["round"], "reason": command.reason},
            table=table,
        )

    def _after_beacon_change(self, place: Place, game_id: int, change: _Change) -> None:
        """Start resolving a new declaration; stop resolving a cancelled one."""
        if self.resolver is None or change.table is None:
            return
        if change.kind == "declared":
            pending = change.table["pending"]
            chain = ChainInfo.from_json(change.table["beacon"])
            self.resolver.schedule(place, game_id, pending["seq"], pending["round"], chain)
        elif change.kind == "game.cancel":
            self.resolver.cancel(place, int(change.data["entry"]))

    async def resolution(
        self, place: Place, declared: Reply, *, wait: float | None = None
    ) -> Reply:
        """The reply of a declaration's resolution, once its round is fetched and verified.

        :raises DeclarationPending: no relay gave the round in time (it resolves later);
        :raises DeclarationCancelled: a referee cancelled it.
        """
        assert declared.seq is not None
        if self.resolver is None:
            raise DeclarationPending(
                f"This bot has no beacon relays configured, so entry {declared.seq} stays pending."
            )
        return await self.resolver.result(place, declared.seq, wait=wait)

    async def resume_beacon(self) -> int:
        """Resume resolving every pending declaration (after a restart); how many there are."""
        if self.resolver is None:
            return 0
        rows = await self.repo.pending_declarations()
        for row in rows:
            pending = row.table["pending"]
            place = Place(guild_id=row.guild_id, channel_id=row.channel_id, parent_id=row.parent_id)
            chain = ChainInfo.from_json(row.table["beacon"])
            self.resolver.schedule(
                place, row.id, pending["seq"], pending["round"], chain, late=True
            )
        return len(rows)

    async def close_beacon(self) -> None:
        """Stop resolving (pending declarations stay pending in the log and resume later)."""
        if self.resolver is not None:
            await self.resolver.close()

    async def _resolve_declaration(
        self, place: Place, game_id: int, seq: int, beacon: Beacon
    ) -> Reply | None:
        """Append the ``resolved`` entry of declaration ``seq`` with the dice of ``beacon``
        (holding the game in the database: another process cannot write it in between)."""
        async with self._locked(place, hold=True):
            try:
                live = await self._load(place, locked=True)
            except NoGameHere:
                return None
            row = live.row
            pending = row.table.get("pending")
            if row.id != game_id or not pending or pending["seq"] != seq:
                return None
            if beacon.round != pending["round"]:
                raise ValueError(f"round {beacon.round} is not the declared {pending['round']}")
            stored = await self.repo.entries(row.id, after=seq - 1, upto=seq)
            declared = stored[0].data()
            dice = GameDice(
                row.seed,
                game=row.public_id,
                players=row.players_mix,
                next_seq=row.next_die,
                epoch=row.epoch,
                beacon=beacon.randomness,
            )
            state: BaseModel | None = None
            if declared["declares"] == "action":
                action = live.system.parse_action(declared["action"])
                outcome = live.system.run(live.state, action, dice)
                data: dict[str, Any] = {
                    "resolves": "action",
                    "action": declared["action"],
                    "side": declared["side"],
                    "sides": declared["sides"],
                    "outcome": outcome_json(outcome),
                }
                if "agreed" in declared:
                    data["agreed"] = declared["agreed"]
                state = outcome.state
                shown: _Shown = (outcome.steps, outcome.facts, outcome.rolls)
            else:
                expression = parse_expression(declared["expression"])
                result = roll_expression(
                    expression,
                    dice,
                    reason=declared["reason"],
                    category=declared.get("category", ""),
                )
                data = {
                    "resolves": "roll",
                    "expression": declared["expression"],
                    "reason": declared["reason"],
                    "total": result.total,
                    "text": result.render(),
                    "rolls": [r.model_dump(mode="json") for r in result.rolls],
                    "sides": declared["sides"],
                }
                category = str(declared.get("category", ""))
                notes: tuple[Step, ...] = ()
                if row.system == "asl" and category:
                    notes = tuple(n for r in result.rolls for n in roll_notes(category, r))
                if category:
                    data["category"] = category
                if expression.repeat > 1:
                    data["totals"] = list(result.totals)
                if notes:
                    data["notes"] = [n.model_dump(mode="json") for n in notes]
                shown = (notes, (), tuple(result.rolls))
            table = _copy_table(row.table)
            del table["pending"]
            change = _Change(
                kind="resolved",
                data={**data, "declared": seq, "beacon": beacon.to_json()},
                dice=dice.records,
                state=state,
                table=table,
                shown=shown,
            )
            by = declared["by"]
            actor = Actor(user_id=int(by["id"]), name=str(by["name"]))
            interaction = f"{declared['interaction']}:resolved"
            return await self._commit(place, live, actor, interaction, change)

    def _beacon_reply(
        self,
        entry: Mapping[str, Any],
        row: GameRow,
        *,
        replayed: bool,
        shown: _Shown | None,
    ) -> Reply:
        """The reply of a ``declared`` or ``resolved`` entry."""
        if entry["kind"] == "resolved":
            inner = self._reply(
                {**entry, "kind": entry["resolves"]}, row, replayed=replayed, shown=shown
            )
            beacon = entry["beacon"]
            return inner.model_copy(
                update={
                    "title": f"{inner.title} (beacon round {beacon['round']})",
                    "fields": (
                        *inner.fields,
                        ("Declared", f"entry #{entry['declared']}"),
                        ("Beacon round", f"{beacon['round']}: randomness {beacon['randomness']}"),
                    ),
                }
            )
        what = _declared_what(entry)
        digest = str(entry.get("hash") or row.head_hash)
        return Reply(
            command=what.split(" ")[0] if entry["declares"] == "roll" else what,
            title=f"{what} declared: waiting for beacon round {entry['round']}",
            game_title=row.title,
            system=row.system,
            game_id=row.public_id,
            side=entry.get("side"),
            actor=entry["by"]["name"],
            seq=entry["seq"],
            fields=(
                ("Beacon round", f"{entry['round']}, published at {entry['round_at']}"),
                ("Declaration", f"entry #{entry['seq']}, hash {digest}"),
            ),
            epoch=entry["epoch"],
            commitment=row.commitment,
            replayed=replayed,
            awaiting_round=entry["round"],
        )


_Shown = tuple[tuple[Step, ...], tuple[tuple[str, str], ...], tuple[Roll, ...]]


def _refuse_while_pending(row: GameRow) -> None:
    """Nothing else is written in a game whose declaration waits for its beacon round."""
    pending = row.table.get("pending")
    if pending:
        raise DeclarationWaiting(
            f"Entry {pending['seq']} is still waiting for beacon round {pending['round']}, so "
            "nothing else can happen in this game until it resolves (a referee may /game cancel "
            "it)."
        )


def _beacon_status(table: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """The beacon lines of /game status: the chain, and the declaration waiting, if any."""
    chain = table["beacon"]
    pending = table.get("pending")
    return (
        ("Beacon", f"{chain['name']} (chain {chain['chain_hash'][:16]}…), a round every "
                   f"{chain['period']} s"),
        ("Waiting for its beacon round",
         f"entry #{pending['seq']}, round {pending['round']}" if pending else "nothing"),
    )  # fmt: skip


def _declared_what(entry: Mapping[str, Any]) -> str:
    """What a declaration declares: ``/asl fire`` or ``/roll DR``."""
    if entry["declares"] == "action":
        return command_path(entry["action"]["action"])
    return f"/roll {entry['expression']}"


@dataclasses.dataclass
class _Change:
    kind: str
    data: dict[str, Any]
    dice: list[DieRecord] = dataclasses.field(default_factory=list)
    state: BaseModel | None = None
    table: dict[str, Any] | None = None
    players_mix: bytes | None = None
    reveal: tuple[int, bytes] | None = None
    new_seed: bytes | None = None
    status: str | None = None
    shown: _Shown | None = None
    """The steps, facts and rolls as the rules made them, for the reply (not logged as such)."""


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
    spelled = {side.casefold(): side for side in sides}

    def respell(value: Any) -> Any:
        if isinstance(value, str):
            return spelled.get(value.strip().casefold(), value)
        if isinstance(value, tuple):
            return tuple(respell(item) for item in value)
        return value

    changes = {name: respell(getattr(action, name)) for name in names}
    changes = {name: value for name, value in changes.items() if value != getattr(action, name)}
    return action.model_copy(update=changes) if changes else action


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
    names = []
    for name, info in type(action).model_fields.items():
        extra = info.json_schema_extra
        if isinstance(extra, dict) and extra.get("referee_only") and getattr(action, name):
            names.append(name)
    return tuple(names)


def _copy_table(table: dict[str, Any]) -> dict[str, Any]:
    copy: dict[str, Any] = {
        **table,  # a beacon game's chain and pending declaration are replaced, never mutated
        "sides": list(table["sides"]),
        "seats": dict(table["seats"]),
        "referees": list(table["referees"]),
        "voided": list(table["voided"]),
        "proposals": list(table.get("proposals", ())),
        "voids": dict(table.get("voids", {})),
    }
    if table.get("scripted"):
        copy["scripted"] = True
    return copy


def _same_command(entry: Mapping[str, Any], command: BaseModel | None) -> bool:
    """Whether a logged entry is what ``command`` logs (a redelivered interaction)."""
    if command is None:
        return True
    made = {str(entry["kind"])}
    for key in ("action", "command"):  # an action, a beacon declaration, a proposal
        if isinstance(entry.get(key), dict):
            made.add(str(entry[key].get("action")))
    if "agreed" in entry:
        made.add("game.confirm")
    return str(getattr(command, "action", "")) in made


def _by(row: GameRow, actor: Actor) -> dict[str, Any]:
    """``by`` of an entry: who declared it; ``server_referee`` when they referee it by their
    standing on the server (administrator, Manage Server, the referee role), which the log
    cannot show otherwise."""
    by: dict[str, Any] = {"id": actor.user_id, "name": actor.name}
    if actor.is_admin and not any(r["id"] == actor.user_id for r in row.table["referees"]):
        by["server_referee"] = True
    return by


def _proposal_text(command: Mapping[str, Any]) -> str:
    """``/asl level side:Axis level:2`` — a proposed command as typed.

    >>> _proposal_text({"action": "game.void", "entry": 7, "reason": "misclick"})
    '/game void entry:7 reason:misclick'
    """
    options = " ".join(
        f"{k.replace('_', '-')}:{_option_text(v)}"
        for k, v in command.items()
        if k != "action" and v not in (None, "", [], ())
    )
    return f"{command_path(str(command['action']))} {options}".strip()


def _option_text(value: Any) -> str:
    if isinstance(value, list | tuple):
        value = ", ".join(map(str, value))
    text = str(value).lower() if isinstance(value, bool) else str(value)
    return f'"{text}"' if " " in text or not text else text


def _entry_sides(entry: Mapping[str, Any], sides: list[str]) -> list[str]:
    """The sides a logged action or roll concerns (older entries: the declared side, or all)."""
    if "sides" in entry:
        return list(entry["sides"])
    if entry.get("side"):
        return [entry["side"]]
    return list(sides)


def _roll(data: Mapping[str, Any]) -> Roll:
    return Roll.model_validate(data)


def _odds_lines(odds: Mapping[Any, Fraction]) -> tuple[OddsLine, ...]:
    lines = [
        OddsLine(
            facts=tuple((str(a), str(b)) for a, b in facts),
            numerator=p.numerator,
            denominator=p.denominator,
        )
        for facts, p in odds.items()
    ]
    lines.sort(key=lambda line: -line.probability)
    return tuple(lines)


LOG_PAGE = 20
"""At most this many entries on one page of ``/game log`` (an embed holds 25 fields)."""
LOG_PAGE_CHARS = 4000
"""At most this many characters of entries on one page (an embed holds 6000 in all)."""
LOG_ENTRY_CHARS = 300
"""An entry's line in ``/game log`` is cut to this length (the export has it whole)."""


RATINGS_HEADER = (
    "TOURNAMENT ID", "ROUND NO.", "LEAVE BLANK", "SCENARIO ID",
    "PLAYER 1 NAME", "PLAYER 1 ATTACKER OR DEFENDER", "PLAYER 1 ALLIES OR AXIS", "PLAYER 1 RESULT",
    "PLAYER 2 NAME", "PLAYER 2 ATTACKER OR DEFENDER", "PLAYER 2 ALLIES OR AXIS", "PLAYER 2 RESULT",
    "DATE",
)  # fmt: skip
"""The header row of the ASL Player Ratings results upload, exactly as its sample file has it."""


def ratings_row(game: GameRow, result: Mapping[str, Any], date: str) -> list[str]:
    """One game's row of the ASL Player Ratings upload: the two seated players, who attacked,
    Axis or Allies where the sides are called so, win/lost/draw, and the ISO date."""
    cells = [str(result["tournament"]), str(result["round"]), "", str(result["scenario"])]
    for side in game.table["sides"][:2]:
        player = game.table["seats"].get(side)
        role = "attacker" if side == result["attacker"] else "defender"
        camp = {"axis": "axis", "allied": "allies", "allies": "allies"}.get(side.lower(), "")
        outcome = (
            "draw"
            if result["winner"] == "draw"
            else ("win" if side == result["winner"] else "lost")
        )
        cells += [player["name"] if player else "", role, camp, outcome]
    return [*cells, date]


def league_zip(rows: list[list[str]], exports: list[tuple[str, str]]) -> bytes:
    """``results.csv`` (header and rows) and every game's export, in one zip with fixed times."""
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(RATINGS_HEADER)
    writer.writerows(rows)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, content in [("results.csv", text.getvalue()), *exports]:
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, content.encode("utf-8"))
    return buffer.getvalue()


def _file_safe(text: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in text) or "league"


def category_lines(sums: list[tuple[str, int, int, int]]) -> list[str]:
    """One line per roll category from ``(label, sides, dice, sum)`` rows: how many DR and dr
    and their mean (a DR's two dice are labelled ``… DR (colored)`` and ``… DR (white)``).

    >>> category_lines([("IFT DR (colored)", 6, 2, 7), ("IFT DR (white)", 6, 2, 5),
    ...                 ("RS dr", 6, 3, 9), ("DR (colored)", 6, 1, 3), ("DR (white)", 6, 1, 4)])
    ['(none): 1 DR, mean 7.00', 'IFT: 2 DR, mean 6.00', 'RS: 3 dr, mean 3.00']
    """
    found: dict[tuple[str, str], list[int]] = {}
    for label, sides, count, total in sums:
        if sides != 6:
            continue
        for suffix, kind, counted in (
            ("DR (colored)", "DR", True),
            ("DR (white)", "DR", False),
            ("dr", "dr", True),
        ):
            if label == suffix or label.endswith(" " + suffix):
                name = label[: -len(suffix)].strip() or "(none)"
                tally = found.setdefault((name, kind), [0, 0])
                tally[0] += count if counted else 0
                tally[1] += total
                break
    return [
        f"{name}: {rolls} {kind}, mean {faces / rolls:.2f}"
        for (name, kind), (rolls, faces) in sorted(found.items())
        if rolls
    ]


def _summary(entry: Mapping[str, Any]) -> str:
    kind = entry["kind"]
    who = entry["by"]["name"]
    if kind == "action":
        facts = "; ".join(f"{a} {b}" for a, b in entry["outcome"]["facts"])
        dice = " ".join(f"#{d['seq']}={d['face']}" for d in entry["dice"])
        text = f"{who}: {command_path(entry['action']['action'])}"
        return text + (f" → {facts}" if facts else "") + (f" [{dice}]" if dice else "")
    if kind == "roll":
        dice = " ".join(f"#{d['seq']}={d['face']}" for d in entry["dice"])
        category = f"{entry['category']} " if entry.get("category") else ""
        return f"{who}: /roll {category}{entry['text']} [{dice}]"
    if kind == "game.void":
        return f"{who}: void entry {entry['entry']} ({entry['reason']})"
    if kind == "game.propose":
        return f"{who}: proposes {_proposal_text(entry['command'])}"
    if kind == "declared":
        return f"{who}: {_declared_what(entry)} declared for beacon round {entry['round']}"
    if kind == "resolved":
        inner = _summary({**entry, "kind": entry["resolves"]})
        return f"{inner} (entry {entry['declared']}, beacon round {entry['beacon']['round']})"
    if kind == "game.cancel":
        return f"{who}: cancel entry {entry['entry']} ({entry['reason']})"
    return f"{who}: {command_path(kind)}"


async def export_game(repo: Repository, row: GameRow) -> str:
    """The game's log in the export format of docs/EXPORT.md (JSON Lines, header first)."""
    header = {
        "format": "referee-game-log",
        "version": FORMAT_VERSION,
        "game": row.public_id,
        "system": row.system,
        "title": row.title,
        "status": row.status,
        "guild": row.guild_id,
        "channel": row.channel_id,
        "head": {"seq": row.head_seq, "hash": row.head_hash},
        "dice": "docs/DICE.md version 2" if row.table.get("beacon") else "docs/DICE.md version 1",
    }
    lines = [canonical(header)]
    for stored in await repo.entries(row.id, upto=row.head_seq):
        data = stored.data()
        data["hash"] = stored.hash
        lines.append(canonical(data))
    return "\n".join(lines) + "\n"


__all__ = [
    "DEFAULT_SIDES",
    "SYSTEM_SIDES",
    "GameService",
    "InstalledSystems",
    "command_path",
    "export_game",
    "parse_options",
    "referee_only_options",
    "roll_total_odds",
]
