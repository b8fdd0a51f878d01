"""Slash commands generated from action models, so Discord and the console never drift.

The convention is the one of :mod:`rules_core.system`: the ``action`` literal is the command path
(``"asl.unit.add"`` is ``/asl unit add``), the first line of the class docstring is its help,
every other field an option (``replaced_by`` shown as ``replaced-by``, its description the help),
``Literal``/``Enum`` are choices, ``ge``/``le`` ranges, a default makes an option optional,
``tuple[str, ...]`` is a comma-separated list, ``json_schema_extra={"autocomplete": kind}`` asks
for autocomplete, and ``rolls_dice = True`` adds a ``preview`` option. A field typed with a model
of a user (exactly the fields ``id`` and ``name``, like ``bot.models.UserRef``) is a user option:
the handler gets the ``discord.Member`` and the model validates from it. A field typed with a
model of a file (the fields ``filename`` and ``text``, ``bot.models.AttachedFile``) is an
attachment option: the command downloads the file (64 KiB at most, UTF-8) and passes its text.
An optional text field with ``json_schema_extra={"modal": label}`` is asked for in a form (a
paragraph of up to 4000 characters) when the command is given no option at all.
Any other class (a ``Fraction``…) is typed as text for the model to parse.

The generated commands do nothing themselves: they pass ``(interaction, path, options, preview)``
to one handler, with ``options`` keyed by the model's field names and holding only what the user
typed (so the model's own defaults apply) — ready for ``{"action": ..., **options}``.

>>> from typing import Literal
>>> from pydantic import BaseModel, Field
>>> class Repair(BaseModel):
...     '''Attempt to repair a malfunctioned weapon.'''
...     action: Literal["toy.weapon.repair"] = "toy.weapon.repair"
...     weapon: str = Field(description="The weapon to repair")
>>> command_path(Repair)
('toy', 'weapon', 'repair')
>>> option_specs(Repair)[0].display_name
'weapon'
"""

from __future__ import annotations

import enum
import inspect
import types
import typing
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Union

import annotated_types
import discord
from discord import app_commands
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from bot.discord_ui.lean_command import LeanCommand
from bot.discord_ui.tree import report_error
from bot.errors import BadCommand, UserError
from bot.models import AttachedFile
from rules_core.errors import RulesError

ActionHandler = Callable[
    [discord.Interaction[Any], tuple[str, ...], dict[str, Any], bool], Awaitable[None]
]
"""``(interaction, path, options, preview)``: run the action the user declared."""

NameLookup = Callable[[discord.Interaction[Any], str, str], Awaitable[list[str]]]
"""``(interaction, kind, current) -> names``: names of ``kind`` matching ``current``."""

AppCommand = app_commands.Command[Any, ..., Any] | app_commands.Group
LIMIT = 100  # Discord's limit on names of choices and on descriptions
MAX_CHOICES = 25
MODAL_LABEL = 45  # Discord's limit on a form's title and its labels
MODAL_TEXT = 4000  # Discord's limit on a form's text input
PREVIEW_HELP = "Show only to you the exact odds of every result, and roll nothing."


@dataclass(frozen=True)
class OptionSpec:
    """One option of a generated command, read from one field of the model."""

    name: str
    """The model's field name (a Python identifier), the key in the handler's ``options``."""
    annotation: Any
    """What discord.py types the option with: ``str``, ``int``, a ``Range``, a ``Literal``…"""
    description: str
    required: bool
    is_list: bool = False
    autocomplete: str | None = None
    modal: str | None = None
    """A text option a form asks for when the command is given no option at all: its label
    (``json_schema_extra={"modal": label}``; a paragraph, for text longer than a line)."""
    max_length: int | None = None

    @property
    def display_name(self) -> str:
        return self.name.replace("_", "-")

    def convert(self, value: Any) -> Any:
        """The value as the model wants it (a comma-separated list becomes a tuple)."""
        if self.is_list:
            return tuple(item.strip() for item in str(value).split(",") if item.strip())
        return value


