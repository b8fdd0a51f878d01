"""Replies count in English (issue 24): "1 step", "2 points", "1 Blocked hex" — they said
"1 step(s)", "hex(es)"; and a CWB set-up says each side's parameters once (it printed a side's
whole Parameter Data again for every params line that named it)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.bot.test_console import referee

GAME = """\
/game new system:ocs sides:"Axis,Soviet" title:"Counts"
/ocs dump add side:Axis hex:0905 amount:"6 SP"
/ocs unit add name:"1 Bn" side:Axis steps:1 hex:0905
/ocs unit add name:"2 Bn" side:Axis steps:2 hex:0905
/ocs unit add name:"Trucks" side:Axis kind:transport steps:3 ma:12 hex:0905
/ocs unit change unit:"2 Bn" steps:1 reason:"a loss"
/ocs unit list
/game end
/game new system:cwb title:"Shiloh" sides:"Union,Confederate"
/game setup text:"params ammo-loss:4; params side:Confederate artillery-ammo:low; {MAP}"
""".replace("{MAP}", "map columns:9 rows:9 blocked:1/1 sources:0/4")


def test_counts_agree_with_their_nouns_and_a_setup_says_each_value_once(tmp_path: Path) -> None:
    run = referee("console", "-", "--db", str(tmp_path / "g.db"), stdin=GAME)
    out = run.stdout
    assert run.returncode == 0, out
    assert not re.search(r"\w\((s|es)\)", out), out
    assert "added 1 Bn (Axis combat, 1 step, 1 RE, AR 3)" in out
    assert "added Trucks (Axis transport, 3 points, " in out
    assert "2 Bn loses 1 step: 1 left" in out and "→ 2 Bn: 1 step" in out
    assert "Trucks (Axis Transport Points) in 0905: 3 points, MA 12" in out
    setup = out[out.index("/game setup") :].splitlines()[1:4]
    assert setup == [
        "  CWB Supply: Union, Confederate: ammo-loss chance 4%",
        "  CWB Supply: Confederate: artillery Ammo Level Low On Ammo",
        "  CWB Isolated Units: Map 9×9 (odd-q), 1 Blocked hex, 1 Supply Source hex",
    ]
