"""``referee verify FILE``: the hash chain, every die, and every ruling replayed through rules_core.

The chain and the dice are checked by :mod:`bot.log.verify_dice` (standard library only); then each
entry is replayed in order: the game starts from ``system.new_state``; each action is resolved
again with the faces it logged and must give the logged steps, rolls and facts; each ``/roll``
must give its logged total; a void rebuilds the state from the start without the voided entries;
and after every entry the state's SHA-256 must be the logged one.

Rules versions: each entry records the version of its system's rules it was ruled under
(``rules``; absent in a log written before versions were recorded). An entry of the running
version that replays differently is a mismatch (exit 1: the log is not what the bot wrote). An
entry of another version (or of none) that replays differently is reported as ruled differently
today: the chain, the dice and the ``/roll`` totals are still checked to the end, but the rulings
from that entry on are not verified, and the verdict says so (exit 3; never OK, since a forger
can claim old rules as easily as the bot can have had them). A state recorded in another form
under another version (its hash differs but every ruling replays the same) is reported likewise:
the states are not compared from that entry on.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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
from bot.log.signed import Anchor
from bot.log.signing import check_signature
from rules_core.dice import ScriptedDice
from rules_core.roll import REASON_IN_LABELS, parse_expression, roll_expression
from rules_core.system import GameSystem


@dataclass(frozen=True)
class Report:
    """The result of a verification: OK, the first mismatch with its sequence number, or (with
    ``other_rules``) a log played under other rules whose rulings from ``seq`` on were not
    verified."""

    ok: bool
    message: str
    seq: int | None = None
    counts: Mapping[str, int] | None = None
    other_rules: bool = False
    """The chain and every die agree, but the rulings were not all verified: the log was ruled
    under another version of the rules (``referee verify`` exits 3)."""

    @property
    def exit_status(self) -> int:
        """0 verified, 1 a mismatch (or a file that is no export), 3 played under other rules."""
        return 0 if self.ok else 3 if self.other_rules else 1


@dataclass
class _OtherRules:
    """Where a log played under other rules stops being verified."""

    running: int
    recorded: dict[int, int | None]
    """Entry → the rules version it records (None: not recorded)."""
    ruling: tuple[int, str] | None = None
    """The first entry ruled differently today and how."""
    state_form: int | None = None
    """The first entry whose state is recorded in another form (not compared from it on)."""

    def played_under(self, system: str, upto: int) -> str:
        """What the entries up to ``upto`` record, in words."""
        seen = sorted({v for s, v in self.recorded.items() if s <= upto}, key=lambda v: v or 0)
        named = [
            f"{system} rules version {v}" if v is not None
            else "rules of a version it does not record (it predates rules versions)"
            for v in seen
        ]  # fmt: skip
        return " and ".join(named)


def verify_lines(
    lines: list[str],
    systems: Mapping[str, GameSystem[Any, Any]],
    keys: Sequence[str] = (),
    anchors: Sequence[Anchor] = (),
) -> Report:
    """Verify an export given as its lines; ``keys``: the bot's published public keys (hex), one
    of which must have signed it; ``anchors``: what the bot posted in the channel."""
    try:
        checker = verify_dice.Checker(list(lines))
        counts = dict(checker.run())
        proofs, unchecked = checker.ties(list(keys), list(anchors), check_signature)
    except verify_dice.Mismatch as exc:
        return Report(ok=False, message=str(exc), seq=exc.seq)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        return Report(ok=False, message=f"malformed export ({exc!r})", seq=None)
    entries = checker.entries  # read strictly, their hashes checked and taken off
    genesis = entries[0]
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
    assert checker.table is not None
    replay = _Replay(system, checker.table, entries)
    failed = replay.run()
    if failed is not None:
        return failed
    counts["actions replayed"] = replay.replayed
    if verify_dice.POOLS_UNCHECKED in counts:  # _check_roll recomputed every pool above
        counts["dice pools recomputed"] = counts.pop(verify_dice.POOLS_UNCHECKED)
    other = replay.other
    if other.ruling is not None or other.state_form is not None:
        return _other_rules_report(system, other, checker, counts, proofs)
    details = []
    counts.pop(verify_dice.ROUNDS_UNCHECKED, None)
    counts.pop(verify_dice.UNRECORDED_SIDES, None)  # recomputed here, every one
    if beacon is not None:
        checked, chain = beacon
        counts["beacon signatures checked"] = checked
        if chain.chain_hash not in KNOWN_CHAINS:
            unchecked.append(
                f"the beacon chain {chain.name!r} ({chain.chain_hash[:16]}…) is not a known "
                "public chain: its key is the export's own"
            )
    if any(v != other.running for v in other.recorded.values()):
        details.append(
            f"played under {other.played_under(system.name, len(entries))}: every ruling and"
            f" state replays the same under {system.name} rules version {other.running}"
        )
    message = verify_dice.verdict(
        checker, counts, replayed=True, proofs=proofs, unchecked=unchecked, details=details
    )
    return Report(ok=True, message=message, counts=counts)


class _Replay:
    """Every entry replayed through rules_core in order: each action's outcome, its acting side,
    the sides it concerns (recomputed here, never read from the log) and whether its declarer
    could act for them; each ``/roll``; each void; the state after every entry."""

    def __init__(
        self, system: GameSystem[Any, Any], table: verify_dice.Table, entries: list[dict[str, Any]]
    ) -> None:
        self.system, self.table, self.entries = system, table, entries
        self.state: BaseModel | None = None
        self.voided: set[int] = set()
        self.replayed = 0
        self.concerned: dict[int, list[str]] = {}
        """Each replayed action's sides as recomputed here (for the voids after it)."""
        genesis_rules = entries[0].get("rules")
        self.other = _OtherRules(
            running=system.rules_version,
            recorded={int(e["seq"]): e.get("rules", genesis_rules) for e in entries},
        )

    def run(self) -> Report | None:
        """None when every entry replays (or rules differently under other rules, noted in
        :attr:`other`); a failed :class:`Report` at the first mismatch."""
        other = self.other
        for entry in self.entries:
            seq = int(entry["seq"])
            kind = entry["kind"]
            if kind == "resolved":  # a beacon game's resolution replays as the action or roll
                kind = entry["resolves"]
            if other.ruling is not None:  # past a ruling of other rules: only /roll arithmetic
                if kind == "roll":
                    try:
                        problem = _check_roll(entry)
                    except Exception as exc:
                        problem = f"cannot be replayed ({exc})"
                    if problem is not None:
                        return Report(ok=False, message=f"entry {seq}: {problem}", seq=seq)
                continue
            try:
                problem = self.entry(entry, kind)
            except ReplayError as exc:
                problem = exc.reason
            except Exception as exc:  # any failure to replay is a mismatch at this entry
                problem = f"cannot be replayed ({exc})"
            if kind == "roll" and problem is not None:  # no rules version makes other arithmetic
                return Report(ok=False, message=f"entry {seq}: {problem}", seq=seq)
            recorded = other.recorded[seq]
            if problem is None and other.state_form is None:
                assert self.state is not None
                if state_hash(state_json(self.state)) != entry["state"]:
                    if recorded == other.running:
                        problem = "the state after it is not the logged one"
                    else:
                        other.state_form = seq
            if problem is None:
                continue
            if recorded == other.running and other.state_form is None:
                return Report(ok=False, message=f"entry {seq}: {problem}", seq=seq)
            other.ruling = (seq, problem)
        return None

    def entry(self, entry: dict[str, Any], kind: str) -> str | None:
        """Replay one entry; what differs from the log, or None."""
        system = self.system
        if kind == "game.new":
            self.state = system.new_state(tuple(entry["sides"]), dict(entry.get("options", {})))
        elif kind == "action":
            return self.action(entry)
        elif kind == "roll":
            return _check_roll(entry)
        elif kind == "game.void":
            target = int(entry["entry"])
            _, held = self.table.could[int(entry["seq"])]
            mine = held & set(self.concerned.get(target, ()))
            if "agreed" not in entry and mine:
                return (
                    f"{entry['by']['name']} voids an entry concerning {', '.join(sorted(mine))},"
                    " a side they hold, without the other side's agreement"
                )
            self.voided.add(target)
            self.state = rebuild_state(system, self.entries[: int(entry["seq"]) - 1], self.voided)
        elif kind in ("game.missed", "game.extend", "game.claim") and entry["court"] == "turn":
            named = entry["against"] if kind == "game.claim" else entry["side"]
            if system.next_to_act(self.state) != named:  # whose turn, as the rules say
                return f"names {named} to act; the rules say {system.next_to_act(self.state)}"
        return None

    def action(self, entry: dict[str, Any]) -> str | None:
        """An action: written as the bot writes it, declared for its side by someone who could
        act for every side it concerns (recomputed), ruled as logged."""
        system, state, seq = self.system, self.state, int(entry["seq"])
        assert state is not None
        action = system.parse_action(entry["action"])
        written = action.model_dump(mode="json")
        logged = entry["action"]
        if canonical({k: written.get(k) for k in logged}) != canonical(logged):
            key = next(k for k in logged if canonical(written.get(k)) != canonical(logged[k]))
            return f"its action's {key!r} is not written as the bot writes it ({logged[key]!r})"
        side = system.acting_side(state, action)
        concerned = sorted(system.concerned_sides(state, action))
        self.concerned[seq] = concerned
        if side != entry["side"]:
            return f"the action is declared for {side}, the log says {entry['side']}"
        if "sides" in entry and concerned != sorted(entry["sides"]):
            return (
                f"the action concerns {', '.join(concerned)}, the log says "
                f"{', '.join(entry['sides'])}"
            )
        refused = self.permitted(entry, action, concerned)
        if refused is not None:
            return refused
        outcome = replay_action(system, state, entry)
        if canonical(outcome_json(outcome)) != canonical(entry["outcome"]):
            return "the rules give another outcome than the logged one"
        self.state = outcome.state
        self.replayed += 1
        return None

    def permitted(
        self, entry: dict[str, Any], action: BaseModel, concerned: list[str]
    ) -> str | None:
        """Whether the declarer (with the proposer whose proposal they confirmed) could act for
        every side the action concerns, and give its referee-only options; why not, or None."""
        referee, held = self.table.could[int(entry["seq"])]
        if referee:
            return None
        name = entry["by"]["name"]
        holds = {side.casefold() for side in held}
        missing = [side for side in concerned if side.casefold() not in holds]
        if missing:
            return (
                f"{name} does not hold the {' and '.join(missing)} seat this action concerns "
                "(recomputed from the rules), and no one who did agreed"
            )
        for option, info in type(action).model_fields.items():
            extra = info.json_schema_extra
            given = getattr(action, option) != info.get_default(call_default_factory=True)
            if isinstance(extra, dict) and extra.get("referee_only") and given:
                return f"{name} is not a referee, and only a referee may give the option {option}"
        return None