def command_path(model: type[BaseModel]) -> tuple[str, ...]:
    """The command path of an action model: its ``action`` literal split at the dots."""
    field = model.model_fields.get("action")
    if field is None:
        raise TypeError(f"{model.__name__} has no 'action' field")
    values = typing.get_args(field.annotation) if _is_literal(field.annotation) else ()
    if len(values) != 1 or not isinstance(values[0], str):
        raise TypeError(f"{model.__name__}.action must be a Literal of one string")
    path = tuple(values[0].split("."))
    if not 1 <= len(path) <= 3:
        raise TypeError(f"{values[0]!r}: a command path has one to three words")
    return path


def help_text(model: type[BaseModel]) -> str:
    """The first line of the model's own docstring (not an inherited one), cut to 100."""
    doc = model.__dict__.get("__doc__") or ""
    first = inspect.cleandoc(doc).split("\n", 1)[0].strip()
    return _cut(first or " ".join(command_path(model)).capitalize())


def option_specs(model: type[BaseModel]) -> list[OptionSpec]:
    """The options of the model's command, in field order (``action`` excluded)."""
    specs = []
    for name, field in model.model_fields.items():
        if name == "action":
            continue
        specs.append(_option_spec(model, name, field))
    return specs


def build_commands(
    models: Iterable[type[BaseModel]],
    handler: ActionHandler,
    names: NameLookup,
    *,
    group_help: Mapping[str, str] | None = None,
    guild_only: bool = True,
) -> list[AppCommand]:
    """Top-level commands and groups for ``models``, to add to a command tree.

    ``group_help`` gives the help text of groups by dotted path (``"asl"``, ``"asl.unit"``).
    With ``guild_only`` (games live in server channels and threads) Discord offers the commands
    nowhere else, not in direct messages.
    """
    group_help = group_help or {}
    top: dict[str, AppCommand] = {}
    for model in models:
        path = command_path(model)
        command = build_command(model, handler, names, guild_only=guild_only and len(path) == 1)
        if len(path) == 1:
            if path[0] in top:
                raise TypeError(f"two commands are called /{path[0]}")
            top[path[0]] = command
            continue
        parent = top.get(path[0])
        if parent is None:
            parent = top[path[0]] = _group(path[:1], group_help, guild_only=guild_only)
        if not isinstance(parent, app_commands.Group):
            raise TypeError(f"/{path[0]} is both a command and a group")
        if len(path) == 3:
            sub = parent.get_command(path[1])
            if sub is None:
                sub = _group(path[:2], group_help)  # subgroups inherit guild_only
                parent.add_command(sub)
            if not isinstance(sub, app_commands.Group):
                raise TypeError(f"/{' '.join(path[:2])} is both a command and a group")
            parent = sub
        parent.add_command(command)
    return list(top.values())


def build_command(
    model: type[BaseModel], handler: ActionHandler, names: NameLookup, *, guild_only: bool = False
) -> app_commands.Command[Any, ..., Any]:
    """The slash command declared by one action model (``guild_only`` for a top-level one)."""
    path = command_path(model)
    specs = option_specs(model)
    rolls_dice = bool(getattr(model, "rolls_dice", False))
    if rolls_dice and any(spec.name == "preview" for spec in specs):
        raise TypeError(f"{model.__name__}: 'preview' is reserved for commands that roll")

    asked = next((spec for spec in specs if spec.modal), None)

    async def callback(interaction: discord.Interaction[Any], **values: Any) -> None:
        preview = bool(values.pop("preview", None))
        options = {
            spec.name: spec.convert(values[spec.name])
            for spec in specs
            if values.get(spec.name) is not None
        }
        for name, value in options.items():
            if isinstance(value, discord.Attachment):  # downloaded here, checked, as text
                options[name] = await read_attachment(value)
        if asked is not None and not options and not preview:  # a form asks for the text
            await interaction.response.send_modal(TextModal(path, asked, handler))
            return
        await handler(interaction, path, options, preview)

    parameters = [
        inspect.Parameter("interaction", inspect.Parameter.POSITIONAL_OR_KEYWORD),
    ]
    for spec in specs:
        default = inspect.Parameter.empty if spec.required else None
        parameters.append(
            inspect.Parameter(
                spec.name,
                inspect.Parameter.KEYWORD_ONLY,
                annotation=spec.annotation,
                default=default,
            )
        )
    descriptions = {spec.name: spec.description for spec in specs}
    if rolls_dice:
        parameters.append(
            inspect.Parameter(
                "preview", inspect.Parameter.KEYWORD_ONLY, annotation=bool, default=None
            )
        )
        descriptions["preview"] = PREVIEW_HELP
    fn: Any = callback
    fn.__signature__ = inspect.Signature(parameters)
    fn.__discord_app_commands_guild_only__ = guild_only
    fn.__discord_app_commands_param_description__ = descriptions
    fn.__discord_app_commands_param_rename__ = {
        spec.name: spec.display_name for spec in specs if spec.display_name != spec.name
    }
    fn.__discord_app_commands_param_autocomplete__ = {
        spec.name: _autocomplete(spec, names) for spec in specs if spec.autocomplete
    }
    return LeanCommand(
        name=path[-1],
        description=help_text(model),
        callback=fn,
        extras={"model": model, "path": path},
    )


