"""The dice protocol and its scripted implementation."""

from __future__ import annotations

import pytest

from rules_core.dice import Dice, DiceScriptError, Roll, ScriptedDice


def test_DR_returns_colored_then_white_and_records_the_label() -> None:
    dice = ScriptedDice([2, 5])
    assert dice.DR("IFT DR") == (2, 5)
    (roll,) = dice.rolls
    assert roll == Roll(label="IFT DR", kind="DR", sides=6, faces=(2, 5))
    assert roll.total == 7
    assert roll.colored == 2
    assert roll.render() == "IFT DR 7 (2,5)"


def test_dr_and_d100_are_recorded_in_order() -> None:
    dice = ScriptedDice([3, 42])
    assert dice.dr("Random Selection dr (LMG)") == 3
    assert dice.d(100, "Ammo loss d100") == 42
    assert [r.render() for r in dice.rolls] == ["Random Selection dr (LMG) 3", "Ammo loss d100 42"]
    assert dice.last.kind == "d"
    assert dice.last.sides == 100


def test_script_running_out_fails_loudly() -> None:
    dice = ScriptedDice([6])
    with pytest.raises(DiceScriptError, match="ran out"):
        dice.DR("IFT DR")


def test_script_not_used_up_fails_loudly() -> None:
    dice = ScriptedDice([1, 2, 3])
    dice.dr("dr")
    with pytest.raises(DiceScriptError, match="2 face"):
        dice.assert_used_up()


def test_context_manager_checks_the_script_is_used_up() -> None:
    with pytest.raises(DiceScriptError, match="not used up"), ScriptedDice([1, 2]) as dice:
        dice.dr("dr")


def test_context_manager_does_not_mask_the_original_error() -> None:
    with pytest.raises(ZeroDivisionError), ScriptedDice([1, 2]):
        _ = 1 / 0


@pytest.mark.parametrize("face", [0, 7, -1])
def test_a_face_a_d6_cannot_show_is_refused(face: int) -> None:
    with pytest.raises(DiceScriptError, match="not a face"):
        ScriptedDice([face]).dr("dr")


def test_d100_accepts_faces_up_to_100_only() -> None:
    assert ScriptedDice([100]).d(100, "d100") == 100
    with pytest.raises(DiceScriptError):
        ScriptedDice([101]).d(100, "d100")


def test_a_die_needs_two_sides() -> None:
    with pytest.raises(ValueError, match="2 sides"):
        ScriptedDice([1]).d(1, "coin?")


def test_scripted_dice_satisfies_the_protocol() -> None:
    assert isinstance(ScriptedDice([]), Dice)


def test_last_without_a_roll_is_an_error() -> None:
    with pytest.raises(DiceScriptError):
        _ = ScriptedDice([]).last


def test_rolls_is_a_snapshot_not_a_live_list() -> None:
    dice = ScriptedDice([1, 2])
    before = dice.rolls
    dice.dr("a")
    assert before == ()
    assert len(dice.rolls) == 1
