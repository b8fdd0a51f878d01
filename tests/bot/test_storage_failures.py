"""Failures never hang or abort, seen from outside through real processes on real SQLite files:
a database that cannot be opened is one sentence and exit status 2 for the console and the bot
alike (no connection thread left to keep the process alive); processes starting together on a
fresh file migrate it once; several console processes writing one channel all succeed."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from bot.log.verify import verify_file
from bot.service.systems import InstalledSystems
from bot.storage.sql import migrations

ROOT = Path(__file__).resolve().parents[2]


def env(**extra: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if k not in ("DISCORD_TOKEN", "REFEREE_DB")}
    return {**base, **extra}


def corrupt(path: Path) -> Path:
    path.write_bytes(b"this is not an SQLite database, just some bytes\n" * 100)
    return path


def test_the_console_on_a_corrupt_database_says_so_in_one_sentence(tmp_path: Path) -> None:
    db = corrupt(tmp_path / "bad.db")
    run = subprocess.run(
        [sys.executable, "-m", "bot", "console", "--db", str(db)],
        input="/game status\n", capture_output=True, text=True, env=env(), cwd=ROOT, timeout=180,
    )  # fmt: skip
    assert run.returncode == 2
    assert run.stderr.strip() == f"Cannot open the SQLite database {db}: file is not a database."
    assert run.stdout == ""


def test_the_bot_on_a_corrupt_database_exits_instead_of_hanging(tmp_path: Path) -> None:
    db = corrupt(tmp_path / "bad.db")
    run = subprocess.run(
        [sys.executable, "-m", "bot", "run"],
        capture_output=True, text=True, cwd=ROOT, timeout=180,
        env=env(DISCORD_TOKEN="not.a.token", REFEREE_DB=str(db), REFEREE_STATE_DIR=str(tmp_path)),
    )  # fmt: skip
    assert run.returncode == 2, run.stderr
    assert f"Cannot open the SQLite database {db}: file is not a database." in run.stderr
    assert "Traceback" not in run.stderr


OPEN = """
import asyncio, sys
from bot.storage import Repository, open_repository
async def main():
    repo = await open_repository(sys.argv[1])
    await repo.close()
asyncio.run(main())
"""


def test_processes_creating_a_fresh_database_at_once_migrate_it_once(tmp_path: Path) -> None:
    for attempt in range(3):
        db = tmp_path / f"fresh{attempt}.db"
        starts = [
            subprocess.Popen(
                [sys.executable, "-c", OPEN, str(db)],
                cwd=ROOT,
                env=env(),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(6)
        ]
        for process in starts:
            _, err = process.communicate(timeout=180)
            assert process.returncode == 0, err
        with sqlite3.connect(db) as check:
            latest = migrations()[-1][0]
            assert check.execute("SELECT version FROM schema_version").fetchall() == [(latest,)]


def test_several_processes_writing_one_channel_all_succeed(tmp_path: Path) -> None:
    db = tmp_path / "shared.db"
    console = [sys.executable, "-m", "bot", "console", "-", "--db", str(db), "--json"]
    setup = "/game new system:asl\n@alice /game seat side:Axis\n"
    first = subprocess.run(
        console, input=setup, capture_output=True, text=True, env=env(), cwd=ROOT, timeout=180
    )
    assert first.returncode == 0, first.stdout + first.stderr
    writers = [
        subprocess.Popen(
            console,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env(),
            cwd=ROOT,
        )
        for _ in range(6)
    ]
    lines = "".join(f'@alice /roll dice:DR reason:"writer {n}"\n' for n in range(10))
    for process in writers:
        assert process.stdin is not None
        process.stdin.write(lines)
        process.stdin.close()
    for process in writers:
        assert process.stdout is not None and process.stderr is not None
        out, err = process.stdout.read(), process.stderr.read()
        process.wait(timeout=120)
        answers = [json.loads(line) for line in out.splitlines()]
        assert len(answers) == 10 and all(a["ok"] for a in answers), (out, err)
        assert process.returncode == 0, err
    end = subprocess.run(
        [*console[:-1], "--out", str(tmp_path)], input="/game end\n/game export\n",
        capture_output=True, text=True, env=env(), cwd=ROOT, timeout=180,
    )  # fmt: skip
    assert end.returncode == 0, end.stdout
    (export,) = tmp_path.glob("game-*.jsonl")
    report = verify_file(export, InstalledSystems())
    assert report.ok, report.message
    assert report.counts is not None and report.counts["entries"] == 2 + 60 + 1
