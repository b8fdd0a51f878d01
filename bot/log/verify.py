"""``referee verify FILE``: the hash chain, every die, and every ruling replayed through rules_core.

The chain and the dice are checked by :mod:`bot.log.verify_dice` (standard library only); then each
entry is replayed in order: the game starts from ``system.new_state``; each action is resolved
again with the faces it logged and must give the logged steps, rolls and facts; each ``/roll``
must give its logged total; a void rebuilds the state from the start without the voided entries;
and after every entry the state's SHA-256 must be the logged one.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from bot.dice.beacon.chain import KNOWN_CHAINS, BadBeacon, ChainInfo, verify_round
from bot.log import verify_dice
from bot.log.gamelog import (
    ReplayError,
    canonical,
    outcome_json,
    rebuild_state,
    replay_action,
    state_hash,
    state_json,
)
from rules_core.dice import ScriptedDice
from rules_core.roll import parse_expression, roll_expression
from rules_core.system import GameSystem


@dataclass(frozen=True)
class Report:
    """The result of a verification: OK, or the first mismatch with its sequence number."""

    ok: bool
    message: str
    seq: int | None = None
    counts: Mapping[str, int] | None = None


def verify_lines(lines: list[str], systems: Mapping[str, GameSystem[Any, Any]]) -> Report:
    """Verify an export given as its lines."""
    try:
        counts = dict(verify_dice.check(list(lines)))
    except verify_dice.Mismatch as exc:
        return Report(ok=False, message=str(exc), seq=exc.seq)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        return Report(ok=False, message=f"malformed export ({exc!r})", seq=None)
    head = json.loads(lines[0])["head"]
    entries = [json.loads(line) for line in lines[1:] if line.strip()]
    for entry in entries:
        entry.pop("hash", None)
    genesis = entries[0]
    if genesis["kind"] != "game.new":
        return Report(ok=False, message="entry 1: the log does not start with game.new", seq=1)
    system = systems.get(genesis["system"])
    if system is None:
        return Report(
            ok=False,
            message=f"entry 1: the game system {genesis['system']!r} is not installed here",
            seq=1,
        )
    beacon = check_beacon_rounds(entries)
    if isinstance(beacon, Report):
        return beacon
    state: BaseModel | None = None
    voided: set[int] = set()
    replayed = 0
    for entry in entries:
        seq = int(entry["seq"])
        kind = entry["kind"]
        if kind == "resolved":  # a beacon game's resolution replays as the action or roll it is
            kind = entry["resolves"]
        try:
            if kind == "game.new":
                state = system.new_state(tuple(entry["sides"]), dict(entry.get("options", {})))
            elif kind == "action":
                assert state is not None
                action = system.parse_action(entry["action"])
                side = system.acting_side(state, action)
                if side != entry["side"]:
                    return Report(
                        ok=False,
                        message=f"entry {seq}: the action is declared for {side}, the log says "
                        f"{entry['side']}",
                        seq=seq,
                    )
                concerned = sorted(system.concerned_sides(state, action))
                if "sides" in entry and concerned != sorted(entry["sides"]):
                    return Report(
                        ok=False,
                        message=f"entry {seq}: the action concerns {', '.join(concerned)}, the "
                        f"log says {', '.join(entry['sides'])}",
                        seq=seq,
                    )
                outcome = replay_action(system, state, entry)
                if canonical(outcome_json(outcome)) != canonical(entry["outcome"]):
                    return Report(
                        ok=False,
                        message=f"entry {seq}: the rules give another outcome than the logged one",
                        seq=seq,
                    )
                state = outcome.state
                replayed += 1
            elif kind == "roll":
                faces = [int(d["face"]) for d in entry["dice"]]
                dice = ScriptedDice(faces)
                result = roll_expression(
                    parse_expression(entry["expression"]),
                    dice,
                    reason=entry["reason"],
                    category=entry.get("category", ""),
                )
                dice.assert_used_up()
                logged = (entry["total"], entry["text"], entry["rolls"])
                rolls = [r.model_dump(mode="json") for r in result.rolls]
                if (result.total, result.render(), rolls) != logged:
                    return Report(
                        ok=False,
                        message=f"entry {seq}: the dice give {result.render()!r}, the log says "
                        f"{entry['text']!r} ({entry['total']})",
                        seq=seq,
                    )
            elif kind == "game.void":
                voided.add(int(entry["entry"]))
                state = rebuild_state(system, entries[: seq - 1], voided)
        except ReplayError as exc:
            return Report(ok=False, message=f"entry {seq}: {exc.reason}", seq=seq)
        except Exception as exc:  # any failure to replay is a mismatch at this entry
            return Report(ok=False, message=f"entry {seq}: cannot be replayed ({exc})", seq=seq)
        assert state is not None
        if state_hash(state_json(state)) != entry["state"]:
            return Report(
                ok=False,
                message=f"entry {seq}: the state after it is not the logged one",
                seq=seq,
            )
    counts["actions replayed"] = replayed
    message = verify_dice.verdict(counts, head)
    if beacon is not None:
        checked, chain = beacon
        counts.pop(verify_dice.ROUNDS_UNCHECKED, None)
        counts["beacon signatures checked"] = checked
        message = verify_dice.verdict(counts, head)
        if chain.chain_hash not in KNOWN_CHAINS:
            message += (
                f" The beacon chain {chain.name!r} ({chain.chain_hash[:16]}…) is not a known "
                "public chain: its key is the export's own."
            )
    return Report(ok=True, message=message, counts=counts)


def verify_text(text: str, systems: Mapping[str, GameSystem[Any, Any]]) -> Report:
    """Verify an export given as its text (lines split on "\\n" only, as JSON Lines)."""
    lines = verify_dice.split_lines(text)
    if not lines:
        return Report(ok=False, message="the export is empty")
    return verify_lines(lines, systems)


def check_beacon_rounds(entries: list[dict[str, Any]]) -> tuple[int, ChainInfo] | Report | None:
    """Every beacon round of a beacon game verifies against its chain's public key.

    A chain the verifier knows (quicknet) is checked with the key it knows, not the export's.
    :returns: ``(rounds checked, chain)``; None for a game without beacon dice; a failed
        :class:`Report` at the first bad round.
    """
    genesis = entries[0]
    if genesis.get("dice_mode") != "beacon":
        return None
    try:
        chain = ChainInfo.from_json(genesis["beacon"])
    except (KeyError, TypeError, ValueError) as exc:
        return Report(ok=False, message=f"entry 1: the beacon chain is malformed ({exc})", seq=1)
    known = KNOWN_CHAINS.get(chain.chain_hash)
    if known is not None and known != chain:
        return Report(
            ok=False,
            message=f"entry 1: names the public chain {known.name} with other facts than its own",
            seq=1,
        )
    checked = 0
    for entry in entries:
        if entry["kind"] != "resolved":
            continue
        seq = int(entry["seq"])
        round_ = entry["beacon"]
        try:
            beacon = verify_round(chain, int(round_["round"]), bytes.fromhex(round_["signature"]))
        except (BadBeacon, ValueError) as exc:
            return Report(ok=False, message=f"entry {seq}: {exc}", seq=seq)
        if beacon.randomness.hex() != round_["randomness"]:
            return Report(
                ok=False, message=f"entry {seq}: the round's randomness is wrong", seq=seq
            )
        checked += 1
    return checked, chain


def verify_file(path: Path, systems: Mapping[str, GameSystem[Any, Any]]) -> Report:
    """Verify an export file."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        return Report(ok=False, message=f"cannot read {path}: {exc.strerror}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Report(ok=False, message=f"malformed export (not UTF-8 at byte {exc.start})")
    return verify_text(text, systems)


__all__ = ["Report", "verify_file", "verify_lines", "verify_text"]
