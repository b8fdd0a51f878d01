"""A scenario set up in one step: a text of set-up commands, checked whole, applied as one action.

The text is one command per line, written as a player types that system's set-up command without
the slash and the system's name (``unit add name:"4-6-7 A" side:Axis kind:squad``); a line may
hold several commands separated by ``;``, and blank lines and lines starting with ``#`` are left
out. Which commands may appear is declared on their models: ``scenario: ClassVar[bool] = True``
(units, weapons, dumps, wagons, levels, parameters, maps — never a command that rolls or changes
the phase).

:class:`Setup` is the action that carries the batch: the service logs it as one entry, and the
rules apply its commands in order to the game's state (:func:`run_setup`), so a replay of the log
reproduces it exactly. Every error of a batch is collected with where it was
(:func:`check_setup`); if there is one, nothing is applied.

The other way round, :func:`write_scenario` writes a game's current forces in the same format
(:meth:`~rules_core.system.GameSystem.forces` lists them as set-up actions), so feeding the text to
a new game sets up the same forces.

>>> split_commands("# a scenario\\nunit add name:A; unit add name:B\\n\\nlevel side:Axis level:2")
[('line 2, command 1', 'unit add name:A'), ('line 2, command 2', 'unit add name:B'), \
('line 4', 'level side:Axis level:2')]
"""

from __future__ import annotations

import enum
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from rules_core.dice import Dice, RecordingDice
from rules_core.errors import InvalidInput, RulesError
from rules_core.outcome import Outcome, Step

SETUP_ACTION = "game.setup"
"""The ``action`` of a :class:`Setup`: the table's ``/game setup`` command."""
MAX_COMMANDS = 500
"""The most set-up commands one scenario may hold (an ordinary scenario has 30 to 60)."""
MAX_LISTED = 10
"""The most errors a refusal lists one by one; the rest are counted."""


class ScenarioSystem(Protocol):
    """What a scenario needs of a game system: :class:`rules_core.system.GameSystem` is one.

    A protocol rather than the class itself, so this module does not import ``system`` (which
    imports it: every system runs a :class:`Setup` like its own actions).
    """

    @property
    def title(self) -> str: ...

    @property
    def action_types(self) -> tuple[type[BaseModel], ...]: ...

    def acting_side(self, state: Any, action: Any) -> str | None: ...

    def named_sides(self, state: Any, action: Any) -> frozenset[str]: ...

    def concerned_sides(self, state: Any, action: Any) -> frozenset[str]: ...

    def run(self, state: Any, action: Any, dice: Dice) -> Outcome[Any]: ...

    def forces(self, state: Any) -> list[BaseModel]: ...

    def parse_action(self, data: Mapping[str, Any] | str | bytes) -> Any: ...


class Setup(BaseModel):
    """A scenario's set-up commands, applied in order as one logged action."""

    model_config = ConfigDict(frozen=True)
    action: Literal["game.setup"] = "game.setup"
    actions: tuple[dict[str, Any], ...] = Field(
        description="The set-up actions, each as its JSON (the command's options)"
    )


def is_scenario_command(model: type[BaseModel]) -> bool:
    """Whether a command may appear in a scenario (its model says ``scenario = True``).

    >>> from rules_core.asl.actions import AddUnit, Fire
    >>> is_scenario_command(AddUnit), is_scenario_command(Fire)
    (True, False)
    """
    return bool(getattr(model, "scenario", False))


def scenario_commands(system: ScenarioSystem) -> tuple[type[BaseModel], ...]:
    """The commands of ``system`` a scenario may hold, in the order the system lists them.

    >>> from rules_core.system import get_system
    >>> [command_words(m) for m in scenario_commands(get_system("asl"))]
    ['level', 'san', 'unit add', 'weapon add']
    """
    return tuple(m for m in system.action_types if is_scenario_command(m))


def command_words(model: type[BaseModel]) -> str:
    """A command's words as a scenario writes them: the path without the system's name.

    >>> from rules_core.ocs.actions import DumpAdd
    >>> command_words(DumpAdd)
    'dump add'
    """
    path = str(model.model_fields["action"].default)
    return " ".join(path.split(".")[1:])


# --- the text ----------------------------------------------------------------------------------


