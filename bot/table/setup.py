"""/game setup and /game forces: a scenario set up in one step, and the forces written back out.

``/game setup`` reads a scenario's text (an attached file, or ``text:`` with ``;`` between
commands) as the game system's own set-up commands (:mod:`bot.commands.scenario`), checks it whole
against the game as it is (:func:`rules_core.scenario.check_setup`) and refuses it with every
error and its line if any is wrong — nothing is applied then. Otherwise the batch is one
:class:`~rules_core.scenario.Setup` action: it goes through the one permission check of every
action (a player sets up their own side's things; a batch that concerns the other side becomes a
proposal that side confirms; a referee applies it) and is logged as one entry that replays like
any action.

``/game forces`` writes the game's current forces in the same format
(:func:`rules_core.scenario.write_scenario`): a file in Discord, its text in the console.
"""

from __future__ import annotations

import re

from pydantic import BaseModel

from bot.commands.registry import build_registry
from bot.commands.scenario import read_scenario
from bot.errors import BadCommand
from bot.models import Actor, Place, Reply, ReplyFile
from bot.service.actions import propose, run_action
from bot.service.change import Change, Live
from bot.service.core import Core
from bot.service.handlers import read, write
from bot.service.permissions import permit, require_player, sides_as_spelled
from bot.table import commands as gc
from rules_core.scenario import SetupRefused, check_setup, make_setup, write_scenario


@write(gc.GameSetup)
def setup(core: Core, live: Live, actor: Actor, command: gc.GameSetup) -> Change:
    """/game setup: a scenario's set-up commands as one action, run or proposed to the other
    side."""
    require_player(live.row, actor)  # a spectator learns nothing of the scenario
    if (command.file is None) == (not command.text.strip()):
        raise BadCommand(
            "Give the scenario either as a file (file:) or as text (text:), one of the two."
        )
    text = command.file.text if command.file is not None else command.text
    system, sides = live.system, live.row.table["sides"]
    registry = build_registry({system.name: system})

    def respell(action: BaseModel) -> BaseModel:
        return sides_as_spelled(sides, action)

    actions, errors = read_scenario(text, system.name, registry, respell)
    _, refused = check_setup(system, live.state, actions)
    errors = sorted(errors + refused, key=lambda e: _place_key(e[0]))
    if errors:
        name = command.file.filename if command.file is not None else None
        raise SetupRefused([(_in_own_words(where, text, name), why) for where, why in errors])
    if not actions:
        raise BadCommand(
            "The scenario holds no command; write one set-up command a line, as "
            f"/{system.name} takes it without /{system.name}."
        )
    setup = make_setup(a for _, a in actions)
    concerned, missing = permit(live, actor, setup)
    if missing:  # the other side's things: that side's player confirms (or a referee)
        return propose(live, actor, setup, concerned, missing)
    return run_action(core, live, setup, concerned)


@read(gc.GameForces)
async def forces(core: Core, place: Place, actor: Actor, command: gc.GameForces) -> Reply:
    """/game forces: the game's forces written as the set-up commands that set them up."""
    row = await core.readable(place)
    live = core.cached(place)
    system = core.system(row.system)
    cached = live is not None and live.row is row  # the stored game, checked by _readable
    state = live.state if live is not None and cached else system.parse_state(row.state_json)
    text = write_scenario(system, state, row.title)
    commands = sum(1 for line in text.splitlines() if line and not line.startswith("#"))
    name = re.sub(r"[^A-Za-z0-9]+", "-", row.title).strip("-").lower() or "game"
    return Reply(
        command="/game forces",
        title=f"{row.title}: the forces as {commands} set-up commands for /game setup",
        game_title=row.title,
        system=row.system,
        game_id=row.public_id,
        fields=(("set-up", text.rstrip("\n")),),
        scripted=core.scripted,
        ephemeral=True,
        file=ReplyFile(filename=f"{name}-setup.txt", content=text.encode("utf-8")),
        file_in_fields=True,
    )


def _in_own_words(where: str, text: str, filename: str | None) -> str:
    """Where an error is, in the scenario's own terms: the file's name and its own line
    (``asl.txt line 15``), in a text of one line the command's number (``command 2``) — never a
    bare "line" a reader could take for the line of the console or the chat.

    >>> _in_own_words("line 15", "…", "asl.txt"), _in_own_words("line 1, command 2", "a; b", None)
    ('asl.txt line 15', 'command 2')
    """
    if not where.startswith("line "):
        return where  # the scenario as a whole
    if filename is not None:
        return f"{filename} {where}"
    if len(_LINES.split(text.strip())) == 1:
        return "command " + (where.split("command ")[1] if "command " in where else "1")
    return f"text {where}"


_LINES = re.compile(r"\r\n|\r|\n")


def _place_key(where: str) -> tuple[int, int]:
    """``line 3, command 2`` → (3, 2): errors listed in the text's order."""
    first, second, *_ = [*(int(n) for n in re.findall(r"\d+", where)), 0, 0]
    return first, second


__all__ = ["forces", "setup"]
