"""Reading an export strictly, with nothing but the Python standard library (a part of the
standalone checker ``bot/log/verify_dice.py``, docs/EXPORT.md).

A line is refused unless it is its own canonical JSON with integers only; every key a checker
reads must be there with its type; an entry of a version this reader does not know is refused;
in entries of version 2, ``sides`` is required where it is recorded and the names of new things
and the free text must be what the bot would have taken.
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from datetime import datetime
from typing import Any

FORMAT = "referee-game-log"
VERSIONS = (1, 2)
"""The export format versions (the header's ``version``) and entry versions (``v``) known here."""
DERIVATIONS = {"docs/DICE.md version 1": 1, "docs/DICE.md version 2": 2}
"""The dice derivations a header may name (``dice``): 1 for server dice, 2 for beacon games."""
GENESIS_PREV = "0" * 64
KINDS_WITH_SIDES = ("action", "roll", "declared", "resolved")
"""Entries that record ``sides``: required from entry version 2 on."""


# --- reading the export strictly ------------------------------------------------------------


_ENCODER = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
)
_DECODER = json.JSONDecoder(
    parse_float=lambda text: _no_number(text), parse_constant=lambda text: _no_number(text)
)


def canonical(obj: object) -> str:
    """``json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)``."""
    return _ENCODER.encode(obj)


class Mismatch(Exception):
    def __init__(self, seq: int, text: str) -> None:
        super().__init__(f"entry {seq}: {text}")
        self.seq = seq


def split_lines(text: str) -> list[str]:
    """The export's lines: split on "\\n" only (JSON Lines), so a U+2028, U+0085 or any other
    Unicode line separator inside a string (a roll's reason) stays in its line."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _no_number(text: str) -> Any:
    raise ValueError(f"{text} is not an integer (the log holds integers only)")


def read_line(line: str, where: int) -> Any:
    """One line as JSON, refused unless it is its own canonical form with integers only: no
    ``6.0``, no duplicate key, no escape or space the bot does not write."""
    try:
        value = _DECODER.decode(line)
    except ValueError as exc:
        raise Mismatch(where, f"is not a line of JSON the bot writes ({exc})") from None
    if not isinstance(value, dict) or canonical(value) != line:
        raise Mismatch(where, "is not written in canonical JSON (docs/EXPORT.md)")
    return value


def is_int(v: Any) -> bool:
    return type(v) is int  # never a bool: true is not 1 here


def is_str(v: Any) -> bool:
    return type(v) is str


def is_hex(v: Any, digits: int | None = None) -> bool:
    return (
        is_str(v)
        and re.fullmatch("(?:[0-9a-f]{2})*", v) is not None
        and (digits is None or len(v) == digits)
    )


def is_hex64(v: Any) -> bool:
    return is_hex(v, 64)


def is_names(v: Any) -> bool:
    return type(v) is list and all(is_str(x) for x in v)


def is_user(v: Any) -> bool:
    return type(v) is dict and is_int(v.get("id")) and is_str(v.get("name"))


def is_by(v: Any) -> bool:
    return is_user(v) and v.get("server_referee", True) is True


def is_roll(v: Any) -> bool:
    faces = v.get("faces") if type(v) is dict else None
    return (
        type(faces) is list and all(is_int(f) for f in faces) and is_int(v.get("sides"))
        and is_str(v.get("kind")) and is_str(v.get("label"))
    )  # fmt: skip


def is_rolls(v: Any) -> bool:
    return type(v) is list and all(is_roll(r) for r in v)


def is_die(v: Any) -> bool:
    return (
        type(v) is dict and all(is_int(v.get(k)) for k in ("seq", "sides", "face", "epoch"))
        and is_str(v.get("label")) and type(v.get("scripted")) is bool and v["sides"] >= 2
    )  # fmt: skip


def is_command(v: Any) -> bool:
    return type(v) is dict and is_str(v.get("action"))


def is_agreed(v: Any) -> bool:
    return type(v) is dict and is_int(v.get("proposal")) and is_user(v.get("proposed_by"))


def is_place(v: Any) -> bool:
    return (
        type(v) is dict and is_int(v.get("guild_id")) and is_int(v.get("channel_id"))
        and (v.get("parent_id") is None or is_int(v.get("parent_id")))
    )  # fmt: skip


def is_outcome(v: Any) -> bool:
    return (
        type(v) is dict and is_rolls(v.get("rolls"))
        and type(v.get("steps")) is list and type(v.get("facts")) is list
    )  # fmt: skip


def is_beacon_round(v: Any) -> bool:
    return (
        type(v) is dict and is_int(v.get("round")) and is_hex(v.get("signature"))
        and is_hex64(v.get("randomness"))
    )  # fmt: skip


def is_note(v: Any) -> bool:
    """A sealed note revealed at the game's end: its entry, text and salt."""
    return (
        type(v) is dict and is_int(v.get("entry")) and is_str(v.get("text"))
        and is_hex(v.get("salt"), 32)
    )  # fmt: skip


