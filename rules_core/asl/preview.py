"""The odds of an IFT attack as a player reads them, without listing every whole result.

A Fire Group of six MGs and six squads has thousands of distinct whole results; a player asks
three things: what may happen to each weapon and unit, the chance that nothing bad happens, and
the few most likely whole results. All three are exact fractions, computed from the 36 DRs and
the A.9 Random Selection probabilities without enumerating the joint distribution:

* a candidate among ``n`` in a Random Selection is selected with probability
  ``Σ_m (1/6)·(m/6)^(n−1)`` (its dr is the highest, ties included — A.9);
* a given set of ``k`` candidates out of ``n`` is selected exactly with probability
  ``Σ_m (1/6)^k·((m−1)/6)^(n−k)``.

The most likely whole results are found among the results in which at most one candidate of a
Random Selection among four or more is selected (every smaller Random Selection is enumerated in
full); the rest is one line, "any other result", with its exact total. Results are the same facts
as the rolled attack gives (tested against :func:`~rules_core.asl.fire.fire_odds`).

>>> from rules_core.asl.actions import Fire
>>> from rules_core.asl.examples import fb16_fire_group
>>> p = fire_preview(fb16_fire_group(), Fire(weapons=("LMG",)))
>>> p.nothing_bad
Fraction(5, 6)
>>> p.subjects[0]
('LMG', (('fine', Fraction(5, 6)), ('malfunctioned', Fraction(5, 36)), ('eliminated', \
Fraction(1, 36))), Fraction(1, 6))
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import combinations

from rules_core.asl.actions import Fire
from rules_core.asl.breakdown import Fate
from rules_core.asl.fb16 import unit_replacement_triggered
from rules_core.asl.fire import (
    FirePlan,
    fate_word,
    fire_facts,
    plan_fire,
    settle,
    weapon_fate,
)
from rules_core.asl.state import AslState
from rules_core.odds import format_probability
from rules_core.outcome import Fact

TOP = 5
"""How many whole results the preview lists."""
FULL_SELECTION = 3
"""Random Selections among at most this many candidates are enumerated in full."""
FIELD_CHARS = 1000
"""A block of lines stays within one Discord embed field (1,024 characters)."""
RANK_BUDGET = 1000
"""The most (DR, selected weapons, selected units) combinations ranked for the likeliest whole
results; a larger declaration gets its exact per-subject odds and says that its whole results
are too many to rank within a preview's time."""

WAYS = {t: 6 - abs(t - 7) for t in range(2, 13)}
"""A DR total's ways out of 36 (two dice)."""


@cache
def selected_alone(n: int) -> Fraction:
    """P(one given candidate among ``n`` is selected, with or without others) — A.9.

    >>> selected_alone(1), selected_alone(2)
    (Fraction(1, 1), Fraction(7, 12))
    """
    return sum((Fraction(1, 6) * Fraction(m, 6) ** (n - 1) for m in range(1, 7)), Fraction(0))


@cache
def exactly(n: int, k: int) -> Fraction:
    """P(exactly a given set of ``k`` candidates out of ``n`` is selected) — A.9.

    >>> exactly(2, 1), exactly(2, 2)
    (Fraction(5, 12), Fraction(1, 6))
    """
    return sum(
        (Fraction(1, 6) ** k * Fraction(m - 1, 6) ** (n - k) for m in range(1, 7)), Fraction(0)
    )


@cache
def only_among(b: int, k: int) -> Fraction:
    """P(every selected candidate is one of ``b`` given ones, the other ``k`` unselected).

    >>> only_among(1, 1), only_among(0, 2)
    (Fraction(5, 12), Fraction(0, 1))
    """
    if b == 0:
        return Fraction(0)
    return sum(
        (
            (Fraction(m, 6) ** b - Fraction(m - 1, 6) ** b) * Fraction(m - 1, 6) ** k
            for m in range(1, 7)
        ),
        Fraction(0),
    )


