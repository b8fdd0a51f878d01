"""The contract every game system (``asl``, ``ocs``, ``cwb``) fulfils for the application.

A system is a pure object: it builds a fresh state, parses actions, says which side an action is
declared for, and resolves an action against a state with injected dice. The application (``bot``)
knows nothing else about a system; it stores states and actions as JSON and replays them.

Conventions a system follows:

* its state is a frozen pydantic model; its actions are frozen pydantic models forming a
  discriminated union on the field ``action`` (``Literal["asl.fire"]`` and so on);
* :meth:`GameSystem.resolve` validates first and raises :class:`~rules_core.errors.RulesError`
  before rolling any die; it returns an :class:`~rules_core.outcome.Outcome` with the new state;
* actions that roll nothing (adding a unit, setting a level) resolve the same way, so the game's
  log holds every change;
* :meth:`GameSystem.odds` enumerates the dice exactly (never samples), grouped by the outcome's
  ``facts``.

**An action model is also the declaration of its command**, so Discord's slash
commands and the console are generated from one source and never drift:

* the ``action`` literal is the command path joined by dots: ``"asl.fire"`` is ``/asl fire``,
  ``"asl.unit.add"`` is ``/asl unit add`` (at most three words: Discord's nesting limit);
* the first line of the class docstring is the command's help text (at most 100 characters);
* each other field is an option: ``replaced_by`` is shown as ``replaced-by``; its
  ``Field(description=...)`` is the option's help text (required, at most 100 characters);
  ``Literal[...]``/``Enum`` types become choices, ``ge``/``le`` become ranges, a field with a
  default is optional, ``tuple[str, ...]`` is typed as a comma-separated list of names;
* ``Field(json_schema_extra={"autocomplete": "weapon"})`` asks for autocomplete from
  :meth:`GameSystem.names` (kinds: ``"side"``, ``"unit"``, ``"weapon"``, ``"dump"``, ``"wagon"``…);
* class variables (ignored by pydantic) say how the application treats the command:
  ``rolls_dice: ClassVar[bool] = True`` for commands that roll (they get ``preview``), and
  ``read_only: ClassVar[bool] = True`` for listings that change nothing (not logged).

**Permission follows what an action touches** (:meth:`GameSystem.concerned_sides`): the sides an
action concerns are derived from the same declaration, so a new command needs no permission code:

* the side the action is declared for (:meth:`GameSystem.acting_side`);
* the current side of every thing an option names: each field carrying
  ``json_schema_extra={"autocomplete": kind}`` is looked up with :meth:`GameSystem.owner_side`
  (``update:true`` of an existing unit concerns that unit's side *and* the side it moves to);
* a field that legitimately names an enemy thing (a fire target, a dump being captured, the side
  whose Player Turn comes next) is marked ``"names_enemy": True`` and concerns no one;
* ``setup: ClassVar[bool] = True`` marks set-up that concerns every side (levels, parameters,
  maps); so does an action that names nothing of any side;
* ``advances_turn: ClassVar[bool] = True`` marks a phase change: it concerns the side whose turn
  it is now (:meth:`GameSystem.turn_side`);
* a field marked ``"referee_only": True`` may be given (set to anything but its default) only by
  a referee.

**A scenario is set up in one step** (:mod:`rules_core.scenario`): a command whose model says
``scenario: ClassVar[bool] = True`` may appear in a scenario's text; the batch is one
:class:`~rules_core.scenario.Setup` action, which every system parses, runs and checks like its own
actions (it concerns the sides its commands concern). :meth:`GameSystem.forces` writes a game's
current forces back out as such commands.
"""

from __future__ import annotations

import functools
import json
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any, ClassVar, Generic, TypeGuard, TypeVar

from pydantic import BaseModel, TypeAdapter, ValidationError

from rules_core.dice import Dice, Roll
from rules_core.errors import InvalidInput, explain_validation_error
from rules_core.odds import exact_odds
from rules_core.outcome import Fact, Outcome, Step
from rules_core.scenario import SETUP_ACTION, Setup, parse_setup, run_setup, setup_sides

S = TypeVar("S", bound=BaseModel)
A = TypeVar("A", bound=BaseModel)


