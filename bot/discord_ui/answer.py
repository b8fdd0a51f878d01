"""Answering an interaction (a message, or a click's new buttons) without asking Discord to echo
the message back.

discord.py 2.7's ``InteractionResponse.send_message`` always posts the callback with
``?with_response=1`` (hard-coded in its webhook adapter): Discord then answers with the message it
created, and discord.py parses it into an ``InteractionMessage`` (embed, author, components) that
the bot never reads. Without ``with_response`` Discord answers ``204 No Content``. :func:`answer`
posts the same callback body without asking for the echo, and keeps discord.py's bookkeeping as
``send_message`` does: the response is marked done (``is_done()``, follow-ups), and a view is
stored as ``send_message`` stores it. The POST itself (:func:`post_callback`) meets Discord's
answers as discord.py's webhook adapter does (a 429's wait and retry, the errors it raises, a
5xx tried again, an exhausted bucket held), on discord.py's own HTTP session, with less work per
request; a body with files goes through the adapter itself.

Only a view made wholly of dynamic items (the bot's :class:`~bot.discord_ui.buttons.ActionButton`
and :class:`~bot.discord_ui.buttons.EntryButton`) goes this way: its clicks are routed by the
items' ``custom_id`` pattern, never by the message's id, which without the echo is not known. Any
other view, and anything that is not discord.py's own interaction response (a test's stand-in),
is sent by ``send_message`` itself. The bot reads the answer later only through
``edit_original_response`` (``@original``, no id needed); ``original_response()`` fetches it.
:func:`update_buttons` does the same for ``edit_message(view=…)`` on a clicked message.
Follow-ups and defers still go through discord.py (its follow-ups always wait for the message).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any
from urllib.parse import quote

import aiohttp
import discord
import orjson
import yarl
from discord.http import Route, json_or_text
from discord.utils import MISSING
from discord.webhook.async_ import async_context, interaction_message_response_params

log = logging.getLogger(__name__)

EPHEMERAL_VIEW_TIMEOUT = 15 * 60.0
"""The timeout discord.py gives a view without one on an ephemeral message (``send_message``)."""


def echo_free(view: Any) -> bool:
    """Whether a message with ``view`` can be answered without the echo: no view, or one whose
    every item is a ``DynamicItem`` (dispatched by its ``custom_id``, whatever the message)."""
    if view is MISSING:
        return True
    return isinstance(view, discord.ui.View) and all(
        isinstance(item, discord.ui.DynamicItem) for item in view.walk_children()
    )


async def answer(
    interaction: discord.Interaction[Any],
    *,
    content: Any = MISSING,
    embed: discord.Embed = MISSING,
    files: list[discord.File] = MISSING,
    view: discord.ui.View = MISSING,
    ephemeral: bool = False,
    allowed_mentions: discord.AllowedMentions = MISSING,
) -> None:
    """Answer ``interaction`` with a message (callback type 4), as
    ``interaction.response.send_message`` would, without Discord's echo of the message.

    Raises ``discord.InteractionResponded`` if it was answered already and
    ``discord.HTTPException`` if Discord refuses it, as ``send_message`` does.
    """
    response = interaction.response
    if not isinstance(response, discord.InteractionResponse) or not echo_free(view):
        await response.send_message(
            content=content, embed=embed, files=files, view=view, ephemeral=ephemeral,
            allowed_mentions=allowed_mentions,
        )  # fmt: skip
        return
    if response.is_done():
        raise discord.InteractionResponded(interaction)
    state = interaction._state
    params = interaction_message_response_params(
        type=discord.InteractionResponseType.channel_message.value,
        content=content,
        embed=embed,
        files=files,
        view=view,
        flags=discord.MessageFlags(ephemeral=True) if ephemeral else MISSING,
        previous_allowed_mentions=state.allowed_mentions,
        allowed_mentions=allowed_mentions,
    )
    await _post_callback(interaction, params)
    response._response_type = discord.InteractionResponseType.channel_message
    if view is not MISSING and not view.is_finished():
        if ephemeral and view.timeout is None:
            view.timeout = EPHEMERAL_VIEW_TIMEOUT
        state.store_view(view)  # wholly dynamic: nothing is kept by message id


async def update_buttons(interaction: discord.Interaction[Any], view: discord.ui.View) -> None:
    """Answer a button's click by replacing the buttons of its message with ``view`` (callback
    type 7), as ``interaction.response.edit_message(view=view)`` would, without Discord's echo.

    ``view`` is markup only (:func:`~bot.discord_ui.buttons.used_view`: the clicked button
    disabled, the others as they were): every enabled button on the bot's messages is served by
    its dynamic item's ``custom_id`` pattern, so the view is not stored. (``edit_message`` would
    store it under the message's id for the life of the process, one view per clicked message.)
    """
    response = interaction.response
    if not isinstance(response, discord.InteractionResponse):
        await response.edit_message(view=view)
        return
    if response.is_done():
        raise discord.InteractionResponded(interaction)
    state = interaction._state
    params = interaction_message_response_params(
        type=discord.InteractionResponseType.message_update.value,
        view=view,
        previous_allowed_mentions=state.allowed_mentions,
    )
    await _post_callback(interaction, params)
    response._response_type = discord.InteractionResponseType.message_update


CALLBACK_HEADERS = {"Content-Type": "application/json"}
"""The headers of a callback: discord.py's webhook adapter sends no others for it (no token: the
interaction's own token in the URL is the authority)."""
ATTEMPTS = 5
"""Tries of one callback, as discord.py's webhook adapter makes (a 429 with ``Via``, a 5xx, a
connection reset)."""


