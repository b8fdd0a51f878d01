"""Beacon games: declare an action, wait for its drand round, then resolve it with beacon dice.

The service validates an action in a beacon game by running the rules with :class:`ProbeDice`,
which stop at the first die (the rules refuse illegal declarations before they roll). An action
that reads no die is logged at once as usual; one that does is *declared*: a ``declared`` entry
names round ``R``, the first round published at least ``margin`` seconds after the entry is
written. :class:`Resolver` then waits for ``R``'s time, fetches the round from the relays in turn
(:class:`~bot.dice.beacon.relay.RelayClient`), and has the service append the ``resolved``
entry with
the dice of version 2 (docs/DICE.md). If no relay gives a valid round within ``patience``
seconds, the player is told the declaration stays pending, and the resolver keeps trying (backing
off to ``retry_max`` seconds between tries) until the round comes or a referee cancels.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.dice.beacon.chain import QUICKNET, Beacon, ChainInfo, first_round_after, round_time
from bot.dice.beacon.relay import DEFAULT_RELAYS, DEFAULT_TIMEOUT, BeaconUnavailable, RelayClient
from bot.errors import SettingsUnusable, Unavailable, UserError
from bot.models import Place, Reply
from bot.ops import metrics
from rules_core.dice import RecordingDice

log = logging.getLogger(__name__)

DEFAULT_MARGIN = 0.5
"""Seconds between writing a declaration and the earliest publication of its round."""
FINISHED_KEPT = 1000
"""How many resolved declarations' results the resolver keeps for late askers."""
DEFAULT_PATIENCE = 3.0
"""Seconds after the round's time during which the player waits for the result."""


class NeedsBeacon(BaseException):
    """Raised by :class:`ProbeDice` at the first die: the action is valid and must be declared.

    A ``BaseException`` so that no ``except Exception`` in the rules can swallow it."""


class ProbeDice(RecordingDice):
    """Dice that stop the rules at the first die they read (nothing is rolled)."""

    def _face(self, sides: int, label: str) -> int:
        raise NeedsBeacon(label)


class DeclarationPending(UserError):
    """The declaration waits for its beacon round: no relay has given it yet."""


class DeclarationWaiting(UserError):
    """Another declaration of the game is waiting for its round: nothing else is taken now."""


class DeclarationCancelled(UserError):
    """A referee cancelled the declaration before its round was fetched."""


class BeaconNotConfigured(UserError):
    """Beacon dice were asked for, but the bot has no beacon chain and relays."""


@dataclass
class BeaconConfig:
    """The beacon a bot uses for new beacon games, and how patiently it waits for rounds."""

    chain: ChainInfo
    relays: tuple[str, ...]
    timeout: float = DEFAULT_TIMEOUT
    margin: float = DEFAULT_MARGIN
    patience: float = DEFAULT_PATIENCE
    retry_max: float = 30.0
    clock: Callable[[], float] = time.time

    def client(self, chain: ChainInfo) -> RelayClient:
        """A relay client of ``chain`` (a game's chain, which the log fixed at its start)."""
        return RelayClient(chain, self.relays, timeout=self.timeout, clock=self.clock)

    def target_round(self, chain: ChainInfo) -> int:
        """The round a declaration written now names."""
        return first_round_after(chain, self.clock(), self.margin)


class BeaconMisconfigured(SettingsUnusable):
    """The beacon settings cannot be used; the message is one sentence for the operator."""


