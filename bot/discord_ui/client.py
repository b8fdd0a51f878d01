"""The Discord bot: :class:`RefereeBot` and :func:`run`, which ``referee run`` calls.

The bot needs no privileged intent. ``DISCORD_API_BASE`` and ``DISCORD_GATEWAY_URL`` replace
discord.py's REST and gateway URLs (an HTTP proxy in production, the fake Discord in tests).
SIGTERM and SIGINT close it gracefully: the gateway is closed, then every close hook runs (the
database is closed there), and :func:`run` returns 0.
"""

from __future__ import annotations

import asyncio
import functools
import gc
import logging
import signal
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import discord
import yarl
from discord.ext import commands

from bot.config import Settings
from bot.discord_ui.sync import state_path, sync_commands
from bot.discord_ui.tree import RefereeTree
from bot.errors import SettingsUnusable
from bot.event_loop import loop_factory
from bot.models import Place, Reply
from bot.ops.shards import IdentifyPace, ShardPlan, plan_from_gateway
from bot.storage.base import StorageUnavailable
from rules_core.words import counted

log = logging.getLogger(__name__)

INITIAL_EXTENSIONS: tuple[str, ...] = (
    "cogs.meta",
    "cogs.game",
    "cogs.dice",
    "cogs.notify",
    "cogs.asl",
    "cogs.ocs",
    "cogs.cwb",
)
"""The cogs loaded at start, in order (each module ends with ``async def setup(bot)``)."""

Hook = Callable[[], Awaitable[None]]
Configure = Callable[["RefereeBot"], Awaitable[None]]


def apply_endpoints(settings: Settings) -> None:
    """Point discord.py at ``DISCORD_API_BASE`` / ``DISCORD_GATEWAY_URL`` when they are set."""
    if settings.discord_api_base:
        discord.http.Route.BASE = settings.discord_api_base.rstrip("/")
    if settings.discord_gateway_url:
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(settings.discord_gateway_url)


GATEWAY_INTENTS = discord.Intents(guilds=True)
"""The gateway events the bot asks for: its servers, their channels, threads and roles (where a
command comes from, who may referee). The bot answers interactions only, which Discord sends
whatever the intents, so it asks for no messages, reactions, typing, voice or the like:
``Intents.default()`` had Discord send, and discord.py parse into a ``Message`` and cache, a
MESSAGE_CREATE for every message in every channel the bot sees — each of its own answers
included (about 0.09 ms of discord.py per answer of a fire, docs/PERFORMANCE.md)."""
UNGUARDED_EVENTS = frozenset({"READY"})
"""Gateway events whose failure still stops the bot: without READY it cannot work at all."""


def guard_parsers(parsers: dict[str, Callable[[Any], None]]) -> None:
    """Make one malformed gateway event (a thread without ``owner_id``…) cost only itself.

    discord.py parses each event in the gateway's read loop; a parser that raises ends the
    connection and ``bot.start`` with it, so one bad event would stop the whole bot. Each
    parser (but READY's) is wrapped: a failure is logged with the event's name and the event is
    dropped; the next event is parsed as usual.
    """
    for event, parser in list(parsers.items()):
        if event in UNGUARDED_EVENTS or getattr(parser, "guarded", False):
            continue
        parsers[event] = _guarded(event, parser)


def _guarded(event: str, parser: Callable[[Any], None]) -> Callable[[Any], None]:
    def parse(data: Any) -> None:
        try:
            parser(data)
        except Exception as exc:
            log.error("Ignored a malformed %s event from the gateway (%r)", event, exc)
            log.debug("The malformed %s event: %r", event, data, exc_info=True)

    parse.guarded = True  # type: ignore[attr-defined]
    return parse


