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


ONE_OF_EACH = """\
/game new system:asl sides:"Axis,Allied" title:"One"
/game export
/roll dice:dr
/stats
/game end
/game new system:cwb title:"Shiloh" sides:"Union,Confederate"
/cwb unit add name:"Scout" side:Union type:infantry men:1 hex:1,1
"""


def test_one_die_one_entry_one_man(tmp_path: Path) -> None:
    """'1 die', '1 log entry', '1 man': /stats said 'd6: 1 dice', /game export '1 log entries
    exported', a CWB unit of one man '(Union, infantry, 1 men)'."""
    run = referee(
        "console", "-", "--db", str(tmp_path / "g.db"), "--out", str(tmp_path), "--dice", "4",
        stdin=ONE_OF_EACH,
    )  # fmt: skip
    out = run.stdout
    assert run.returncode == 0, out + run.stderr
    assert "One: 1 log entry exported" in out
    assert "d6: 1 die — 1:0 2:0 3:0 4:1" in out
    assert "Scout (Union, infantry, 1 man)" in out


def test_one_entry_left_off_a_log_page_is_said_in_the_singular(tmp_path: Path) -> None:
    """A log page holds 20 entries: asked for 21, the note said '1 of the 21 entries asked for
    are older than this page'."""
    game = '/game new system:asl sides:"Axis,Allied" title:"Log"\n' + "/roll dice:dr\n" * 21
    run = referee(
        "console", "-", "--db", str(tmp_path / "g.db"), "--dice", ",".join(["3"] * 21),
        stdin=game + "/game log last:21\n",
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 of the 21 entries asked for is older than this page: /game log last:1 before:3" in (
        run.stdout
    ), run.stdout[-1500:]


def test_no_help_text_hedges_a_plural() -> None:
    """Every command's and option's help (what /help and Discord show) says what it means:
    '/ocs attack dump:' said 'Dump hex(es)', '/ocs special dump:' 'the dump(s) that pay'."""
    from bot.commands.help import GROUP_HELP
    from bot.commands.registry import build_registry
    from bot.service.systems import InstalledSystems

    texts = [
        (f"/{' '.join(spec.words)}{f' {option.name}:' if option else ''}", text)
        for spec in build_registry(InstalledSystems()).commands.values()
        for option, text in [(None, spec.help), *((o, o.help) for o in spec.options)]
    ] + [(f"/{group}", text) for group, text in GROUP_HELP.items()]
    hedged = [(where, text) for where, text in texts if re.search(r"\w\((s|es)\)", text)]
    assert not hedged, hedged
