"""An IFT attack's plan: the numbers the dice will be read against, once it is legal (no dice).

:func:`plan_fire` runs the checks of :mod:`rules_core.asl.fire.legality` and
:mod:`rules_core.asl.fire.usage` in the order a declaration is read, then gathers each weapon's
breakdown numbers (A9.7, A.11, A9.3, FB16.3-16.4) and the MMC under FB16.2. :func:`weapon_fate`,
:func:`weapon_candidates` and :func:`mmc_candidates` say what a given Original DR does to them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from rules_core.asl.actions import Fire
from rules_core.asl.breakdown import SUSTAINED_FIRE_LOWERING, Fate, normal_breakdown
from rules_core.asl.fb16 import (
    fb_gun_fate,
    fb_original_b,
    fb_sw_fate,
    personnel_immune,
    unit_level,
    unit_replacement_triggered,
    weapon_level,
)
from rules_core.asl.fire.covered_arc import check_covered_arc, fixes_ca
from rules_core.asl.fire.fire_lane import (
    check_lane_crew,
    check_lane_options,
    check_lane_weapon,
    manned_lanes,
)
from rules_core.asl.fire.legality import (
    check_fpf_tpbf,
    check_helper,
    check_leader,
    check_shot_limit,
    check_sustained,
    check_targets,
    check_units,
    check_weapon_again,
    check_weapon_fires,
    fired_as,
    firers,
    parse_lowering,
)
from rules_core.asl.fire.usage import Note, Usage, mg_usage
from rules_core.asl.state import PHASE_NAMES, AslState, Phase, Unit, Weapon
from rules_core.errors import InvalidInput


@dataclass(frozen=True)
class WeaponPlan:
    """One weapon's numbers for this use (no dice yet)."""

    name: str
    kind: str
    printed_b: int | None
    printed_x: int | None
    rof: int | None
    lowering: int
    level: int
    fb_b0: int
    low_ammo: bool
    sustained: bool
    pooled: bool
    possessor: str | None = None
    """The unit manning it (A9.1), when it has one."""


@dataclass(frozen=True)
class MmcPlan:
    """A qualified Axis MMC using its Inherent FP (FB16.2)."""

    name: str
    level: int
    chain: tuple[str, ...]
    berserk: bool


@dataclass(frozen=True)
class FirePlan:
    """Everything the dice will be read against."""

    weapons: tuple[WeaponPlan, ...]
    mmc: tuple[MmcPlan, ...]
    phase: Phase
    fb_small_arms: bool
    fire_lane: bool
    lane_residual: bool
    fpf: bool
    usage: Usage = field(default_factory=lambda: Usage())
    can_cower: bool = False
    """A7.9: Infantry fire with no leader directing Cowers on doubles (a MG fired by SMC, A9.12,
    and a Fire Lane's Residual FP, A9.222, never do)."""
    san: int = 0
    """A14.1: the SAN of the side being fired at (0 when it has no Sniper)."""
    san_side: str | None = None
    """That side."""
    lanes_canceled: tuple[str, ...] = ()
    """A9.223: MGs whose Fire Lane this TPBF situation cancels."""
    lanes_manned: tuple[tuple[str, str], ...] = ()
    """(MMC, MG): standing Fire Lanes manned by a MMC that FB16.2 may break in this attack."""
    fixes_ca: tuple[str, ...] = ()
    """A9.21: MMG/HMG whose CA this shot from woods, rubble or a building fixes."""


@lru_cache(maxsize=4096)
def weapon_fate(plan: WeaponPlan, original_dr: int) -> tuple[Fate, Fate, Fate, bool]:
    """(final, normal, FB) fate and the Low Ammo mark for one weapon (A9.7, A.11, FB16.3-16.4).

    The more severe of the normal and FB outcomes applies.

    >>> p = WeaponPlan("LMG", "sw_mg", None, None, 1, 0, 4, 12, False, False, True)
    >>> [f.name for f in weapon_fate(p, 10)[:3]]
    ['MALF', 'OK', 'MALF']
    """
    normal = normal_breakdown(plan.printed_b, plan.printed_x, plan.lowering, original_dr)
    fb, mark = Fate.OK, False
    if plan.level > 0:
        if plan.kind == "gun":
            fb, mark = fb_gun_fate(plan.level, plan.fb_b0, original_dr, low_ammo=plan.low_ammo)
        else:
            fb = fb_sw_fate(plan.level, plan.fb_b0, original_dr)
    fate = max(normal, fb)
    return fate, normal, fb, mark and fate != Fate.ELIM


