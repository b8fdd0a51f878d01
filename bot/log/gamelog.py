"""The game log's entries: canonical JSON, the hash chain, and replaying actions through rules_core.

An entry is a JSON object; its *body* is the canonical JSON of the object (keys sorted, no
whitespace, UTF-8, non-ASCII kept as is) and its hash is the lowercase hex SHA-256 of the body.
Each body holds ``prev``, the hash of the entry before it (64 zeros for the first), so editing,
removing or reordering any entry breaks the chain. ``docs/EXPORT.md`` lists every field.

>>> body, digest = seal({"seq": 1, "prev": GENESIS_PREV, "kind": "game.new"})
>>> body[:24]
'{"kind":"game.new","prev'
>>> len(digest)
64
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

import orjson
from pydantic import BaseModel

from rules_core.dice import ScriptedDice
from rules_core.outcome import Outcome
from rules_core.system import GameSystem

FORMAT_VERSION = 2
"""The version of the entry format (``"v"`` in every entry, ``version`` in an export header)."""
GENESIS_PREV = "0" * 64
"""The ``prev`` of a game's first entry."""

VOIDABLE = frozenset({"action", "roll", "resolved"})
"""Entry kinds a referee may void: system actions and free rolls (a beacon game's resolved)."""


_CANONICAL = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
)
"""One encoder for every entry (``json.dumps`` with these options builds a new one per call)."""


def canonical(data: Any) -> str:
    """Canonical JSON: sorted keys, no whitespace, non-ASCII kept; NaN and infinities refused
    (they are not JSON, and other parsers reject them).

    >>> canonical({"b": 1, "a": "é"})
    '{"a":"é","b":1}'
    >>> canonical({"x": float("nan")})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: Out of range float values are not JSON compliant...
    >>> canonical({"x": [1.5, None, True]}) == json.dumps(
    ...     {"x": [1.5, None, True]}, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    True
    """
    return _CANONICAL.encode(data)


def entry_hash(body: str) -> str:
    """The hash of an entry: lowercase hex SHA-256 of its canonical body in UTF-8.

    >>> entry_hash("{}")[:12]
    '44136fa355b3'
    """
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def seal(entry: Mapping[str, Any], *, plain: bool = False) -> tuple[str, str]:
    """The canonical body of an entry and its hash.

    ``plain``: the caller vouches that the entry holds JSON's own values only — strings,
    integers, booleans, nulls, lists and objects with string keys — and no float (an entry made
    of ``model_dump(mode="json")`` of float-free models, :func:`bot.service.snapshot.float_free`).
    orjson then writes it: the very text of :func:`canonical` (which writes floats otherwise,
    ``1e+16`` where orjson writes ``1e16``), several times faster; what orjson refuses (an
    integer beyond 64 bits, a key that is no string) is written by :func:`canonical`.

    >>> entry = {"seq": 2, "by": {"name": "Zoë \\"Z\\"", "id": 7}, "dice": [], "ok": True}
    >>> seal(entry, plain=True) == seal(entry)
    True
    >>> seal({"n": 2**70}, plain=True) == seal({"n": 2**70})
    True
    """
    if plain:
        try:
            data = orjson.dumps(entry, option=orjson.OPT_SORT_KEYS)
        except TypeError:  # orjson.JSONEncodeError: left to the standard library
            pass
        else:
            return data.decode(), hashlib.sha256(data).hexdigest()
    body = canonical(entry)
    return body, entry_hash(body)


def state_json(state: BaseModel) -> str:
    """The canonical JSON snapshot of a state."""
    return canonical(state.model_dump(mode="json"))


def state_hash(snapshot: str) -> str:
    """The SHA-256 of a canonical snapshot, logged in every entry as ``state``."""
    return hashlib.sha256(snapshot.encode("utf-8")).hexdigest()


def outcome_json(outcome: Outcome[Any]) -> dict[str, Any]:
    """What the log keeps of an outcome: steps, rolls and facts (the state is hashed apart)."""
    data: dict[str, Any] = outcome.model_dump(mode="json", include={"steps", "rolls", "facts"})
    return data


class ReplayError(Exception):
    """An entry could not be replayed: it now reads other dice or the rules refuse it."""

    def __init__(self, seq: int, reason: str) -> None:
        super().__init__(f"entry {seq}: {reason}")
        self.seq = seq
        self.reason = reason


def replay_action(
    system: GameSystem[Any, Any], state: BaseModel, entry: Mapping[str, Any]
) -> Outcome[Any]:
    """Resolve a logged action again with the faces it logged.

    :raises ReplayError: if the rules refuse it now or it does not read exactly its logged dice.
    """
    faces = [int(die["face"]) for die in entry.get("dice", ())]
    dice = ScriptedDice(faces)
    seq = int(entry["seq"])
    try:
        action = system.parse_action(entry["action"])
        outcome = system.run(state, action, dice)
        dice.assert_used_up()
    except Exception as exc:  # every failure of a replay is reported with its entry
        raise ReplayError(seq, str(exc)) from exc
    sides = [int(die["sides"]) for die in entry.get("dice", ())]
    read = [roll.sides for roll in outcome.rolls for _ in roll.faces]
    if read != sides:
        raise ReplayError(seq, f"read dice of sizes {read}, the log has {sides}")
    return outcome


def _is_action(entry: Mapping[str, Any]) -> bool:
    """An action entry, or a beacon game's resolution of a declared action."""
    kind = entry["kind"]
    return bool(kind == "action" or (kind == "resolved" and entry.get("resolves") == "action"))


def rebuild_state(
    system: GameSystem[Any, Any], entries: Iterable[Mapping[str, Any]], voided: set[int]
) -> BaseModel:
    """The state after replaying every entry except the voided ones, from the game's start.

    :raises ReplayError: when a later entry can no longer be replayed.
    """
    state: BaseModel | None = None
    for entry in entries:
        kind = entry["kind"]
        if kind == "game.new":
            state = system.new_state(tuple(entry["sides"]), dict(entry.get("options", {})))
        elif _is_action(entry) and int(entry["seq"]) not in voided:
            assert state is not None
            state = replay_action(system, state, entry).state
    if state is None:
        raise ReplayError(0, "the log has no game.new entry")
    return state


__all__ = [
    "FORMAT_VERSION",
    "GENESIS_PREV",
    "VOIDABLE",
    "ReplayError",
    "canonical",
    "entry_hash",
    "outcome_json",
    "rebuild_state",
    "replay_action",
    "seal",
    "state_hash",
    "state_json",
]
