"""The console's ``/help``: the overview, one group's commands, or one command's every option.

``/help`` alone gives the overview; a group (``/help asl``, ``/help group:asl``) lists its
commands with their required options; a command (``/help asl fire``, ``/help command:"asl
fire"``) shows each option's help text, type, range and default, and one example — what Discord's
``/help`` shows, as text.

>>> from bot.commands.registry import build_registry
>>> print(help_text(build_registry({}), ("help", "game", "seat"), {}))
/game seat — Take a seat for a side; a referee may seat someone else.
  side     a side's name · required — The side to play
  player   a member (@name) · optional — Seat this player (referees only)
  example: /game seat side:Axis
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.commands.help import (
    Group,
    command_help,
    find_command,
    group_lines,
    overview,
    registry_groups,
    registry_json,
    render_command_text,
)
from bot.commands.registry import CommandSpec, Registry, nearest
from bot.errors import BadCommand

HELP_OPTIONS = ("group", "command")
CONSOLE_ONLY = [
    Group("help", "This list; /help asl for a group, /help asl fire for one command's options."),
    Group("quit", "End the session (also exit, or Ctrl-D at the prompt)."),
]


def wanted(registry: Registry, words: tuple[str, ...], values: Mapping[str, str]) -> str:
    """What ``/help`` was asked about, as words (``""``: everything)."""
    unknown = set(values) - set(HELP_OPTIONS)
    if unknown:
        raise BadCommand(
            f"/help has no option {sorted(unknown)[0]!r}; its options: group, command."
        )
    asked = [" ".join(words[1:]), values.get("group", ""), values.get("command", "")]
    given = [text.strip().lstrip("/").strip() for text in asked if text.strip()]
    if len(given) > 1:
        raise BadCommand("Ask /help about one thing: a group (asl) or a command (asl fire).")
    return given[0].lower() if given else ""


def chosen(registry: Registry, about: str) -> tuple[list[CommandSpec], CommandSpec | None]:
    """The commands of the group ``about`` names, or the one command it names."""
    spec = find_command(registry, about)
    if spec is not None:
        return [spec], spec
    groups = registry.groups()
    if about in groups:
        return groups[about], None
    everything = list(groups) + [" ".join(s.words) for s in registry.commands.values()]
    closest = nearest(about, everything)
    hint = f" Did you mean /help {closest}?" if closest else " Try /help alone."
    raise BadCommand(f"There is no command or group called {about!r}.{hint}")


def help_text(registry: Registry, words: tuple[str, ...], values: Mapping[str, str]) -> str:
    """The console's answer to a ``/help`` line (words after ``help`` name a group or command)."""
    about = wanted(registry, words, values)
    if not about:
        return "\n".join(overview([*registry_groups(registry), *CONSOLE_ONLY], markdown=False))
    specs, spec = chosen(registry, about)
    if spec is not None:
        return render_command_text(command_help(spec))
    return "\n".join([f"{about}:", *group_lines(specs)])


def help_json(
    registry: Registry, words: tuple[str, ...], values: Mapping[str, str]
) -> list[dict[str, Any]]:
    """``--json``: every command asked about, with each option's help, type and default."""
    about = wanted(registry, words, values)
    specs = list(registry.commands.values()) if not about else chosen(registry, about)[0]
    return registry_json(specs)


__all__ = ["help_json", "help_text"]
