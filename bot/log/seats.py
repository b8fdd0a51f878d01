"""Who declared what: the seats and referees replayed from an export, with nothing but the
Python standard library (a part of the standalone checker ``bot/log/verify_dice.py``;
docs/TRUST.md, *Who may do what*)."""

from __future__ import annotations

import hashlib
from typing import Any

from bot.log.deadlines import CLOCK_KINDS, FORFEIT_FACTS, ClockCheck
from bot.log.reading import Mismatch

NO_ONE_ALONE = 2
"""From this entry version on, nobody holding a seat acts alone for another side (docs/TRUST.md):
a referee who plays acts for the other side, reseats, names referees, voids and ends the game
only by a proposal the other side's player (or a referee without a seat) confirms; a result is
confirmed by the other side, conceded by the loser or recorded by a referee without a seat; a
dispute is ruled on only by a referee without a seat. Older entries are checked as the bot then
allowed: a referee acted for every side."""


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
        self.lapsed: dict[int, tuple[int, str]] = {}
        """Proposals that lapsed when their proposer gave up a seat they held when proposing:
        the seat's entry and side, by the proposal's sequence number."""
        self.could: dict[int, tuple[bool, frozenset[str]]] = {}
        """Each action, roll and void: whether its declarer (or the proposer it carries out)
        refereed, and the sides they held — for ``referee verify`` to check against the sides
        it recomputes."""
        self.matters: dict[int, dict[str, Any]] = {}
        """Disputes waiting for a referee's ruling, by the entry that raised them."""
        self.seals: dict[int, dict[str, Any]] = {}
        """Sealed notes by entry: who sealed each, its commitment, whether the bot holds its text,
        whether it was revealed."""
        self.clock = ClockCheck()
        """The deadlines' entries: who wrote them, and what the log before them allows."""
        self.forfeit: tuple[int, str] | None = None
        """The ruling that granted a forfeit claim, and the side it made the winner."""

    def held(self, who: int) -> set[str]:
        return {side for side, player in self.seats.items() if player == who}

    def referee(self, by: dict[str, Any]) -> bool:
        return by["id"] in self.referees or bool(by.get("server_referee"))

    def free(self, by: dict[str, Any]) -> bool:
        """A referee who holds no seat: nobody's opponent."""
        return self.referee(by) and not self.held(by["id"])

    def agreed(self, entry: dict[str, Any], kind: Any, agreed: dict[str, Any]) -> None:
        """An entry carrying out a proposal: it must name a proposal still waiting, by its
        proposer, for exactly this command, and be confirmed by someone else (from entry
        version NO_ONE_ALONE on: a referee without a seat, or the player of a side the proposal
        waits for)."""
        seq = entry["seq"]
        proposal = self.proposals.pop(agreed["proposal"], None)
        if proposal is None and agreed["proposal"] in self.lapsed:
            at, side = self.lapsed[agreed["proposal"]]
            raise Mismatch(seq, f"carries out proposal {agreed['proposal']}, which lapsed at entry "
                           f"{at} when its proposer gave up the {side} seat")  # fmt: skip
        if proposal is None or proposal["by"] != agreed["proposed_by"]["id"]:
            raise Mismatch(seq, f"carries out proposal {agreed['proposal']}, which is not one")
        if entry["by"]["id"] == proposal["by"]:
            raise Mismatch(seq, "is confirmed by its own proposer")
        command = proposal["command"]
        if kind == "action":
            same = entry["action"] == command
        elif "command" in entry:  # a deadlines' command carried out as proposed: logged whole
            same = entry["command"] == command
        else:  # a table command: the entry records each of its options
            same = command.get("action") == kind and all(
                entry.get(key) == value for key, value in command.items() if key != "action"
            )
        if not same:
            raise Mismatch(seq, f"does something else than proposal {agreed['proposal']}")
        if entry["v"] >= NO_ONE_ALONE and not (
            self.free(entry["by"]) or self.held(entry["by"]["id"]) & set(proposal["needs"])
        ):
            raise Mismatch(seq, f"{entry['by']['name']} may not confirm proposal "
                           f"{agreed['proposal']}: not the other side's player")  # fmt: skip

    def check(self, entry: dict[str, Any]) -> None:
        """Refuse an entry its ``by`` could not have declared; then apply it to the table."""
        seq, logged_kind, by = entry["seq"], entry["kind"], entry["by"]
        # a beacon game's declaration and resolution are checked as the action or roll they are
        kind = {"declared": entry.get("declares"), "resolved": entry.get("resolves")}.get(
            logged_kind, logged_kind
        )
        who, referee = by["id"], self.referee(by)
        held = self.held(who)
        strict = entry["v"] >= NO_ONE_ALONE
        free = referee and not held  # a referee without a seat: nobody's opponent
        if by.get("server_referee"):
            self.server_referees += 1
        agreed = entry.get("agreed")
        if agreed is not None:
            if logged_kind != "resolved":  # a resolution's proposal was its declaration's
                self.agreed(entry, kind, agreed)
            held |= self.held(agreed["proposed_by"]["id"])
            referee = referee or self.referee(agreed["proposed_by"])
        every_side = referee  # who acts for every side: a referee (in entries of version 1)
        if strict:
            self.strictly(entry, kind, held, free=free, agreed=agreed is not None)
            # a referee without a seat, or one who plays with the other side's agreement
            every_side = free or (agreed is not None and referee)
        if kind in ("action", "roll", "game.void"):
            self.could[seq] = (every_side, frozenset(held))
        if kind == "action":
            self.action(entry, every_side, held)
        elif kind in ("roll", "game.seed", "game.propose", "game.notices", "game.result",
                      "game.seal"):  # fmt: skip
            self.player_entry(entry, kind, referee, held)
        elif kind == "game.reveal":
            self.reveal(entry, entry["entry"], entry["text"], entry["salt"])
        elif kind == "game.decline":
            self.decline(entry, every_side, held)
        elif kind == "game.dispute" and strict:
            self.dispute(entry, held)
        elif kind == "game.ruling" and strict:
            self.ruling(entry)
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
            if kind == "game.claim":  # a forfeit claim: a matter for a referee without a seat
                self.matters[seq] = {"kind": "forfeit", **{k: entry[k] for k in FORFEIT_FACTS}}
        elif kind != "game.new":
            raise Mismatch(seq, f"is of an unknown kind {kind!r}")
        self.clock.see(entry)
        self.kinds[seq] = logged_kind if logged_kind == "declared" else kind
        if self.kinds[seq] in ("action", "roll", "declared"):
            self.entry_sides[seq] = list(entry.get("sides", self.sides))

    def strictly(
        self, entry: dict[str, Any], kind: Any, held: set[str], *, free: bool, agreed: bool
    ) -> None:
        """What entries of version NO_ONE_ALONE or later add: a result says how it was settled,
        a proposal waits for sides its proposer does not hold, and whoever holds a seat does
        nothing alone for another side."""
        seq = entry["seq"]
        if kind == "game.result":
            expected = "referee" if free else "agreed" if agreed else "conceded"
            if entry.get("settled") != expected:
                raise Mismatch(seq, f"says the result was settled {entry.get('settled')!r}; "
                               f"it was {expected!r}")  # fmt: skip
            if self.forfeit is not None and entry.get("winner") != self.forfeit[1]:
                ruling, side = self.forfeit
                raise Mismatch(seq, f"names {entry.get('winner')!r} the winner; entry {ruling} "
                               f"granted {side} a win by forfeit")  # fmt: skip
        if kind == "game.propose" and set(entry["needs"]) & held:
            raise Mismatch(seq, "a proposal waiting for a side its proposer holds")
        if not free and not agreed:
            self.alone(entry, kind, held)

    def alone(self, entry: dict[str, Any], kind: Any, held: set[str]) -> None:
        """What someone holding a seat (a player, or a referee who plays) may not do alone:
        act for a side they do not hold, give a referee's option, reseat another player, name
        or remove another referee, void, end the game, cancel the other side's declaration,
        record a result they do not concede."""
        seq, by = entry["seq"], entry["by"]
        who = by["id"]
        if not self.referee(by) and kind != "game.result":
            return  # a player's other entries are checked as they always were
        problem = None
        if kind == "action" and entry.get("referee_only"):
            problem = "gives a referee's option while holding a seat, without agreement"
        elif kind == "action":
            sides = entry.get("sides", [entry["side"]] if entry.get("side") else [])
            if not set(sides) <= held:
                problem = f"acts for {', '.join(sorted(set(sides) - held))} alone"
        elif kind == "game.seat":
            holder, player = self.seats.get(entry["side"]), entry["player"]["id"]
            if holder not in (None, who, player):
                problem = f"takes the {entry['side']} seat from its player alone"
            elif holder == who != player and any(
                other not in (None, who) for other in self.seats.values()
            ):  # left without a seat, they would act for every side
                problem = f"gives their {entry['side']} seat away alone"
        elif kind in ("game.referee.add", "game.referee.remove", "game.end") and all(
            player in (None, who) for player in self.seats.values()
        ):
            return  # nobody else holds a seat: no other side's player to agree
        elif kind == "game.referee.add" or (
            kind == "game.referee.remove" and entry["user"]["id"] != who
        ):
            problem = "names or removes a referee alone"
        elif kind in ("game.void", "game.end"):
            problem = f"{'voids an entry' if kind == 'game.void' else 'ends the game'} alone"
        elif kind == "game.cancel":
            if not set(self.entry_sides.get(entry["entry"], self.sides)) <= held:
                problem = "cancels the other side's declaration"
        elif kind == "game.result":
            winner, settled = entry.get("winner"), entry.get("settled")
            conceded = settled == "conceded" and winner != "draw" and winner not in held
            if not (conceded and held):
                problem = "records a result without the other side's confirmation"
        if problem is not None:
            raise Mismatch(seq, f"{by['name']} {problem} (a referee without a seat, or the other "
                           "side's confirmation, is needed)")  # fmt: skip

    def dispute(self, entry: dict[str, Any], held: set[str]) -> None:
        """The other side's player refuses a proposed result: a matter for a referee."""
        seq = entry["seq"]
        proposal = self.proposals.pop(entry["entry"], None)
        if proposal is None or proposal["command"].get("action") != "game.result":
            raise Mismatch(seq, f"disputes entry {entry['entry']}, not a proposed result")
        if not held & set(proposal["needs"]):
            raise Mismatch(seq, f"{entry['by']['name']} is not the other side's player")
        result = {k: v for k, v in proposal["command"].items() if k != "action"}
        if entry["result"] != result:
            raise Mismatch(seq, "disputes another result than the one proposed")
        self.matters[seq] = {"kind": "result", "result": result}

    def ruling(self, entry: dict[str, Any]) -> None:
        """A referee without a seat rules on a waiting dispute."""
        seq, by = entry["seq"], entry["by"]
        if not self.referee(by):
            raise Mismatch(seq, f"{by['name']} rules but is not a referee")
        if self.held(by["id"]):
            raise Mismatch(seq, f"{by['name']} rules while holding the "
                           f"{' and '.join(sorted(self.held(by['id'])))} seat")  # fmt: skip
        matter = self.matters.pop(entry["entry"], None)
        if matter is None or entry["matter"] != matter["kind"]:
            raise Mismatch(seq, f"rules on entry {entry['entry']}, which waits for no ruling")
        if entry["decision"] not in ("grant", "refuse"):
            raise Mismatch(seq, f"decides {entry['decision']!r}, neither grant nor refuse")
        if matter["kind"] == "result" and entry.get("result") != matter["result"]:
            raise Mismatch(seq, "rules on another result than the one disputed")
        if matter["kind"] == "forfeit" and any(entry.get(k) != matter[k] for k in FORFEIT_FACTS):
            raise Mismatch(seq, "names other sides or another player than the forfeit claim")
        if matter["kind"] == "forfeit" and entry["decision"] == "grant":
            self.forfeit = (seq, matter["side"])

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
                "for": self.held(entry["by"]["id"]),  # the sides its proposer spoke for
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
        if entry["v"] >= NO_ONE_ALONE and holder is not None and holder != player:
            self.lapse(entry, holder)

    def lapse(self, entry: dict[str, Any], holder: int) -> None:
        """The seat of ``entry["side"]`` passed from ``holder`` to someone else: the proposals
        ``holder`` made while holding it lapse (their proposer no longer speaks for that side);
        the entry, if it lists them (``lapsed``, the bot's from this version on), lists exactly
        those."""
        seq, side = entry["seq"], entry["side"]
        lapsed = sorted(
            number
            for number, proposal in self.proposals.items()
            if proposal["by"] == holder and side in proposal["for"]
        )
        if "lapsed" in entry and sorted(entry["lapsed"]) != lapsed:
            raise Mismatch(seq, f"says proposals {entry['lapsed']} lapse; the {side} seat's "
                           f"former player's proposals that lapse are {lapsed}")  # fmt: skip
        for number in lapsed:
            del self.proposals[number]
            self.lapsed[number] = (seq, side)
        self.clock.lapsed.update(lapsed)

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