def config_from_settings(settings: Any) -> BeaconConfig:
    """The beacon of ``REFEREE_BEACON_CHAIN`` (``quicknet`` or a chain file) and
    ``REFEREE_BEACON_RELAYS`` (comma-separated URLs; a chain file may name a ``relay``).

    :raises BeaconMisconfigured: the chain file is missing, unreadable or not a drand chain's
        information, or no relay is named (``referee run`` and ``referee console`` then end with
        that one sentence and exit status 2).
    """
    name = str(settings.beacon_chain).strip()
    relays = tuple(r.strip() for r in str(settings.beacon_relays or "").split(",") if r.strip())
    if name == "quicknet":
        chain = QUICKNET
        relays = relays or DEFAULT_RELAYS
    else:
        where = f"The beacon chain file {name} (REFEREE_BEACON_CHAIN)"
        try:
            text = Path(name).read_text(encoding="utf-8")
        except FileNotFoundError:
            raise BeaconMisconfigured(
                f"{where} does not exist; name an existing chain file, or quicknet."
            ) from None
        except (OSError, UnicodeDecodeError) as exc:
            reason = getattr(exc, "strerror", None) or type(exc).__name__
            raise BeaconMisconfigured(f"{where} cannot be read: {reason}.") from None
        try:
            chain = ChainInfo.from_text(text)
            extra = json.loads(text).get("relay")
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            raise BeaconMisconfigured(
                f"{where} is not a drand chain's information (JSON with name, chain_hash, "
                f"public_key, period and genesis): {exc}."
            ) from None
        if not relays and extra:
            relays = (str(extra),)
    if not relays:
        raise BeaconMisconfigured(
            "REFEREE_BEACON_RELAYS names no relay for the beacon chain; give at least one URL."
        )
    return BeaconConfig(chain=chain, relays=relays, timeout=float(settings.beacon_timeout))


Resolve = Callable[[Place, int, int, Beacon], Awaitable[Reply | None]]
"""The service's resolution: ``(place, game row id, declared seq, verified round)`` → the reply
of the ``resolved`` entry, or None when the declaration is no longer pending."""


@dataclass
class _Job:
    place: Place
    game_id: int
    seq: int
    round: int
    chain: ChainInfo
    result: asyncio.Future[Reply]
    task: asyncio.Task[None] | None = None
    told_pending: bool = False
    waiters: int = 0
    """Callers waiting for the result now (a result they receive is not posted again)."""


