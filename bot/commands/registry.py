"""Command declarations read from action models, option parsing, and execution."""

from __future__ import annotations

import difflib
import enum
import shlex
import types
import typing
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from annotated_types import Ge, Gt, Le, Lt, MaxLen, MinLen
from pydantic import BaseModel, ValidationError

from bot.errors import BadCommand
from bot.models import Actor, AttachedFile, Place, Reply, UserRef
from bot.table.commands import TABLE_COMMANDS
from rules_core.errors import InvalidInput, explain_validation_error
from rules_core.system import GameSystem

OptionType = Literal["string", "integer", "boolean", "names", "user", "file"]
PREVIEW_HELP = "Show the exact odds; roll and log nothing"


@dataclass(frozen=True)
class OptionSpec:
    """One option of a command, as Discord and the console show it."""

    name: str
    """As typed: ``replaced-by`` for the field ``replaced_by``."""
    field: str
    """The model's field name."""
    type: OptionType
    required: bool
    help: str
    choices: tuple[str | int, ...] = ()
    min_value: int | None = None
    max_value: int | None = None
    max_length: int | None = None
    autocomplete: str | None = None
    """The kind asked of ``GameSystem.names`` (``"unit"``, ``"weapon"``…), or ``"systems"``."""
    default: Any = None
    """The value when the option is left out (None for a required option)."""
    min_length: int | None = None


@dataclass(frozen=True)
class CommandSpec:
    """One command: its path, help text, options and how the service treats it."""

    path: str
    """Dotted, as in the action literal: ``"asl.unit.add"``, ``"game.new"``, ``"roll"``."""
    help: str
    options: tuple[OptionSpec, ...]
    model: type[BaseModel]
    system: str | None
    """The game system it belongs to, or None for a table command."""
    rolls_dice: bool = False
    read_only: bool = False

    @property
    def words(self) -> tuple[str, ...]:
        """The path as words: ``("asl", "unit", "add")``."""
        return tuple(self.path.split("."))

    def option(self, name: str) -> OptionSpec | None:
        """The option called ``name`` (as typed, dashes or underscores): looked up in a table of
        the options by name, made on the first call (the first of a name, as a scan finds it)."""
        by_name = self.__dict__.get("_by_name")
        if by_name is None:
            by_name = {}
            for option in self.options:
                by_name.setdefault(option.name, option)
            object.__setattr__(self, "_by_name", by_name)
        return by_name.get(name.replace("_", "-"))


def _action_literal(model: type[BaseModel]) -> str:
    (value,) = typing.get_args(model.model_fields["action"].annotation)
    return str(value)


def _unwrap_optional(annotation: Any) -> tuple[Any, bool]:
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return args[0], True
    return annotation, False


def _option(name: str, info: Any, choices_from: Mapping[str, tuple[str, ...]]) -> OptionSpec:
    annotation, _ = _unwrap_optional(info.annotation)
    extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
    kind: OptionType = "string"
    choices: tuple[str | int, ...] = ()
    origin = typing.get_origin(annotation)
    if annotation is bool:
        kind = "boolean"
    elif annotation is int:
        kind = "integer"
    elif annotation is UserRef:
        kind = "user"
    elif annotation is AttachedFile:
        kind = "file"
    elif origin in (tuple, list):
        kind = "names"
    elif origin is Literal:
        choices = tuple(typing.get_args(annotation))
        kind = "integer" if all(isinstance(c, int) for c in choices) else "string"
    elif isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        choices = tuple(member.value for member in annotation)
    source = extra.get("choices_from")
    if isinstance(source, str) and source in choices_from:
        choices = choices_from[source]
    bounds: dict[str, int] = {}
    for meta in info.metadata:
        if isinstance(meta, Ge):
            bounds["min"] = int(meta.ge)  # type: ignore[call-overload]
        elif isinstance(meta, Gt):
            bounds["min"] = int(meta.gt) + 1  # type: ignore[call-overload]
        elif isinstance(meta, Le):
            bounds["max"] = int(meta.le)  # type: ignore[call-overload]
        elif isinstance(meta, Lt):
            bounds["max"] = int(meta.lt) - 1  # type: ignore[call-overload]
        elif isinstance(meta, MaxLen):
            bounds["len"] = int(meta.max_length)
        elif isinstance(meta, MinLen):
            bounds["min_len"] = int(meta.min_length)
    autocomplete = extra.get("autocomplete")
    return OptionSpec(
        name=name.replace("_", "-"),
        field=name,
        type=kind,
        required=info.is_required(),
        help=str(info.description or name),
        choices=choices,
        min_value=bounds.get("min"),
        max_value=bounds.get("max"),
        max_length=bounds.get("len"),
        autocomplete=str(autocomplete) if isinstance(autocomplete, str) else None,
        default=None if info.is_required() else info.get_default(call_default_factory=True),
        min_length=bounds.get("min_len"),
    )


