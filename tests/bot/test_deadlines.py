"""Deadlines through the service on both engines, with a clock the test moves: reminders at 50,
100 and 200 % of the deadline, a missed deadline written into the log once, a pause agreed by
both that stops the clock and leaves response times, an extension that moves the next reminder, a
forfeit claim after the organiser's silence, timers that survive a restart and two processes; and
every refusal one sentence that changes nothing."""

from __future__ import annotations

import asyncio
import csv
import io
import zipfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from bot.errors import NotAReferee, NotYourSide, UserError
from bot.log.verify import verify_text
from bot.models import Actor, Reply
from bot.service.game_service import GameService
from bot.storage import Repository, open_repository
from bot.table import commands as gc
from rules_core.errors import RulesError
from tests.bot.conftest import ADMIN, ALICE, BOB, CAROL, HERE
from tests.bot.toysystem import SYSTEM, Ammo
from tests.conftest import ENGINES

START = datetime(2026, 5, 4, 9, 0, tzinfo=UTC)


class Clock:
    """The service's clock, moved by the test."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> str:
        return self.now.isoformat(timespec="milliseconds")

    def peek(self) -> str:
        return self()

    def advance(self, **span: float) -> None:
        self.now += timedelta(**span)


class Table:
    """One toy game at ``HERE`` on a service with the test's clock."""

    def __init__(self, repo: Repository, clock: Clock | None = None) -> None:
        self.clock = clock or Clock()
        self.service = GameService(repo, {"toy": SYSTEM}, clock=self.clock, peek=self.clock.peek)
        self.count = 0

    async def act(self, actor: Actor, command: BaseModel) -> Reply:
        self.count += 1
        return await self.service.handle(HERE, actor, f"i-{self.count}", command)

    async def fire(self, owner: str = "test") -> list[str]:
        """The titles of what the timers due now say."""
        notices = await self.service.fire_timers(self.clock.now, owner)
        return [n.reply.title for n in notices]

    async def entries(self) -> list[dict[str, Any]]:
        game = await self.service.repo.latest_game(HERE.guild_id, HERE.channel_id)
        assert game is not None
        return [e.data() for e in await self.service.repo.entries(game.id)]


async def seated(repo: Repository, **deadline: Any) -> Table:
    """alice (Axis, the game's creator) and bob (Allied); the organiser (a referee without a
    seat) sets the deadline; alice sets her ammunition: bob must answer."""
    table = Table(repo)
    await table.act(ALICE, gc.GameNew(system="toy"))
    await table.act(ALICE, gc.GameSeat(side="Axis"))
    await table.act(BOB, gc.GameSeat(side="Allied"))
    await table.act(ADMIN, gc.GameDeadlineSet(**{"duration": "48h", **deadline}))
    await table.act(ALICE, Ammo(side="Axis", level=2))
    return table


async def test_the_reminders_fall_at_50_100_and_200_percent_and_the_miss_is_logged_once(
    repo: Repository,
) -> None:
    table = await seated(repo)
    table.clock.advance(hours=23, minutes=59)
    assert await table.fire() == []
    table.clock.advance(minutes=1)
    assert await table.fire() == ["Reminder: Allied to act (50 % of the deadline)"]
    assert await table.fire() == []  # fired once
    table.clock.advance(hours=24)
    (missed,) = await table.fire()
    assert missed.startswith("bob missed the deadline (Allied, waited for since entry 5;")
    table.clock.advance(hours=48)
    assert await table.fire() == ["Reminder: Allied to act (200 % of the deadline)"]
    table.clock.advance(days=30)
    assert await table.fire() == []
    kinds = [e["kind"] for e in await table.entries()]
    assert kinds.count("game.missed") == 1
    (entry,) = [e for e in await table.entries() if e["kind"] == "game.missed"]
    assert entry["by"] == {"id": 0, "name": "the referee"}
    assert (entry["side"], entry["player"]["name"], entry["since"]) == ("Allied", "bob", 5)
    await table.act(BOB, Ammo(side="Allied", level=1))  # bob answers: a new wait, alice's
    table.clock.advance(hours=24)
    assert await table.fire() == ["Reminder: Axis to act (50 % of the deadline)"]


