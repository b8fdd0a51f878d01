"""Outcomes: the new state, the dice read, and a step-by-step explanation citing rules.

A resolution returns an :class:`Outcome`, a tree in the spirit of avrae/d20's results: it keeps
every die that was rolled and every rule that was applied, and ``bot/render`` turns it into an
embed or plain text. The core never formats for Discord.

* :class:`Step` — one line of the explanation: the rule number, what happened, the dice it read
  and the modifiers it applied.
* :class:`Modifier` — a labelled drm/DRM (``+1 CX``, ``-1 1945``), with its rule where known.
* ``facts`` — a small, hashable summary of what happened, as ``(subject, result)`` pairs such as
  ``("HMG", "malfunctioned")`` or ``("ROF (LMG)", "kept")``. Exact odds group outcomes by their
  facts, and renderers use them for the at-a-glance summary.

>>> from rules_core.dice import Roll
>>> ift = Roll(label="IFT DR", kind="DR", sides=6, faces=(6, 6))
>>> step = Step(rule="FB16.31", text="Original DR 12 ≥ B12 — LMG eliminated", dice=(ift,))
>>> step.render()
'FB16.31: Original DR 12 ≥ B12 — LMG eliminated'
>>> Modifier(label="CX", value=1, rule="C13.31").render()
'+1 CX'
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Generic, TypeVar

from pydantic import BaseModel, ConfigDict

from rules_core.dice import Roll

Fact = tuple[str, str]
"""``(subject, result)``, e.g. ``("LMG", "malfunctioned")``."""

StateT = TypeVar("StateT", bound=BaseModel)


class Modifier(BaseModel):
    """A die-roll modifier with its reason.

    >>> Modifier(label="1945", value=-1).render()
    '-1 1945'
    """

    model_config = ConfigDict(frozen=True)

    label: str
    value: int
    rule: str | None = None

    def render(self) -> str:
        """Signed value then label: ``+1 CX``."""
        return f"{self.value:+d} {self.label}"


class Step(BaseModel):
    """One line of an explanation: the rule applied and what it did.

    >>> Step(rule="A9.2", text="colored dr 1 ≤ ROF 1 — MG keeps Multiple ROF").render()
    'A9.2: colored dr 1 ≤ ROF 1 — MG keeps Multiple ROF'
    """

    model_config = ConfigDict(frozen=True)

    rule: str
    text: str
    dice: tuple[Roll, ...] = ()
    modifiers: tuple[Modifier, ...] = ()

    def render(self) -> str:
        """``RULE: text`` — the form players quote back at each other."""
        return f"{self.rule}: {self.text}"


def total_modifier(modifiers: Iterable[Modifier]) -> int:
    """The sum of a list of modifiers.

    >>> total_modifier([Modifier(label="CX", value=1), Modifier(label="1945", value=-1)])
    0
    """
    return sum(m.value for m in modifiers)


class Outcome(BaseModel, Generic[StateT]):
    """What a resolved action produced.

    :ivar state: the new state (the old one is never changed; states are frozen).
    :ivar steps: the explanation, one :class:`Step` per rule applied, in order.
    :ivar rolls: every die read, in the order rolled.
    :ivar facts: hashable ``(subject, result)`` summary used for odds and headlines.
    """

    model_config = ConfigDict(frozen=True)

    state: StateT
    steps: tuple[Step, ...] = ()
    rolls: tuple[Roll, ...] = ()
    facts: tuple[Fact, ...] = ()

    def explanation(self) -> list[str]:
        """The explanation as text lines, one per step."""
        return [step.render() for step in self.steps]

    def rules_cited(self) -> list[str]:
        """The rule numbers of the steps, in order (repeats kept)."""
        return [step.rule for step in self.steps]

    def fact(self, subject: str) -> str | None:
        """The result recorded for ``subject``, or ``None``."""
        for key, value in self.facts:
            if key == subject:
                return value
        return None


__all__ = ["Fact", "Modifier", "Outcome", "StateT", "Step", "total_modifier"]
