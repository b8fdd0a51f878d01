"""Per-seat response times, read from a game's log: how long each player took to act after the
other side's last action — for league organisers chasing a stalled play-by-mail game.

What counts (the rules of this reading, restated in docs/guide/TABLE.md):

- **An action** is an entry a seated player makes that moves the game on: a rules action (a
  declared command, or a confirmed proposal: the confirmer acted), a proposal or its refusal, a
  roll, a beacon declaration. Seats, notices, seed phrases, results and everything a referee
  does (a void, a rotation, the end) are not actions; read-only commands are not logged.
- **Whose action:** the entry's author's seat at that moment. An author holding no seat (a
  referee, an administrator) or every seat (one person playing both sides) is nobody's
  opponent, and an entry carrying a referee's correction is the referee's: none is counted.
- **A response** is a seat's first action after another seat acted; its time runs from the
  *latest* action of the other seats before it. A seat acting several times in a row responds
  once.
- **A seat change resets the player:** when a seat passes to another player, the wait in
  progress is dropped (the new player is not charged for time before they sat down), and the new
  player's responses are counted on a row of their own.
- **Pauses do not count:** the time of a pause agreed by both players (``/game deadline pause``,
  from its entry to its end or the resume that ended it) is taken out of every wait it overlaps;
  proposing (or declining) a pause, its end or a deadline is no move.
- **Missed deadlines and extensions** (``game.missed``, ``game.extend``) are counted on the row
  of the player and seat they name: a reliability record.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

ACTION_KINDS = frozenset(
    {"action", "roll", "game.propose", "game.decline", "game.dispute", "declared"}
)
"""The log entries that are a player's move (docs/guide/TABLE.md, "Response times")."""


@dataclass(frozen=True)
class SeatTimes:
    """One player's responses in one seat."""

    side: str
    player: str
    player_id: int
    waits: tuple[timedelta, ...]
    missed: int = 0
    """Deadlines this player missed in this seat."""
    extensions: int = 0
    """Extensions this player took in this seat."""

    @property
    def responses(self) -> int:
        return len(self.waits)

    @property
    def median(self) -> timedelta | None:
        if not self.waits:
            return None
        ordered = sorted(self.waits)
        middle = len(ordered) // 2
        if len(ordered) % 2:
            return ordered[middle]
        return (ordered[middle - 1] + ordered[middle]) / 2

    @property
    def longest(self) -> timedelta | None:
        return max(self.waits) if self.waits else None

    @property
    def total(self) -> timedelta:
        return sum(self.waits, timedelta())


