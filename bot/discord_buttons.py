"""Buttons that run a command with preset options ("Repair" under a malfunction, "Roll again").

An :class:`ActionButton` carries its command path and options in its ``custom_id``
(``act:asl.repair:{"weapon":"MMG"}``), so a click runs the same handler as the slash command —
with the same permission checks and the same log — and buttons keep working after the bot
restarts (they are ``DynamicItem``s, not views that live in memory). ``custom_id`` holds at most
100 characters, so the options must be short: names, not descriptions.

Install once in ``setup_hook`` (or a cog's ``setup``) with :func:`install_action_buttons`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, ClassVar

import discord

from bot.appcommands import ActionHandler
from bot.discord_tree import report_error

PREFIX = "act"
CUSTOM_ID_LIMIT = 100


def action_custom_id(path: tuple[str, ...], options: Mapping[str, Any]) -> str:
    """The ``custom_id`` of a button running ``/path`` with ``options``.

    >>> action_custom_id(("asl", "repair"), {"weapon": "MMG"})
    'act:asl.repair:{"weapon":"MMG"}'
    """
    text = json.dumps(dict(options), separators=(",", ":"), sort_keys=True)
    custom_id = f"{PREFIX}:{'.'.join(path)}:{text}"
    if len(custom_id) > CUSTOM_ID_LIMIT:
        raise ValueError(f"{custom_id!r} is longer than Discord's {CUSTOM_ID_LIMIT} characters")
    return custom_id


class ActionButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"{PREFIX}:(?P<path>[a-z0-9_-]+(?:\.[a-z0-9_-]+){{0,2}}):(?P<options>\{{.*\}})",
):
    """A button that runs ``path`` with ``options`` through the installed handler."""

    handler: ClassVar[ActionHandler | None] = None

    def __init__(
        self,
        path: tuple[str, ...],
        options: Mapping[str, Any],
        *,
        label: str,
        style: discord.ButtonStyle = discord.ButtonStyle.secondary,
    ) -> None:
        self.path = path
        self.options = dict(options)
        button: discord.ui.Button[Any] = discord.ui.Button(
            label=label, style=style, custom_id=action_custom_id(path, options)
        )
        super().__init__(button)

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> ActionButton:
        path = tuple(match["path"].split("."))
        options = json.loads(match["options"])
        if isinstance(item, discord.ui.Button):
            return cls(path, options, label=item.label or "", style=item.style)
        return cls(path, options, label="")

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        handler = type(self).handler
        try:
            if handler is None:
                raise RuntimeError("no handler installed for action buttons")
            await handler(interaction, self.path, dict(self.options), False)
        except Exception as exc:
            await report_error(interaction, exc)


def action_view(*buttons: ActionButton) -> discord.ui.View:
    """A view holding ``buttons``, to send under a result (it needs no timeout)."""
    view = discord.ui.View(timeout=None)
    for button in buttons:
        view.add_item(button)
    return view


def install_action_buttons(client: discord.Client, handler: ActionHandler) -> None:
    """Route clicks on every :class:`ActionButton` (also on messages of earlier runs) to
    ``handler``, the same ``(interaction, path, options, preview)`` the slash commands use."""
    ActionButton.handler = handler
    client.add_dynamic_items(ActionButton)


__all__ = [
    "ActionButton",
    "action_custom_id",
    "action_view",
    "install_action_buttons",
]
