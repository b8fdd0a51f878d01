"""The state's snapshot, its canonical JSON (:func:`bot.log.gamelog.state_json`), written faster.

Every entry logs the hash of the state's canonical JSON, so each action serialises the state
whole. The standard library's encoder (sorted keys) is most of that cost; orjson writes the very
same text for every JSON value but floats (orjson writes ``1e16`` where Python writes ``1e+16``)
and integers beyond 64 bits (it refuses them). So a state type whose JSON cannot hold a float —
read once from its schema — is written by orjson, falling back to the standard library for a huge
integer; any other type, and a value the check cannot vouch for, by the standard library.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping
from typing import Any, TypeGuard

import orjson
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from bot.log.gamelog import state_json

_SCALARS = frozenset({"string", "integer", "boolean", "null"})


def snapshot(state: BaseModel) -> str:
    """``state_json(state)``, the same text, faster for a state type that holds no float.

    >>> from rules_core.asl.examples import fb16_fire_group
    >>> state = fb16_fire_group()
    >>> snapshot(state) == state_json(state)
    True
    """
    if float_free(type(state)):
        try:
            return orjson.dumps(dumped(state), option=orjson.OPT_SORT_KEYS).decode()
        except TypeError:  # an integer beyond 64 bits
            pass
    return state_json(state)


def dumped(state: BaseModel) -> dict[str, Any]:
    """``state.model_dump(mode="json")``, with the dumps of the items of its tuples of frozen
    models (units, weapons…) kept from the action before: an action changes a few of them and
    the rules keep the others as they are, the same objects (:func:`_parts`).

    >>> from rules_core.asl.examples import fb16_fire_group
    >>> state = fb16_fire_group()
    >>> dumped(state) == state.model_dump(mode="json")
    True
    """
    parts = _parts(type(state))
    if not parts:
        return state.model_dump(mode="json")
    kept = _DUMPS
    data = _others(state, kept)
    if data is None:
        data = state.model_dump(mode="json", exclude=_PART_NAMES[type(state)])
    for name, item_type in parts.items():
        items = []
        for item in getattr(state, name):
            if type(item) is not item_type:  # a subclass: dumped as its field declares it
                return state.model_dump(mode="json")
            known = kept.get(id(item))
            if known is None or known[0] is not item:
                if len(kept) >= KEPT_DUMPS:
                    kept.clear()
                known = kept[id(item)] = (item, item.model_dump(mode="json"))
            items.append(known[1])
        data[name] = items
    return data


def _others(
    state: BaseModel, kept: dict[int, tuple[BaseModel, dict[str, Any]]]
) -> dict[str, Any] | None:
    """The state's fields besides its parts as ``model_dump(mode="json")`` writes them, read
    without pydantic when every one is a plain value of a type its field declares (``str``,
    ``int``, ``bool``, ``None``, a ``Literal`` of those), written as it is, or a frozen model,
    whose dump is kept as an item's (:func:`_plain_fields`); None: ask pydantic."""
    plan = _plain_fields(type(state))
    if plan is None:
        return None
    data: dict[str, Any] = {}
    for name, kinds, model in plan:
        value = getattr(state, name)
        if model is None:
            if type(value) not in kinds:  # not what the field declares (a bool for an int…)
                return None
            data[name] = value
            continue
        if type(value) is not model:
            return None
        known = kept.get(id(value))
        if known is None or known[0] is not value:
            if len(kept) >= KEPT_DUMPS:
                kept.clear()
            known = kept[id(value)] = (value, value.model_dump(mode="json"))
        data[name] = known[1]
    return data


_Plan = tuple[tuple[str, frozenset[type], type[BaseModel] | None], ...]
_PLANS: dict[type[BaseModel], _Plan | None] = {}


def _plain_fields(model: type[BaseModel]) -> _Plan | None:
    """Each field of ``model`` besides its parts with the types of value written as they are,
    or the frozen model whose dump is kept; None when any field is neither, or the model has
    computed fields (read once per model).

    >>> from rules_core.asl.state import AslState
    >>> [(name, sorted(t.__name__ for t in kinds), m and m.__name__)
    ...  for name, kinds, m in _plain_fields(AslState)]  # doctest: +NORMALIZE_WHITESPACE
    [('phase', ['NoneType', 'str'], None), ('phase_side', ['NoneType', 'str'], None),
     ('turn', ['int'], None), ('config', [], 'AslConfig')]
    """
    if model in _PLANS:
        return _PLANS[model]
    parts = _parts(model)
    plan: list[tuple[str, frozenset[type], type[BaseModel] | None]] = []
    for name, info in model.model_fields.items():
        if name in parts:
            continue
        kinds = _plain_kinds(info)
        item = _frozen_model(info) if kinds is None else None
        if kinds is None and item is None:
            _PLANS[model] = None
            return None
        plan.append((name, kinds or frozenset(), item))
    known = _PLANS[model] = None if model.model_computed_fields else tuple(plan)
    return known


_PLAIN = {str: str, int: int, bool: bool, type(None): type(None)}


def _plain_kinds(info: FieldInfo) -> frozenset[type] | None:
    """The types of a field declared ``str``, ``int``, ``bool``, ``None``, a ``Literal`` of
    those, or a union of these, with nothing else said of it; None for any other field."""
    if info.exclude or info.metadata or info.serialization_alias or info.alias:
        return None
    kinds: set[type] = set()
    pending = [info.annotation]
    while pending:
        annotation = pending.pop()
        origin = typing.get_origin(annotation)
        if origin in (typing.Union, types.UnionType):
            pending.extend(typing.get_args(annotation))
        elif origin is typing.Literal:
            values = typing.get_args(annotation)
            if not all(type(v) in _PLAIN for v in values):
                return None
            kinds.update(type(v) for v in values)
        elif annotation in _PLAIN:
            kinds.add(_PLAIN[annotation])
        else:
            return None
    return frozenset(kinds)


