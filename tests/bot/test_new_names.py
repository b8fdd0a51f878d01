"""A new thing's name can be typed back (found by trying it as a hostile player).

A unit named ``"L, M"`` was accepted and then could never be fired (``weapons:"L, M"`` is two
names); a 150-character unit name was accepted and never offered by autocomplete (Discord's
choices hold 100 characters); a NUL or a line separator went into the log. Every command that
puts a named thing on the table — typed in the console, in Discord, or in a scenario — now
refuses such a name in one sentence, and nothing is logged.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bot.commands.registry import MAX_NAME, build_action, build_registry
from rules_core.errors import InvalidInput
from rules_core.system import get_system

ROOT = Path(__file__).resolve().parents[2]

BAD = {
    "comma": ("L, M", "may not hold a comma"),
    "long": ("x" * (MAX_NAME + 1), f"at most {MAX_NAME} characters"),
    "nul": ("A\x00B", "control character"),
    "line separator": ("A\u2028B", "line break"),
    "tab": ("A\tB", "control character"),
}
ADDS = {  # each system's commands that name a new thing, with their other required options
    "asl.unit.add": {"side": "Axis", "kind": "squad"},
    "asl.weapon.add": {"side": "Axis", "kind": "sw_mg"},
    "ocs.unit.add": {"side": "Axis", "steps": "2"},
    "ocs.extender": {"how": "form", "units": "T1"},
    "cwb.unit.add": {"side": "Union", "men": "300"},
    "cwb.wagon.add": {"side": "Union", "strength": "10"},
}


@pytest.mark.parametrize("path", sorted(ADDS))
@pytest.mark.parametrize("case", sorted(BAD))
def test_a_new_name_that_cannot_be_typed_back_is_refused(path: str, case: str) -> None:
    system = path.split(".")[0]
    registry = build_registry({system: get_system(system)})
    spec = registry.commands[path]
    name, sentence = BAD[case]
    with pytest.raises(InvalidInput, match=sentence):
        build_action(spec, {**ADDS[path], "name": name})
    # a plain name of the longest length passes
    action, _ = build_action(spec, {**ADDS[path], "name": "N" * MAX_NAME})
    assert action.model_dump()["name"] == "N" * MAX_NAME


def test_a_name_already_on_the_table_is_looked_up_as_given() -> None:
    """Only new names are checked: a command that looks a thing up takes the name as it is."""
    registry = build_registry({"asl": get_system("asl")})
    action, _ = build_action(registry.commands["asl.weapon.dm"], {"name": "x" * (MAX_NAME + 20)})
    assert action.model_dump()["name"] == "x" * (MAX_NAME + 20)


def test_the_console_and_a_scenario_refuse_them_and_log_nothing(tmp_path: Path) -> None:
    scenario = tmp_path / "forces.txt"
    scenario.write_text('unit add name:"A\u2028B" side:Axis kind:squad\n', encoding="utf-8")
    script = tmp_path / "game.txt"
    script.write_text(
        "\n".join(
            [
                '/game new system:asl title:"Hill 621"',
                '/asl unit add name:"A, B" side:Axis kind:squad',
                '/asl unit add name:"A\u2028B" side:Axis kind:squad',
                f"/asl weapon add name:{'x' * 150} side:Axis kind:sw_mg",
                f"/game setup file:{scenario}",
                "/game status",
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "bot",
            "console",
            str(script),
            "--db",
            str(tmp_path / "g.db"),
            "--json",
            "--dice",
            "",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    lines = [json.loads(line) for line in run.stdout.splitlines()]
    refused = [line for line in lines if not line["ok"]]
    assert [line["line"] for line in refused] == [2, 3, 4, 5]
    assert "may not hold a comma" in refused[0]["error"]
    assert "line break" in refused[1]["error"]
    assert f"at most {MAX_NAME} characters" in refused[2]["error"]
    assert (
        "line 1: A name may not hold a control character or a line break" in (refused[3]["error"])
    )
    status = dict(lines[-1]["reply"]["fields"])
    assert status["Log head"].startswith("#1 ")