@dataclass(frozen=True)
class FirePreview:
    """What a player reads before declaring an attack (exact fractions)."""

    subjects: tuple[tuple[str, tuple[tuple[str, Fraction], ...], Fraction | None], ...]
    """(weapon or unit, its results with their chances, the chance it keeps Multiple ROF)."""
    nothing_bad: Fraction
    """No weapon breaks or is marked Low Ammo, no unit is replaced or broken."""
    top: tuple[tuple[tuple[Fact, ...], Fraction], ...]
    """The most likely whole results, most likely first (empty when not ``ranked``)."""
    ranked: bool
    """False when the declaration has too many whole results to rank within a preview's time."""
    other: Fraction
    """The total chance of every whole result not in ``top``."""
    no_residual_at_all: Fraction
    """FB16.5: the chance of an Original DR 12 leaving no Residual FP at all."""
    cowering: Fraction = Fraction(0)
    """A7.9: the chance the firers Cower (doubles with no leader directing)."""
    sniper: Fraction = Fraction(0)
    """A14.1: the chance the Original DR activates the enemy Sniper (it equals their SAN)."""
    sniper_side: str | None = None


def _rof_fact(plan: FirePlan, index: int, colored: int) -> str | None:
    """The ROF fact of an unbroken weapon for this colored die (as :func:`settle` gives it)."""
    w = plan.weapons[index]
    if plan.lane_residual or plan.fire_lane:
        return None
    if w.sustained or plan.fpf:
        return "lost" if w.rof is not None else None
    if w.rof is not None and colored <= w.rof:
        return "kept"
    return "lost" if w.rof is not None else None


@cache
def _alone_num(n: int) -> int:
    """``selected_alone(n)`` × 6^n, an integer."""
    return sum(m ** (n - 1) for m in range(1, 7)) if n else 0


@cache
def _exactly_num(n: int, k: int) -> int:
    """``exactly(n, k)`` × 6^n, an integer."""
    return sum((m - 1) ** (n - k) for m in range(1, 7))


@cache
def _only_num(b: int, k: int) -> int:
    """``only_among(b, k)`` × 6^(b+k), an integer."""
    if b == 0:
        return 0
    return sum((m**b - (m - 1) ** b) * (m - 1) ** k for m in range(1, 7))


def _selections(pool: tuple[str, ...], scale: int) -> list[tuple[frozenset[str], int]]:
    """The selected sets enumerated for a Random Selection among ``pool`` (A.9), each with its
    chance × 6^``scale`` (``scale`` ≥ the pool's size)."""
    n = len(pool)
    if n == 0:
        return [(frozenset(), 6**scale)]
    factor = 6 ** (scale - n)
    if n <= FULL_SELECTION:
        return [
            (frozenset(chosen), _exactly_num(n, size) * factor)
            for size in range(1, n + 1)
            for chosen in combinations(pool, size)
        ]
    return [(frozenset({name}), _exactly_num(n, 1) * factor) for name in pool]


@dataclass(frozen=True)
class _Totals:
    """Per DR total: each weapon's fate and Low mark, the A9.71 pool, who suffers without a
    Random Selection, and the MMC FB16.2 reaches; with the largest pools' sizes."""

    fates: dict[int, list[tuple[Fate, bool]]]
    pools: dict[int, tuple[str, ...]]
    forced: dict[int, frozenset[str]]
    triggered: dict[int, tuple[str, ...]]
    nw: int
    nm: int


def _totals(plan: FirePlan) -> _Totals:
    """What each DR total does to the plan's weapons and MMC (A9.7, A9.71, FB16.2)."""
    fates: dict[int, list[tuple[Fate, bool]]] = {}
    pools: dict[int, tuple[str, ...]] = {}
    forced: dict[int, frozenset[str]] = {}
    triggered: dict[int, tuple[str, ...]] = {}
    for t in range(2, 13):
        row = []
        pool = []
        always = set()
        for w in plan.weapons:
            fate, normal, _, mark = weapon_fate(w, t)
            row.append((fate, mark))
            if fate != Fate.OK:
                if w.pooled or (w.kind != "gun" and normal == Fate.ELIM):
                    pool.append(w.name)
                else:
                    always.add(w.name)
        fates[t] = row
        pools[t] = tuple(pool)
        forced[t] = frozenset(always)
        triggered[t] = tuple(m.name for m in plan.mmc if unit_replacement_triggered(m.level, t))
    nw = max(len(p) for p in pools.values())
    nm = max(len(p) for p in triggered.values())
    return _Totals(fates, pools, forced, triggered, nw, nm)


