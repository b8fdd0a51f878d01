"""Roll categories, batches and the rules' notes on a roll (rules_core, pure)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from rules_core.dice import Roll, ScriptedDice
from rules_core.roll import parse_expression, roll_expression
from rules_core.roll_categories import CATEGORIES, notes

FACES = st.integers(min_value=1, max_value=6)


def dr(colored: int, white: int, label: str = "DR") -> Roll:
    return Roll(label=label, kind="DR", sides=6, faces=(colored, white))


@given(FACES, FACES)
def test_an_ift_dr_notes_cowering_exactly_on_doubles(colored: int, white: int) -> None:
    found = notes("IFT", dr(colored, white))
    assert [n.rule for n in found] == (["A7.9"] if colored == white else [])


@given(FACES, FACES)
def test_a_morale_check_notes_only_an_original_2_or_12(colored: int, white: int) -> None:
    rules = [n.rule for n in notes("MC", dr(colored, white))]
    expected = {2: ["A15.1"], 12: ["A10.31"]}.get(colored + white, [])
    assert rules == expected


def test_a_to_hit_2_may_be_a_critical_hit_and_other_categories_say_nothing() -> None:
    assert [n.rule for n in notes("TH", dr(1, 1))] == ["C3.7"]
    quiet = {c.name for c in CATEGORIES} - {"IFT", "MC", "TH"}
    assert all(notes(name, dr(face, face)) == () for name in quiet for face in range(1, 7))
    assert notes("IFT", Roll(label="IFT dr", kind="dr", sides=6, faces=(3,))) == ()


@given(st.integers(min_value=1, max_value=20), st.data())
def test_a_batch_of_drs_reads_two_dice_per_roll_colored_first(
    repeat: int, data: st.DataObject
) -> None:
    faces = data.draw(st.lists(FACES, min_size=2 * repeat, max_size=2 * repeat))
    dice = ScriptedDice(faces)
    result = roll_expression(parse_expression(f"{repeat} DR"), dice, category="MC")
    dice.assert_used_up()
    assert len(result.rolls) == repeat
    assert [r.faces for r in result.rolls] == [
        tuple(faces[i : i + 2]) for i in range(0, 2 * repeat, 2)
    ]
    assert result.totals == tuple(faces[i] + faces[i + 1] for i in range(0, 2 * repeat, 2))
    assert result.total == sum(faces)
    assert all(r.label == "MC DR" for r in result.rolls)
    again = roll_expression(parse_expression(result.expression.text()), ScriptedDice(faces))
    assert again.total == result.total  # what `referee verify` recomputes from the log