def command_spec(
    model: type[BaseModel],
    system: str | None = None,
    choices_from: Mapping[str, tuple[str, ...]] | None = None,
) -> CommandSpec:
    """The declaration of the command an action model stands for."""
    path = _action_literal(model)
    doc = (model.__doc__ or path).strip().splitlines()[0]
    options = [
        _option(name, info, choices_from or {})
        for name, info in model.model_fields.items()
        if name != "action"
    ]
    rolls = bool(getattr(model, "rolls_dice", False))
    if rolls:
        options.append(
            OptionSpec(
                name="preview",
                field="preview",
                type="boolean",
                required=False,
                help=PREVIEW_HELP,
                default=False,
            )
        )
    options.sort(key=lambda o: not o.required)  # Discord lists required options first
    return CommandSpec(
        path=path,
        help=doc,
        options=tuple(options),
        model=model,
        system=system,
        rolls_dice=rolls,
        read_only=bool(getattr(model, "read_only", False)),
    )


@dataclass(frozen=True)
class Registry:
    """Every command, by path."""

    commands: Mapping[str, CommandSpec]

    def find(self, words: tuple[str, ...]) -> CommandSpec:
        """The command named by its words, or :class:`BadCommand` naming the nearest ones.

        >>> registry = build_registry({})
        >>> registry.find(("gmae", "status"))
        Traceback (most recent call last):
        ...
        bot.errors.BadCommand: There is no command /gmae status. Did you mean /game status?
        >>> registry.find(("gmae",))  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        bot.errors.BadCommand: There is no command /gmae. Did you mean /game? /help game ...
        >>> registry.find(("hlep",))
        Traceback (most recent call last):
        ...
        bot.errors.BadCommand: There is no command /hlep. Did you mean /help?
        """
        spec = self.commands.get(".".join(words))
        if spec is None:
            typed = "/" + " ".join(words)
            near = sorted(p for p in self.commands if p.split(".")[0] == words[0]) if words else []
            if near:
                hint = self._group_hint(words[0], [p for p in self.commands if p in near])
                subs = {" ".join(p.split(".")[1:]): p for p in near}
                closest = nearest(" ".join(words[1:]), list(subs))
                if closest and len(near) > 1:
                    hint = f" Did you mean /{subs[closest].replace('.', ' ')}?"
            else:
                closest = nearest(typed, ["/" + p.replace(".", " ") for p in self.commands])
                hint = f" Did you mean {closest}?" if closest else self._first_word_hint(words)
            raise BadCommand(f"There is no command {typed}.{hint}")
        return spec

    @staticmethod
    def _group_hint(group: str, paths: list[str]) -> str:
        """A group's commands, a line per theme or subgroup, as ``/help`` shows them."""
        typed = [" ".join(path.split(".")[1:]) for path in paths]
        if not any(typed):  # a command, not a group
            return f" Try /{group}."
        lines = "".join(f"\n  {line}" for line in at_a_glance(group, [n for n in typed if n]))
        return f" Try one of:{lines}\n/help {group} says what each does."

    def _first_word_hint(self, words: tuple[str, ...]) -> str:
        """A mistyped group or /help (``/gmae``, ``/hlep``): the nearest first word, or where
        the commands are listed."""
        groups = {p.split(".")[0] for p in self.commands if "." in p}
        first = nearest(words[0] if words else "", sorted({p.split(".")[0] for p in self.commands}))
        if first is None and words and nearest(words[0], ["help"]):
            return " Did you mean /help?"
        if first is None:
            return " /help lists the commands."
        listed = f" /help {first} lists its commands." if first in groups else ""
        return f" Did you mean /{first}?{listed}"

    def resolve(
        self, words: tuple[str, ...], options: Mapping[str, str]
    ) -> tuple[CommandSpec, dict[str, str]]:
        """The command a console line names and its options, where the words after the command
        (kept as typed) are the value of its first option: the first required one, or its first
        option when none is (``/roll 3d6`` is ``/roll dice:3d6``, ``/game seat Axis`` is
        ``/game seat side:Axis``).

        >>> spec, values = build_registry({}).resolve(("roll", "4d6k3"), {"reason": "STR"})
        >>> spec.path, values
        ('roll', {'reason': 'STR', 'dice': '4d6k3'})
        """
        lowered = tuple(word.lower() for word in words)
        if ".".join(lowered) in self.commands or not lowered:
            return self.find(lowered), dict(options)
        for cut in range(len(lowered) - 1, 0, -1):
            spec = self.commands.get(".".join(lowered[:cut]))
            if spec is None:
                continue
            if any(p.startswith(spec.path + ".") for p in self.commands):
                break  # a group's word: a mistyped subcommand, not a value
            first = next((o for o in spec.options if o.required), None) or next(
                iter(spec.options), None
            )
            value = " ".join(words[cut:])
            if first is None:
                raise BadCommand(f"/{' '.join(spec.words)} takes no options, not {value!r}.")
            if first.name in options or first.field in options:
                raise BadCommand(
                    f"{value!r} and {first.name}: both give {first.name}; give it once."
                )
            return spec, {**options, first.name: value}
        return self.find(lowered), dict(options)

    def groups(self) -> dict[str, list[CommandSpec]]:
        """Commands grouped by their first word (``game``, ``roll``, ``asl``…)."""
        grouped: dict[str, list[CommandSpec]] = {}
        for spec in self.commands.values():
            grouped.setdefault(spec.words[0], []).append(spec)
        return grouped


