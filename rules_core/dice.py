"""The dice protocol: every die the rules read comes from an injected :class:`Dice`.

The rules never draw randomness of their own. They ask an injected object for

* ``DR(label)`` — a two-dice roll, returned as ``(colored, white)`` (ASL renders the colored die
  first: ``DR 11 (5,6)``);
* ``dr(label)`` — one six-sided die;
* ``d(sides, label)`` — one die of any size, e.g. ``d(100, ...)`` for a percentage.

Every roll is recorded as a :class:`Roll` with the label the rule gave it ("IFT DR",
"Random Selection dr (LMG)", "Repair dr"), so outcomes can say exactly which dice they read.
Implementations only decide where faces come from: :class:`ScriptedDice` for tests and scripted
play, the odds enumerator in :mod:`rules_core.odds`, and the verifiable generator in ``bot``.

>>> dice = ScriptedDice([5, 6, 3])
>>> dice.DR("IFT DR")
(5, 6)
>>> dice.dr("Repair dr")
3
>>> [r.render() for r in dice.rolls]
['IFT DR 11 (5,6)', 'Repair dr 3']
>>> dice.assert_used_up()
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from typing import Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from rules_core.words import counted

RollKind = Literal["DR", "dr", "d"]


class Roll(BaseModel):
    """One recorded roll: its label, the kind of roll, the die size and the faces.

    For a DR, ``faces`` is ``(colored, white)``.

    >>> Roll(label="IFT DR", kind="DR", sides=6, faces=(5, 6)).total
    11
    >>> Roll(label="Ammo loss d100", kind="d", sides=100, faces=(4,)).render()
    'Ammo loss d100 4'
    """

    model_config = ConfigDict(frozen=True)

    label: str
    kind: RollKind
    sides: int
    faces: tuple[int, ...]

    @property
    def total(self) -> int:
        """The Original roll: the sum of the faces."""
        return sum(self.faces)

    @property
    def colored(self) -> int:
        """The colored die of a DR (the first face).

        >>> Roll(label="IFT DR", kind="DR", sides=6, faces=(2, 5)).colored
        2
        """
        return self.faces[0]

    def render(self) -> str:
        """ASL-style text: ``IFT DR 11 (5,6)``, ``Repair dr 3``."""
        if self.kind == "DR":
            return f"{self.label} {self.total} ({self.faces[0]},{self.faces[1]})"
        return f"{self.label} {self.total}"


@runtime_checkable
class Dice(Protocol):
    """What a rule function may ask of the dice it is given."""

    @property
    def rolls(self) -> Sequence[Roll]:
        """Every roll made so far, in order."""
        ...

    def dr(self, label: str) -> int:
        """Roll one six-sided die."""
        ...

    def DR(self, label: str) -> tuple[int, int]:
        """Roll two six-sided dice; return ``(colored, white)``."""
        ...

    def d(self, sides: int, label: str) -> int:
        """Roll one die with ``sides`` faces (1..sides)."""
        ...


class DiceScriptError(Exception):
    """A dice script ran out, was not used up, or held a face the die cannot show."""


class RecordingDice(ABC):
    """Base for dice implementations: records every roll; subclasses supply faces.

    A subclass implements :meth:`_face`, which returns one face in ``1..sides``.
    """

    def __init__(self) -> None:
        self._rolls: list[Roll] = []

    @property
    def rolls(self) -> Sequence[Roll]:
        return tuple(self._rolls)

    @property
    def last(self) -> Roll:
        """The most recent roll (handy for attaching it to an explanation step)."""
        if not self._rolls:
            raise DiceScriptError("no die has been rolled yet")
        return self._rolls[-1]

    @abstractmethod
    def _face(self, sides: int, label: str) -> int:
        """Return one face in ``1..sides`` for the die labelled ``label``."""

    def dr(self, label: str) -> int:
        face = self._face(6, label)
        self._rolls.append(Roll(label=label, kind="dr", sides=6, faces=(face,)))
        return face

    def DR(self, label: str) -> tuple[int, int]:
        colored = self._face(6, f"{label} (colored)")
        white = self._face(6, f"{label} (white)")
        self._rolls.append(Roll(label=label, kind="DR", sides=6, faces=(colored, white)))
        return colored, white

    def d(self, sides: int, label: str) -> int:
        if sides < 2:
            raise ValueError(f"a die needs at least 2 sides, not {sides}")
        face = self._face(sides, label)
        self._rolls.append(Roll(label=label, kind="d", sides=sides, faces=(face,)))
        return face


class ScriptedDice(RecordingDice):
    """Dice that return a fixed script of faces, for tests and scripted play.

    A DR consumes two faces (colored, then white). The script fails loudly: running out raises
    :class:`DiceScriptError`, a face the die cannot show raises it too, and
    :meth:`assert_used_up` (or leaving a ``with`` block) raises when faces are left over.

    >>> dice = ScriptedDice([4])
    >>> dice.dr("ROF dr")
    4
    >>> dice.dr("ROF dr")
    Traceback (most recent call last):
    ...
    rules_core.dice.DiceScriptError: dice script ran out at 'ROF dr' after 1 face
    >>> with ScriptedDice([1, 2]) as d:
    ...     d.dr("dr")
    Traceback (most recent call last):
    ...
    rules_core.dice.DiceScriptError: dice script not used up: 1 face left: [2]
    """

    def __init__(self, faces: Iterable[int]) -> None:
        super().__init__()
        self._script = list(faces)
        self._used = 0

    @property
    def remaining(self) -> tuple[int, ...]:
        """Faces not yet consumed."""
        return tuple(self._script[self._used :])

    def _face(self, sides: int, label: str) -> int:
        if self._used >= len(self._script):
            raise DiceScriptError(
                f"dice script ran out at {label!r} after {counted(self._used, 'face')}"
            )
        face = self._script[self._used]
        if not 1 <= face <= sides:
            raise DiceScriptError(f"scripted face {face} at {label!r} is not a face of a d{sides}")
        self._used += 1
        return face

    def assert_used_up(self) -> None:
        """Raise :class:`DiceScriptError` if any scripted face was not consumed."""
        if self.remaining:
            raise DiceScriptError(
                f"dice script not used up: {counted(len(self.remaining), 'face')} left: "
                f"{list(self.remaining)}"
            )

    def __enter__(self) -> ScriptedDice:
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is None:
            self.assert_used_up()


__all__ = ["Dice", "DiceScriptError", "RecordingDice", "Roll", "RollKind", "ScriptedDice"]
