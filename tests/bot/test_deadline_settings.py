"""The organiser's deadline settings: /game deadline defaults (only an administrator or referee
of the server; shown, changed, logged in each new game's first entry), a deadline at a clock time
in the game's zone, the organiser's alert in their channel, and proposals of the deadlines' own
commands that put the ball in nobody's court."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.errors import NotAReferee
from bot.models import Place
from bot.storage import Repository
from bot.table import commands as gc
from tests.bot.conftest import ADMIN, ALICE, BOB, HERE
from tests.bot.test_deadlines import Table, seated
from tests.bot.toysystem import Ammo

ORGANISERS = Place(guild_id=HERE.guild_id, channel_id=777)


async def test_the_servers_defaults_are_shown_changed_and_logged_in_new_games(
    repo: Repository,
) -> None:
    table = Table(repo)
    with pytest.raises(NotAReferee):
        await table.service.handle(ORGANISERS, ALICE, "d0", gc.GameDeadlineDefaults())
    shown = await table.service.handle(ORGANISERS, ADMIN, "d1", gc.GameDeadlineDefaults())
    assert ("New games", "none") in shown.fields and shown.ephemeral
    changed = await table.service.handle(
        ORGANISERS, ADMIN, "d2",
        gc.GameDeadlineDefaults(duration="3d", extensions=2, silence="7d", alert="4d"),
    )  # fmt: skip
    assert (
        "New games",
        "3d · reminders at 50, 100, 200 % · 2 extensions a player · forfeit claims after 7d of "
        "silence · the organiser told after 4d",
    ) in changed.fields
    assert ("The organiser's alerts", "<#777>") in changed.fields
    await table.act(ALICE, gc.GameNew(system="toy"))
    (genesis,) = await table.entries()
    assert genesis["clock"] == {
        "deadline": 259200, "zone": "UTC", "reminders": [50, 100, 200], "extensions": 2,
        "silence": 604800, "alert": 345600,
    }  # fmt: skip
    status = await table.act(ALICE, gc.GameStatus())
    assert dict(status.fields)["Deadline"].startswith("3d · reminders")


async def test_the_organiser_is_told_once_in_their_channel(repo: Repository) -> None:
    table = Table(repo)
    await table.service.handle(
        ORGANISERS, ADMIN, "d", gc.GameDeadlineDefaults(duration="2d", alert="3d")
    )
    await table.act(ALICE, gc.GameNew(system="toy", title="Round 2"))
    await table.act(ALICE, gc.GameSeat(side="Axis"))
    await table.act(BOB, gc.GameSeat(side="Allied"))
    await table.act(ALICE, Ammo(side="Axis", level=2))
    table.clock.advance(days=3)
    notices = await table.service.fire_timers(table.clock.now, "test")
    alerts = [n for n in notices if n.place == ORGANISERS]
    assert [n.reply.title for n in alerts] == ["Round 2: waiting 3 d 0 h 00 min for bob"]
    assert dict(alerts[0].reply.fields)["Game"] == f"<#{HERE.channel_id}> Round 2 (toy)"
    table.clock.advance(days=30)
    later = await table.service.fire_timers(table.clock.now, "test")
    assert [n for n in later if n.place == ORGANISERS] == []


async def test_a_deadline_at_a_clock_time_ends_at_that_time_in_the_games_zone(
    repo: Repository,
) -> None:
    table = await seated(repo, at="20:00", zone="Europe/Paris")  # the wait begins 09:00 UTC
    status = await table.act(ALICE, gc.GameStatus())
    clock = dict(status.fields)["Clock"]
    # two days from Monday 4 May 09:00 UTC, then the next 20:00 in Paris (18:00 UTC, summer)
    assert clock.endswith("Deadline 2026-05-06 18:00 UTC, in 2 d 9 h 00 min"), clock
    assert datetime(2026, 5, 6, 18, tzinfo=UTC) > table.clock.now


async def test_a_pause_proposal_puts_the_ball_in_nobodys_court(repo: Repository) -> None:
    table = await seated(repo)
    await table.act(ALICE, gc.GameDeadlinePause(length="2d"))  # alice proposes; bob still owes
    status = await table.act(BOB, gc.GameStatus())
    assert dict(status.fields)["Clock"].startswith("Allied to act: bob, for 0 s (since #5)")
    same = gc.GameDeadlinePause(length="2d")
    with pytest.raises(Exception, match="alice proposed it already: /game confirm entry:6"):
        await table.act(BOB, same)