def is_result(v: Any) -> bool:
    """A result as a dispute or a ruling records it: the winner, scenario, attacker, tournament
    and round."""
    return (
        type(v) is dict and all(is_str(v.get(k)) for k in ("winner", "scenario", "attacker",
                                                           "tournament"))
        and is_int(v.get("round")) and len(v) == 5
    )  # fmt: skip


_CLOCK_TIME = re.compile(r"\d\d?:\d\d")


def is_clock(v: Any) -> bool:
    """A game's deadline settings as logged (``bot/log/deadlines.py``, ``Settings.to_json``)."""
    return (
        type(v) is dict and is_str(v.get("zone")) and is_int(v.get("extensions"))
        and type(v.get("reminders")) is list and all(is_int(p) for p in v["reminders"])
        and all(is_int(v[k]) for k in ("deadline", "silence", "alert") if k in v)
        and ("at" not in v or (is_str(v["at"]) and _CLOCK_TIME.fullmatch(v["at"]) is not None))
    )  # fmt: skip


def is_side(v: Any) -> bool:
    return v is None or is_str(v)


def is_time(v: Any) -> bool:
    """ISO 8601 UTC with milliseconds, as the bot writes ``at``: 2026-11-23T17:03:21.907+00:00."""
    if not is_str(v) or re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00", v) is None:
        return False
    try:
        datetime.fromisoformat(v)
    except ValueError:
        return False
    return True


COMMON = {
    "v": lambda v: v in VERSIONS and is_int(v), "game": is_str, "seq": is_int, "prev": is_hex64,
    "kind": is_str, "at": is_time, "by": is_by, "interaction": lambda v: is_str(v) and v != "",
    "epoch": is_int, "dice": lambda v: type(v) is list and all(is_die(d) for d in v),
    "state": is_hex64,
}  # fmt: skip
ACTION = {"action": is_command, "side": is_side, "outcome": is_outcome}
ROLL = {"expression": is_str, "reason": is_str, "total": is_int, "text": is_str, "rolls": is_rolls}
SHAPES: dict[str, dict[str, Any]] = {
    "game.new": {"system": is_str, "title": is_str, "sides": is_names,
                 "options": lambda v: type(v) is dict, "commitment": is_hex64, "place": is_place},
    "game.seat": {"side": is_str, "player": is_user},
    "game.referee.add": {"user": is_user},
    "game.referee.remove": {"user": is_user},
    "game.result": {"winner": is_str, "scenario": is_str, "attacker": is_str,
                    "tournament": is_str, "round": is_int},
    "game.notices": {"on": lambda v: type(v) is bool},
    "game.seed": {"phrase": is_str, "players": is_hex64},
    "game.rotate": {"revealed_epoch": is_int, "revealed_seed": is_hex64, "next_epoch": is_int,
                    "next_commitment": is_hex64},
    "game.end": {"revealed_epoch": is_int, "revealed_seed": is_hex64},
    "game.void": {"entry": is_int, "reason": is_str},
    "game.propose": {"command": is_command, "sides": is_names, "needs": is_names},
    "game.decline": {"entry": is_int, "reason": is_str},
    "game.dispute": {"entry": is_int, "reason": is_str, "result": is_result},
    "game.ruling": {"entry": is_int, "matter": is_str, "decision": is_str, "reason": is_str},
    "game.cancel": {"entry": is_int, "round": is_int, "reason": is_str},
    "game.seal": {"commitment": is_hex64, "held": lambda v: type(v) is bool},
    "game.reveal": {"entry": is_int, "text": is_str, "salt": lambda v: is_hex(v, 32)},
    "game.deadline": {"clock": is_clock, "command": is_command},
    "game.pause": {"until": is_time, "reason": is_str, "command": is_command},
    "game.resume": {"pause": is_int, "command": is_command},
    "game.extend": {"side": is_str, "since": is_int, "court": is_str, "count": is_int,
                    "of": is_int, "deadline": is_time, "command": is_command},
    "game.missed": {"side": is_str, "player": is_user, "since": is_int, "court": is_str,
                    "deadline": is_time},
    "game.claim": {"side": is_str, "against": is_str, "player": is_user, "since": is_int,
                   "court": is_str, "reason": is_str, "command": is_command},
    "action": ACTION,
    "roll": ROLL,
    "declared": {"declares": lambda v: v in ("action", "roll"), "round": is_int,
                 "round_at": is_str},
    "resolved": {"resolves": lambda v: v in ("action", "roll"), "declared": is_int,
                 "beacon": is_beacon_round},
}  # fmt: skip
OPTIONAL: dict[str, Any] = {
    "rules": is_int, "sides": is_names, "agreed": is_agreed, "scripted": lambda v: v is True,
    "dice_mode": lambda v: v == "beacon", "beacon": lambda v: type(v) is dict,
    "category": is_str, "totals": lambda v: type(v) is list and all(is_int(t) for t in v),
    "notes": lambda v: type(v) is list, "withdrawn": lambda v: type(v) is bool,
    "referee_only": is_names,
    "revealed_notes": lambda v: type(v) is list and all(is_note(n) for n in v),
    "settled": lambda v: v in ("agreed", "conceded", "referee"), "result": is_result,
    "clock": is_clock, "lapsed": lambda v: type(v) is list and all(is_int(n) for n in v),
}  # fmt: skip


