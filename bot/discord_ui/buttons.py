"""Buttons that run a command ("Repair" under a malfunction, "Roll again", "Older entries").

Two kinds, both ``DynamicItem``s (not views that live in memory), so they keep working after the
bot restarts, and both run the same handler as the slash commands — with the same permission
checks and the same log:

* An :class:`ActionButton` carries its command path and options in its ``custom_id``
  (``act:game.log:{"before":18,"last":17}``); Discord's ``custom_id`` holds at most 100
  characters, so only short options fit.
* An :class:`EntryButton` carries only the log entry it sits under (``entry:3f2a…:12:again``):
  what it runs is read back from that logged entry on the server ("Roll again" repeats the
  entry's action with all its options, "Repair" names the weapon of the entry's n-th fact), so
  any payload fits.

A click that succeeds disables the clicked button on its message, labelled with the entry it made
(``Repair LMG ✓ #9``), so a used button cannot be clicked again.

Install once in ``setup_hook`` (or a cog's ``setup``) with :func:`install_action_buttons`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, ClassVar

import discord

from bot.discord_ui.appcommands import ActionHandler
from bot.discord_ui.tree import report_error

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


ENTRY_PREFIX = "entry"
GAME_ID_CHARS = 16
"""The game id's first hex digits in an entry button: enough to tell a channel's games apart."""

EntryHandler = Callable[[discord.Interaction[Any], str, int, str], Awaitable[None]]
"""``(interaction, game id prefix, entry number, what)``: runs an entry button's click."""


def entry_custom_id(game_id: str, seq: int, what: str) -> str:
    """The ``custom_id`` of a button that acts on log entry ``seq`` of the game ``game_id``.

    >>> entry_custom_id("3f2a9c0d" * 4, 12, "again")
    'entry:3f2a9c0d3f2a9c0d:12:again'
    """
    return f"{ENTRY_PREFIX}:{game_id[:GAME_ID_CHARS]}:{seq}:{what}"


class EntryButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"{ENTRY_PREFIX}:(?P<game>[0-9a-f]{{1,32}}):(?P<seq>[0-9]{{1,9}}):"
    r"(?P<what>again|repair\.[0-9]{1,2})",
):
    """A button whose command is read back from the log entry it sits under."""

    handler: ClassVar[EntryHandler | None] = None

    def __init__(
        self,
        game_id: str,
        seq: int,
        what: str,
        *,
        label: str,
        style: discord.ButtonStyle = discord.ButtonStyle.secondary,
    ) -> None:
        self.game_id, self.seq, self.what = game_id[:GAME_ID_CHARS], seq, what
        button: discord.ui.Button[Any] = discord.ui.Button(
            label=label, style=style, custom_id=entry_custom_id(game_id, seq, what)
        )
        super().__init__(button)

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> EntryButton:
        label = item.label or "" if isinstance(item, discord.ui.Button) else ""
        return cls(match["game"], int(match["seq"]), match["what"], label=label)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        handler = type(self).handler
        try:
            if handler is None:
                raise RuntimeError("no handler installed for entry buttons")
            await handler(interaction, self.game_id, self.seq, self.what)
        except Exception as exc:
            await report_error(interaction, exc)


def used_view(
    message: discord.Message, custom_id: str, label: str, *, settled: bool = False
) -> discord.ui.View:
    """The message's buttons again, the one with ``custom_id`` disabled and relabelled; with
    ``settled`` (a proposal confirmed or declined) every other one disabled too."""
    view = discord.ui.View(timeout=None)
    for row, component in enumerate(message.components):
        children = getattr(component, "children", [component])
        for child in children:
            if not isinstance(child, discord.Button):
                continue
            used = child.custom_id == custom_id
            view.add_item(
                discord.ui.Button(
                    label=label[:80] if used else child.label,
                    style=child.style,
                    custom_id=child.custom_id,
                    url=child.url,
                    disabled=child.disabled or used or settled,
                    row=min(row, 4),
                )
            )
    return view


def action_view(*buttons: discord.ui.Item[Any]) -> discord.ui.View:
    """A view holding ``buttons``, to send under a result (it needs no timeout)."""
    view = discord.ui.View(timeout=None)
    for button in buttons:
        view.add_item(button)
    return view


def install_action_buttons(
    client: discord.Client, handler: ActionHandler, entries: EntryHandler | None = None
) -> None:
    """Route clicks on every :class:`ActionButton` (also on messages of earlier runs) to
    ``handler``, the same ``(interaction, path, options, preview)`` the slash commands use, and
    clicks on every :class:`EntryButton` to ``entries``."""
    ActionButton.handler = handler
    client.add_dynamic_items(ActionButton)
    if entries is not None:
        EntryButton.handler = entries
        client.add_dynamic_items(EntryButton)


__all__ = [
    "ActionButton",
    "EntryButton",
    "action_custom_id",
    "action_view",
    "entry_custom_id",
    "install_action_buttons",
    "used_view",
]
