"""Who declared what: the seats and referees replayed from an export, with nothing but the
Python standard library (a part of the standalone checker ``bot/log/verify_dice.py``;
docs/TRUST.md, *Who may do what*)."""

from __future__ import annotations

import hashlib
from typing import Any

from bot.log.deadlines import CLOCK_KINDS, ClockCheck
from bot.log.reading import Mismatch


def note_commitment(salt: str, text: str) -> str:
    """A sealed note's commitment: SHA-256 of ``salt + "\\n" + text`` (UTF-8), in hex."""
    return hashlib.sha256(f"{salt}\n{text}".encode()).hexdigest()


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
        self.unrecorded_sides = 0
        """Actions of an older entry version without ``sides``: checked on their side alone."""
        self.proposals: dict[int, dict[str, Any]] = {}
        """Proposals waiting for the other side's confirmation, by sequence number."""
        self.could: dict[int, tuple[bool, frozenset[str]]] = {}
        """Each action, roll and void: whether its declarer (or the proposer it carries out)
        refereed, and the sides they held — for ``referee verify`` to check against the sides
        it recomputes."""
        self.seals: dict[int, dict[str, Any]] = {}
        """Sealed notes by entry: who sealed each, its commitment, whether the bot holds its text,
        whether it was revealed."""
        self.clock = ClockCheck()
        """The deadlines' entries: who wrote them, and what the log before them allows."""

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
        elif "command" in entry:  # a table command carried out as proposed (a deadline, a pause)
            done = entry["command"]
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
            if logged_kind != "resolved":  # a resolution's proposal was its declaration's
                self.agreed(entry, kind, agreed)
            held |= self.held(agreed["proposed_by"]["id"])
            referee = referee or self.referee(agreed["proposed_by"])
        if kind in ("action", "roll", "game.void"):
            self.could[seq] = (referee, frozenset(held))
        if kind == "action":
            self.action(entry, referee, held)
        elif kind in ("roll", "game.seed", "game.propose", "game.notices", "game.result",
                      "game.seal"):  # fmt: skip
            self.player_entry(entry, kind, referee, held)
        elif kind == "game.reveal":
            self.reveal(entry, entry["entry"], entry["text"], entry["salt"])
        elif kind == "game.decline":
            self.decline(entry, referee, held)
        elif kind == "game.seat":
            self.seat(entry, referee)
        elif kind in ("game.referee.add", "game.referee.remove", "game.rotate", "game.end",
                      "game.cancel", "game.void"):  # fmt: skip
            if not referee:
                raise Mismatch(seq, f"{by['name']} is not a referee")
            if kind == "game.referee.add":
                self.referees.add(entry["user"]["id"])
            elif kind == "game.referee.remove":
                self.referees.discard(entry["user"]["id"])
            elif kind == "game.void":
                self.void(entry, agreed)
            elif kind == "game.end":
                self.reveal_all(entry)
        elif kind in CLOCK_KINDS or kind == "game.deadline":
            problem = self.clock.check(entry, referee=referee, held=held, seats=self.seats)
            if problem is not None:
                raise Mismatch(seq, problem)
        elif kind != "game.new":
            raise Mismatch(seq, f"is of an unknown kind {kind!r}")
        self.clock.see(entry)
        self.kinds[seq] = logged_kind if logged_kind == "declared" else kind
        if self.kinds[seq] in ("action", "roll"):
            self.entry_sides[seq] = list(entry.get("sides", self.sides))

    def reveal(self, entry: dict[str, Any], target: int, text: str, salt: str) -> None:
        """A sealed note revealed once, by its sealer (or by the bot at the end), its text and
        salt giving the commitment sealed."""
        seq, note = entry["seq"], self.seals.get(target)
        if note is None or note["revealed"]:
            raise Mismatch(seq, f"reveals entry {target}, which is no sealed note left to reveal")
        if entry["kind"] == "game.reveal" and entry["by"]["id"] != note["by"]:
            raise Mismatch(seq, f"reveals the note sealed at entry {target} by someone else")
        if note_commitment(salt, text) != note["commitment"]:
            raise Mismatch(seq, f"the text revealed is not the note sealed at entry {target} "
                           "(its commitment differs)")  # fmt: skip
        note["revealed"] = True

    def reveal_all(self, end: dict[str, Any]) -> None:
        """At the game's end the bot reveals every note it holds."""
        for note in end.get("revealed_notes", ()):
            if not self.seals.get(note["entry"], {}).get("held"):
                raise Mismatch(end["seq"], f"reveals entry {note['entry']} as a note the bot held")
            self.reveal(end, note["entry"], note["text"], note["salt"])
        kept = [seq for seq, note in self.seals.items() if note["held"] and not note["revealed"]]
        if kept:
            raise Mismatch(end["seq"], f"ends the game with the note of entry {kept[0]} unrevealed")

    def action(self, entry: dict[str, Any], referee: bool, held: set[str]) -> None:
        """An action by a referee, or by a player holding every side it concerns."""
        seq, name = entry["seq"], entry["by"]["name"]
        if "sides" in entry:
            sides = entry["sides"]
        else:  # an older entry: its acting side only
            self.unrecorded_sides += 1
            sides = [entry["side"]] if entry.get("side") else []
        if entry.get("side") and entry["side"] not in sides:
            raise Mismatch(seq, f"acts for {entry['side']} but concerns only {sides}")
        if not referee and not set(sides) <= held:
            raise Mismatch(seq, f"{name} holds no seat of {', '.join(sides)}")
        if not sides and not (referee or held):
            raise Mismatch(seq, f"{name} holds no seat and is not a referee")

    def player_entry(self, entry: dict[str, Any], kind: str, referee: bool, held: set[str]) -> None:
        """A roll, a seed phrase, a proposal, notices or a result: by a player or a referee."""
        seq = entry["seq"]
        if not (referee or held):
            raise Mismatch(seq, f"{entry['by']['name']} holds no seat and is not a referee")
        if kind == "game.seal":
            self.seals[seq] = {
                "by": entry["by"]["id"],
                "commitment": entry["commitment"],
                "held": entry["held"],
                "revealed": False,
            }
        if kind == "game.propose":
            self.proposals[seq] = {
                "by": entry["by"]["id"],
                "command": entry["command"],
                "needs": list(entry.get("needs", self.sides)),
            }
        if kind == "roll" and "sides" in entry and set(entry["sides"]) != held:
            raise Mismatch(seq, f"names the sides {entry['sides']}, the roller holds others")

    def decline(self, entry: dict[str, Any], referee: bool, held: set[str]) -> None:
        """A proposal refused by the other side or a referee, or withdrawn by its proposer."""
        seq = entry["seq"]
        proposal = self.proposals.pop(entry["entry"], None)
        if proposal is None:
            raise Mismatch(seq, f"declines entry {entry['entry']}, not a waiting proposal")
        withdrawn = proposal["by"] == entry["by"]["id"]
        if bool(entry.get("withdrawn")) != withdrawn:
            raise Mismatch(seq, "says withdrawn of a proposal not its author's, or not so")
        if not (withdrawn or referee or held & set(proposal["needs"])):
            raise Mismatch(seq, f"{entry['by']['name']} may not decline proposal {entry['entry']}")

    def seat(self, entry: dict[str, Any], referee: bool) -> None:
        """A player takes an empty seat (or their own); a referee seats anyone."""
        seq, who = entry["seq"], entry["by"]["id"]
        if entry["side"] not in self.seats:
            raise Mismatch(seq, f"seats a side {entry['side']!r} the game does not have")
        holder = self.seats[entry["side"]]
        player = entry["player"]["id"]
        if not referee and (player != who or holder not in (None, who)):
            name = entry["player"]["name"]
            raise Mismatch(seq, f"{entry['by']['name']} may not seat {name} there")
        self.seats[entry["side"]] = player

    def void(self, entry: dict[str, Any], agreed: dict[str, Any] | None) -> None:
        """A referee cancels an action or a roll once; of their own side only by agreement."""
        seq, target = entry["seq"], entry["entry"]
        if self.kinds.get(target) not in ("action", "roll"):
            raise Mismatch(seq, f"voids entry {target}, which is not an action or a roll")
        if target in self.voided:
            raise Mismatch(seq, f"voids entry {target} a second time")
        if agreed is None and self.held(entry["by"]["id"]) & set(self.entry_sides.get(target, [])):
            raise Mismatch(seq, f"{entry['by']['name']} voids an entry of their own side alone")
        self.voided.add(target)
