#!/usr/bin/env python3
"""Check an exported game's hash chain and every die, with nothing but the Python standard library.

    python verify_dice.py game-<id>.jsonl

This file is meant to be read by a suspicious player; it trusts nothing the bot says except the
export itself. It checks:

1. the chain: each line's ``hash`` is SHA-256 of the line's canonical JSON without ``hash``; each
   entry's ``prev`` is the hash of the entry before it (64 zeros for the first); sequence numbers
   run 1, 2, 3… and every entry names the same game;
2. the seeds: a revealed seed hashes to the commitment posted before its dice were rolled;
3. the players' seed phrases: the running mix is recomputed and compared with the logged one;
4. the dice: numbered 1, 2, 3… across the game, each die recomputed from its epoch's revealed seed
   (docs/DICE.md). Dice of a seed not yet revealed, and scripted dice, are counted, not checked.

It does not replay the rules (``referee verify`` does that too). Exit status 0 when everything
checked agrees, 1 at the first mismatch (printed with its sequence number), 2 for an unreadable
file.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import struct
import sys

FORMAT = "referee-game-log"
GENESIS_PREV = "0" * 64


# --- docs/DICE.md, version 1 --------------------------------------------------------------


def field(name: bytes, value: bytes) -> bytes:
    """u8 length of the name, the name, u32 big-endian length of the value, the value."""
    return struct.pack(">B", len(name)) + name + struct.pack(">I", len(value)) + value


def die_message(
    game: str, players: bytes, seq: int, sides: int, attempt: int, beacon: bytes | None = None
) -> bytes:
    """Version 1; with a beacon round's randomness, version 2 (``beacon`` before ``seq``)."""
    fields = [field(b"game", game.encode("utf-8")), field(b"players", players)]
    if beacon is not None:
        fields.append(field(b"beacon", beacon))
    fields += [
        field(b"seq", struct.pack(">Q", seq)),
        field(b"sides", struct.pack(">Q", sides)),
        field(b"attempt", struct.pack(">I", attempt)),
    ]
    version = 1 if beacon is None else 2
    return b"referee-dice" + struct.pack(">BB", version, len(fields)) + b"".join(fields)


def die_face(
    seed: bytes, game: str, players: bytes, seq: int, sides: int, beacon: bytes | None = None
) -> int:
    """HMAC-SHA256, first 8 bytes big-endian; retry with attempt+1 above the last full range."""
    limit = 2**64 - (2**64 % sides)
    attempt = 0
    while True:
        text = die_message(game, players, seq, sides, attempt, beacon)
        digest = hmac.new(seed, text, "sha256").digest()
        x = int.from_bytes(digest[:8], "big")
        if x < limit:
            return x % sides + 1
        attempt += 1


def mix_phrase(players: bytes, phrase: str) -> bytes:
    data = phrase.encode("utf-8")
    return hashlib.sha256(players + struct.pack(">I", len(data)) + data).digest()


# --- the export -----------------------------------------------------------------------------


def canonical(obj: object) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class Mismatch(Exception):
    def __init__(self, seq: int, text: str) -> None:
        super().__init__(f"entry {seq}: {text}")
        self.seq = seq


def check(lines: list[str]) -> dict[str, int]:
    """Check the export's lines; raise Mismatch at the first problem; return counts."""
    header = json.loads(lines[0])
    if header.get("format") != FORMAT or header.get("version") != 1:
        raise Mismatch(0, f"not a {FORMAT} version 1 export")
    prev, game = GENESIS_PREV, header.get("game")
    commitments: dict[int, str] = {}
    seeds: dict[int, bytes] = {}
    players = bytes(32)
    epoch = 1
    next_die = 1
    pending = []  # (entry seq, die, players mix, game) checked once the seeds are known
    scripted = 0
    entries = [json.loads(line) for line in lines[1:] if line.strip()]
    for number, entry in enumerate(entries, start=1):
        seq = entry.get("seq")
        claimed = entry.pop("hash", None)
        if hashlib.sha256(canonical(entry).encode("utf-8")).hexdigest() != claimed:
            raise Mismatch(number, "its hash does not match its content (edited?)")
        if seq != number:
            raise Mismatch(number, f"has sequence number {seq} (removed or reordered entries?)")
        if entry["prev"] != prev:
            raise Mismatch(seq, "does not follow the entry before it (prev hash differs)")
        if entry["game"] != game:
            raise Mismatch(seq, "belongs to another game")
        prev = claimed
        kind = entry["kind"]
        if kind == "game.new":
            if seq != 1:
                raise Mismatch(seq, "a second game.new entry")
            commitments[1] = entry["commitment"]
        if entry["epoch"] != epoch:
            raise Mismatch(seq, f"claims seed epoch {entry['epoch']}, the current one is {epoch}")
        for die in entry["dice"]:
            if die["seq"] != next_die:
                raise Mismatch(seq, f"die #{die['seq']} where die #{next_die} was due")
            if die["epoch"] != epoch:
                raise Mismatch(seq, f"die #{die['seq']} claims epoch {die['epoch']}")
            if not 1 <= die["face"] <= die["sides"]:
                raise Mismatch(seq, f"die #{die['seq']} shows {die['face']} on a d{die['sides']}")
            next_die += 1
            if die.get("scripted"):
                scripted += 1
            else:
                pending.append((seq, die, players))
        if kind == "game.seed":
            players = mix_phrase(players, entry["phrase"])
            if players.hex() != entry["players"]:
                raise Mismatch(seq, "the players' seed mix is not what the phrases give")
        if kind in ("game.rotate", "game.end"):
            revealed = bytes.fromhex(entry["revealed_seed"])
            if entry["revealed_epoch"] != epoch:
                raise Mismatch(seq, f"reveals epoch {entry['revealed_epoch']}, not {epoch}")
            if hashlib.sha256(revealed).hexdigest() != commitments[epoch]:
                raise Mismatch(seq, f"the revealed seed of epoch {epoch} breaks its commitment")
            seeds[epoch] = revealed
        if kind == "game.rotate":
            epoch = entry["next_epoch"]
            commitments[epoch] = entry["next_commitment"]
    if header.get("head", {}).get("hash") not in (None, prev):
        raise Mismatch(len(entries), "the header's log head is not the last entry")
    checked = unrevealed = 0
    for seq, die, mix in pending:
        seed = seeds.get(die["epoch"])
        if seed is None:
            unrevealed += 1
            continue
        face = die_face(seed, game, mix, die["seq"], die["sides"])
        if face != die["face"]:
            raise Mismatch(
                seq,
                f"die #{die['seq']} ({die['label']}) shows {die['face']}, the seed gives {face}",
            )
        checked += 1
    return {
        "entries": len(entries),
        "dice checked": checked,
        "dice of unrevealed seeds": unrevealed,
        "scripted dice": scripted,
    }


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: verify_dice.py EXPORT.jsonl", file=sys.stderr)
        return 2
    try:
        with open(argv[1], encoding="utf-8") as file:
            lines = file.read().splitlines()
        if not lines:
            raise ValueError("the file is empty")
    except (OSError, ValueError) as exc:
        print(f"cannot read {argv[1]}: {exc}", file=sys.stderr)
        return 2
    try:
        counts = check(lines)
    except Mismatch as exc:
        print(f"MISMATCH at {exc}")
        return 1
    except (KeyError, TypeError, ValueError) as exc:
        print(f"MISMATCH: malformed export ({exc!r})")
        return 1
    print("OK: " + ", ".join(f"{n} {what}" for what, n in counts.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
