"""/game deadline …: a game's response deadline (set, defaults), pauses by consent (pause,
resume), extensions (extend), forfeit claims (claim); and /notify, the choice of direct messages.

Settings, pauses, extensions and claims are logged (docs/guide/TABLE.md, "Deadlines"); what a
player and a referee without a seat may do alone, and what a player only proposes, follows the
table's rule: a player changes nothing of the other side's clock alone — a deadline and a pause
are proposals the other side confirms (``/game confirm``), or a referee without a seat decides.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from bot.errors import NotAReferee, NotYourSide
from bot.log.deadlines import (
    DEADLINE_STEP,
    MAX_PAUSE,
    MAX_SPAN,
    ClockError,
    Settings,
    clock_time,
    parse_duration,
    paused_at,
    plan,
    reached,
    zone_named,
)
from bot.models import Actor, Place, Reply
from bot.service.actions import propose
from bot.service.change import Change, Live, copy_table
from bot.service.core import Core
from bot.service.handlers import read, write
from bot.service.permissions import free_hand, held_sides, require_player
from bot.service.proposals import drop_proposal
from bot.stats.times import duration_text
from bot.table import commands as gc
from bot.table.reminders import ball_of, now_of, now_quietly, pauses_of, settings_of
from bot.table.rulings import await_ruling, rules_on
from rules_core.errors import InvalidInput

ORGANISER_OPTIONS = ("reminders", "extensions", "silence", "alert")
"""Options of the organiser's alone: a player may propose the deadline, its clock time and zone."""
OFF_WORDS = ("off", "none")
FORFEIT = "forfeit"
"""The kind of matter a forfeit claim is (``awaiting_ruling``, ruled by ``/game rule``)."""


def _clock_error(exc: ClockError) -> InvalidInput:
    return InvalidInput(str(exc))


def _span(text: str, what: str) -> int | None:
    """A duration option's seconds (``off``: None)."""
    if text.strip().lower() in OFF_WORDS:
        return None
    seconds = parse_duration(text)
    if not 60 <= seconds <= MAX_SPAN.total_seconds():
        raise ClockError(f"The {what} must be between 1 minute and {MAX_SPAN.days} days.")
    return seconds


def _reminders(text: str) -> tuple[int, ...]:
    try:
        percents = sorted({int(part) for part in text.replace(" ", "").split(",") if part})
    except ValueError:
        raise ClockError(
            f'Write the reminders as percents, like "50,100,200", not {text!r}.'
        ) from None
    if not percents or len(percents) > 6 or not all(1 <= p <= 1000 for p in percents):
        raise ClockError("Give one to six reminders, each from 1 to 1000 percent of the deadline.")
    return tuple(percents)


def read_settings(
    command: gc.GameDeadlineSet | gc.GameDeadlineDefaults, base: Settings
) -> Settings:
    """``base`` with the options of ``command`` applied (``off``: no deadline)."""
    try:
        changes: dict[str, Any] = {}
        if command.duration:
            changes["deadline"] = _span(command.duration, "deadline")
        if command.at:
            off = command.at.strip().lower() in OFF_WORDS
            changes["at"] = None if off else clock_time(command.at).strftime("%H:%M")
        if command.zone:
            changes["zone"] = zone_named(command.zone).key
        if command.reminders:
            changes["reminders"] = _reminders(command.reminders)
        if command.extensions is not None:
            changes["extensions"] = command.extensions
        for name in ("silence", "alert"):
            if getattr(command, name):
                changes[name] = _span(getattr(command, name), name)
    except ClockError as exc:
        raise _clock_error(exc) from None
    settings = dataclasses.replace(base, **changes)
    if command.off:
        return dataclasses.replace(settings, deadline=None)
    if settings.deadline is None:
        raise InvalidInput("Give the deadline's duration too, like duration:48h.")
    return settings


def _given(command: gc.GameDeadlineSet | gc.GameDeadlineDefaults) -> list[str]:
    names = ("duration", "at", "zone", "reminders", "silence", "alert")
    given = [name for name in names if getattr(command, name)]
    if command.extensions is not None:
        given.append("extensions")
    return given


def _agreed_or_proposed(live: Live, actor: Actor, command: Any) -> Change | None:
    """None when the actor decides alone (a referee without a seat); else the proposal the
    other sides' players confirm."""
    row = live.row
    require_player(row, actor)
    if free_hand(row, actor):
        return None
    wanted = _command(command)
    for waiting in row.table.get("proposals", ()):
        if waiting["command"] == wanted and waiting["by"]["id"] != actor.user_id:
            raise InvalidInput(
                f"{waiting['by']['name']} proposed it already: "
                f"/game confirm entry:{waiting['entry']} agrees to it."
            )
    held = held_sides(row, actor)
    others = [side for side in row.table["sides"] if side not in held]
    return propose(live, actor, command, list(row.table["sides"]), others)


