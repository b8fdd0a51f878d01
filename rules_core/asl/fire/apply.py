"""Applying a resolved IFT attack to the state: weapon status and markers, use this phase and
Player Turn, Unit Replacement, Fire Lanes, MPh shot counts (A3, A8, A9.11, A9.12, A9.2, A9.22,
A9.223, FB16.2).
"""

from __future__ import annotations

from rules_core.asl.actions import Fire
from rules_core.asl.breakdown import Fate
from rules_core.asl.fire.plan import FirePlan
from rules_core.asl.fire.result import FireResult
from rules_core.asl.fire.usage import Usage
from rules_core.asl.lanes import mans_lane, standing_lanes
from rules_core.asl.state import AslState, FireLane, FireMarker, ShotCount, Unit, Weapon

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


def apply_fire(state: AslState, action: Fire, plan: FirePlan, result: FireResult) -> AslState:
    """The state after a resolved attack (A9.7 status, A9.2 markers, A8/A9.11/A9.12 use, FB16.2
    Unit Replacement, A9.22/A9.223 Fire Lanes, A9.2 MPh shots).

    >>> from rules_core.asl.examples import fb16_fire_group
    >>> from rules_core.asl.fire.plan import plan_fire
    >>> from rules_core.asl.fire.result import settle
    >>> st, fire = fb16_fire_group(), Fire(weapons=("LMG",))
    >>> plan = plan_fire(st, fire)
    >>> after = apply_fire(st, fire, plan, settle(plan, 5, 6, frozenset({"LMG"}), frozenset()))
    >>> after.weapon("LMG").status
    'malfunctioned'
    """
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
        elif r.rof == "kept" and plan.phase == "pfph":
            # A3, A9.2: it may fire again in this PFPh and has no marker, but it Prep Fired:
            # none in the AFPh
            update["prep_fired"] = True
        if plan.fire_lane and kinds[r.name] == "sw_mg":
            update["lane_laid"] = True
        if r.name in plan.fixes_ca and r.fate == Fate.OK:
            update["ca_fixed"] = True  # A9.21: its further shots this phase inside this CA
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
    canceled = {name.lower() for name in plan.lanes_canceled}  # A9.223: a TPBF situation
    new = new.model_copy(
        update={"fire_lanes": tuple(f for f in new.fire_lanes if f.weapon.lower() not in canceled)}
    )
    # A9.223: a lane ends when its MG breaks or its manning Infantry break (FB16.2 included)
    new, _ = standing_lanes(new)
    lanes = new.fire_lanes
    if plan.fire_lane and not result.cowered:
        for w in plan.weapons:  # A9.22: each MG its own Fire Lane (Fire Lane FG are NA)
            mg = new.weapon(w.name)
            if w.kind == "sw_mg" and mg is not None and mans_lane(new, mg):
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


__all__ = ["UNIT_MARKER_AFTER", "apply_fire", "count_shot", "record_usage"]
