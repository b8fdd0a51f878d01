"""The console as a real `referee console` subprocess; exports checked by `referee verify`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GAMES = Path(__file__).resolve().parent / "games"
PLUGIN = ("--plugin", "tests.bot.toysystem")

TOY_GAME = """\
# comments and blank lines are skipped

/game new system:toy sides:"Axis,Allied" title:"Console test"
/game seat side:Axis
@bob /game seat side:Allied
/toy shoot side:Axis target:8 weapons:"HMG A, LMG B"
@bob /toy shoot side:Axis
/toy shoot side:Axis preview:true
/toy tally
/roll dice:DR reason:"Morale Check"
@bob /toy shoot side:Allied careful:true
/toy shoot side:Axis target:13
/game void entry:4 reason:misclick
@bob /game confirm entry:7
/game end
/game export
"""


def referee(
    *args: str, stdin: str | None = None, cwd: Path = ROOT
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DISCORD_TOKEN", "REFEREE_DB")}
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        input=stdin, capture_output=True, text=True, env=env, cwd=cwd, timeout=120,
    )  # fmt: skip


def test_a_scripted_toy_game_runs_says_scripted_on_every_result_and_verifies(
    tmp_path: Path,
) -> None:
    script = tmp_path / "game.txt"
    script.write_text(TOY_GAME, encoding="utf-8")
    db = tmp_path / "console.db"
    run = referee(
        "console", str(script), "--db", str(db), "--as", "alice", "--out", str(tmp_path),
        "--dice", "3,4,2,2,5,5,6", *PLUGIN,
    )  # fmt: skip
    out = run.stdout
    assert run.returncode == 1, out + run.stderr  # two lines were refused
    results = [line for line in out.splitlines() if line and not line.startswith((" ", "line "))]
    assert len(results) == 12
    assert all(line.startswith("[SCRIPTED DICE]") for line in results), results
    assert "line 7: You do not hold the Axis seat; only its player or a referee may act" in out
    assert "line 12: target must be 12 or less, not 13." in out
    assert "To Hit DR 7 (3,4): colored 3, white 4 (Original DR 7)" in out
    assert "T4: doubles: Bonus dr 6" in out
    assert "Morale Check DR 4 (2,2)" in out
    # alice referees but holds Axis: her void of an Axis entry waits for bob's confirmation
    assert "#7 alice proposes /game void entry:4 reason:misclick; the Allied player" in out
    assert "#8 Entry 4 is void: misclick — bob" in out
    (export,) = tmp_path.glob("game-*.jsonl")
    verified = referee("verify", str(export), *PLUGIN)
    assert verified.returncode == 0, verified.stdout
    assert "scripted dice: 7" in verified.stdout and "actions replayed: 2" in verified.stdout


def test_json_mode_prints_one_object_per_result(tmp_path: Path) -> None:
    lines = (
        "/game new system:toy\n@bob /game seat side:Axis\n/toy shoot side:Allied\n"
        "/roll dice:2d6+1\n"
    )
    run = referee(
        "console", "-", "--db", str(tmp_path / "j.db"), "--json", "--dice", "1,2,3,4", *PLUGIN,
        stdin=lines,
    )  # fmt: skip
    objects = [json.loads(line) for line in run.stdout.splitlines()]
    assert [o["ok"] for o in objects] == [True, True, True, True]
    assert all(o["reply"]["scripted"] for o in objects)
    assert objects[2]["reply"]["side"] == "Allied"  # the creator, holding no seat: any side
    assert objects[3]["reply"]["fields"] == [["Total", "8"]]
    assert [d["seq"] for d in objects[3]["reply"]["dice"]] == [3, 4]
    assert run.returncode == 0, run.stderr


def test_errors_are_one_sentence_and_the_console_goes_on(tmp_path: Path) -> None:
    lines = (
        "/game status\n/game new system:chess\n/nothing here\n/game new system:toy extra\n"
        "/game new system:toy\n@carol /roll dice:DR\n/roll dice:7x\n/game status\n"
    )
    run = referee("console", "--db", str(tmp_path / "e.db"), "--json", *PLUGIN, stdin=lines)
    objects = [json.loads(line) for line in run.stdout.splitlines()]
    assert [o["ok"] for o in objects] == [False, False, False, False, True, False, False, True]
    errors = [o["error"] for o in objects if not o["ok"]]
    assert errors[0] == "There is no game in this channel; start one with /game new."
    assert errors[1].startswith("Unknown game system 'chess'")
    assert errors[2].startswith("There is no command /nothing here.")
    assert errors[4] == "Take a seat with /game seat before acting in this game."
    assert errors[5].startswith("Write dice as DR, dr or NdS±M")
    assert all(e.count(". ") <= 1 for e in errors)
    assert run.returncode == 1


def test_a_clean_file_exits_zero_and_channels_are_separate(tmp_path: Path) -> None:
    db = str(tmp_path / "c.db")
    first = referee("console", "--db", db, "--channel", "one", stdin="/game new system:asl\n")
    second = referee("console", "--db", db, "--channel", "two", stdin="/game new system:asl\n")
    again = referee("console", "--db", db, "--channel", "one", stdin="/game new system:asl\n")
    assert first.returncode == 0 and second.returncode == 0, first.stdout + second.stdout
    assert again.returncode == 1 and "already has an active game" in again.stdout


def test_unused_scripted_dice_fail_the_run(tmp_path: Path) -> None:
    run = referee(
        "console", "--db", str(tmp_path / "u.db"), "--dice", "3,4,5", *PLUGIN,
        stdin="/game new system:toy\n/roll dice:DR\n",
    )  # fmt: skip
    assert run.returncode == 1
    assert "scripted dice left unused: 5" in run.stderr


def installed(name: str) -> bool:
    return (ROOT / "rules_core" / name / "__init__.py").exists()


@pytest.mark.parametrize("system", ["asl", "ocs", "cwb"])
def test_a_whole_scripted_game_of_each_system_runs_and_its_export_verifies(
    system: str, tmp_path: Path
) -> None:
    if not installed(system):
        pytest.skip(f"rules_core.{system} is not in the tree yet")
    script = GAMES / f"{system}.txt"
    run = referee(
        "console", str(script), "--db", str(tmp_path / "g.db"), "--as", "alice",
        "--out", str(tmp_path),
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert "[SCRIPTED DICE]" not in run.stdout
    (export,) = tmp_path.glob("game-*.jsonl")
    verified = referee("verify", str(export))
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert (
        "dice of unrevealed seeds" not in verified.stdout
        and "Not proven yet" not in verified.stdout
    )
    standalone = subprocess.run(
        [sys.executable, "-I", str(ROOT / "bot" / "log" / "verify_dice.py"), str(export)],
        capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    assert standalone.returncode == 0, standalone.stdout
    # tampering with any ruling is caught by the full verifier
    lines = export.read_text(encoding="utf-8").splitlines()
    forged = [line.replace('"facts":[[', '"facts":[["forged","yes"],[', 1) for line in lines]
    assert forged != lines
    bad = tmp_path / "forged.jsonl"
    bad.write_text("\n".join(forged) + "\n", encoding="utf-8")
    refused = referee("verify", str(bad))
    assert refused.returncode == 1 and refused.stdout.startswith("entry ")


def test_a_second_scripted_run_on_the_same_database_goes_on_from_the_games_last_entry(
    tmp_path: Path,
) -> None:
    """Regression: each scripted run's clock began at 2026-01-01 00:00:00, so a second run on
    the same database wrote the game's entries back in time, and its export failed
    verification ("times backwards")."""
    db = str(tmp_path / "g.db")
    first = referee(
        "console", "-", "--db", db, "--dice", "3,4",
        stdin='/game new system:asl title:"Hill 621"\n/game seat Axis\n# wait: 2d\n/roll DR\n',
    )  # fmt: skip
    assert first.returncode == 0, first.stdout + first.stderr
    second = referee(
        "console", "-", "--db", db, "--dice", "5,6", "--out", str(tmp_path),
        stdin="/roll DR\n/game log last:2\n/game export\n",
    )  # fmt: skip
    assert second.returncode == 0, second.stdout + second.stderr
    (export,) = tmp_path.glob("game-*.jsonl")
    times = [json.loads(line)["at"] for line in export.read_text().splitlines()[1:]]
    assert times == sorted(times) and times[-1] > "2026-01-03", times
    verified = referee("verify", str(export))
    assert verified.returncode == 0, verified.stdout + verified.stderr
