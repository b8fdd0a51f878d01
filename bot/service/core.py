"""What every handler is given (:class:`Core`): the repository, the installed systems, the sources
of time, seeds and ids; the channel's game loaded under its lock, its dice, and the commit."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping
from typing import Any

from pydantic import BaseModel

from bot.dice.beacon.games import BeaconConfig, Resolver
from bot.dice.game_dice import DiceScriptExhausted, FaceScript, GameDice, commitment
from bot.errors import BadCommand, DiceScriptRanOut, NoGameHere, WrongSystem
from bot.log.gamelog import FORMAT_VERSION, seal, state_hash
from bot.models import Actor, Place, Reply
from bot.service.change import Change, Live, Shown
from bot.service.options import command_path
from bot.service.replies import entry_reply
from bot.service.snapshot import snapshot
from bot.storage import Append, Duplicate, GameRow, Repository, StoredEntry
from bot.storage.base import canonical
from rules_core.errors import InvalidInput
from rules_core.system import GameSystem

log = logging.getLogger(__name__)


DEFAULT_LIVE_GAMES = 1000
"""How many games the service keeps parsed in memory by default (``REFEREE_LIVE_GAMES``)."""
HOLD_GAME: contextvars.ContextVar[bool] = contextvars.ContextVar("hold_game", default=False)
"""Set while an action is decided again after a refusal: the game is then held in the database."""


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


def check_system(live: Live, action: BaseModel) -> str:
    """The action's path; refuses a command of another system than the channel's game."""
    path = str(getattr(action, "action", ""))
    if path.split(".")[0] != live.system.name:
        raise WrongSystem(
            f"This channel plays {live.system.title}; {command_path(path)} belongs to another game."
        )
    return path


_NOTHING_TO_ROLL_BACK = contextlib.nullcontext()


class _Channel:
    """A channel's lock and how many of the service's tasks hold or await it: the lock is kept
    while one does and dropped when none does (a dict entry, not a weak reference made and
    called back on every action)."""

    __slots__ = ("lock", "users")

    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.users = 0


class _Locked:
    """``async with`` a channel's lock (:meth:`Core.locked`)."""

    __slots__ = ("_channel", "_core", "_key")

    def __init__(self, core: Core, key: tuple[int, int]) -> None:
        self._core = core
        self._key = key

    async def __aenter__(self) -> None:
        locks = self._core.locks
        channel = locks.get(self._key)
        if channel is None:
            channel = locks[self._key] = _Channel()
        channel.users += 1
        self._channel = channel
        lock = channel.lock
        try:
            if lock.locked():  # another request of the channel goes first: wait, not forever
                await self._core.acquire(lock)
            else:
                await lock.acquire()
        except BaseException:
            self._leave()
            raise

    async def __aexit__(self, *exc: object) -> None:
        self._channel.lock.release()
        self._leave()

    def _leave(self) -> None:
        channel = self._channel
        channel.users -= 1
        if channel.users == 0:  # nobody holds or awaits it: a later request makes another
            locks = self._core.locks
            if locks.get(self._key) is channel:
                del locks[self._key]


