"""The one handler behind every game command and button: build the action, call the service,
render, send.

Every generated slash command (``bot.discord_ui.appcommands``) and every
:class:`ActionButton` click ends in
:meth:`DiscordHandler.handle`. The interaction's own id is the idempotency key: the service answers
an interaction it has seen before from its log and rolls nothing, and when Discord delivers the
same interaction twice the second answer is refused by Discord and only logged here.

Who may do what is the service's business; the handler only says who asks: the member's id and
display name, and ``is_admin`` when they hold Administrator or Manage Server or the
``REFEREE_ROLE`` role. Refusals (``RulesError``/``UserError``) go up to the tree's error handler,
which answers them with one ephemeral sentence.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

import discord

from bot.commands import Registry, build_action, build_registry
from bot.dice.beacon.games import DeclarationPending
from bot.discord_ui.answer import answer, update_buttons
from bot.discord_ui.board import BoardKeeper, check_can_post
from bot.discord_ui.buttons import (
    ActionButton,
    EntryButton,
    action_view,
    install_action_buttons,
    used_view,
)
from bot.discord_ui.defer_timers import DeferTimer, DeferTimers
from bot.errors import BadCommand, DatabaseBusy, DatabaseTimeout, DatabaseUnreachable, UserError
from bot.models import Actor, Place, Reply
from bot.ops import metrics
from bot.render.embed import render_embed
from bot.render.text import dice_count
from bot.stats.charts import histogram_png
from rules_core.errors import RulesError

log = logging.getLogger(__name__)

DEFER_AFTER = 1.5
"""Seconds to wait for the service before deferring (Discord wants an answer within 3 s)."""
SLOW_COMMANDS: frozenset[tuple[str, ...]] = frozenset({("game", "export"), ("stats",)})
"""Commands that build a file: they defer at once."""
FOLLOW_UP_WINDOW = 15 * 60.0
"""Seconds Discord takes follow-ups to an interaction (``REFEREE_FOLLOWUP_WINDOW``)."""


def follow_up_wait(created: float, now: float, window: float) -> float:
    """How long a pending beacon declaration's interaction may still wait for its result and
    post it as a follow-up: until the window since the interaction's creation closes, less a
    margin (a twentieth of the window, at most 30 s) for posting it. Later results are posted in
    the channel (``post_late_resolution``).

    >>> follow_up_wait(created=0.0, now=10.0, window=900.0)
    860.0
    >>> follow_up_wait(created=0.0, now=899.0, window=900.0)
    0.0
    """
    return max(0.0, created + window - min(30.0, window / 20) - now)


OUTCOMES: dict[type[Exception], str] = {
    DatabaseTimeout: "timeout",
    DatabaseBusy: "busy",
    DatabaseUnreachable: "unreachable",
}
"""The ``outcome`` of an interaction refused for a failure of the database (others: refused)."""

ALREADY_ACKNOWLEDGED = 40060
MALFUNCTIONED = "malfunctioned"
PROPOSAL_BUTTONS = ("act:game.confirm:", "act:game.decline:")
"""The custom ids of a proposal's buttons: using either settles the proposal."""


def place_of(interaction: discord.Interaction[Any]) -> Place:
    """Where the interaction came from: server, channel or thread, and a thread's parent."""
    if interaction.guild_id is None or interaction.channel_id is None:
        raise UserError("Games are played in a server's channels and threads, not here.")
    channel = interaction.channel
    parent = channel.parent_id if isinstance(channel, discord.Thread) else None
    return Place(guild_id=interaction.guild_id, channel_id=interaction.channel_id, parent_id=parent)


def actor_of(interaction: discord.Interaction[Any], referee_role: str) -> Actor:
    """Who asks: a server administrator or manager, or a holder of ``referee_role``, is admin."""
    user = interaction.user
    is_admin = isinstance(user, discord.Member) and administers(user, referee_role)
    return Actor(user_id=user.id, name=user.display_name, is_admin=is_admin)


ADMINISTRATOR = discord.Permissions(administrator=True).value
MANAGE_GUILD = discord.Permissions(manage_guild=True).value