def split_commands(text: str) -> list[tuple[str, str]]:
    """The commands of a scenario's text, each with where it is (``line 3``).

    A ``;`` outside quotes separates commands on one line; blank lines, and lines or commands
    whose first character (after spaces) is ``#``, are left out. Lines end at a line feed, a
    carriage return or both (as an editor numbers them), not at the other characters Python's
    ``str.splitlines`` breaks at (U+2028, form feed, …), so each error's line is the one the
    writer sees.

    >>> split_commands('unit add name:"A; B" side:Axis')
    [('line 1', 'unit add name:"A; B" side:Axis')]
    >>> split_commands('unit add name:"A\\u2028B"\\r\\nlevel side:Axis')
    [('line 1', 'unit add name:"A\\u2028B"'), ('line 2', 'level side:Axis')]
    """
    found: list[tuple[str, str]] = []
    for number, line in enumerate(_LINE_END.split(text), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        parts = [p.strip() for p in _split_outside_quotes(stripped)]
        parts = [p for p in parts if p and not p.startswith("#")]
        for index, part in enumerate(parts, start=1):
            where = f"line {number}" if len(parts) == 1 else f"line {number}, command {index}"
            found.append((where, part))
    return found


_LINE_END = re.compile(r"\r\n|\r|\n")


def _split_outside_quotes(line: str) -> list[str]:
    """A line cut at each ``;`` outside quotes, quotes and backslashes read as the shell-style
    reading of a command line reads them (a backslash escapes the next character outside quotes,
    and ``"`` or ``\\`` inside double quotes).

    >>> _split_outside_quotes('name:"a\\\\";b"; c')
    ['name:"a\\\\";b"', ' c']
    """
    parts: list[str] = []
    current: list[str] = []
    quote: str | None = None
    escaped = False
    for char in line:
        if escaped:
            escaped = False
        elif char == "\\" and quote != "'":
            escaped = True
        elif quote is not None:
            if char == quote:
                quote = None
        elif char in "\"'":
            quote = char
        elif char == ";":
            parts.append("".join(current))
            current = []
            continue
        current.append(char)
    parts.append("".join(current))
    return parts


_BARE = re.compile(r"^[\w@%+=:,./-]+$")


def _value_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, enum.Enum):
        return _value_text(value.value)
    if isinstance(value, tuple | list):
        return _value_text(", ".join(str(_plain(v)) for v in value))
    text = str(value)
    if _BARE.match(text):
        return text
    if '"' not in text and "\\" not in text:
        return f'"{text}"'
    if "'" not in text:
        return f"'{text}'"
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')  # read back by shell-style quotes
    return f'"{escaped}"'


def _plain(value: Any) -> Any:
    return value.value if isinstance(value, enum.Enum) else value


def command_line(action: BaseModel) -> str:
    """The scenario line of a set-up action: its words and every option not at its default.

    >>> from rules_core.asl.actions import AddUnit
    >>> command_line(AddUnit(name="4-6-7 A", side="Axis", kind="squad", quality="4-6-7"))
    'unit add name:"4-6-7 A" side:Axis kind:squad quality:4-6-7'
    """
    model = type(action)
    words = [command_words(model)]
    for name, info in model.model_fields.items():
        if name == "action":
            continue
        value = getattr(action, name)
        if not info.is_required() and value == info.get_default(call_default_factory=True):
            continue
        words.append(f"{name.replace('_', '-')}:{_value_text(value)}")
    return " ".join(words)


def setup_lines(data: Mapping[str, Any]) -> list[str]:
    """Every command of a logged set-up (its JSON), one a line as a scenario writes it: what the
    player asked to confirm a proposed set-up reads before agreeing to it.

    >>> setup_lines({"action": "game.setup", "actions": [
    ...     {"action": "asl.unit.add", "name": "4-4-7 R", "side": "Allied", "kind": "squad"},
    ...     {"action": "asl.level", "side": "Axis", "level": 2}]})
    ['unit add name:"4-4-7 R" side:Allied kind:squad', 'level side:Axis level:2']
    """
    actions = [a for a in data.get("actions", ()) if isinstance(a, Mapping)]
    return [_item_line(item) for item in actions]


def _item_line(item: Mapping[str, Any]) -> str:
    words = " ".join(str(item.get("action", "")).split(".")[1:])
    options = [
        f"{key.replace('_', '-')}:{_value_text(value)}"
        for key, value in item.items()
        if key != "action"
    ]
    return " ".join([words, *options])


def setup_text(data: Mapping[str, Any], limit: int = 3) -> str:
    """A logged set-up (its JSON) as players read it: its first commands as lines, then how many
    more (for a proposal waiting for confirmation; :func:`setup_lines` has them all).

    >>> setup_text({"action": "game.setup", "actions": [
    ...     {"action": "asl.unit.add", "name": "4-4-7 R", "side": "Allied", "kind": "squad"},
    ...     {"action": "asl.level", "side": "Axis", "level": 2}]})
    '/game setup unit add name:"4-4-7 R" side:Allied kind:squad; level side:Axis level:2'
    """
    lines = setup_lines(data)
    more = len(lines) - limit
    tail = f"; … and {more} more command{'s' if more > 1 else ''}" if more > 0 else ""
    return "/game setup " + "; ".join(lines[:limit]) + tail


