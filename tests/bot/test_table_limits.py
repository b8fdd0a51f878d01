"""Limits found by playing last session, each through a real `referee console`: the player a
turn notice names in the Defensive Fire Phase, the console's "you" in sentences, the reason of a
roll in the log."""

from __future__ import annotations

from pathlib import Path

from tests.bot.test_console import referee


def console(tmp_path: Path, lines: str, *extra: str) -> str:
    run = referee("console", "-", "--db", str(tmp_path / "t.db"), *extra, stdin=lines)
    return run.stdout + run.stderr


def notices(out: str) -> list[str]:
    return [line.strip() for line in out.splitlines() if line.strip().startswith("notice:")]


def test_the_defensive_fire_phase_names_the_defenders_player(tmp_path: Path) -> None:
    """Regression: in the DFPh the notice named the ATTACKER's player (and none at all when the
    ATTACKER changed the phase), though only the DEFENDER fires in it (A3)."""
    out = console(
        tmp_path,
        """\
/game new system:asl
@alice /game seat side:Axis
@bob /game seat side:Allied
/asl phase side:Axis phase:pfph
@alice /asl phase
@alice /asl phase
/asl phase
""",
        "--dice=",
    )
    assert notices(out) == [
        "notice: @alice, it is the Axis player's turn: Prep Fire Phase of Axis (Player Turn 1)",
        "notice: @bob, the Allied player acts next: Defensive Fire Phase of Axis (Player Turn 1)",
        "notice: @alice, it is the Axis player's turn: Advancing Fire Phase of Axis "
        "(Player Turn 1)",
    ], out


def test_the_console_user_you_is_spoken_to_in_the_second_person(tmp_path: Path) -> None:
    """Regression: "you holds the Axis seat", "you takes the Axis seat"."""
    out = console(
        tmp_path,
        """\
/game new system:asl
/game seat side:Axis
@bob /game seat side:Axis
@bob /game seat side:Allied
""",
        "--dice=",
    )
    assert "#2 you take the Axis seat — you" in out
    assert "line 3: The Axis seat is held by you; ask a referee to reseat it." in out
    assert "#3 bob takes the Allied seat — bob" in out
    assert "you takes" not in out and "you holds" not in out


def test_the_log_shows_a_rolls_category_and_reason(tmp_path: Path) -> None:
    """Regression: /game log lines of rolls left out what the roll was for."""
    out = console(
        tmp_path,
        """\
/game new system:asl
/game seat side:Axis
/roll category:MC reason:"squad B"
/roll dice:dr reason:"which squad"
/roll dice:DR
/game log last:3
""",
        "--dice=3,4,5,1,1",
    )
    assert "  #3: you: /roll MC DR 7 (3,4) for squad B [#1=3 #2=4]" in out, out
    assert "  #4: you: /roll dr 5 for which squad [#3=5]" in out, out
    assert "  #5: you: /roll DR 2 (1,1) [#4=1 #5=1]" in out, out


def test_stats_of_a_scripted_run_show_its_dice_apart_and_say_they_are_not_tested(
    tmp_path: Path,
) -> None:
    """Regression: /stats ignored scripted dice without a word, so a scripted run (and so every
    example in the docs) showed no dice after rolling."""
    out = console(
        tmp_path,
        """\
/game new system:asl
/game seat side:Axis
@bob /game seat side:Allied
/roll category:IFT count:2
@bob /roll category:RS
/stats
/stats category:IFT
/stats player:@bob
""",
        "--dice=6,6,1,2,4",
    )
    mark = "Scripted dice (chosen, not random: never tested)"
    assert out[out.index("[SCRIPTED DICE] Dice of everyone in this channel") :].splitlines()[
        1:4
    ] == [
        f"  {mark}: d6: 5 dice — 1:1 2:1 3:0 4:1 5:0 6:2",
        "    IFT: 2 DR, mean 7.50",
        "    RS: 1 dr, mean 4.00",
    ]
    assert f"  {mark}: d6: 4 dice — 1:1 2:1 3:0 4:0 5:0 6:2\n" in out  # category:IFT
    assert out.endswith(
        "[SCRIPTED DICE] Dice of bob in this channel\n"
        f"  {mark}: d6: 1 die — 1:0 2:0 3:0 4:1 5:0 6:0\n"
        "    RS: 1 dr, mean 4.00\n"
    ), out
