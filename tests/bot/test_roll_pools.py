"""Dice pools through a real console and both verifiers: each die numbered, derived from the
game's seed and checked after the seed is revealed; the pool's total recomputed by `referee
verify` (the standard-library checker checks its dice and says it leaves the total to it)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from tests.bot.test_console import ROOT, referee

LINES = """\
/game new system:asl
/game seat Axis
/roll 4d6k3 reason:Strength
/roll dice:"2d6 + 1d6"
/roll dice:1d6!
/roll dice:"3 2d20kl1"
/roll dice:"2d6 >= 7"
/game end
/game export
"""


def test_pools_roll_numbered_dice_that_both_verifiers_check(tmp_path: Path) -> None:
    run = referee(
        "console", "-", "--db", str(tmp_path / "p.db"), "--out", str(tmp_path), stdin=LINES
    )
    out = run.stdout
    assert re.search(r"#3 4d6k3 = \d+: 4d6kh3 \(.*~~\d~~.*\) for Strength", out), out
    assert "dice: #1 d6=" in out and "#4 d6=" in out and "(Strength d6)" in out
    assert re.search(r"2d6 \+ 1d6 = \d+: 2d6 \(\d, \d\) \+ 1d6 \(\d\)", out), out
    assert re.search(r"2d20kl1 = \d+: 2d20kl1 \(.*\); 2d20kl1 = ", out), out
    assert "line 7: Write dice as DR, dr or NdS±M (2d6+1), or a pool: 4d6k3 keeps the 3" in out
    assert run.returncode == 1, out + run.stderr  # line 7 alone was refused
    (export,) = tmp_path.glob("game-*.jsonl")
    verified = referee("verify", str(export))
    assert verified.returncode == 0, verified.stdout
    assert "  dice pools recomputed: 4\n" in verified.stdout, verified.stdout
    stdlib = subprocess.run(
        [sys.executable, str(ROOT / "bot" / "log" / "verify_dice.py"), str(export)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert stdlib.returncode == 0, stdlib.stdout
    assert "Not checked: the totals of 4 dice pools (their dice are checked" in stdlib.stdout
    checked = re.search(r"dice checked: (\d+)", stdlib.stdout)
    assert checked is not None and int(checked[1]) >= 4 + 3 + 1 + 6, stdlib.stdout


def test_a_pool_whose_total_was_changed_is_caught(tmp_path: Path) -> None:
    """A pool's entry with another total: `referee verify` recomputes it from the dice."""
    from bot.log.verify import _check_roll

    run = referee(
        "console", "-", "--db", str(tmp_path / "p.db"), "--out", str(tmp_path), "--dice", "6,5,4",
        stdin="/game new system:asl\n/roll 2d6k1\n/roll 1d6!\n/game export\n",
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert "2d6k1 = 6: 2d6kh1 (6, ~~5~~)" in run.stdout
    (export,) = tmp_path.glob("game-*.jsonl")
    rolls = [e for e in map(json.loads, export.read_text().splitlines()) if e.get("kind") == "roll"]
    assert [_check_roll(entry) for entry in rolls] == [None, None]
    forged = {**rolls[0], "total": 11, "text": "2d6k1 = 11: 2d6kh1 (6, 5)"}
    assert (
        _check_roll(forged) == "the dice give '2d6k1 = 6: 2d6kh1 (6, ~~5~~)', the log says "
        "'2d6k1 = 11: 2d6kh1 (6, 5)' (11)"
    )
