"""A whole OCS game turn for both sides through the real ``referee console``, exported and
checked by ``referee verify`` (issue 14: "a whole OCS game turn … plays through").

The turn is the console session of docs/guide/OCS.md, so the guide and this test cannot drift:
tests/docs checks the guide's output line by line; this test adds the export and verification.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.docs.examples import ROOT, Session, sessions

GUIDE = ROOT / "docs" / "guide" / "OCS.md"


def the_turn() -> Session:
    [turn] = [s for s in sessions(GUIDE) if any("phase:supply turn:1" in c for c in s.commands)]
    return turn


def console(commands: list[str], dice: str, workdir: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DISCORD_TOKEN", "REFEREE_DB")}
    return subprocess.run(
        [
            *(sys.executable, "-m", "bot", "console", "-", "--db", str(workdir / "turn.db")),
            *(f"--dice={dice}", "--out", str(workdir)),
        ],
        input="\n".join(commands) + "\n",
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
        check=False,
    )


def test_a_whole_turn_for_both_sides_exports_a_log_that_verifies(tmp_path: Path) -> None:
    turn = the_turn()
    run = console([*turn.commands, "@alice /game export"], turn.dice, tmp_path)
    assert run.stderr == ""
    assert run.returncode == 1  # a file with refused lines ends with status 1 (they are shown)
    [export] = list(tmp_path.glob("game-*.jsonl"))
    verify = subprocess.run(
        [sys.executable, "-m", "bot", "verify", str(export)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert verify.returncode == 0, verify.stdout + verify.stderr
    # a console game with typed dice says so first, then its verdict
    assert verify.stdout.startswith("SCRIPTED GAME:"), verify.stdout
    assert "\nOK:" in verify.stdout, verify.stdout
    entries = [json.loads(line) for line in export.read_text().splitlines()[1:]]
    actions = [e["action"]["action"] for e in entries if e.get("kind") == "action"]
    # the phases of both Player Turns, in order, and the next turn's Supply Phase
    phases = [
        (e["action"]["side"], e["action"]["phase"])
        for e in entries
        if e.get("kind") == "action" and e["action"]["action"] == "ocs.phase"
    ]
    assert phases == [
        ("Axis", "supply"),
        ("Axis", "movement"),
        ("Axis", "combat"),
        ("Axis", "cleanup"),
        ("Soviet", "supply"),
        ("Soviet", "movement"),
        ("Soviet", "combat"),
        ("Soviet", "cleanup"),
        ("Axis", "supply"),
    ]
    for needed in (
        "ocs.recover",
        "ocs.trace",
        "ocs.attrition",
        "ocs.fuel",
        "ocs.unit.move",
        "ocs.attack",
        "ocs.defend",
        "ocs.unit.change",
        "ocs.blow",
        "ocs.unit.remove",
    ):
        assert needed in actions, needed


def test_the_turn_shows_each_refusal_with_its_rule_and_changes_nothing_for_it() -> None:
    turn = the_turn()
    refusals = [line for line in turn.expected if line.startswith("line ")]
    assert [line.rsplit("(", 1)[-1] for line in refusals] == [
        "OCS 12.10e A)",  # eating before recovery
        "OCS 12.8a)",  # leaving the Supply Phase before Attrition
        "OCS 12.5a)",  # moving a tracked unit before fuel
        "OCS 12.3b)",  # a throw beyond the HQ's range
    ]
    numbered = [line for line in turn.expected if line.startswith("[SCRIPTED DICE] #")]
    logged = [
        c
        for c in turn.commands
        if c.startswith("@") and "/ocs unit list" not in c and "preview:true" not in c
    ]
    # every command but the refused ones, the preview and the listing made one log entry
    assert len(numbered) == len(logged) - len(refusals)