def _frozen_model(info: FieldInfo) -> type[BaseModel] | None:
    """``Model`` of a field declared a frozen model with nothing else said of it (its dump,
    like an item's, is the model's own ``model_dump``)."""
    model = info.annotation
    return model if _plain(info) and _frozen_as_itself(model) else None


def _plain(info: FieldInfo) -> bool:
    """Whether nothing else is said of a field than its type (no exclusion, alias, metadata)."""
    return not (info.exclude or info.metadata or info.serialization_alias or info.alias)


def _frozen_as_itself(model: Any) -> TypeGuard[type[BaseModel]]:
    """Whether ``model`` is a frozen model with no serializer of its own (its dump is its
    fields')."""
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        return False
    config, decorators = model.model_config, model.__pydantic_decorators__
    serialized = decorators.model_serializers or decorators.field_serializers
    return bool(config.get("frozen")) and not serialized


KEPT_DUMPS = 2048
"""At most this many items' dumps are kept (then all are forgotten and kept afresh): a few per
game in play; each keeps its item alive, so its ``id`` is not reused while it is kept."""
_DUMPS: dict[int, tuple[BaseModel, dict[str, Any]]] = {}


def _parts(model: type[BaseModel]) -> dict[str, type[BaseModel]]:
    """The fields of ``model`` declared ``tuple[Item, ...]`` of a frozen model ``Item`` that
    ``model_dump`` writes as the list of each item's own ``model_dump`` — no serializer, alias or
    exclusion of its own, nor of ``model`` — with their item types (read once per model).

    >>> from rules_core.asl.state import AslState
    >>> sorted(_parts(AslState))
    ['fire_lanes', 'shots', 'sides', 'units', 'weapons']
    """
    known = _PARTS.get(model)
    if known is None:
        known = _PARTS[model] = {}
        decorators = model.__pydantic_decorators__
        if not (decorators.model_serializers or decorators.field_serializers):
            for name, info in model.model_fields.items():
                item = _item_type(info)
                if item is not None:
                    known[name] = item
        _PART_NAMES[model] = set(known)
    return known


_PARTS: dict[type[BaseModel], dict[str, type[BaseModel]]] = {}
_PART_NAMES: dict[type[BaseModel], set[str]] = {}
"""The names of each model's parts (:func:`_parts`), excluded from its own dump (read only)."""


def _item_type(info: FieldInfo) -> type[BaseModel] | None:
    """``Item`` of a field declared ``tuple[Item, ...]`` with nothing else said of it."""
    if not _plain(info) or typing.get_origin(info.annotation) is not tuple:
        return None
    args = typing.get_args(info.annotation)
    if len(args) != 2 or args[1] is not Ellipsis:
        return None
    return args[0] if _frozen_as_itself(args[0]) else None


def float_free(model: type[BaseModel]) -> bool:
    """Whether no value of ``model`` can serialise to JSON holding a float, by its schema: only
    strings, integers, booleans, nulls, and arrays and objects of those (an untyped value, ``Any``,
    may be anything, so it is not float-free).

    >>> class Fine(BaseModel):
    ...     name: str
    ...     counts: dict[str, int] = {}
    ...     marks: tuple[str, ...] = ()
    >>> class Rate(BaseModel):
    ...     rate: float
    >>> class Loose(BaseModel):
    ...     options: dict[str, Any] = {}
    >>> float_free(Fine), float_free(Rate), float_free(Loose)
    (True, False, False)
    """
    known = _FLOAT_FREE.get(model)
    if known is None:
        schema = model.model_json_schema(mode="serialization")
        known = _FLOAT_FREE[model] = _float_free(schema, schema.get("$defs", {}), set())
    return known


_FLOAT_FREE: dict[type[BaseModel], bool] = {}
"""What :func:`float_free` found of each model (read once per model)."""


def _float_free(node: Any, defs: Mapping[str, Any], seen: set[str]) -> bool:
    if not isinstance(node, Mapping):
        return False
    if "$ref" in node:
        name = str(node["$ref"]).rsplit("/", 1)[-1]
        if name in seen:  # a recursive model: its other branches decide
            return True
        return name in defs and _float_free(defs[name], defs, seen | {name})
    for key in ("anyOf", "oneOf", "allOf"):
        if key in node:
            return all(_float_free(branch, defs, seen) for branch in node[key])
    if "enum" in node or "const" in node:
        values = node.get("enum", [node.get("const")])
        return not any(isinstance(value, float) for value in values)
    kind = node.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    return bool(kinds) and all(_kind_float_free(k, node, defs, seen) for k in kinds)


def _kind_float_free(
    kind: Any, node: Mapping[str, Any], defs: Mapping[str, Any], seen: set[str]
) -> bool:
    if kind in _SCALARS:
        return True
    if kind == "array":
        parts = [*node.get("prefixItems", ())]
        if "items" in node:
            parts.append(node["items"])
        elif not parts:
            return False  # items of any kind
        return all(_float_free(part, defs, seen) for part in parts)
    if kind == "object":
        extra = node.get("additionalProperties")
        if extra is True or (extra is None and "properties" not in node):
            return False  # values of any kind
        values = list(node.get("properties", {}).values())
        if isinstance(extra, Mapping):
            values.append(extra)
        return all(_float_free(value, defs, seen) for value in values)
    return False  # "number", or no type at all
