"""The console's /help as in Discord, and reproducible scripted runs (real `referee console`)."""

from __future__ import annotations

from pathlib import Path

from tests.bot.test_console import referee

LINES = """\
/game new system:asl title:"Hill 621"
/game seat side:Axis
/roll dice:DR reason:"Sniper check"
/game status
/game end
"""


def test_help_takes_a_group_as_in_discord(tmp_path: Path) -> None:
    run = referee(
        "console", "-", "--db", str(tmp_path / "h.db"),
        stdin="/help group:asl\n/help group:ROLL\n/help asl\n/help group:chess\n/help\n",
    )  # fmt: skip
    out = run.stdout
    asl, _, rest = out.partition("roll:\n")
    assert asl.startswith("asl:\n") and "/asl fire" in asl and "/game new" not in asl
    assert rest.startswith("  /roll [dice] [reason] [category] [count] [preview]")
    assert "line 3: Write /help group:asl to list one group's commands." in out
    assert "line 4: There is no command group called 'chess'; try /help alone." in out
    everything = out.split("line 4:")[1]
    assert "game:" in everything and "asl:" in everything and "ocs:" in everything
    assert run.returncode == 1


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
