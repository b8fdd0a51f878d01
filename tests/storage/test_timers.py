"""The games' timers, the server settings and the notice choices on both engines (migration 003):
a timer is planned once per wait and step, moved only by a later plan, claimed by one process at
a time, never fired twice; a claim of a process that died lapses."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bot.service.game_service import GameService
from bot.storage import Repository, TimerPlan, open_repository
from tests.bot.conftest import HERE, start_game


async def _game_id(repo: Repository, service: GameService) -> int:
    await start_game(service)
    game = await repo.active_game(HERE.guild_id, HERE.channel_id)
    assert game is not None
    return game.id


def _plan(ball: int, due: int, step: int = 50) -> TimerPlan:
    return TimerPlan(name=f"g:{ball}:reminder:{step}", event="reminder", due=due,
                     data={"step": step})  # fmt: skip


async def test_a_timer_is_planned_once_and_moved_only_by_a_later_plan(
    repo: Repository, service: GameService
) -> None:
    game = await _game_id(repo, service)
    await repo.plan_timers(game, ball=5, plan=7, timers=[_plan(5, 1000), _plan(5, 4000, 100)],
                           now=0)  # fmt: skip
    await repo.plan_timers(game, ball=5, plan=6, timers=[_plan(5, 99)], now=0)  # an older plan
    timers = await repo.game_timers(game)
    assert [(t.name, t.due, t.plan) for t in timers] == [
        ("g:5:reminder:50", 1000, 7),
        ("g:5:reminder:100", 4000, 7),
    ]
    await repo.plan_timers(game, ball=5, plan=9, timers=[_plan(5, 2000)], now=0)
    # the later plan moved the 50 % step and left out the 100 % step: retired
    assert [(t.name, t.due, t.plan) for t in await repo.game_timers(game)] == [
        ("g:5:reminder:50", 2000, 9)
    ]
    assert await repo.next_timer() == 2000
    assert await repo.timers_due(1999) == 0 and await repo.timers_due(2000) == 1
    await repo.plan_timers(game, ball=8, plan=10, timers=[_plan(8, 5000)], now=0)
    assert [t.name for t in await repo.game_timers(game)] == ["g:8:reminder:50"]
    await repo.drop_timers(game, now=1)
    assert await repo.game_timers(game) == [] and await repo.next_timer() is None


async def test_a_due_timer_is_claimed_by_one_process_and_never_fires_twice(
    repo: Repository, service: GameService
) -> None:
    game = await _game_id(repo, service)
    await repo.plan_timers(game, ball=3, plan=3, timers=[_plan(3, 100)], now=0)
    assert await repo.due_timers(99) == []
    (timer,) = await repo.due_timers(100)
    claims = await asyncio.gather(
        *(repo.claim_timer(timer.id, f"process-{n}", 100, lease=60_000) for n in range(8))
    )
    assert claims.count(True) == 1
    owner = f"process-{claims.index(True)}"
    assert await repo.due_timers(200) == []  # claimed: no other process sees it due
    await repo.finish_timer(timer.id, owner, 300)
    assert await repo.due_timers(10**15) == []
    # planned again (another process, the same wait and step): it fired, it stays fired
    await repo.plan_timers(game, ball=3, plan=4, timers=[_plan(3, 500)], now=0)
    assert await repo.due_timers(10**15) == [] and await repo.timers_due(10**15) == 0


async def test_a_claim_lapses_and_a_released_timer_is_due_again(
    repo: Repository, service: GameService
) -> None:
    game = await _game_id(repo, service)
    await repo.plan_timers(game, ball=3, plan=3, timers=[_plan(3, 100)], now=0)
    (timer,) = await repo.due_timers(100)
    assert await repo.claim_timer(timer.id, "dead", 100, lease=1000)
    assert await repo.due_timers(1100) == []
    (again,) = await repo.due_timers(1101)  # the claim lapsed: the process died
    assert await repo.claim_timer(again.id, "alive", 1101, lease=1000)
    await repo.finish_timer(again.id, "dead", 1200)  # a late finish of the dead claim: nothing
    await repo.release_timer(again.id, "alive")
    (released,) = await repo.due_timers(1300)
    assert released.id == timer.id


async def test_server_settings_and_notice_choices_are_kept(
    repo: Repository, database: Path | str
) -> None:
    assert await repo.server_settings(1) is None
    await repo.set_server_settings(1, {"deadline": 172800})
    await repo.set_server_settings(1, {"deadline": 3600, "zone": "Europe/Paris"})
    assert await repo.server_settings(1) == {"deadline": 3600, "zone": "Europe/Paris"}
    user = 1_311_768_467_294_899_695
    assert await repo.notify(user) is None
    await repo.set_notify(user, True)
    assert await repo.dm_refused(user, 5) is True
    assert await repo.dm_refused(user, 6) is False  # said once
    found = await repo.notify(user)
    assert found is not None and (found.dm, found.refused) == (True, 5)
    await repo.set_notify(user, True)  # opting in again forgets the refusal
    found = await repo.notify(user)
    assert found is not None and found.refused is None
    reopened = await open_repository(database)  # another process's view
    try:
        assert await reopened.server_settings(1) == {"deadline": 3600, "zone": "Europe/Paris"}
    finally:
        await reopened.close()