async def test_a_pause_agreed_by_both_stops_the_reminders_and_leaves_response_times(
    repo: Repository,
) -> None:
    table = await seated(repo)
    table.clock.advance(hours=2)
    proposed = await table.act(BOB, gc.GameDeadlinePause(length="3d", reason="holiday"))
    assert proposed.command == "/game propose"
    table.clock.advance(hours=1)
    await table.act(ALICE, gc.GameConfirm(entry=proposed.seq or 0))  # the pause begins: +3 h
    table.clock.advance(hours=22)  # 25 h after the wait began, 3 h of them before the pause
    assert await table.fire() == []
    status = await table.act(BOB, gc.GameStatus())
    assert ("Clock", "Allied to act: bob, for 3 h 00 min (since #5)\nPaused until "
            "2026-05-07 12:00 UTC") in status.fields  # fmt: skip
    table.clock.advance(days=2, hours=2)  # the pause ends at 3 d 3 h: 3 h of ball time so far
    assert await table.fire() == []
    table.clock.advance(hours=20, minutes=59)
    assert await table.fire() == []
    table.clock.advance(minutes=1)  # 24 h of ball time
    assert await table.fire() == ["Reminder: Allied to act (50 % of the deadline)"]
    table.clock.advance(hours=1)
    await table.act(BOB, Ammo(side="Allied", level=1))  # 25 h of ball time, 4 d 4 h on the clock
    times = await table.act(ALICE, gc.GameTimes())
    assert ("bob (Allied)", "1 response · median 1 d 1 h 00 min · longest 1 d 1 h 00 min · "
            "waiting in all 1 d 1 h 00 min") in times.fields  # fmt: skip


async def test_a_pause_proposed_by_one_player_stops_nothing_until_the_other_agrees(
    repo: Repository,
) -> None:
    table = await seated(repo)
    await table.act(BOB, gc.GameDeadlinePause(length="3d"))
    table.clock.advance(hours=24)
    assert await table.fire() == ["Reminder: Allied to act (50 % of the deadline)"]


async def test_an_extension_moves_the_next_reminder(repo: Repository) -> None:
    table = await seated(repo, extensions="1")
    table.clock.advance(hours=30)
    assert await table.fire() == ["Reminder: Allied to act (50 % of the deadline)"]
    extended = await table.act(BOB, gc.GameDeadlineExtend())
    assert extended.title == (
        "bob takes extension 1 of 1: the Allied deadline moves to 2026-05-08 09:00 UTC"
    )
    table.clock.advance(hours=18)  # 48 h: the deadline was here
    assert await table.fire() == []
    table.clock.advance(hours=47, minutes=59)
    assert await table.fire() == []
    table.clock.advance(minutes=1)  # 96 h
    (missed,) = await table.fire()
    assert "bob missed the deadline" in missed and "due 2026-05-08 09:00 UTC" in missed
    with pytest.raises((UserError, RulesError), match="taken the 1 extension this game allows"):
        await table.act(BOB, gc.GameDeadlineExtend())


async def test_a_missed_deadline_is_in_the_league_export_and_the_export_verifies(
    repo: Repository, tmp_path: Path
) -> None:
    table = await seated(repo)
    table.clock.advance(hours=49)
    await table.fire()
    await table.act(BOB, Ammo(side="Allied", level=1))
    result = gc.GameResult(winner="Axis", scenario="FT91", attacker="Axis", tournament="T1")
    proposed = await table.act(ALICE, result)  # a player's result: Bob confirms it
    assert proposed.seq is not None
    await table.act(BOB, gc.GameConfirm(entry=proposed.seq))
    league = await table.act(ADMIN, gc.GameLeague(tournament="T1"))
    assert league.file is not None
    with zipfile.ZipFile(io.BytesIO(league.file.content)) as archive:
        rows = list(csv.DictReader(io.StringIO(archive.read("response_times.csv").decode())))
        (export,) = [n for n in archive.namelist() if n.endswith(".jsonl")]
        text = archive.read(export).decode()
    by_player = {row["player"]: row for row in rows}
    assert (by_player["bob"]["missed_deadlines"], by_player["alice"]["missed_deadlines"]) == (
        "1",
        "0",
    )
    assert '"kind":"game.missed"' in text
    report = verify_text(text, {"toy": SYSTEM})
    assert report.ok, report.message


async def test_a_forfeit_is_claimed_after_the_organisers_silence(repo: Repository) -> None:
    table = await seated(repo, silence="5d")
    table.clock.advance(days=4, hours=23)
    with pytest.raises((UserError, RulesError), match="may be silent 5 d 0 h 00 min before"):
        await table.act(ALICE, gc.GameDeadlineClaim())
    table.clock.advance(hours=1)
    assert "Allied silent for 5 d 0 h 00 min" in await table.fire()
    with pytest.raises(NotYourSide, match="Only the other player"):
        await table.act(BOB, gc.GameDeadlineClaim())
    claimed = await table.act(ALICE, gc.GameDeadlineClaim(reason="five days"))
    assert claimed.title == (
        "alice claims a forfeit: bob (Allied) silent since entry 5; a referee without a seat "
        "rules with /game rule entry:7 (five days)"
    )
    with pytest.raises((UserError, RulesError), match="claimed for this silence already"):
        await table.act(ALICE, gc.GameDeadlineClaim())