@functools.cache
def _shape(kind: str, inner: str | None, version_2: bool) -> dict[str, Any]:
    """The keys an entry of ``kind`` holds, with their tests (a beacon declaration or resolution
    also those of the ``inner`` kind it carries; version 2 also ``sides`` where recorded)."""
    shape = {**COMMON, **SHAPES[kind]}
    if kind in ("declared", "resolved") and inner is not None:
        carried = ACTION if inner == "action" else ROLL
        results = ("outcome", "total", "text", "rolls") if kind == "declared" else ()
        shape.update({k: test for k, test in carried.items() if k not in results})
    if version_2 and kind in KINDS_WITH_SIDES:
        shape["sides"] = is_names
    return shape


def check_shape(entry: dict[str, Any], where: int) -> None:
    """Every key this checker reads is there with its type; ``sides`` where version 2 needs it."""
    kind = entry.get("kind")
    if kind not in SHAPES:
        raise Mismatch(where, f"is of an unknown kind {kind!r}")
    inner = entry.get("declares") if kind == "declared" else entry.get("resolves")
    shape = _shape(kind, inner if inner in ("action", "roll") else None, entry.get("v") == 2)
    for key, test in shape.items():
        if key not in entry:
            version = entry.get("v")
            raise Mismatch(where, f"has no {key!r} (every {kind} entry of version {version} has)")
        if not test(entry[key]):
            raise Mismatch(where, f"has a malformed {key!r}: {entry[key]!r}")
    for key, test in OPTIONAL.items():
        if key in entry and key not in shape and not test(entry[key]):
            raise Mismatch(where, f"has a malformed {key!r}: {entry[key]!r}")


# --- names and free text: the rules the bot applies (entries of version 2) ---------------------

MAX_NAME = 80
"""The longest name of a new thing (``/asl unit add name:``), as the bot refuses longer ones."""
NAMING = ("ocs.extender",)
"""Commands whose ``name`` names a new thing besides every ``….add`` command."""
TEXT_LIMITS = {
    ("game.new", "title"): (0, 100), ("game.seed", "phrase"): (1, 200),
    ("roll", "reason"): (0, 100), ("declared", "reason"): (0, 100),
    ("resolved", "reason"): (0, 100),
    ("game.void", "reason"): (1, 200), ("game.decline", "reason"): (0, 200),
    ("game.cancel", "reason"): (1, 200), ("game.result", "scenario"): (1, 20),
    ("game.result", "tournament"): (0, 40), ("game.dispute", "reason"): (0, 200),
    ("game.ruling", "reason"): (1, 200), ("game.reveal", "text"): (0, 1000),
    ("game.pause", "reason"): (0, 200), ("game.claim", "reason"): (0, 200),
}  # fmt: skip
"""(kind, key) → the shortest and longest text the bot logs there (its commands' limits)."""


def name_problem(name: str) -> str | None:
    """Why the bot would refuse ``name`` for a new thing (None: it would take it)."""
    text = name.strip()
    if len(text) > MAX_NAME:
        return f"is longer than {MAX_NAME} characters"
    if "," in text:
        return "holds a comma"
    if any(unicodedata.category(c) in ("Cc", "Zl", "Zp") for c in text):
        return "holds a control character or a line break"
    return None


def new_names(command: dict[str, Any]) -> list[str]:
    """The names of new things ``command`` gives (a scenario's set-up: each of its commands')."""
    commands = [command]
    if command.get("action") == "game.setup" and type(command.get("actions")) is list:
        commands += command["actions"]
    return [
        c["name"] for c in commands
        if type(c) is dict and is_str(c.get("action")) and is_str(c.get("name"))
        and (c["action"].endswith(".add") or c["action"] in NAMING)
    ]  # fmt: skip


def check_texts(entry: dict[str, Any], where: int) -> None:
    """Names of new things and free text as the bot would have taken them (entry version 2)."""
    kind = entry["kind"]
    for key in ("action", "command"):
        if is_command(entry.get(key)):
            for name in new_names(entry[key]):
                problem = name_problem(name)
                if problem is not None:
                    raise Mismatch(where, f"names a new thing {name!r}, which {problem}: the "
                                   "bot refuses such a name")  # fmt: skip
    for (of, key), (low, high) in TEXT_LIMITS.items():
        if of == kind and key in entry and not low <= len(entry[key]) <= high:
            raise Mismatch(where, f"its {key} has {len(entry[key])} characters; the bot takes "
                           f"{low} to {high}")  # fmt: skip
