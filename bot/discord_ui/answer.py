"""Answering an interaction (a message, or a click's new buttons) without asking Discord to echo
the message back.

discord.py 2.7's ``InteractionResponse.send_message`` always posts the callback with
``?with_response=1`` (hard-coded in its webhook adapter): Discord then answers with the message it
created, and discord.py parses it into an ``InteractionMessage`` (embed, author, components) that
the bot never reads. Without ``with_response`` Discord answers ``204 No Content``. :func:`answer`
posts the same callback body, through discord.py's own webhook adapter (its rate-limit lock,
retries and errors), without asking for the echo, and keeps discord.py's bookkeeping as
``send_message`` does: the response is marked done (``is_done()``, follow-ups), and a view is
stored as ``send_message`` stores it.

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

from typing import Any

import discord
from discord.http import Route
from discord.utils import MISSING
from discord.webhook.async_ import async_context, interaction_message_response_params

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


async def _post_callback(interaction: discord.Interaction[Any], params: Any) -> None:
    """POST the interaction's callback without ``with_response`` (Discord answers 204)."""
    route = Route(
        "POST",
        "/interactions/{webhook_id}/{webhook_token}/callback",
        webhook_id=interaction.id,
        webhook_token=interaction.token,
    )
    http = interaction._state.http
    await async_context.get().request(
        route,
        session=interaction._session,
        proxy=http.proxy,
        proxy_auth=http.proxy_auth,
        payload=None if params.files else params.payload,
        multipart=params.multipart if params.files else None,
        files=params.files or None,
    )


__all__ = ["answer", "echo_free", "update_buttons"]
