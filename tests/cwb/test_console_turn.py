"""A whole Civil War Battles turn for both sides through a real ``referee console`` process, and
the exported log checked by a real ``referee verify`` process.

The turn is the one of docs/guide/CWB.md ("A whole turn with wagons and isolation"): the Union's
turn with the Isolation test traced on the map (one regiment surrounded), the start of its
Movement Phase (one unit resupplied from a wagon, the surrounded one out of reach), fire by both
sides with the ammo-loss d100, the Melee defence of the Isolated unit, then the Confederate turn
and its resupply (the wagon too weak for the whole regiment). The game is ended (its seed
revealed) and exported; ``referee verify`` replays every ruling and, with real dice, checks every
die against the revealed seed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SETUP = """\
/game new system:cwb title:"Gettysburg, July 2" options:"cwb_isolation=true"
@alice /game seat side:Union
@bob /game seat side:Confederate
/cwb params ammo-loss:30
/cwb map columns:10 rows:10 sources:"0/0"
@alice /cwb unit add name:"1st Minnesota" side:Union men:262 ammo:low hex:"2,2"
@alice /cwb unit add name:"20th Maine" side:Union men:386 ammo:out hex:"7,7"
@alice /cwb wagon add name:"Union Trains" side:Union strength:40 hex:"7,5"
@bob /cwb unit add name:"26th NC" side:Confederate men:800 hex:"3,2"
@bob /cwb unit add name:"11th Miss" side:Confederate men:300 hex:"2,1"
@bob /cwb unit add name:Pegram side:Confederate men:90 type:artillery hex:"1,2"
@bob /cwb wagon add name:"Rebel Trains" side:Confederate strength:9 hex:"5,0"
"""

TURN = """\
@alice /cwb turn side:Union
@alice /cwb supply side:Union
@alice /cwb fire unit:"20th Maine" mode:offensive
@bob /cwb fire unit:"26th NC" mode:defensive
@bob /cwb melee unit:"1st Minnesota"
@alice /cwb fire unit:"1st Minnesota" mode:defensive
@bob /cwb turn side:Confederate
@bob /cwb supply side:Confederate
/cwb unit list
/game end
/game export
"""


def referee(*args: str, stdin: str = "", cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DISCORD_TOKEN", "REFEREE_DB")}
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        input=stdin, capture_output=True, text=True, env=env, cwd=ROOT, timeout=120,
    )  # fmt: skip


def play(tmp_path: Path, *dice: str) -> tuple[str, Path]:
    """Play the turn in a fresh database; the console's output and the exported file."""
    run = referee(
        "console", "-", "--db", str(tmp_path / "cwb.db"), "--out", str(tmp_path), *dice,
        stdin=SETUP + TURN, cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stderr == ""
    exports = list(tmp_path.glob("game-*.jsonl"))
    assert len(exports) == 1
    return run.stdout, exports[0]


def test_a_scripted_turn_plays_through_the_console_and_verifies(tmp_path: Path) -> None:
    out, export = play(tmp_path, "--dice=87,12,5")
    for line in (
        "  → turn: Union; 1st Minnesota: Isolated; 20th Maine: not Isolated",
        "  CWB Supply: 1st Minnesota: no friendly wagon within 5 hexes",
        "  CWB Supply: Path traced on the map: 2 hexes, 7,7 → 7,6 → 7,5",
        "  → 1st Minnesota: not resupplied; 20th Maine: resupplied; wagon Union Trains: strength 1",
        "  CWB Supply: Ammo loss d100 87 > 30 — ammunition stays Normal",
        "  → ammo loss: yes; 26th NC: Low On Ammo",
        "  → 1st Minnesota melee defence: 131/2",
        "  → ammo loss: yes; 1st Minnesota: Out Of Ammo",
        "  → turn: Confederate; 26th NC: not Isolated; 11th Miss: not Isolated; "
        "Pegram: not Isolated",
        "  CWB Supply: 26th NC: no wagon within 5 hexes holds the 80 strength its 800 men need",
    ):
        assert line in out.splitlines(), line
    header, *lines = export.read_text(encoding="utf-8").splitlines()
    assert json.loads(header)["system"] == "cwb"
    entries = [json.loads(line) for line in lines]
    assert entries[-1]["kind"] == "game.end"
    assert len(entries) == 20  # new, 2 seats, 9 set-up, 7 turn (melee, list: not logged), end
    verify = referee("verify", str(export), cwd=tmp_path)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert verify.stdout.startswith("SCRIPTED GAME")
    assert "OK: 20 entries consistent" in verify.stdout
    assert "scripted dice: 3" in verify.stdout and "actions replayed: 16" in verify.stdout


def test_a_turn_with_real_dice_verifies_every_die_against_the_revealed_seed(
    tmp_path: Path,
) -> None:
    _, export = play(tmp_path)
    verify = referee("verify", str(export), cwd=tmp_path)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert verify.stdout.startswith("OK: 20 entries consistent — chain, seeds, 3 dice")
    assert "Not proven yet" not in verify.stdout and "scripted" not in verify.stdout
    # a ruling changed after the fact is caught
    lines = export.read_text(encoding="utf-8").splitlines()
    index = next(i for i, line in enumerate(lines) if '"strength 1"' in line)
    lines[index] = lines[index].replace('"strength 1"', '"strength 21"')
    forged = tmp_path / "forged.jsonl"
    forged.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert referee("verify", str(forged), cwd=tmp_path).returncode == 1