async def _post_callback(interaction: discord.Interaction[Any], params: Any) -> None:
    """POST the interaction's callback without ``with_response`` (Discord answers 204).

    A body with files goes through discord.py's webhook adapter (multipart). A JSON body is
    posted by :func:`post_callback`: the same request, lighter (see there)."""
    http = interaction._state.http
    if params.files:
        route = Route(
            "POST",
            "/interactions/{webhook_id}/{webhook_token}/callback",
            webhook_id=interaction.id,
            webhook_token=interaction.token,
        )
        await async_context.get().request(
            route, session=interaction._session, proxy=http.proxy, proxy_auth=http.proxy_auth,
            multipart=params.multipart, files=params.files,
        )  # fmt: skip
        return
    await post_callback(
        interaction._session, interaction.id, interaction.token, orjson.dumps(params.payload),
        proxy=http.proxy, proxy_auth=http.proxy_auth,
    )  # fmt: skip


async def post_callback(
    session: aiohttp.ClientSession,
    interaction_id: int,
    token: str,
    body: bytes,
    *,
    proxy: str | None = None,
    proxy_auth: aiohttp.BasicAuth | None = None,
) -> None:
    """POST ``body`` (JSON) as the callback of interaction ``interaction_id``, as discord.py's
    ``AsyncWebhookAdapter.request`` posts it, with its answers to what Discord says kept:

    - 2xx: done; ``X-RateLimit-Remaining: 0`` holds the callback route's bucket (and this call)
      for the ``X-RateLimit-Reset-After`` it gives, as the adapter's deferred lock does;
    - 429 with a ``Via`` header (Discord's): waits its ``retry_after`` and tries again; without
      one (Cloudflare's ban): ``HTTPException`` at once;
    - 5xx: tries again after 1, 3, 5, 7 s, then ``DiscordServerError``; 403 ``Forbidden``,
      404 ``NotFound``, any other ``HTTPException``, each with Discord's JSON (its ``code``);
    - a connection reset (errno 54, 10054): tries again, as the adapter does.

    What it saves, per answer (docs/PERFORMANCE.md, issue 21): discord.py's ``Route`` (its URL
    formatted and parsed again by aiohttp), the adapter's lock made and dropped for a bucket
    that is this one interaction's (a request of the same bucket already in flight is still
    waited for), the JSON's text encoded to bytes again by aiohttp's payload registry, and the
    reading of an empty 204 body. Up to five tries, as the adapter.
    """
    url = _callback_url(interaction_id, token)
    locks = async_context.get()._locks
    bucket = (interaction_id, token)
    lock: asyncio.Lock | None = locks.get(bucket)
    if lock is not None:  # discord.py sent on this interaction's callback route: wait for it
        await lock.acquire()
    hold = 0.0
    try:
        response: aiohttp.ClientResponse | None = None
        data: Any = None
        for attempt in range(ATTEMPTS):
            try:
                async with session.post(
                    url, data=body, headers=CALLBACK_HEADERS, proxy=proxy, proxy_auth=proxy_auth
                ) as response:
                    status = response.status
                    data = None if status == 204 else await json_or_text(response)
                    remaining = response.headers.get("X-Ratelimit-Remaining")
                    if remaining == "0" and status != 429:
                        hold = discord.utils._parse_ratelimit_header(response)
                    if 300 > status >= 200:
                        return
                    if status == 429:
                        if not response.headers.get("Via"):
                            raise discord.HTTPException(response, data)
                        retry_after = float(data["retry_after"])
                        log.warning(
                            "Interaction %s's callback is rate limited. Retrying in %.2f seconds.",
                            interaction_id, retry_after,
                        )  # fmt: skip
                        await asyncio.sleep(retry_after)
                        continue
                    if status >= 500:
                        await asyncio.sleep(1 + attempt * 2)
                        continue
                    if status == 403:
                        raise discord.Forbidden(response, data)
                    if status == 404:
                        raise discord.NotFound(response, data)
                    raise discord.HTTPException(response, data)
            except OSError as exc:
                if attempt < ATTEMPTS - 1 and exc.errno in (54, 10054):
                    await asyncio.sleep(1 + attempt * 2)
                    continue
                raise
        if response is None:
            raise RuntimeError("Unreachable code in HTTP handling.")  # as the adapter
        if response.status >= 500:
            raise discord.DiscordServerError(response, data)
        raise discord.HTTPException(response, data)
    finally:
        if hold > 0 and lock is None:
            lock = locks.setdefault(bucket, asyncio.Lock())
            await lock.acquire()
        try:
            if hold > 0:
                await asyncio.sleep(hold)
        finally:
            if lock is not None:
                lock.release()


def _callback_url(interaction_id: int, token: str) -> yarl.URL:
    """The callback's URL, as discord.py's ``Route`` makes it (``Route.BASE``, the token quoted),
    given to aiohttp already encoded: it is not parsed and quoted again."""
    path = f"/interactions/{interaction_id}/{quote(token, safe='')}/callback"
    return yarl.URL(Route.BASE + path, encoded=True)


__all__ = ["answer", "echo_free", "post_callback", "update_buttons"]