class RefereeBot(commands.Bot):
    """The referee on Discord: slash commands only, the guilds intent alone
    (:data:`GATEWAY_INTENTS`), cogs from ``extensions``."""

    settings: Settings
    game_service: Any
    """The game service (``bot.service``) the cogs call; attached before the bot starts."""
    notices: Any = None
    """Posts the deadlines' reminders and the direct messages (``bot.discord_ui.notices``)."""
    action_handler: Any
    """The handler of every game command and button (``bot.discord_ui.handler``), made by the
    first game cog that loads."""
    initial_extensions: tuple[str, ...]
    failed_extensions: dict[str, BaseException]
    """Extensions that failed to load, with their error (the bot runs without them)."""
    sync_state: Path
    """The file holding the hash of the last command sync (beside the database)."""

    def __init__(
        self,
        settings: Settings,
        *,
        extensions: Sequence[str] = INITIAL_EXTENSIONS,
        game_service: Any = None,
        **shards: Any,
    ) -> None:
        """``shards``: ``shard_ids`` and ``shard_count`` of a :class:`ShardedRefereeBot`."""
        apply_endpoints(settings)
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=GATEWAY_INTENTS,
            tree_cls=RefereeTree,
            help_command=None,
            allowed_mentions=discord.AllowedMentions(everyone=False, roles=False),
            **shards,
        )
        self.settings = settings
        self.game_service = game_service
        self.action_handler = None
        self.initial_extensions = tuple(extensions)
        self.failed_extensions = {}
        self.sync_state = state_path(settings.database)
        self._startup_hooks: list[Hook] = []
        self._close_hooks: list[Hook] = []
        guard_parsers(self._connection.parsers)

    def add_startup_hook(self, hook: Hook) -> None:
        """Run ``hook`` at the start of ``setup_hook``, before the cogs load (open the database)."""
        self._startup_hooks.append(hook)

    def add_close_hook(self, hook: Hook) -> None:
        """Run ``hook`` once when the bot closes, after the gateway (close the database)."""
        self._close_hooks.append(hook)

    def owns_guild(self, guild_id: int) -> bool:
        """Whether the server's events come to this process (one process: every server's)."""
        return True

    async def plan_shards(self) -> None:
        """Settle which shards this process runs, before anything else starts (a sharded bot)."""

    async def setup_hook(self) -> None:
        await self.plan_shards()
        for hook in self._startup_hooks:
            await hook()
        for extension in self.initial_extensions:
            try:
                await self.load_extension(extension)
            except Exception as exc:
                self.failed_extensions[extension] = exc
                log.exception("Failed to load extension %s; running without it", extension)
            else:
                log.info("Loaded extension %s", extension)
        shard_ids = getattr(self, "shard_ids", None)
        if shard_ids is None or 0 in shard_ids:  # one process of a sharded bot syncs
            await self.sync_if_changed()
        settle_garbage_collector()

    async def sync_if_changed(self, *, force: bool = False) -> int | None:
        """Sync the global commands when they changed (see :mod:`bot.discord_ui.sync`); never
        raises."""
        try:
            return await sync_commands(
                self.tree, self.sync_state, application_id=self.application_id, force=force
            )
        except discord.HTTPException:
            log.exception("Command sync failed; the commands Discord knows may be outdated")
            if force:
                raise
            return None

    async def close(self) -> None:
        await super().close()
        hooks, self._close_hooks = self._close_hooks, []
        for hook in reversed(hooks):
            try:
                await hook()
            except Exception:
                log.exception("A close hook failed")


GC_YOUNG_THRESHOLD = 50_000
"""Allocations between two young collections (Python's default: 700). Each young collection
scans whatever is in flight (under load, 15,000-25,000 objects, ~20 ms of CPU); the interactions
no longer leave cycles behind (:func:`bot.discord_ui.tree.release`), so few collections are
needed: with them gone, at 10,000 there were 9-15 collections per 2,800 actions on 100 channels
(145-290 ms of CPU), at 50,000 one (~50 ms) (``docs/PERFORMANCE.md``)."""


def settle_garbage_collector() -> None:
    """After start-up: what was loaded (modules, commands, the rules' classes) is moved out of
    the collector's sight (``gc.freeze``) and young collections run every 50,000 allocations
    instead of 700, so each interaction does not pay for scanning objects that live forever.
    Reference counting frees almost everything anyway; cycles are still collected."""
    gc.collect()
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(GC_YOUNG_THRESHOLD, middle, old)


