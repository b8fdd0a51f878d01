"""Verdicts that state what they proved, first and short, then the details one per line: an
active game says how many dice of unrevealed seeds prove nothing yet; a scripted game says so at
the top; "scripted dice" appear only when there are some; a file checked without key or anchor
says it proves only its own consistency; every verdict lists each epoch's commitment and the head.
Both verifiers: ``referee verify`` as a real subprocess, ``verify_dice.py`` as one too."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bot.dice.game_dice import FaceScript
from tests.bot.test_verify_forgery import ALICE, BOB, REF, ROOT, play, reseal, standalone

GAME = [
    (REF, '/game new system:asl sides:"Axis,Allied" title:"Verdicts"'),
    (ALICE, "/game seat side:Axis"),
    (BOB, "/game seat side:Allied"),
    (ALICE, '/roll dice:DR reason:"Morale Check"'),
]


def referee_verify(text: str, tmp: Path) -> subprocess.CompletedProcess[str]:
    path = tmp / f"export-{len(list(tmp.glob('*.jsonl')))}.jsonl"
    path.write_text(text, encoding="utf-8", newline="")
    return subprocess.run(
        [sys.executable, "-m", "bot", "verify", str(path)],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )  # fmt: skip


def verdicts(text: str, tmp: Path) -> tuple[list[str], list[str]]:
    """The lines of both verdicts (each must be OK: exit status 0)."""
    full, plain = referee_verify(text, tmp), standalone(text, tmp)
    assert full.returncode == 0, full.stdout + full.stderr
    assert plain.returncode == 0, plain.stdout + plain.stderr
    return full.stdout.splitlines(), plain.stdout.splitlines()


def test_an_ended_game_says_what_it_proved_first_then_one_detail_a_line(tmp_path: Path) -> None:
    text = asyncio.run(play(tmp_path / "g.db", [*GAME, (REF, "/game end")]))
    full, plain = verdicts(text, tmp_path)
    assert full[0] == (
        "OK: 5 entries consistent — chain, seeds, 2 dice and who declared what; "
        "every ruling replays."
    )
    assert plain[0] == "OK: 5 entries consistent — chain, seeds, 2 dice and who declared what."
    for lines in (full, plain):
        assert lines[1].startswith("It proves only its own consistency: no key and no anchor")
        assert not any("scripted" in line.lower() for line in lines)  # none here: not a word
        assert not any("Not proven yet" in line for line in lines)
        details = [line for line in lines if line.startswith("  ")]
        assert details[0].startswith("  head: #5 ") and len(details[0]) == len("  head: #5 ") + 64
        assert details[1].startswith("  epoch 1 commitment: ") and details[1].endswith(
            " (revealed)"
        )
        assert "  dice checked: 2" in details and "  entries: 5" in details
        assert all(len(line) <= 120 for line in lines), lines  # no wall of text
    assert "Not checked: the rulings and the sides each action concerns" in "\n".join(plain)
    unchecked = [line for line in full if line.startswith("Not checked")]
    assert len(unchecked) == 1 and unchecked[0].startswith(
        "Not checked: the signature (no --key given); the key it names, "
    ), unchecked


def test_an_active_game_says_how_many_dice_prove_nothing_yet(tmp_path: Path) -> None:
    text = asyncio.run(play(tmp_path / "g.db", [*GAME, (REF, "/game rotate"), *GAME[3:]]))
    for lines in verdicts(text, tmp_path):
        assert lines[0].startswith("OK so far: 6 entries consistent — chain, seeds, 2 dice"), lines
        assert (
            "Not proven yet: 2 dice of epoch 2's seed and what 1 entry made of them, until "
            "/game rotate or /game end." in lines
        ), lines
        assert any(
            line.startswith("  epoch 1 commitment: ") and "(revealed)" in line for line in lines
        )
        assert any(
            line.startswith("  epoch 2 commitment: ") and line.endswith("(not revealed yet)")
            for line in lines
        ), lines
        assert "  dice of unrevealed seeds: 2" in lines


def test_one_die_and_one_entry_are_counted_in_english(tmp_path: Path) -> None:
    """'1 die', '1 entry': both verifiers said '1 dice' and 'what 1 entries made of them'."""
    one_die = [*GAME[:3], (ALICE, '/roll dice:dr reason:"Sniper"')]
    text = asyncio.run(play(tmp_path / "g.db", [*one_die, (REF, "/game rotate"), *one_die[3:]]))
    for lines in verdicts(text, tmp_path):
        assert lines[0].startswith("OK so far: 6 entries consistent — chain, seeds, 1 die "), lines
        assert (
            "Not proven yet: 1 die of epoch 2's seed and what 1 entry made of it, until "
            "/game rotate or /game end." in lines
        ), lines


def test_a_scripted_game_says_so_at_the_top(tmp_path: Path) -> None:
    script = FaceScript([3, 4])
    text = asyncio.run(play(tmp_path / "g.db", [*GAME, (REF, "/game end")], script=script))
    for lines in verdicts(text, tmp_path):
        assert lines[0] == (
            "SCRIPTED GAME: its dice were typed in (console --dice), not rolled: "
            "they prove nothing."
        )
        assert lines[1].startswith("OK: 5 entries consistent — chain, seeds, 0 dice")
        assert "  scripted dice: 2" in lines


def test_an_honest_game_relabelled_as_scripted_says_so_at_the_top(tmp_path: Path) -> None:
    """A forger marks the game and its dice scripted (then any die can be rewritten): the
    verdict is no longer an OK like any other."""
    text = asyncio.run(play(tmp_path / "g.db", [*GAME, (REF, "/game end")]))

    def relabel(entries: list[dict[str, Any]]) -> None:
        entries[0]["scripted"] = True
        for entry in entries:
            for die in entry["dice"]:
                die["scripted"] = True

    for lines in verdicts(reseal(text, relabel), tmp_path):
        assert lines[0].startswith("SCRIPTED GAME"), lines


@pytest.mark.parametrize("verifier", ["referee verify", "verify_dice.py"])
def test_a_mismatch_is_one_line(tmp_path: Path, verifier: str) -> None:
    text = asyncio.run(play(tmp_path / "g.db", [*GAME, (REF, "/game end")]))
    broken = text.replace('"kind":"roll"', '"kind":"rol"', 1)
    run = (
        referee_verify(broken, tmp_path)
        if verifier == "referee verify"
        else standalone(broken, tmp_path)
    )
    assert run.returncode == 1 and len(run.stdout.splitlines()) == 1, run.stdout