Subject = tuple[str, tuple[tuple[str, Fraction], ...], Fraction | None]


def _weapon_subjects(plan: FirePlan, tt: _Totals) -> list[Subject]:
    """Each weapon's results with their chances and its chance to keep Multiple ROF (A9.2)."""
    w_one = 6**tt.nw
    w_den = 36 * w_one
    # each weapon: P(affected | total) × 6^nw
    affected: list[dict[int, int]] = []
    for i, w in enumerate(plan.weapons):
        per_total = {}
        for t in range(2, 13):
            fate, _ = tt.fates[t][i]
            if fate == Fate.OK:
                per_total[t] = 0
            elif w.name in tt.forced[t]:
                per_total[t] = w_one
            else:
                n = len(tt.pools[t])
                per_total[t] = _alone_num(n) * 6 ** (tt.nw - n)
        affected.append(per_total)
    subjects: list[Subject] = []
    for i, w in enumerate(plan.weapons):
        dist: dict[str, int] = {}
        for t in range(2, 13):
            fate, mark = tt.fates[t][i]
            hit = affected[i][t]
            if hit:
                word = _word(w.kind, fate, mark)
                dist[word] = dist.get(word, 0) + WAYS[t] * hit
            if hit != w_one:
                word = _word(w.kind, Fate.OK, mark)
                dist[word] = dist.get(word, 0) + WAYS[t] * (w_one - hit)
        kept: Fraction | None = None
        if w.rof is not None:
            ways = sum(
                w_one - affected[i][colored + white]
                for colored in range(1, 7)
                if _rof_fact(plan, i, colored) == "kept"
                for white in range(1, 7)
            )
            kept = Fraction(ways, w_den)
        ranked = sorted(dist.items(), key=lambda kv: (kv[0] != "fine", -kv[1]))
        subjects.append((w.name, tuple((k, Fraction(v, w_den)) for k, v in ranked), kept))
    return subjects


def _mmc_subjects(plan: FirePlan, tt: _Totals) -> list[Subject]:
    """Each MMC's chance of FB16.2 Unit Replacement, and what it would do to it."""
    m_den = 36 * 6**tt.nm
    subjects: list[Subject] = []
    for m in plan.mmc:
        effect = (
            f"replaced by {m.chain[0]}"
            if m.chain
            else ("unaffected (Berserk)" if m.berserk else "broken")
        )
        hit_ways = 0
        for t in range(2, 13):
            if m.name in tt.triggered[t]:
                n = len(tt.triggered[t])
                hit_ways += WAYS[t] * _alone_num(n) * 6 ** (tt.nm - n)
        dist_m = (
            ("no effect", Fraction(m_den - hit_ways, m_den)),
            (f"Unit Replacement: {effect}", Fraction(hit_ways, m_den)),
        )
        subjects.append((m.name, tuple((k, v) for k, v in dist_m if v), None))
    return subjects


def _nothing_bad(plan: FirePlan, tt: _Totals) -> Fraction:
    """No weapon breaks or is marked Low Ammo, no unit replaced or broken (FB16.2: a berserk
    unit with no lower counter is unaffected)."""
    m_one = 6**tt.nm
    harmless = {m.name for m in plan.mmc if m.berserk and not m.chain}
    good = 0
    for t in range(2, 13):
        if tt.pools[t] or tt.forced[t] or any(mark for _, mark in tt.fates[t]):
            continue
        mmc_pool = tt.triggered[t]
        if not mmc_pool:
            good += WAYS[t] * m_one
            continue
        b = sum(1 for name in mmc_pool if name in harmless)
        good += WAYS[t] * _only_num(b, len(mmc_pool) - b) * 6 ** (tt.nm - len(mmc_pool))
    return Fraction(good, 36 * m_one)