class ShardedRefereeBot(RefereeBot, commands.AutoShardedBot):
    """The bot owning some of the bot's shards (``referee run --shards 0-3 --shard-count 8``, or
    ``--shards auto --cluster 0/2``: as many as Discord recommends, this process's half):
    several such processes, each with its own shards, share one PostgreSQL database. Only the
    process owning shard 0 syncs the commands. Shards identify as fast as Discord's
    ``max_concurrency`` allows (:class:`~bot.ops.shards.IdentifyPace`)."""

    shard_plan: ShardPlan | None = None

    def __init__(self, settings: Settings, **options: Any) -> None:
        super().__init__(settings, **options)
        self.identify_pace = IdentifyPace()

    async def plan_shards(self) -> None:
        """Ask Discord (``GET /gateway/bot``) for the recommended shard count (``--shards auto``)
        and the number of shards that may identify at once, and settle this process's shards.

        :raises SettingsUnusable: ``--shards auto`` and Discord did not answer.
        """
        settings = self.settings
        answer: tuple[int, str, Any]
        try:
            answer = await self.http.get_bot_gateway()
        except (discord.HTTPException, discord.GatewayNotFound) as exc:
            if settings.auto_shards():
                raise SettingsUnusable(
                    "Discord did not say how many shards the bot needs (GET /gateway/bot failed: "
                    f"{exc}); start again, or give --shard-count instead of --shards auto."
                ) from None
            log.warning("GET /gateway/bot failed (%s); identifying one shard every 5 s", exc)
            answer = (self.shard_count or 1, "", {"max_concurrency": 1})
        count = None if settings.auto_shards() else self.shard_count
        plan = plan_from_gateway(answer, settings.cluster_slot(), count)
        if count is not None:  # the shards given by hand stay as given
            plan = ShardPlan(plan.count, self.shard_ids, plan.max_concurrency)
        self.shard_count, self.shard_ids = plan.count, plan.ids
        self.identify_pace.max_concurrency = plan.max_concurrency
        self.shard_plan = plan
        shards = plan.ids if plan.ids is not None else list(range(plan.count))
        log.info(
            "Running shards %s of %s (%d may identify at once)",
            shards, plan.count, plan.max_concurrency,
        )  # fmt: skip

    def owns_guild(self, guild_id: int) -> bool:
        return self.shard_plan is None or self.shard_plan.owns(guild_id)

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        await self.identify_pace.wait(shard_id)


def make_bot(settings: Settings, extensions: Sequence[str] = INITIAL_EXTENSIONS) -> RefereeBot:
    """The bot of ``settings``: sharded if ``REFEREE_SHARDS`` (``--shards``) names shards or is
    ``auto``, or ``REFEREE_CLUSTER`` gives this process a slice of a shard count."""
    if settings.auto_shards():
        return ShardedRefereeBot(settings, extensions=extensions)
    shard_ids = settings.shard_ids()
    if shard_ids is None:
        return RefereeBot(settings, extensions=extensions)
    return ShardedRefereeBot(
        settings, extensions=extensions, shard_ids=shard_ids, shard_count=settings.shard_count
    )


def setup_logging(level: str, form: str = "text") -> None:
    """discord.py's log format (or one JSON object a line, ``REFEREE_LOG_FORMAT=json``), at
    ``REFEREE_LOG_LEVEL``, for the bot and discord.py alike."""
    from bot.ops.logs import JsonFormatter

    numeric = logging.getLevelName(level.upper())
    discord.utils.setup_logging(
        level=numeric if isinstance(numeric, int) else logging.INFO,
        formatter=JsonFormatter() if form == "json" else discord.utils.MISSING,
    )


