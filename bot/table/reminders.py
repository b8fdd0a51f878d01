"""The clock of a game with a deadline: whose court the ball is in, the timers of the wait in
progress, and what a timer does when it fires (a reminder, a missed deadline written into the
log, the organiser's alert, the notice that a forfeit may be claimed).

A timer (``timers`` table, migration 003) is only a wake-up: when it fires, the game is read as
it is now and the step is done only if the wait it was planned for is still in progress and the
step has come (:func:`fire`); one process claims it (the database changes its row for one), and
a step that fired is never planned again. Timers are planned after every entry of a game with a
deadline (:func:`replan`, ``Core.after_commit``), and for every such game when a process starts
(:func:`replan_all`), so none is lost when a process stops between an entry and its plan.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from bot.log.deadlines import (
    Pause,
    Plan,
    Settings,
    Step,
    Wait,
    ball_time,
    current_wait,
    is_clock_command,
    paused_at,
    plan,
)
from bot.models import Place, Reply, UserRef
from bot.service.change import Change, Live
from bot.service.core import Core
from bot.stats.times import duration_text
from bot.storage import GameRow, TimerPlan, TimerRow

log = logging.getLogger(__name__)

TAIL = 50
"""Entries read from a log's end to find the wait in progress (else the whole log)."""

Court = Literal["proposal", "turn", "answer"]


@dataclasses.dataclass(frozen=True)
class Ball:
    """Whose court the ball is in: ``side`` (its player ``player``) since entry ``wait.seq``;
    ``court`` says why — a proposal waiting for that side, the rules' turn, or an answer to the
    other side's last move."""

    side: str
    player: UserRef
    court: Court
    wait: Wait


def ms(at: datetime) -> int:
    """Milliseconds since 1970-01-01 UTC."""
    return int(at.timestamp() * 1000)


def now_of(core: Core) -> tuple[str, datetime]:
    """The service's clock read once: as logged, and as a moment."""
    text = core.clock()
    return text, datetime.fromisoformat(text)


def settings_of(row: GameRow) -> Settings | None:
    """The game's deadline settings in force (None: no deadline)."""
    clock = row.table.get("clock")
    if not clock:
        return None
    settings = Settings.from_json(clock)
    return settings if settings.deadline is not None else None


def pauses_of(row: GameRow) -> list[Pause]:
    """The game's pauses (kept in its table by ``/game deadline pause`` and ``resume``)."""
    return [
        Pause(datetime.fromisoformat(p["start"]), datetime.fromisoformat(p["end"]), int(p["seq"]))
        for p in row.table.get("pauses", ())
    ]


async def wait_of(core: Core, row: GameRow) -> Wait | None:
    """The wait in progress, from the log's last entries (or the whole log if it began before
    them)."""
    tail = [e.data() for e in await core.repo.last_entries(row.id, TAIL)]
    wait = current_wait(tail)
    if wait is None and tail and tail[0]["seq"] > 1:
        wait = current_wait(e.data() for e in await core.repo.entries(row.id))
    return wait


def court(live: Live, wait: Wait) -> Ball | None:
    """Whose court the ball is in: the side a waiting proposal needs; else the side the rules
    say acts next (``GameSystem.next_to_act``); else, in a game of two sides, the side that did
    not make the entry the wait began at. None when that side's seat is empty."""
    table = live.row.table
    proposals = [
        p for p in table.get("proposals", ())
        if p.get("needs") and not is_clock_command(p["command"])
    ]  # fmt: skip
    side: str | None
    reason: Court
    if proposals:
        side, reason = proposals[-1]["needs"][0], "proposal"
    elif (side := live.system.next_to_act(live.state)) is not None:
        reason = "turn"
    else:
        held = [s for s, p in table["seats"].items() if p and p["id"] == wait.author]
        others = [s for s in table["sides"] if s not in held]
        if len(table["sides"]) != 2 or len(held) != 1:
            return None
        side, reason = others[0], "answer"
    holder = table["seats"].get(side)
    if not holder:
        return None
    return Ball(side, UserRef(id=holder["id"], name=holder["name"]), reason, wait)


async def ball_of(core: Core, live: Live) -> tuple[Ball, Plan] | None:
    """The ball and the plan of its wait, in a game with a deadline (None: no clock runs)."""
    settings = settings_of(live.row)
    if settings is None or live.row.table.get("forfeit"):  # a granted forfeit stops the clock
        return None
    wait = await wait_of(core, live.row)
    if wait is None:
        return None
    ball = court(live, wait)
    if ball is None:
        return None
    return ball, plan(settings, wait, pauses_of(live.row))


def timer_name(game_id: int, wait: Wait, step: Step) -> str:
    return f"{game_id}:{wait.seq}:{step.name}"