def fire_preview(state: AslState, action: Fire) -> FirePreview:
    """Each weapon's and unit's odds, the chance nothing bad happens, the likeliest results.

    Validates like the attack itself (a refused declaration is refused here too, no die).
    Chances are summed as integers over one denominator (36 · 6^a · 6^b for the largest Random
    Selections a and b) and made fractions at the end. A9.2, A9.7, A9.71, FB16.2, FB16.21,
    FB16.34, FB16.5.
    """
    plan = plan_fire(state, action)
    names = tuple(w.name for w in plan.weapons)
    tt = _totals(plan)
    subjects = _weapon_subjects(plan, tt) + _mmc_subjects(plan, tt)
    combinations_to_rank = sum(
        _count(len(tt.pools[t])) * _count(len(tt.triggered[t])) * (6 - abs(t - 7))
        for t in range(2, 13)
    )
    rankable = combinations_to_rank <= RANK_BUDGET
    top, other = (
        _top_results(plan, names, tt.fates, tt.pools, tt.forced, tt.triggered, tt.nw, tt.nm)
        if rankable
        else ((), Fraction(1))
    )
    return FirePreview(
        subjects=tuple(subjects),
        nothing_bad=_nothing_bad(plan, tt),
        top=top,
        ranked=rankable,
        other=other,
        no_residual_at_all=Fraction(1, 36) if plan.fb_small_arms else Fraction(0),
        cowering=Fraction(1, 6) if plan.can_cower else Fraction(0),
        sniper=Fraction(WAYS[plan.san], 36) if plan.san else Fraction(0),
        sniper_side=plan.san_side,
    )


def _count(n: int) -> int:
    """How many selected sets :func:`_selections` lists for a pool of ``n``."""
    if n <= FULL_SELECTION:
        return max(1, (1 << n) - 1)
    return n


def _word(kind: str, fate: Fate, mark: bool) -> str:
    word = fate_word(kind, fate)
    return word + ", marked Low Ammo" if mark and fate != Fate.ELIM else word


def _top_results(
    plan: FirePlan,
    names: tuple[str, ...],
    fates: dict[int, list[tuple[Fate, bool]]],
    pools: dict[int, tuple[str, ...]],
    forced: dict[int, frozenset[str]],
    triggered: dict[int, tuple[str, ...]],
    nw: int,
    nm: int,
) -> tuple[tuple[tuple[tuple[Fact, ...], Fraction], ...], Fraction]:
    """The likeliest whole results (keyed by what their facts depend on) and the rest's total."""
    index = {name: i for i, name in enumerate(names)}
    rof_by_colored = {
        c: tuple(_rof_fact(plan, i, c) for i in range(len(names))) for c in range(1, 7)
    }
    masked: dict[tuple[int, frozenset[str]], tuple[str | None, ...]] = {}
    mass: dict[tuple[object, ...], int] = {}
    sample: dict[tuple[object, ...], tuple[int, int, frozenset[str], frozenset[str]]] = {}
    fb12 = plan.fb_small_arms
    for t in range(2, 13):
        coloreds = [c for c in range(1, 7) if 1 <= t - c <= 6]
        row = fates[t]
        msets = _selections(triggered[t], nm)
        for wsel, wp in _selections(pools[t], nw):
            hit = wsel | forced[t]
            broken = frozenset(n for n in hit if row[index[n]][0] != Fate.OK)
            marks = tuple(
                (n, row[index[n]][0] if n in hit else Fate.OK, row[index[n]][1])
                for n in names
                if n in hit or row[index[n]][1]
            )
            rofs = []
            for c in coloreds:
                rof = masked.get((c, broken))
                if rof is None:
                    rof = tuple(
                        None if names[i] in broken else r for i, r in enumerate(rof_by_colored[c])
                    )
                    masked[(c, broken)] = rof
                rofs.append((c, rof))
            for msel, mp in msets:
                p = wp * mp
                for c, rof in rofs:
                    cowers = plan.can_cower and 2 * c == t
                    key: tuple[object, ...] = (
                        marks,
                        rof,
                        msel,
                        t == 12 and fb12,
                        cowers,
                        t == plan.san,
                    )
                    if key in mass:
                        mass[key] += p
                    else:
                        mass[key] = p
                        sample[key] = (c, t - c, wsel, msel)
    den = 36 * 6**nw * 6**nm
    ranked = sorted(mass.items(), key=lambda kv: -kv[1])[:TOP]
    top = []
    for found, chance in ranked:
        c, white, chosen, replaced = sample[found]
        facts = fire_facts(plan, settle(plan, c, white, chosen, replaced))
        top.append((facts, Fraction(chance, den)))
    return tuple(top), 1 - sum((p for _, p in top), Fraction(0))


