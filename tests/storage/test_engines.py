"""The storage's guarantees, on both engines (a real SQLite file, a real PostgreSQL server).

Append-only log refused by the database itself, per-game serialisation by the database across
processes (no lost update, no fork, no die used twice), migrations once under a concurrent first
start, an open failure as one sentence and a non-zero exit.
"""

from __future__ import annotations

import asyncio
import dataclasses
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import asyncpg
import pytest

from bot.log.export import export_game
from bot.log.verify import verify_lines
from bot.service.game_service import GameService
from bot.storage import Append, Repository, StorageConflict, StoredEntry, open_repository
from bot.storage.sql import migrations, to_postgres
from bot.table import commands as gc
from tests.bot.conftest import ALICE, BOB, HERE, start_game
from tests.bot.toysystem import SYSTEM, Shoot
from tests.conftest import ENGINES
from tests.storage.writer import PLACE

ROOT = Path(__file__).resolve().parents[2]
SYSTEMS = {"toy": SYSTEM}


async def verified(repo: Repository, guild_id: int, channel_id: int) -> int:
    """Checks the channel's game whole (head, dice numbering, dice records, chain); its head."""
    row = await repo.active_game(guild_id, channel_id)
    assert row is not None
    entries = await repo.entries(row.id)
    assert [e.seq for e in entries] == list(range(1, row.head_seq + 1))
    assert entries[-1].hash == row.head_hash
    dice = [d for e in entries for d in e.data()["dice"]]
    assert [d["seq"] for d in dice] == list(range(1, row.next_die))  # no die used twice
    counts = await repo.face_counts(guild_id=guild_id, game_id=row.id)
    assert sum(sum(c.values()) for c in counts.values()) == len(dice)
    report = verify_lines((await export_game(repo, row)).splitlines(), SYSTEMS)
    assert report.ok, report.message
    return row.head_seq


# --- the append-only log ---------------------------------------------------------------------


@ENGINES("postgresql")
async def test_postgresql_refuses_to_update_delete_or_truncate_the_log(
    service: GameService, database: str
) -> None:
    await start_game(service)
    connection = await asyncpg.connect(database)
    try:
        for statement in (
            "UPDATE entries SET body = '{}' WHERE seq = 1",
            "DELETE FROM entries WHERE seq = 3",
            "TRUNCATE entries CASCADE",
        ):
            with pytest.raises(asyncpg.PostgresError, match="append-only"):
                await connection.execute(statement)
        assert await connection.fetchval("SELECT count(*) FROM entries") == 3
        assert await connection.fetchval("SELECT count(*) FROM schema_version") == 1
    finally:
        await connection.close()


def test_the_migrations_are_written_once_and_translated_for_postgresql() -> None:
    sqlite_statements = dict(migrations("sqlite"))
    postgres_statements = dict(migrations("postgresql"))
    assert sqlite_statements.keys() == postgres_statements.keys()
    for statements in postgres_statements.values():
        text = "\n".join(statements)
        assert "BLOB" not in text and "WITHOUT ROWID" not in text and "RAISE(ABORT" not in text
    with pytest.raises(ValueError, match="cannot translate"):
        to_postgres("CREATE TRIGGER t AFTER INSERT ON entries BEGIN SELECT 1; END;")


# --- one writer per game, enforced by the database --------------------------------------------


async def test_a_writer_with_a_stale_head_is_refused_and_writes_nothing(
    service: GameService, repo: Repository, database: Path | str
) -> None:
    """Two connections (as two processes would have) read the same head; the second append is
    refused by the database and leaves no trace."""
    await start_game(service)
    other = await open_repository(database)
    try:
        row = await repo.active_game(HERE.guild_id, HERE.channel_id)
        assert row is not None

        def change(name: str) -> Append:
            entry = StoredEntry(row.id, row.head_seq + 1, name, "roll", "{}", name * 8)
            moved = dataclasses.replace(row, head_seq=row.head_seq + 1, head_hash=name * 8)
            return Append(entry=entry, game=moved)

        await repo.append(change("a"), expected_head=row.head_seq)
        with pytest.raises(StorageConflict):
            await other.append(change("b"), expected_head=row.head_seq)
        assert await other.entry_by_interaction("b") is None
        after = await other.active_game(HERE.guild_id, HERE.channel_id)
        assert after is not None and after.head_hash == "a" * 8
    finally:
        await other.close()