def _check_roll(entry: dict[str, Any]) -> str | None:
    """A ``/roll``'s total, text and rolls recomputed from its dice; what differs, or None.
    The dice's labels are those of today or, for a log written before, those that named the
    dice by a reason of any length (the labels are free text: the faces are what is proven)."""
    logged = (entry["total"], entry["text"], entry["rolls"])
    for reason_chars in (REASON_IN_LABELS, len(entry["reason"])):
        faces = [int(d["face"]) for d in entry["dice"]]
        dice = ScriptedDice(faces)
        result = roll_expression(
            parse_expression(entry["expression"]),
            dice,
            reason=entry["reason"],
            category=entry.get("category", ""),
            reason_chars=reason_chars,
        )
        dice.assert_used_up()
        rolls = [r.model_dump(mode="json") for r in result.rolls]
        if (result.total, result.render(), rolls) == logged:
            return None
    return f"the dice give {result.render()!r}, the log says {entry['text']!r} ({entry['total']})"


def _other_rules_report(
    system: GameSystem[Any, Any],
    other: _OtherRules,
    checker: verify_dice.Checker,
    counts: dict[str, int],
    proofs: list[str],
) -> Report:
    """The verdict on a log played under other rules: what was checked, what was not."""
    told = []
    if other.ruling is not None:
        seq, problem = other.ruling
        headline = f"the rulings from entry #{seq} on were NOT verified."
        told.append(
            f"Entry #{seq} rules differently today ({problem}); the rulings of entries 1–{seq - 1}"
            " replay the same."
        )
    else:
        seq = other.state_form or 1
        headline = "every ruling replays the same today, but the states were not all compared."
    if other.state_form is not None:
        told.append(
            f"The state after each entry is recorded in another form from entry #{other.state_form}"
            " on and was NOT compared."
        )
    told += [
        f"Played under {other.played_under(system.name, seq)}; this referee runs {system.name} "
        f"rules version {other.running}.",
        "The chain and every die were checked. Anyone can claim older rules: believe the "
        "unverified rulings only as far as you believe the game was played on a referee of that "
        "version.",
    ]
    counts.pop(verify_dice.ROUNDS_UNCHECKED, None)
    counts.pop(verify_dice.UNRECORDED_SIDES, None)
    message = verify_dice.verdict(
        checker,
        counts,
        replayed=True,
        proofs=proofs,
        headline=f"NOT VERIFIED UNDER TODAY'S RULES: {headline}",
    )
    lines = message.split("\n")
    at = 2 if lines[0].startswith("SCRIPTED GAME") else 1
    message = "\n".join([*lines[:at], *told, *lines[at:]])
    return Report(ok=False, message=message, seq=seq, counts=counts, other_rules=True)


def verify_text(
    text: str,
    systems: Mapping[str, GameSystem[Any, Any]],
    keys: Sequence[str] = (),
    anchors: Sequence[Anchor] = (),
) -> Report:
    """Verify an export given as its text (lines split on "\\n" only, as JSON Lines)."""
    lines = verify_dice.split_lines(text)
    if not lines:
        return Report(ok=False, message="the export is empty")
    return verify_lines(lines, systems, keys, anchors)


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


def verify_file(
    path: Path,
    systems: Mapping[str, GameSystem[Any, Any]],
    keys: Sequence[str] = (),
    anchors: Sequence[Anchor] = (),
) -> Report:
    """Verify an export file."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        return Report(ok=False, message=f"cannot read {path}: {exc.strerror}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Report(ok=False, message=f"malformed export (not UTF-8 at byte {exc.start})")
    return verify_text(text, systems, keys, anchors)


__all__ = ["Anchor", "Report", "verify_file", "verify_lines", "verify_text"]
