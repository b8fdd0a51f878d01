"""The result of an IFT attack's dice: each weapon's fate and marker, Unit Replacement, Residual FP
and Cowering, as pure functions of the plan and the dice (A9.2, A9.3, A9.7, A9.71, FB16.2, FB16.5).

:func:`settle` is the result of given dice, :func:`fire_facts` its at-a-glance summary,
:func:`weapon_text` one weapon's explanation, and :func:`fire_odds` the exact odds of every
summary, enumerating the 36 DRs and each Random Selection's sets.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from rules_core.asl.actions import Fire
from rules_core.asl.breakdown import Fate, breakdown_numbers
from rules_core.asl.fire.plan import (
    FirePlan,
    WeaponPlan,
    mmc_candidates,
    plan_fire,
    pooled_for,
    weapon_candidates,
    weapon_fate,
)
from rules_core.asl.random_selection import selection_odds
from rules_core.asl.state import AslState, FireMarker
from rules_core.outcome import Fact

PHASE_FIRE_MARKER: dict[str, FireMarker] = {
    "pfph": "prep",
    "mph": "first",
    "dfph": "final",
    "afph": "none",
}
"""A9.2: the fire marker a weapon earns when it does not keep Multiple ROF, by phase."""


@dataclass(frozen=True)
class WeaponResult:
    """What one weapon suffered."""

    name: str
    fate: Fate
    normal: Fate
    fb: Fate
    candidate: bool
    affected: bool
    mark_low: bool
    rof: str | None
    marker: FireMarker | None


@dataclass(frozen=True)
class FireResult:
    """The pure result of the dice for one attack."""

    colored: int
    white: int
    weapons: tuple[WeaponResult, ...]
    replacement: tuple[tuple[str, str], ...]
    no_residual_at_all: bool
    cowered: bool = False

    @property
    def original_dr(self) -> int:
        """The Original DR: colored + white (the colored die first; A9.7 reads it for breakdown).

        >>> FireResult(5, 6, (), (), False).original_dr
        11
        """
        return self.colored + self.white


def settle(
    plan: FirePlan,
    colored: int,
    white: int,
    weapons_selected: frozenset[str],
    mmc_selected: frozenset[str],
) -> FireResult:
    """The pure result of the attack's dice (A9.2, A9.3, A9.71, FB16.2, FB16.5).

    >>> from rules_core.asl.examples import fb16_fire_group
    >>> plan = plan_fire(fb16_fire_group(), Fire(weapons=("HMG", "LMG"), units=("A", "B")))
    >>> result = settle(plan, 6, 6, frozenset({"HMG"}), frozenset({"B"}))
    >>> [(w.name, w.fate.name) for w in result.weapons], result.replacement
    ([('HMG', 'ELIM'), ('LMG', 'OK')], (('A', 'no effect'), ('B', 'broken')))
    """
    dr = colored + white
    fates = [weapon_fate(w, dr) for w in plan.weapons]  # once each (weapon_candidates' too)
    pool = {
        w.name
        for w, (fate, normal, _, _) in zip(plan.weapons, fates, strict=True)
        if pooled_for(w, fate, normal)
    }
    results = []
    for w, (fate, normal, fb, mark) in zip(plan.weapons, fates, strict=True):
        candidate = fate != Fate.OK
        affected = w.name in weapons_selected if w.name in pool else candidate
        broken = affected and fate != Fate.OK
        rof: str | None = None
        marker: FireMarker | None = None
        if not broken and not plan.lane_residual:
            if plan.fire_lane:
                marker = "first"
            elif w.sustained or plan.fpf:
                marker = "final"
                rof = "lost" if w.rof is not None else None
            elif w.rof is not None and colored <= w.rof:
                rof = "kept"
            else:
                marker = PHASE_FIRE_MARKER[plan.phase]
                rof = "lost" if w.rof is not None else None
        results.append(
            WeaponResult(
                name=w.name,
                fate=fate if affected else Fate.OK,
                normal=normal,
                fb=fb,
                candidate=candidate,
                affected=affected,
                mark_low=mark,
                rof=rof,
                marker=marker,
            )
        )
    replacement = []
    triggered = set(mmc_candidates(plan, dr))
    for m in plan.mmc:
        if m.name not in triggered or m.name not in mmc_selected:
            replacement.append((m.name, "no effect"))
        elif m.chain:
            replacement.append((m.name, f"replaced by {m.chain[0]}"))
        elif m.berserk:
            replacement.append((m.name, "unaffected (Berserk)"))
        else:
            replacement.append((m.name, "broken"))
    return FireResult(
        colored=colored,
        white=white,
        weapons=tuple(results),
        replacement=tuple(replacement),
        no_residual_at_all=plan.fb_small_arms and dr == 12,
        cowered=plan.can_cower and colored == white,
    )


FATE_WORDS = {Fate.OK: "fine", Fate.MALF: "malfunctioned", Fate.ELIM: "eliminated"}


def fate_word(kind: str, fate: Fate) -> str:
    """How a player says it: a SW is eliminated (A9.72), a Gun or vehicle weapon Disabled (D3.7).

    >>> fate_word("gun", Fate.ELIM), fate_word("sw_mg", Fate.MALF)
    ('disabled', 'malfunctioned')
    """
    if fate == Fate.ELIM and kind in ("gun", "veh_mg"):
        return "disabled"
    return FATE_WORDS[fate]


def fire_facts(plan: FirePlan, result: FireResult) -> tuple[Fact, ...]:
    """The at-a-glance summary: weapon fates, Low marks, ROF, Unit Replacement, Residual FP.

    A9.2, A9.7, FB16.2, FB16.5.

    >>> from rules_core.asl.examples import fb16_fire_group
    >>> plan = plan_fire(fb16_fire_group(), Fire(weapons=("LMG",)))
    >>> fire_facts(plan, settle(plan, 1, 2, frozenset(), frozenset()))
    (('LMG', 'fine'), ('ROF (LMG)', 'kept'))
    """
    facts: list[Fact] = []
    kinds = {w.name: w.kind for w in plan.weapons}
    for r in result.weapons:
        word = fate_word(kinds[r.name], r.fate)
        if r.mark_low and r.fate != Fate.ELIM:
            word += ", marked Low Ammo"
        facts.append((r.name, word))
    for r in result.weapons:
        if r.rof is not None:
            facts.append((f"ROF ({r.name})", r.rof))
    for name, effect in result.replacement:
        facts.append((f"Unit Replacement ({name})", effect))
    for r in result.weapons:
        if r.fate != Fate.OK:
            facts.append((f"Residual FP ({r.name})", "none"))
    if plan.lane_residual:
        broken = any(r.fate != Fate.OK for r in result.weapons)
        facts.append(("Fire Lane", "removed" if broken else "stays"))
    if result.no_residual_at_all:
        facts.append(("Residual FP", "none at all"))
    if any(r.fate != Fate.OK and kinds[r.name] == "dc" for r in result.weapons):
        facts.append(("Attack", "not resolved (the DC broke)"))
    if result.cowered:
        facts.append(("Cowering", "yes"))
        if plan.fire_lane:
            facts.append(("Fire Lane", "none (the Infantry Cowered)"))
    facts += lane_facts(plan, result)
    if plan.fixes_ca:
        gone = {r.name for r in result.weapons if r.fate != Fate.OK}
        facts += [(f"Covered Arc ({n})", "fixed") for n in plan.fixes_ca if n not in gone]
    if plan.san and result.original_dr == plan.san:
        facts.append((f"Sniper ({plan.san_side})", "activated"))
    return tuple(facts)


def lane_facts(plan: FirePlan, result: FireResult) -> list[Fact]:
    """What the attack did to Fire Lanes (A9.22, A9.223): each lane laid or not placed, each one
    canceled by TPBF or ended because FB16.2 broke its manning Infantry.

    >>> from rules_core.asl.examples import fb16_fire_group
    >>> plan = plan_fire(fb16_fire_group(), Fire(weapons=("LMG",)))
    >>> lane_facts(plan, settle(plan, 1, 2, frozenset(), frozenset()))
    []
    """
    facts: list[Fact] = []
    if not (plan.fire_lane or plan.lanes_canceled or plan.lanes_manned):
        return facts
    broken_mmc = {name for name, effect in result.replacement if effect == "broken"}
    fates = {r.name: r.fate for r in result.weapons}
    if plan.fire_lane and not result.cowered:
        for w in plan.weapons:
            if w.kind != "sw_mg":
                continue
            if fates[w.name] != Fate.OK:
                facts.append((f"Fire Lane ({w.name})", "none (the MG broke)"))
            elif w.possessor in broken_mmc:
                facts.append((f"Fire Lane ({w.name})", "none (its Infantry broke)"))
            else:
                facts.append((f"Fire Lane ({w.name})", "laid"))
    for name in plan.lanes_canceled:
        if not (plan.lane_residual and fates.get(name, Fate.OK) != Fate.OK):
            facts.append((f"Fire Lane ({name})", "canceled (TPBF)"))
    for unit, mg in plan.lanes_manned:
        if unit in broken_mmc and mg not in plan.lanes_canceled:
            facts.append((f"Fire Lane ({mg})", "removed (its Infantry broke)"))
    return facts


def weapon_text(plan: WeaponPlan, r: WeaponResult, dr: int) -> tuple[str, str]:
    """(rule, text) explaining one weapon's breakdown result (A9.7, A.11, FB16.31-16.42).

    >>> p = WeaponPlan("LMG", "sw_mg", None, None, 1, 0, 4, 12, False, False, True)
    >>> r = WeaponResult("LMG", Fate.ELIM, Fate.MALF, Fate.ELIM, True, True, False, None, None)
    >>> weapon_text(p, r, 12)
    ('FB16.31', 'Original DR 12 ≥ B12 at level 4 — LMG eliminated')
    """
    word = fate_word(plan.kind, r.fate)
    b_eff, x_eff = breakdown_numbers(plan.printed_b, plan.printed_x, plan.lowering)
    if not r.candidate:
        if r.mark_low:
            return "FB16.42", (
                f"Original DR {dr} = B{plan.fb_b0}−{plan.fb_b0 - dr} at level {plan.level} — "
                f"{plan.name} marked Low Ammo, not malfunctioned"
            )
        shown = f"B{b_eff}" if b_eff is not None else f"X{x_eff}"
        return "A9.7", f"Original DR {dr} < {shown} — {plan.name} fine"
    if not r.affected:
        return "A9.71", f"{plan.name} not selected — unaffected"
    if r.fb > r.normal:
        if plan.kind == "gun":
            rule = "FB16.41" if r.fate == Fate.ELIM else "FB16.42"
        else:
            rule = "FB16.31" if r.fate == Fate.ELIM else "FB16.32"
        cmp = f"≥ B{plan.fb_b0}" if dr >= plan.fb_b0 else f"= B{plan.fb_b0}−{plan.fb_b0 - dr}"
        text = f"Original DR {dr} {cmp} at level {plan.level} — {plan.name} {word}"
    elif r.fate == Fate.ELIM:
        rule = "A.11" if plan.lowering > 0 else "A9.7"
        text = f"Original DR {dr} ≥ X{x_eff} — {plan.name} {word}"
    else:
        if plan.sustained:
            rule = "C5.6" if plan.kind == "gun" else "A9.3"
        else:
            rule = "A.11" if plan.lowering else "A9.7"
        text = f"Original DR {dr} ≥ B{b_eff} — {plan.name} {word}"
    if r.mark_low:
        text += " and marked Low Ammo"
        rule = "FB16.42"  # the rule that places the Low Ammo marker
    return rule, text


def fire_odds(state: AslState, action: Fire) -> dict[tuple[Fact, ...], Fraction]:
    """Exact odds of an IFT attack by enumerating the 36 DRs and each Random Selection's sets.

    Equal to brute-force enumeration of :func:`resolve_fire` (tested), but fast. A9.71, FB16.2.

    >>> from rules_core.asl.examples import fb16_fire_group
    >>> odds = fire_odds(fb16_fire_group(), Fire(units=("B",), leader="9-1"))
    >>> odds[(("Unit Replacement (B)", "broken"), ("Residual FP", "none at all"))]
    Fraction(1, 36)
    >>> sum(odds.values())
    Fraction(1, 1)
    """
    plan = plan_fire(state, action)
    odds: dict[tuple[Fact, ...], Fraction] = {}
    cache: dict[tuple[str, ...], dict[frozenset[str], Fraction]] = {}

    def sel(candidates: tuple[str, ...]) -> dict[frozenset[str], Fraction]:
        if candidates not in cache:
            cache[candidates] = selection_odds(candidates)
        return cache[candidates]

    for colored in range(1, 7):
        for white in range(1, 7):
            dr = colored + white
            w_sel = sel(weapon_candidates(plan, dr))
            m_sel = sel(mmc_candidates(plan, dr))
            for ws, wp in w_sel.items():
                for ms, mp in m_sel.items():
                    facts = fire_facts(plan, settle(plan, colored, white, ws, ms))
                    odds[facts] = odds.get(facts, Fraction(0)) + wp * mp / 36
    return odds


__all__ = [
    "FATE_WORDS",
    "PHASE_FIRE_MARKER",
    "FireResult",
    "WeaponResult",
    "fate_word",
    "fire_facts",
    "fire_odds",
    "lane_facts",
    "settle",
    "weapon_text",
]
