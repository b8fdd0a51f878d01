"""A proposal nobody seated may confirm says who may (found by trying it as a player-referee).

A game's creator is its first referee; seated on both sides (she took both empty seats), her void
of her own roll becomes a proposal that only a referee without a seat may confirm — and the
bot said "the  player confirms", naming no one. Run through a real ``referee console``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """\
@ann /game new system:asl title:"T"
@ann /game seat side:Axis
@ann /game seat side:Allied
@ann /roll category:IFT
@ann /game void entry:4 reason:"a bad roll"
@ben /game decline entry:5
@ben /game confirm entry:5
@org /game confirm entry:5
"""


def test_a_proposal_only_a_referee_without_a_seat_may_confirm_says_so(tmp_path: Path) -> None:
    script = tmp_path / "game.txt"
    script.write_text(SCRIPT, encoding="utf-8")
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "bot",
            "console",
            str(script),
            "--db",
            str(tmp_path / "g.db"),
            "--admin",
            "org",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    out = run.stdout
    assert (
        '#5 ann proposes /game void entry:4 reason:"a bad roll"; a referee without a seat '
        "confirms with /game confirm entry:5 — ann"
    ) in out, out
    assert "the  player" not in out
    assert (
        "line 6: Only a referee without a seat may decline this proposal; its proposer may "
        "withdraw it."
    ) in out
    assert "line 7: Only a referee without a seat may confirm this proposal." in out
    assert "#6 Entry 4 is void: a bad roll — org" in out


def test_a_proposed_set_up_that_no_longer_applies_tells_the_confirmer_what_to_do(
    tmp_path: Path,
) -> None:
    """The other side added a unit of the same name meanwhile: confirming refuses the set-up,
    and says so to the confirmer — not "fix these and send the whole scenario again", which
    was the proposer's business."""
    script = tmp_path / "game.txt"
    script.write_text(
        """\
@ref /game new system:asl title:"Hill 621"
@ref /game seat side:Axis player:@al
@ref /game seat side:Allied player:@bob
@al /game setup text:"unit add name:A side:Axis kind:squad; unit add name:R side:Allied kind:squad"
@bob /asl unit add name:r side:Allied kind:squad
@bob /game confirm entry:4
@bob /game decline entry:4
""",
        encoding="utf-8",
    )
    run = subprocess.run(
        [sys.executable, "-m", "bot", "console", str(script), "--db", str(tmp_path / "g.db")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert (
        "line 6: Proposal 4 no longer sets up as proposed; decline it (/game decline entry:4) and "
        "let its proposer send it again:\n- command 2: 'R' already exists; use update:true to "
        "change it.\n"
    ) in run.stdout, run.stdout
    assert "#6 Proposal 4 declined — bob" in run.stdout


def _console(tmp_path: Path, script_text: str) -> str:
    script = tmp_path / "game.txt"
    script.write_text(script_text, encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "bot", "console", str(script), "--db", str(tmp_path / "g.db")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    return run.stdout


def test_a_void_of_what_is_not_an_action_or_a_roll_names_it_in_the_tables_words(
    tmp_path: Path,
) -> None:
    """Regression: the refusal named the log's internal kind ("Entry 4 is a game.propose
    entry")."""
    out = _console(
        tmp_path,
        """\
@ref /game new system:asl title:"Hill 621"
@ann /game seat side:Axis
@ben /game seat side:Allied
@ann /game result winner:Axis scenario:FT91 attacker:Axis
@ref /game void entry:4 reason:"not yet"
@ref /game void entry:2 reason:"wrong seat"
@ref /game void entry:1 reason:"start again"
""",
    )
    assert (
        "line 5: Entry 4 is a proposal (#4), not an action or a roll: /game decline entry:4 "
        "refuses or withdraws it.\n"
    ) in out, out
    seat = "line 6: Entry 2 is a seat taken, not an action or a roll; only those can be voided.\n"
    assert seat in out
    assert "line 7: Entry 1 is the game's start, not an action or a roll;" in out
    assert "game." not in "".join(line for line in out.splitlines() if line.startswith("line"))


def test_the_same_proposal_twice_is_refused_naming_the_one_waiting(tmp_path: Path) -> None:
    """Regression: the same proposal could be made again while the first waited, leaving two
    identical proposals for the other side to answer."""
    out = _console(
        tmp_path,
        """\
@ref /game new system:asl title:"Hill 621"
@ann /game seat side:Axis
@ben /game seat side:Allied
@ann /asl level side:Axis level:2
@ann /asl level side:Axis level:2
@ben /asl level side:Axis level:2
@ann /asl level side:Axis level:3
""",
    )
    assert (
        "line 5: Proposal #4 already proposes this; the Allied player confirms it (/game confirm "
        "entry:4) or you withdraw it (/game decline entry:4).\n"
    ) in out, out
    assert (
        "line 6: Proposal #4 of ann already proposes this: /game confirm entry:4 agrees to it.\n"
    ) in out, out
    assert "#5 ann proposes /asl level side:Axis level:3" in out  # another: a new proposal
