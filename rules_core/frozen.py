"""A frozen model with some fields replaced, without pydantic's generic copy.

``model.model_copy(update=...)`` validates nothing; it copies the instance through
:meth:`BaseModel.__copy__` (three calls of :func:`copy.copy`, a private-attribute check) and then
applies the update. The rules copy their frozen states, units and weapons at every action, so
:func:`replaced` does the very same in a few lines: the same ``__dict__`` (the look-up indexes an
:class:`~rules_core.asl.state.AslState` keeps there included), the same set of fields set, no
extra or private values (a model with any falls back to ``model_copy``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)

_set = object.__setattr__


def replaced(model: M, update: Mapping[str, Any]) -> M:
    """``model.model_copy(update=update)``: a copy of ``model`` with ``update``'s fields replaced
    (not validated: the values must be valid for their fields, as they must for ``model_copy``).

    >>> from rules_core.outcome import Step
    >>> step = Step(rule="A1", text="a")
    >>> copy = replaced(step, {"text": "b"})
    >>> copy == step.model_copy(update={"text": "b"}), copy.text, step.text
    (True, 'b', 'a')
    >>> copy.model_fields_set == step.model_copy(update={"text": "b"}).model_fields_set
    True
    """
    if model.__pydantic_extra__ is not None or model.__pydantic_private__ is not None:
        return model.model_copy(update=update)
    cls = type(model)
    new = cls.__new__(cls)
    values = model.__dict__.copy()
    values.update(update)
    _set(new, "__dict__", values)
    _set(new, "__pydantic_extra__", None)
    _set(new, "__pydantic_fields_set__", model.__pydantic_fields_set__ | update.keys())
    _set(new, "__pydantic_private__", None)
    return new


__all__ = ["replaced"]
