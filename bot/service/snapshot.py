"""The state's snapshot, its canonical JSON (:func:`bot.log.gamelog.state_json`), written faster.

Every entry logs the hash of the state's canonical JSON, so each action serialises the state
whole. The standard library's encoder (sorted keys) is most of that cost; orjson writes the very
same text for every JSON value but floats (orjson writes ``1e16`` where Python writes ``1e+16``)
and integers beyond 64 bits (it refuses them). So a state type whose JSON cannot hold a float —
read once from its schema — is written by orjson, falling back to the standard library for a huge
integer; any other type, and a value the check cannot vouch for, by the standard library.
"""

from __future__ import annotations

import typing
from collections.abc import Mapping
from typing import Any

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
    data: dict[str, Any] = state.model_dump(mode="json", exclude=_PART_NAMES[type(state)])
    kept = _DUMPS
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
    if info.exclude or info.metadata or info.serialization_alias or info.alias:
        return None
    if typing.get_origin(info.annotation) is not tuple:
        return None
    args = typing.get_args(info.annotation)
    if len(args) != 2 or args[1] is not Ellipsis:
        return None
    item = args[0]
    if not (isinstance(item, type) and issubclass(item, BaseModel)):
        return None
    config, decorators = item.model_config, item.__pydantic_decorators__
    if not config.get("frozen") or decorators.model_serializers or decorators.field_serializers:
        return None
    return item


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