def weapon_candidates(plan: FirePlan, original_dr: int) -> tuple[str, ...]:
    """Weapons that go to A9.71 Random Selection for this Original DR (stack order).

    MGs, FB-subject SW (FB16.34) and weapons reaching their X# are pooled; a pool of one is
    affected without a dr.

    >>> from rules_core.asl.examples import fb16_fire_group
    >>> plan = plan_fire(fb16_fire_group(), Fire(weapons=("HMG", "LMG"), units=("A", "B")))
    >>> weapon_candidates(plan, 9), weapon_candidates(plan, 10)
    ((), ('HMG', 'LMG'))
    """
    names = []
    for w in plan.weapons:
        fate, normal, _, _ = weapon_fate(w, original_dr)
        if pooled_for(w, fate, normal):
            names.append(w.name)
    return tuple(names)


def pooled_for(plan: WeaponPlan, fate: Fate, normal: Fate) -> bool:
    """Whether a weapon whose Original DR gives ``fate`` (``normal`` by A9.7 alone) goes to A9.71
    Random Selection (see :func:`weapon_candidates`)."""
    return fate != Fate.OK and (plan.pooled or (plan.kind != "gun" and normal == Fate.ELIM))


def mmc_candidates(plan: FirePlan, original_dr: int) -> tuple[str, ...]:
    """MMC that FB16.2 Unit Replacement may affect for this Original DR (stack order).

    >>> from rules_core.asl.examples import fb16_fire_group
    >>> plan = plan_fire(fb16_fire_group(), Fire(weapons=("HMG",), units=("A", "B"), leader="9-1"))
    >>> mmc_candidates(plan, 10), mmc_candidates(plan, 11)
    ((), ('A', 'B'))
    """
    return tuple(m.name for m in plan.mmc if unit_replacement_triggered(m.level, original_dr))


def _weapon_plan(
    state: AslState,
    weapon: Weapon,
    action: Fire,
    phase: str,
    helper: Unit | None,
    sustained_names: set[str],
    lowering: dict[str, int],
) -> tuple[WeaponPlan, list[Note]]:
    """One weapon's legality (A9.1-A9.3, A9.7, A9.8, A9.22, FB16.51) and its numbers."""
    owner, notes = check_weapon_fires(state, weapon, phase)
    auto = check_weapon_again(state, weapon, action, phase)
    level = weapon_level(state, weapon)
    sustained, more = check_sustained(
        weapon,
        owner,
        action,
        phase,
        level,
        declared=weapon.name.lower() in sustained_names,
        auto=auto,
        helper=helper,
    )
    notes += more
    figures = fired_as(state, weapon)  # a dm German HMG/MMG: the LMG's are not ours (A9.8)
    check_lane_weapon(figures, owner, action)
    extra = lowering.get(weapon.name.lower(), 0)
    total = extra + (SUSTAINED_FIRE_LOWERING if sustained else 0)
    # A9.71 pools MGs (and weapons reaching their X#); FB16.34 every FB-subject SW.
    pooled = weapon.is_mg or (level > 0 and weapon.kind == "sw_other")
    plan = WeaponPlan(
        name=weapon.name,
        kind=weapon.kind,
        printed_b=weapon.printed_b,
        printed_x=weapon.printed_x,
        rof=figures.rof,
        lowering=total,
        level=level,
        fb_b0=fb_original_b(weapon),
        low_ammo=weapon.low_ammo,
        sustained=sustained,
        pooled=pooled,
        possessor=weapon.possessor,
    )
    return plan, notes


def _can_cower(
    state: AslState,
    action: Fire,
    weapons: Sequence[Weapon],
    units: Sequence[Unit],
    leader: Unit | None,
) -> bool:
    """A7.9: Infantry fire with no leader directing (Inherent FP, a MMC's SW); never a Fire
    Lane's Residual FP (A9.222), nor a MG fired by SMC, singly or two together (A9.12: "the MG
    is exempt from Cowering")."""
    if action.lane_residual or leader is not None:
        return False
    return bool(units) or any(
        (o := state.unit(w.possessor or "")) is not None and o.is_mmc for w in weapons if w.is_sw
    )


MIN_SAN = 2
"""A14.1: a side whose SAN is below 2 has no Sniper."""


def enemy_side(state: AslState, side: str) -> str | None:
    """The other side of a two-sided game: the one fired at (A14.1 reads its SAN).

    >>> from rules_core.asl.examples import fb16_fire_group
    >>> enemy_side(fb16_fire_group(), "Axis")
    'Allied'
    """
    others = [s.name for s in state.sides if s.name.lower() != side.lower()]
    return others[0] if len(others) == 1 else None