THEMES: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    "game": (
        ("play", ("new", "seat", "status", "log", "board", "notices", "seed", "end")),
        ("proposals and referees", ("confirm", "decline", "void", "rule", "referee add",
                                    "referee remove", "rotate", "cancel")),
        ("set-up", ("setup", "forces")),
        ("league", ("result", "list", "league", "times", "export")),
        ("deadline", ("deadline set", "deadline defaults", "deadline pause", "deadline resume",
                       "deadline extend", "deadline claim")),
        ("sealed notes", ("seal", "reveal")),
    ),
}  # fmt: skip
"""A group's commands by what they are for, a line each, where one line would not read at a
glance; a command not named here goes on a last line."""


def at_a_glance(name: str, commands: Sequence[str]) -> list[str]:
    """A group's commands (as typed after the group) in lines read at a glance: by the themes
    of :data:`THEMES`, else the commands of the group itself on one line and each subgroup's on
    its own; a line of one subgroup's commands is headed by the subgroup's word.

    >>> at_a_glance("asl", ["level", "unit add", "fire", "unit set"])
    ['level · fire', 'unit: add · set']
    >>> at_a_glance("game", ["new", "seal", "reveal", "deadline set", "deadline pause"])
    ['play: new', 'deadline: set · pause', 'sealed notes: seal · reveal']
    """
    lines: list[str] = []
    left = list(commands)
    for theme, named in THEMES.get(name, ()):
        found = [command for command in named if command in left]
        left = [command for command in left if command not in found]
        if found:
            lines.append(_line(theme, found))
    if name in THEMES:
        return lines + ([" · ".join(left)] if left else [])
    subgroups: dict[str, list[str]] = {"": []}  # the group's own commands first
    for command in left:
        subgroups.setdefault(command.split()[0] if " " in command else "", []).append(command)
    return [
        _line(word, found) if word else " · ".join(found)
        for word, found in subgroups.items()
        if found
    ]


