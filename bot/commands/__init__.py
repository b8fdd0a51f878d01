"""The command layer shared by the console and Discord: one declaration per command (its model).

:func:`build_registry` reads the game systems' ``action_types`` and the table commands of
:mod:`bot.table.commands` and describes every command (path, help, typed options); commands that
roll dice get the generic ``preview`` option. :func:`build_action` turns option values (typed, or
the strings of a console line) into the action model; :func:`execute` runs a :class:`Request`
through the :class:`~bot.service.game_service.GameService`.

>>> from bot.table.commands import TABLE_COMMANDS
>>> spec = command_spec(TABLE_COMMANDS[-2])
>>> spec.path, [o.name for o in spec.options]
('roll', ['dice', 'reason', 'category', 'count', 'preview'])
"""

from bot.commands.registry import (
    CommandSpec,
    OptionSpec,
    Registry,
    Request,
    build_action,
    build_registry,
    command_spec,
    execute,
    parse_line,
)

__all__ = [
    "CommandSpec",
    "OptionSpec",
    "Registry",
    "Request",
    "build_action",
    "build_registry",
    "command_spec",
    "execute",
    "parse_line",
]