class TextModal(discord.ui.Modal):
    """The form a command opens when it is given no option: one paragraph for its text option
    (a scenario's commands, one a line); submitted, it runs the command with that text."""

    def __init__(self, path: tuple[str, ...], spec: OptionSpec, handler: ActionHandler) -> None:
        super().__init__(title=_cut("/" + " ".join(path), MODAL_LABEL))
        self.path, self.spec, self.handler = path, spec, handler
        self.text: discord.ui.TextInput[Any] = discord.ui.TextInput(
            label=spec.modal or spec.display_name,
            style=discord.TextStyle.paragraph,
            max_length=min(MODAL_TEXT, spec.max_length or MODAL_TEXT),
        )
        self.add_item(self.text)

    async def on_submit(self, interaction: discord.Interaction[Any]) -> None:
        await self.handler(interaction, self.path, {self.spec.name: self.text.value}, False)

    # discord.py's Modal.on_error takes no item (unlike a View's): its own override's signature
    async def on_error(  # type: ignore[override]
        self, interaction: discord.Interaction[Any], error: Exception, /
    ) -> None:
        await report_error(interaction, error)


def _group(
    path: Sequence[str], group_help: Mapping[str, str], *, guild_only: bool = False
) -> app_commands.Group:
    key = ".".join(path)
    return app_commands.Group(
        name=path[-1],
        description=_cut(group_help.get(key) or f"/{' '.join(path)} commands"),
        guild_only=guild_only,
    )


def _option_spec(model: type[BaseModel], name: str, field: FieldInfo) -> OptionSpec:
    annotation, optional = _unwrap_optional(field.annotation)
    required = field.is_required() and not optional
    description = _cut(field.description or name.replace("_", " ").capitalize())
    extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
    kind = extra.get("autocomplete")
    autocomplete = str(kind) if kind else None
    origin = typing.get_origin(annotation)
    is_list = origin in (tuple, list) and _list_of_str(annotation)
    where = f"{model.__name__}.{name}"
    discord_type: Any
    if is_list:
        discord_type = str
    elif _is_literal(annotation):
        discord_type = _choices(where, typing.get_args(annotation))
    elif isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        discord_type = _choices(where, tuple(member.value for member in annotation))
    elif annotation is bool:
        discord_type = bool
    elif annotation in (int, float, str):
        discord_type = _ranged(annotation, field)
    elif _is_user_model(annotation):
        discord_type = Union[discord.Member, discord.User]  # noqa: UP007 (a runtime annotation)
    elif _is_file_model(annotation):
        discord_type = discord.Attachment
    elif isinstance(annotation, type) and not issubclass(annotation, BaseModel):
        discord_type = str  # Fraction, Decimal…: typed as text and parsed by the model
    else:
        raise TypeError(f"{where}: cannot type {annotation!r} as an option")
    if autocomplete and discord_type is not str:
        raise TypeError(f"{where}: autocomplete needs a plain text option")
    modal = extra.get("modal")
    if modal and (annotation is not str or required):
        raise TypeError(f"{where}: a form asks only for an optional text option")
    longest = next((m.max_length for m in field.metadata if hasattr(m, "max_length")), None)
    return OptionSpec(
        name,
        discord_type,
        description,
        required,
        is_list,
        autocomplete,
        _cut(str(modal), MODAL_LABEL) if modal else None,
        int(longest) if longest is not None else None,
    )