async def test_a_referee_without_a_seat_rules_on_a_forfeit_claim(repo: Repository) -> None:
    """Refused, the game goes on and its clock runs; granted, the claimant wins by forfeit, the
    status says so and no reminder falls any more. Only a referee without a seat rules — not a
    player, not the game's creator who holds a seat — and once per claim."""
    table = await seated(repo, silence="5d")
    table.clock.advance(days=5)
    await table.fire()
    claim = await table.act(ALICE, gc.GameDeadlineClaim(reason="five days"))
    rule = gc.GameRule(entry=claim.seq or 0, decision="grant", reason="seven days")
    for who in (ALICE, BOB):  # alice created the game (a referee) but holds a seat
        with pytest.raises(NotAReferee, match="Only a referee without a seat"):
            await table.act(who, rule)
    refused = await table.act(
        ADMIN, rule.model_copy(update={"decision": "refuse", "reason": "bob wrote to me"})
    )
    assert refused.title == f"Ruling on entry {claim.seq}: refused: bob wrote to me"
    with pytest.raises(RulesError, match=f"Entry {claim.seq} is not a dispute or a claim waiting"):
        await table.act(ADMIN, rule)
    status = dict((await table.act(ALICE, gc.GameStatus())).fields)
    assert status["Clock"].startswith("Allied to act: bob, for 5 d 0 h 00 min"), status

    await table.act(BOB, Ammo(side="Allied", level=1))  # bob answers, alice too; bob is silent
    await table.act(ALICE, Ammo(side="Axis", level=3))
    table.clock.advance(days=5)
    await table.fire()
    again = await table.act(ALICE, gc.GameDeadlineClaim())
    granted = await table.act(
        ADMIN, gc.GameRule(entry=again.seq or 0, decision="grant", reason="silent twice")
    )
    assert granted.title == (
        f"Ruling on entry {again.seq}: granted — Axis wins by forfeit: silent twice"
    )
    status = dict((await table.act(ALICE, gc.GameStatus())).fields)
    assert status["Clock"] == (
        f"Axis wins by forfeit: bob (Allied) was silent; granted by admin (#{granted.seq})"
    ), status
    table.clock.advance(days=30)
    assert await table.fire() == []  # the clock stopped
    with pytest.raises((UserError, RulesError)):
        await table.act(ALICE, gc.GameDeadlineClaim())
    kinds = [e["kind"] for e in await table.entries()]
    assert kinds.count("game.ruling") == 2 and kinds.count("game.claim") == 2


async def test_after_a_granted_forfeit_the_deadlines_stay_stopped(repo: Repository) -> None:
    """Regression: a deadline set, a pause or its proposal's confirmation after a forfeit was
    granted were logged ("The deadlines are paused until ...") though the clock had stopped."""
    table = await seated(repo, silence="5d")
    table.clock.advance(days=5)
    await table.fire()
    pending = await table.act(BOB, gc.GameDeadlinePause(length="3d"))  # before the ruling
    claim = await table.act(ALICE, gc.GameDeadlineClaim(reason="five days"))
    granted = await table.act(
        ADMIN, gc.GameRule(entry=claim.seq or 0, decision="grant", reason="silent")
    )
    before = await table.entries()
    stopped = (
        f"Entry {granted.seq} granted Axis a win by forfeit: the game's deadlines have stopped."
    )
    for actor, command in [
        (ALICE, gc.GameConfirm(entry=pending.seq or 0)),
        (BOB, gc.GameDeadlineSet(duration="2d")),
        (ALICE, gc.GameDeadlinePause(length="3d")),
        (ADMIN, gc.GameDeadlineSet(duration="2d")),
        (ADMIN, gc.GameDeadlinePause(length="3d")),
    ]:
        with pytest.raises((UserError, RulesError)) as refused:
            await table.act(actor, command)
        assert str(refused.value) == stopped, (actor.name, command)
    assert await table.entries() == before


