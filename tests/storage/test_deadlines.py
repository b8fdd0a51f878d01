"""A frozen database: every call has a deadline, the user whose request ran out of time is told in
one sentence that nothing was changed — and nothing was, even after the database thaws — and the
bot serves again when it does. On the real PostgreSQL of the test run, frozen two ways (a lock
held by a session sleeping in ``pg_sleep``, and SIGSTOP of every process of the server), and on
an SQLite file whose write lock another connection holds. Too many waiting requests are refused
at once (the bounded queue), and a request that cannot get a connection in time times out."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sqlite3
import subprocess
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import asyncpg
import pytest

from bot.errors import DatabaseBusy, DatabaseTimeout, DatabaseUnreachable, Unavailable
from bot.models import Place
from bot.service.game_service import GameService
from bot.storage import open_repository
from bot.storage.limits import Limits
from bot.table import commands as gc
from tests.bot.conftest import ALICE, HERE, start_game
from tests.bot.toysystem import SYSTEM
from tests.pgserver import PostgresServer, find_bindir

TIMEOUT = 1.0
SLACK = 3.0
"""Seconds a loaded machine may add to an answer due at the deadline and its margin (1 s each):
every freeze here lasts until the answers are in, so a request waiting for the thaw instead of
its deadline would never be answered in time however large this is."""
SENTENCE = "The database did not answer within 1 s, so nothing was changed; try again in a minute."


def roll(reason: str) -> gc.RollDice:
    return gc.RollDice(dice="DR", reason=reason)


@contextlib.asynccontextmanager
async def serving(database: Path | str, limits: Limits) -> AsyncIterator[GameService]:
    repo = await open_repository(database, limits)
    try:
        service = GameService(repo, {"toy": SYSTEM})
        await service.signing_key()  # made at the start, as the bot does (a write)
        yield service
    finally:
        await repo.close()


async def stored(database: Path | str, place: Place = HERE) -> tuple[int, list[str]]:
    """The channel's game as stored, read afresh: its head and every entry's interaction id."""
    repo = await open_repository(database)
    try:
        row = await repo.active_game(place.guild_id, place.channel_id)
        assert row is not None
        return row.head_seq, [e.interaction_id for e in await repo.entries(row.id)]
    finally:
        await repo.close()


async def timed_out(service: GameService, interaction: str, reason: str) -> float:
    """Roll while the database is frozen: refused with the one sentence; the seconds it took."""
    began = time.monotonic()
    with pytest.raises(DatabaseTimeout) as refused:
        await service.handle(HERE, ALICE, interaction, roll(reason))
    assert refused.value.user_message == SENTENCE
    return time.monotonic() - began


@contextlib.asynccontextmanager
async def locked_by_a_sleeper(url: str, seconds: float) -> AsyncIterator[asyncio.Task[None]]:
    """Another session locks the games table and sleeps in ``pg_sleep`` for ``seconds`` or until
    the block ends, whichever comes first (its transaction then ends and the table thaws)."""
    sleeper = await asyncpg.connect(url)
    locked = asyncio.Event()

    async def hold() -> None:
        async with sleeper.transaction():
            await sleeper.execute("LOCK TABLE games IN ACCESS EXCLUSIVE MODE")
            locked.set()
            await sleeper.execute(f"SELECT pg_sleep({seconds})")

    task = asyncio.ensure_future(hold())
    await locked.wait()
    try:
        yield task
    finally:
        task.cancel()  # asyncpg cancels the sleep on the server, and the transaction rolls back
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await sleeper.close()


@contextlib.contextmanager
def stopped(server: PostgresServer) -> Iterator[None]:
    """SIGSTOP every process of the server (the postmaster and its children), SIGCONT after."""
    assert server.process is not None
    root = server.process.pid
    children = subprocess.run(
        ["pgrep", "-P", str(root)], capture_output=True, text=True, check=False
    ).stdout.split()
    pids = [root, *map(int, children)]
    for pid in pids:
        os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        for pid in pids:
            os.kill(pid, signal.SIGCONT)


async def test_a_postgresql_table_locked_by_a_sleeping_session_times_requests_out_and_changes_nothing(  # noqa: E501
    postgres_server: PostgresServer,
) -> None:
    url = await postgres_server.create_database()
    async with serving(url, Limits(timeout=TIMEOUT)) as service:
        await start_game(service)
        await service.handle(HERE, ALICE, "before", roll("before"))
        head, ids = await stored(url)
        async with locked_by_a_sleeper(url, 60.0) as sleeper:
            # five players at once: each waits at most the deadline and its margin, and is told
            took = await asyncio.gather(*(timed_out(service, f"frozen-{n}", "x") for n in range(5)))
            assert all(TIMEOUT <= t < TIMEOUT + 1.0 + SLACK for t in took), took
            assert not sleeper.done()  # the database was still frozen when they were answered
        # thawed: the statements that waited behind the lock ran, found their deadline passed
        # and stored nothing
        assert await stored(url) == (head, ids)
        reply = await service.handle(HERE, ALICE, "after", roll("after"))
        assert reply.seq == head + 1
    assert (await stored(url))[1] == [*ids, "after"]
    await postgres_server.drop_database(url)


async def test_a_postgresql_server_stopped_with_sigstop_times_requests_out_and_changes_nothing(
    postgres_server: PostgresServer,
) -> None:
    url = await postgres_server.create_database()
    async with serving(url, Limits(timeout=TIMEOUT)) as service:
        await start_game(service)
        await service.handle(HERE, ALICE, "before", roll("before"))
        head, ids = await stored(url)
        with stopped(postgres_server):
            took = await asyncio.gather(
                *(timed_out(service, f"stopped-{n}", "x") for n in range(3))
            )
            assert all(t < TIMEOUT + 1.0 + SLACK for t in took), took
            await asyncio.sleep(1.0)  # frozen well past every deadline
        # the server read the appends waiting in its sockets only now: too late, nothing stored
        await asyncio.sleep(0.5)
        assert await stored(url) == (head, ids)
        for attempt in range(300):  # the bot recovers without a restart
            try:
                reply = await service.handle(HERE, ALICE, f"after-{attempt}", roll("after"))
                break
            except Unavailable:
                await asyncio.sleep(0.2)
        assert reply.seq == head + 1
    await postgres_server.drop_database(url)


async def test_an_sqlite_file_whose_write_lock_another_process_holds_times_writes_out(
    tmp_path: Path,
) -> None:
    database = tmp_path / "referee.db"
    async with serving(database, Limits(timeout=TIMEOUT)) as service:
        await start_game(service)
        await service.handle(HERE, ALICE, "before", roll("before"))
        head, ids = await stored(database)
        other = sqlite3.connect(database, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # another process (a console, a tool) holds the lock
        gaps: list[float] = []

        async def ticker() -> None:  # the event loop keeps running while writes wait
            last = time.monotonic()
            while True:
                await asyncio.sleep(0.01)
                gaps.append(time.monotonic() - last)
                last = time.monotonic()

        ticking = asyncio.ensure_future(ticker())
        took = await asyncio.gather(*(timed_out(service, f"locked-{n}", "x") for n in range(3)))
        status = await service.handle(HERE, ALICE, "status", gc.GameStatus())  # reads go on
        ticking.cancel()
        assert status.title
        assert all(TIMEOUT <= t < TIMEOUT + SLACK for t in took), took
        assert max(gaps) < 0.9, max(gaps)  # a write waiting in the loop would stop it 1 s
        other.execute("COMMIT")
        other.close()
        assert await stored(database) == (head, ids)
        reply = await service.handle(HERE, ALICE, "after", roll("after"))
        assert reply.seq == head + 1


async def test_the_waiting_queue_is_bounded_and_a_connection_not_had_in_time_is_a_timeout(
    postgres_server: PostgresServer,
) -> None:
    """One connection, two more may wait: of ten reads during a freeze, seven are refused at
    once, the one holding the connection and the two waiting for it time out."""
    url = await postgres_server.create_database()
    async with serving(url, Limits(timeout=TIMEOUT, pool=1, queue=2)) as service:
        await start_game(service)
        places = [Place(guild_id=100, channel_id=300 + n) for n in range(10)]
        async with locked_by_a_sleeper(url, 60.0):

            async def status(place: Place) -> tuple[str, float]:
                began = time.monotonic()
                try:
                    await service.handle(place, ALICE, "-", gc.GameStatus())
                except Unavailable as exc:
                    return type(exc).__name__, time.monotonic() - began
                return "answered", time.monotonic() - began

            answers = await asyncio.gather(*(status(place) for place in places))
        kinds = [kind for kind, _ in answers]
        assert kinds.count(DatabaseBusy.__name__) == 7, answers
        assert kinds.count(DatabaseTimeout.__name__) == 3, answers
        # at once: not after the 1 s deadline of a request that waited
        assert all(t < 0.5 for kind, t in answers if kind == DatabaseBusy.__name__), answers
        busy = Limits().busy().user_message
        assert busy.endswith("so nothing was changed; try again in a minute."), busy
        assert (await service.handle(HERE, ALICE, "after", roll("after"))).seq is not None
    await postgres_server.drop_database(url)


async def test_a_postgresql_server_that_goes_down_and_comes_back_is_one_sentence_then_served(
    tmp_path: Path,
) -> None:
    """An outage (a server of this test's own, shut down and started again): each request is
    told at once that the database cannot be reached and nothing was changed; when the server is
    back, the same bot process serves again."""
    bindir = find_bindir()
    assert bindir is not None
    server = PostgresServer(bindir)
    server.start()
    try:
        url = await server.create_database()
        async with serving(url, Limits(timeout=TIMEOUT)) as service:
            await start_game(service)
            await service.handle(HERE, ALICE, "before", roll("before"))
            head, ids = await stored(url)
            server.shut_down()
            for n in range(5):
                began = time.monotonic()
                with pytest.raises(Unavailable) as refused:
                    await service.handle(HERE, ALICE, f"down-{n}", roll("down"))
                assert refused.value.user_message.endswith(
                    "so nothing was changed; try again in a minute."
                ), refused.value.user_message
                assert time.monotonic() - began < TIMEOUT + 1.0 + SLACK
            assert isinstance(refused.value, DatabaseUnreachable), refused.value
            server.launch()
            for attempt in range(600):
                try:
                    reply = await service.handle(HERE, ALICE, f"back-{attempt}", roll("back"))
                    break
                except Unavailable:
                    await asyncio.sleep(0.1)
            assert reply.seq == head + 1
        assert (await stored(url))[1] == [*ids, f"back-{attempt}"]
    finally:
        server.stop()
