"""The player's preview of an IFT attack equals what the full joint distribution says.

Each weapon's and unit's odds, the chance that nothing bad happens and the likeliest whole
results are computed without enumerating the joint (``rules_core.asl.preview``); here they are
checked against :func:`~rules_core.asl.fire.fire_odds`, the exact joint enumeration (itself
tested against the brute-force enumeration of every dice sequence).
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules_core.asl.actions import AddUnit, AddWeapon, AslAction, Fire, SetLevel, SetPhase
from rules_core.asl.fire import fire_odds
from rules_core.asl.preview import (
    exactly,
    fire_preview,
    only_among,
    preview_fields,
    selected_alone,
)
from rules_core.asl.random_selection import selection_odds
from rules_core.asl.state import AslState
from rules_core.errors import IllegalAction
from rules_core.odds import marginals
from rules_core.outcome import Fact
from tests.asl.helpers import build

BAD = ("malfunctioned", "eliminated", "disabled", "Low Ammo", "replaced by", "broken")


def fire_group(
    level: int, mgs: list[tuple[int | None, int]], squads: list[bool], gun: bool = False
) -> tuple[AslState, Fire]:
    """MGs (printed B#, ROF) each held by its own squad, plus squads firing Inherent FP
    (berserk or not), optionally an IFT-firing Gun (crewed)."""
    actions: list[AslAction] = [SetLevel(side="Axis", level=level)]
    weapons = []
    for i, (b, rof) in enumerate(mgs):
        actions.append(AddUnit(name=f"H{i}", side="Axis", kind="squad"))
        actions.append(
            AddWeapon(name=f"MG{i}", side="Axis", kind="sw_mg", b=b, rof=rof, owner=f"H{i}")
        )
        weapons.append(f"MG{i}")
    units = []
    for i, berserk in enumerate(squads):
        chain = ("4-4-7",) if i % 2 == 0 else ()
        actions.append(
            AddUnit(name=f"S{i}", side="Axis", kind="squad", replaced_by=chain, berserk=berserk)
        )
        units.append(f"S{i}")
    if gun:
        actions.append(AddUnit(name="C", side="Axis", kind="crew"))
        actions.append(AddWeapon(name="IG", side="Axis", kind="gun", owner="C"))
        weapons.append("IG")
    actions.append(SetPhase(phase="pfph", side="Axis"))
    return build(*actions), Fire(weapons=tuple(weapons), units=tuple(units))


def joint_views(
    joint: dict[tuple[Fact, ...], Fraction],
) -> tuple[dict[str, dict[str, Fraction]], Fraction]:
    nothing_bad = sum(
        (p for facts, p in joint.items() if not any(w in r for _, r in facts for w in BAD)),
        Fraction(0),
    )
    return marginals(joint), nothing_bad


def check(state: AslState, action: Fire) -> None:
    joint = fire_odds(state, action)
    preview = fire_preview(state, action)
    table, nothing_bad = joint_views(joint)
    assert preview.nothing_bad == nothing_bad
    for name, dist, kept in preview.subjects:
        column = table[name] if name in table else table[f"Unit Replacement ({name})"]
        if name in table:
            assert dict(dist) == column
        else:
            expected = {
                ("no effect" if r == "no effect" else f"Unit Replacement: {r}"): p
                for r, p in column.items()
            }
            assert dict(dist) == expected
        if kept is not None:
            assert kept == table[f"ROF ({name})"].get("kept", Fraction(0))
    # the likeliest whole results: the same chance as in the joint, none likelier left out
    for facts, p in preview.top:
        assert joint[facts] == p
    shown = {facts for facts, _ in preview.top}
    cutoff = min(p for _, p in preview.top)
    assert all(p <= cutoff for facts, p in joint.items() if facts not in shown)
    assert preview.other == 1 - sum(p for _, p in preview.top)


@settings(max_examples=40, deadline=None)
@given(
    st.integers(0, 5),
    st.lists(st.tuples(st.one_of(st.none(), st.integers(9, 12)), st.integers(1, 3)), max_size=3),
    st.lists(st.booleans(), max_size=3),
    st.booleans(),
)
def test_the_preview_equals_the_joint_distribution(
    level: int, mgs: list[tuple[int | None, int]], squads: list[bool], gun: bool
) -> None:
    if not mgs and not squads and not gun:
        mgs = [(None, 1)]
    check(*fire_group(level, mgs, squads, gun))


def test_the_fb16_ex_fire_group_and_a_large_one() -> None:
    check(*fire_group(4, [(None, 3), (None, 1)], [False, False]))
    # four MGs and four squads at level 5: pools of four candidates (singletons enumerated);
    # the likeliest results and every marginal are still exact
    check(*fire_group(5, [(None, 3), (11, 2), (None, 1), (10, 1)], [False, True, False, False]))


def test_selection_formulas_agree_with_the_enumerated_random_selection() -> None:
    for n in range(1, 6):
        odds = selection_odds(tuple("ABCDE"[:n]))
        assert selected_alone(n) == sum(p for chosen, p in odds.items() if "A" in chosen)
        for k in range(1, n + 1):
            assert exactly(n, k) == odds[frozenset("ABCDE"[:k])]
        for b in range(0, n + 1):
            only = sum(p for chosen, p in odds.items() if chosen <= set("ABCDE"[:b]))
            assert only_among(b, n - b) == only


def test_a_refused_declaration_is_refused_by_the_preview_too() -> None:
    state, _ = fire_group(0, [(None, 1)], [])
    with pytest.raises(IllegalAction) as info:
        fire_preview(state, Fire(weapons=("MG0",), phase="afph"))
    assert info.value.rule == "A3"


def test_a_declaration_too_large_to_rank_says_so_and_keeps_its_exact_odds() -> None:
    state, action = fire_group(5, [(None, 1)] * 20, [False] * 20)
    preview = fire_preview(state, action)
    assert not preview.ranked and preview.top == ()
    fields = dict(preview_fields(preview))
    assert fields["Most likely results"].startswith("too many whole results to rank")
    # every block fits an embed field; the subjects run on into a second block
    assert all(len(value) <= 1024 for value in fields.values())
    assert "Each weapon and unit (more)" in fields
    # each MG: a B12 LMG at level 5 is a candidate on 10-12 among all 20 (FB16.34)
    mg0 = dict(preview.subjects[0][1])
    assert mg0["malfunctioned"] == Fraction(5, 36) * selected_alone(20)
    assert mg0["eliminated"] == Fraction(1, 36) * selected_alone(20)
