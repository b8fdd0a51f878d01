"""Discord's form checks on what a bot sends, as Discord applies them (400, error 50035).

One function per kind of body: :func:`check_message` for a message a bot creates or edits (an
interaction's callback, a follow-up, an edit of either, a channel message and its edits),
:func:`check_choices` for autocomplete choices. They raise :class:`FormError` naming the first
limit broken; the fake Discord answers that with 400 / 50035 Invalid Form Body. Tests that render
replies without a bot call them directly on ``embed.to_dict()`` and ``view.to_components()``.

Limits per message: content ≤ 2,000 characters; ≤ 10 embeds; the **sum** over every embed of
its title, description, field names and values, footer text and author name ≤ 6,000 characters
(Discord's MAX_EMBED_SIZE_EXCEEDED: two embeds of 4,000 each are refused together though each
fits alone). Per embed: title ≤ 256, description ≤ 4,096, ≤ 25 fields, a field's name ≤ 256 and
value ≤ 1,024 (neither empty), footer ≤ 2,048, author name ≤ 256. Components: ≤ 5 action rows,
≤ 5 buttons in a row or one select menu, a custom id of 1-100 characters, a button label
≤ 80, a select of ≤ 25 options (label, value and description ≤ 100 each, placeholder ≤ 150).
Autocomplete: ≤ 25 choices, a name of 1-100 characters, a string value ≤ 100.

>>> try:
...     check_message({"embeds": [{"description": "x" * 4000}, {"description": "y" * 2001}]})
... except FormError as exc:
...     print(exc)
embeds: 6001 characters in all, more than 6000 (MAX_EMBED_SIZE_EXCEEDED)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

CONTENT = 2000
EMBEDS = 10
EMBEDS_TOTAL = 6000
TITLE = 256
DESCRIPTION = 4096
FIELDS = 25
FIELD_NAME = 256
FIELD_VALUE = 1024
FOOTER = 2048
AUTHOR_NAME = 256
ACTION_ROWS = 5
BUTTONS_PER_ROW = 5
CUSTOM_ID = 100
BUTTON_LABEL = 80
SELECT_OPTIONS = 25
SELECT_TEXT = 100
SELECT_PLACEHOLDER = 150
CHOICES = 25
CHOICE_TEXT = 100

ACTION_ROW, BUTTON, LINK_STYLE = 1, 2, 5
SELECTS = (3, 5, 6, 7, 8)
"""Component types of select menus (string, user, role, mentionable, channel)."""


class FormError(ValueError):
    """A body Discord refuses: ``str(error)`` names the limit."""


def check_message(data: Mapping[str, Any]) -> None:
    """Discord's checks on a message body (content, embeds, components); see the module."""
    content = str(data.get("content") or "")
    if len(content) > CONTENT:
        raise FormError(f"content: {len(content)} characters, more than {CONTENT}")
    embeds = data.get("embeds") or []
    if len(embeds) > EMBEDS:
        raise FormError(f"embeds: {len(embeds)} embeds, more than {EMBEDS}")
    total = sum(_embed_size(index, embed) for index, embed in enumerate(embeds))
    if total > EMBEDS_TOTAL:
        raise FormError(
            f"embeds: {total} characters in all, more than {EMBEDS_TOTAL} (MAX_EMBED_SIZE_EXCEEDED)"
        )
    check_components(data.get("components") or [])


def _text(where: str, value: Any, limit: int, *, required: bool = False) -> int:
    size = len(str(value or ""))
    if size > limit:
        raise FormError(f"{where}: {size} characters, more than {limit}")
    if required and size == 0:
        raise FormError(f"{where}: must not be empty")
    return size


def _embed_size(index: int, embed: Mapping[str, Any]) -> int:
    """The characters of one embed that count towards the message's 6,000."""
    where = f"embeds.{index}"
    size = _text(f"{where}.title", embed.get("title"), TITLE)
    size += _text(f"{where}.description", embed.get("description"), DESCRIPTION)
    fields = embed.get("fields") or []
    if len(fields) > FIELDS:
        raise FormError(f"{where}.fields: {len(fields)} fields, more than {FIELDS}")
    for number, item in enumerate(fields):
        size += _text(f"{where}.fields.{number}.name", item.get("name"), FIELD_NAME, required=True)
        size += _text(
            f"{where}.fields.{number}.value", item.get("value"), FIELD_VALUE, required=True
        )
    size += _text(f"{where}.footer.text", (embed.get("footer") or {}).get("text"), FOOTER)
    size += _text(f"{where}.author.name", (embed.get("author") or {}).get("name"), AUTHOR_NAME)
    return size


def check_components(rows: Sequence[Mapping[str, Any]]) -> None:
    """Action rows of buttons or of one select menu, within Discord's limits."""
    if len(rows) > ACTION_ROWS:
        raise FormError(f"components: {len(rows)} action rows, more than {ACTION_ROWS}")
    for index, row in enumerate(rows):
        where = f"components.{index}"
        if row.get("type") != ACTION_ROW:
            raise FormError(f"{where}: a message's top-level components are action rows")
        items = row.get("components") or []
        selects = [item for item in items if item.get("type") in SELECTS]
        if not items or (selects and len(items) > 1) or len(items) > BUTTONS_PER_ROW:
            raise FormError(f"{where}: 1 to {BUTTONS_PER_ROW} buttons or one select menu")
        for number, item in enumerate(items):
            _check_item(f"{where}.components.{number}", item)


def _check_item(where: str, item: Mapping[str, Any]) -> None:
    if item.get("type") == BUTTON:
        _text(f"{where}.label", item.get("label"), BUTTON_LABEL)
        if item.get("style") == LINK_STYLE:
            _text(f"{where}.url", item.get("url"), 512, required=True)
            return
    elif item.get("type") in SELECTS:
        _text(f"{where}.placeholder", item.get("placeholder"), SELECT_PLACEHOLDER)
        options = item.get("options") or []
        if len(options) > SELECT_OPTIONS:
            raise FormError(f"{where}.options: {len(options)} options, more than {SELECT_OPTIONS}")
        for number, option in enumerate(options):
            for key in ("label", "value", "description"):
                required = key != "description"
                _text(f"{where}.options.{number}.{key}", option.get(key), SELECT_TEXT,
                      required=required)  # fmt: skip
    else:
        raise FormError(f"{where}: component type {item.get('type')} is not a button or a select")
    _text(f"{where}.custom_id", item.get("custom_id"), CUSTOM_ID, required=True)


def check_choices(data: Mapping[str, Any]) -> None:
    """An autocomplete answer: at most 25 choices, names of 1-100 characters, values ≤ 100."""
    choices = data.get("choices") or []
    if len(choices) > CHOICES:
        raise FormError(f"choices: {len(choices)} choices, more than {CHOICES}")
    for number, choice in enumerate(choices):
        _text(f"choices.{number}.name", choice.get("name"), CHOICE_TEXT, required=True)
        if isinstance(choice.get("value"), str):
            _text(f"choices.{number}.value", choice["value"], CHOICE_TEXT)


__all__ = ["FormError", "check_choices", "check_components", "check_message"]