def preview_fields(preview: FirePreview) -> tuple[tuple[str, str], ...]:
    """The preview as named blocks of lines for one message (Discord embed fields, text).

    >>> from rules_core.asl.actions import Fire
    >>> from rules_core.asl.examples import fb16_fire_group
    >>> directed = Fire(weapons=("LMG",), leader="9-1")
    >>> for name, value in preview_fields(fire_preview(fb16_fire_group(), directed)):
    ...     print(f"{name}:"); print(value)
    Each weapon and unit:
    LMG: fine 83.3% · malfunctioned 13.9% · eliminated 2.8% · ROF kept 16.7%
    Nothing bad happens:
    5/6 (83.3%) — no weapon breaks or is marked Low Ammo, no unit is replaced or broken
    Most likely results:
    2/3 (66.7%) LMG: fine; ROF (LMG): lost
    1/6 (16.7%) LMG: fine; ROF (LMG): kept
    5/36 (13.9%) LMG: malfunctioned; Residual FP (LMG): none
    1/36 (2.8%) LMG: eliminated; Residual FP (LMG): none; Residual FP: none at all
    """
    lines = []
    for name, dist, kept in preview.subjects:
        parts = [f"{word} {_percent(p)}" for word, p in dist]
        if kept is not None:
            parts.append(f"ROF kept {_percent(kept)}")
        lines.append(f"{name}: " + " · ".join(parts))
    top = [
        f"{format_probability(p)} " + ("; ".join(f"{s}: {r}" for s, r in facts) or "no effect")
        for facts, p in preview.top
    ]
    if not preview.ranked:
        top = [
            "too many whole results to rank within the time a preview may take; each weapon's "
            "and unit's odds above are exact"
        ]
    elif preview.other:
        top.append(f"{format_probability(preview.other)} any other result")
    fields = [
        (name, "\n".join(chunk))
        for name, chunk in zip(
            ("Each weapon and unit", *["Each weapon and unit (more)"] * len(lines)),
            _chunks(lines, FIELD_CHARS),
            strict=False,
        )
    ]
    fields += [
        (
            "Nothing bad happens",
            f"{format_probability(preview.nothing_bad)} — no weapon breaks or is marked Low "
            "Ammo, no unit is replaced or broken"
            + (
                f"\nthe firers Cower (doubles, no leader directing): "
                f"{format_probability(preview.cowering)}"
                if preview.cowering
                else ""
            )
            + (
                f"\nthe {preview.sniper_side} Sniper is activated (DR = their SAN): "
                f"{format_probability(preview.sniper)}"
                if preview.sniper
                else ""
            ),
        ),
        ("Most likely results", "\n".join(top)),
    ]
    return tuple(fields)


def _chunks(lines: list[str], limit: int) -> list[list[str]]:
    """``lines`` in groups of at most ``limit`` characters (one embed field each).

    >>> _chunks(["aaaa", "bbbb", "cc"], 9)
    [['aaaa', 'bbbb'], ['cc']]
    """
    groups: list[list[str]] = [[]]
    size = 0
    for line in lines:
        if groups[-1] and size + 1 + len(line) > limit:
            groups.append([])
        size = len(line) if not groups[-1] else size + 1 + len(line)
        groups[-1].append(line)
    return groups


def _percent(p: Fraction) -> str:
    return f"{float(p * 100):.1f}%"


__all__ = [
    "FirePreview",
    "exactly",
    "fire_preview",
    "only_among",
    "preview_fields",
    "selected_alone",
]