def response_times(entries: Iterable[Mapping[str, Any]]) -> list[SeatTimes]:
    """Every seat's players and their response times, in the order of the game's sides and
    then of seating, from a game's log entries in order.

    >>> def entry(kind, who, minute, **data):
    ...     at = f"2026-01-01T10:{minute:02d}:00.000+00:00"
    ...     return {"kind": kind, "by": {"id": who, "name": f"p{who}"}, "at": at, **data}
    >>> log = [
    ...     {"kind": "game.new", "sides": ["Axis", "Allied"], "by": {"id": 9, "name": "ref"},
    ...      "at": "2026-01-01T10:00:00.000+00:00"},
    ...     entry("game.seat", 1, 1, side="Axis", player={"id": 1, "name": "p1"}),
    ...     entry("game.seat", 2, 2, side="Allied", player={"id": 2, "name": "p2"}),
    ...     entry("roll", 1, 3), entry("roll", 1, 5),   # Axis acts twice
    ...     entry("roll", 2, 12),                        # Allied answers 7 minutes later
    ...     entry("roll", 9, 20),                        # the referee: nobody's action
    ...     entry("action", 1, 30),                      # Axis answers after 18 minutes
    ... ]
    >>> [(t.side, t.player, t.responses, str(t.median), str(t.total))
    ...  for t in response_times(log)]
    [('Axis', 'p1', 1, '0:18:00', '0:18:00'), ('Allied', 'p2', 1, '0:07:00', '0:07:00')]
    """
    sides: list[str] = []
    seats: dict[str, dict[str, Any]] = {}
    waits: dict[tuple[str, int], list[timedelta]] = {}
    names: dict[tuple[str, int], str] = {}
    waiting_since: dict[str, datetime] = {}
    pauses: list[list[datetime]] = []
    counted: dict[tuple[str, int, str], int] = {}
    clock_proposals: set[int] = set()
    for entry in entries:
        kind = entry.get("kind")
        if kind == "game.pause":
            pauses.append([_at(entry), datetime.fromisoformat(str(entry["until"]))])
            continue
        if kind == "game.resume" and pauses and pauses[-1][0] <= _at(entry) < pauses[-1][1]:
            pauses[-1][1] = _at(entry)
            continue
        if kind == "game.propose" and str(entry.get("command", {}).get("action", "")).startswith(
            "game.deadline."
        ):  # proposing a pause or a deadline is no answer (nor is declining one)
            clock_proposals.add(int(entry["seq"]))
            continue
        if kind == "game.decline" and entry.get("entry") in clock_proposals:
            continue
        if kind in ("game.missed", "game.extend"):
            side = str(entry["side"])
            who = entry["player"] if kind == "game.missed" else entry["by"]
            key3 = (side, int(who["id"]), kind)
            counted[key3] = counted.get(key3, 0) + 1
            continue
        if kind == "game.new":
            sides = list(entry.get("sides", []))
            continue
        if kind == "game.seat":
            side, player = str(entry["side"]), entry["player"]
            held = seats.get(side)
            if held is None or held["id"] != player["id"]:
                waiting_since.pop(side, None)  # the new player is not charged for it
            seats[side] = player
            key = (side, int(player["id"]))
            waits.setdefault(key, [])
            names[key] = str(player["name"])
            if side not in sides:
                sides.append(side)
            continue
        if kind not in ACTION_KINDS or entry.get("referee_only"):
            continue
        author = int(entry["by"]["id"])
        held_by = [side for side, player in seats.items() if int(player["id"]) == author]
        if len(held_by) != 1 or len(held_by) == len(seats):
            continue
        (side,) = held_by
        at = _at(entry)
        since = waiting_since.pop(side, None)
        if since is not None:
            paused = sum(
                (min(end, at) - max(start, since) for start, end in pauses
                 if start < at and end > since),
                timedelta(),
            )  # fmt: skip
            waits[(side, author)].append(at - since - paused)
        for other in seats:
            if other != side:
                waiting_since[other] = at
    order = {side: index for index, side in enumerate(sides)}
    keys = sorted(waits, key=lambda key: order.get(key[0], len(order)))
    return [
        SeatTimes(
            key[0],
            names[key],
            key[1],
            tuple(waits[key]),
            missed=counted.get((*key, "game.missed"), 0),
            extensions=counted.get((*key, "game.extend"), 0),
        )
        for key in keys
    ]


def _at(entry: Mapping[str, Any]) -> datetime:
    return datetime.fromisoformat(str(entry["at"]))


def duration_text(span: timedelta | None) -> str:
    """A duration as a player reads it, to the second below an hour, to the minute above.

    >>> [duration_text(timedelta(seconds=s)) for s in (0, 45, 65, 3600, 7500, 93784)]
    ['0 s', '45 s', '1 min 5 s', '1 h 00 min', '2 h 05 min', '1 d 2 h 03 min']
    >>> duration_text(None)
    '—'
    """
    if span is None:
        return "—"
    seconds = int(span.total_seconds())
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, seconds = divmod(rest, 60)
    if days:
        return f"{days} d {hours} h {minutes:02d} min"
    if hours:
        return f"{hours} h {minutes:02d} min"
    if minutes:
        return f"{minutes} min {seconds} s"
    return f"{seconds} s"


def times_line(times: SeatTimes) -> str:
    """One seat's figures on one line.

    >>> times_line(SeatTimes("Axis", "ann", 1, (timedelta(minutes=5), timedelta(hours=2))))
    '2 responses · median 1 h 02 min · longest 2 h 00 min · waiting in all 2 h 05 min'
    """
    count = f"{times.responses} response" + ("" if times.responses == 1 else "s")
    if times.waits:
        count += (
            f" · median {duration_text(times.median)} · longest "
            f"{duration_text(times.longest)} · waiting in all {duration_text(times.total)}"
        )
    if times.missed or times.extensions:
        count += f" · missed deadlines {times.missed} · extensions {times.extensions}"
    return count


TIMES_HEADER = (
    "tournament", "round", "scenario", "game", "side", "player",
    "responses", "median_seconds", "longest_seconds", "total_waiting_seconds",
    "missed_deadlines", "extensions",
)  # fmt: skip
"""The header of ``response_times.csv`` in /game league's zip."""


def seconds(span: timedelta | None) -> str:
    """Whole seconds (rounded down), or nothing."""
    return "" if span is None else str(int(span.total_seconds()))
