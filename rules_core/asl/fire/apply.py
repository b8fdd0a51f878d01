"""Applying a resolved IFT attack to the state: weapon status and markers, use this phase and
Player Turn, Unit Replacement, Fire Lanes, MPh shot counts (A3, A8, A9.11, A9.12, A9.2, A9.22,
A9.223, FB16.2).
"""

from __future__ import annotations

from typing import cast

from rules_core.asl.actions import Fire
from rules_core.asl.breakdown import Fate
from rules_core.asl.fire.plan import FirePlan
from rules_core.asl.fire.result import FireResult
from rules_core.asl.fire.usage import Usage
from rules_core.asl.lanes import mans_lane, standing_lanes
from rules_core.asl.state import AslState, FireLane, FireMarker, ShotCount, Unit
from rules_core.frozen import replaced

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
    return _with_updates(state, {}, usage_updates(state, usage, phase))


Updates = dict[str, dict[str, object]]
"""The fields to change, by unit (or weapon) name: one copy each, however many rules touch it."""


def usage_updates(state: AslState, usage: Usage, phase: str) -> Updates:
    """What recording a declaration's use changes in its units (A8 markers, A9.11, A9.12)."""
    units: Updates = {}
    found: dict[str, Unit] = {}  # each unit looked up once, however many rules touch it

    def now(name: str) -> Unit:
        unit = found.get(name)
        if unit is None:
            unit = state.unit(name)
            assert unit is not None
            found[name] = unit
        return unit

    def value(name: str, field: str) -> object:
        pending = units.get(name)
        return pending[field] if pending and field in pending else getattr(now(name), field)

    def touch(name: str, **update: object) -> None:
        units.setdefault(now(name).name, {}).update(update)

    for name in usage.inherent:
        marker = cast(FireMarker, value(name, "fire_marker"))
        touch(name, fired=True, fire_marker=UNIT_MARKER_AFTER.get((phase, marker), marker))
    for owner, mg in usage.mgs:
        mgs = value(owner, "mgs")
        assert isinstance(mgs, tuple)
        if mg not in mgs:
            touch(owner, mgs=(*mgs, mg))
    for name in usage.forfeits:
        touch(name, forfeit=True)
    for name in usage.sw_users:
        touch(name, sw_used=True)
    if phase == "pfph":  # A3: a unit that used a SW in the PFPh is marked Prep Fire too
        for name in {owner for owner, _ in usage.mgs} | set(usage.sw_users):
            if value(name, "fire_marker") == "none":
                touch(name, fire_marker="prep")
    if usage.leader is not None:
        touch(usage.leader, directed=True)
    return units


def _with_updates(state: AslState, weapons: Updates, units: Updates) -> AslState:
    """``state`` with each named weapon and unit copied once with its updates (stack order
    kept); ``state`` itself when nothing changes."""
    if not weapons and not units:
        return state
    update: dict[str, object] = {}
    if weapons:
        update["weapons"] = tuple(
            replaced(w, weapons[w.name]) if w.name in weapons else w for w in state.weapons
        )
    if units:
        update["units"] = tuple(
            replaced(u, units[u.name]) if u.name in units else u for u in state.units
        )
    return replaced(state, update)


def _weapon_updates(plan: FirePlan, result: FireResult) -> Updates:
    """A9.7 status, A9.2 markers and ROF, A9.22 lanes laid, A9.21 Covered Arcs, by weapon."""
    changed: Updates = {}
    kinds = {w.name: w.kind for w in plan.weapons}
    for r in result.weapons:
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
        elif r.rof == "kept" and plan.phase == "pfph":
            # A3, A9.2: it may fire again in this PFPh and has no marker, but it Prep Fired:
            # none in the AFPh
            update["prep_fired"] = True
        if plan.fire_lane and kinds[r.name] == "sw_mg":
            update["lane_laid"] = True
        if r.name in plan.fixes_ca and r.fate == Fate.OK:
            update["ca_fixed"] = True  # A9.21: its further shots this phase inside this CA
        if update:
            changed[r.name] = update
    return changed


def apply_fire(state: AslState, action: Fire, plan: FirePlan, result: FireResult) -> AslState:
    """The state after a resolved attack (A9.7 status, A9.2 markers, A8/A9.11/A9.12 use, FB16.2
    Unit Replacement, A9.22/A9.223 Fire Lanes, A9.2 MPh shots).

    Every weapon and unit the attack changes is copied once, and the state once (then again
    only if a Fire Lane ends, is laid or a MPh shot is counted).

    >>> from rules_core.asl.examples import fb16_fire_group
    >>> from rules_core.asl.fire.plan import plan_fire
    >>> from rules_core.asl.fire.result import settle
    >>> st, fire = fb16_fire_group(), Fire(weapons=("LMG",))
    >>> plan = plan_fire(st, fire)
    >>> after = apply_fire(st, fire, plan, settle(plan, 5, 6, frozenset({"LMG"}), frozenset()))
    >>> after.weapon("LMG").status
    'malfunctioned'
    """
    weapons = {}
    for name, update in _weapon_updates(plan, result).items():
        weapon = state.weapon(name)
        assert weapon is not None
        weapons[weapon.name] = update
    units = usage_updates(state, plan.usage, plan.phase)
    for name, effect in result.replacement:
        unit = state.unit(name)
        assert unit is not None
        pending = units.setdefault(unit.name, {})
        if effect.startswith("replaced"):
            chain = pending.get("replaced_by", unit.replaced_by)
            assert isinstance(chain, tuple)
            pending.update(quality=chain[0], replaced_by=chain[1:])
        elif effect == "broken":
            pending["broken"] = True
        if not pending:
            del units[unit.name]
    new = _with_updates(state, weapons, units)
    canceled = {name.lower() for name in plan.lanes_canceled}  # A9.223: a TPBF situation
    if canceled:
        kept = tuple(f for f in new.fire_lanes if f.weapon.lower() not in canceled)
        if len(kept) != len(new.fire_lanes):
            new = replaced(new, {"fire_lanes": kept})
    # A9.223: a lane ends when its MG breaks or its manning Infantry break (FB16.2 included)
    new, _ = standing_lanes(new)
    lanes = new.fire_lanes
    if plan.fire_lane and not result.cowered:
        for w in plan.weapons:  # A9.22: each MG its own Fire Lane (Fire Lane FG are NA)
            mg = new.weapon(w.name)
            if w.kind == "sw_mg" and mg is not None and mans_lane(new, mg):
                lanes = (*lanes, FireLane(weapon=w.name, location=action.location or ""))
    shots = new.shots
    if plan.phase == "mph" and not plan.lane_residual and action.location is not None:
        counted = list(shots)
        for w in plan.weapons:
            if w.kind not in ("sw_mg", "veh_mg"):
                continue
            for target in action.targets:
                counted = count_shot(counted, w.name, target, action.location)
        shots = tuple(counted)
    if lanes is new.fire_lanes and shots is new.shots:
        return new
    return replaced(new, {"fire_lanes": lanes, "shots": shots})


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


__all__ = ["UNIT_MARKER_AFTER", "apply_fire", "count_shot", "record_usage", "usage_updates"]
