"""The console's /help as in Discord, and reproducible scripted runs (real `referee console`)."""

from __future__ import annotations

import itertools
from pathlib import Path

from tests.bot.test_console import referee

LINES = """\
/game new system:asl title:"Hill 621"
/game seat side:Axis
/roll dice:DR reason:"Sniper check"
/game status
/game end
"""


def test_help_takes_a_group_or_a_command_as_in_discord(tmp_path: Path) -> None:
    run = referee(
        "console", "-", "--db", str(tmp_path / "h.db"),
        stdin="/help group:asl\n/help asl\n/help group:chess\n/help\n/help gmae\n",
    )  # fmt: skip
    out = run.stdout
    parts = out.split("asl:\n")
    group, again, rest = parts[1], parts[2].split("line 3:")[0], out
    assert group == again  # /help asl is /help group:asl
    assert "  /asl fire [" in group and "/game new" not in group
    assert "  /asl repair weapon:… [2 options] — A Repair dr" in group
    assert "line 3: There is no command or group called 'chess'. Try /help alone." in rest
    everything = rest.split("line 3:")[1]
    assert "/game — The channel's game" in everything and "/cwb — Civil War Battles" in everything
    assert "    params · fire · resupply" in everything and "    unit: add · set" in everything
    assert '/help command:"asl fire" — one command: every option' in everything
    assert "line 5: There is no command or group called 'gmae'. Did you mean /help game?" in out
    assert run.returncode == 1


def test_a_group_alone_lists_its_commands_in_lines_read_at_a_glance(tmp_path: Path) -> None:
    """Regression: a bare `/game` listed its 31 commands on one line of 600 characters."""
    run = referee("console", "-", "--db", str(tmp_path / "g.db"), stdin="/game\n/asl\n/help\n")
    out = run.stdout
    game = out.split("line 1: There is no command /game. Try one of:\n")[1].split("line 2:")[0]
    lines = game.splitlines()
    assert lines[0] == "  play: new · seat · status · log · board · notices · seed · end", out
    assert "  deadline: set · defaults · pause · resume · extend · claim" in lines
    assert lines[-1] == "/help game says what each does."
    assert len(lines) == 7 and all(len(line) <= 110 for line in lines), lines
    named = [
        (head.strip() + " " if head.strip() == "deadline" else "") + word
        for line in lines[:-1]
        for head, _, words in [line.partition(": ")]
        for word in words.split(" · ")
    ]
    help_game = referee("console", "-", "--db", str(tmp_path / "g.db"), stdin="/help game\n")
    every = [
        " ".join(itertools.takewhile(lambda w: ":" not in w and "[" not in w, line.split()[1:]))
        for line in (row.split(" — ")[0] for row in help_game.stdout.splitlines()[1:])
    ]
    assert sorted(named) == sorted(every) and len(every) == 31, (named, every)
    assert "line 2: There is no command /asl. Try one of:\n  level · san · fire" in out
    assert "  weapon: add · list · remove · destroy · dm · kia\n/help asl says" in out
    overview = out.split("/game — The channel's game")[1].split("/notify")[0]
    assert overview.splitlines()[1:] == ["  " + line for line in lines[:-1]]  # /help's groups


def test_a_mistyped_group_or_help_suggests_the_word_meant(tmp_path: Path) -> None:
    """Issue 24's typo suggestions for a line of one word: '/gmae' and '/hlep' said only
    '/help lists the commands' (a whole command, '/gmae status', was already suggested)."""
    run = referee("console", "-", "--db", str(tmp_path / "t.db"), stdin="/gmae\n/hlep\n/xyzzy\n")
    out = run.stdout
    assert (
        "line 1: There is no command /gmae. Did you mean /game? /help game lists its commands."
        in out
    ), out
    assert "line 2: There is no command /hlep. Did you mean /help?" in out
    assert "line 3: There is no command /xyzzy. /help lists the commands." in out


