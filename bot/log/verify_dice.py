#!/usr/bin/env python3
"""Check an exported game's hash chain and every die, with nothing but the Python standard library.

    python verify_dice.py game-<id>.jsonl

This file is meant to be read by a suspicious player; it trusts nothing the bot says except the
export itself. It checks:

1. strict reading: every line is its own canonical JSON (docs/EXPORT.md), integers are integers
   (never ``true`` or ``6.0``), every key it reads has its type; a format, entry or dice-derivation
   version it does not know is refused; timestamps are well formed and never run backwards;
   interaction ids are unique; in entries of version 2, names of new things and free text follow
   the rules the bot applies (a name holds no comma nor control character, …);
2. the chain: each line's ``hash`` is SHA-256 of the line's canonical JSON without ``hash``; each
   entry's ``prev`` is the hash of the entry before it (64 zeros for the first); sequence numbers
   run 1, 2, 3… and every entry names the same game;
3. the seeds: a revealed seed hashes to the commitment posted before its dice were rolled;
4. the players' seed phrases: the running mix is recomputed and compared with the logged one;
5. the dice: numbered 1, 2, 3… across the game, each die recomputed from its epoch's revealed seed
   (docs/DICE.md). Dice of a seed not yet revealed, and scripted dice, are counted, not checked;
   a scripted die in a game whose ``game.new`` does not say ``scripted`` is a mismatch;
6. what a reader sees beside the dice: every roll shown (labels, sizes, faces) is exactly the
   dice logged; a ``/roll``'s total and text are recomputed from its dice;
7. who declared what: seats and referees are replayed from the log; each entry's ``by`` must
   have been allowed to declare it (docs/TRUST.md), against the sides the entry records (``sides``,
   required in entries of version 2; an older entry without it is checked against its acting side
   only, and the verdict says how many); a void must cancel an action or a roll; a deadline, a
   pause or its end is agreed or a referee's without a seat; a missed deadline, an extension or a
   forfeit claim is what the log before it allows: the deadline, the silence and the extensions
   in force, less the pauses (``bot/log/deadlines.py``);
8. the header: game, system, title, status, server, channel and head must be what the log says;
9. in a beacon game: every die belongs to a declaration's resolution; each declaration was written
   before its round's publication time and is resolved (or cancelled) before anything else is
   written; the resolution declares the same action and uses the declared round; the round's
   randomness is SHA-256 of its signature, and the dice are version 2 with that randomness.
   It does NOT check the rounds' BLS signatures (that needs elliptic-curve pairings, beyond the
   standard library): ``referee verify`` does, and this script says so when it applies.

It does not replay the rules (``referee verify`` does that too, and recomputes the sides each
action concerns). Lines are split on "\\n" only. Its verdict says what it cannot prove: entries
after the head, who a ``by`` really was. Exit status 0 when everything checked agrees, 1 at the
first mismatch (printed with its sequence number) or a malformed file, 2 for a file that cannot
be opened.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import re
import struct
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

if not __package__:  # run as a script: its sibling modules are found from the repository's root
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bot.log.reading import (
    DERIVATIONS,
    FORMAT,
    GENESIS_PREV,
    VERSIONS,
    Mismatch,
    canonical,
    check_shape,
    check_texts,
    is_hex,
    is_int,
    read_line,
    split_lines,
)
from bot.log.seats import Table
from bot.log.signed import Anchor, Check, check_hex, ties

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


SIMPLE_ROLL = re.compile(r"(\d+ )?(DR|dr|\d+d\d+)([+-]\d+)?")
"""The rolls this checker recomputes; a pool (``4d6k3``, ``1d6!``, ``2d6 + 1d6``) needs its
grammar, so only ``referee verify`` recomputes its total (its dice are checked here alike)."""


def roll_text(expression: str, faces: list[int]) -> tuple[int, str] | None:
    """The total and the text of a ``/roll``: ``DR+1 6 (2,3)``, ``2d6+1 = 10 (6+3 +1)``; a batch
    (``3 DR``) is each roll's text joined by ``; `` and the sum of their totals; None for a
    pool."""
    if SIMPLE_ROLL.fullmatch(expression) is None:
        return None
    count, _, single = expression.partition(" ")
    if single and count.isdigit() and int(count) > 0 and len(faces) % int(count) == 0:
        per = len(faces) // int(count)
        parts = [roll_text(single, faces[i * per : (i + 1) * per]) for i in range(int(count))]
        done = [part for part in parts if part is not None]
        return sum(total for total, _ in done), "; ".join(text for _, text in done)
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


class Checker:
    """One pass over an export: the strict reading, the chain, the table, the beacon, the dice."""

    def __init__(self, lines: list[str]) -> None:
        if not lines:
            raise Mismatch(0, "the export is empty")
        self.header = header = read_line(lines[0], 0)
        if (
            header.get("format") != FORMAT
            or header.get("version") not in VERSIONS
            or not is_int(header.get("version"))
        ):
            raise Mismatch(0, f"not a {FORMAT} export of a version this checker knows "
                           f"({', '.join(map(str, VERSIONS))})")  # fmt: skip
        if header.get("dice") not in DERIVATIONS:
            raise Mismatch(0, f"names a dice derivation this checker does not know: "
                           f"{header.get('dice')!r}")  # fmt: skip
        signature = header.get("signature", {"key": "0" * 64, "sig": "0" * 128})
        if not (type(signature) is dict and is_hex(signature.get("key"), 64)
                and is_hex(signature.get("sig"), 128)):  # fmt: skip
            raise Mismatch(0, f"has a malformed signature: {signature!r}")
        self.entries = [read_line(line, n) for n, line in enumerate(lines[1:], start=1)]
        if not self.entries:
            raise Mismatch(0, "the export holds no log entries (a header alone proves nothing)")
        self.game = header.get("game")
        self.prev = GENESIS_PREV
        self.hashes: dict[int, str] = {}
        self.commitments: dict[int, str] = {}
        self.seeds: dict[int, bytes] = {}
        self.players = bytes(32)
        self.epoch = 1
        self.next_die = 1
        self.pending: list[tuple[int, dict[str, Any], bytes, bytes | None]] = []
        self.scripted = 0
        self.pools = 0
        """Dice pools (``4d6k3``) whose totals only ``referee verify`` recomputes."""
        self.scripted_game = False
        self.table: Table | None = None
        self.chain: dict[str, Any] | None = None  # a beacon game's chain (game.new's "beacon")
        self.waiting: dict[str, Any] | None = None  # the declaration waiting for its round
        self.rounds = 0
        self.interactions: set[str] = set()
        self.last_at = ""
        self.version = 1
        """The last entry's version: versions never go down (an entry cannot claim older rules)."""
        """The last entry's time: in the one format ``at`` may take, text order is time order."""
        self.unproven: set[int] = set()
        """Entries holding dice of a seed not revealed yet: they prove nothing yet."""

    def run(self) -> dict[str, int]:
        """Check every entry in order, then the header and the dice; the counts."""
        for number, entry in enumerate(self.entries, start=1):
            self.read(number, entry)
            table = self.genesis(entry) if entry["kind"] == "game.new" else self.table
            if table is None:
                raise Mismatch(entry["seq"], "the log does not start with game.new")
            table.check(entry)
            if entry["epoch"] != self.epoch:
                raise Mismatch(entry["seq"], f"claims seed epoch {entry['epoch']}, the current "
                               f"one is {self.epoch}")  # fmt: skip
            self.dice(entry, self.beacon(entry))
            self.shown(entry)
            self.seeds_of(entry, last=number == len(self.entries))
        check_header(self.header, self.entries, self.prev)
        return self.counts(self.recompute())

    def read(self, number: int, entry: dict[str, Any]) -> None:
        """The entry's hash, place in the chain, shape, time and interaction id."""
        claimed = entry.pop("hash", None)
        if hashlib.sha256(canonical(entry).encode("utf-8")).hexdigest() != claimed:
            raise Mismatch(number, "its hash does not match its content (edited?)")
        check_shape(entry, number)
        seq = entry["seq"]
        if seq != number:
            raise Mismatch(number, f"has sequence number {seq} (removed or reordered entries?)")
        if entry["prev"] != self.prev:
            raise Mismatch(seq, "does not follow the entry before it (prev hash differs)")
        if entry["game"] != self.game:
            raise Mismatch(seq, "belongs to another game")
        self.prev = self.hashes[seq] = claimed
        at = entry["at"]
        if at < self.last_at:
            raise Mismatch(seq, f"was written at {entry['at']}, before the entry before it")
        self.last_at = at
        if entry["interaction"] in self.interactions:
            raise Mismatch(seq, f"repeats the interaction id {entry['interaction']!r}")
        self.interactions.add(entry["interaction"])
        if entry["v"] < self.version:
            raise Mismatch(seq, f"is of version {entry['v']} after one of version {self.version}")
        self.version = entry["v"]
        if entry["v"] >= 2:
            check_texts(entry, seq)

    def genesis(self, entry: dict[str, Any]) -> Table:
        """``game.new``: the first entry, its commitment, its dice mode, the table."""
        if entry["seq"] != 1:
            raise Mismatch(entry["seq"], "a second game.new entry")
        sides = entry["sides"]
        if not sides or len(set(sides)) != len(sides):
            raise Mismatch(1, f"names the sides {sides}: none, or one twice")
        self.commitments[1] = entry["commitment"]
        self.scripted_game = entry.get("scripted") is True
        if entry.get("dice_mode") == "beacon":
            self.chain = entry["beacon"]
        if DERIVATIONS[self.header["dice"]] != (2 if self.chain is not None else 1):
            raise Mismatch(0, f"names {self.header['dice']!r}, not this game's dice derivation")
        self.table = Table(entry)
        return self.table

    def beacon(self, entry: dict[str, Any]) -> bytes | None:
        """A beacon game's declarations and resolutions in order; a resolution's randomness."""
        seq, kind, chain = entry["seq"], entry["kind"], self.chain
        if chain is None:
            if kind in ("declared", "resolved", "game.cancel"):
                raise Mismatch(seq, f"a {kind} entry in a game without beacon dice")
            return None
        waiting, beacon = self.waiting, None
        if waiting is not None and kind not in ("resolved", "game.cancel"):
            raise Mismatch(seq, f"written while entry {waiting['seq']} waited for its round")
        if kind == "declared":
            due = chain["genesis"] + (entry["round"] - 1) * chain["period"]
            if datetime.fromisoformat(entry["at"]).timestamp() >= due:
                raise Mismatch(seq, f"declared after beacon round {entry['round']} was out")
            if entry["dice"]:
                raise Mismatch(seq, "a declaration rolled dice")
            self.waiting = entry
        elif kind in ("resolved", "game.cancel"):
            target = entry["declared"] if kind == "resolved" else entry["entry"]
            if waiting is None or waiting["seq"] != target:
                raise Mismatch(seq, f"entry {target} is not a declaration waiting for a round")
            if kind == "resolved":
                beacon = check_resolution(seq, waiting, entry)
                self.rounds += 1
            elif entry["round"] != waiting["round"]:
                raise Mismatch(seq, f"cancels round {entry['round']}, not {waiting['round']}")
            self.waiting = None
        elif entry["dice"]:
            raise Mismatch(seq, "dice rolled without a beacon round in a beacon game")
        return beacon

    def dice(self, entry: dict[str, Any], beacon: bytes | None) -> None:
        """Die numbers without gaps, in the current epoch, faces on the die; scripted dice only
        in a scripted game; the others kept to recompute once the seeds are known."""
        seq = entry["seq"]
        for die in entry["dice"]:
            if die["seq"] != self.next_die:
                raise Mismatch(seq, f"die #{die['seq']} where die #{self.next_die} was due")
            if die["epoch"] != self.epoch:
                raise Mismatch(seq, f"die #{die['seq']} claims epoch {die['epoch']}")
            if not 1 <= die["face"] <= die["sides"]:
                raise Mismatch(seq, f"die #{die['seq']} shows {die['face']} on a d{die['sides']}")
            self.next_die += 1
            if die["scripted"]:
                if not self.scripted_game:
                    raise Mismatch(seq, f"die #{die['seq']} is marked scripted in a game not "
                                   "started so")  # fmt: skip
                self.scripted += 1
            else:
                self.pending.append((seq, die, self.players, beacon))

    def shown(self, entry: dict[str, Any]) -> None:
        """The rolls shown are the dice logged; a ``/roll``'s total and text, recomputed."""
        seq, kind = entry["seq"], entry["kind"]
        shown = entry.get("resolves") if kind == "resolved" else kind
        if shown in ("action", "roll"):
            rolls = entry["outcome"]["rolls"] if shown == "action" else entry["rolls"]
            logged = [(d["label"], d["sides"], d["face"]) for d in entry["dice"]]
            if dice_of_rolls(rolls) != logged:
                raise Mismatch(seq, "its rolls do not show the dice it logged (labels, faces)")
        if shown == "roll":
            recomputed = roll_text(entry["expression"], [d["face"] for d in entry["dice"]])
            if recomputed is None:
                self.pools += 1
            elif recomputed != (entry["total"], entry["text"]):
                text = recomputed[1]
                raise Mismatch(seq, f"the dice give {text!r}, the log shows {entry['text']!r}")

    def seeds_of(self, entry: dict[str, Any], *, last: bool) -> None:
        """Seed phrases mixed in; seeds revealed against their commitments; the next epoch."""
        seq, kind = entry["seq"], entry["kind"]
        if kind == "game.seed":
            self.players = mix_phrase(self.players, entry["phrase"])
            if self.players.hex() != entry["players"]:
                raise Mismatch(seq, "the players' seed mix is not what the phrases give")
        if kind in ("game.rotate", "game.end"):
            revealed = bytes.fromhex(entry["revealed_seed"])
            if entry["revealed_epoch"] != self.epoch:
                raise Mismatch(seq, f"reveals epoch {entry['revealed_epoch']}, not {self.epoch}")
            if hashlib.sha256(revealed).hexdigest() != self.commitments[self.epoch]:
                raise Mismatch(seq, f"the revealed seed of epoch {self.epoch} breaks its "
                               "commitment")  # fmt: skip
            self.seeds[self.epoch] = revealed
        if kind == "game.rotate":
            if entry["next_epoch"] != self.epoch + 1:
                raise Mismatch(seq, f"starts epoch {entry['next_epoch']} after {self.epoch}")
            self.epoch = entry["next_epoch"]
            self.commitments[self.epoch] = entry["next_commitment"]
        if kind == "game.end" and not last:
            raise Mismatch(seq, "entries follow the end of the game")

    def recompute(self) -> tuple[int, int]:
        """Every die of a revealed seed recomputed: (checked, of seeds not revealed); the entries
        holding dice of seeds not revealed are kept in :attr:`unproven`."""
        checked = unrevealed = 0
        for seq, die, mix, beacon in self.pending:
            seed = self.seeds.get(die["epoch"])
            if seed is None:
                unrevealed += 1
                self.unproven.add(seq)
                continue
            face = die_face(seed, self.game, mix, die["seq"], die["sides"], beacon)
            if face != die["face"]:
                raise Mismatch(seq, f"die #{die['seq']} ({die['label']}) shows {die['face']}, "
                               f"the seed gives {face}")  # fmt: skip
            checked += 1
        return checked, unrevealed

    def ties(
        self, keys: list[str], anchors: list[Anchor], check: Check
    ) -> tuple[list[str], list[str]]:
        """What the bot's keys and the anchors given prove of this file (after :meth:`run`)."""
        return ties(self.header, self.hashes, self.commitments, keys, anchors, check)

    def counts(self, dice: tuple[int, int]) -> dict[str, int]:
        assert self.table is not None
        counts = {
            "entries": len(self.entries),
            "dice checked": dice[0],
            "dice of unrevealed seeds": dice[1],
            "scripted dice": self.scripted,
            "entries by server referees": self.table.server_referees,
        }
        if self.chain is not None:
            counts[ROUNDS_UNCHECKED] = self.rounds
            counts["declarations waiting for their round"] = int(self.waiting is not None)
        if self.table.seals:
            counts["sealed notes"] = len(self.table.seals)
            hidden = sum(not note["revealed"] for note in self.table.seals.values())
            counts[HIDDEN_NOTES] = hidden
        if self.table.unrecorded_sides:
            counts[UNRECORDED_SIDES] = self.table.unrecorded_sides
        if self.pools:
            counts[POOLS_UNCHECKED] = self.pools
        return counts