def write_scenario(system: ScenarioSystem, state: BaseModel, title: str = "") -> str:
    """The game's current forces as a scenario text (see :meth:`GameSystem.forces`).

    >>> from rules_core.system import get_system
    >>> asl = get_system("asl")
    >>> state = asl.new_state(["Axis", "Allied"], {})
    >>> print(write_scenario(asl, state, "Empty"), end="")
    # Empty: Advanced Squad Leader set-up, written by the referee
    # nothing is set up yet
    """
    heading = f"# {title}: " if title else "# "
    lines = [f"{heading}{system.title} set-up, written by the referee"]
    actions = system.forces(state)
    if not actions:
        lines.append("# nothing is set up yet")
    lines += [command_line(action) for action in actions]
    return "\n".join(lines) + "\n"


# --- checking and applying ---------------------------------------------------------------------


class _NoDice(RecordingDice):
    """Dice a set-up command may not read: set-up rolls nothing."""

    def _face(self, sides: int, label: str) -> int:
        raise InvalidInput(f"A set-up command rolls no dice (it asked for {label}).")


REFUSED = "Nothing was set up; fix these and send the whole scenario again:"
"""How a refusal of a scenario begins, to its sender."""


MESSAGE_CHARS = 1900
"""A refusal is at most this long (a Discord message holds 2,000 characters)."""


def located_errors_text(
    errors: Sequence[tuple[str, str]],
    limit: int = MAX_LISTED,
    heading: str = REFUSED,
    chars: int = MESSAGE_CHARS,
) -> str:
    """Errors as one message: the heading, then each error on a line of its own with where it
    is — the first ``limit``, fewer if they would pass ``chars`` — then how many more.

    >>> print(located_errors_text([("ocs.txt line 2", "Give the option side."), ("line 5", "No.")]))
    Nothing was set up; fix these and send the whole scenario again:
    - ocs.txt line 2: Give the option side.
    - line 5: No.
    """
    lines = [heading]
    size = len(heading)
    room = chars - len("\n- … and 999 more errors.")
    for where, message in errors[:limit]:
        line = f"- {where}: {message}" if where else f"- {message}"
        if size + 1 + len(line) > room:
            break
        lines.append(line)
        size += 1 + len(line)
    more = len(errors) - (len(lines) - 1)
    if more > 0:
        lines.append(f"- … and {more} more error{'s' if more > 1 else ''}.")
    return "\n".join(lines)


class SetupRefused(InvalidInput):
    """A scenario with errors: each with where it is; nothing was applied. ``heading`` says to
    whom: its sender (the default), or the player confirming a proposal of it."""

    def __init__(self, errors: Sequence[tuple[str, str]], heading: str = REFUSED) -> None:
        super().__init__(located_errors_text(errors, heading=heading))
        self.errors = tuple(errors)


def check_setup(
    system: ScenarioSystem,
    state: BaseModel,
    actions: Sequence[tuple[str, BaseModel]],
) -> tuple[Outcome[Any], list[tuple[str, str]]]:
    """Apply located set-up actions in order to ``state``; return the outcome and every error.

    An action the rules refuse is left out and the next ones still run (so the errors after it
    are listed too); the outcome is meaningful only when there is no error.
    """
    errors: list[tuple[str, str]] = []
    steps: list[Step] = []
    current = state
    added: list[tuple[str | None, BaseModel]] = []
    if len(actions) > MAX_COMMANDS:
        many = f"it holds {len(actions)} commands; at most {MAX_COMMANDS}."
        errors.append(("the scenario", many))
        return Outcome[Any](state=state), errors
    for where, action in actions:
        if not is_scenario_command(type(action)):
            path = str(getattr(action, "action", type(action).__name__))
            errors.append((where, f"/{path.replace('.', ' ')} is not a set-up command."))
            continue
        referee = _referee_options(action)
        if referee:
            errors.append(
                (where, f"{', '.join(referee)} is a referee's correction, not part of a set-up.")
            )
            continue
        try:
            side = system.acting_side(current, action)
            outcome = system.run(current, action, _NoDice())
        except RulesError as exc:
            errors.append((where, exc.user_message))
            continue
        current = outcome.state
        steps += outcome.steps
        added.append((side, action))
    facts = summary_facts(added)
    return Outcome[Any](state=current, steps=tuple(steps), facts=facts), errors


