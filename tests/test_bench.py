"""The benchmark's own game stays legal: a rules change that refuses its fire cycle fails here,
not only on the day someone runs ``make bench``.

The cycle (a referee's new Axis Player Turn, the Prep Fire Phase, units and MGs put back, the
Fire Group's fire, a /roll) runs through a real ``referee console`` subprocess, and every line
must be logged.
"""

from __future__ import annotations

from pathlib import Path

from bench.run import ASL_RESET, ASL_SETUP, console_game, console_line


def test_console_line_is_what_a_player_types() -> None:
    assert console_line((["asl", "phase"], {})) == "/asl phase"
    assert (
        console_line((["asl", "fire"], {"weapons": "HMG, LMG", "correction": True}))
        == '/asl fire weapons:"HMG, LMG" correction:true'
    )


def test_the_benchmark_fire_cycle_is_legal_over_many_player_turns(tmp_path: Path) -> None:
    cycles = 40  # enough Player Turns that MGs malfunction, lose ROF and squads break
    actions = len(ASL_SETUP) + cycles * (len(ASL_RESET) + 2)
    result = console_game(tmp_path, actions)
    assert result["actions"] == actions
