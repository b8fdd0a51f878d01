"""Exact odds enumeration, including rolls that happen only after an earlier result."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules_core.dice import Dice, ScriptedDice
from rules_core.odds import (
    OddsTooLarge,
    branches,
    exact_odds,
    format_probability,
    marginals,
)

DR_COUNTS = {2: 1, 3: 2, 4: 3, 5: 4, 6: 5, 7: 6, 8: 5, 9: 4, 10: 3, 11: 2, 12: 1}


def test_DR_distribution_is_exact() -> None:
    odds = exact_odds(lambda dice: sum(dice.DR("DR")))
    assert odds == {n: Fraction(c, 36) for n, c in DR_COUNTS.items()}


def test_rules_brief_reference_probabilities() -> None:
    assert exact_odds(lambda d: sum(d.DR("DR")) >= 10)[True] == Fraction(6, 36)
    assert exact_odds(lambda d: sum(d.DR("DR")) >= 11)[True] == Fraction(3, 36)
    assert exact_odds(lambda d: sum(d.DR("DR")) == 12)[True] == Fraction(1, 36)


def test_colored_die_is_distinguished_from_white() -> None:
    odds = exact_odds(lambda d: d.DR("DR")[0] <= 2)
    assert odds[True] == Fraction(1, 3)


def test_conditional_roll_is_enumerated_only_where_it_happens() -> None:
    # A DR; on 12 a Random Selection dr for each of two weapons.
    def attack(dice: Dice) -> str:
        if sum(dice.DR("IFT DR")) < 12:
            return "none"
        hmg, lmg = dice.dr("RS HMG"), dice.dr("RS LMG")
        if hmg == lmg:
            return "both"
        return "HMG" if hmg > lmg else "LMG"

    found = list(branches(attack))
    assert len(found) == 35 + 36
    odds = exact_odds(attack)
    assert odds == {
        "none": Fraction(35, 36),
        "both": Fraction(1, 36) * Fraction(6, 36),
        "HMG": Fraction(1, 36) * Fraction(15, 36),
        "LMG": Fraction(1, 36) * Fraction(15, 36),
    }
    assert sum(odds.values()) == 1


def test_no_dice_is_one_certain_branch() -> None:
    assert exact_odds(lambda dice: "fixed") == {"fixed": Fraction(1)}


def test_branch_limit_raises() -> None:
    with pytest.raises(OddsTooLarge):
        list(branches(lambda d: (d.d(100, "a"), d.d(100, "b")), limit=500))


def test_marginals_sum_to_one_per_subject() -> None:
    def attack(d: Dice) -> tuple[tuple[str, str], ...]:
        total = sum(d.DR("DR"))
        lmg = (("LMG", "malf"),) if total == 12 else ()
        return (("HMG", "malf" if total >= 11 else "ok"), *lmg)

    joint = exact_odds(attack)
    table = marginals(joint)
    assert table["HMG"] == {"malf": Fraction(3, 36), "ok": Fraction(33, 36)}
    assert table["LMG"] == {"malf": Fraction(1, 36), "—": Fraction(35, 36)}
    for column in table.values():
        assert sum(column.values()) == 1


def test_format_probability() -> None:
    assert format_probability(Fraction(1, 6)) == "1/6 (16.7%)"
    assert format_probability(Fraction(0)) == "0 (0%)"


# --- property tests: random dice trees -------------------------------------------------------

Tree = Any  # int leaf, or (sides, [subtree per face])


def trees() -> st.SearchStrategy[Tree]:
    leaves = st.integers(min_value=0, max_value=5)
    return st.recursive(
        leaves,
        lambda children: st.sampled_from([2, 3, 6]).flatmap(
            lambda sides: st.tuples(
                st.just(sides), st.lists(children, min_size=sides, max_size=sides)
            )
        ),
        max_leaves=40,
    )


def walk(tree: Tree, dice: Dice) -> int:
    while not isinstance(tree, int):
        sides, children = tree
        tree = children[dice.d(sides, "die") - 1]
    return tree


def leaf_paths(tree: Tree, prob: Fraction = Fraction(1)) -> list[Fraction]:
    if isinstance(tree, int):
        return [prob]
    sides, children = tree
    return [p for child in children for p in leaf_paths(child, prob / sides)]


@settings(max_examples=200, deadline=None)
@given(trees())
def test_odds_always_sum_to_exactly_one(tree: Tree) -> None:
    odds = exact_odds(lambda dice: walk(tree, dice))
    assert sum(odds.values()) == Fraction(1)


@settings(max_examples=200, deadline=None)
@given(trees())
def test_every_enumerated_branch_is_reachable_and_complete(tree: Tree) -> None:
    found = list(branches(lambda dice: walk(tree, dice)))
    # one branch per leaf of the tree, with the leaf's probability
    assert Counter(b.probability for b in found) == Counter(leaf_paths(tree))
    assert len({b.faces for b in found}) == len(found)
    for branch in found:
        # replaying the branch's faces reaches the same result and uses every face
        with ScriptedDice(branch.faces) as dice:
            assert walk(tree, dice) == branch.result
        assert tuple(r.sides for r in dice.rolls) == branch.sides
