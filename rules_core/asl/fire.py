"""IFT attacks by any mix of weapons and Inherent-FP units (A9.2, A9.3, A9.7, A9.71, A9.22, FB16).

A9.2-A9.71 and FB16.2-16.5. Resolution is split so that exact odds can be computed fast:
:func:`plan_fire` validates (no dice), :func:`weapon_candidates` / :func:`mmc_candidates` say who
takes part in each Random Selection for an Original DR, and :func:`settle` is the pure result of
the dice. :func:`resolve_fire` rolls; :func:`fire_odds` enumerates exactly.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import TypeVar

from rules_core.asl.actions import Fire
from rules_core.asl.breakdown import (
    SUSTAINED_FIRE_LOWERING,
    Fate,
    breakdown_numbers,
    normal_breakdown,
)
from rules_core.asl.fb16 import (
    fb_gun_fate,
    fb_original_b,
    fb_sw_fate,
    personnel_immune,
    unit_level,
    unit_replacement_triggered,
    weapon_level,
)
from rules_core.asl.random_selection import random_selection, selection_odds
from rules_core.asl.state import (
    MARKER_NAMES,
    PHASE_NAMES,
    AslState,
    FireLane,
    FireMarker,
    Phase,
    ShotCount,
    Unit,
    Weapon,
)
from rules_core.asl.turn import (
    adjacent,
    check_not_spent,
    check_possessor_fires,
    check_side_fires,
    fire_phase,
    marker_text,
    need_range,
)
from rules_core.dice import Dice, Roll
from rules_core.errors import IllegalAction, InvalidInput
from rules_core.outcome import Fact, Modifier, Outcome, Step

PHASE_FIRE_MARKER: dict[str, FireMarker] = {
    "pfph": "prep",
    "mph": "first",
    "dfph": "final",
    "afph": "none",
}
"""A9.2: the fire marker a weapon earns when it does not keep Multiple ROF, by phase."""

LEADER_RANGE = 16
"""A9.4: beyond 16 hexes a MG needs Infantry-leader direction (reading 12)."""

MG_CAPACITY: dict[str, int] = {"squad": 2, "half_squad": 1, "crew": 1, "leader": 1, "hero": 1}
"""A9.11/A9.12: SW MGs one unit may fire in one attack."""


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


@dataclass(frozen=True)
class MmcPlan:
    """A qualified Axis MMC using its Inherent FP (FB16.2)."""

    name: str
    level: int
    chain: tuple[str, ...]
    berserk: bool


@dataclass(frozen=True)
class Usage:
    """What a declaration uses, recorded in the state once it is resolved (A9.11, A9.12, A8)."""

    inherent: tuple[str, ...] = ()
    """Units attacking with their Inherent FP."""
    mgs: tuple[tuple[str, str], ...] = ()
    """(possessor, SW MG) pairs fired."""
    forfeits: tuple[str, ...] = ()
    """A9.11: units whose Inherent FP is forfeited for the rest of the Player Turn."""
    sw_users: tuple[str, ...] = ()
    """A9.12: SMC who fired a SW (no leadership DRM this phase)."""
    leader: str | None = None
    """The leader directing the attack."""
    notes: tuple[tuple[str, str], ...] = ()
    """(rule, text) lines about the declaration, shown before the dice."""


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
    """A7.9: Infantry fire with no leader directing Cowers on doubles (a lone SMC's MG, A9.12,
    and a Fire Lane's Residual FP, A9.222, never do)."""


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


_Counter = TypeVar("_Counter", Unit, Weapon)


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
        if fate != Fate.OK and (w.pooled or (w.kind != "gun" and normal == Fate.ELIM)):
            names.append(w.name)
    return tuple(names)


def mmc_candidates(plan: FirePlan, original_dr: int) -> tuple[str, ...]:
    """MMC that FB16.2 Unit Replacement may affect for this Original DR (stack order).

    >>> from rules_core.asl.examples import fb16_fire_group
    >>> plan = plan_fire(fb16_fire_group(), Fire(weapons=("HMG",), units=("A", "B"), leader="9-1"))
    >>> mmc_candidates(plan, 10), mmc_candidates(plan, 11)
    ((), ('A', 'B'))
    """
    return tuple(m.name for m in plan.mmc if unit_replacement_triggered(m.level, original_dr))


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
    pool = set(weapon_candidates(plan, dr))
    results = []
    for w in plan.weapons:
        fate, normal, fb, mark = weapon_fate(w, dr)
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
    return tuple(facts)


def _parse_lowering(entries: Sequence[str], names: set[str]) -> dict[str, int]:
    lowering: dict[str, int] = {}
    for entry in entries:
        name, sep, amount = entry.rpartition(":")
        if not sep or not amount.strip().isdigit():
            raise InvalidInput(f"Lowering {entry!r} should look like 'LMG:1'.")
        key = name.strip().lower()
        if key not in names:
            raise InvalidInput(f"Lowering names {name.strip()!r}, which is not firing.")
        lowering[key] = lowering.get(key, 0) + int(amount)
    return lowering


def _lookup_weapons(state: AslState, names: Sequence[str]) -> list[Weapon]:
    return _lookup(names, state.weapon, "weapon")


def _lookup_units(state: AslState, names: Sequence[str]) -> list[Unit]:
    return _lookup(names, state.unit, "unit")


def _lookup(
    names: Sequence[str], find: Callable[[str], _Counter | None], what: str
) -> list[_Counter]:
    """The named counters, in order; an unknown or repeated name is refused."""
    found: list[_Counter] = []
    seen: set[str] = set()
    for name in names:
        thing = find(name)
        if thing is None:
            raise InvalidInput(f"There is no {what} called {name!r} in this game.")
        if thing.name in seen:
            raise InvalidInput(f"{thing.name} is named twice.")
        seen.add(thing.name)
        found.append(thing)
    return found


def firing_side(state: AslState, action: Fire) -> str | None:
    """The side of the first named firer (for permissions), or ``None`` if unknown (A7.5).

    >>> from rules_core.asl.examples import fb16_fire_group
    >>> firing_side(fb16_fire_group(), Fire(units=("A",)))
    'Axis'
    """
    for name in action.weapons:
        weapon = state.weapon(name)
        if weapon is not None:
            return weapon.side
    for name in action.units:
        unit = state.unit(name)
        if unit is not None:
            return unit.side
    return None


def _check_marker(weapon: Weapon, phase: str, action_fpf: bool, range_: int | None) -> bool:
    """Whether the weapon's marker makes this attack Sustained Fire (A9.3); refuse if it bars it.

    A MG marked First Fire that fires again in the MPh (Subsequent First Fire) or in the DFPh is
    using Sustained Fire; in the DFPh only at ADJACENT units (A9.2 EX, A8.4). A MG marked Final
    Fire fires again only as FPF (A8.31). A Prep Fire marker bars fire until it is removed.
    """
    marker = weapon.fire_marker
    if marker == "none":
        return False
    if marker == "prep" and phase == "pfph":
        return False  # A9.2: it kept Multiple ROF in this PFPh (``spent`` bars it otherwise)
    if action_fpf and phase == "mph" and marker in ("first", "final"):
        return False  # A8.31: FPF (Sustained Fire by itself)
    if marker == "first" and phase == "mph":
        return True
    if marker == "first" and phase == "dfph":
        need_range(range_, f"Final Fire by {weapon.name}, marked First Fire,")
        if not adjacent(range_):
            raise IllegalAction(
                f"{weapon.name} is marked First Fire, so in the DFPh it fires only at an ADJACENT "
                "unit (A8.4).",
                rule="A9.2",
            )
        return True
    if marker == "final" and phase == "mph":
        raise IllegalAction(
            f"{weapon.name} is marked Final Fire; in the MPh it may fire again only as FPF.",
            rule="A9.3",
        )
    raise IllegalAction(
        f"{weapon.name} is {marker_text(marker)} and may not fire in the {PHASE_NAMES[phase]}.",
        rule="A9.2",
    )


def _check_unit_marker(unit: Unit, phase: str, fpf: bool, range_: int | None) -> str | None:
    """A8: a unit's Inherent FP by its marker; returns a note when the rules give another shot."""
    marker = unit.fire_marker
    if phase == "afph" and unit.fired:
        raise IllegalAction(
            f"{unit.name} has already fired its Inherent FP in the Advancing Fire Phase.",
            rule="A7",
        )
    if marker == "none":
        return None
    if marker == "prep" and phase == "pfph" and not unit.fired:
        return None  # A9.11: it fired a SW this PFPh; its Inherent FP may still fire once
    if marker == "prep" and phase == "afph" and unit.forfeit and not unit.fired:
        return None  # refused with the MGs' A9.11 forfeit, the reason the player looks for
    if phase == "mph":
        if fpf:
            return None
        if marker == "first":
            return f"{unit.name} is marked First Fire: Subsequent First Fire (A8.3)"
        raise IllegalAction(
            f"{unit.name} is marked Final Fire; in the MPh it may fire again only as FPF.",
            rule="A8.31",
        )
    if phase == "dfph" and marker == "first":
        need_range(range_, f"Final Fire by {unit.name}, marked First Fire,")
        if not adjacent(range_):
            raise IllegalAction(
                f"{unit.name} is marked First Fire, so in the DFPh it fires only at an ADJACENT "
                "unit.",
                rule="A8.4",
            )
        return None
    raise IllegalAction(
        f"{unit.name} is {marker_text(marker)} and may not fire in the {PHASE_NAMES[phase]}.",
        rule="A3" if marker == "prep" else "A8.4",
    )


def mg_usage(
    state: AslState,
    weapons: Sequence[Weapon],
    inherent: Sequence[Unit],
    *,
    phase: str,
    range_: int | None,
    helper: Unit | None,
    leader: Unit | None,
) -> Usage:
    """A9.11/A9.12 over the whole phase and Player Turn: how many SW MGs each possessor fires
    and what that costs (Inherent FP, leadership DRM); leaders have no Inherent FP.

    >>> from rules_core.asl.examples import fb16_fire_group
    >>> st = fb16_fire_group()
    >>> mg_usage(st, [st.weapon("HMG")], [st.unit("A")], phase="pfph", range_=None,
    ...          helper=None, leader=None).mgs
    (('A', 'HMG'),)
    """
    notes: list[tuple[str, str]] = []
    per_owner: dict[str, list[str]] = {}
    for weapon in weapons:
        if weapon.kind == "sw_mg" and weapon.possessor is not None:
            per_owner.setdefault(weapon.possessor, []).append(weapon.name)
    forfeits: list[str] = []
    sw_users: list[str] = []
    for owner_name, names in per_owner.items():
        owner = state.unit(owner_name)
        assert owner is not None
        fired = list(dict.fromkeys((*owner.mgs, *names)))
        earlier = [n for n in owner.mgs if n not in names]
        before = f" (it fired {', '.join(earlier)} earlier this phase)" if earlier else ""
        if owner.kind == "squad":
            if len(fired) > 2:
                raise IllegalAction(
                    f"{owner.name} may fire at most two SW MGs in a phase{before}.", rule="A9.11"
                )
            if len(fired) == 2 and not owner.forfeit:
                if owner.fired:
                    raise IllegalAction(
                        f"{owner.name} has fired its Inherent FP this phase, so it may not fire "
                        "a second SW MG in it (that costs its Inherent FP for this phase).",
                        rule="A9.11",
                    )
                forfeits.append(owner.name)
                notes.append(
                    (
                        "A9.11",
                        f"{owner.name} fires two SW MGs: its Inherent FP is forfeited for this "
                        "and the remaining fire phases of the Player Turn",
                    )
                )
        elif owner.is_mmc:
            if len(fired) > 1:
                raise IllegalAction(f"{owner.name} may fire only one SW MG{before}.", rule="A9.11")
            if owner.fired:
                raise IllegalAction(
                    f"{owner.name} has fired its Inherent FP this phase; a "
                    f"{owner.kind.replace('_', '-')} fires a SW MG only instead of it.",
                    rule="A9.11",
                )
            if not owner.forfeit:
                forfeits.append(owner.name)
                notes.append(
                    (
                        "A9.11",
                        f"{owner.name} fires {names[0]}: its Inherent FP is forfeited for the "
                        "remaining fire phases of the Player Turn",
                    )
                )
        else:
            if len(fired) > 1:
                raise IllegalAction(f"{owner.name} may fire only one SW MG{before}.", rule="A9.12")
            if owner.directed or (leader is not None and leader.name == owner.name):
                raise IllegalAction(
                    f"{owner.name} directs fire this phase; a leader who fires a SW loses his "
                    "leadership DRM for that phase.",
                    rule="A9.12",
                )
            sw_users.append(owner.name)
            if helper is not None:
                sw_users.append(helper.name)
                notes.append(
                    ("A9.12", f"{owner.name} and {helper.name} fire {names[0]} at full FP")
                )
            elif owner.kind == "leader":
                notes.append(
                    (
                        "A9.12",
                        f"{owner.name} fires {names[0]} alone: Area Fire (FP halved), no "
                        "leadership DRM this phase; the MG is exempt from Cowering",
                    )
                )
    if helper is not None:
        owners = [state.unit(n) for n in per_owner]
        if not any(o is not None and o.is_smc for o in owners):
            raise IllegalAction(
                "helper is the second SMC firing a MG possessed by an SMC; no firing MG is.",
                rule="A9.12",
            )
    for unit in inherent:
        if unit.kind == "leader":
            raise IllegalAction(
                f"{unit.name} is a leader and has no Inherent FP; name him as leader to direct "
                "the attack.",
                rule="A9.12",
            )
        if unit.forfeit or unit.name in forfeits:
            if unit.kind == "squad" and phase == "dfph":
                need_range(range_, f"{unit.name}'s forfeited Inherent FP (A7.353)")
                if adjacent(range_):
                    notes.append(
                        (
                            "A7.353",
                            f"{unit.name} fires its forfeited Inherent FP halved at an ADJACENT "
                            "unit in Final Fire",
                        )
                    )
                    continue
            mgs = ", ".join(unit.mgs) or ", ".join(
                n for o, n in _pairs(per_owner) if o == unit.name
            )
            what = mgs or "SW MGs earlier this Player Turn"
            raise IllegalAction(
                f"{unit.name} fired {what} and so forfeits its Inherent FP for the "
                "remaining fire phases of this Player Turn.",
                rule="A9.11",
            )
    return Usage(
        inherent=tuple(u.name for u in inherent),
        mgs=tuple(_pairs(per_owner)),
        forfeits=tuple(forfeits),
        sw_users=tuple(sw_users),
        leader=leader.name if leader is not None else None,
        notes=tuple(notes),
    )


def _pairs(per_owner: dict[str, list[str]]) -> list[tuple[str, str]]:
    return [(owner, name) for owner, names in per_owner.items() for name in names]


def dm_fires_as_lmg(state: AslState, weapon: Weapon) -> bool:
    """A9.8 EXC: a dismantled German HMG/MMG may be fired as a German LMG.

    >>> from rules_core.asl.examples import build_state
    >>> dm_fires_as_lmg(build_state([]), Weapon(name="MG", side="Axis", kind="sw_mg", mg="hmg"))
    True
    """
    return weapon.mg in ("hmg", "mmg") and weapon_maker(state, weapon) == "German"


def weapon_maker(state: AslState, weapon: Weapon) -> str:
    """The nationality that made a weapon: its original owner's if captured, else its side's.

    >>> from rules_core.asl.examples import build_state
    >>> weapon_maker(build_state([]), Weapon(name="DP", side="Axis", kind="sw_mg",
    ...                                      captured_from="Allied"))
    'Russian'
    """
    side = state.side(weapon.captured_from or weapon.side)
    return side.nationality if side is not None else ""


def _check_spraying(weapons: Sequence[Weapon], phase: str, range_: int | None) -> None:
    """A9.5/A9.52: Spraying Fire by MGs (a vehicular MG only as MA) and Inherent FP; a MG
    marked First Fire sprays in Final Fire only at two hexes both adjacent."""
    for weapon in weapons:
        if not weapon.is_mg or (weapon.kind == "veh_mg" and not weapon.main_armament):
            raise IllegalAction(
                f"{weapon.name} cannot use Spraying Fire; in a Fire Group every member must.",
                rule="A9.52" if len(weapons) > 1 else "A9.5",
            )
        if phase == "dfph" and weapon.fire_marker == "first":
            need_range(range_, "Spraying Fire by a MG marked First Fire")
            if not adjacent(range_):
                raise IllegalAction(
                    f"{weapon.name} is marked First Fire: in Final Fire it sprays only two hexes "
                    "both adjacent to it.",
                    rule="A9.52",
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
    if not action.weapons and not action.units:
        raise InvalidInput("Name at least one weapon or unit that fires.")
    weapons = _lookup_weapons(state, action.weapons)
    units = _lookup_units(state, action.units)
    phase = fire_phase(state, action.phase, action.correction, "fire")
    sides = {w.side for w in weapons} | {u.side for u in units}
    if len(sides) > 1:
        raise InvalidInput("All firers of one attack must belong to the same side.")
    (side,) = sides
    check_side_fires(state, phase, side)
    notes: list[tuple[str, str]] = []
    if action.correction:
        notes.append(
            ("A3", f"out-of-sequence correction by a referee: fire in the {PHASE_NAMES[phase]}")
        )
    long_range = action.range is not None and action.range > LEADER_RANGE
    leader = None
    if action.leader is not None:
        leader = state.unit(action.leader)
        if leader is None:
            raise InvalidInput(f"There is no unit called {action.leader!r} in this game.")
        if leader.kind != "leader" or leader.side != side:
            raise IllegalAction(f"{leader.name} is not a friendly leader.", rule="A7.53")
        if not leader.good_order:
            raise IllegalAction(
                f"{leader.name} is broken; only a Good Order leader directs fire.",
                rule="A9.4" if long_range else "A.7",
            )
        if leader.sw_used:
            raise IllegalAction(
                f"{leader.name} fired a SW this phase and so has no leadership DRM in it.",
                rule="A9.12",
            )
    if long_range and leader is None and any(w.is_mg and not w.cmg for w in weapons):
        raise IllegalAction(
            f"A MG firing beyond {LEADER_RANGE} hexes needs a Good Order leader directing it.",
            rule="A9.4",
        )
    helper = None
    if action.helper is not None:
        helper = state.unit(action.helper)
        if helper is None:
            raise InvalidInput(f"There is no unit called {action.helper!r} in this game.")
        if not helper.is_smc or helper.side != side or helper in units:
            raise IllegalAction(
                f"{helper.name} is not a second friendly SMC free to fire the MG.", rule="A9.12"
            )
        if not helper.good_order:
            raise IllegalAction(f"{helper.name} is broken and cannot fire.", rule="A.7")
    sustained_names = {n.lower() for n in action.sustained}
    names = {w.name.lower() for w in weapons}
    if not sustained_names <= names:
        raise InvalidInput("Sustained Fire names a weapon that is not firing.")
    lowering = _parse_lowering(action.lowering, names)
    if action.fpf:
        if phase != "mph":
            raise IllegalAction("Final Protective Fire happens only in the MPh.", rule="A8.31")
        need_range(action.range, "FPF")
        if not adjacent(action.range):
            raise IllegalAction(
                "FPF is fired only at a unit moving ADJACENT to or into the firer's Location.",
                rule="A8.31",
            )
    if action.tpbf:
        if phase != "mph":
            raise IllegalAction(
                "tpbf is fire at a unit entering the MG's Location in the MPh.", rule="A9.223"
            )
        if action.range not in (None, 0):
            raise InvalidInput("tpbf is fire at the firer's own Location: range 0.")
    if action.lane_residual and (len(weapons) != 1 or units or weapons[0].kind != "sw_mg"):
        raise IllegalAction("A Fire Lane's Residual FP attacks by itself.", rule="A9.22")
    if action.fire_lane and not any(w.kind == "sw_mg" for w in weapons):
        raise IllegalAction("A Fire Lane is declared with a SW MG.", rule="A9.22")
    if (action.fire_lane or action.lane_residual) and (sustained_names or action.fpf):
        raise IllegalAction("A Fire Lane attack is not Sustained Fire or FPF.", rule="A9.22")
    if action.spraying:
        _check_spraying(weapons, phase, action.range)
        notes.append(
            (
                "A9.5",
                "Spraying Fire at two adjacent hexes: Area Fire (FP halved) at each; the one "
                "Original DR is every weapon's breakdown and ROF check for both attacks",
            )
        )
        if action.fire_lane:
            raise IllegalAction("A Fire Lane is not laid with Spraying Fire.", rule="A9.22")
    if action.fire_lane and phase != "mph":
        raise IllegalAction("A Fire Lane is declared with Defensive First Fire.", rule="A9.22")
    if action.fire_lane and (action.tpbf or action.range == 0):
        raise IllegalAction("A Fire Lane is not declared when using TPBF.", rule="A9.22")
    if action.fire_lane and action.lane_residual:
        raise InvalidInput("Lay a Fire Lane or resolve its Residual attack, not both.")
    lanes = {lane.weapon.lower() for lane in state.fire_lanes}
    # A9.2: the MPh shot limit per (MG, unit, Location) binds Subsequent First Fire (Sustained
    # Fire) and FPF too: the A9.2 EX MG "cannot use Subsequent First Fire vs the broken squad
    # because it has already fired on it twice and the unit had expended only two MF".
    if phase == "mph" and not action.lane_residual:
        limited = [w for w in weapons if w.is_mg]
        if limited:
            if not action.targets or action.location is None or action.mf is None:
                raise InvalidInput(
                    "MPh fire by a MG needs targets, location and mf (A9.2 shot limit)."
                )
            limit = max(1, action.mf)
            for weapon in limited:
                for target in action.targets:
                    taken = shots_taken(state, weapon.name, target, action.location)
                    if taken >= limit:
                        raise IllegalAction(
                            f"{weapon.name} has already attacked {target} in {action.location} "
                            f"{taken} time(s) and it spent {action.mf} MF there.",
                            rule="A9.2",
                        )
    for unit in units:
        if not unit.good_order:
            raise IllegalAction(f"{unit.name} is broken and cannot fire.", rule="A.7")
        note = _check_unit_marker(unit, phase, action.fpf, action.range)
        if note is not None:
            notes.append(("A8.3", note))
    weapon_plans = []
    for weapon in weapons:
        if weapon.status != "ok":
            raise IllegalAction(f"{weapon.name} is {weapon.status} and cannot fire.", rule="A9.7")
        owner = check_possessor_fires(state, weapon)
        if owner is not None and phase == "afph" and owner.fire_marker == "prep":
            raise IllegalAction(
                f"{owner.name} is marked Prep Fire and may not fire {weapon.name} in the "
                "Advancing Fire Phase.",
                rule="A3",
            )
        if weapon.dm:
            if not dm_fires_as_lmg(state, weapon):
                raise IllegalAction(
                    f"{weapon.name} is dismantled and may not fire until reassembled.", rule="A9.8"
                )
            notes.append(
                (
                    "A9.8",
                    f"{weapon.name} is dismantled and fires as a German LMG (if it malfunctions "
                    "so, it is marked with a MG Malfunction counter)",
                )
            )
        auto_sustained = False
        if action.lane_residual:
            if weapon.name.lower() not in lanes:
                raise IllegalAction(f"{weapon.name} has no Fire Lane.", rule="A9.22")
        else:
            if weapon.lane_laid and phase == "mph" and not action.tpbf:
                raise IllegalAction(
                    f"{weapon.name} laid a Fire Lane this MPh and may not fire again until the "
                    "DFPh, except at a unit entering its Location (tpbf:true).",
                    rule="A9.22",
                )
            check_not_spent(weapon, phase)
            auto_sustained = _check_marker(weapon, phase, action.fpf, action.range)
        declared = weapon.name.lower() in sustained_names
        if declared and not action.fpf and weapon.fire_marker != "first":
            raise IllegalAction(
                "Sustained Fire is Subsequent First Fire or Final Fire by a MG marked First "
                f"Fire, or FPF; {weapon.name} is not marked First Fire.",
                rule="A9.3",
            )
        # A9.3: a MG that attacks using FPF is using Sustained Fire (B# −2), declared or not.
        sustained = declared or auto_sustained or (action.fpf and weapon.is_mg)
        level = weapon_level(state, weapon)
        if sustained:
            if not weapon.is_mg or (weapon.kind == "veh_mg" and not weapon.main_armament):
                raise IllegalAction(
                    f"{weapon.name} may not use Sustained Fire (only SW MGs and a MA MG).",
                    rule="A9.3",
                )
            if owner is not None and owner.is_smc and helper is None:
                raise IllegalAction(
                    f"{weapon.name} would use Sustained Fire, which a MG fired by a lone SMC "
                    "may not.",
                    rule="A9.3",
                )
            if phase not in ("mph", "dfph"):
                raise IllegalAction(
                    "Sustained Fire is Subsequent First Fire, FPF or Final Fire only.",
                    rule="A9.3",
                )
            if level >= 4 and not action.fpf:
                raise IllegalAction(
                    f"{weapon.name} would use Sustained Fire, which is not allowed at "
                    f"Ammunition Shortage level {level} except as FPF.",
                    rule="FB16.51",
                )
            if auto_sustained and not declared:
                why = "Subsequent First Fire" if phase == "mph" else "Final Fire"
                notes.append(
                    (
                        "A9.3",
                        f"{weapon.name} is marked First Fire: {why} is Sustained Fire "
                        "(B# −2, FP halved as Area Fire)",
                    )
                )
        if action.fire_lane and weapon.kind == "sw_mg" and weapon.normal_range is not None:
            need_range(action.range, f"a Fire Lane of {weapon.name} (Normal Range)")
            assert action.range is not None
            if action.range > weapon.normal_range:
                raise IllegalAction(
                    f"A Fire Lane is declared within Normal Range: {weapon.name}'s is "
                    f"{weapon.normal_range} hexes, the target is at {action.range}.",
                    rule="A9.22",
                )
        if (
            action.fire_lane
            and weapon.kind == "sw_mg"
            and (
                owner is None
                or not owner.good_order
                or owner.pinned
                or weapon.fire_marker != "none"
            )
        ):
            raise IllegalAction(
                "A Fire Lane needs a Good Order SW MG without a First/Final Fire marker, "
                "manned by unpinned Infantry.",
                rule="A9.22",
            )
        extra = lowering.get(weapon.name.lower(), 0)
        total = extra + (SUSTAINED_FIRE_LOWERING if sustained else 0)
        # A9.71 pools MGs (and weapons reaching their X#); FB16.34 every FB-subject SW.
        pooled = weapon.is_mg or (level > 0 and weapon.kind == "sw_other")
        weapon_plans.append(
            WeaponPlan(
                name=weapon.name,
                kind=weapon.kind,
                printed_b=weapon.printed_b,
                printed_x=weapon.printed_x,
                rof=weapon.rof,
                lowering=total,
                level=level,
                fb_b0=fb_original_b(weapon),
                low_ammo=weapon.low_ammo,
                sustained=sustained,
                pooled=pooled,
            )
        )
    usage = (
        Usage(leader=leader.name if leader is not None else None)
        if action.lane_residual
        else mg_usage(
            state,
            weapons,
            units,
            phase=phase,
            range_=action.range,
            helper=helper,
            leader=leader,
        )
    )
    mmc = []
    for unit in units:
        level = unit_level(state, unit)
        if unit.kind in ("squad", "half_squad") and not personnel_immune(unit) and level > 0:
            mmc.append(MmcPlan(unit.name, level, unit.replaced_by, unit.berserk))
    fb_small_arms = any(w.level > 0 and w.kind != "gun" for w in weapon_plans) or any(
        unit_level(state, u) > 0 and not personnel_immune(u) for u in units
    )
    return FirePlan(
        weapons=tuple(weapon_plans),
        mmc=tuple(mmc),
        phase=phase,
        fb_small_arms=fb_small_arms,
        fire_lane=action.fire_lane,
        lane_residual=action.lane_residual,
        fpf=action.fpf,
        can_cower=not action.lane_residual
        and leader is None
        and (
            bool(units)
            or any(
                (o := state.unit(w.possessor or "")) is not None
                and (o.is_mmc or helper is not None)
                for w in weapons
                if w.is_sw
            )
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


def shots_taken(state: AslState, weapon: str, target: str, location: str) -> int:
    """A9.2: shots ``weapon`` took at ``target`` in ``location`` this MPh.

    >>> from rules_core.asl.examples import fb16_fire_group
    >>> shots_taken(fb16_fire_group(), "HMG", "G", "CCC6")
    0
    """
    for record in state.shots:
        if (record.weapon.lower(), record.target.lower(), record.location.lower()) == (
            weapon.lower(),
            target.lower(),
            location.lower(),
        ):
            return record.shots
    return 0


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


def resolve_fire(state: AslState, action: Fire, dice: Dice) -> Outcome[AslState]:
    """Resolve an IFT attack (A9.2, A9.3, A9.7, A9.71, A9.22, FB16.2-16.5).

    >>> from rules_core.asl.system import SYSTEM
    >>> from rules_core.dice import ScriptedDice
    >>> st = SYSTEM.new_state(["Axis", "Allied"], {})
    >>> from rules_core.asl.actions import AddUnit, AddWeapon, SetPhase
    >>> for a in (AddUnit(name="A", side="Axis", kind="squad"),
    ...           AddWeapon(name="LMG", side="Axis", kind="sw_mg", rof=1, owner="A"),
    ...           SetPhase(phase="pfph", side="Axis")):
    ...     st = SYSTEM.resolve(st, a, ScriptedDice([])).state
    >>> out = resolve_fire(st, Fire(weapons=("LMG",)), ScriptedDice([6, 6]))
    >>> out.fact("LMG"), out.explanation()[1]
    ('malfunctioned', 'A9.7: Original DR 12 ≥ B12 — LMG malfunctioned')
    """
    plan = plan_fire(state, action)
    colored, white = dice.DR("IFT DR")
    ift_roll = dice.rolls[-1]
    dr = colored + white
    pool = weapon_candidates(plan, dr)
    before = len(dice.rolls)
    weapons_selected = random_selection(pool, dice)
    weapon_rs_rolls = tuple(dice.rolls[before:])
    triggered = mmc_candidates(plan, dr)
    before = len(dice.rolls)
    mmc_selected = random_selection(triggered, dice)
    mmc_rs_rolls = tuple(dice.rolls[before:])
    result = settle(plan, colored, white, weapons_selected, mmc_selected)

    steps: list[Step] = [Step(rule=rule, text=text) for rule, text in plan.usage.notes]
    drm = (Modifier(label="IFT DRM", value=action.drm),) if action.drm else ()
    steps.append(
        Step(
            rule="A9.22" if plan.lane_residual else "A7",
            text=(
                f"{'Fire Lane Residual' if plan.lane_residual else 'IFT'} DR {dr} "
                f"({colored},{white}); Final DR {dr + action.drm} for the IFT"
            ),
            dice=(ift_roll,),
            modifiers=drm,
        )
    )
    if (
        action.range is not None
        and action.range > LEADER_RANGE
        and not all(state.weapon(w.name).cmg for w in plan.weapons if w.kind in ("sw_mg", "veh_mg"))  # type: ignore[union-attr]
    ):
        steps.append(
            Step(
                rule="A9.4",
                text=f"range {action.range} > {LEADER_RANGE} hexes — unconcealed Infantry is "
                "treated as concealed; no effect on armored or aerial targets",
            )
        )
    if weapon_rs_rolls:
        any_fb = any(w.level > 0 for w in plan.weapons if w.name in pool)
        shown = ", ".join(
            f"{r.label[len('Random Selection dr (') : -1]} {r.total}" for r in weapon_rs_rolls
        )
        steps.append(
            Step(
                rule="FB16.34" if any_fb else "A9.71",
                text=f"Random Selection among {', '.join(pool)}: {shown} — "
                f"{', '.join(n for n in pool if n in weapons_selected)} affected",
                dice=weapon_rs_rolls,
            )
        )
    plans = {w.name: w for w in plan.weapons}
    for r in result.weapons:
        rule, text = weapon_text(plans[r.name], r, dr)
        steps.append(Step(rule=rule, text=text))
    for r in result.weapons:
        if r.rof == "kept":
            rof = plans[r.name].rof
            steps.append(
                Step(
                    rule="A9.2",
                    text=f"colored dr {colored} ≤ ROF {rof} — {r.name} keeps Multiple ROF",
                )
            )
        elif r.marker is not None and not r.affected:
            if plan.fire_lane:
                steps.append(
                    Step(rule="A9.22", text=f"{r.name} lays a Fire Lane — First Fire counter")
                )
            elif plans[r.name].sustained or plan.fpf:
                why = "Sustained Fire"
                if plan.fpf:
                    why = "FPF (Sustained Fire)" if plans[r.name].sustained else "FPF"
                steps.append(Step(rule="A9.3", text=f"{why} — {r.name} marked Final Fire, no ROF"))
            else:
                rof_text = (
                    f"colored dr {colored} > ROF {plans[r.name].rof} — loses Multiple ROF; "
                    if plans[r.name].rof is not None
                    else ""
                )
                marker = (
                    "no marker needed"
                    if r.marker == "none"
                    else f"{MARKER_NAMES[r.marker]} counter"
                )
                steps.append(Step(rule="A9.2", text=f"{r.name}: {rof_text}{marker}"))
    if plan.mmc:
        if triggered:
            levels = sorted({m.level for m in plan.mmc if m.name in triggered})
            steps.append(
                Step(
                    rule="FB16.2",
                    text=f"Original DR {dr} triggers Unit Replacement at level "
                    f"{', '.join(map(str, levels))}: {', '.join(triggered)}",
                )
            )
        if mmc_rs_rolls:
            shown = ", ".join(
                f"{r.label[len('Random Selection dr (') : -1]} {r.total}" for r in mmc_rs_rolls
            )
            steps.append(
                Step(
                    rule="FB16.21",
                    text=f"Random Selection among {', '.join(triggered)}: {shown} — "
                    f"{', '.join(n for n in triggered if n in mmc_selected)} affected",
                    dice=mmc_rs_rolls,
                )
            )
        for name, effect in result.replacement:
            if effect.startswith("replaced"):
                steps.append(Step(rule="A19.13", text=f"after the attack, {name} {effect}"))
            elif effect == "broken":
                steps.append(
                    Step(rule="FB16.2", text=f"{name} cannot lose further quality — broken")
                )
            elif effect != "no effect":
                steps.append(Step(rule="FB16.2", text=f"{name} is Berserk — unaffected"))
    for r in result.weapons:
        if r.fate != Fate.OK:
            # A8.221 by itself; FB16.5 (and its EX) when the weapon is under FB.
            rule = "FB16.5" if plans[r.name].level > 0 else "A8.221"
            steps.append(Step(rule=rule, text=f"no Residual FP from {r.name}"))
    if result.no_residual_at_all:
        steps.append(
            Step(rule="FB16.5", text="Original DR 12 in an Axis Small-Arms attack — no Residual FP")
        )
    for r in result.weapons:
        if r.fate != Fate.OK and plans[r.name].kind == "dc":
            steps.append(
                Step(rule="A9.7", text=f"{r.name} broke — its attack is not resolved (A23.4)")
            )
    if result.cowered:
        steps.append(
            Step(
                rule="A7.9",
                text=f"doubles ({colored},{white}) with no leader directing — the firers Cower "
                "(one FP column to the left on the IFT)",
            )
        )
        if plan.fire_lane:
            steps.append(
                Step(
                    rule="A9.22",
                    text="the manning Infantry Cowered — no Fire Lane is placed (the MG stays "
                    "marked First Fire)",
                )
            )

    new_state = _apply(state, action, plan, result)
    if plan.lane_residual and any(r.fate != Fate.OK for r in result.weapons):
        steps.append(Step(rule="A9.22", text="the MG broke — its Fire Lane is removed"))
    return Outcome[AslState](
        state=new_state,
        steps=tuple(steps),
        rolls=_rolls_from(ift_roll, weapon_rs_rolls, mmc_rs_rolls),
        facts=fire_facts(plan, result),
    )


def _rolls_from(first: Roll, *more: tuple[Roll, ...]) -> tuple[Roll, ...]:
    out = [first]
    for group in more:
        out.extend(group)
    return tuple(out)


UNIT_MARKER_AFTER: dict[tuple[str, FireMarker], FireMarker] = {
    ("pfph", "none"): "prep",
    ("mph", "none"): "first",
    ("mph", "first"): "final",
    ("mph", "final"): "final",
    ("dfph", "none"): "final",
    ("dfph", "first"): "final",
    ("afph", "none"): "none",
}
"""A8: a unit's Inherent FP marker after it fires (Prep, First, then Subsequent First/FPF and
Final Fire are Final)."""


def record_usage(state: AslState, usage: Usage, phase: str) -> AslState:
    """The state once a declaration's use is recorded (A8 markers, A9.11, A9.12).

    >>> from rules_core.asl.examples import fb16_fire_group
    >>> st = record_usage(fb16_fire_group(), Usage(inherent=("A",), mgs=(("A", "HMG"),)), "pfph")
    >>> a = st.unit("A")
    >>> a.fired, a.fire_marker, a.mgs
    (True, 'prep', ('HMG',))
    """
    units: dict[str, Unit] = {}

    def touch(name: str, **update: object) -> None:
        unit = units.get(name) or state.unit(name)
        assert unit is not None
        units[unit.name] = unit.model_copy(update=update)

    for name in usage.inherent:
        unit = units.get(name) or state.unit(name)
        assert unit is not None
        marker = UNIT_MARKER_AFTER.get((phase, unit.fire_marker), unit.fire_marker)
        touch(name, fired=True, fire_marker=marker)
    for owner, mg in usage.mgs:
        unit = units.get(owner) or state.unit(owner)
        assert unit is not None
        if mg not in unit.mgs:
            touch(owner, mgs=(*unit.mgs, mg))
    for name in usage.forfeits:
        touch(name, forfeit=True)
    for name in usage.sw_users:
        touch(name, sw_used=True)
    if phase == "pfph":  # A3: a unit that used a SW in the PFPh is marked Prep Fire too
        for name in {owner for owner, _ in usage.mgs} | set(usage.sw_users):
            unit = units.get(name) or state.unit(name)
            assert unit is not None
            if unit.fire_marker == "none":
                touch(name, fire_marker="prep")
    if usage.leader is not None:
        touch(usage.leader, directed=True)
    return state.with_units(units)


def _apply(state: AslState, action: Fire, plan: FirePlan, result: FireResult) -> AslState:
    changed: dict[str, Weapon] = {}
    kinds = {w.name: w.kind for w in plan.weapons}
    for r in result.weapons:
        weapon = state.weapon(r.name)
        assert weapon is not None
        update: dict[str, object] = {}
        if r.fate == Fate.MALF:
            update["status"] = "malfunctioned"
        elif r.fate == Fate.ELIM:
            update["status"] = "disabled" if kinds[r.name] in ("gun", "veh_mg") else "eliminated"
        if r.mark_low:
            update["low_ammo"] = True
        if r.marker is not None:
            update["fire_marker"] = r.marker
            update["spent"] = True  # A9.2: no (or lost) Multiple ROF: no more fire this phase
        elif r.rof == "kept" and plan.phase == "pfph" and weapon.fire_marker == "none":
            # A3, A9.2: it may fire again in this PFPh, but it Prep Fired: none in the AFPh
            update["fire_marker"] = "prep"
        if plan.fire_lane and kinds[r.name] == "sw_mg":
            update["lane_laid"] = True
        if update:
            changed[weapon.name] = weapon.model_copy(update=update)
    new = state.with_weapons(changed)
    new = record_usage(new, plan.usage, plan.phase)
    units: dict[str, Unit] = {}

    def touch(name: str, **update: object) -> None:
        unit = units.get(name) or new.unit(name)
        assert unit is not None
        units[unit.name] = unit.model_copy(update=update)

    for name, effect in result.replacement:
        unit = units.get(name) or new.unit(name)
        assert unit is not None
        if effect.startswith("replaced"):
            touch(name, quality=unit.replaced_by[0], replaced_by=unit.replaced_by[1:])
        elif effect == "broken":
            touch(name, broken=True)
    new = new.with_units(units)
    broken_names = {r.name.lower() for r in result.weapons if r.fate != Fate.OK}
    if action.tpbf:  # A9.223: a TPBF situation cancels the firing MG's Fire Lane
        broken_names |= {w.name.lower() for w in plan.weapons}
    # A9.223: a lane ends when its MG breaks or its manning Infantry break (FB16.2 included)
    broken_units = {u.name for u in new.units if u.broken or u.pinned}
    lanes = tuple(
        lane
        for lane in new.fire_lanes
        if lane.weapon.lower() not in broken_names
        and ((lane_mg := new.weapon(lane.weapon)) is None or lane_mg.possessor not in broken_units)
    )
    if plan.fire_lane and not result.cowered:
        for w in plan.weapons:  # A9.22: each MG its own Fire Lane (Fire Lane FG are NA)
            if w.kind == "sw_mg" and w.name.lower() not in broken_names:
                lanes = (*lanes, FireLane(weapon=w.name, location=action.location or ""))
    shots = list(new.shots)
    if plan.phase == "mph" and not plan.lane_residual and action.location is not None:
        for w in plan.weapons:
            if w.kind not in ("sw_mg", "veh_mg"):
                continue
            for target in action.targets:
                shots = count_shot(shots, w.name, target, action.location)
    return new.model_copy(update={"fire_lanes": lanes, "shots": tuple(shots)})


def count_shot(shots: list[ShotCount], weapon: str, target: str, location: str) -> list[ShotCount]:
    """A9.2: one more shot of ``weapon`` at ``target`` in ``location`` this MPh.

    >>> count_shot([], "MG", "squad", "H5")[0].shots
    1
    """
    key = (weapon.lower(), target.lower(), location.lower())
    taken = 0
    kept = []
    for s in shots:
        if (s.weapon.lower(), s.target.lower(), s.location.lower()) == key:
            taken = s.shots
        else:
            kept.append(s)
    kept.append(ShotCount(weapon=weapon, target=target, location=location, shots=taken + 1))
    return kept


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
    "FirePlan",
    "FireResult",
    "MmcPlan",
    "Usage",
    "WeaponPlan",
    "WeaponResult",
    "count_shot",
    "fate_word",
    "fire_facts",
    "fire_odds",
    "firing_side",
    "mg_usage",
    "mmc_candidates",
    "plan_fire",
    "record_usage",
    "resolve_fire",
    "settle",
    "shots_taken",
    "weapon_candidates",
    "weapon_fate",
]