def administers(member: discord.Member, referee_role: str) -> bool:
    """Whether ``member`` holds Administrator or Manage Server in the server, or a role named
    ``referee_role``: what ``member.guild_permissions`` and ``member.roles`` say (the owner holds
    every permission, Administrator implies all, a timeout masks Manage Server), read in one
    pass over the member's role ids — ``guild_permissions`` and ``roles`` each built and sorted
    the list of ``Role`` objects, and made a ``Permissions`` per role, on every interaction."""
    guild = member.guild
    if guild.owner_id == member.id:
        return True
    value, named = 0, False
    for role in (*map(guild.get_role, member._roles), guild.default_role):
        if role is not None:
            value |= role._permissions
            named = named or role.name == referee_role
    if value & ADMINISTRATOR or named:
        return True
    return bool(value & MANAGE_GUILD) and not member.is_timed_out()


def follow_up_buttons(
    reply: Reply, path: tuple[str, ...], options: dict[str, Any]
) -> list[ActionButton | EntryButton]:
    """Buttons that save typing under a result: "Repair" for each malfunctioned weapon, "Roll
    again" when an MG kept its ROF (the same fire again), and the reply's follow-ups ("Older
    entries" under a page of the log). Repair and Roll again name only the log entry they sit
    under (:class:`EntryButton`): what they run is read back from the log, so no option is ever
    too long for a button. A proposal gets "Confirm" (``/game confirm``) and "Decline"
    (``/game decline``: the other side refuses it, its proposer withdraws it; under a result,
    "Dispute or withdraw", as the service labels it); the service decides who may press them."""
    if reply.command == "/game propose" and reply.seq is not None:
        declines = [f.label for f in reply.follow_ups if f.command == "game.decline"]
        return [
            ActionButton(
                ("game", "confirm"),
                {"entry": reply.seq},
                label=f"Confirm #{reply.seq}",
                style=discord.ButtonStyle.success,
            ),
            ActionButton(
                ("game", "decline"),
                {"entry": reply.seq},
                label=(declines or [f"Decline #{reply.seq}"])[0],
                style=discord.ButtonStyle.secondary,
            ),
        ]
    buttons: list[ActionButton | EntryButton] = []
    for follow in reply.follow_ups:
        with contextlib.suppress(ValueError):  # options too long for a custom id
            buttons.append(
                ActionButton(tuple(follow.command.split(".")), dict(follow.options),
                             label=follow.label[:80])
            )  # fmt: skip
    if reply.preview or reply.ephemeral or path[:1] != ("asl",):
        return buttons[:5]
    if reply.game_id is None or reply.seq is None:
        return buttons[:5]
    for index, (subject, result) in enumerate(reply.facts):
        if result == MALFUNCTIONED and path != ("asl", "repair") and index < 100:
            buttons.append(
                EntryButton(
                    reply.game_id,
                    reply.seq,
                    f"repair.{index}",
                    label=f"Repair {subject}"[:80],
                    style=discord.ButtonStyle.danger,
                )
            )
    kept_rof = any(s.startswith("ROF (") and r == "kept" for s, r in reply.facts)
    if kept_rof and path in (("asl", "fire"), ("asl", "tohit")):
        buttons.append(
            EntryButton(
                reply.game_id, reply.seq, "again", label="Roll again",
                style=discord.ButtonStyle.primary,
            )
        )  # fmt: skip
    return buttons[:5]


def reply_files(reply: Reply) -> list[discord.File]:
    """The export's JSONL file, or the histogram PNG of each die size of ``/stats``."""
    files = []
    if reply.file is not None:
        files.append(discord.File(io.BytesIO(reply.file.content), reply.file.filename))
    for attachment in reply.attachments:
        files.append(discord.File(io.BytesIO(attachment.content), attachment.filename))
    for stats in reply.stats:
        total = sum(stats.counts)
        png = histogram_png(
            dict(enumerate(stats.counts, start=1)), f"d{stats.sides}: {dice_count(total)}"
        )
        files.append(discord.File(io.BytesIO(png), f"stats-d{stats.sides}.png"))
    return files[:10]


