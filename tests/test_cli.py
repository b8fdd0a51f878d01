"""The ``referee`` command, run as a real subprocess."""

from __future__ import annotations

import os
import subprocess
import sys


def run_referee(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k != "DISCORD_TOKEN"}
    base.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        capture_output=True,
        text=True,
        env=base,
        timeout=180,
        cwd=os.path.dirname(os.path.dirname(__file__)),
    )


def test_run_without_a_token_explains_how_to_get_one_and_the_console() -> None:
    result = run_referee("run", env={"DISCORD_TOKEN": ""})
    assert result.returncode == 2
    assert "DISCORD_TOKEN" in result.stderr
    assert "discord.com/developers/applications" in result.stderr
    assert "referee console" in result.stderr


def test_help_lists_every_subcommand() -> None:
    result = run_referee("--help")
    assert result.returncode == 0
    for name in ("run", "console", "verify"):
        assert name in result.stdout