def counted(number: int, singular: str, plural: str | None = None) -> str:
    """``number`` and its noun in agreement: "1 die", "2 dice", never "1 dice" (as
    rules_core/words.py's counted(), which this standard-library checker does not import)."""
    return f"{number} {singular if number == 1 else plural or singular + 's'}"


ROUNDS_UNCHECKED = "beacon rounds (signatures not checked)"
HIDDEN_NOTES = "sealed notes not revealed"
UNRECORDED_SIDES = "actions of an older format without sides (checked on their acting side only)"
POOLS_UNCHECKED = "dice pools whose totals referee verify recomputes (not this checker)"


def check(lines: list[str]) -> dict[str, int]:
    """Check the export's lines; raise Mismatch at the first problem; return counts."""
    return Checker(lines).run()


def check_resolution(seq: int, declared: dict[str, Any], resolved: dict[str, Any]) -> bytes:
    """A resolution matches its declaration; the randomness of its round (not its signature)."""
    what = declared["declares"]
    if resolved["resolves"] != what:
        raise Mismatch(seq, f"resolves a {resolved['resolves']}, entry {declared['seq']} "
                       f"declared a {what}")  # fmt: skip
    keys = ("action", "side", "sides", "agreed") if what == "action" else (
        "expression", "reason", "category", "sides")  # fmt: skip
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
    head = header.get("head")
    if not (type(head) is dict and head == {"seq": last["seq"], "hash": head_hash}
            and is_int(head["seq"])):  # fmt: skip
        raise Mismatch(last["seq"], "the header's log head is not the last entry")
    for key, value in expected.items():
        if header.get(key) != value or type(header.get(key)) is not type(value):
            raise Mismatch(0, f"the header's {key} is {header.get(key)!r}, the log says {value!r}")