def _line(head: str, commands: list[str]) -> str:
    """``head: a · b``; the head's word left out of commands that all begin with it."""
    if all(command.startswith(head + " ") for command in commands):
        commands = [command.removeprefix(head + " ") for command in commands]
    return f"{head}: {' · '.join(commands)}"


def build_registry(systems: Mapping[str, GameSystem[Any, Any]]) -> Registry:
    """The commands of the table and of every system in ``systems``."""
    choices = {"systems": tuple(systems)}
    commands: dict[str, CommandSpec] = {}
    for model in TABLE_COMMANDS:
        spec = command_spec(model, None, choices)
        commands[spec.path] = spec
    for name, system in systems.items():
        for model in system.action_types:
            spec = command_spec(model, name, choices)
            commands[spec.path] = spec
    return Registry(commands=commands)


def nearest(typed: str, known: list[str]) -> str | None:
    """The known word or command closest to ``typed`` (a typo's likely meaning), if any is close.

    >>> nearest("/gmae status", ["/game status", "/game seat", "/roll"])
    '/game status'
    >>> nearest("xyzzy", ["/roll"]) is None
    True
    """
    found = difflib.get_close_matches(typed.lower(), known, n=1, cutoff=0.6)
    return found[0] if found else None


# --- option values -----------------------------------------------------------------------

_TRUE = {"true", "yes", "on", "1", "y"}
_FALSE = {"false", "no", "off", "0", "n"}


def _convert(
    option: OptionSpec,
    value: Any,
    users: Callable[[str], UserRef],
    files: Callable[[str], AttachedFile],
) -> Any:
    if not isinstance(value, str):
        return value
    text = value.strip()
    if option.type == "boolean":
        if text.lower() in _TRUE:
            return True
        if text.lower() in _FALSE:
            return False
        raise InvalidInput(f"{option.name} must be true or false, not {text!r}.")
    if option.type == "integer":
        try:
            return int(text)
        except ValueError:
            raise InvalidInput(f"{option.name} must be a whole number, not {text!r}.") from None
    if option.type == "names":
        return tuple(part.strip() for part in text.split(",") if part.strip())
    if option.type == "user":
        return users(text)
    if option.type == "file":
        return files(text)
    return text


def build_action(
    spec: CommandSpec,
    values: Mapping[str, Any],
    users: Callable[[str], UserRef] | None = None,
    files: Callable[[str], AttachedFile] | None = None,
) -> tuple[BaseModel, bool]:
    """The action model from option values, and whether ``preview`` was asked.

    Strings are converted by the option's type (booleans, whole numbers, comma-separated names,
    ``@user``, a file's name through ``files``); typed values pass through. Unknown options and
    invalid values raise :class:`~rules_core.errors.InvalidInput` before anything happens.
    """
    resolve_user = users or _no_users
    read_file = files or _no_files
    data: dict[str, Any] = {"action": spec.path}
    preview = False
    for raw_name, value in values.items():
        option = spec.option(raw_name)
        if option is None:
            names = [o.name for o in spec.options]
            closest = nearest(raw_name.replace("_", "-"), names)
            hint = f" Did you mean {closest}?" if closest else ""
            known = f" Its options: {', '.join(names) or 'none'}."
            raise InvalidInput(
                f"/{' '.join(spec.words)} has no option {raw_name!r}.{hint or known}"
            )
        converted = _convert(option, value, resolve_user, read_file)
        if _names_a_new_thing(spec, option) and isinstance(converted, str):
            _check_new_name(converted)
        if option.field == "preview" and spec.rolls_dice:
            preview = bool(converted)
            continue
        data[option.field] = converted
    try:
        return spec.model.model_validate(data), preview
    except ValidationError as exc:
        raise InvalidInput(explain_validation_error(exc.errors()[0])) from exc


MAX_NAME = 80
"""The longest name of a new unit, weapon, wagon…, as CWB's names always were: it fits a Discord
choice (100 characters), or autocomplete never offers it ("Squad Heavy machine gun A of 1st
Platoon" has 41)."""