async def attach_game_service(
    bot: RefereeBot,
    *,
    clock: Callable[[], datetime] | None = None,
    timer_poll: float | None = None,
) -> None:
    """Open the database of ``bot.settings`` and attach a game service on it to ``bot``, and
    the loop firing the deadlines' timers; the database is closed when the bot closes (the
    ``configure`` of ``referee run``). ``clock`` and ``timer_poll`` are for tests: a clock they
    move, and how often the timers are looked at."""
    from bot.dice.beacon.games import config_from_settings
    from bot.discord_ui.notices import TIMER_POLL, Notices
    from bot.service.game_service import GameService
    from bot.storage import describe, open_repository
    from bot.storage.limits import Limits

    settings = bot.settings
    beacon = config_from_settings(settings)  # before the database: nothing left open
    target = settings.database_target
    limits = Limits(timeout=settings.db_timeout, pool=settings.db_pool, queue=settings.db_queue)
    repo = await open_repository(target, limits)
    times: dict[str, Any] = {}
    if clock is not None:
        times = {"clock": lambda: clock().isoformat(timespec="milliseconds")}
    service = GameService(
        repo,
        live_games=bot.settings.live_games,
        beacon=beacon,
        dice_default=bot.settings.dice_default,
        **times,
    )
    bot.game_service = service
    log.info("Signing with the key %s (docs/OPERATING.md)", await service.signing_key())
    notices = Notices(
        bot,
        service,
        **({"clock": clock} if clock is not None else {}),
        poll=timer_poll if timer_poll is not None else TIMER_POLL,
    )
    bot.notices = notices
    if service.resolver is not None:
        service.resolver.on_late = functools.partial(post_late_resolution, bot)

    async def resume() -> None:  # declarations pending when the bot stopped, of its shards
        if resumed := await service.resume_beacon(owns=bot.owns_guild):
            log.info("Resuming %s waiting for a beacon round", counted(resumed, "declaration"))

    bot.add_startup_hook(resume)
    bot.add_startup_hook(_started(notices.start))
    bot.add_close_hook(service.close_beacon)
    bot.add_close_hook(repo.close)

    async def count_failures() -> None:  # the counts of a run of failures going on now
        from bot.ops.logs import FAILURES

        FAILURES.flush()

    bot.add_close_hook(count_failures)
    if settings.metrics_port is not None:  # /metrics, /healthz, /readyz (bot/ops/health.py)
        from bot.ops.health import HealthServer

        health = HealthServer(bot, settings.metrics_host, settings.metrics_port)

        async def serve_health() -> None:
            await health.start()

        bot.add_startup_hook(serve_health)
        bot.add_close_hook(health.stop)
    bot.add_close_hook(notices.close)  # hooks run last first: before the database closes
    log.info("Opened the database %s (%s)", describe(target), repo.engine)


def _started(start: Callable[[], None]) -> Hook:
    async def hook() -> None:
        start()

    return hook


async def post_late_resolution(bot: RefereeBot, place: Place, reply: Reply) -> None:
    """Post a beacon declaration's resolution that came after its player was told it is
    pending (a relay was down, or the bot restarted), in the game's channel."""
    from bot.render.embed import render_embed

    try:
        await bot.get_partial_messageable(place.channel_id).send(embed=render_embed(reply))
    except discord.HTTPException:
        log.exception("Could not post the resolution of entry %s", reply.seq)
        return
    handler = getattr(bot, "action_handler", None)
    if handler is not None:
        handler.logged(place, reply)


async def start(bot: RefereeBot, token: str) -> None:
    """Run ``bot`` until it is closed, closing it on SIGTERM or SIGINT."""
    loop = asyncio.get_running_loop()
    closing: list[asyncio.Task[None]] = []

    def stop(signum: signal.Signals) -> None:
        log.info("Received %s; closing", signum.name)
        closing.append(loop.create_task(bot.close()))

    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop, signum)
    try:
        async with bot:
            await bot.start(token)
    finally:
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(signum)
        await asyncio.gather(*closing)


def run(
    settings: Settings,
    *,
    extensions: Sequence[str] = INITIAL_EXTENSIONS,
    configure: Configure | None = None,
) -> int:
    """Run the bot until SIGTERM/SIGINT; the process exit code.

    ``configure`` runs inside the event loop before the bot logs in: attach the game service
    there and register its close hook (``bot.game_service = ...``, ``bot.add_close_hook(...)``).
    """
    token = settings.discord_token.get_secret_value().strip() if settings.discord_token else ""
    if not token:
        print("DISCORD_TOKEN is not set; see docs/OPERATING.md.")
        return 2
    setup_logging(settings.log_level, settings.log_format)

    async def main() -> None:
        log.info("Event loop: %s", type(asyncio.get_running_loop()).__module__.split(".")[0])
        bot = make_bot(settings, extensions)
        if configure is not None:
            await configure(bot)
        await start(bot, token)

    try:
        with asyncio.Runner(loop_factory=loop_factory(settings.event_loop)) as runner:
            runner.run(main())
    except (StorageUnavailable, SettingsUnusable) as exc:
        log.error("%s", exc)
        return 2
    except discord.LoginFailure:
        log.error("Discord refused the token in DISCORD_TOKEN; reset it and try again.")
        return 1
    except discord.PrivilegedIntentsRequired:
        log.error("Discord refused an intent the bot asked for.")
        return 1
    return 0


__all__ = [
    "GATEWAY_INTENTS",
    "INITIAL_EXTENSIONS",
    "UNGUARDED_EVENTS",
    "RefereeBot",
    "ShardedRefereeBot",
    "apply_endpoints",
    "attach_game_service",
    "guard_parsers",
    "make_bot",
    "run",
    "setup_logging",
    "start",
]
