"""The installed game systems, loaded on first use."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator, Mapping
from typing import Any

from pydantic import BaseModel

from rules_core.outcome import Outcome
from rules_core.system import SYSTEM_NAMES, GameSystem, get_system

_PINNED_OUTCOMES: dict[type[BaseModel], type[BaseModel]] = {}


def pin_outcome_types(systems: Mapping[str, GameSystem[Any, Any]]) -> None:
    """Hold ``Outcome[State]`` of every system for the life of the process.

    The rules build their results as ``Outcome[AslState](...)``; pydantic keeps each
    parametrized class only in a weak cache, so when the last outcome of a class has gone and
    the garbage collector ran, the next action builds the class again (its schema, ~0.7 ms) —
    under load, several times a second. A strong reference here keeps the cache warm.
    """
    for system in systems.values():
        state_type = system.state_type
        if state_type not in _PINNED_OUTCOMES:
            _PINNED_OUTCOMES[state_type] = Outcome[state_type]  # type: ignore[valid-type]


class InstalledSystems(Mapping[str, GameSystem[Any, Any]]):
    """The game systems of ``rules_core`` that are present and expose ``SYSTEM``."""

    def __init__(self) -> None:
        self._systems: dict[str, GameSystem[Any, Any]] | None = None

    def _load(self) -> dict[str, GameSystem[Any, Any]]:
        if self._systems is None:
            found: dict[str, GameSystem[Any, Any]] = {}
            for name in SYSTEM_NAMES:
                if importlib.util.find_spec(f"rules_core.{name}") is None:
                    continue
                try:
                    found[name] = get_system(name)
                except (ImportError, AttributeError):  # a system still being written
                    continue
            self._systems = found
        return self._systems

    def __getitem__(self, name: str) -> GameSystem[Any, Any]:
        return self._load()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._load())

    def __len__(self) -> int:
        return len(self._load())
