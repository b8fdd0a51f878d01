"""Beacon settings the program cannot use end ``referee run`` and ``referee console`` with one
sentence and exit status 2, before anything is opened (real subprocesses)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run(tmp_path: Path, argv: list[str], **extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "REFEREE_"))}
    env.update(DISCORD_TOKEN="not-used", REFEREE_DB=str(tmp_path / "referee.db"), **extra)
    return subprocess.run(
        [sys.executable, "-m", "bot", *argv], cwd=ROOT, env=env, input="", capture_output=True,
        text=True, timeout=120,
    )  # fmt: skip


@pytest.mark.parametrize("argv", [["run"], ["console"]], ids=["run", "console"])
def test_a_missing_chain_file_is_one_sentence_and_exit_2(tmp_path: Path, argv: list[str]) -> None:
    missing = tmp_path / "no-such-chain.json"
    done = run(tmp_path, argv, REFEREE_BEACON_CHAIN=str(missing))
    assert done.returncode == 2, done.stdout + done.stderr
    sentence = (
        f"The beacon chain file {missing} (REFEREE_BEACON_CHAIN) does not exist; name an "
        "existing chain file, or quicknet."
    )
    assert sentence in done.stderr, done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert not (tmp_path / "referee.db").exists()  # nothing was opened


def test_a_chain_file_that_is_not_a_chain_is_one_sentence(tmp_path: Path) -> None:
    bad = tmp_path / "chain.json"
    bad.write_text(json.dumps({"name": "x"}))
    done = run(tmp_path, ["console"], REFEREE_BEACON_CHAIN=str(bad))
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"The beacon chain file {bad} (REFEREE_BEACON_CHAIN) is not a drand chain's" in (
        done.stderr
    )
    assert "Traceback" not in done.stdout + done.stderr
