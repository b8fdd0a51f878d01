"""A scenario's text read into set-up actions, each line as the console reads a command.

Each command of the text (:func:`rules_core.scenario.split_commands`) is the system's set-up
command without its slash and system name — ``unit add name:A side:Axis kind:squad`` in an ASL
game is read as ``/asl unit add name:A side:Axis kind:squad`` — so every option is checked as the
command itself checks it, with the same sentences. A leading ``/asl`` (the slash, the system's
name) is accepted too.

>>> from rules_core.system import get_system
>>> from bot.commands.registry import build_registry
>>> registry = build_registry({"asl": get_system("asl")})
>>> actions, errors = read_scenario("level side:Axis level:9\\nroll dice:DR", "asl", registry)
>>> actions, errors
([], [('line 1', 'level must be 5 or less, not 9.'), ('line 2', 'There is no command \
/asl roll. A scenario holds: level, san, unit add, weapon add.')])
"""

from __future__ import annotations

from collections.abc import Callable

from pydantic import BaseModel

from bot.commands.registry import Registry, build_action, parse_line
from bot.errors import UserError
from rules_core.errors import RulesError
from rules_core.scenario import (
    MAX_COMMANDS,
    command_words,
    is_scenario_command,
    split_commands,
)

Located = tuple[str, BaseModel]
"""A set-up action with where it is in the text (``line 3``)."""


def read_scenario(
    text: str,
    system: str,
    registry: Registry,
    respell: Callable[[BaseModel], BaseModel] | None = None,
) -> tuple[list[Located], list[tuple[str, str]]]:
    """The set-up actions of ``text`` for the game system ``system``, and every error with its
    place; ``respell`` rewrites an action's side options as the game spells them."""
    allowed = [spec for spec in registry.commands.values() if spec.system == system]
    commands = ", ".join(command_words(s.model) for s in allowed if is_scenario_command(s.model))
    actions: list[Located] = []
    errors: list[tuple[str, str]] = []
    found = split_commands(text)
    if len(found) > MAX_COMMANDS:  # refused before reading any: a 64 KiB file of "x;" is 32,768
        many = f"it holds {len(found)} commands; at most {MAX_COMMANDS}."
        return actions, [("the scenario", many)]
    for where, command in found:
        try:
            action = _read_command(command, system, registry, commands)
            actions.append((where, respell(action) if respell else action))
        except (UserError, RulesError) as exc:
            errors.append((where, exc.user_message))
    return actions, errors


def _read_command(command: str, system: str, registry: Registry, commands: str) -> BaseModel:
    text = command.strip()
    if text.startswith("/"):
        text = text[1:]
    first, _, rest = text.partition(" ")
    if first.lower() == system:
        text = rest
    try:
        words, options = parse_line(f"/{system} {text}")
        spec = registry.find(words)
    except UserError as exc:
        # the registry names the system's every command; a scenario holds only set-up ones
        message = exc.user_message.split(" Did you mean")[0].split(" Try one of:")[0]
        raise type(exc)(f"{message} A scenario holds: {commands}.") from exc
    if not is_scenario_command(spec.model):
        raise _NotSetUp(
            f"/{' '.join(spec.words)} is not a set-up command; a scenario holds: {commands}."
        )
    action, _ = build_action(spec, options)
    return action


class _NotSetUp(UserError):
    """A command that may not appear in a scenario (it rolls, changes the phase, or lists)."""


__all__ = ["Located", "read_scenario"]