class DiscordHandler:
    """Runs a command or a button click through the game service and posts the result."""

    def __init__(
        self,
        service: Any,
        referee_role: str,
        channel_of: Callable[[Place], Any] | None = None,
        *,
        followup_window: float = FOLLOW_UP_WINDOW,
        notices: Any = None,
    ) -> None:
        self.service = service
        self.notices = notices
        """Sends the direct messages of a reply (``bot.discord_ui.notices``; None: none)."""
        self.referee_role = referee_role
        self.followup_window = followup_window
        self._channel_of = channel_of
        self.registry: Registry = build_registry(service.systems)
        self._defer_timers = DeferTimers(DEFER_AFTER)
        """When to show "thinking…": one timer for every interaction in flight."""
        self._late: set[asyncio.Task[None]] = set()
        self.boards = BoardKeeper(service, channel_of) if channel_of is not None else None
        """The games' status boards (None: this handler posts no channel messages)."""

    async def names(
        self, interaction: discord.Interaction[Any], kind: str, typed: str
    ) -> list[str]:
        """Autocomplete: names of ``kind`` in the channel's game."""
        names: list[str] = await self.service.autocomplete(place_of(interaction), kind, typed)
        return names

    async def handle(
        self,
        interaction: discord.Interaction[Any],
        path: tuple[str, ...],
        options: dict[str, Any],
        preview: bool,
    ) -> None:
        """Build the action, call the service, render and send (the ``ActionHandler``); counted
        in the metrics by command and outcome (:mod:`bot.ops.metrics`)."""
        began = time.perf_counter()
        outcome = "error"
        try:
            await self._handle(interaction, path, options, preview)
            outcome = "ok"
        except (RulesError, UserError) as exc:
            outcome = OUTCOMES.get(type(exc), "refused")
            raise
        finally:
            metrics.interaction(" ".join(path), outcome, time.perf_counter() - began)

    async def _handle(
        self,
        interaction: discord.Interaction[Any],
        path: tuple[str, ...],
        options: dict[str, Any],
        preview: bool,
    ) -> None:
        spec = self.registry.find(path)
        values = dict(options)
        if preview:
            values["preview"] = True
        action, preview = build_action(spec, values)
        place, actor = place_of(interaction), actor_of(interaction, self.referee_role)
        rendered: list[tuple[Reply, discord.Embed, Any]] = []

        def prepare(reply: Reply) -> None:  # while the commit is in flight
            rendered.append((reply, *self._render(reply, path, options)))

        board = path == ("game", "board") and self.boards is not None
        if board and options.get("on", True) is not False:  # refused before anything changes
            thread = isinstance(interaction.channel, discord.Thread)
            check_can_post(interaction.app_permissions, thread)

        async def run() -> Reply:
            reply: Reply = await self.service.handle(
                place, actor, str(interaction.id), action, preview=preview, prepare=prepare
            )
            if board and self.boards is not None and not reply.ephemeral:  # post the board
                can_pin = interaction.app_permissions.pin_messages
                reply = await self.boards.show(place, can_pin=can_pin)
            return reply

        call = run()
        ephemeral = path == ("stats",) if path in SLOW_COMMANDS else preview or spec.read_only
        ephemeral = ephemeral or board
        deferring: asyncio.Task[bool] | None = None

        def defer() -> None:
            nonlocal deferring
            deferring = asyncio.ensure_future(self._defer(interaction, ephemeral=ephemeral))

        # The service runs in this task; "thinking…" is shown from a timer only if it is slow
        # (one timer for all interactions in flight, not a second task and asyncio.wait, nor a
        # timer handle of its own, on every interaction).
        timer: DeferTimer | None = None
        if path in SLOW_COMMANDS:
            defer()
        else:
            timer = self._defer_timers.call_later(defer)
        try:
            reply: Reply = await call
        finally:
            if timer is not None:
                timer.cancel()
            if deferring is not None:
                # the action has completed; the defer's own failure (not "already answered")
                # is raised, as before
                answered = await deferring
        if deferring is not None and answered:
            log.info(
                "Interaction %s was delivered again; answered before, nothing rolled",
                interaction.id,
            )
            return
        ready = rendered[0] if rendered and rendered[0][0] is reply else None
        await self.send(interaction, reply, path, options, ready=ready[1:] if ready else None)
        self.logged(place, reply)
        if self.notices is not None:  # by direct message, to the players who chose it
            self.notices.after_reply(place, reply)
        if reply.awaiting_round is not None and not reply.replayed:
            await self.follow_resolution(interaction, place, reply)

    def logged(self, place: Place, reply: Reply) -> None:
        """After a reply of a logged entry was posted: update the game's status board soon."""
        if self.boards is None or reply.seq is None:
            return
        if not (reply.ephemeral or reply.preview or reply.replayed):
            self.boards.touch(place)

    async def follow_resolution(
        self, interaction: discord.Interaction[Any], place: Place, declared: Reply
    ) -> None:
        """A beacon game's declaration was answered (publicly, before its round is out): wait
        for the round, then post the result as a follow-up, or say in one sentence that the
        declaration stays pending (its result is posted in the channel when it comes)."""
        try:
            result: Reply = await self.service.resolution(place, declared)
        except DeclarationPending as exc:
            await interaction.followup.send(exc.user_message)
            # the interaction's follow-ups stay usable for 15 minutes: the result comes there
            task = asyncio.create_task(self._late_resolution(interaction, place, declared))
            self._late.add(task)
            task.add_done_callback(self._late.discard)
            return
        except UserError as exc:
            await interaction.followup.send(exc.user_message)
            return
        await interaction.followup.send(embed=render_embed(result))
        self.logged(place, result)

    async def entry_click(
        self, interaction: discord.Interaction[Any], game: str, seq: int, what: str
    ) -> None:
        """An :class:`EntryButton`: read its command back from log entry ``seq``, then run it
        like any other (the ``EntryHandler``)."""
        action, facts = await self.service.logged_action(place_of(interaction), game, seq)
        if what == "again":
            path = tuple(str(action["action"]).split("."))
            options = {k: v for k, v in action.items() if k != "action" and v is not None}
        else:
            index = int(what.removeprefix("repair."))
            if index >= len(facts) or facts[index][1] != MALFUNCTIONED:
                raise BadCommand(f"Entry #{seq} malfunctioned no such weapon.")
            path, options = ("asl", "repair"), {"weapon": facts[index][0]}
        await self.handle(interaction, path, options, False)

    async def _late_resolution(
        self, interaction: discord.Interaction[Any], place: Place, declared: Reply
    ) -> None:
        created = interaction.created_at.timestamp()
        wait = follow_up_wait(created, time.time(), self.followup_window)
        try:
            result: Reply = await self.service.resolution(place, declared, wait=wait)
        except UserError as exc:  # still pending when follow-ups end (the channel gets it), or
            log.info("Entry %s: %s", declared.seq, exc.user_message)  # cancelled
            return
        try:
            await interaction.followup.send(embed=render_embed(result))
        except discord.HTTPException:  # the interaction's follow-ups ended meanwhile
            if self._channel_of is None:
                log.exception("Could not post the late resolution of entry %s", declared.seq)
                return
            try:
                await self._channel_of(place).send(embed=render_embed(result))
            except discord.HTTPException:
                log.exception("Could not post the late resolution of entry %s", declared.seq)
                return
        self.logged(place, result)

    @staticmethod
    def _render(
        reply: Reply, path: tuple[str, ...], options: dict[str, Any]
    ) -> tuple[discord.Embed, Any]:
        """The embed of ``reply`` and its buttons' view (``MISSING`` without buttons)."""
        buttons = follow_up_buttons(reply, path, options)
        return render_embed(reply), action_view(*buttons) if buttons else discord.utils.MISSING

    @staticmethod
    async def _defer(interaction: discord.Interaction[Any], *, ephemeral: bool) -> bool:
        """Show "thinking…"; True if Discord says the interaction was answered already (a
        redelivery: the service answers it from its log and rolls nothing)."""
        try:
            if interaction.type == discord.InteractionType.component:
                await interaction.response.defer()  # the click's message is edited, then a reply
            else:
                await interaction.response.defer(ephemeral=ephemeral, thinking=True)
        except discord.HTTPException as exc:
            if exc.code == ALREADY_ACKNOWLEDGED:
                return True
            raise
        return False

    async def send(
        self,
        interaction: discord.Interaction[Any],
        reply: Reply,
        path: tuple[str, ...],
        options: dict[str, Any],
        *,
        ready: tuple[discord.Embed, Any] | None = None,
    ) -> None:
        """Post ``reply`` as the interaction's answer (a follow-up if it was deferred);
        ``ready`` is its embed and view if they were rendered already."""
        embed, view = ready if ready is not None else self._render(reply, path, options)
        files = reply_files(reply)
        if reply.stats:
            embed.set_image(url=f"attachment://{files[0].filename}")
        ephemeral = reply.ephemeral or reply.preview
        content: Any = discord.utils.MISSING
        mentions: Any = discord.utils.MISSING
        if reply.notice and reply.mention is not None:  # a turn notice pings the next player
            content = f"<@{reply.mention.id}>, {reply.notice.partition(', ')[2] or reply.notice}"
            mentions = discord.AllowedMentions(
                everyone=False, roles=False, users=[discord.Object(id=reply.mention.id)]
            )
        clicked = (
            interaction.type == discord.InteractionType.component
            and interaction.message is not None
            and not reply.replayed
        )
        try:
            if clicked and not ephemeral and reply.seq is not None:
                await self._mark_used(interaction, reply)
            if interaction.response.is_done():
                await interaction.followup.send(
                    content=content, embed=embed, files=files or discord.utils.MISSING,
                    view=view, ephemeral=ephemeral, allowed_mentions=mentions,
                )  # fmt: skip
            else:
                await answer(
                    interaction, content=content, embed=embed,
                    files=files or discord.utils.MISSING, view=view, ephemeral=ephemeral,
                    allowed_mentions=mentions,
                )  # fmt: skip
        except discord.HTTPException as exc:
            if reply.replayed and exc.code == ALREADY_ACKNOWLEDGED:
                log.info(
                    "Interaction %s was delivered again; answered before, nothing rolled",
                    interaction.id,
                )
                return
            raise

    @staticmethod
    async def _mark_used(interaction: discord.Interaction[Any], reply: Reply) -> None:
        """Disable the clicked button on its message, labelled with the entry it made (a
        proposal's Confirm or Decline settles it: both are disabled); the result then follows as
        a message of its own."""
        message = interaction.message
        data: dict[str, Any] = dict(interaction.data or {})
        custom_id = data.get("custom_id")
        if message is None or not isinstance(custom_id, str):
            return
        label = next(
            (
                str(getattr(child, "label", "") or "")
                for row in message.components
                for child in getattr(row, "children", [row])
                if getattr(child, "custom_id", None) == custom_id
            ),
            "",
        )
        settled = custom_id.startswith(PROPOSAL_BUTTONS)
        view = used_view(message, custom_id, f"{label} ✓ #{reply.seq}", settled=settled)
        if interaction.response.is_done():
            await interaction.edit_original_response(view=view)
        else:
            await update_buttons(interaction, view)