def test_help_of_one_command_gives_each_option_and_an_example(tmp_path: Path) -> None:
    """Regression: the console showed option names only (/help group:asl), never their help."""
    run = referee(
        "console", "-", "--db", str(tmp_path / "h.db"),
        stdin='/help asl fire\n/help command:"/game log"\n/help roll\n',
    )  # fmt: skip
    lines = run.stdout.splitlines()
    assert lines[0].startswith("/asl fire — An IFT attack")
    assert any(line.startswith("  drm ") and "whole number -" in line for line in lines)
    assert '  example: /asl fire weapons:"HMG, LMG" drm:1' in lines
    assert "  last     whole number 1–50 · default 10 — How many entries to show" in lines
    roll = lines[lines.index("/roll — A logged, verifiable roll: DR (colored die first), dr, or "
                             "NdS±M; by category, in batches."):]  # fmt: skip
    assert any(line.startswith("  count      whole number 1–20 · default 1") for line in roll)
    assert roll[-1] == '  example: /roll dice:4d6k3 reason:"ability score"'
    assert run.returncode == 0, run.stdout


def test_a_scripted_run_prints_the_same_output_on_a_fresh_database(tmp_path: Path) -> None:
    outputs = []
    for name in ("a", "b"):
        run = referee(
            "console", "-", "--db", str(tmp_path / f"{name}.db"), "--dice", "3,4", stdin=LINES
        )
        assert run.returncode == 0, run.stdout + run.stderr
        outputs.append(run.stdout)
    assert outputs[0] == outputs[1]
    assert "Log head: #3 " in outputs[0] and "Seed of epoch 1: " in outputs[0]


def test_a_second_scripted_run_on_the_same_database_reuses_no_interaction(tmp_path: Path) -> None:
    db = str(tmp_path / "same.db")
    first = referee("console", "-", "--db", db, "--dice", "3,4", stdin=LINES)
    second = referee("console", "-", "--db", db, "--dice", "3,4", stdin=LINES)
    assert first.returncode == 0 and second.returncode == 0, second.stdout + second.stderr
    assert "already done" not in second.stdout
    assert "#1 New asl game" in second.stdout  # a new game, not an answer from the old log
    assert first.stdout.splitlines()[1] != second.stdout.splitlines()[1]  # another commitment


def test_an_unscripted_run_keeps_secret_random_seeds(tmp_path: Path) -> None:
    commitments = {
        referee("console", "-", "--db", str(tmp_path / f"{n}.db"), stdin=LINES).stdout.splitlines()[
            1
        ]
        for n in range(2)
    }
    assert len(commitments) == 2


def test_turn_notices_name_the_player_whose_turn_it_is_and_can_be_turned_off(
    tmp_path: Path,
) -> None:
    lines = """\
/game new system:asl
@alice /game seat side:Axis
@bob /game seat side:Allied
@alice /asl phase side:Axis phase:rph
@bob /game confirm entry:4
/asl phase
@carol /game notices on:false
@bob /game notices on:false
/asl phase
/game status
/game export
"""
    run = referee(
        "console", "-", "--db", str(tmp_path / "n.db"), "--out", str(tmp_path), stdin=lines
    )  # fmt: skip
    out = run.stdout
    notices = [line.strip() for line in out.splitlines() if line.strip().startswith("notice:")]
    assert notices == [
        "notice: @alice, it is the Axis player's turn: Rally Phase of Axis (Player Turn 1)",
        "notice: @alice, it is the Axis player's turn: Prep Fire Phase of Axis (Player Turn 1)",
    ]  # the confirmed proposal and the referee's phase change; none once turned off
    assert "line 7: Take a seat with /game seat before acting in this game." in out
    assert "Turn notices: off" in out
    (export,) = tmp_path.glob("game-*.jsonl")
    verified = referee("verify", str(export))
    assert verified.returncode == 0, verified.stdout + verified.stderr