def _referee_options(action: BaseModel) -> list[str]:
    found = []
    for name, info in type(action).model_fields.items():
        extra = info.json_schema_extra
        given = getattr(action, name) != info.get_default(call_default_factory=True)
        if isinstance(extra, dict) and extra.get("referee_only") and given:
            found.append(name.replace("_", "-"))
    return found


def summary_facts(added: Iterable[tuple[str | None, BaseModel]]) -> tuple[tuple[str, str], ...]:
    """Per side, how many of each thing a set-up added; then the game's settings.

    >>> from rules_core.asl.actions import AddUnit, SetLevel
    >>> summary_facts([("Axis", AddUnit(name="A", side="Axis", kind="squad")),
    ...                ("Axis", AddUnit(name="B", side="Axis", kind="squad")),
    ...                (None, SetLevel(side="Axis", level=2))])
    (('Axis', '2 units'), ('settings', 'level'))
    """
    things: dict[str, Counter[str]] = {}
    settings: list[str] = []
    for side, action in added:
        words = command_words(type(action)).split()
        if side is not None and words[-1] == "add":
            things.setdefault(side, Counter())[" ".join(words[:-1])] += 1
        elif " ".join(words) not in settings:
            settings.append(" ".join(words))
    facts = [
        (side, ", ".join(f"{n} {thing}{'s' if n > 1 else ''}" for thing, n in counts.items()))
        for side, counts in things.items()
    ]
    if settings:
        facts.append(("settings", ", ".join(settings)))
    return tuple(facts)


def parse_setup(system: ScenarioSystem, data: Mapping[str, Any]) -> Setup:
    """A :class:`Setup` from its JSON, each of its actions parsed by ``system`` and normalised.

    :raises InvalidInput: an action that is not a set-up command of ``system``, or is malformed.
    """
    raw = data.get("actions")
    if not isinstance(raw, list | tuple) or not all(isinstance(a, Mapping) for a in raw):
        raise InvalidInput("A set-up holds a list of actions.")
    actions = []
    for number, item in enumerate(raw, start=1):
        action = system.parse_action(item)
        if not is_scenario_command(type(action)):
            raise InvalidInput(f"The set-up's command {number} is not a set-up command.")
        actions.append(action)
    return make_setup(actions)


def make_setup(actions: Iterable[BaseModel]) -> Setup:
    """The :class:`Setup` of these actions (each kept as its JSON, defaults left out).

    >>> from rules_core.asl.actions import SetLevel
    >>> make_setup([SetLevel(side="Axis", level=2)]).actions
    ({'action': 'asl.level', 'side': 'Axis', 'level': 2},)
    """
    return Setup(actions=tuple(_action_json(a) for a in actions))


def _action_json(action: BaseModel) -> dict[str, Any]:
    data: dict[str, Any] = action.model_dump(mode="json", include={"action"})
    data.update(action.model_dump(mode="json", exclude_defaults=True, exclude={"action"}))
    return data


def setup_actions(system: ScenarioSystem, setup: Setup) -> list[BaseModel]:
    """The actions of a :class:`Setup`, parsed by ``system``."""
    return [system.parse_action(item) for item in setup.actions]


def run_setup(system: ScenarioSystem, state: BaseModel, setup: Setup, dice: Dice) -> Outcome[Any]:
    """Apply a set-up's actions in order (each through the rules); all or nothing.

    :raises SetupRefused: listing every action the rules refuse (by its number in the set-up).
    """
    actions = setup_actions(system, setup)
    located = [(f"command {n}", a) for n, a in enumerate(actions, start=1)]
    outcome, errors = check_setup(system, state, located)
    if errors:
        raise SetupRefused(errors)
    return outcome


def setup_sides(
    system: ScenarioSystem, state: BaseModel, setup: Setup, *, named: bool
) -> frozenset[str]:
    """The sides a set-up concerns (or names, with ``named``): those of its actions, each taken
    on the state the actions before it made."""
    sides: set[str] = set()
    current = state
    for action in setup_actions(system, setup):
        if named:
            sides |= system.named_sides(current, action)
        else:
            sides |= system.concerned_sides(current, action)
        try:
            current = system.run(current, action, _NoDice()).state
        except RulesError:
            continue  # refused when the set-up is applied; it concerns what it names
    return frozenset(sides)


__all__ = [
    "MAX_COMMANDS",
    "SETUP_ACTION",
    "ScenarioSystem",
    "Setup",
    "SetupRefused",
    "check_setup",
    "command_line",
    "command_words",
    "is_scenario_command",
    "located_errors_text",
    "make_setup",
    "parse_setup",
    "run_setup",
    "scenario_commands",
    "setup_actions",
    "setup_lines",
    "setup_sides",
    "setup_text",
    "split_commands",
    "summary_facts",
    "write_scenario",
]
