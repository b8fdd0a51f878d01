"""Dice pools (``4d6k3``, ``1d6!``, ``2d6 + 1d6``) read by ``d20`` and rolled with our dice: every
die is one of ours, labelled and counted; refusals say the grammar."""

from __future__ import annotations

import pytest

from rules_core.dice import ScriptedDice
from rules_core.errors import InvalidInput
from rules_core.odds import exact_odds
from rules_core.pools import GRAMMAR, MAX_POOL_DICE
from rules_core.roll import parse_expression, roll_expression


@pytest.mark.parametrize(
    ("typed", "faces", "total", "text"),
    [
        ("4d6k3", [5, 1, 6, 3], 14, "4d6k3 = 14: 4d6kh3 (5, ~~1~~, 6, 3)"),
        ("4d6kh3", [5, 1, 6, 3], 14, "4d6kh3 = 14: 4d6kh3 (5, ~~1~~, 6, 3)"),
        ("2d20kl1", [17, 4], 4, "2d20kl1 = 4: 2d20kl1 (~~17~~, 4)"),
        ("1d6!", [6, 6, 2], 14, "1d6! = 14: 1d6e6 (6!, 6!, 2)"),
        ("1d6!", [3], 3, "1d6! = 3: 1d6e6 (3)"),
        ("2d6 + 1d6", [3, 4, 6], 13, "2d6 + 1d6 = 13: 2d6 (3, 4) + 1d6 (6)"),
        ("2d6+1d8-1", [3, 4, 8], 14, "2d6+1d8-1 = 14: 2d6 (3, 4) + 1d8 (8) - 1"),
        ("3d6rr1", [1, 5, 1, 2, 6], 13, "3d6rr1 = 13: 3d6rr1 (~~1~~, 2, 5, ~~1~~, 6)"),
        (
            "4d6rr1",
            [1, 1, 1, 1, 2, 3, 4, 5],
            14,
            "4d6rr1 = 14: 4d6rr1 (~~1~~, 2, ~~1~~, 3, ~~1~~, 4, ~~1~~, 5)",
        ),
        ("(1d6+1)*2", [4], 10, "(1d6+1)*2 = 10: (1d6 (4) + 1) * 2"),
    ],
)
def test_a_pool_is_rolled_with_our_dice(
    typed: str, faces: list[int], total: int, text: str
) -> None:
    dice = ScriptedDice(faces)
    result = roll_expression(parse_expression(typed), dice, reason="Sniper")
    dice.assert_used_up()  # every face read, none drawn elsewhere
    assert (result.total, result.render()) == (total, text)
    assert [r.faces for r in result.rolls] == [(face,) for face in faces]
    assert {r.label for r in result.rolls} <= {"Sniper d6", "Sniper d8", "Sniper d20"}
    # replayed from the same faces it gives the same (as referee verify replays it)
    again = roll_expression(parse_expression(result.expression.text()), ScriptedDice(faces))
    assert (again.total, again.render()) == (total, text)


def test_a_batch_of_pools_rolls_each_on_its_own() -> None:
    dice = ScriptedDice([6, 2, 2])
    result = roll_expression(parse_expression("2 1d6!"), dice)
    assert result.totals == (8, 2)
    assert result.render() == "1d6! = 8: 1d6e6 (6!, 2); 1d6! = 2: 1d6e6 (2)"
    assert [len(single.rolls) for single in result.singles] == [2, 1]
    assert result.total == 10


def test_a_pool_has_exact_odds_like_any_roll() -> None:
    expression = parse_expression("2d6k1")
    odds = exact_odds(lambda dice: roll_expression(expression, dice).total)
    assert odds[6] * 36 == 11 and odds[1] * 36 == 1


@pytest.mark.parametrize(
    ("typed", "why"),
    [
        ("2d6 >= 7", ">= compares"),
        ("1d6/2", "/ divides"),
        ("1d6 [fire]", "no [notes] in a roll"),
        ("2d6+1d1", "a die has 2 to 1000 sides"),
        ("101d6k1", "roll 1 to 100 dice at a time"),
        ("60d6+60d6", "roll at most 100 dice at a time"),
        ("1d6+1d6+5000", "numbers are whole, within ±1000"),
        ("7", "it rolls no dice"),
        ("fireball", ""),
    ],
)
def test_a_refusal_says_the_grammar(typed: str, why: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        parse_expression(typed)
    assert refused.value.user_message.startswith(GRAMMAR)
    assert why in refused.value.user_message


def test_rerolls_that_never_end_are_refused_once_they_pass_the_limit() -> None:
    dice = ScriptedDice([1] * MAX_POOL_DICE)
    with pytest.raises(InvalidInput, match="would roll more than 100 dice"):
        roll_expression(parse_expression("1d6rr<6"), dice)