async def replan(core: Core, live: Live) -> None:
    """Plan the timers of the game's wait in progress (after an entry of a game with a clock:
    ``Core.after_commit``); a game without one has its timers retired."""
    row = live.row
    _, now = now_quietly(core)
    found = await ball_of(core, live) if row.status == "active" else None
    if found is None:
        await core.repo.drop_timers(row.id, ms(now))
        return
    ball, steps = found
    timers = [
        TimerPlan(
            name=timer_name(row.id, ball.wait, step),
            event=step.event,
            due=ms(step.due),
            data={"percent": step.percent, "side": ball.side},
        )
        for step in steps.steps
    ]
    await core.repo.plan_timers(row.id, ball.wait.seq, row.head_seq, timers, ms(now))


def now_quietly(core: Core) -> tuple[str, datetime]:
    """The current time without moving a scripted run's clock (it moves on at each reading,
    and a plan or a check must not change what the run prints): its ``peek`` if it has one."""
    text = core.peek() if core.peek is not None else core.clock()
    return text, datetime.fromisoformat(text)


async def replan_all(core: Core) -> int:
    """Plan the timers of every active game with a deadline (a process starting: plans a
    stopped process did not write are written now); how many games."""
    count = 0
    for row in await core.repo.games_with_clock():
        system = core.system(row.system)
        live = Live(row=row, state=system.parse_state(row.state_json), system=system)
        await replan(core, live)
        count += 1
    return count


# --- when a timer fires ----------------------------------------------------------------------

BOT = UserRef(id=0, name="the referee")
"""Who writes a missed deadline into the log: the bot itself, not a player."""


@dataclasses.dataclass(frozen=True)
class Notice:
    """What a fired timer says, and where: the game's channel (a reminder, a missed deadline)
    or the organiser's (an alert). ``reply.mention`` is pinged; ``dm`` is told by direct message
    if they chose so."""

    place: Place
    reply: Reply
    dm: tuple[UserRef, ...] = ()


class MissedDeadline(BaseModel):
    """The bot's own entry when a player's deadline passes (no command: no one types it)."""

    model_config = ConfigDict(frozen=True)
    action: Literal["game.missed"] = "game.missed"


class StaleTimer(Exception):
    """The wait a timer fired for ended while it was being written (nothing is written)."""


Record = Callable[[Live, Ball, Step, str], Awaitable[Reply]]
"""Writes the missed deadline of a wait into the log (the service's pipeline): its reply."""


Outcome = Literal["fired", "later", "obsolete"]


async def fire(
    core: Core, timer: TimerRow, now: datetime, record: Record
) -> tuple[Outcome, list[Notice]]:
    """What ``timer`` does at ``now``, decided on the game as it is: ``fired`` with its notices;
    ``later`` when its step has not come (a pause or an extension moved it: planned again);
    ``obsolete`` when its wait is over or the game ended (nothing said)."""
    row = await core.repo.game(timer.game_id)
    if row is None or row.status != "active":
        return "obsolete", []
    place = Place(guild_id=row.guild_id, channel_id=row.channel_id, parent_id=row.parent_id)
    live = await core.load(place)
    found = await ball_of(core, live)
    if found is None:
        return "obsolete", []
    ball, steps = found
    step = next((s for s in steps.steps if timer_name(row.id, ball.wait, s) == timer.name), None)
    if step is None:
        return "obsolete", []
    pauses = pauses_of(live.row)
    if step.due > now or paused_at(pauses, now) is not None:
        await replan(core, live)
        return "later", []
    notices = [Notice(place, reminder_reply(live.row, ball, steps, step, now), (ball.player,))]
    if step.event == "deadline" and not ball.wait.missed:
        try:
            missed = await record(live, ball, step, f"timer:{timer.name}")
        except StaleTimer:
            return "obsolete", []
        notices = [Notice(place, missed.model_copy(update=_mention(ball, steps, step)),
                          (ball.player,))]  # fmt: skip
    elif step.event == "alert":
        channel = await _organiser_channel(core, row)
        if channel is None:
            return "fired", []
        notices = [Notice(channel, alert_reply(live.row, ball, steps, now))]
    elif step.event == "silence":
        notices = [Notice(place, silence_reply(live.row, ball, steps))]
        if notices[0].reply.mention is None:
            return "fired", []
        notices = [dataclasses.replace(notices[0], dm=(notices[0].reply.mention,))]
    return "fired", notices


def _mention(ball: Ball, steps: Plan, step: Step) -> dict[str, Any]:
    return {
        "notice": f"{ball.player.name}, the {ball.side} player: the deadline of entry "
        f"#{ball.wait.seq} has passed ({duration_text(step.net)} without an answer)",
        "mention": ball.player,
    }


async def _organiser_channel(core: Core, row: GameRow) -> Place | None:
    settings = await core.repo.server_settings(row.guild_id)
    channel = (settings or {}).get("channel")
    if channel is None:
        return None
    return Place(guild_id=row.guild_id, channel_id=int(channel))


def _base(row: GameRow) -> dict[str, Any]:
    return {
        "game_title": row.title,
        "system": row.system,
        "game_id": row.public_id,
        "commitment": row.commitment,
        "epoch": row.epoch,
        "scripted": bool(row.table.get("scripted")),
    }


