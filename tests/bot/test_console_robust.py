"""The console answers every line, whatever it holds: a bug is ``internal error (...)`` for that
line and the run goes on; numbers beyond range, options of the wrong shape and bytes that are not
UTF-8 are one sentence each; ``/help`` honours ``--json``. Real ``referee console`` processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUGGY = ("--plugin", "tests.bot.buggysystem")


def console(
    tmp_path: Path, *args: str, stdin: bytes | None = None
) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if k not in ("DISCORD_TOKEN", "REFEREE_DB")}
    return subprocess.run(
        [sys.executable, "-m", "bot", "console", *args, "--db", str(tmp_path / "c.db")],
        input=stdin, capture_output=True, env=env, cwd=ROOT, timeout=120,
    )  # fmt: skip


def test_every_line_gets_one_answer_even_a_bug(tmp_path: Path) -> None:
    lines = [
        "/game new system:toy",
        "/toy ammo side:Axis level:5",
        "/game void entry:9223372036854775808 reason:overflow",
        "/game void entry:-1 reason:negative",
        "/roll dice:DR",
        "/game status",
    ]
    run = console(tmp_path, "-", "--json", *BUGGY, stdin="\n".join(lines).encode())
    answers = [json.loads(line) for line in run.stdout.decode().splitlines()]
    assert [a["line"] for a in answers] == [1, 2, 3, 4, 5, 6], run.stderr
    assert [a["ok"] for a in answers] == [True, False, False, False, True, True]
    assert answers[1]["error"].startswith("internal error (ZeroDivisionError")
    assert answers[1]["error_type"] == "InternalError"
    assert answers[2]["error"] == "entry must be 9007199254740992 or less, not 9223372036854775808."
    assert b"Traceback" not in run.stderr
    assert run.returncode == 1


def test_options_of_the_wrong_shape_are_one_sentence(tmp_path: Path) -> None:
    lines = "/game new system:asl options:'{\"nationalities\": 5}'\n/game status\n"
    run = console(tmp_path, "-", "--json", stdin=lines.encode())
    answers = [json.loads(line) for line in run.stdout.decode().splitlines()]
    assert [a["ok"] for a in answers] == [False, False]
    assert answers[0]["error"].startswith("Those options do not fit")
    assert b"Traceback" not in run.stderr


def test_a_line_that_is_not_utf8_is_refused_alone_in_a_file_and_on_stdin(tmp_path: Path) -> None:
    data = (
        b"/game new system:toy\n"
        b'/roll dice:DR reason:"caf\xe9"\n'  # Latin-1, not UTF-8
        b'/roll dice:DR reason:"a\xe2\x80\xa8b"\n'  # U+2028 in UTF-8
    )
    path = tmp_path / "game.txt"
    path.write_bytes(data)
    for args, stdin in (((str(path),), None), (("-",), data)):
        run = console(
            tmp_path / "..",
            *args,
            "--json",
            "--channel",
            f"c{len(args)}{stdin is None}",
            *BUGGY,
            stdin=stdin,
        )
        answers = [json.loads(line) for line in run.stdout.decode().splitlines()]
        assert [a["ok"] for a in answers] == [True, False, True], run.stdout
        assert answers[1]["error"] == "This line is not UTF-8 text; nothing was run."
        # a U+2028 in a reason stays in its line
        assert answers[2]["reply"]["title"].endswith("for a\u2028b")
        assert run.returncode == 1


def test_help_honours_json(tmp_path: Path) -> None:
    run = console(tmp_path, "-", "--json", stdin=b"/help\n/help group:roll\n")
    answers = [json.loads(line) for line in run.stdout.decode().splitlines()]
    assert len(answers) == 2 and all(a["ok"] for a in answers)
    assert [c["command"] for c in answers[1]["help"]] == ["/roll"]
    assert {"/game new", "/asl fire", "/ocs attack", "/cwb fire"} <= {
        c["command"] for c in answers[0]["help"]
    }
