"""A refused scenario lists its errors one a line, each at the scenario's own line (issue 24):
the refusal said "line 4: Nothing was set up…: line 15: … line 16: …" in one sentence, "line"
meaning the console's line and the scenario's at once."""

from __future__ import annotations

from pathlib import Path

from rules_core.scenario import SetupRefused
from tests.bot.test_console import referee

SCENARIO = """\
# two squads and a level

unit add name:A side:Axis kind:squad
unit add name:A side:Axis kind:squad
level side:Allied level:2; unit add name:B side:Nobody kind:squad
"""


def test_each_error_on_its_own_line_at_the_scenarios_own_line(tmp_path: Path) -> None:
    (tmp_path / "hill.txt").write_text(SCENARIO)
    lines = (
        '/game new system:asl title:"Hill 621"\n'
        f"/game setup file:{tmp_path / 'hill.txt'}\n"
        '/game setup text:"unit add name:C side:Axis kind:squad; level side:Axis level:9"\n'
    )
    run = referee("console", "-", "--db", str(tmp_path / "g.db"), stdin=lines)
    out = run.stdout.splitlines()
    start = out.index("line 2: Nothing was set up; fix these and send the whole scenario again:")
    assert out[start + 1 : start + 5] == [
        "- hill.txt line 4: 'A' already exists; use update:true to change it.",
        "- hill.txt line 5, command 1: Ammunition Shortage applies only to Axis sides. (FB16.1)",
        "- hill.txt line 5, command 2: There is no side called 'Nobody'; the sides are Axis, "
        "Allied.",
        "line 3: Nothing was set up; fix these and send the whole scenario again:",
    ]
    assert out[start + 5].startswith("- command 2: ") and len(out) == start + 6


def test_a_refusal_fits_one_discord_message_whatever_its_errors() -> None:
    errors = [(f"hill.txt line {n}", "x" * 400) for n in range(1, 15)]
    message = SetupRefused(errors).user_message
    assert len(message) <= 2000
    lines = message.splitlines()
    assert lines[-1] == f"- … and {14 - (len(lines) - 2)} more errors."
    assert all(line.startswith("- hill.txt line ") for line in lines[1:-1])