@ENGINES("postgresql")
async def test_a_held_game_makes_another_connections_writer_wait_then_refuses_it(
    service: GameService, repo: Repository, database: str
) -> None:
    await start_game(service)
    other = await open_repository(database)
    try:
        row = await repo.active_game(HERE.guild_id, HERE.channel_id)
        assert row is not None

        def change(name: str) -> Append:
            entry = StoredEntry(row.id, row.head_seq + 1, name, "roll", "{}", name * 8)
            moved = dataclasses.replace(row, head_seq=row.head_seq + 1, head_hash=name * 8)
            return Append(entry=entry, game=moved)

        async with repo.hold(HERE.guild_id, HERE.channel_id):
            late = asyncio.create_task(other.append(change("b"), expected_head=row.head_seq))
            await asyncio.sleep(0.3)
            assert not late.done()  # waiting for the row lock
            await repo.append(change("a"), expected_head=row.head_seq)
            assert not late.done()  # the held transaction has not committed yet
        with pytest.raises(StorageConflict):
            await late
        after = await other.active_game(HERE.guild_id, HERE.channel_id)
        assert after is not None and after.head_hash == "a" * 8
    finally:
        await other.close()


async def test_a_second_service_with_a_stale_cache_decides_again_on_the_new_head(
    service: GameService, database: Path | str
) -> None:
    """A bot and a console (two services, two connections) alternate on one game: each one's
    cached game is stale whenever the other wrote; every action lands, the chain verifies."""
    await start_game(service)
    repo = await open_repository(database)
    try:
        console = GameService(repo, SYSTEMS)
        for i in range(6):
            await service.handle(HERE, ALICE, f"bot-{i}", Shoot(side="Axis"))
            await console.handle(HERE, BOB, f"console-{i}", gc.RollDice(dice="2d6"))
        assert await verified(repo, HERE.guild_id, HERE.channel_id) == 3 + 12
    finally:
        await repo.close()


async def test_two_services_writing_one_game_at_once_both_land_every_action(
    service: GameService, database: Path | str
) -> None:
    """Two services on two connections (as a bot and a console would be) write the same game
    concurrently: each refusal is decided again holding the game, and every action lands."""
    await start_game(service)
    repo = await open_repository(database)
    try:
        other = GameService(repo, SYSTEMS)
        await asyncio.gather(
            *(service.handle(HERE, ALICE, f"a-{i}", Shoot(side="Axis")) for i in range(25)),
            *(other.handle(HERE, BOB, f"b-{i}", gc.RollDice(dice="2d6")) for i in range(25)),
        )
        assert await verified(repo, HERE.guild_id, HERE.channel_id) == 3 + 50
    finally:
        await repo.close()