def _choices(where: str, values: tuple[Any, ...]) -> Any:
    if len(values) > MAX_CHOICES:
        raise TypeError(f"{where}: {len(values)} choices; Discord shows 25 (use autocomplete)")
    return Literal[values]


def _ranged(kind: type, field: FieldInfo) -> Any:
    """``kind`` with the field's bounds: ``ge``/``le`` for numbers, lengths for text."""
    low: Any = None
    high: Any = None
    for item in field.metadata:
        if isinstance(item, annotated_types.MinLen):
            low = item.min_length
        elif isinstance(item, annotated_types.MaxLen):
            high = item.max_length
        elif isinstance(item, annotated_types.Ge):
            low = item.ge
        elif isinstance(item, annotated_types.Gt):
            low = int(item.gt) + 1 if kind is int else item.gt  # type: ignore[call-overload]
        elif isinstance(item, annotated_types.Le):
            high = item.le
        elif isinstance(item, annotated_types.Lt):
            high = int(item.lt) - 1 if kind is int else item.lt  # type: ignore[call-overload]
    if low is None and high is None:
        return kind
    return app_commands.Range[kind, low, high]


def _autocomplete(
    spec: OptionSpec, names: NameLookup
) -> Callable[[discord.Interaction[Any], str], Awaitable[list[app_commands.Choice[str]]]]:
    kind = spec.autocomplete or ""

    async def complete(
        interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        # In a list, complete the last name and keep the ones already typed before it; a name
        # already in the list is not offered again.
        done, _, typing_now = current.rpartition(",") if spec.is_list else ("", "", current)
        listed = [n.strip() for n in done.split(",") if n.strip()]
        prefix = ", ".join(listed)
        taken = {n.casefold() for n in listed}
        try:
            found = await names(interaction, kind, typing_now.strip())
        except (RulesError, UserError):
            return []  # no game here, say: nothing to offer (the command will say why)
        choices = []
        for name in found:
            if name.casefold() in taken:
                continue
            value = f"{prefix}, {name}" if prefix else name
            if len(value) <= LIMIT:
                choices.append(app_commands.Choice(name=value, value=value))
        return choices[:MAX_CHOICES]

    return complete


def _unwrap_optional(annotation: Any) -> tuple[Any, bool]:
    origin = typing.get_origin(annotation)
    if origin is Union or origin is types.UnionType:
        args = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
        if len(args) == 1:
            return args[0], True
    return annotation, False


def _is_user_model(annotation: Any) -> bool:
    """A model of a Discord user: the fields ``id`` and ``name`` only (``bot.models.UserRef``)."""
    return (
        isinstance(annotation, type)
        and issubclass(annotation, BaseModel)
        and set(annotation.model_fields) == {"id", "name"}
    )


def _is_file_model(annotation: Any) -> bool:
    """A model of a text file given with the command (``bot.models.AttachedFile``)."""
    return (
        isinstance(annotation, type)
        and issubclass(annotation, BaseModel)
        and set(annotation.model_fields) == {"filename", "text"}
    )


async def read_attachment(attachment: discord.Attachment) -> AttachedFile:
    """An attached file's text: its size is checked before it is downloaded, then that it is
    UTF-8 (:meth:`AttachedFile.from_bytes`); a failed download is one sentence too."""
    AttachedFile.check_size(attachment.filename, attachment.size)
    try:
        data = await attachment.read()
    except (discord.HTTPException, discord.NotFound) as exc:
        raise BadCommand(
            f"Could not download {attachment.filename} from Discord ({exc.status}); attach it "
            "again."
        ) from None
    return AttachedFile.from_bytes(attachment.filename, data)


def _is_literal(annotation: Any) -> bool:
    return typing.get_origin(annotation) is Literal


def _list_of_str(annotation: Any) -> bool:
    args = [arg for arg in typing.get_args(annotation) if arg is not Ellipsis]
    return args == [str]


def _cut(text: str, limit: int = LIMIT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


__all__ = [
    "PREVIEW_HELP",
    "ActionHandler",
    "AppCommand",
    "NameLookup",
    "OptionSpec",
    "build_command",
    "build_commands",
    "command_path",
    "help_text",
    "option_specs",
]