def handler_for(bot: Any) -> DiscordHandler:
    """The bot's one handler (created on first use, buttons installed with it)."""
    handler: DiscordHandler | None = getattr(bot, "action_handler", None)
    if handler is None:
        if bot.game_service is None:
            raise RuntimeError("the game service is not attached to the bot (see bot.cli)")

        def channel_of(place: Place) -> Any:
            return bot.get_partial_messageable(place.channel_id, guild_id=place.guild_id)

        handler = DiscordHandler(
            bot.game_service,
            bot.settings.referee_role,
            channel_of,
            followup_window=bot.settings.followup_window,
            notices=getattr(bot, "notices", None),
        )
        bot.action_handler = handler
        if handler.boards is not None and hasattr(bot, "add_close_hook"):
            bot.add_close_hook(handler.boards.close)
        install_action_buttons(bot, handler.handle, handler.entry_click)
    return handler


def add_group(bot: Any, models: Sequence[type[Any]], group_help: dict[str, str]) -> None:
    """Generate the commands of ``models`` and add them to the bot's tree."""
    from bot.discord_ui.appcommands import build_commands

    handler = handler_for(bot)
    for command in build_commands(models, handler.handle, handler.names, group_help=group_help):
        bot.tree.add_command(command)


def add_system(bot: Any, name: str, group_help: dict[str, str]) -> None:
    """Add the commands of the game system ``name`` (``/asl``…) from its action models."""
    system = handler_for(bot).service.system(name)
    add_group(bot, system.action_types, group_help)


def remove_group(bot: Any, name: str) -> None:
    """Remove the top-level command ``name`` (a cog's teardown)."""
    bot.tree.remove_command(name)


__all__ = [
    "DiscordHandler",
    "actor_of",
    "add_group",
    "add_system",
    "administers",
    "follow_up_buttons",
    "handler_for",
    "place_of",
    "remove_group",
    "reply_files",
]