def verdict(
    checker: Checker,
    counts: dict[str, int],
    *,
    replayed: bool = False,
    proofs: list[str] | None = None,
    unchecked: list[str] | None = None,
    details: list[str] | None = None,
    headline: str | None = None,
) -> str:
    """What the check proved, first and short, then the details one per line.

    ``replayed``: the caller (``referee verify``) also replayed every ruling; ``proofs``: what
    the key and the anchors given proved (none: the file proves only its own consistency);
    ``unchecked``: what was left unchecked, besides what this checker never checks; ``details``:
    more lines of details;
    ``headline``: another first line (``referee verify``'s verdict under other rules).
    """
    lines = []
    if checker.scripted_game:
        lines.append("SCRIPTED GAME: its dice were typed in (console --dice), not rolled: they "
                     "prove nothing.")  # fmt: skip
    unproven = counts.get("dice of unrevealed seeds", 0)
    ruled = "; every ruling replays" if replayed else ""
    lines.append(headline or (
        f"OK{' so far' if unproven else ''}: {counted(counts['entries'], 'entry', 'entries')} "
        f"consistent — chain, seeds, {counted(counts['dice checked'], 'die', 'dice')} and who "
        f"declared what{ruled}."
    ))  # fmt: skip
    lines += proofs or [
        "It proves only its own consistency: no key and no anchor were given to tie it to the bot."
    ]
    if unproven:
        epochs = " and ".join(str(e) for e in checker.commitments if e not in checker.seeds)
        lines.append(
            f"Not proven yet: {counted(unproven, 'die', 'dice')} of epoch {epochs}'s seed and "
            f"what {counted(len(checker.unproven), 'entry', 'entries')} made of "
            f"{'it' if unproven == 1 else 'them'}, until "
            "/game rotate or /game end."
        )
    if counts.get(HIDDEN_NOTES):
        notes = counted(counts[HIDDEN_NOTES], "sealed note")
        lines.append(f"Not proven yet: the text of {notes}, until they are revealed (only their "
                     "commitments are in the file).")  # fmt: skip
    if not replayed:
        lines.append("Not checked: the rulings and the sides each action concerns (referee "
                     "verify replays them).")  # fmt: skip
    if counts.get(POOLS_UNCHECKED):
        pools = counted(counts[POOLS_UNCHECKED], "dice pool")
        lines.append(f"Not checked: the totals of {pools} (their dice are checked; referee "
                     "verify recomputes the totals).")  # fmt: skip
    lines += [f"Not checked: {what}." for what in unchecked or ()]
    head = checker.header["head"]
    lines.append(f"  head: #{head['seq']} {head['hash']}")
    for epoch, commitment in sorted(checker.commitments.items()):
        state = "revealed" if epoch in checker.seeds else "not revealed yet"
        lines.append(f"  epoch {epoch} commitment: {commitment} ({state})")
    lines += [
        f"  {what}: {n}" for what, n in counts.items() if n or what in ("entries", "dice checked")
    ]
    lines += [f"  {detail}" for detail in details or ()]
    lines.append("  who declared each entry is the bot's word (a Discord identity)")
    lines.append("  entries after the head, if any, are not in this file: compare the head with "
                 "the last one the bot posted")  # fmt: skip
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="verify_dice.py",
        description="Check an exported game's chain, seeds, dice and who declared what.",
    )
    parser.add_argument("file", help="the exported game (JSON Lines)")
    parser.add_argument(
        "--key", action="append", default=[], help="the bot's published public key (hex)"
    )
    parser.add_argument(
        "--anchor", action="append", default=[],
        help="an anchor the bot posted (#17 · 3f9a2c71, 17:3f9a2c71, a signed head, a commitment)",
    )  # fmt: skip
    args = parser.parse_args(argv[1:])
    try:
        anchors = [Anchor.parse(text) for text in args.anchor]
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 2
    try:
        with open(args.file, "rb") as file:
            data = file.read()
    except OSError as exc:
        print(f"cannot read {args.file}: {exc.strerror}", file=sys.stderr)
        return 2
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        print(f"MISMATCH: malformed export (not UTF-8 at byte {exc.start})")
        return 1
    lines = split_lines(text)
    try:
        checker = Checker(lines)
        counts = checker.run()
        proofs, unchecked = checker.ties(args.key, anchors, check_hex)
    except Mismatch as exc:
        print(f"MISMATCH at {exc}")
        return 1
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        print(f"MISMATCH: malformed export ({exc!r})")
        return 1
    rounds = counts.pop(ROUNDS_UNCHECKED, 0)
    if rounds:
        unchecked.append(f"the BLS signatures of the {counted(rounds, 'beacon round')} (referee "
                         "verify checks them)")  # fmt: skip
    older = counts.pop(UNRECORDED_SIDES, 0)
    if older:
        unchecked.append(f"who declared {counted(older, 'older action')} recording no sides, "
                         "beyond their acting side")  # fmt: skip
    print(verdict(checker, counts, proofs=proofs, unchecked=unchecked))
    return 0


__all__ = [
    "Checker",
    "Mismatch",
    "Table",
    "canonical",
    "check",
    "die_face",
    "die_message",
    "mix_phrase",
    "split_lines",
    "verdict",
]

if __name__ == "__main__":
    sys.exit(main(sys.argv))