class GameSystem(ABC, Generic[S, A]):
    """Base class of a game system's entry point (see each package's ``SYSTEM``)."""

    name: ClassVar[str]
    """Short name used in commands and storage: ``"asl"``, ``"ocs"``, ``"cwb"``."""
    title: ClassVar[str]
    """Full name for people: ``"Advanced Squad Leader"``."""
    state_type: type[S]
    action_types: tuple[type[BaseModel], ...]
    """Every action model of the system, in the order its commands are listed."""
    action_adapter: TypeAdapter[A]
    rules_version: ClassVar[int] = 1
    """The version of this system's rulings, recorded in every log entry (``rules``). Bump it
    whenever an action that was allowed is refused, an outcome changes, or the state takes
    another form: ``referee verify`` then reports an older export's entries that replay
    differently as ruled under other rules (their rulings not verified) rather than forged."""

    @abstractmethod
    def new_state(self, sides: Sequence[str], options: Mapping[str, Any]) -> S:
        """A fresh game state for these sides and configuration flags."""

    @abstractmethod
    def acting_side(self, state: S, action: A) -> str | None:
        """The side the action is declared for (permission check), or ``None`` if any player may."""

    @abstractmethod
    def resolve(self, state: S, action: A, dice: Dice) -> Outcome[S]:
        """Validate and resolve ``action``; raise a ``RulesError`` before rolling if refused."""

    def names(self, state: S, kind: str) -> list[str]:
        """Names of things of ``kind`` in ``state`` (for autocomplete): units, weapons, dumps…"""
        return []

    def owner_side(self, state: S, kind: str, name: str, acting: str | None = None) -> str | None:
        """The side a named thing of ``kind`` belongs to now, or ``None`` if there is none.

        ``"side"`` names a side itself (its canonical spelling); units, weapons, dumps and wagons
        are looked up in ``state``. ``acting`` is the action's declared side, for things that
        are told apart by side (an OCS dump is one side's supply in a hex). Unknown: ``None``.
        """
        if kind == "side":
            wanted = name.strip().lower()
            return next((s for s in self.names(state, "side") if s.lower() == wanted), None)
        return None

    def turn_side(self, state: S) -> str | None:
        """The side whose Player Turn it is, if the system tracks it (``None`` otherwise)."""
        return None

    def next_to_act(self, state: S) -> str | None:
        """The side whose player must act next in the current phase — the one a turn notice
        names. By default the side whose turn it is; a system where the other side acts in some
        phase (ASL's Defensive Fire Phase) says so."""
        return self.turn_side(state)

    def concerned_sides(self, state: S, action: A) -> frozenset[str]:
        """Every side ``action`` concerns, derived from its model (see the module docstring).

        An action that names nothing of any side, and set-up, concern every side; a scenario's
        set-up (:class:`~rules_core.scenario.Setup`) concerns what its commands concern.
        """
        if is_setup(action):
            return setup_sides(self, state, action, named=False)
        if action_flag(type(action), "setup"):
            return frozenset(self.names(state, "side"))
        return self.named_sides(state, action) or frozenset(self.names(state, "side"))

    def named_sides(self, state: S, action: A) -> frozenset[str]:
        """The sides of what ``action`` names: its declared side, the current side of every
        thing an option names (``names_enemy`` options aside) and, for a phase change, the side
        whose turn it is. Empty when it names nothing of any side."""
        if is_setup(action):
            return setup_sides(self, state, action, named=True)
        model = type(action)
        sides: set[str] = set()
        acting = self.acting_side(state, action)
        if acting:
            sides.add(self.owner_side(state, "side", acting) or acting)
        if action_flag(model, "advances_turn"):
            current = self.turn_side(state)
            if current:
                sides.add(current)
        for name, kind in named_options(model):
            value = getattr(action, name)
            if value is None:
                continue
            values = value if isinstance(value, (tuple, list)) else (value,)
            for item in values:
                text = "" if item is None else str(item).strip()
                if not text:
                    continue
                owner = self.owner_side(state, kind, text, acting)
                if owner:
                    sides.add(owner)
        return frozenset(sides)

    def summary(self, state: S) -> list[str]:
        """A few lines for ``/game status``: levels, markers, dumps… (empty by default)."""
        return []

    def run(self, state: S, action: A, dice: Dice) -> Outcome[S]:
        """Resolve and make sure the outcome lists every die read during resolution.

        A scenario's :class:`~rules_core.scenario.Setup` runs its commands in order, all or none.
        """
        before = len(dice.rolls)
        if is_setup(action):
            outcome: Outcome[S] = run_setup(self, state, action, dice)
        else:
            outcome = self.resolve(state, action, dice)
        read = tuple(dice.rolls[before:])
        if outcome.rolls != read:
            outcome = outcome.model_copy(update={"rolls": read})
        return outcome

    def preview_fields(self, state: S, action: A) -> tuple[tuple[str, str], ...] | None:
        """A player's summary of the odds as named blocks of lines, when listing every whole
        result would be too long; ``None`` (the default) lists :meth:`odds` instead."""
        return None

    def roll_notes(
        self, state: S, category: str, roll: Roll, held: Sequence[str]
    ) -> tuple[Step, ...]:
        """What the rules make of one roll of a ``/roll`` category, each note with its rule;
        ``held`` are the sides whose seat the roller holds. None by default."""
        return ()

    def odds(self, state: S, action: A) -> dict[tuple[Fact, ...], Fraction]:
        """Exact probability of each distinct outcome (by its facts); refuses illegal actions."""
        return exact_odds(lambda dice: self.resolve(state, action, dice).facts)

    def forces(self, state: S) -> list[BaseModel]:
        """The game's current forces as the set-up commands that set them up (in order).

        Fed to a new game as a scenario (:func:`~rules_core.scenario.write_scenario`), they set up
        the same sides' things; what only play produces (this phase's fire, a trace check) is
        not part of them. A system without set-up commands has none to write.
        """
        raise InvalidInput(f"{self.title} cannot write its forces as set-up commands.")

    def parse_action(self, data: Mapping[str, Any] | str | bytes) -> A:
        """An action from its JSON (text or parsed), with a user-safe error on bad input.

        A scenario's :class:`~rules_core.scenario.Setup` (``"game.setup"``) is an action of every
        system; its commands are parsed as this system's.
        """
        if isinstance(data, str | bytes):
            try:
                decoded = json.loads(data)
            except ValueError:
                decoded = None
            if isinstance(decoded, dict) and decoded.get("action") == SETUP_ACTION:
                data = decoded
        if isinstance(data, Mapping) and data.get("action") == SETUP_ACTION:
            setup: A = parse_setup(self, data)  # type: ignore[assignment]
            return setup
        try:
            if isinstance(data, str | bytes):
                return self.action_adapter.validate_json(data)
            return self.action_adapter.validate_python(data)
        except ValidationError as exc:
            raise InvalidInput(_first_error(exc)) from exc

    def parse_state(self, data: Mapping[str, Any] | str | bytes) -> S:
        """A state from its JSON snapshot."""
        if isinstance(data, str | bytes):
            return self.state_type.model_validate_json(data)
        return self.state_type.model_validate(data)