def _command(command: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = command.model_dump(mode="json")
    return dumped


def _refuse_after_forfeit(live: Live) -> None:
    """A granted forfeit stops the game's deadlines for good: nothing of the clock after it."""
    forfeit = live.row.table.get("forfeit")
    if forfeit:
        raise InvalidInput(
            f"Entry {forfeit['entry']} granted {forfeit['side']} a win by forfeit: the game's "
            "deadlines have stopped."
        )


# --- /game deadline set ------------------------------------------------------------------------


async def _set(
    core: Core,
    live: Live,
    actor: Actor,
    command: gc.GameDeadlineSet,
    agreed: dict[str, Any] | None,
) -> Change:
    _refuse_after_forfeit(live)
    settings = read_settings(command, await _base_settings(core, live.row.guild_id, live.row.table))
    table = copy_table(live.row.table)
    table["clock"] = settings.to_json()
    data: dict[str, Any] = {"clock": settings.to_json(), "command": _command(command)}
    if agreed is not None:
        data["agreed"] = agreed
        drop_proposal(table, agreed)
    return Change(kind="game.deadline", data=data, table=table)


async def _base_settings(core: Core, guild_id: int, table: dict[str, Any]) -> Settings:
    """The settings a change starts from: the game's, else the server's defaults."""
    if table.get("clock"):
        return Settings.from_json(table["clock"])
    server = await core.repo.server_settings(guild_id)
    return Settings.from_json(server) if server else Settings()


@write(gc.GameDeadlineSet, agreed=_set)
async def deadline_set(core: Core, live: Live, actor: Actor, command: gc.GameDeadlineSet) -> Change:
    """/game deadline set: a referee without a seat sets the game's deadline; a player proposes
    the duration, clock time or zone to the other side."""
    _refuse_after_forfeit(live)
    given = _given(command)
    if not given and not command.off:
        raise InvalidInput(
            "Give a duration (duration:48h), a clock time (at:20:00), a zone, or off:true."
        )
    organiser = [name for name in given if name in ORGANISER_OPTIONS]
    if organiser and not free_hand(live.row, actor):
        raise NotAReferee(
            f"Only a referee without a seat sets {', '.join(organiser)}; "
            "players propose the duration, clock time and zone."
        )
    # bad options are refused before anything is proposed
    read_settings(command, await _base_settings(core, live.row.guild_id, live.row.table))
    return _agreed_or_proposed(live, actor, command) or await _set(core, live, actor, command, None)


# --- /game deadline defaults ---------------------------------------------------------------------


@read(gc.GameDeadlineDefaults)
async def deadline_defaults(
    core: Core, place: Place, actor: Actor, command: gc.GameDeadlineDefaults
) -> Reply:
    """/game deadline defaults: the organiser's settings for new games, shown or changed; the
    organiser's alerts come to the channel where they were last changed."""
    if not actor.is_admin:
        raise NotAReferee(
            "Only a server administrator or referee sets the server's deadlines; "
            "/game deadline set proposes one game's."
        )
    stored = await core.repo.server_settings(place.guild_id) or {}
    if _given(command) or command.off:
        settings = read_settings(command, Settings.from_json(stored) if stored else Settings())
        stored = {**settings.to_json(), "channel": place.channel_id}
        await core.repo.set_server_settings(place.guild_id, stored)
    current = Settings.from_json(stored) if stored else Settings()
    fields = [
        ("New games", current.words()),
        ("Games already started", "keep theirs; /game deadline set changes one game's"),
    ]
    if stored.get("channel") is not None:
        fields.append(("The organiser's alerts", f"<#{stored['channel']}>"))
    return Reply(
        command="/game deadline defaults",
        title="This server's deadlines",
        fields=tuple(fields),
        scripted=core.scripted,
        ephemeral=True,
    )


# --- pauses -------------------------------------------------------------------------------------


def _pause_end(command: gc.GameDeadlinePause, now: datetime, zone: str) -> datetime:
    """When a pause asked at ``now`` ends."""
    if bool(command.length) == bool(command.until):
        raise InvalidInput(
            "Say how long (length:7d) or until when (until:2026-02-01), one of them."
        )
    try:
        if command.length:
            end = now + timedelta(seconds=parse_duration(command.length))
        else:
            end = _local_moment(command.until, zone)
    except ClockError as exc:
        raise _clock_error(exc) from None
    if end <= now:
        raise InvalidInput(f"{command.until or command.length} is not in the future.")
    if end - now > MAX_PAUSE:
        raise InvalidInput(f"A pause lasts at most {MAX_PAUSE.days} days; agree on another later.")
    return end


def _local_moment(text: str, zone: str) -> datetime:
    """``2026-02-01`` (its midnight) or ``2026-02-01 18:00`` in the game's zone."""
    try:
        local = datetime.strptime(text.strip(), "%Y-%m-%d %H:%M")
    except ValueError:
        try:
            local = datetime.strptime(text.strip(), "%Y-%m-%d")
        except ValueError:
            raise ClockError(
                f"Write a date like 2026-02-01 or 2026-02-01 18:00, not {text.strip()!r}."
            ) from None
    return local.replace(tzinfo=zone_named(zone)).astimezone(UTC)


def _zone(table: dict[str, Any]) -> str:
    return str((table.get("clock") or {}).get("zone") or "UTC")


def _pause(
    core: Core,
    live: Live,
    actor: Actor,
    command: gc.GameDeadlinePause,
    agreed: dict[str, Any] | None,
) -> Change:
    _refuse_after_forfeit(live)
    now_text, now = now_of(core)
    _refuse_if_paused(live, now)
    end = _pause_end(command, now, _zone(live.row.table))
    until = end.isoformat(timespec="milliseconds")
    table = copy_table(live.row.table)
    table["pauses"] = [
        *table.get("pauses", ()),
        {"seq": live.row.head_seq + 1, "start": now_text, "end": until},
    ]
    data: dict[str, Any] = {"until": until, "reason": command.reason.strip(),
                            "command": _command(command)}  # fmt: skip
    if agreed is not None:
        data["agreed"] = agreed
        drop_proposal(table, agreed)
    return Change(kind="game.pause", data=data, table=table, at=now_text)


@write(gc.GameDeadlinePause, agreed=_pause)
def pause(core: Core, live: Live, actor: Actor, command: gc.GameDeadlinePause) -> Change:
    """/game deadline pause: proposed to the other side, or decided by a referee without a seat."""
    _refuse_after_forfeit(live)
    _, now = now_quietly(core)
    _refuse_if_paused(live, now)
    _pause_end(command, now, _zone(live.row.table))
    return _agreed_or_proposed(live, actor, command) or _pause(core, live, actor, command, None)


def _refuse_if_paused(live: Live, now: datetime) -> None:
    current = paused_at(pauses_of(live.row), now)
    if current is not None:
        raise InvalidInput(
            f"The game is paused until {current.end.strftime('%Y-%m-%d %H:%M')} UTC; "
            "/game deadline resume ends the pause."
        )


def _resume(
    core: Core,
    live: Live,
    actor: Actor,
    command: gc.GameDeadlineResume,
    agreed: dict[str, Any] | None,
) -> Change:
    _refuse_after_forfeit(live)
    now_text, now = now_of(core)
    current = paused_at(pauses_of(live.row), now)
    if current is None:
        raise InvalidInput("The game is no longer paused.")
    table = copy_table(live.row.table)
    table["pauses"] = [
        {**p, "end": now_text} if p["seq"] == current.seq else p for p in table.get("pauses", ())
    ]
    data: dict[str, Any] = {"pause": current.seq, "command": _command(command)}
    if agreed is not None:
        data["agreed"] = agreed
        drop_proposal(table, agreed)
    return Change(kind="game.resume", data=data, table=table, at=now_text)


@write(gc.GameDeadlineResume, agreed=_resume)
def resume(core: Core, live: Live, actor: Actor, command: gc.GameDeadlineResume) -> Change:
    """/game deadline resume: ends the pause in progress, by agreement or a referee's decision."""
    _refuse_after_forfeit(live)
    _, now = now_quietly(core)
    if paused_at(pauses_of(live.row), now) is None:
        raise InvalidInput("The game is not paused.")
    return _agreed_or_proposed(live, actor, command) or _resume(core, live, actor, command, None)


# --- extensions and forfeit claims -----------------------------------------------------------


@write(gc.GameDeadlineExtend)
async def extend(core: Core, live: Live, actor: Actor, command: gc.GameDeadlineExtend) -> Change:
    """/game deadline extend: the player to act takes one of their extensions."""
    row = live.row
    settings = settings_of(row)
    if settings is None or settings.deadline is None:
        raise InvalidInput("This game has no deadline to extend.")
    found = await ball_of(core, live)
    if found is None:
        raise InvalidInput("Nobody's deadline runs in this game now.")
    ball, steps = found
    if ball.player.id != actor.user_id:
        raise NotYourSide(
            f"Only {ball.player.name}, the {ball.side} player to act, may take an extension now."
        )
    taken = int(row.table.get("extensions", {}).get(str(actor.user_id), 0))
    if taken >= settings.extensions:
        allowed = settings.extensions
        raise InvalidInput(
            f"You have taken the {allowed} extension{'' if allowed == 1 else 's'} "
            "this game allows each player."
        )
    now_text, now = now_of(core)
    if reached(steps.deadline(), ball.wait, now, pauses_of(row)):
        raise InvalidInput("Your deadline has passed; an extension is taken before it passes.")
    wait = dataclasses.replace(ball.wait, extensions=(*ball.wait.extensions, now))
    deadline = plan(settings, wait, pauses_of(row)).deadline()
    table = copy_table(row.table)
    table["extensions"] = {**table.get("extensions", {}), str(actor.user_id): taken + 1}
    data = {
        "side": ball.side,
        "since": ball.wait.seq,
        "court": ball.court,
        "count": taken + 1,
        "of": settings.extensions,
        "deadline": deadline.due.isoformat(timespec="milliseconds"),
        "command": _command(command),
    }
    return Change(kind="game.extend", data=data, table=table, at=now_text)


@write(gc.GameDeadlineClaim)
async def claim(core: Core, live: Live, actor: Actor, command: gc.GameDeadlineClaim) -> Change:
    """/game deadline claim: the other player claims a forfeit after the organiser's limit of
    silence; a referee without a seat rules on it (``/game rule``)."""
    row = live.row
    settings = settings_of(row)
    if settings is None or settings.silence is None:
        raise InvalidInput(
            "This game's settings allow no forfeit claims (the organiser sets them)."
        )
    found = await ball_of(core, live)
    if found is None:
        raise InvalidInput(
            "Nobody owes an answer in this game now, so there is no forfeit to claim."
        )
    ball, steps = found
    mine = [side for side in held_sides(row, actor) if side != ball.side]
    if ball.player.id == actor.user_id or not mine:
        raise NotYourSide("Only the other player of this game may claim a forfeit.")
    now_text, now = now_of(core)
    pauses = pauses_of(row)
    if paused_at(pauses, now) is not None:
        raise InvalidInput("The game is paused; a forfeit is claimed only while the clock runs.")
    if ball.wait.claimed:
        raise InvalidInput(
            "A forfeit was claimed for this silence already; a referee without a seat rules on it "
            "once."
        )
    silence = steps.step("silence:0")
    assert silence is not None
    if not reached(silence, ball.wait, now, pauses):
        raise InvalidInput(
            f"{ball.player.name} may be silent {duration_text(silence.net)} before a forfeit is "
            f"claimed: at {silence.due.astimezone(UTC).strftime('%Y-%m-%d %H:%M')} UTC."
        )
    data = {
        "side": mine[0],
        "against": ball.side,
        "player": ball.player.model_dump(),
        "since": ball.wait.seq,
        "court": ball.court,
        "reason": command.reason.strip(),
        "command": _command(command),
    }
    table = copy_table(row.table)
    await_ruling(
        table, row.head_seq + 1, FORFEIT, by={"id": actor.user_id, "name": actor.name},
        side=mine[0], against=ball.side, player=ball.player.model_dump(),
    )  # fmt: skip
    return Change(kind="game.claim", data=data, table=table, at=now_text)


@rules_on(FORFEIT)
def _forfeit_ruled(
    live: Live, actor: Actor, matter: Mapping[str, Any], command: gc.GameRule, table: dict[str, Any]
) -> dict[str, Any]:
    """A ruling on a forfeit claim (``/game rule``): granted, the claimant wins by forfeit and the
    game's deadlines stop (``table["forfeit"]``); refused, the game goes on."""
    facts = {key: matter[key] for key in ("side", "against", "player")}
    if command.decision == "grant":
        by = {"id": actor.user_id, "name": actor.name}
        table["forfeit"] = {**facts, "entry": live.row.head_seq + 1, "claim": matter["entry"],
                            "by": by}  # fmt: skip
    return facts


# --- /notify ----------------------------------------------------------------------------------


@read(gc.Notify)
async def notify(core: Core, place: Place, actor: Actor, command: gc.Notify) -> Reply:
    """/notify: the user's choice of direct messages (kept beside the games, not logged)."""
    await core.repo.set_notify(actor.user_id, command.dm)
    if command.dm:
        text = (
            "Your turn notices, deadline reminders and the results of rolls on your side come "
            "to you by direct message too; /notify dm:false stops them."
        )
    else:
        text = "Notices reach you only where the game is played; /notify turns direct messages on."
    return Reply(
        command="/notify",
        title="Direct messages " + ("on" if command.dm else "off"),
        fields=(("Notices", text),),
        scripted=core.scripted,
        ephemeral=True,
    )


__all__ = [
    "DEADLINE_STEP",
    "claim",
    "deadline_defaults",
    "deadline_set",
    "extend",
    "notify",
    "pause",
    "read_settings",
    "resume",
]