def waited(ball: Ball, now: datetime, pauses: Sequence[Pause]) -> timedelta:
    """The ball time the player has had so far."""
    return ball_time(ball.wait.since, now, pauses)


def reminder_reply(row: GameRow, ball: Ball, steps: Plan, step: Step, now: datetime) -> Reply:
    """A reminder to the player whose court the ball is in, at a step of their wait (said as
    things stand at ``now``: a reminder sent late, after a restart, says so)."""
    deadline = steps.deadline()
    had = waited(ball, now, pauses_of(row))
    if deadline.due > now:
        when = f"the deadline is in {duration_text(deadline.due - now)} ({_iso(deadline.due)})"
    elif deadline.due == now:
        when = "the deadline is now"
    else:
        when = f"the deadline passed {duration_text(now - deadline.due)} ago"
    notice = (
        f"{ball.player.name}, the {ball.side} player: {duration_text(had)} since entry "
        f"#{ball.wait.seq} without an answer; {when}"
    )
    return Reply(
        command="/game deadline",
        title=f"Reminder: {ball.side} to act ({step.percent} % of the deadline)",
        side=ball.side,
        notice=notice,
        mention=ball.player,
        **_base(row),
    )


def alert_reply(row: GameRow, ball: Ball, steps: Plan, now: datetime) -> Reply:
    """The organiser's alert: a game has waited past their limit."""
    alert = steps.step("alert:0")
    assert alert is not None
    return Reply(
        command="/game deadline",
        title=f"{row.title}: waiting {duration_text(alert.net)} for {ball.player.name}",
        fields=(
            ("Game", f"<#{row.channel_id}> {row.title} ({row.system})"),
            ("Waiting for", f"{ball.player.name} ({ball.side}) since entry #{ball.wait.seq}"),
            ("Deadline", _iso(steps.deadline().due)),
        ),
        **_base(row),
    )


def silence_reply(row: GameRow, ball: Ball, steps: Plan) -> Reply:
    """The other player is told a forfeit may now be claimed."""
    silence = steps.step("silence:0")
    assert silence is not None
    others = [
        (side, p) for side, p in row.table["seats"].items()
        if p and side != ball.side and p["id"] != ball.player.id
    ]  # fmt: skip
    mention = UserRef(id=others[0][1]["id"], name=others[0][1]["name"]) if others else None
    notice = (
        f"{mention.name if mention else 'nobody'}: {ball.player.name} ({ball.side}) has been "
        f"silent for {duration_text(silence.net)}; you may claim a forfeit with "
        "/game deadline claim"
    )
    return Reply(
        command="/game deadline",
        title=f"{ball.side} silent for {duration_text(silence.net)}",
        notice=notice,
        mention=mention,
        **_base(row),
    )


def _iso(at: datetime) -> str:
    return at.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def missed_change(live: Live, ball: Ball, step: Step) -> Change:
    """The entry of a missed deadline, written by the bot."""
    return Change(
        kind="game.missed",
        data={
            "side": ball.side,
            "player": ball.player.model_dump(),
            "since": ball.wait.seq,
            "court": ball.court,
            "deadline": step.due.astimezone(UTC).isoformat(timespec="milliseconds"),
        },
    )


def clock_lines(row: GameRow, ball: Ball, steps: Plan, now: datetime) -> list[str]:
    """How long the ball has been in whose court, and when the deadline falls, in a line or two
    (the status board, ``/game status``, ``/game list``)."""
    pauses = pauses_of(row)
    pause = paused_at(pauses, now)
    line = (
        f"{ball.side} to act: {ball.player.name}, for {duration_text(waited(ball, now, pauses))}"
        f" (since #{ball.wait.seq})"
    )
    deadline = steps.deadline()
    if pause is not None:
        return [line, f"Paused until {_iso(pause.end)}"]
    if deadline.due > now:
        return [line, f"Deadline {_iso(deadline.due)}, in {duration_text(deadline.due - now)}"]
    return [line, f"Deadline passed {duration_text(now - deadline.due)} ago ({_iso(deadline.due)})"]


async def clock_status(core: Core, live: Live) -> list[str]:
    """The clock of a game as ``/game status``, the status board and ``/game list`` show it:
    whose court the ball is in, for how long, and the deadline (nothing without a deadline)."""
    if live.row.status != "active":
        return []
    forfeit = live.row.table.get("forfeit")
    if forfeit:
        return [
            f"{forfeit['side']} wins by forfeit: {forfeit['player']['name']} "
            f"({forfeit['against']}) was silent; granted by {forfeit['by']['name']} "
            f"(#{forfeit['entry']})"
        ]
    found = await ball_of(core, live)
    if found is None:
        return []
    _, now = now_quietly(core)
    return clock_lines(live.row, *found, now)


__all__ = [
    "BOT",
    "Ball",
    "MissedDeadline",
    "Notice",
    "StaleTimer",
    "ball_of",
    "clock_lines",
    "clock_status",
    "court",
    "fire",
    "missed_change",
    "ms",
    "now_of",
    "now_quietly",
    "replan",
    "replan_all",
    "settings_of",
    "wait_of",
]
