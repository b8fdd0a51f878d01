"""What ``/help`` says, read from the commands' declarations, for the console and Discord alike.

Three depths, as a newcomer asks: :func:`overview` (every group at a glance: what it is for and
its commands' names), :func:`group_lines` (a group's commands, each with its help text and its
required options) and :func:`command_help` (one command: each option's help text, type, range
and default, and one example that runs).

>>> from bot.commands.registry import build_registry
>>> registry = build_registry({})
>>> print(render_command_text(command_help(registry.commands["game.log"])))
/game log — The last entries of the game log, each with its sequence number.
  last     whole number 1–50 · default 10 — How many entries to show
  before   whole number ≥ 2 · optional — Only entries before this entry number (older pages)
  example: /game log last:20
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.commands.registry import THEMES, CommandSpec, OptionSpec, Registry, at_a_glance

GROUP_HELP: dict[str, str] = {
    "game": "The channel's game: new, seats, referees, log, export, end",
    "game.referee": "Referees may act for any side, void entries and end the game",
    "asl": "Advanced Squad Leader: MG breakdown, ROF, repair, FB16 Ammunition Shortage",
    "asl.unit": "Squads, half-squads, crews, leaders and heroes",
    "asl.weapon": "Support weapons, Guns and vehicle MGs with their printed numbers",
    "ocs": "Operational Combat Series: supply in exact Tokens and its tables",
    "ocs.dump": "Supply dumps by hex, in SP and Tokens",
    "ocs.unit": "Combat units, HQs and Transport Points",
    "cwb": "Civil War Battles: ammunition, supply wagons and isolation",
    "cwb.unit": "Units and their men",
    "cwb.wagon": "Supply wagons and their strength",
}
"""The help text of each group of commands (``/asl``, ``/asl unit``), by dotted path: Discord
shows it beside the group, ``/help`` in its overview."""

EXAMPLES: dict[str, str] = {
    "game.new": '/game new system:asl title:"Hill 621"',
    "game.seat": "/game seat side:Axis",
    "game.referee.add": "/game referee add user:@carol",
    "game.referee.remove": "/game referee remove user:@carol",
    "game.log": "/game log last:20",
    "game.seed": '/game seed phrase:"my lucky words"',
    "game.notices": "/game notices on:false",
    "game.board": "/game board",
    "game.void": '/game void entry:7 reason:"wrong weapon fired"',
    "game.confirm": "/game confirm entry:2",
    "game.decline": '/game decline entry:4 reason:"not the agreed OB"',
    "game.result": "/game result winner:Axis scenario:ASL-1 attacker:Axis",
    "game.league": "/game league tournament:CASLO_18",
    "game.times": "/game times scope:server",
    "game.export": "/game export",
    "game.setup": "/game setup file:docs/scenarios/asl.txt",
    "game.cancel": '/game cancel reason:"relay down"',
    "roll": '/roll dice:4d6k3 reason:"ability score"',
    "stats": "/stats category:IFT",
    "asl.level": "/asl level side:Axis level:2",
    "asl.unit.add": "/asl unit add name:A side:Axis kind:squad quality:4-6-7",
    "asl.unit.set": '/asl unit set name:A status:broken reason:"failed MC"',
    "asl.weapon.add": "/asl weapon add name:LMG side:Axis kind:sw_mg b:10 rof:1 repair:6 owner:A",
    "asl.weapon.remove": "/asl weapon remove name:LMG",
    "asl.weapon.destroy": "/asl weapon destroy name:LMG",
    "asl.weapon.dm": "/asl weapon dm name:HMG",
    "asl.weapon.kia": '/asl weapon kia weapons:"HMG, LMG" kia:2 k:3',
    "asl.fire": '/asl fire weapons:"HMG, LMG" drm:1',
    "asl.tohit": "/asl tohit gun:ATG",
    "asl.repair": "/asl repair weapon:LMG",
    "asl.check": "/asl check kind:pf unit:A",
    "asl.phase": "/asl phase phase:pfph side:Axis",
    "ocs.dump.add": '/ocs dump add side:Axis hex:0905 amount:"6 SP"',
    "ocs.dump.adjust": '/ocs dump adjust side:Axis hex:0905 amount:"1 SP"',
    "ocs.dump.list": "/ocs dump list",
    "ocs.unit.add": '/ocs unit add name:"5 Pz" side:Axis steps:2 hex:0905',
    "ocs.unit.list": "/ocs unit list side:Axis",
    "ocs.unit.change": '/ocs unit change unit:"1/5 Pz" steps:1 reason:"attacker loses a step"',
    "ocs.unit.move": '/ocs unit move unit:"1/5 Pz" hex:1405',
    "ocs.unit.remove": '/ocs unit remove unit:Kampfgruppe reason:"eliminated in combat"',
    "ocs.attack": '/ocs attack attackers:"1/5 Pz, 2/5 Pz" dump:0905 hq:"XL HQ" throw-mp:9',
    "ocs.defend": '/ocs defend defenders:"Rifle Div, Tank Bde" dump:2010 draw-mp:3',
    "ocs.fuel": '/ocs fuel method:formation target:"5 Pz" dump:0905 side:Axis',
    "ocs.trace": "/ocs trace units:Kampfgruppe status:eat dump:0905 draw-mp:4",
    "ocs.recover": '/ocs recover side:Axis dump:0905 hq:"XL HQ" throw-mp:6',
    "ocs.attrition": "/ocs attrition units:Kampfgruppe",
    "ocs.breakout": "/ocs breakout unit:Kampfgruppe",
    "ocs.blow": '/ocs blow side:Soviet dump:2010 amount:"1 1/2 SP"',
    "ocs.capture": "/ocs capture side:Axis hex:2010 unit:Kampfgruppe",
    "ocs.strength": '/ocs strength unit:"1/5 Pz" mode:attack',
    "ocs.cleanup": "/ocs cleanup side:Axis",
    "ocs.phase": "/ocs phase side:Axis phase:supply turn:1",
    "ocs.load": '/ocs load transport:"Truck 1" amount:"1 SP"',
    "ocs.extender": '/ocs extender how:form units:"Truck 1"',
    "ocs.special": "/ocs special purpose:refit side:Axis dump:0905",
    "cwb.params": "/cwb params ammo-loss:30",
    "cwb.unit.add": '/cwb unit add name:"1st Minnesota" side:Union men:262',
    "cwb.unit.set": '/cwb unit set name:"1st Minnesota" men:200',
    "cwb.unit.remove": '/cwb unit remove name:"1st Minnesota"',
    "cwb.unit.list": "/cwb unit list",
    "cwb.wagon.add": '/cwb wagon add name:"Union Trains" side:Union strength:40 hex:"7,5"',
    "cwb.wagon.set": '/cwb wagon set name:"Union Trains" strength:30',
    "cwb.fire": '/cwb fire unit:"1st Minnesota" mode:defensive',
    "cwb.resupply": '/cwb resupply unit:"20th Maine" wagon:"Union Trains"',
    "cwb.supply": "/cwb supply side:Union",
    "cwb.isolation": '/cwb isolation unit:"20th Maine" isolated:true',
    "cwb.melee": '/cwb melee unit:"1st Minnesota"',
    "cwb.map": '/cwb map columns:10 rows:10 sources:"0/0"',
    "cwb.turn": "/cwb turn side:Union",
}
"""One example of each command, as players type it; a command without one (a new command, a
test's toy) gets one made from its declaration (:func:`example`). A test runs each through its
command's model."""

SAMPLE_NAMES: dict[str, str] = {
    "side": "Axis",
    "unit": "A",
    "weapon": "LMG",
    "dump": "D1",
    "wagon": "W1",
    "category": "IFT",
    "systems": "asl",
}
"""A name to show in an example, by the kind of thing an option names."""


UNBOUNDED = 1_000_000
"""A bound from here on is not shown: it is there for safety (a sequence number's), not play."""


@dataclass(frozen=True)
class OptionHelp:
    """One option as ``/help`` shows it: name, type (with its range), required or default, help."""

    name: str
    kind: str
    need: str
    help: str


@dataclass(frozen=True)
class CommandHelp:
    """One command as ``/help`` shows it."""

    command: str
    help: str
    options: tuple[OptionHelp, ...]
    example: str


def option_kind(option: OptionSpec) -> str:
    """What an option takes, with its range, in words.

    >>> option_kind(OptionSpec("drm", "drm", "integer", False, "", min_value=-9, max_value=9))
    'whole number -9–9'
    >>> option_kind(OptionSpec("weapons", "weapons", "names", False, "", autocomplete="weapon"))
    'weapon names, comma-separated'
    """
    if option.choices:
        return "one of " + ", ".join(str(choice) for choice in option.choices)
    if option.type == "integer":
        low, high = option.min_value, option.max_value
        if high is not None and high >= UNBOUNDED:
            high = None  # a sequence number's bound: no one types it
        if low is not None and high is not None:
            return f"whole number {low}–{high}"
        if low is not None:
            return f"whole number ≥ {low}"
        return f"whole number ≤ {high}" if high is not None else "whole number"
    if option.type == "boolean":
        return "true or false"
    if option.type == "user":
        return "a member (@name)"
    if option.type == "file":
        return "a text file"
    named = f"{option.autocomplete} " if option.autocomplete not in (None, "systems") else ""
    if option.type == "names":
        return f"{named}names, comma-separated"
    text = f"a {option.autocomplete}'s name" if named else "text"
    if option.max_length is not None:
        text += f" of at most {option.max_length} characters"
    return text


def option_need(option: OptionSpec) -> str:
    """``required``, ``default …`` or ``optional`` (a default that says nothing: none, empty).

    >>> option_need(OptionSpec("last", "last", "integer", False, "", default=10))
    'default 10'
    """
    if option.required:
        return "required"
    default = option.default
    if isinstance(default, enum.Enum):
        default = default.value
    if default is None or default == "" or default == ():
        return "optional"
    if isinstance(default, bool):
        return f"default {str(default).lower()}"
    return f"default {default}"


def _sample(option: OptionSpec) -> str:
    """A value an example may give ``option``."""
    if option.choices:
        return str(option.choices[0])
    if option.type == "integer":
        for value in (option.default, option.min_value, 1):
            if isinstance(value, int) and not isinstance(value, bool):
                low = option.min_value if option.min_value is not None else value
                return str(max(value, low, min(2, option.max_value or 2)))
    if option.type == "boolean":
        return "true"
    if option.type == "user":
        return "@alice"
    if option.type == "file":
        return "scenario.txt"
    return SAMPLE_NAMES.get(option.autocomplete or "", "A")


def example(spec: CommandSpec) -> str:
    """One example of the command: :data:`EXAMPLES`', or its required options given a sample
    value (the first option when none is required).

    >>> from bot.commands.registry import build_registry
    >>> example(build_registry({}).commands["game.confirm"])
    '/game confirm entry:2'
    """
    if spec.path in EXAMPLES:
        return EXAMPLES[spec.path]
    given = [o for o in spec.options if o.required] or list(spec.options[:1])
    parts = ["/" + " ".join(spec.words)]
    for option in given:
        value = _sample(option)
        parts.append(f'{option.name}:"{value}"' if " " in value else f"{option.name}:{value}")
    return " ".join(parts)


def command_help(spec: CommandSpec) -> CommandHelp:
    """Everything ``/help`` says about one command."""
    return CommandHelp(
        command="/" + " ".join(spec.words),
        help=spec.help,
        options=tuple(
            OptionHelp(o.name, option_kind(o), option_need(o), o.help) for o in spec.options
        ),
        example=example(spec),
    )


def render_command_text(found: CommandHelp) -> str:
    """One command's help as the console prints it: an aligned line per option."""
    lines = [f"{found.command} — {found.help}"]
    width = max((len(o.name) for o in found.options), default=0) + 3
    for option in found.options:
        lines.append(f"  {option.name:<{width}}{option.kind} · {option.need} — {option.help}")
    if not found.options:
        lines.append("  (no options)")
    lines.append(f"  example: {found.example}")
    return "\n".join(lines)


def option_markdown(option: OptionHelp) -> str:
    """One option as Discord shows it (``/help command:…``)."""
    return f"**{option.name}** · {option.kind} · {option.need} — {option.help}"


def signature(spec: CommandSpec) -> str:
    """The command with its required options (``/asl repair weapon:…``), and how many others.

    >>> from bot.commands.registry import build_registry
    >>> signature(build_registry({}).commands["game.void"])
    '/game void entry:… reason:…'
    >>> signature(build_registry({}).commands["game.log"])
    '/game log [2 options]'
    """
    parts = ["/" + " ".join(spec.words)]
    parts += [f"{o.name}:…" for o in spec.options if o.required]
    optional = sum(not o.required for o in spec.options)
    if optional:
        parts.append(f"[{optional} option{'s' if optional != 1 else ''}]")
    return " ".join(parts)


def group_lines(specs: Iterable[CommandSpec]) -> list[str]:
    """A group's commands for the console: each with its required options and its help."""
    return [f"  {signature(spec)} — {spec.help}" for spec in specs]


@dataclass(frozen=True)
class Group:
    """A top-level command, or a group of commands with their names below the group."""

    name: str
    help: str
    commands: tuple[str, ...] = ()
    """Subcommands' names, as typed after the group (``unit add``); empty for a command."""


def registry_groups(registry: Registry) -> list[Group]:
    """The registry's top-level commands and groups, in order, for :func:`overview`."""
    found: list[Group] = []
    for name, specs in registry.groups().items():
        if len(specs) == 1 and specs[0].words == (name,):
            found.append(Group(name, specs[0].help))
        else:
            subs = tuple(" ".join(spec.words[1:]) for spec in specs)
            found.append(Group(name, GROUP_HELP.get(name, f"/{name} commands"), subs))
    return found


def overview(groups: Sequence[Group], *, markdown: bool) -> list[str]:
    """``/help`` alone: each top-level command with its help, each group with its help and the
    names of its commands (:func:`at_a_glance`), then how to ask for more."""
    lines: list[str] = []
    for group in groups:
        name = f"`/{group.name}`" if markdown else f"/{group.name}"
        lines.append(f"{name} — {group.help}")
        lines += [
            ("↳ " if markdown else "    ") + line
            for line in at_a_glance(group.name, group.commands)
        ]
    lines.append("")
    lines += HOW_TO_ASK
    return lines


HOW_TO_ASK = [
    "/help group:asl — what each command of a group does, with its required options.",
    '/help command:"asl fire" — one command: every option, its type, range and default, '
    "and an example.",
]


def find_command(registry: Registry, typed: str) -> CommandSpec | None:
    """The command a ``/help`` option names (``asl fire``, ``/asl fire``), or None."""
    words = tuple(typed.strip().lstrip("/").lower().split())
    return registry.commands.get(".".join(words)) if words else None


def registry_json(specs: Iterable[CommandSpec]) -> list[dict[str, Any]]:
    """Commands for ``--json``: name, help and every option's help, type, need and example."""
    return [
        {
            "command": "/" + " ".join(spec.words),
            "help": spec.help,
            "example": example(spec),
            "options": [
                {
                    "name": o.name,
                    "required": o.required,
                    "help": o.help,
                    "type": option_kind(o),
                    "need": option_need(o),
                }
                for o in spec.options
            ],
        }
        for spec in specs
    ]


def group_help_of(group_help: Mapping[str, str], prefix: str) -> dict[str, str]:
    """The entries of :data:`GROUP_HELP` for one top-level group (a cog's ``group_help``).

    >>> sorted(group_help_of(GROUP_HELP, "cwb"))
    ['cwb', 'cwb.unit', 'cwb.wagon']
    """
    return {k: v for k, v in group_help.items() if k == prefix or k.startswith(prefix + ".")}


__all__ = [
    "EXAMPLES",
    "GROUP_HELP",
    "THEMES",
    "CommandHelp",
    "Group",
    "OptionHelp",
    "at_a_glance",
    "command_help",
    "example",
    "find_command",
    "group_help_of",
    "group_lines",
    "option_kind",
    "option_markdown",
    "option_need",
    "overview",
    "registry_groups",
    "registry_json",
    "render_command_text",
    "signature",
]