@functools.cache
def named_options(model: type[BaseModel]) -> tuple[tuple[str, str], ...]:
    """The options of ``model`` that name a thing of some side, with the kind of thing
    (``json_schema_extra={"autocomplete": kind}``, ``names_enemy`` ones aside): read once per
    model, then looked up.

    >>> from rules_core.asl.actions import Repair
    >>> named_options(Repair)
    (('weapon', 'weapon'), ('unit', 'unit'))
    """
    named = []
    for name, info in model.model_fields.items():
        extra = info.json_schema_extra
        if not isinstance(extra, dict) or extra.get("names_enemy"):
            continue
        kind = extra.get("autocomplete")
        if isinstance(kind, str):
            named.append((name, kind))
    return tuple(named)


def is_setup(action: BaseModel) -> TypeGuard[Setup]:
    """Whether ``action`` is a scenario's set-up (:class:`~rules_core.scenario.Setup`): asked of
    every action, and answered once per model (``isinstance`` on a pydantic model goes through
    ``ABCMeta``'s check, a few hundred nanoseconds when it fails).

    >>> from rules_core.asl.actions import Fire
    >>> is_setup(Setup(actions=())), is_setup(Fire(weapons=("LMG",)))
    (True, False)
    """
    return _setup_model(type(action))


@functools.cache
def _setup_model(model: type[BaseModel]) -> bool:
    return issubclass(model, Setup)


@functools.cache
def action_flag(model: type[Any], name: str) -> bool:
    """A class-level flag of a command's model (``setup``, ``advances_turn``, ``rolls_dice``,
    ``read_only``; ``False`` when the model does not set it): read once per model, since pydantic
    answers a missing attribute of a model, or of its class, through ``__getattr__`` (a few calls
    and an exception each time).

    >>> from rules_core.asl.actions import Fire, SetPhase
    >>> action_flag(SetPhase, "advances_turn"), action_flag(Fire, "advances_turn")
    (True, False)
    """
    return bool(getattr(model, name, False))


def _first_error(exc: ValidationError) -> str:
    error: dict[str, Any] = dict(exc.errors()[0])
    # a discriminated union puts the action's tag first in the location: drop it
    loc: tuple[int | str, ...] = tuple(error.get("loc", ()))
    if loc and isinstance(loc[0], str) and "." in loc[0]:
        error["loc"] = loc[1:]
    return explain_validation_error(error)


SYSTEM_NAMES: tuple[str, ...] = ("asl", "ocs", "cwb")


def get_system(name: str) -> GameSystem[Any, Any]:
    """The system called ``name`` (imported on first use).

    :raises InvalidInput: for an unknown name.

    >>> get_system("chess")
    Traceback (most recent call last):
    ...
    rules_core.errors.InvalidInput: Unknown game system 'chess'; choose one of asl, ocs, cwb.
    """
    if name not in SYSTEM_NAMES:
        raise InvalidInput(
            f"Unknown game system {name!r}; choose one of {', '.join(SYSTEM_NAMES)}."
        )
    import importlib

    module = importlib.import_module(f"rules_core.{name}")
    system: GameSystem[Any, Any] = module.SYSTEM
    return system


__all__ = ["SYSTEM_NAMES", "GameSystem", "action_flag", "get_system"]
