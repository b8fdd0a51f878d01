"""The hash chain and the export: an edited, removed or reordered entry is caught where it is."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from bot.dice.game_dice import FaceScript
from bot.log.gamelog import canonical, entry_hash
from bot.log.verify import verify_lines
from bot.service.game_service import GameService
from bot.storage import Repository, SQLiteRepository
from bot.storage.sql import migrations
from bot.table import commands as gc
from tests.bot.conftest import ALICE, BOB, HERE, end_game, start_game
from tests.bot.toysystem import SYSTEM, Ammo, Shoot
from tests.conftest import ENGINES

SYSTEMS = {"toy": SYSTEM}
VERIFY_DICE = Path(__file__).resolve().parents[2] / "bot" / "log" / "verify_dice.py"


@pytest.fixture
async def exported(service: GameService) -> list[str]:
    await start_game(service)
    await service.handle(HERE, ALICE, "a1", Shoot(side="Axis"))
    await service.handle(HERE, BOB, "a2", gc.GameSeed(phrase="bob"))
    await service.handle(HERE, BOB, "a3", Shoot(side="Allied", careful=True))
    await service.handle(HERE, ALICE, "a4", Ammo(side="Axis", level=3))
    await service.handle(HERE, ALICE, "a5", gc.RollDice(dice="2d6", reason="test"))
    await end_game(service, key="a6")
    reply = await service.handle(HERE, ALICE, "a7", gc.GameExport())
    assert reply.file is not None
    return reply.file.content.decode("utf-8").splitlines()


def test_the_untouched_export_verifies(exported: list[str]) -> None:
    report = verify_lines(exported, SYSTEMS)
    assert report.ok, report.message
    assert report.counts is not None and report.counts["actions replayed"] == 3


def resealed(line: str, **changes: object) -> str:
    """An entry edited by someone who also recomputed its own hash (but cannot fix the next)."""
    data = json.loads(line)
    data.pop("hash")
    data.update(changes)
    data["hash"] = entry_hash(canonical(data))
    return canonical(data)


@pytest.mark.parametrize("number", range(1, 11))
def test_editing_any_entry_is_caught_at_that_entry(exported: list[str], number: int) -> None:
    lines = list(exported)
    data = json.loads(lines[number])
    data["interaction"] = f"forged-{number}"  # unique still: only the hash can tell
    lines[number] = canonical(data)
    report = verify_lines(lines, SYSTEMS)
    assert not report.ok and report.seq == number, report.message
    lines[number] = resealed(exported[number], interaction=f"forged-{number}")
    report = verify_lines(lines, SYSTEMS)
    assert not report.ok
    if number < 10:  # the next entry no longer follows it
        assert report.seq == number + 1 and "prev" in report.message
    else:  # the last one no longer matches the exported head
        assert report.seq == 10 and "log head" in report.message


def test_changing_a_die_and_resealing_the_whole_chain_is_caught_by_the_seed(
    exported: list[str],
) -> None:
    lines = list(exported)
    # entry 4 is alice's shot; change its first die and re-chain everything after it
    entry = json.loads(lines[4])
    assert entry["kind"] == "action"
    entry["dice"][0]["face"] = entry["dice"][0]["face"] % 6 + 1
    # the roll shown beside the dice too, so only the seed tells (a lone die is caught sooner)
    entry["outcome"]["rolls"][0]["faces"][0] = entry["dice"][0]["face"]
    prev = json.loads(lines[3])["hash"]
    for index in range(4, len(lines)):
        data = entry if index == 4 else json.loads(lines[index])
        data.pop("hash", None)
        data["prev"] = prev
        data["hash"] = prev = entry_hash(canonical(data))
        lines[index] = canonical(data)
    header = json.loads(lines[0])
    header["head"]["hash"] = prev
    lines[0] = canonical(header)
    report = verify_lines(lines, SYSTEMS)
    assert not report.ok and report.seq == 4
    assert "seed gives" in report.message


def test_removing_an_entry_is_caught(exported: list[str]) -> None:
    lines = exported[:5] + exported[6:]
    report = verify_lines(lines, SYSTEMS)
    assert not report.ok and report.seq == 5


def test_removing_the_last_entry_is_caught_by_the_head(exported: list[str]) -> None:
    report = verify_lines(exported[:-1], SYSTEMS)
    assert not report.ok and "log head" in report.message


def test_reordering_entries_is_caught(exported: list[str]) -> None:
    lines = list(exported)
    lines[5], lines[6] = lines[6], lines[5]
    report = verify_lines(lines, SYSTEMS)
    assert not report.ok and report.seq == 5


def test_a_forged_outcome_is_caught_by_replaying_the_rules(exported: list[str]) -> None:
    lines = list(exported)
    prev = json.loads(lines[3])["hash"]
    for index in range(4, len(lines)):
        data = json.loads(lines[index])
        data.pop("hash")
        if index == 4:
            data["outcome"]["facts"] = [["hits", "5"]]
        data["prev"] = prev
        data["hash"] = prev = entry_hash(canonical(data))
        lines[index] = canonical(data)
    header = json.loads(lines[0])
    header["head"]["hash"] = prev
    lines[0] = canonical(header)
    report = verify_lines(lines, SYSTEMS)
    assert not report.ok and report.seq == 4 and "outcome" in report.message


def test_the_standalone_verifier_runs_alone_and_reports_the_first_mismatch(
    exported: list[str], tmp_path: Path
) -> None:
    good = tmp_path / "good.jsonl"
    good.write_text("\n".join(exported) + "\n", encoding="utf-8")
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(exported[:3] + exported[4:]) + "\n", encoding="utf-8")
    env = {"PATH": "/usr/bin:/bin", "PYTHONNOUSERSITE": "1"}
    ok = subprocess.run(
        [sys.executable, "-I", "-S", str(VERIFY_DICE), str(good)],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=180,
    )  # fmt: skip
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert ok.stdout.startswith("OK: 10 entries consistent")
    assert "Not checked: the rulings" in ok.stdout  # what it does not prove, said
    failed = subprocess.run(
        [sys.executable, "-I", "-S", str(VERIFY_DICE), str(bad)],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=180,
    )  # fmt: skip
    assert failed.returncode == 1
    assert failed.stdout.startswith("MISMATCH at entry 3: has sequence number 4")


def test_the_standalone_verifier_imports_only_the_standard_library() -> None:
    """``verify_dice.py`` and its parts (strict reading, seats, signatures, the deadlines)
    import nothing else."""
    import ast

    parts = ("verify_dice", "reading", "seats", "signed", "deadlines")
    own = {f"bot.log.{part}" for part in parts}
    for part in parts:
        tree = ast.parse((VERIFY_DICE.parent / f"{part}.py").read_text(encoding="utf-8"))
        modules = {
            alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.Import)
            for alias in node.names
        } | {
            node.module
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module
        }
        outside = {m for m in modules - own if m.split(".")[0] not in sys.stdlib_module_names}
        assert outside <= {"__future__"}, (part, outside)


@ENGINES("sqlite")  # SQLite's own connections and pragmas
async def test_the_log_refuses_updates_and_deletes(repo: Repository, tmp_path: Path) -> None:
    service = GameService(repo, SYSTEMS, script=FaceScript([]))
    await start_game(service)
    db = sqlite3.connect(tmp_path / "referee.db")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        db.execute("UPDATE entries SET body = '{}' WHERE seq = 1")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        db.execute("DELETE FROM entries")
    assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    assert db.execute("SELECT version FROM schema_version").fetchone() == (migrations()[-1][0],)
    db.close()
    assert isinstance(repo, SQLiteRepository)
    for connection in (repo._writer, repo._reader):  # durable commits: synchronous=FULL (2)
        assert list(await connection.execute_fetchall("PRAGMA synchronous")) == [(2,)]


async def test_an_active_games_export_verifies_and_counts_the_dice_not_yet_revealed(
    service: GameService,
) -> None:
    await start_game(service)
    await service.handle(HERE, ALICE, "b1", Shoot(side="Axis"))
    await service.handle(HERE, ALICE, "b2", gc.GameRotate())
    shot = await service.handle(HERE, ALICE, "b3", Shoot(side="Axis"))
    reply = await service.handle(HERE, BOB, "b4", gc.GameExport())
    assert reply.file is not None
    lines = reply.file.content.decode("utf-8").splitlines()
    assert json.loads(lines[0])["status"] == "active"
    report = verify_lines(lines, SYSTEMS)
    assert report.ok and report.counts is not None
    assert report.counts["dice of unrevealed seeds"] == len(shot.dice)
    assert report.counts["dice checked"] >= 2
