"""Response deadlines read from a game's log: the settings in force, the pauses, the wait in
progress and when each of its steps (reminders, the deadline, the organiser's alert, the silence
that allows a forfeit claim) falls due — for the bot that reminds a silent player and for the
verifiers that check a missed deadline, an extension or a forfeit claim it finds in an export.

Standard library only (the standalone checker ``bot/log/verify_dice.py`` imports it). The rules
of this reading, restated in docs/guide/TABLE.md ("Deadlines"):

- **Settings** are logged: the organiser's defaults in ``game.new`` (``clock``), a game's own in
  each ``game.deadline`` (its ``clock``, the whole settings after it). The latest are in force.
- **A wait** begins at every entry that moves the game on or changes who plays — an action, a
  roll, a proposal or its refusal, a void, a seat taken, a deadline set — exactly the moments from
  which ``/game times`` measures an answer. The clock's own entries (pause, resume, extension,
  missed deadline, forfeit claim, and proposing or declining a deadline, a pause or a resume)
  begin none.
- **A pause** runs from its entry to its ``until``, or to a ``game.resume``; paused time does not
  count. **Ball time** is the time of a wait less the paused time in it.
- **The deadline** of a wait is ``deadline`` of ball time, or with ``at`` (a clock time in the
  game's ``zone``) the time from the wait's beginning to the first such clock time at least
  ``deadline`` after it. **Steps** are percentages of it (the reminders: 50, 100, 200); 100 is
  the deadline itself, missed once per wait. An **extension** adds the deadline's ``deadline`` to
  every step of the wait not yet reached, the silence and the alert among them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

WAIT_KINDS = frozenset(
    {"action", "roll", "game.propose", "game.decline", "declared", "resolved", "game.void",
     "game.seat", "game.deadline"}
)  # fmt: skip
"""The entries that begin a new wait (docs/guide/TABLE.md, "Deadlines")."""
CLOCK_KINDS = frozenset({"game.pause", "game.resume", "game.extend", "game.missed", "game.claim"})
"""The deadlines' own entries: they begin no wait."""
DEADLINE_STEP = 100
"""The step that is the deadline itself (a missed deadline when it passes)."""
DEFAULT_REMINDERS = (50, 100, 200)
MAX_PAUSE = timedelta(days=90)
"""The longest pause one agreement makes."""
MAX_SPAN = timedelta(days=60)
"""The longest deadline, silence or alert."""

_DURATION_PART = re.compile(r"\s*(\d{1,6})\s*(d|h|min|m|s)\b")
_UNITS = {"d": 86400, "h": 3600, "min": 60, "m": 60, "s": 1}
_CLOCK_TIME = re.compile(r"([01]?\d|2[0-3]):([0-5]\d)")


class ClockError(ValueError):
    """A setting or a time that cannot be read; its text is one sentence for the player."""


def parse_duration(text: str) -> int:
    """Seconds of a duration as players write it: ``48h``, ``2d 12h``, ``90min``, ``30s``.

    >>> parse_duration("48h"), parse_duration("2d 12h"), parse_duration(" 90 min ")
    (172800, 216000, 5400)
    >>> parse_duration("soon")
    Traceback (most recent call last):
    ...
    bot.log.deadlines.ClockError: Write a duration like 48h, 2d 12h or 90min, not 'soon'.
    """
    parts = _DURATION_PART.findall(text)
    if not parts or _DURATION_PART.sub("", text).strip():
        raise ClockError(f"Write a duration like 48h, 2d 12h or 90min, not {text.strip()!r}.")
    return sum(int(count) * _UNITS[unit] for count, unit in parts)


def duration_words(seconds: int) -> str:
    """A setting's duration as players write it.

    >>> duration_words(172800), duration_words(216000), duration_words(5400), duration_words(45)
    ('2d', '2d 12h', '1h 30min', '45s')
    """
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    words = [f"{n}{unit}" for n, unit in ((days, "d"), (hours, "h"), (minutes, "min"), (secs, "s"))
             if n]  # fmt: skip
    return " ".join(words) or "0s"