class Resolver:
    """One background task per pending declaration: wait for its round, fetch, resolve."""

    def __init__(
        self,
        config: BeaconConfig,
        resolve: Resolve,
        on_late: Callable[[Place, Reply], Awaitable[None]] | None = None,
    ) -> None:
        self.config = config
        self._resolve = resolve
        self.on_late = on_late
        """Called with a resolution that came after its player was told it is pending."""
        self._jobs: dict[tuple[int, int], _Job] = {}
        self._finished: OrderedDict[tuple[int, int, int], asyncio.Future[Reply]] = OrderedDict()
        """The results of the last resolved declarations (a caller may ask after the fact)."""
        self._clients: dict[str, RelayClient] = {}

    def _client(self, chain: ChainInfo) -> RelayClient:
        client = self._clients.get(chain.chain_hash)
        if client is None:
            client = self.config.client(chain)
            self._clients[chain.chain_hash] = client
        return client

    def waiting(self) -> int:
        """How many declarations this resolver is waiting on now."""
        return len(self._jobs)

    def pending(self, place: Place) -> _Job | None:
        """The place's pending declaration being resolved, if any."""
        return self._jobs.get((place.guild_id, place.channel_id))

    def schedule(
        self, place: Place, game_id: int, seq: int, r: int, chain: ChainInfo, *, late: bool = False
    ) -> None:
        """Start resolving declaration ``seq`` of the place's game (round ``r`` of ``chain``);
        ``late``: nobody waits for it (a restart), so its result goes to ``on_late``."""
        key = (place.guild_id, place.channel_id)
        old = self._jobs.get(key)
        if old is not None and old.seq == seq and old.game_id == game_id:
            return
        future: asyncio.Future[Reply] = asyncio.get_running_loop().create_future()
        future.add_done_callback(_consume)
        job = _Job(place, game_id, seq, r, chain, future, told_pending=late)
        job.task = asyncio.create_task(self._run(job), name=f"beacon round {r} for entry {seq}")
        self._jobs[key] = job

    async def result(self, place: Place, seq: int, *, wait: float | None = None) -> Reply:
        """The resolution of declaration ``seq``, once its round has been fetched; waits until
        the patience after the round's time, or ``wait`` seconds.

        :raises DeclarationPending: when no relay gave the round within the patience.
        :raises DeclarationCancelled: when a referee cancelled it.
        """
        finished = self._finished.get((place.guild_id, place.channel_id, seq))
        if finished is not None:
            return await finished
        job = self.pending(place)
        if job is None or job.seq != seq:
            raise DeclarationPending(f"Entry {seq} is not waiting for a beacon round here.")
        if wait is None:
            due = round_time(job.chain, job.round) + self.config.patience
            wait = max(0.0, due - self.config.clock()) + self.config.timeout
        job.waiters += 1
        try:
            return await asyncio.wait_for(asyncio.shield(job.result), wait)
        except TimeoutError:
            job.told_pending = True
            raise DeclarationPending(
                f"No beacon relay has given round {job.round} yet, so entry {seq} stays pending "
                "and will be resolved (with the same round) as soon as one does."
            ) from None
        finally:
            job.waiters -= 1

    async def wait_clear(self, place: Place) -> None:
        """Wait until the place has no declaration being resolved, at most the patience."""
        job = self.pending(place)
        if job is None:
            return
        due = round_time(job.chain, job.round) + self.config.patience
        wait = max(0.0, due - self.config.clock()) + self.config.timeout
        with contextlib.suppress(Exception):
            await asyncio.wait_for(asyncio.shield(job.result), wait)

    def cancel(self, place: Place, seq: int) -> None:
        """Stop resolving declaration ``seq`` (a referee cancelled it)."""
        key = (place.guild_id, place.channel_id)
        job = self._jobs.get(key)
        if job is None or job.seq != seq:
            return
        del self._jobs[key]
        if job.task is not None:
            job.task.cancel()
        if not job.result.done():
            job.result.set_exception(
                DeclarationCancelled(f"A referee cancelled entry {seq}; nothing was rolled.")
            )

    async def close(self) -> None:
        """Stop every task and close the relay sessions (pending declarations stay pending)."""
        for job in list(self._jobs.values()):
            if job.task is not None:
                job.task.cancel()
        for job in list(self._jobs.values()):
            if job.task is not None:
                with contextlib.suppress(BaseException):
                    await job.task
        self._jobs.clear()
        for client in self._clients.values():
            await client.close()
        self._clients.clear()

    async def _run(self, job: _Job) -> None:
        key = (job.place.guild_id, job.place.channel_id)
        pause = 0.25
        try:
            while True:
                due = round_time(job.chain, job.round)
                now = self.config.clock()
                if now < due:
                    await asyncio.sleep(due - now + 0.02)
                    continue
                began = time.perf_counter()
                try:
                    beacon = await self._client(job.chain).fetch(job.round)
                except BeaconUnavailable as exc:
                    metrics.beacon_fetch(time.perf_counter() - began, failed=True)
                    log.info("beacon round %s for entry %s: %s", job.round, job.seq, exc)
                    late = self.config.clock() > due + self.config.patience
                    pause = min(self.config.retry_max, pause * 2) if late else 0.25
                    await asyncio.sleep(pause)
                    continue
                metrics.beacon_fetch(time.perf_counter() - began, failed=False)
                try:
                    reply = await self._resolve(job.place, job.game_id, job.seq, beacon)
                except Unavailable as exc:  # the database: try again soon, same round
                    log.info("entry %s: %s", job.seq, exc.user_message)
                    await asyncio.sleep(min(self.config.retry_max, 1.0))
                    continue
                self._finish(key, job)
                if reply is None:
                    if not job.result.done():
                        job.result.set_exception(
                            DeclarationCancelled(f"Entry {job.seq} is no longer pending.")
                        )
                    return
                if not job.result.done():
                    job.result.set_result(reply)
                if job.told_pending and job.waiters == 0 and self.on_late is not None:
                    await self.on_late(job.place, reply)
                return
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a bug: the declaration stays pending, the player is told
            log.exception("resolving entry %s failed", job.seq)
            self._finish(key, job)
            if not job.result.done():
                job.result.set_exception(
                    DeclarationPending(
                        f"Entry {job.seq} could not be resolved ({exc}); it stays pending and a "
                        "referee may /game cancel it."
                    )
                )

    def _finish(self, key: tuple[int, int], job: _Job) -> None:
        if self._jobs.get(key) is job:
            del self._jobs[key]
        self._finished[(*key, job.seq)] = job.result
        while len(self._finished) > FINISHED_KEPT:
            self._finished.popitem(last=False)


def _consume(future: asyncio.Future[Reply]) -> None:
    """Mark a result's exception as retrieved (nobody may be waiting for it)."""
    if not future.cancelled():
        future.exception()


__all__ = [
    "BeaconConfig",
    "BeaconNotConfigured",
    "DeclarationCancelled",
    "DeclarationPending",
    "DeclarationWaiting",
    "NeedsBeacon",
    "ProbeDice",
    "Resolver",
    "config_from_settings",
]