async def test_processes_writing_one_game_at_once_lose_nothing_and_fork_nothing(
    database: Path | str,
) -> None:
    """Four processes write the same game at the same moment; afterwards every one of their
    actions is in the log exactly once, the chain verifies, every die is numbered once."""
    repo = await open_repository(database)
    try:
        await start_game(GameService(repo, SYSTEMS), PLACE)
    finally:
        await repo.close()
    writers, count = 4, 60
    command = [sys.executable, "-m", "tests.storage.writer", str(database)]
    processes = [
        subprocess.Popen(
            [*command, f"w{n}", str(count)],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for n in range(writers)
    ]
    for process in processes:
        assert process.stdout is not None and process.stdout.readline().startswith("READY")
    for process in processes:  # all connected: go
        assert process.stdin is not None
        process.stdin.write("go\n")
        process.stdin.flush()
    for n, process in enumerate(processes):
        out, _ = process.communicate(timeout=240)
        assert process.returncode == 0 and out.strip() == f"DONE w{n}"
    repo = await open_repository(database)
    try:
        assert await verified(repo, PLACE.guild_id, PLACE.channel_id) == 3 + writers * count
        for n in range(writers):
            for i in range(1, count + 1):
                assert await repo.entry_by_interaction(f"w{n}-{i}") is not None
    finally:
        await repo.close()


# --- migrations and opening ------------------------------------------------------------------

OPEN = (
    "import asyncio, sys\n"
    "from bot.storage import open_repository\n"
    "async def main():\n"
    "    repo = await open_repository(sys.argv[1])\n"
    "    await repo.close()\n"
    "asyncio.run(main())\n"
)


async def test_processes_starting_at_once_on_a_new_database_migrate_it_once(
    database: Path | str,
) -> None:
    processes = [
        subprocess.Popen([sys.executable, "-c", OPEN, str(database)], cwd=ROOT) for _ in range(4)
    ]
    assert [p.wait(timeout=180) for p in processes] == [0, 0, 0, 0]
    repo = await open_repository(database)
    try:
        assert await repo.schema_version() == migrations()[-1][0]
    finally:
        await repo.close()
    if isinstance(database, Path):
        rows = sqlite3.connect(database).execute("SELECT version FROM schema_version").fetchall()
    else:
        connection = await asyncpg.connect(database)
        try:
            rows = [tuple(r) for r in await connection.fetch("SELECT version FROM schema_version")]
        finally:
            await connection.close()
    assert rows == [(migrations()[-1][0],)]


def console_exit(database: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot", "console", "--db", database],
        input="/game status\n", capture_output=True, text=True, timeout=180, cwd=tmp_path,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("database", "said"),
    [
        ("postgresql://referee@/nothing?host=/nonexistent", "Cannot open the PostgreSQL database"),
        ("not-a-database.db", "Cannot open the SQLite database not-a-database.db: file is not"),
        (".", "Cannot open the SQLite database .: unable to open database file."),
    ],
)
def test_a_database_that_cannot_be_opened_is_one_sentence_and_exit_2(
    database: str, said: str, tmp_path: Path
) -> None:
    (tmp_path / "not-a-database.db").write_text("this is a text file, not a database\n" * 100)
    started = time.monotonic()
    done = console_exit(database, tmp_path)
    assert time.monotonic() - started < 90  # no thread left hanging (a second or two, quiet)
    assert done.returncode == 2, done
    assert done.stderr.startswith(said), done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert done.stdout == ""


def test_a_bad_database_url_setting_is_one_sentence(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bot", "console"],
        input="", capture_output=True, text=True, timeout=180, cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "REFEREE_DATABASE_URL": "mysql://x@y/z"},
    )  # fmt: skip
    assert done.returncode == 1
    assert done.stderr.strip() == (
        "REFEREE_DATABASE_URL: Value error, REFEREE_DATABASE_URL takes a postgresql:// URL."
    )


@ENGINES("postgresql")
async def test_the_console_plays_on_postgresql_given_a_url(database: str, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bot", "console", "--db", database],
        input="/game new system:asl\n/roll dice:2d6\n", capture_output=True, text=True,
        timeout=180, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    connection = await asyncpg.connect(database)
    try:
        assert await connection.fetchval("SELECT count(*) FROM entries") == 2
        assert await connection.fetchval("SELECT count(*) FROM rolls") == 2
    finally:
        await connection.close()


async def test_pending_declarations_are_the_active_games_whose_table_holds_one(
    service: GameService, repo: Repository
) -> None:
    await start_game(service)
    row = await repo.active_game(HERE.guild_id, HERE.channel_id)
    assert row is not None
    assert await repo.pending_declarations() == []
    table = {**row.table, "pending": {"seq": row.head_seq + 1, "round": 7}}
    entry = StoredEntry(row.id, row.head_seq + 1, "declared", "roll", "{}", "d" * 8)
    moved = dataclasses.replace(row, head_seq=row.head_seq + 1, head_hash="d" * 8, table=table)
    await repo.append(Append(entry=entry, game=moved), expected_head=row.head_seq)
    assert [g.id for g in await repo.pending_declarations()] == [row.id]
    # a side named like the key is no pending declaration
    other = HERE.model_copy(update={"channel_id": 201})
    await service.handle(
        other, ALICE, "new-201", gc.GameNew(system="toy", sides=['"pending":', "Allied"])
    )
    assert [g.id for g in await repo.pending_declarations()] == [row.id]


def test_the_bot_on_a_database_it_cannot_open_exits_2_with_one_sentence(tmp_path: Path) -> None:
    environment = {
        "PATH": "/usr/bin:/bin",
        "DISCORD_TOKEN": "not-used",
        "DISCORD_API_BASE": "http://127.0.0.1:9/api/v10",  # never reached: the database is first
        "REFEREE_DATABASE_URL": "postgresql://referee@/nothing?host=/nonexistent",
    }
    done = subprocess.run(
        [sys.executable, "-m", "bot", "run"],
        capture_output=True, text=True, timeout=180, cwd=tmp_path, env=environment,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    errors = [line for line in done.stderr.splitlines() if "ERROR" in line]
    assert (
        len(errors) == 1
        and "Cannot open the PostgreSQL database postgresql://referee@/nothing" in errors[0]
    ), done.stderr
