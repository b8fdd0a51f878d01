"""The slash command class of the generated commands: discord.py's, with its options read in one
pass.

discord.py's ``Command._transform_arguments`` runs on every interaction: for each parameter of
the command it reads ``display_name`` (a property), looks the value up and awaits the parameter's
``transform`` coroutine, which for a plain ``str``, ``int``, ``bool`` or ``float`` option returns
the value as it is. The bot's commands have up to twenty options, nearly all plain, so that is a
few dozen calls per interaction for nothing (issue 21, docs/PERFORMANCE.md). :class:`LeanCommand`
reads each parameter's name, Discord name, requiredness and default once, and awaits
``transform`` only for a parameter whose transformer does something (a member, an attachment,
choices; not ``str``, ``int``, ``Range`` or ``Literal``, whose transformer returns the value):
the same values, the same missing-option and signature-mismatch behaviour.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.app_commands.errors import CommandSignatureMismatch
from discord.app_commands.namespace import Namespace
from discord.app_commands.transformers import IdentityTransformer

Plan = tuple[tuple[str, str, bool, Any, Any], ...]
"""Per parameter: its name, its Discord name, required, default, and the parameter itself when
its value goes through ``transform`` (else ``None``)."""


def transform_plan(params: dict[str, Any]) -> Plan:
    """What :meth:`LeanCommand._transform_arguments` reads of ``Command._params``."""
    return tuple(
        (
            name,
            param.display_name,
            bool(param.required),
            param.default,
            None if _identity(param._annotation) else param,
        )
        for name, param in params.items()
    )


def _identity(annotation: Any) -> bool:
    """Whether discord.py's ``CommandParameter.transform`` returns the value as it is for a
    parameter of this annotation: a plain type, or a transformer that keeps
    ``IdentityTransformer.transform`` (as ``str``, ``int``, ``Range`` and ``Literal`` options do)
    and is not a ``Choice``.

    >>> from discord.app_commands.transformers import IdentityTransformer, MemberTransformer
    >>> _identity(str), _identity(IdentityTransformer(discord.AppCommandOptionType.string))
    (True, True)
    >>> _identity(MemberTransformer())
    False
    """
    if not hasattr(annotation, "__discord_app_commands_transformer__"):
        return True
    if getattr(annotation, "__discord_app_commands_is_choice__", False):
        return False
    return getattr(type(annotation), "transform", None) is IdentityTransformer.transform


class LeanCommand(app_commands.Command[Any, ..., Any]):
    """``app_commands.Command`` whose options are read in one pass (see the module)."""

    _lean_plan: tuple[dict[str, Any], Plan] | None = None

    async def _transform_arguments(
        self, interaction: discord.Interaction[Any], namespace: Namespace
    ) -> dict[str, Any]:
        cached = self._lean_plan
        if cached is None or cached[0] is not self._params:  # a copy (_copy_with) has its own
            cached = self._lean_plan = (self._params, transform_plan(self._params))
        values = namespace.__dict__
        transformed: dict[str, Any] = {}
        for name, shown, required, default, param in cached[1]:
            if shown in values:
                value = values[shown]
                transformed[name] = (
                    value if param is None else await param.transform(interaction, value)
                )
            elif required:
                raise CommandSignatureMismatch(self)
            else:
                transformed[name] = default
        return transformed