def zone_named(name: str) -> ZoneInfo:
    """The IANA time zone ``name`` (``Europe/Paris``, ``UTC``)."""
    try:
        return ZoneInfo(name.strip() or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        raise ClockError(
            f"{name.strip()!r} is not a time zone; write one like Europe/Paris or America/New_York."
        ) from None


def clock_time(text: str) -> time:
    """A clock time ``HH:MM`` (24 hours).

    >>> clock_time("20:00"), clock_time("7:05")
    (datetime.time(20, 0), datetime.time(7, 5))
    """
    found = _CLOCK_TIME.fullmatch(text.strip())
    if found is None:
        raise ClockError(f"Write a clock time like 20:00 (24 hours), not {text.strip()!r}.")
    return time(int(found[1]), int(found[2]))


@dataclass(frozen=True)
class Settings:
    """A game's deadline settings (all durations in seconds; None: not set)."""

    deadline: int | None = None
    """The response deadline; None: the game has no deadline (nothing below applies)."""
    at: str | None = None
    """A clock time ``HH:MM``: the deadline is moved to the first such time after ``deadline``."""
    zone: str = "UTC"
    reminders: tuple[int, ...] = DEFAULT_REMINDERS
    """Steps, in percent of the deadline, at which the player to act is reminded (100 is the
    deadline itself)."""
    extensions: int = 0
    """Extensions each player may take in the game."""
    silence: int | None = None
    """Ball time after which the other player may claim a forfeit (None: no claims)."""
    alert: int | None = None
    """Ball time after which the organiser is told (None: never)."""

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Settings:
        return cls(
            deadline=_int_or_none(data.get("deadline")),
            at=data.get("at") or None,
            zone=str(data.get("zone") or "UTC"),
            reminders=tuple(int(p) for p in data.get("reminders", DEFAULT_REMINDERS)),
            extensions=int(data.get("extensions", 0)),
            silence=_int_or_none(data.get("silence")),
            alert=_int_or_none(data.get("alert")),
        )

    def to_json(self) -> dict[str, Any]:
        """The settings as logged: keys of unset durations left out."""
        data: dict[str, Any] = {
            "zone": self.zone,
            "reminders": list(self.reminders),
            "extensions": self.extensions,
        }
        for key in ("deadline", "at", "silence", "alert"):
            if getattr(self, key) is not None:
                data[key] = getattr(self, key)
        return data

    def words(self) -> str:
        """The settings in one line, as ``/game status`` shows them.

        >>> Settings(deadline=172800, at="20:00", zone="Europe/Paris", extensions=2).words()
        '2d, then at 20:00 (Europe/Paris) · reminders at 50, 100, 200 % · 2 extensions a player'
        """
        if self.deadline is None:
            return "none"
        text = duration_words(self.deadline)
        if self.at:
            text += f", then at {self.at} ({self.zone})"
        text += " · reminders at " + ", ".join(map(str, self.reminders)) + " %"
        count = self.extensions
        text += f" · {count} extension{'' if count == 1 else 's'} a player"
        if self.silence is not None:
            text += f" · forfeit claims after {duration_words(self.silence)} of silence"
        if self.alert is not None:
            text += f" · the organiser told after {duration_words(self.alert)}"
        return text


def _int_or_none(value: Any) -> int | None:
    return None if value is None else int(value)


def moment(text: str) -> datetime:
    """An entry's time (``at``)."""
    return datetime.fromisoformat(text)


def settings_in_force(entries: Iterable[Mapping[str, Any]]) -> Settings | None:
    """The latest settings logged (``game.new``'s or a ``game.deadline``'s ``clock``)."""
    found: Settings | None = None
    for entry in entries:
        if entry.get("kind") in ("game.new", "game.deadline") and "clock" in entry:
            found = Settings.from_json(entry["clock"])
    return found


@dataclass(frozen=True)
class Pause:
    """A pause: from ``start`` to ``end`` (its ``until``, or the resume that ended it early)."""

    start: datetime
    end: datetime
    seq: int


def pauses(entries: Iterable[Mapping[str, Any]]) -> list[Pause]:
    """Every pause of the log, in order; a resume ends the pause in progress."""
    found: list[Pause] = []
    for entry in entries:
        kind = entry.get("kind")
        if kind == "game.pause":
            found.append(Pause(moment(entry["at"]), moment(entry["until"]), int(entry["seq"])))
        elif kind == "game.resume" and found:
            at = moment(entry["at"])
            last = found[-1]
            if last.start <= at < last.end:
                found[-1] = Pause(last.start, at, last.seq)
    return found


def paused_at(found: Sequence[Pause], at: datetime) -> Pause | None:
    """The pause in progress at ``at``, if any."""
    return next((p for p in found if p.start <= at < p.end), None)


def ball_time(since: datetime, at: datetime, found: Sequence[Pause]) -> timedelta:
    """The time from ``since`` to ``at`` less the paused time in it.

    >>> t = lambda h: datetime(2026, 1, 1, tzinfo=UTC) + timedelta(hours=h)
    >>> str(ball_time(t(0), t(10), [Pause(t(2), t(5), 3)]))
    '7:00:00'
    """
    if at <= since:
        return timedelta()
    paused = sum(
        (min(p.end, at) - max(p.start, since) for p in found if p.start < at and p.end > since),
        timedelta(),
    )
    return at - since - paused


def when_ball_time(since: datetime, net: timedelta, found: Sequence[Pause]) -> datetime:
    """The moment ball time since ``since`` reaches ``net`` (pauses push it later).

    >>> t = lambda h: datetime(2026, 1, 1, tzinfo=UTC) + timedelta(hours=h)
    >>> when_ball_time(t(0), timedelta(hours=7), [Pause(t(2), t(5), 3)]) == t(10)
    True
    """
    at = since + net
    for pause in sorted(found, key=lambda p: p.start):
        if pause.end <= since:
            continue
        if pause.start >= at:
            break
        at += pause.end - max(pause.start, since)
    return at


@dataclass(frozen=True)
class Wait:
    """The wait in progress: it began at entry ``seq`` (at ``since``); ``author`` made that entry;
    ``extensions`` are the times extensions were taken in it; ``missed``: the deadline was
    recorded missed; ``claimed``: a forfeit was claimed in it."""

    seq: int
    since: datetime
    author: int
    extensions: tuple[datetime, ...] = ()
    missed: bool = False
    claimed: bool = False


def is_clock_command(command: Mapping[str, Any]) -> bool:
    """Whether a proposed command is one of the deadlines' own (``/game deadline …``): proposing
    or declining it begins no wait, and it puts the ball in no one's court."""
    return str(command.get("action", "")).startswith(CLOCK_COMMANDS)


CLOCK_COMMANDS = "game.deadline."


def current_wait(entries: Iterable[Mapping[str, Any]]) -> Wait | None:
    """The wait in progress after ``entries`` (None before the first entry that begins one)."""
    wait: Wait | None = None
    clock_proposals: set[int] = set()
    for entry in entries:
        kind = entry.get("kind")
        if kind == "game.propose" and is_clock_command(entry["command"]):
            clock_proposals.add(int(entry["seq"]))
            continue
        if kind == "game.decline" and int(entry["entry"]) in clock_proposals:
            continue
        if kind in WAIT_KINDS:
            wait = Wait(int(entry["seq"]), moment(entry["at"]), int(entry["by"]["id"]))
        elif wait is None:
            continue
        elif kind == "game.extend":
            wait = _replace(wait, extensions=(*wait.extensions, moment(entry["at"])))
        elif kind == "game.missed":
            wait = _replace(wait, missed=True)
        elif kind == "game.claim":
            wait = _replace(wait, claimed=True)
    return wait


def waiting_proposals(
    entries: Iterable[Mapping[str, Any]], lapsed: Iterable[int] = ()
) -> list[Mapping[str, Any]]:
    """The proposals still waiting (not declined, carried out nor ``lapsed`` — their proposer
    gave up the seat they spoke for) that put the ball in a side's court: those of other
    commands than the deadlines' own, needing a side."""
    gone = set(lapsed)
    waiting: dict[int, Mapping[str, Any]] = {}
    for entry in entries:
        kind = entry.get("kind")
        if kind == "game.propose":
            waiting[int(entry["seq"])] = entry
        elif kind == "game.decline":
            waiting.pop(int(entry["entry"]), None)
        elif isinstance(entry.get("agreed"), Mapping):
            waiting.pop(int(entry["agreed"]["proposal"]), None)
    return [
        e
        for seq, e in waiting.items()
        if e.get("needs") and not is_clock_command(e["command"]) and seq not in gone
    ]


def _replace(wait: Wait, **changes: Any) -> Wait:
    return Wait(**{**wait.__dict__, **changes})


def deadline_span(settings: Settings, since: datetime) -> timedelta:
    """The ball time a wait beginning at ``since`` is given: ``deadline``, or with ``at`` up to
    the first ``at`` in the game's zone at least ``deadline`` after ``since`` (pauses aside).

    >>> since = datetime(2026, 1, 1, 9, 30, tzinfo=UTC)
    >>> str(deadline_span(Settings(deadline=86400), since))
    '1 day, 0:00:00'
    >>> str(deadline_span(Settings(deadline=86400, at="20:00", zone="Europe/Paris"), since))
    '1 day, 9:30:00'
    """
    assert settings.deadline is not None
    earliest = since + timedelta(seconds=settings.deadline)
    if not settings.at:
        return earliest - since
    zone = zone_named(settings.zone)
    local = earliest.astimezone(zone)
    target = datetime.combine(local.date(), clock_time(settings.at), tzinfo=zone)
    if target < local:
        target = datetime.combine(local.date() + timedelta(days=1), target.timetz())
    return target.astimezone(UTC) - since


@dataclass(frozen=True)
class Step:
    """A step of a wait: ``event`` (``reminder``, ``deadline``, ``alert``, ``silence``), its
    ``percent`` of the deadline (reminders and the deadline), and when it falls due."""

    event: str
    percent: int
    due: datetime
    net: timedelta
    """The ball time at which it falls due."""

    @property
    def name(self) -> str:
        return f"{self.event}:{self.percent}"


@dataclass(frozen=True)
class Plan:
    """When each step of a wait falls due."""

    wait: Wait
    settings: Settings
    span: timedelta
    """The deadline's ball time, extensions aside."""
    steps: tuple[Step, ...] = field(default=())

    def step(self, name: str) -> Step | None:
        return next((s for s in self.steps if s.name == name), None)

    def deadline(self) -> Step:
        found = self.step(f"deadline:{DEADLINE_STEP}")
        assert found is not None
        return found


def plan(settings: Settings, wait: Wait, found: Sequence[Pause]) -> Plan:
    """The steps of ``wait`` under ``settings`` with the pauses ``found``: each reminder, the
    deadline (100 %), the silence allowing a forfeit claim and the organiser's alert. An
    extension adds ``deadline`` to every step not yet reached when it was taken."""
    assert settings.deadline is not None
    span = deadline_span(settings, wait.since)
    bases: list[tuple[str, int, timedelta]] = [
        ("deadline" if p == DEADLINE_STEP else "reminder", p, span * p / 100)
        for p in sorted({*settings.reminders, DEADLINE_STEP})
    ]
    if settings.silence is not None:
        bases.append(("silence", 0, timedelta(seconds=settings.silence)))
    if settings.alert is not None:
        bases.append(("alert", 0, timedelta(seconds=settings.alert)))
    extra = timedelta(seconds=settings.deadline)
    steps = []
    for event, percent, net in bases:
        for taken in sorted(wait.extensions):
            if ball_time(wait.since, taken, found) < net:
                net += extra
        net = timedelta(seconds=int(net.total_seconds()))  # whole seconds
        steps.append(Step(event, percent, when_ball_time(wait.since, net, found), net))
    steps.sort(key=lambda s: (s.due, s.percent))
    return Plan(wait, settings, span, tuple(steps))


def reached(step: Step, wait: Wait, at: datetime, found: Sequence[Pause]) -> bool:
    """Whether ball time at ``at`` has reached ``step``."""
    return ball_time(wait.since, at, found) >= step.net


@dataclass
class Record:
    """Each player's missed deadlines and extensions in one game (a reliability record)."""

    missed: dict[int, int] = field(default_factory=dict)
    extensions: dict[int, int] = field(default_factory=dict)


def record(entries: Iterable[Mapping[str, Any]]) -> Record:
    """Missed deadlines and extensions per player id, from the log."""
    found = Record()
    for entry in entries:
        kind = entry.get("kind")
        if kind == "game.missed":
            player = int(entry["player"]["id"])
            found.missed[player] = found.missed.get(player, 0) + 1
        elif kind == "game.extend":
            player = int(entry["by"]["id"])
            found.extensions[player] = found.extensions.get(player, 0) + 1
    return found


def check_entry(entries: Sequence[Mapping[str, Any]], entry: Mapping[str, Any]) -> str | None:
    """What is wrong with a deadline entry (``game.extend``, ``game.missed``, ``game.claim``)
    given the entries before it, or None: its wait is the one in progress, its time has come,
    the settings in force allow it. The verifiers' check (who may write it is checked with
    the seats)."""
    kind = entry["kind"]
    settings = settings_in_force(entries)
    if settings is None or settings.deadline is None:
        return f"a {kind} entry in a game without a deadline"
    wait = current_wait(entries)
    if wait is None or int(entry["since"]) != wait.seq:
        return f"names the wait of entry {entry['since']}, not the one in progress"
    at = moment(entry["at"])
    found = pauses(entries)
    steps = plan(settings, wait, found)
    if kind == "game.extend":
        taken = record(entries).extensions.get(int(entry["by"]["id"]), 0)
        if taken >= settings.extensions:
            return f"an extension beyond the {settings.extensions} a player may take"
        if reached(steps.deadline(), wait, at, found):
            return "an extension taken after the deadline passed"
        return None
    if paused_at(found, at) is not None:
        return f"a {kind} entry during a pause"
    if kind == "game.missed":
        if wait.missed:
            return "a second missed deadline in one wait"
        if not reached(steps.deadline(), wait, at, found):
            return "records a deadline missed before it passed"
        return None
    if kind == "game.claim":
        silence = steps.step("silence:0")
        if silence is None:
            return "a forfeit claim in a game whose settings allow none"
        if wait.claimed:
            return "a second forfeit claim in one wait"
        if not reached(silence, wait, at, found):
            return "claims a forfeit before the silence allowing it passed"
        return None
    return f"is of an unknown kind {kind!r}"


BOT_ID = 0
"""The ``by`` id of the entries the bot writes itself (a missed deadline)."""


FORFEIT_FACTS = ("side", "against", "player")
"""What a ruling on a forfeit claim repeats of the claim (the verifiers compare them)."""


def is_forfeit_granted(entry: Mapping[str, Any]) -> bool:
    """A referee's ruling (``game.ruling``) that grants a forfeit claim."""
    return (
        entry.get("kind") == "game.ruling"
        and entry.get("matter") == "forfeit"
        and entry.get("decision") == "grant"
    )


class ClockCheck:
    """The verifiers' check of the deadlines' entries, fed every entry of an export in order
    (``see``): who may write each, and that a missed deadline, an extension or a forfeit claim
    is what the log before it allows (:func:`check_entry`). Standard library only."""

    def __init__(self) -> None:
        self.entries: list[Mapping[str, Any]] = []
        self.forfeit: int | None = None
        """The ruling that granted a forfeit (``game.ruling`` on a claim): the deadlines stop."""
        self.lapsed: set[int] = set()
        """Proposals that lapsed at a reseat (:class:`bot.log.seats.Table` finds them)."""

    def check(
        self,
        entry: Mapping[str, Any],
        *,
        referee: bool,
        held: set[str],
        seats: Mapping[str, Any],
    ) -> str | None:
        """What is wrong with ``entry`` (a deadlines' entry), or None. ``referee``: its author
        referees the game; ``held``: the sides its author (or, agreed, its proposer) holds;
        ``seats``: each side's player id now."""
        kind = entry["kind"]
        by = int(entry["by"]["id"])
        agreed = "agreed" in entry
        if self.forfeit is not None and (kind == "game.deadline" or kind in CLOCK_KINDS):
            # the clock stopped at the forfeit: nothing of it follows
            return f"a {kind} entry after entry {self.forfeit} granted a forfeit"
        if kind in ("game.deadline", "game.pause", "game.resume"):
            if not agreed and not (referee and not held):
                return f"{entry['by']['name']} sets the clock alone: only by agreement or a referee"
            return self._clock_entry(entry)
        if kind == "game.missed":
            if by != BOT_ID:
                return "a missed deadline not written by the bot"
            if seats.get(entry["side"]) != int(entry["player"]["id"]):
                return f"names {entry['player']['name']}, who does not hold {entry['side']}"
        elif kind == "game.extend":
            if entry["side"] not in held or agreed:
                return f"{entry['by']['name']} takes an extension of a side not theirs"
        elif kind == "game.claim":
            if entry["side"] not in held or entry["against"] in held:
                return f"{entry['by']['name']} claims for a side not theirs, or against their own"
            if seats.get(entry["against"]) != int(entry["player"]["id"]):
                return f"names {entry['player']['name']}, who does not hold {entry['against']}"
        return check_entry(self.entries, entry) or self._court(entry, seats)

    def _court(self, entry: Mapping[str, Any], seats: Mapping[str, Any]) -> str | None:
        """Whether the side an entry names to act is the one the log says: the side a waiting
        proposal needs, or the one that did not begin the wait (the rules' turn is checked by
        ``referee verify``, which replays the rules)."""
        side = entry["against"] if entry["kind"] == "game.claim" else entry["side"]
        court = entry.get("court")
        waiting = waiting_proposals(self.entries, self.lapsed)
        if court == "proposal":
            if not waiting or waiting[-1]["needs"][0] != side:
                return f"says a proposal waits for {side}; none does"
        elif waiting:
            return f"names {side} to act while proposal {waiting[-1]['seq']} waits"
        elif court == "answer":
            wait = current_wait(self.entries)
            held = [s for s, player in seats.items() if wait is not None and player == wait.author]
            if len(seats) != 2 or len(held) != 1 or held[0] == side:
                return f"says {side} answers the other side; the wait began with another move"
        elif court != "turn":
            return f"names an unknown reason {court!r} for whose turn it is"
        return None

    def _clock_entry(self, entry: Mapping[str, Any]) -> str | None:
        kind = entry["kind"]
        at = moment(entry["at"])
        if kind == "game.pause":
            until = moment(entry["until"])
            if not at < until <= at + MAX_PAUSE:
                return f"a pause must end after it begins and within {MAX_PAUSE.days} days"
            if paused_at(pauses(self.entries), at) is not None:
                return "a pause during a pause"
        elif kind == "game.resume":
            current = paused_at(pauses(self.entries), at)
            if current is None or current.seq != int(entry["pause"]):
                return f"ends pause {entry['pause']}, which is not in progress"
        return None

    def see(self, entry: Mapping[str, Any]) -> None:
        """Take ``entry`` into the log read so far (after checking it)."""
        self.entries.append(entry)
        if is_forfeit_granted(entry):
            self.forfeit = int(entry["seq"])


__all__ = [
    "BOT_ID",
    "CLOCK_KINDS",
    "DEADLINE_STEP",
    "DEFAULT_REMINDERS",
    "FORFEIT_FACTS",
    "MAX_PAUSE",
    "MAX_SPAN",
    "WAIT_KINDS",
    "ClockCheck",
    "ClockError",
    "Pause",
    "Plan",
    "Record",
    "Settings",
    "Step",
    "Wait",
    "ball_time",
    "check_entry",
    "clock_time",
    "current_wait",
    "deadline_span",
    "duration_words",
    "is_clock_command",
    "is_forfeit_granted",
    "moment",
    "parse_duration",
    "paused_at",
    "pauses",
    "plan",
    "reached",
    "record",
    "settings_in_force",
    "waiting_proposals",
    "when_ball_time",
    "zone_named",
]
