"""``referee backup`` and ``referee migrate-db`` as real subprocesses, between real databases of
both engines: the copy holds every game byte for byte (the exports are identical and verify),
an SQLite backup runs while a writer writes, a non-empty target is refused."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from bot.log.export import export_game
from bot.log.verify import verify_lines
from bot.service.game_service import GameService
from bot.storage import open_repository
from bot.storage.base import BoardRow
from bot.table import commands as gc
from tests.bot.conftest import ALICE, HERE, end_game, start_game
from tests.bot.toysystem import SYSTEM, Ammo, Shoot
from tests.conftest import ENGINES
from tests.pgserver import PostgresServer
from tests.storage.writer import PLACE

ROOT = Path(__file__).resolve().parents[2]
SYSTEMS = {"toy": SYSTEM}
OTHER = HERE.model_copy(update={"channel_id": 201})


def referee(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        capture_output=True, text=True, timeout=120, cwd=cwd,
    )  # fmt: skip


async def play(database: Path | str) -> None:
    """Two games (one ended), rolls, a rotation (a revealed seed), a seed phrase."""
    repo = await open_repository(database)
    try:
        service = GameService(repo, SYSTEMS)
        await service.signing_key()  # made at the bot's first start
        await start_game(service)
        for i in range(8):
            await service.handle(HERE, ALICE, f"s{i}", Shoot(side="Axis"))
        await service.handle(HERE, ALICE, "rot", gc.GameRotate())
        await service.handle(HERE, ALICE, "phrase", gc.GameSeed(phrase="lucky"))
        await service.handle(HERE, ALICE, "ammo", Ammo(side="Axis", level=3))
        await end_game(service)
        await start_game(service, OTHER)
        await service.handle(OTHER, ALICE, "r", gc.RollDice(dice="3d6"))
        row = await repo.active_game(OTHER.guild_id, OTHER.channel_id)
        assert row is not None
        await repo.set_board(row.id, 2**63 - 7, True)  # its status board, posted in Discord
    finally:
        await repo.close()


async def board(database: Path | str) -> BoardRow | None:
    """The status board of the game at ``OTHER``."""
    repo = await open_repository(database)
    try:
        row = await repo.active_game(OTHER.guild_id, OTHER.channel_id)
        assert row is not None
        return await repo.board(row.id)
    finally:
        await repo.close()


async def exports(database: Path | str) -> list[str]:
    """Every game's export (games in id order), each checked to verify."""
    repo = await open_repository(database)
    try:
        texts = []
        for game_id in range(1, 100):
            row = await repo.game(game_id)
            if row is None:
                break
            text = await export_game(repo, row)
            report = verify_lines(text.splitlines(), SYSTEMS)
            assert report.ok, report.message
            texts.append(text)
        return texts
    finally:
        await repo.close()


def summary(texts: list[str]) -> str:
    """What the commands print for the games exported as ``texts`` (2 games, 3 seed epochs,
    the board and the bot's signing key)."""
    lines = [json.loads(line) for text in texts for line in text.splitlines()]
    entries = [line for line in lines if "seq" in line and "prev" in line]
    dice = sum(len(e["dice"]) for e in entries)
    return f"2 games, 3 seeds, {len(entries)} entries, {dice} dice, 1 status board, 1 signing key."


async def test_migrate_db_copies_every_game_to_the_other_engine_and_back(
    postgres_server: PostgresServer, tmp_path: Path
) -> None:
    source = tmp_path / "referee.db"
    await play(source)
    url = await postgres_server.create_database()
    done = referee("migrate-db", str(source), url, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    original = await exports(source)
    assert done.stdout.strip().endswith(summary(original)), done.stdout
    assert len(original) == 2 and await exports(url) == original
    assert await board(url) == await board(source) == BoardRow(2, 2**63 - 7, True)
    # and back into a new SQLite file: the same bytes again
    back = tmp_path / "back.db"
    done = referee("migrate-db", url, str(back), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert await exports(back) == original
    assert await board(back) == BoardRow(2, 2**63 - 7, True)
    # the copied database goes on: a new game gets a new id, the active game takes actions
    repo = await open_repository(url)
    try:
        service = GameService(repo, SYSTEMS)
        await service.handle(OTHER, ALICE, "after", gc.RollDice(dice="2d6"))
        third = HERE.model_copy(update={"channel_id": 202})
        await start_game(service, third)
        row = await repo.active_game(third.guild_id, third.channel_id)
        assert row is not None and row.id == 3
    finally:
        await repo.close()
    assert len(await exports(url)) == 3


async def test_migrate_db_refuses_a_target_that_holds_games(
    postgres_server: PostgresServer, tmp_path: Path
) -> None:
    source = tmp_path / "referee.db"
    await play(source)
    url = await postgres_server.create_database()
    assert referee("migrate-db", str(source), url, cwd=tmp_path).returncode == 0
    again = referee("migrate-db", str(source), url, cwd=tmp_path)
    assert again.returncode == 2
    assert again.stderr.strip().endswith(
        "already holds 2 games; migrate-db copies into an empty database only."
    )
    missing = referee("migrate-db", str(tmp_path / "nothing.db"), url, cwd=tmp_path)
    assert missing.returncode == 2
    assert missing.stderr.strip() == f"There is no SQLite database file {tmp_path / 'nothing.db'}."


@ENGINES("sqlite", "postgresql")
async def test_backup_writes_a_new_sqlite_file_holding_every_game(
    database: Path | str, tmp_path: Path
) -> None:
    await play(database)
    done = referee("backup", "backup.db", "--db", str(database), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    original = await exports(database)
    assert done.stdout.strip().endswith(f"backup.db: {summary(original)}"), done.stdout
    assert await exports(tmp_path / "backup.db") == original
    assert await board(tmp_path / "backup.db") == BoardRow(2, 2**63 - 7, True)
    again = referee("backup", "backup.db", "--db", str(database), cwd=tmp_path)
    assert again.returncode == 2
    assert again.stderr.strip() == "backup.db exists already; name a new file for the backup."


async def test_an_sqlite_backup_taken_while_a_writer_writes_is_consistent(tmp_path: Path) -> None:
    """SQLite's online backup: a writer process keeps writing one game during the backups; each
    backup is one consistent state whose chain verifies."""
    source = tmp_path / "referee.db"
    repo = await open_repository(source)
    try:
        await start_game(GameService(repo, SYSTEMS), PLACE)
    finally:
        await repo.close()
    writer = subprocess.Popen(
        [sys.executable, "-m", "tests.storage.writer", str(source), "w", "400"],
        cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert writer.stdout is not None and writer.stdin is not None
    assert writer.stdout.readline().startswith("READY")
    writer.stdin.write("go\n")
    writer.stdin.flush()
    heads = []
    for n in range(4):
        done = referee("backup", f"b{n}.db", "--db", str(source), cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        repo = await open_repository(tmp_path / f"b{n}.db")
        try:
            row = await repo.active_game(PLACE.guild_id, PLACE.channel_id)
            assert row is not None
            report = verify_lines((await export_game(repo, row)).splitlines(), SYSTEMS)
            assert report.ok, report.message
            heads.append(row.head_seq)
        finally:
            await repo.close()
    out, _ = writer.communicate(timeout=240)
    assert writer.returncode == 0 and out.strip() == "DONE w"
    assert heads == sorted(heads) and heads[0] >= 3
