"""What the bot posts without being asked: the deadlines' reminders when their timers fire (in
the game's channel, the organiser's alert in theirs), and direct messages to the players who
chose them (``/notify``): their turn notices, reminders and the results of the other side's rolls.

Timers are fired by :meth:`Notices.run`, one loop per process; every process of a bot on one
database runs it, and the database gives each timer to one of them (``GameService.fire_timers``).
A direct message Discord refuses because the player's DMs are closed (error 50007) is recorded
once, said once in the game's channel, and not tried again until the player runs ``/notify``
again: never a retry loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import discord

from bot.models import Place, Reply, UserRef
from bot.render.embed import render_embed
from rules_core.words import counted

log = logging.getLogger(__name__)

CLOSED_DMS = 50007
"""Discord's code for a direct message it refuses: "Cannot send messages to this user"."""
TIMER_POLL = 30.0
"""Seconds between two looks at the timers at most (a timer another process planned is seen by
then; one this process planned is fired on time: the loop wakes for the soonest)."""
CONSOLE_GUILD = 0
"""The console's own games (``bot/console.py``): the console reminds them, not the bot."""


def _now() -> datetime:
    return datetime.now(UTC)


class Notices:
    """Posts the timers' notices and the direct messages of one bot process."""

    def __init__(
        self,
        bot: Any,
        service: Any,
        *,
        clock: Callable[[], datetime] = _now,
        poll: float = TIMER_POLL,
    ) -> None:
        self.bot = bot
        self.service = service
        self.clock = clock
        self.poll = poll
        self.owner = f"bot:{uuid.uuid4().hex}"
        """This process, as it claims timers in the database."""
        self._task: asyncio.Task[None] | None = None
        self._sending: set[asyncio.Task[None]] = set()

    # --- the timers' loop ----------------------------------------------------------------------

    def start(self) -> None:
        """Start firing timers (once the bot can post)."""
        if self._task is None:
            self._task = asyncio.create_task(self.run(), name="deadline timers")

    async def close(self) -> None:
        """Stop the loop; direct messages being sent are finished."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if self._sending:
            await asyncio.gather(*self._sending, return_exceptions=True)

    async def run(self) -> None:
        """Plan every game's timers once, then fire the due ones, sleeping until the soonest
        (at most ``poll`` seconds: another process may have planned a sooner one)."""
        try:
            planned = await self.service.replan_timers()
            if planned:
                log.info("Deadlines: the timers of %s are planned", counted(planned, "game"))
        except Exception:
            log.exception("Could not plan the games' timers; they are planned at their next entry")
        while True:
            sleep = self.poll
            try:
                now = self.clock()
                await self.service.fire_timers(
                    now, self.owner, skip_guild=CONSOLE_GUILD, deliver=self.deliver
                )
                soonest = await self.service.repo.next_timer()
                if soonest is not None:
                    sleep = min(self.poll, max(0.05, soonest / 1000 - now.timestamp()))
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("Deadline timers failed; trying again in %s s", self.poll)
            await asyncio.sleep(sleep)

    async def deliver(self, notice: Any) -> None:
        """Post a fired timer's notice in its channel (mentioning its player) and by DM to
        those who chose so. A refusal by Discord is logged; the timer counts as fired."""
        reply: Reply = notice.reply
        try:
            await self._post(notice.place, reply)
        except discord.HTTPException:
            log.exception("Could not post a deadline notice in channel %s", notice.place.channel_id)
        for user in notice.dm:
            await self.direct(notice.place, user, reply)

    async def _post(self, place: Place, reply: Reply) -> None:
        channel = self.bot.get_partial_messageable(place.channel_id, guild_id=place.guild_id)
        content: Any = discord.utils.MISSING
        mentions: Any = discord.utils.MISSING
        if reply.notice and reply.mention is not None:
            content = f"<@{reply.mention.id}>, {reply.notice.partition(', ')[2] or reply.notice}"
            mentions = discord.AllowedMentions(
                everyone=False, roles=False, users=[discord.Object(id=reply.mention.id)]
            )
        await channel.send(content=content, embed=render_embed(reply), allowed_mentions=mentions)

    # --- direct messages ------------------------------------------------------------------------

    def after_reply(self, place: Place, reply: Reply) -> None:
        """After an answer was posted in a game's channel: its turn notice to the player it
        names, and a result that rolled dice to the other seated players, by DM if they chose so
        (in the background: the answer never waits for it)."""
        if reply.ephemeral or reply.preview or reply.replayed:
            return
        users = [*([reply.mention] if reply.mention is not None else []), *reply.notify]
        if not users:
            return
        task = asyncio.create_task(self._tell(place, reply, users))
        self._sending.add(task)
        task.add_done_callback(self._sending.discard)

    async def _tell(self, place: Place, reply: Reply, users: list[UserRef]) -> None:
        seen: set[int] = set()
        for user in users:
            if user.id not in seen:
                seen.add(user.id)
                await self.direct(place, user, reply)

    async def direct(self, place: Place, user: UserRef, reply: Reply) -> None:
        """Send ``reply`` to ``user`` by DM if they chose so and Discord has not refused them
        before; a first refusal (closed DMs) is recorded and said once in the game's channel."""
        repo = self.service.repo
        try:
            choice = await repo.notify(user.id)
            if choice is None or not choice.dm or choice.refused is not None:
                return
            content = reply.notice if reply.notice and reply.mention == user else None
            channel = await self.bot.create_dm(discord.Object(id=user.id))
            await channel.send(content=content, embed=render_embed(reply))
        except discord.Forbidden as exc:
            if exc.code != CLOSED_DMS:
                log.warning("Discord refused a direct message to %s: %s", user.id, exc)
                return
            if await repo.dm_refused(user.id, int(self.clock().timestamp() * 1000)):
                await self._say_refused(place, user)
        except discord.HTTPException as exc:
            log.warning("Could not send a direct message to %s: %s", user.id, exc)
        except Exception:
            log.exception("Could not send a direct message to %s", user.id)

    async def _say_refused(self, place: Place, user: UserRef) -> None:
        channel = self.bot.get_partial_messageable(place.channel_id, guild_id=place.guild_id)
        text = (
            f"<@{user.id}>, Discord refused my direct message (your DMs are closed to me), so "
            "your notices come only here; open your DMs and run /notify to have them again."
        )
        mentions = discord.AllowedMentions(
            everyone=False, roles=False, users=[discord.Object(id=user.id)]
        )
        try:
            await channel.send(content=text, allowed_mentions=mentions)
        except discord.HTTPException:
            log.exception("Could not say in channel %s that DMs are closed", place.channel_id)


__all__ = ["CLOSED_DMS", "TIMER_POLL", "Notices"]