def _names_a_new_thing(spec: CommandSpec, option: OptionSpec) -> bool:
    """The option names a thing the command puts on the table: ``name`` of an ``add`` command
    (``/asl unit add``, ``/cwb wagon add``), or a ``name`` not looked up (an OCS Extender's)."""
    return (
        spec.system is not None
        and option.field == "name"
        and (spec.path.endswith(".add") or option.autocomplete is None)
    )


def _check_new_name(name: str) -> None:
    """A new thing's name can be typed back: at most :data:`MAX_NAME` characters, no comma (lists
    of names are comma-separated: ``weapons:"HMG, LMG"``), no control character or line break.

    >>> _check_new_name("4-6-7 A")
    >>> _check_new_name("HMG, LMG")
    Traceback (most recent call last):
    ...
    rules_core.errors.InvalidInput: A name may not hold a comma: lists of names are separated by \
commas ('HMG, LMG'); write it without one.
    """
    text = name.strip()
    if len(text) > MAX_NAME:
        raise InvalidInput(
            f"A name may be at most {MAX_NAME} characters; {text[:20]}… has {len(text)}."
        )
    if "," in text:
        raise InvalidInput(
            "A name may not hold a comma: lists of names are separated by commas "
            f"({text!r}); write it without one."
        )
    if any(unicodedata.category(c) in ("Cc", "Zl", "Zp") for c in text):
        raise InvalidInput(
            f"A name may not hold a control character or a line break ({text!r}); type it plainly."
        )


def _no_users(text: str) -> UserRef:
    raise InvalidInput(f"Cannot name the user {text!r} here.")


def _no_files(text: str) -> AttachedFile:
    raise InvalidInput(f"Cannot read the file {text!r} here; attach it to the command.")


def parse_line(line: str) -> tuple[tuple[str, ...], dict[str, str]]:
    """Split a command line into the command's words and its ``name:value`` options.

    >>> parse_line('/asl fire weapons:"HMG A, LMG B" sustained:true')
    (('asl', 'fire'), {'weapons': 'HMG A, LMG B', 'sustained': 'true'})
    """
    words, options = split_line(line)
    return tuple(w.lower() for w in words), options


def split_line(line: str) -> tuple[tuple[str, ...], dict[str, str]]:
    """As :func:`parse_line`, with the words kept as typed (``/roll DR`` is not ``/roll dr``).

    >>> split_line("/roll 2d6 + 1d6 reason:Sniper")
    (('roll', '2d6', '+', '1d6'), {'reason': 'Sniper'})
    """
    try:
        tokens = shlex.split(line, posix=True)
    except ValueError as exc:
        raise BadCommand(f"Cannot read that line: {exc}.") from exc
    if not tokens or not tokens[0].startswith("/"):
        raise BadCommand("A command starts with a slash, like /game status.")
    words: list[str] = [tokens[0][1:]] if tokens[0] != "/" else []
    options: dict[str, str] = {}
    for token in tokens[1:]:
        name, colon, value = token.partition(":")
        if colon and name:
            if name in options:
                raise BadCommand(f"The option {name} is given twice.")
            options[name] = value
        elif options:
            raise BadCommand(f"Write options as name:value, not {token!r}.")
        else:
            words.append(token)
    if not words or not all(words):
        raise BadCommand("A command starts with a slash, like /game status.")
    return tuple(words), options


@dataclass(frozen=True)
class Request:
    """One command to execute: where, who, the interaction id, the path and option values."""

    place: Place
    actor: Actor
    interaction_id: str
    words: tuple[str, ...]
    options: Mapping[str, Any] = field(default_factory=dict)


async def execute(
    service: Any,
    request: Request,
    registry: Registry,
    users: Callable[[str], UserRef] | None = None,
    files: Callable[[str], AttachedFile] | None = None,
) -> Reply:
    """Find the command, build its action and run it through the service."""
    spec = registry.find(request.words)
    action, preview = build_action(spec, request.options, users, files)
    reply: Reply = await service.handle(
        request.place, request.actor, request.interaction_id, action, preview=preview
    )
    return reply


__all__ = [
    "CommandSpec",
    "OptionSpec",
    "Registry",
    "Request",
    "build_action",
    "build_registry",
    "command_spec",
    "execute",
    "nearest",
    "parse_line",
    "split_line",
]
