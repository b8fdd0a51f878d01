"""`/game status` reads at a glance (issue 24): hashes shortened where a person reads them (the
export keeps them whole), and no field that says nothing (an all-zero "Players' seeds")."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.bot.test_console import referee

LINES = """\
/game new system:asl title:"Hill 621"
/game status
@bob /game seat side:Allied
@bob /game seed phrase:"Bob's own entropy"
/roll dice:DR
/game void entry:4 reason:misclick
/game status
/game export
"""


def _status(out: str, number: int) -> dict[str, str]:
    block = out.split("Hill 621 (active)\n")[number].splitlines()
    end = next(n for n, line in enumerate(block) if not line.startswith("  "))
    fields = [line[2:] for line in block[:end] if not line.startswith("    ")]
    return dict(line.split(": ", 1) for line in fields)


def test_status_shortens_hashes_and_leaves_out_empty_fields(tmp_path: Path) -> None:
    """Regression: 64-digit hashes and "Players' seeds: 0000…0000", "Voided entries: none"."""
    run = referee("console", "-", "--db", str(tmp_path / "g.db"), "--out", str(tmp_path),
                  stdin=LINES)  # fmt: skip
    assert run.returncode == 0, run.stdout
    fresh, later = _status(run.stdout, 1), _status(run.stdout, 2)
    assert re.fullmatch(r"#1 [0-9a-f]{12}…", fresh["Log head"]), fresh
    assert re.fullmatch(r"epoch 1: [0-9a-f]{12}…", fresh["Dice commitment"]), fresh
    for empty in ("Players' seeds", "Voided entries", "Voids by"):
        assert empty not in fresh, fresh
    assert fresh["Referees"] == "you" and fresh["Seats"] == "Axis: (empty), Allied: (empty)"
    assert re.fullmatch(r"[0-9a-f]{12}…", later["Players' seeds"]), later
    assert later["Voided entries"] == "4" and later["Voids by"] == "you 1"
    # the export has them whole, and they begin as the status shows them
    (export,) = tmp_path.glob("game-*.jsonl")
    entries = [json.loads(line) for line in export.read_text().splitlines()]
    head = next(e for e in entries if e.get("seq") == 5)
    assert len(head["hash"]) == 64 and later["Log head"] == f"#5 {head['hash'][:12]}…"
    assert any(len(e.get("commitment", "")) == 64 for e in entries)


def test_seats_keep_the_games_order_after_a_restart(tmp_path: Path) -> None:
    """Regression: a game read back from the database listed its seats alphabetically
    ("Allied: ben, Axis: ann"), unlike the board, `/game new` and the same status before."""
    db = str(tmp_path / "g.db")
    seated = '/game new system:asl title:"Hill 621"\n@ann /game seat Axis\n@ben /game seat Allied\n'
    assert referee("console", "-", "--db", db, stdin=seated).returncode == 0
    run = referee("console", "-", "--db", db, stdin="/game status\n/game log last:1\n")
    assert run.returncode == 0, run.stdout
    assert _status(run.stdout, 1)["Seats"] == "Axis: ann, Allied: ben"


def test_one_player_s_sides_keep_the_games_order_after_a_restart(tmp_path: Path) -> None:
    """Regression: read back from the database, the sides one person holds came in the order
    storage sorted the seats' keys — `/game list` gave ann's Allied line before her Axis line and
    a referee holding both seats was told "you play Allied and Axis" — not the game's order."""
    db = str(tmp_path / "g.db")
    seated = (
        '@ann /game new system:asl title:"Hill 621"\n@ann /game seat Axis\n@ann /game seat Allied\n'
    )
    assert referee("console", "-", "--db", db, stdin=seated).returncode == 0
    asked = "@ann /game list\n@ann /game rule entry:1 decision:grant reason:x\n"
    run = referee("console", "-", "--db", db, stdin=asked)
    listed = run.stdout.split("Active games in this server: 1\n", 1)[1].splitlines()
    assert listed[:2] == [
        "  ann: <#162558192159878> Hill 621 (asl, Axis)",
        "    <#162558192159878> Hill 621 (asl, Allied)",
    ], run.stdout
    assert "you play Axis and Allied" in run.stdout, run.stdout
