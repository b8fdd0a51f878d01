"""/game times and the response times of /game league's zip through a real `referee console`
whose scripted clock moves on with `# wait:` lines, so every figure is exact."""

from __future__ import annotations

import csv
import io
import zipfile
from pathlib import Path

from tests.bot.test_console import referee

GAME = """\
/game new system:asl title:"Hill 621"
@ann /game seat side:Axis
@ben /game seat side:Allied
# wait: 2h
@ann /roll category:IFT
# wait: 5h 40min
@ben /roll category:MC
@ben /roll category:RS
# wait: 20min
@ann /asl level side:Axis level:2
# wait: 1d
@ben /game confirm entry:7
# wait: 3h
/roll dice:dr reason:"referee's check"
# wait: 1h
@ann /roll category:TH
# wait: 30min
/game seat side:Allied player:@cal
# wait: 45min
@cal /roll category:IFT
@ann /game times
/game result winner:Axis scenario:FT91 attacker:Axis tournament:CASLO
@org /game league tournament:CASLO
@ann /game times scope:server
@org /game times scope:server
# wait: soon
"""
ANN = "ann (Axis): 2 responses · median 2 h 10 min · longest 4 h 00 min · waiting in all 4 h 20 min"
BEN = (
    "ben (Allied): 2 responses · median 14 h 50 min · longest 1 d 0 h 00 min · "
    "waiting in all 1 d 5 h 40 min"
)


def test_each_seat_waits_from_the_other_sides_last_action_to_its_players_next(
    tmp_path: Path,
) -> None:
    run = referee(
        "console", "-", "--db", str(tmp_path / "t.db"), "--dice", "3,4,2,5,6,1,1,6,5,4",
        "--admin", "org", "--out", str(tmp_path), stdin=GAME,
    )  # fmt: skip
    out = run.stdout
    assert run.returncode == 1, out + run.stderr  # two lines are refused
    times = out[out.index("[SCRIPTED DICE] Hill 621: response times") :].splitlines()[:4]
    # ann: 20 min 1 s after ben's RS dr, then 4 h 00 min 2 s after ben's confirmation (the
    # referee's dr is nobody's); ben: 5 h 40 min 1 s, then a day and a second (the confirmation
    # is his action); cal sat down after ann's last action, so he has not responded yet
    assert times == [
        "[SCRIPTED DICE] Hill 621: response times",
        f"  {ANN}",
        f"  {BEN}",
        "  cal (Allied): 0 responses",
    ]
    assert "CASLO: 1 result and their games' exports" in out
    assert (
        "line 24: Only a server administrator or referee sees the times of every game; "
        "/game times alone shows this channel's."
    ) in out
    server = out[out.index("Response times of the active games in this server: 1") :]
    assert server.splitlines()[1].startswith("  Hill 621: <#")
    assert server.splitlines()[2:5] == [f"    {ANN}", f"    {BEN}", "    cal (Allied): 0 responses"]
    assert "line 26: Write a wait as # wait: 2h 30min (d, h, min, s)." in out
    with zipfile.ZipFile(tmp_path / "CASLO-results.zip") as archive:
        rows = list(csv.reader(io.StringIO(archive.read("response_times.csv").decode())))
    game = rows[1][3]
    assert rows == [
        ["tournament", "round", "scenario", "game", "side", "player", "responses",
         "median_seconds", "longest_seconds", "total_waiting_seconds", "missed_deadlines",
         "extensions"],
        ["CASLO", "1", "FT91", game, "Axis", "ann", "2", "7801", "14402", "15603", "0", "0"],
        ["CASLO", "1", "FT91", game, "Allied", "ben", "2", "53401", "86401", "106802", "0", "0"],
        ["CASLO", "1", "FT91", game, "Allied", "cal", "0", "", "", "0", "0", "0"],
    ]  # fmt: skip


def test_a_wait_line_outside_a_scripted_run_is_a_comment(tmp_path: Path) -> None:
    run = referee(
        "console", "-", "--db", str(tmp_path / "t.db"),
        stdin="/game new system:asl\n# wait: banana\n/game times\n",
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert ": response times\n  Seats: nobody has taken a seat" in run.stdout