def _lanes_canceled(
    state: AslState, action: Fire, weapons: Sequence[Weapon], units: Sequence[Unit]
) -> tuple[str, ...]:
    """A9.223: a TPBF situation cancels the Fire Lane of the MG firing in it and of the MG whose
    manning Infantry fire in it."""
    if not action.tpbf:
        return ()
    lanes = {lane.weapon.lower() for lane in state.fire_lanes}
    crews = {u.name for u in units} | {w.possessor for w in weapons if w.possessor}
    return tuple(
        w.name
        for w in state.weapons
        if w.name.lower() in lanes and (w in weapons or w.possessor in crews)
    )


def plan_fire(state: AslState, action: Fire) -> FirePlan:
    """Validate an IFT attack and gather its numbers (before any die).

    :raises InvalidInput: unknown names, bad lowering entries, missing MPh target data.
    :raises IllegalAction: the phase and who fires in it (A3), use this phase and Player Turn
        (A8, A9.11, A9.12, A9.2), unit status (A.7), A9.3 Sustained Fire, A9.22 Fire Lane,
        A9.4 leader direction, FB16.51 bans.

    >>> from rules_core.asl.examples import fb16_fire_group
    >>> [m.name for m in plan_fire(fb16_fire_group(), Fire(units=("A", "B"))).mmc]
    ['A', 'B']
    """
    weapons, units, phase, side = firers(state, action)
    notes: list[Note] = []
    if action.correction:
        notes.append(
            ("A3", f"out-of-sequence correction by a referee: fire in the {PHASE_NAMES[phase]}")
        )
    leader = check_leader(state, action, side, weapons)
    helper = check_helper(state, action, side, units)
    sustained_names = {n.lower() for n in action.sustained}
    names = {w.name.lower() for w in weapons}
    if not sustained_names <= names:
        raise InvalidInput("Sustained Fire names a weapon that is not firing.")
    lowering = parse_lowering(action.lowering, names)
    check_fpf_tpbf(action, phase)
    notes += check_lane_options(action, phase, weapons, units, sustained_names)
    check_targets(action, phase, weapons)
    if phase == "mph" and not action.lane_residual:
        check_shot_limit(state, weapons, action.targets, action.location, action.mf)
    notes += check_units(units, phase, action)
    check_lane_crew(state, action, weapons, units)
    weapon_plans = []
    for weapon in weapons:
        plan, more = _weapon_plan(state, weapon, action, phase, helper, sustained_names, lowering)
        weapon_plans.append(plan)
        notes += more
    notes += check_covered_arc(action, weapons)
    usage = (
        Usage(leader=leader.name if leader is not None else None)
        if action.lane_residual
        else mg_usage(
            state, weapons, units, phase=phase, range_=action.range, helper=helper, leader=leader
        )
    )
    levels = [unit_level(state, u) for u in units]
    mmc = [
        MmcPlan(u.name, level, u.replaced_by, u.berserk)
        for u, level in zip(units, levels, strict=True)
        if u.kind in ("squad", "half_squad") and not personnel_immune(u) and level
    ]
    fb_small_arms = any(w.level > 0 and w.kind != "gun" for w in weapon_plans) or any(
        level > 0 and not personnel_immune(u) for u, level in zip(units, levels, strict=True)
    )
    san_side = enemy_side(state, side)
    enemy = state.side(san_side) if san_side is not None else None
    return FirePlan(
        weapons=tuple(weapon_plans),
        mmc=tuple(mmc),
        phase=phase,
        fb_small_arms=fb_small_arms,
        fire_lane=action.fire_lane,
        lane_residual=action.lane_residual,
        fpf=action.fpf,
        can_cower=_can_cower(state, action, weapons, units, leader),
        san=enemy.san if enemy is not None and enemy.san >= MIN_SAN else 0,
        san_side=san_side,
        lanes_canceled=_lanes_canceled(state, action, weapons, units),
        lanes_manned=tuple(
            (m.name, mg)
            for m in mmc
            for mg in manned_lanes(state, state.unit(m.name))  # type: ignore[arg-type]
        ),
        fixes_ca=tuple(
            w.name
            for w in weapons
            if fixes_ca(w) and action.mg_terrain in ("woods", "rubble", "building")
        ),
        usage=Usage(
            inherent=usage.inherent,
            mgs=usage.mgs,
            forfeits=usage.forfeits,
            sw_users=usage.sw_users,
            leader=usage.leader,
            notes=(*notes, *usage.notes),
        ),
    )


__all__ = [
    "MIN_SAN",
    "FirePlan",
    "MmcPlan",
    "WeaponPlan",
    "enemy_side",
    "mmc_candidates",
    "plan_fire",
    "pooled_for",
    "weapon_candidates",
    "weapon_fate",
]