async def test_a_granted_forfeit_reaches_the_league_export_with_its_ruling(
    repo: Repository,
) -> None:
    """The referee records the league result of a forfeit: it names the forfeit's winner (any
    other winner is refused), and settlements.csv says the result rests on the ruling."""
    table = await seated(repo, silence="5d")
    table.clock.advance(days=5)
    await table.fire()
    claim = await table.act(ALICE, gc.GameDeadlineClaim(reason="five days"))
    granted = await table.act(
        ADMIN, gc.GameRule(entry=claim.seq or 0, decision="grant", reason="seven days")
    )
    result = gc.GameResult(winner="Allied", scenario="FT91", attacker="Axis", tournament="T1")
    before = await table.entries()
    with pytest.raises(RulesError, match=f"Entry {granted.seq} granted Axis a win by forfeit"):
        await table.act(ADMIN, result)
    with pytest.raises(RulesError, match="winner:Axis"):
        await table.act(BOB, result)  # not even as a concession of the forfeit's winner
    assert await table.entries() == before
    await table.act(ADMIN, result.model_copy(update={"winner": "Axis"}))
    league = await table.act(ADMIN, gc.GameLeague(tournament="T1"))
    assert league.file is not None
    with zipfile.ZipFile(io.BytesIO(league.file.content)) as archive:
        (settled,) = csv.DictReader(io.StringIO(archive.read("settlements.csv").decode()))
        (rated,) = csv.DictReader(io.StringIO(archive.read("results.csv").decode()))
    assert (settled["result"], settled["settled"], settled["settled_by"]) == (
        "Axis wins",
        "referee",
        "admin",
    )
    assert settled["reason"] == f"forfeit granted at entry {granted.seq}: seven days"
    assert (rated["PLAYER 1 RESULT"], rated["PLAYER 2 RESULT"]) == ("win", "lost")


async def test_timers_survive_a_restart(repo: Repository, database: Path | str) -> None:
    table = await seated(repo)  # this process stops here; five days later another starts
    table.clock.advance(days=5)
    again = await open_repository(database)
    try:
        restarted = Table(again, table.clock)
        assert await restarted.service.replan_timers() == 1
        fired = await restarted.fire()
        assert len(fired) == 3 and "bob missed the deadline" in fired[1], fired
        assert await restarted.fire() == []
    finally:
        await again.close()


@ENGINES("postgresql")
async def test_two_processes_on_one_database_fire_each_timer_once(
    repo: Repository, database: Path | str
) -> None:
    table = await seated(repo)
    table.clock.advance(days=5)
    other = await open_repository(database)  # a second process on the same database
    try:
        twin = Table(other, table.clock)
        await twin.service.replan_timers()  # a process starting plans what it finds
        fired = await asyncio.gather(
            *(t.fire(owner) for t in (table, twin) for owner in ("a", "b"))
        )
        titles = sorted(title for each in fired for title in each)
        assert len(titles) == 3 and "Reminder: Allied to act (50 % of the deadline)" in titles
        assert [e["kind"] for e in await table.entries()].count("game.missed") == 1
    finally:
        await other.close()


REFUSALS: list[tuple[Actor, BaseModel, type[Exception], str]] = [
    (CAROL, gc.GameDeadlinePause(length="2d"), NotYourSide, "Take a seat"),
    (BOB, gc.GameDeadlineSet(duration="1h", silence="1d"), NotAReferee, "without a seat sets"),
    (BOB, gc.GameDeadlineSet(duration="soon"), RulesError, "Write a duration like 48h"),
    (BOB, gc.GameDeadlineSet(zone="Mars/Olympus"), RulesError, "is not a time zone"),
    (BOB, gc.GameDeadlineSet(), RulesError, "Give a duration"),
    (BOB, gc.GameDeadlinePause(), RulesError, "Say how long"),
    (BOB, gc.GameDeadlinePause(length="100d"), RulesError, "at most 90 days"),
    (BOB, gc.GameDeadlinePause(until="2026-05-01"), RulesError, "is not in the future"),
    (BOB, gc.GameDeadlineResume(), RulesError, "The game is not paused"),
    (ALICE, gc.GameDeadlineExtend(), NotYourSide, "Only bob, the Allied player to act"),
    (BOB, gc.GameDeadlineExtend(), RulesError, "taken the 0 extensions"),
    (ALICE, gc.GameDeadlineClaim(), RulesError, "allow no forfeit claims"),
    (BOB, gc.GameDeadlineDefaults(duration="2d"), NotAReferee, "server administrator"),
    (BOB, gc.GameRule(entry=5, decision="grant", reason="x"), NotAReferee, "without a seat"),
    (ADMIN, gc.GameRule(entry=5, decision="grant", reason="x"), RulesError, "nothing waits"),
]


@pytest.mark.parametrize(("actor", "command", "error", "said"), REFUSALS)
async def test_a_refusal_is_one_sentence_and_changes_nothing(
    repo: Repository, actor: Actor, command: BaseModel, error: type[Exception], said: str
) -> None:
    table = await seated(repo)
    before = await table.entries()
    with pytest.raises(error) as refused:
        await table.act(actor, command)
    message = getattr(refused.value, "user_message", str(refused.value))
    assert said in message and message.count(". ") == 0 and message.endswith("."), message
    assert await table.entries() == before
    assert await repo.server_settings(HERE.guild_id) is None
