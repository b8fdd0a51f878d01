"""The status board in Discord: one message per game, kept up to date in place.

``/game board`` posts the board of the channel's game as a message of the channel (or updates
the one it already has; a board message someone deleted is posted anew) and pins it where the
bot has the Pin Messages permission. After every logged action in that game made through this
bot process (a command, a button, a beacon result), :class:`BoardKeeper` edits the message in
place. Edits are coalesced: a burst of actions makes at most one edit per :data:`BOARD_INTERVAL`
seconds per board, so Discord's rate limits are never reached by boards. A board message that
was deleted (Discord's 10008 Unknown Message) is posted again once and the new message is kept.
An action typed in ``referee console`` (another process) does not reach this process, so the
board catches up at the next action made in Discord.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import Any

import discord

from bot.errors import Unavailable, UserError
from bot.models import Place, Reply
from bot.ops.logs import FAILURES
from bot.render.embed import render_embed

log = logging.getLogger(__name__)

BOARD_INTERVAL = 1.0
"""At least this many seconds between two edits of one board (a burst makes one edit)."""

UNKNOWN_MESSAGE = 10008


class NoBoardHere(UserError):
    """The bot may not post the board in this channel."""


def check_can_post(permissions: discord.Permissions, thread: bool) -> None:
    """Refuse ``/game board`` in one sentence when the bot may not post an embed here.

    >>> check_can_post(discord.Permissions(send_messages=True, embed_links=True), False)
    >>> try:
    ...     check_can_post(discord.Permissions(send_messages=True), False)
    ... except NoBoardHere as exc:
    ...     print(exc.user_message.split(": ", 1)[1])
    give me the Embed Links permission in this channel, then run /game board again.
    """
    send = permissions.send_messages_in_threads if thread else permissions.send_messages
    missing = [
        name
        for name, held in (
            ("Send Messages in Threads" if thread else "Send Messages", send),
            ("Embed Links", permissions.embed_links),
        )
        if not held
    ]
    if missing:
        raise NoBoardHere(
            f"I may not post the board here: give me the {' and '.join(missing)} "
            f"permission{'s' if len(missing) > 1 else ''} in this channel, then run /game board "
            "again."
        )


class BoardKeeper:
    """Posts, pins and edits the boards of the games this process serves."""

    def __init__(
        self,
        service: Any,
        channel_of: Callable[[Place], Any],
        *,
        interval: float = BOARD_INTERVAL,
    ) -> None:
        self.service = service
        self._channel_of = channel_of
        """The messageable of a place (``bot.get_partial_messageable``)."""
        self.interval = interval
        self._dirty: set[tuple[int, int]] = set()
        self._tasks: dict[tuple[int, int], asyncio.Task[None]] = {}
        self._last: dict[tuple[int, int], float] = {}
        self._locks: dict[tuple[int, int], asyncio.Lock] = {}

    def _lock(self, key: tuple[int, int]) -> asyncio.Lock:
        return self._locks.setdefault(key, asyncio.Lock())

    async def show(self, place: Place, can_pin: bool) -> Reply:
        """``/game board``: post the board (or update the message it has), pin it if
        ``can_pin``; the ephemeral answer, saying once if it could not pin."""
        key = (place.guild_id, place.channel_id)
        async with self._lock(key):
            found = await self.service.board_of(place)
            if found is None:  # turned off meanwhile
                return Reply(command="/game board", title="Status board off", ephemeral=True)
            reply, saved = found
            message = await self._edit(place, saved.message_id, reply)
            moved = message is None and saved.message_id is not None
            if message is None:
                message = await self._post(place, saved.game_id, reply)
            self._last[key] = time.monotonic()
        pinned = message.pinned
        if not pinned and can_pin:
            with contextlib.suppress(discord.Forbidden):
                await message.pin(reason="The game's status board")
                pinned = True
        where = "posted again (the old one was deleted)" if moved else "posted"
        fields = [("Board", message.jump_url)]  # a link in a field can be clicked (in a title not)
        if pinned:
            title = f"Status board {where} and pinned"
        else:
            title = f"Status board {where} but not pinned"
            fields.append(("Pin", "Give me the Pin Messages permission in this channel to have it "
                                  "pinned."))  # fmt: skip
        fields.append(("Updates", "After every action in this game"))
        return Reply(command="/game board", title=title, fields=tuple(fields), ephemeral=True)

    def touch(self, place: Place) -> None:
        """A logged action changed the place's game: update its board soon (coalesced)."""
        key = (place.guild_id, place.channel_id)
        self._dirty.add(key)
        if key not in self._tasks:
            self._tasks[key] = asyncio.create_task(self._run(key, place))

    async def close(self) -> None:
        """Stop the pending updates."""
        for task in list(self._tasks.values()):
            task.cancel()
        for task in list(self._tasks.values()):
            with contextlib.suppress(BaseException):
                await task

    async def _run(self, key: tuple[int, int], place: Place) -> None:
        try:
            while key in self._dirty:
                wait = self._last.get(key, float("-inf")) + self.interval - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
                self._dirty.discard(key)
                try:
                    await self._update(key, place)
                except Unavailable as exc:  # the database: counted, one line per kind
                    FAILURES.note(exc.kind, exc.user_message)
                except Exception:  # a board must never break the game
                    log.exception("Could not update the status board of channel %s", key[1])
                self._last[key] = time.monotonic()
        finally:
            self._tasks.pop(key, None)

    async def _update(self, key: tuple[int, int], place: Place) -> None:
        async with self._lock(key):
            found = await self.service.board_of(place)
            if found is None:
                return
            reply, saved = found
            if saved.message_id is None:  # turned on in the console: posted by /game board
                return
            if await self._edit(place, saved.message_id, reply) is not None:
                return
            message = await self._post(place, saved.game_id, reply)  # deleted: posted once more
        with contextlib.suppress(discord.HTTPException):
            await message.pin(reason="The game's status board")

    async def _edit(self, place: Place, message_id: int | None, reply: Reply) -> Any:
        """Edit the board message; None if there is none or it was deleted."""
        if message_id is None:
            return None
        message = self._channel_of(place).get_partial_message(message_id)
        try:
            return await message.edit(embed=render_embed(reply))
        except discord.NotFound as exc:
            if exc.code != UNKNOWN_MESSAGE:
                raise
            return None

    async def _post(self, place: Place, game_id: int, reply: Reply) -> Any:
        message = await self._channel_of(place).send(embed=render_embed(reply))
        await self.service.board_posted(place, game_id, message.id)
        return message


__all__ = ["BOARD_INTERVAL", "BoardKeeper", "NoBoardHere", "check_can_post"]