class Core:
    """The services a handler may use, and nothing of any other handler: the store, the
    installed systems, the sources of time, seeds and ids, the games kept in memory and their
    locks, the game's dice, the commit and the replay of a known interaction."""

    def __init__(
        self,
        repo: Repository,
        systems: Mapping[str, GameSystem[Any, Any]],
        *,
        script: FaceScript | None,
        clock: Callable[[], str],
        seeds: Callable[[], bytes],
        peek: Callable[[], str] | None = None,
        game_ids: Callable[[], str],
        live_games: int,
        beacon: BeaconConfig | None,
        dice_default: str,
    ) -> None:
        if live_games < 1:
            raise ValueError("live_games must be at least 1")
        self.repo = repo
        self.systems = systems
        self.script = script
        """The console's ``--dice`` faces (None: the game's seed alone decides every die)."""
        self.beacon = beacon
        """The beacon of new beacon games and its relays (None: beacon dice are unavailable)."""
        self.dice_default = dice_default
        """The dice of ``/game new`` without ``dice:`` (``REFEREE_DICE``: server or beacon)."""
        self.resolver: Resolver | None = None
        """Resolves beacon declarations with their round (set by the service when beacon is on)."""
        self.clock = clock
        self.peek = peek
        """The current time without moving a scripted clock on (None: ``clock`` moves nothing)."""
        self.seeds = seeds
        self.game_ids = game_ids
        self.live_games = live_games
        self.locks: dict[tuple[int, int], _Channel] = {}
        """A channel's lock lives while a coroutine holds or awaits it, then goes away."""
        self.live: OrderedDict[tuple[int, int], Live] = OrderedDict()
        """The most recently used games (at most ``live_games``), least recent first."""
        self.handlers: Mapping[type[BaseModel], Any] = {}
        """The handler of every table command (set by the service): ``/game confirm`` and
        ``/game decline`` carry out or refuse a proposed table command with its own."""
        self.after_commit: Callable[[Live], Awaitable[None]] | None = None
        """Called with the game after each entry of a game with a deadline (it plans the
        game's timers: ``bot/table/reminders.py``); a failure is logged, the entry stands."""

    @property
    def scripted(self) -> bool:
        """Whether this run's dice are scripted (the console's ``--dice``)."""
        return self.script is not None

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

    # --- loading and locking ---------------------------------------------------------------

    def lock(self, place: Place) -> asyncio.Lock:
        """The channel's lock as it is now (a test holds it to make the service's requests
        wait): the service's own requests take it through :meth:`locked`, which keeps it while
        one of them holds or awaits it."""
        key = (place.guild_id, place.channel_id)
        channel = self.locks.get(key)
        if channel is None:
            channel = self.locks[key] = _Channel()
        return channel.lock

    def locked(
        self, place: Place, *, hold: bool = False
    ) -> contextlib.AbstractAsyncContextManager[None]:
        """The channel's lock (waited for until the database's deadline at most: behind a request
        stuck on a frozen database, the next ones are told it timed out rather than pile up);
        when deciding again after a refusal (or ``hold``), the game held in the database too
        (taken after the channel's lock, so two tasks never wait on each other) and read afresh
        from it. (The lock alone, every action's, is a small object rather than a generator.)"""
        if hold or HOLD_GAME.get():
            return self._held(place)
        return _Locked(self, (place.guild_id, place.channel_id))

    async def acquire(self, lock: asyncio.Lock) -> None:
        """Take a channel's ``lock``, waiting until the database's deadline at most."""
        if lock.locked():  # another request of the channel goes first: wait for it, not forever
            limits = self.repo.limits
            try:
                async with asyncio.timeout(limits.timeout):
                    await lock.acquire()
            except TimeoutError:
                raise limits.timed_out() from None
        else:
            await lock.acquire()

    @contextlib.asynccontextmanager
    async def _held(self, place: Place) -> AsyncIterator[None]:
        """The channel's lock and the game held in the database, read afresh from it."""
        async with _Locked(self, (place.guild_id, place.channel_id)):
            self.forget(place)
            try:
                async with self.repo.hold(place.guild_id, place.channel_id):
                    yield
            except BaseException:
                self.forget(place)
                raise

    def cached(self, place: Place) -> Live | None:
        """The cached game of the channel, if any (its freshness is the caller's to check)."""
        return self.live.get((place.guild_id, place.channel_id))

    def forget(self, place: Place) -> None:
        """Drop the channel's cached game (it is read afresh next time)."""
        self.live.pop((place.guild_id, place.channel_id), None)

    def remember(self, place: Place, live: Live) -> None:
        """Cache ``live`` as most recently used (only writers holding the channel's lock call
        this), evicting the least recently used games beyond ``live_games``."""
        key = (place.guild_id, place.channel_id)
        self.live[key] = live
        self.live.move_to_end(key)
        while len(self.live) > self.live_games:
            self.live.popitem(last=False)

    async def load(self, place: Place, *, locked: bool = False) -> Live:
        """The channel's active game, from the cache or the database.

        Only a caller holding the channel's lock (``locked``) caches what it read: a reader
        without the lock could otherwise cache a row that a writer moved past meanwhile. A reader
        (a listing, a preview, an autocomplete) first checks the cached game's head against the
        database (:meth:`_still_stored`), so it shows what another process wrote; a writer does
        not need to (its append is refused if the head moved, and it reloads).
        """
        key = (place.guild_id, place.channel_id)
        live = self.live.get(key)
        if live is not None:
            self.live.move_to_end(key)
            if locked or await self._still_stored(key, live.row):
                return live
        row = await self.repo.active_game(place.guild_id, place.channel_id)
        if row is None:
            raise await self._no_active_game(place)
        system = self.system(row.system)
        live = Live(row=row, state=system.parse_state(row.state_json), system=system)
        if locked:
            self.remember(place, live)
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

    async def _still_stored(self, key: tuple[int, int], row: GameRow) -> bool:
        """Whether the cached ``row`` is still the stored game (same head, same status); if
        another process (a console, a second bot process) wrote it since, the cached copy is
        dropped so that the caller reads the game afresh. One small read."""
        if await self.repo.game_head(row.id) == (row.head_seq, row.status):
            return True
        if self.live.get(key) is not None and self.live[key].row is row:
            self.live.pop(key, None)
        return False

    async def readable(self, place: Place) -> GameRow:
        """The active game, or the channel's last ended game (everyone may read it), as stored
        now (a cached copy is checked against the database first)."""
        key = (place.guild_id, place.channel_id)
        live = self.live.get(key)
        if live is not None and await self._still_stored(key, live.row):
            return live.row
        row = await self.repo.latest_game(place.guild_id, place.channel_id)
        if row is None:
            raise NoGameHere("There is no game in this channel; start one with /game new.")
        return row

    # --- the game's dice -------------------------------------------------------------------

    def script_rollback(self) -> contextlib.AbstractContextManager[None]:
        """A refused declaration consumes no scripted face (without scripted faces, nothing to
        roll back: a context that does nothing, not a generator made per action)."""
        if self.script is None:
            return _NOTHING_TO_ROLL_BACK
        return self._rolled_back(self.script)

    @staticmethod
    @contextlib.contextmanager
    def _rolled_back(script: FaceScript) -> Iterator[None]:
        used = script.used
        try:
            yield
        except BaseException as exc:
            script.used = used
            if isinstance(exc, DiceScriptExhausted):
                raise DiceScriptRanOut(str(exc)) from exc
            raise

    def dice(self, row: GameRow) -> GameDice:
        """The game's dice for its next entry (with the console's scripted faces, if any)."""
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

    # --- commit ---------------------------------------------------------------------------

    async def commit(
        self,
        place: Place,
        live: Live,
        actor: Actor,
        interaction_id: str,
        change: Change,
        prepare: Callable[[Reply], object] | None = None,
        *,
        command: BaseModel | None = None,
    ) -> Reply:
        """Append ``change`` to the game's log as its next entry and answer with its reply
        (or, for an interaction the log already holds, with that entry's reply)."""
        row = live.row
        state = change.state if change.state is not None else live.state
        text = snapshot(state) if change.state is not None else row.state_json
        entry: dict[str, Any] = {
            "v": FORMAT_VERSION,
            "game": row.public_id,
            "seq": row.head_seq + 1,
            "prev": row.head_hash,
            "kind": change.kind,
            "at": change.at or self.clock(),
            "by": _by(row, actor),
            "interaction": interaction_id,
            "epoch": row.epoch,
            "rules": live.system.rules_version,
            "dice": [d.to_json() for d in change.dice] if change.dice else [],
            "state": state_hash(text),
            **change.data,
        }
        body, digest = seal(entry, plain=change.plain)
        # a table the change left as it was is written as the text kept of it (encoded once)
        table = change.table if change.table is not None else row.table
        table_json = row.table_json if change.table is None else None
        new_row = row.moved(
            head_seq=row.head_seq + 1,
            head_hash=digest,
            state_json=text,
            next_die=change.dice[-1].seq + 1 if change.dice else row.next_die,
            table=table,
            players_mix=change.players_mix if change.players_mix is not None else row.players_mix,
            status=change.status or row.status,
            table_json=table_json if table_json is not None else canonical(table),
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
        # the reply is built (and handed to ``prepare``) while the disk syncs; it is returned,
        # and so answered, only after the commit
        reply = self.reply(entry, new_row, replayed=False, shown=change.shown)
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
            self.forget(place)
            seen = await self.repo.entry_by_interaction(interaction_id)
            if seen is None:
                raise
            return await self.replay(seen, place, command)
        except BaseException:
            self.forget(place)
            raise
        after = Live(row=new_row, state=state, system=live.system)
        if new_row.status == "active":
            self.remember(place, after)
        else:
            self.forget(place)
        if self.after_commit is not None and ("clock" in row.table or "clock" in new_row.table):
            try:
                await self.after_commit(after)
            except Exception:  # the timers are planned again when a process starts
                log.exception("Could not plan the timers of game %s", new_row.public_id)
        return reply

    # --- replies -----------------------------------------------------------------------------

    def reply(
        self,
        entry: Mapping[str, Any],
        row: GameRow,
        *,
        replayed: bool,
        shown: Shown | None = None,
    ) -> Reply:
        """The reply of a logged entry (:func:`~bot.service.replies.entry_reply`)."""
        return entry_reply(entry, row, replayed=replayed, shown=shown, scripted=self.scripted)

    async def replay(self, stored: StoredEntry, place: Place, command: BaseModel | None) -> Reply:
        """The answer to an interaction seen before, from the log — only in the same channel's
        game and for the same command; any other reuse of its id is refused, nothing done."""
        row = await self.repo.game(stored.game_id)
        entry = {**stored.data(), "hash": stored.hash}
        same_place = row is not None and (row.guild_id, row.channel_id) == (
            place.guild_id,
            place.channel_id,
        )
        if row is None or not same_place or not _same_command(entry, command):
            raise BadCommand(
                "That interaction was answered before, for another command or channel; "
                "nothing was done."
            )
        return self.reply(entry, row, replayed=True)

    async def seen(self, interaction_id: str, place: Place, command: BaseModel) -> Reply | None:
        """The reply of ``interaction_id`` from the log if it was answered before (None: new)."""
        stored = await self.repo.entry_by_interaction(interaction_id)
        return None if stored is None else await self.replay(stored, place, command)
