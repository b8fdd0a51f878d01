"""A whole Player Turn (RPh → PFPh → MPh → DFPh → AFPh → RtPh → CCPh → the next RPh) played
through a real ``referee console`` with scripted dice: illegal second shots, broken firers, a
stale Fire Lane and a second repair are refused in one sentence citing the rule, legal ones
accepted, and the exported game is verified by ``referee verify``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = Path(__file__).resolve().parent / "player_turn.txt"
DICE = "1,1,1,2,6,6,3,4,2,5,5,5,2,3,4,1"

REFUSED = {  # line of player_turn.txt: the refusal, word for word
    20: "A is marked Prep Fire and may not fire in the Prep Fire Phase. (A3)",
    21: "Only the ATTACKER (Axis) fires in the Prep Fire Phase of Axis. (A3)",
    22: "The next phase is the Movement Phase of Axis; only a referee may jump to another, "
    "with correction:true. (A3)",
    25: "HMG laid a Fire Lane this MPh and may not fire again until the DFPh, except at a unit "
    "entering its Location (tpbf:true). (A9.22)",
    28: "HMG has no Fire Lane. (A9.22)",
    33: "S is marked Final Fire and may not fire in the Defensive Fire Phase. (A8.4)",
    34: "Only the DEFENDER (Allied) fires in the Defensive Fire Phase of Axis. (A3)",
    36: "B is broken and cannot fire MMG. (A.7)",
    37: "A is marked Prep Fire and may not fire in the Advancing Fire Phase. (A3)",
    42: "A Repair dr was already made for LMG this Player Turn; it stays as it is until the "
    "next one. (A9.72)",
    44: "HMG is ok, not malfunctioned. (A9.72)",
    45: "MMG is ok, not malfunctioned. (A9.72)",
}


def referee(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DISCORD_TOKEN", "REFEREE_DB")}
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        capture_output=True, text=True, env=env, cwd=cwd, timeout=300,
    )  # fmt: skip


def test_a_whole_player_turn_through_the_console(tmp_path: Path) -> None:
    run = referee(
        "console", str(SCRIPT), "--db", str(tmp_path / "turn.db"), "--json",
        "--dice", DICE, "--out", str(tmp_path), "--as", "alice",
    )  # fmt: skip
    assert run.returncode == 1, run.stderr  # some lines were refused, as they should be
    results = [json.loads(line) for line in run.stdout.splitlines()]
    refused = {r["line"]: r["error"] for r in results if not r["ok"]}
    assert refused == REFUSED
    replies = {r["line"]: r["reply"] for r in results if r["ok"]}

    def facts(line: int) -> dict[str, str]:
        return {s: v for s, v in replies[line]["facts"]}

    def rules(line: int) -> list[str]:
        return [step["rule"] for step in replies[line]["steps"]]

    # the first Player Turn concerns both sides: Alice, a referee who plays, proposes it, Bob
    # confirms (line 15)
    assert replies[14]["title"] == (
        "alice proposes /asl phase side:Axis; the Allied player confirms with /game confirm "
        "entry:12"
    )
    assert replies[15]["title"].endswith("/asl phase") and replies[15]["actor"] == "bob"
    # PFPh: the LMG keeps its ROF twice (colored 1), then breaks on 12 (A9.7) and the squad
    # manning it, undirected, Cowers on the doubles (A7.9)
    assert facts(17) == facts(18) == {"LMG": "fine", "ROF (LMG)": "kept"}
    assert facts(19)["LMG"] == "malfunctioned" and facts(19)["Cowering"] == "yes"
    # MPh: the Fire Lane, its Residual attack, the pin that ends it, the TPBF shot that is
    # Subsequent First Fire and so Sustained Fire (B11 − 2 = B9: DR 10 breaks it)
    assert "A9.22" in rules(24) and facts(26) == {"HMG": "fine", "Fire Lane": "stays"}
    assert rules(27) == ["A10", "A9.223"]
    assert rules(29)[0] == "A9.3" and facts(29)["HMG"] == "malfunctioned"
    # DFPh: the DEFENDER's squad fires once; its First/Final Fire markers go as the AFPh begins
    assert rules(32) == ["A7"] and rules(35) == ["A3", "A3"]
    # the next Player Turn: Pin counters go (A7.8); one Repair dr per weapon (A9.72)
    assert rules(40) == ["A3", "A7.8"]
    assert facts(41) == {"LMG": "no change"} and facts(43) == {"HMG": "repaired"}
    assert replies[46]["title"].endswith("/asl phase")
    exported = replies[47]["file"]  # with --json the export comes inline
    export = tmp_path / exported["filename"]
    export.write_text(exported["content"], encoding="utf-8")
    verified = referee("verify", str(export))
    assert verified.returncode == 0, verified.stdout + verified.stderr
