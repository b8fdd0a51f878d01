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
   (docs/DICE.md). Dice of a seed not yet revealed, and scripted dice, are counted, not checked;
   a scripted die in a game whose ``game.new`` does not say ``scripted`` is a mismatch;
5. what a reader sees beside the dice: every roll shown (labels, sizes, faces) is exactly the
   dice logged; a ``/roll``'s total and text are recomputed from its dice;
6. who declared what: seats and referees are replayed from the log; each entry's ``by`` must
   have been allowed to declare it (docs/TRUST.md); a void must cancel an action or a roll;
7. the header: game, system, title, status, server, channel and head must be what the log says;
8. in a beacon game: every die belongs to a declaration's resolution; each declaration was written
   before its round's publication time and is resolved (or cancelled) before anything else is
   written; the resolution declares the same action and uses the declared round; the round's
   randomness is SHA-256 of its signature, and the dice are version 2 with that randomness.
   It does NOT check the rounds' BLS signatures (that needs elliptic-curve pairings, beyond the
   standard library): ``referee verify`` does, and this script says so when it applies.

It does not replay the rules (``referee verify`` does that too). Lines are split on "\\n" only.
Its verdict says what it cannot prove: entries after the head, who a ``by`` really was. Exit
status 0 when everything checked agrees, 1 at the first mismatch (printed with its sequence
number) or a malformed file, 2 for a file that cannot be opened.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import struct
import sys
from datetime import datetime
from typing import Any

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
    return json.dumps(
        obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


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


def dice_of_rolls(rolls: list[dict[str, Any]]) -> list[tuple[str, int, int]]:
    """(label, sides, face) of every die the rolls read, as the bot logs them (a DR's two dice
    are labelled "(colored)" and "(white)")."""
    dice = []
    for roll in rolls:
        faces = roll["faces"]
        if roll["kind"] == "DR" and len(faces) == 2:
            dice.append((f"{roll['label']} (colored)", roll["sides"], faces[0]))
            dice.append((f"{roll['label']} (white)", roll["sides"], faces[1]))
        else:
            dice.extend((roll["label"], roll["sides"], face) for face in faces)
    return dice


def roll_text(expression: str, faces: list[int]) -> tuple[int, str]:
    """The total and the text of a ``/roll``: ``DR+1 6 (2,3)``, ``2d6+1 = 10 (6+3 +1)``; a batch
    (``3 DR``) is each roll's text joined by ``; `` and the sum of their totals."""
    count, _, single = expression.partition(" ")
    if single and count.isdigit() and int(count) > 0 and len(faces) % int(count) == 0:
        per = len(faces) // int(count)
        parts = [roll_text(single, faces[i * per : (i + 1) * per]) for i in range(int(count))]
        return sum(total for total, _ in parts), "; ".join(text for _, text in parts)
    kind, _, rest = expression.partition("+") if "+" in expression else expression.partition("-")
    sign = -1 if "-" in expression and "+" not in expression else 1
    modifier = sign * int(rest) if rest else 0
    total = sum(faces) + modifier
    if kind == "DR":
        return total, f"{expression} {total} ({faces[0]},{faces[1]})"
    if kind == "dr":
        return total, f"{expression} {total}"
    mod = f" {modifier:+d}" if modifier else ""
    return total, f"{expression} = {total} ({'+'.join(map(str, faces))}{mod})"


class Table:
    """Seats and referees as the log sets them, to check who declared what."""

    def __init__(self, genesis: dict[str, Any]) -> None:
        self.sides = list(genesis["sides"])
        self.seats: dict[str, int | None] = {side: None for side in self.sides}
        self.referees = {genesis["by"]["id"]}
        self.kinds: dict[int, str] = {}
        self.entry_sides: dict[int, list[str]] = {}
        self.voided: set[int] = set()
        self.server_referees = 0
        self.proposals: dict[int, dict[str, Any]] = {}
        """Proposals waiting for the other side's confirmation, by sequence number."""

    def held(self, who: int) -> set[str]:
        return {side for side, player in self.seats.items() if player == who}

    def referee(self, by: dict[str, Any]) -> bool:
        return by["id"] in self.referees or bool(by.get("server_referee"))

    def agreed(self, entry: dict[str, Any], kind: Any, agreed: dict[str, Any]) -> None:
        """An entry carrying out a proposal: it must name a proposal still waiting, by its
        proposer, for exactly this command, and be confirmed by someone else."""
        seq = entry["seq"]
        proposal = self.proposals.pop(agreed["proposal"], None)
        if proposal is None or proposal["by"] != agreed["proposed_by"]["id"]:
            raise Mismatch(seq, f"carries out proposal {agreed['proposal']}, which is not one")
        if entry["by"]["id"] == proposal["by"]:
            raise Mismatch(seq, "is confirmed by its own proposer")
        if kind == "action":
            done = entry["action"]
        else:
            done = {"action": "game.void", "entry": entry["entry"], "reason": entry["reason"]}
        if done != proposal["command"]:
            raise Mismatch(seq, f"does something else than proposal {agreed['proposal']}")

    def check(self, entry: dict[str, Any]) -> None:
        """Refuse an entry its ``by`` could not have declared; then apply it to the table."""
        seq, logged_kind, by = entry["seq"], entry["kind"], entry["by"]
        # a beacon game's declaration and resolution are checked as the action or roll they are
        kind = {"declared": entry.get("declares"), "resolved": entry.get("resolves")}.get(
            logged_kind, logged_kind
        )
        who, referee = by["id"], self.referee(by)
        held = self.held(who)
        if by.get("server_referee"):
            self.server_referees += 1
        agreed = entry.get("agreed")
        if agreed is not None:
            self.agreed(entry, kind, agreed)
            held |= self.held(agreed["proposed_by"]["id"])
            referee = referee or self.referee(agreed["proposed_by"])
        if kind == "action":
            sides = entry.get("sides", [entry["side"]] if entry.get("side") else [])
            if entry.get("side") and "sides" in entry and entry["side"] not in sides:
                raise Mismatch(seq, f"acts for {entry['side']} but concerns only {sides}")
            if not referee and not set(sides) <= held:
                raise Mismatch(seq, f"{by['name']} holds no seat of {', '.join(sides)}")
            if not sides and not (referee or held):
                raise Mismatch(seq, f"{by['name']} holds no seat and is not a referee")
        elif kind in ("roll", "game.seed", "game.propose", "game.notices", "game.result"):
            if not (referee or held):
                raise Mismatch(seq, f"{by['name']} holds no seat and is not a referee")
            if kind == "game.propose":
                self.proposals[seq] = {
                    "by": by["id"],
                    "command": entry["command"],
                    "needs": list(entry.get("needs", self.sides)),
                }
            if kind == "roll" and "sides" in entry and set(entry["sides"]) != held:
                raise Mismatch(seq, f"names the sides {entry['sides']}, the roller holds others")
        elif kind == "game.decline":
            proposal = self.proposals.pop(entry["entry"], None)
            if proposal is None:
                raise Mismatch(seq, f"declines entry {entry['entry']}, not a waiting proposal")
            withdrawn = proposal["by"] == who
            if bool(entry.get("withdrawn")) != withdrawn:
                raise Mismatch(seq, "says withdrawn of a proposal not its author's, or not so")
            if not (withdrawn or referee or held & set(proposal["needs"])):
                raise Mismatch(seq, f"{by['name']} may not decline proposal {entry['entry']}")
        elif kind == "game.seat":
            if entry["side"] not in self.seats:
                raise Mismatch(seq, f"seats a side {entry['side']!r} the game does not have")
            holder = self.seats[entry["side"]]
            player = entry["player"]["id"]
            if not referee and (player != who or holder not in (None, who)):
                raise Mismatch(seq, f"{by['name']} may not seat {entry['player']['name']} there")
            self.seats[entry["side"]] = player
        elif kind in (
            "game.referee.add", "game.referee.remove", "game.rotate", "game.end", "game.cancel"
        ):  # fmt: skip
            if not referee:
                raise Mismatch(seq, f"{by['name']} is not a referee")
            if kind == "game.referee.add":
                self.referees.add(entry["user"]["id"])
            elif kind == "game.referee.remove":
                self.referees.discard(entry["user"]["id"])
        elif kind == "game.void":
            target = entry["entry"]
            if not referee:
                raise Mismatch(seq, f"{by['name']} is not a referee")
            if self.kinds.get(target) not in ("action", "roll"):
                raise Mismatch(seq, f"voids entry {target}, which is not an action or a roll")
            if target in self.voided:
                raise Mismatch(seq, f"voids entry {target} a second time")
            if agreed is None and self.held(who) & set(self.entry_sides.get(target, [])):
                raise Mismatch(seq, f"{by['name']} voids an entry of their own side alone")
            self.voided.add(target)
        elif kind != "game.new":
            raise Mismatch(seq, f"is of an unknown kind {kind!r}")
        self.kinds[seq] = logged_kind if logged_kind == "declared" else kind
        if self.kinds[seq] in ("action", "roll"):
            self.entry_sides[seq] = list(entry.get("sides", self.sides))


def check(lines: list[str]) -> dict[str, int]:
    """Check the export's lines; raise Mismatch at the first problem; return counts."""
    if not lines:
        raise Mismatch(0, "the export is empty")
    header = json.loads(lines[0])
    if header.get("format") != FORMAT or header.get("version") != 1:
        raise Mismatch(0, f"not a {FORMAT} version 1 export")
    prev, game = GENESIS_PREV, header.get("game")
    commitments: dict[int, str] = {}
    seeds: dict[int, bytes] = {}
    players = bytes(32)
    epoch = 1
    next_die = 1
    pending = []  # (entry seq, die, players mix, beacon) checked once the seeds are known
    scripted = 0
    scripted_game = False
    table: Table | None = None
    chain = None  # a beacon game's chain (game.new's "beacon")
    waiting = None  # the declaration waiting for its round
    rounds = 0
    entries = [json.loads(line) for line in lines[1:] if line.strip()]
    if not entries:
        raise Mismatch(0, "the export holds no log entries (a header alone proves nothing)")
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
            scripted_game = entry.get("scripted") is True
            if entry.get("dice_mode") == "beacon":
                chain = entry["beacon"]
            table = Table(entry)
        elif table is None:
            raise Mismatch(seq, "the log does not start with game.new")
        table.check(entry)
        if entry["epoch"] != epoch:
            raise Mismatch(seq, f"claims seed epoch {entry['epoch']}, the current one is {epoch}")
        beacon = None
        if chain is None and kind in ("declared", "resolved", "game.cancel"):
            raise Mismatch(seq, f"a {kind} entry in a game without beacon dice")
        if chain is not None:
            if waiting is not None and kind not in ("resolved", "game.cancel"):
                raise Mismatch(seq, f"written while entry {waiting['seq']} waited for its round")
            if kind == "declared":
                due = chain["genesis"] + (entry["round"] - 1) * chain["period"]
                if datetime.fromisoformat(entry["at"]).timestamp() >= due:
                    raise Mismatch(seq, f"declared after beacon round {entry['round']} was out")
                if entry["dice"]:
                    raise Mismatch(seq, "a declaration rolled dice")
                waiting = entry
            elif kind in ("resolved", "game.cancel"):
                target = entry["declared"] if kind == "resolved" else entry["entry"]
                if waiting is None or waiting["seq"] != target:
                    raise Mismatch(seq, f"entry {target} is not a declaration waiting for a round")
                if kind == "resolved":
                    beacon = check_resolution(seq, waiting, entry)
                    rounds += 1
                elif entry["round"] != waiting["round"]:
                    raise Mismatch(seq, f"cancels round {entry['round']}, not {waiting['round']}")
                waiting = None
            elif entry["dice"]:
                raise Mismatch(seq, "dice rolled without a beacon round in a beacon game")
        for die in entry["dice"]:
            if die["seq"] != next_die:
                raise Mismatch(seq, f"die #{die['seq']} where die #{next_die} was due")
            if die["epoch"] != epoch:
                raise Mismatch(seq, f"die #{die['seq']} claims epoch {die['epoch']}")
            if not 1 <= die["face"] <= die["sides"]:
                raise Mismatch(seq, f"die #{die['seq']} shows {die['face']} on a d{die['sides']}")
            next_die += 1
            if die.get("scripted"):
                if not scripted_game:
                    raise Mismatch(
                        seq, f"die #{die['seq']} is marked scripted in a game not started so"
                    )
                scripted += 1
            else:
                pending.append((seq, die, players, beacon))
        shown = entry.get("resolves") if kind == "resolved" else kind
        if shown in ("action", "roll"):
            rolls = entry["outcome"]["rolls"] if shown == "action" else entry["rolls"]
            logged = [(d["label"], d["sides"], d["face"]) for d in entry["dice"]]
            if dice_of_rolls(rolls) != logged:
                raise Mismatch(seq, "its rolls do not show the dice it logged (labels, faces)")
        if shown == "roll":
            total, text = roll_text(entry["expression"], [d["face"] for d in entry["dice"]])
            if (total, text) != (entry["total"], entry["text"]):
                raise Mismatch(seq, f"the dice give {text!r}, the log shows {entry['text']!r}")
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
        if kind == "game.end" and seq != len(entries):
            raise Mismatch(seq, "entries follow the end of the game")
    check_header(header, entries, prev)
    checked = unrevealed = 0
    for seq, die, mix, beacon in pending:
        seed = seeds.get(die["epoch"])
        if seed is None:
            unrevealed += 1
            continue
        face = die_face(seed, game, mix, die["seq"], die["sides"], beacon)
        if face != die["face"]:
            raise Mismatch(
                seq,
                f"die #{die['seq']} ({die['label']}) shows {die['face']}, the seed gives {face}",
            )
        checked += 1
    assert table is not None
    counts = {
        "entries": len(entries),
        "dice checked": checked,
        "dice of unrevealed seeds": unrevealed,
        "scripted dice": scripted,
        "entries by server referees": table.server_referees,
    }
    if chain is not None:
        counts[ROUNDS_UNCHECKED] = rounds
        counts["declarations waiting for their round"] = int(waiting is not None)
    return counts


ROUNDS_UNCHECKED = "beacon rounds (signatures not checked)"


def check_resolution(seq: int, declared: dict[str, Any], resolved: dict[str, Any]) -> bytes:
    """A resolution matches its declaration; the randomness of its round (not its signature)."""
    what = declared["declares"]
    if resolved["resolves"] != what:
        raise Mismatch(seq, f"resolves a {resolved['resolves']}, entry {declared['seq']} "
                       f"declared a {what}")  # fmt: skip
    keys = ("action", "side") if what == "action" else ("expression", "reason", "category")
    if any(resolved.get(key) != declared.get(key) for key in keys):
        raise Mismatch(seq, f"resolves another {what} than entry {declared['seq']} declared")
    beacon = resolved["beacon"]
    if beacon["round"] != declared["round"]:
        raise Mismatch(seq, f"uses beacon round {beacon['round']}, not the declared "
                       f"{declared['round']}")  # fmt: skip
    signature = bytes.fromhex(beacon["signature"])
    if hashlib.sha256(signature).hexdigest() != beacon["randomness"]:
        raise Mismatch(seq, "the beacon round's randomness is not SHA-256 of its signature")
    return bytes.fromhex(beacon["randomness"])


def check_header(header: dict[str, Any], entries: list[dict[str, Any]], head_hash: str) -> None:
    """The header must say what the entries say: game, system, title, place, status and head."""
    genesis, last = entries[0], entries[-1]
    expected = {
        "system": genesis["system"],
        "title": genesis["title"],
        "guild": genesis["place"]["guild_id"],
        "channel": genesis["place"]["channel_id"],
        "status": "ended" if last["kind"] == "game.end" else "active",
    }
    if header.get("head") != {"seq": last["seq"], "hash": head_hash}:
        raise Mismatch(last["seq"], "the header's log head is not the last entry")
    for key, value in expected.items():
        if header.get(key) != value:
            raise Mismatch(0, f"the header's {key} is {header.get(key)!r}, the log says {value!r}")


def verdict(counts: dict[str, int], head: dict[str, Any], *, replayed: bool = False) -> str:
    """The OK line, with what the check does not prove; ``replayed``: the caller (``referee
    verify``) also replayed every ruling, so the line does not say they were not."""
    rulings = (
        "every ruling was replayed through the rules"
        if replayed
        else "the rulings are not replayed here (each action's outcome is as logged: `referee"
        " verify` replays them through the rules)"
    )
    return (
        "OK: "
        + ", ".join(f"{n} {what}" for what, n in counts.items())
        + f". Head #{head['seq']} {head['hash']}: entries after it, if any, are not in this file"
        " (compare it with the last head the bot posted); who declared each entry is the bot's"
        f" word; scripted dice prove nothing; {rulings}."
    )


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: verify_dice.py EXPORT.jsonl", file=sys.stderr)
        return 2
    try:
        with open(argv[1], "rb") as file:
            data = file.read()
    except OSError as exc:
        print(f"cannot read {argv[1]}: {exc.strerror}", file=sys.stderr)
        return 2
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        print(f"MISMATCH: malformed export (not UTF-8 at byte {exc.start})")
        return 1
    lines = split_lines(text)
    try:
        counts = check(lines)
    except Mismatch as exc:
        print(f"MISMATCH at {exc}")
        return 1
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        print(f"MISMATCH: malformed export ({exc!r})")
        return 1
    print(verdict(counts, json.loads(lines[0])["head"]))
    if counts.get(ROUNDS_UNCHECKED):
        print(
            "NOTE: this script did not check the beacon rounds' BLS signatures (it uses only the "
            "standard library); `referee verify` checks them against the chain's public key."
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
