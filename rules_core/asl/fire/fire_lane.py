"""Fire Lane legality (A9.22, A9.222, A9.223): when one may be declared, what its Residual
attack takes, and what its manning Infantry may do while it stands. No dice; a refusal cites its
rule and changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

from rules_core.asl.actions import Fire
from rules_core.asl.fire.legality import check_spraying
from rules_core.asl.state import MARKER_NAMES, AslState, Unit, Weapon
from rules_core.asl.turn import need_range, possessor
from rules_core.errors import IllegalAction, InvalidInput


def check_lane_options(
    action: Fire,
    phase: str,
    weapons: Sequence[Weapon],
    units: Sequence[Unit],
    sustained_names: set[str],
) -> list[tuple[str, str]]:
    """The options of a Fire Lane, its Residual attack and Spraying Fire agree (A9.22, A9.5);
    returns the Spraying Fire note.

    >>> check_lane_options(Fire(weapons=("MG",), fire_lane=True, range=3, same_level=True), "mph",
    ...                    [Weapon(name="MG", side="Axis", kind="sw_mg")], [], set())
    []
    """
    notes: list[tuple[str, str]] = []
    if action.lane_residual and (len(weapons) != 1 or units or weapons[0].kind != "sw_mg"):
        raise IllegalAction("A Fire Lane's Residual FP attacks by itself.", rule="A9.22")
    if action.lane_residual:
        _check_residual_options(action)
    if action.fire_lane and not any(w.kind == "sw_mg" for w in weapons):
        raise IllegalAction("A Fire Lane is declared with a SW MG.", rule="A9.22")
    if (action.fire_lane or action.lane_residual) and (sustained_names or action.fpf):
        raise IllegalAction("A Fire Lane attack is not Sustained Fire or FPF.", rule="A9.22")
    if action.spraying:
        if action.range == 0:
            raise IllegalAction(
                "Spraying Fire attacks two hexes in LOS except the firer's own hex: not at "
                "range 0.",
                rule="A9.5",
            )
        check_spraying(weapons, phase, action.range)
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
    if action.fire_lane:
        _check_lane_target(action)
    elif action.same_level is not None:
        raise IllegalAction(
            "same-level is a condition of a Fire Lane; this attack lays none (fire-lane:true).",
            rule="A9.22",
        )
    return notes


MAX_SW_MG_NORMAL_RANGE = 16
"""A9.22 with A9.1: no SW MG has a Normal Range above 16 hexes (its lane is within it)."""


def _check_lane_target(action: Fire) -> None:
    """A Fire Lane's target: stated at the MG's own level and within 16 hexes, the longest
    Normal Range of any SW MG (A9.22; each MG's own Normal Range is checked with it)."""
    need_range(action.range, "a Fire Lane (within Normal Range)")
    assert action.range is not None
    if action.range > MAX_SW_MG_NORMAL_RANGE:
        raise IllegalAction(
            f"A Fire Lane is declared within the MG's Normal Range, and no SW MG's exceeds "
            f"{MAX_SW_MG_NORMAL_RANGE} hexes; the target is at {action.range}.",
            rule="A9.22",
        )
    if action.same_level is None:
        raise InvalidInput(
            "A Fire Lane is declared only at a same-level target (A9.22): say so with "
            "same-level:true."
        )
    if not action.same_level:
        raise IllegalAction("A Fire Lane is declared only at a same-level target.", rule="A9.22")


def _check_residual_options(action: Fire) -> None:
    """A Fire Lane Residual attack takes no leader, second SMC, shot count, long range or
    stated terrain: none of them applies to it (A9.222, A9.22)."""
    given = [
        name
        for name, on in (
            ("leader", action.leader is not None),
            ("helper", action.helper is not None),
            ("targets", bool(action.targets)),
            ("location", action.location is not None),
            ("mf", action.mf is not None),
            ("overstacked", action.overstacked),
            ("spraying", action.spraying),
            ("tpbf", action.tpbf),
            ("mg-terrain", action.mg_terrain is not None),
            ("inside-ca", action.inside_ca is not None),
        )
        if on
    ]
    if given:
        raise IllegalAction(
            f"A Fire Lane Residual attack takes no {', '.join(given)}: no leader or hero DRM "
            "applies to it, and it is Residual FP, not fire by the MG.",
            rule="A9.222",
        )
    if action.range is not None and action.range > MAX_SW_MG_NORMAL_RANGE:
        raise IllegalAction(
            "Fire Lane Residual FP lies only within the MG's Normal Range (at most "
            f"{MAX_SW_MG_NORMAL_RANGE} hexes).",
            rule="A9.22",
        )


def check_lane_weapon(weapon: Weapon, owner: Unit | None, action: Fire) -> None:
    """A SW MG laying a Fire Lane: within its Normal Range, Good Order, unmarked, manned by
    unpinned Infantry (A9.22).

    >>> check_lane_weapon(Weapon(name="MG", side="Axis", kind="sw_mg"), None, Fire())
    """
    if not action.fire_lane or weapon.kind != "sw_mg":
        return
    if weapon.normal_range is not None:
        need_range(action.range, f"a Fire Lane of {weapon.name} (Normal Range)")
        assert action.range is not None
        if action.range > weapon.normal_range:
            raise IllegalAction(
                f"A Fire Lane is declared within Normal Range: {weapon.name}'s is "
                f"{weapon.normal_range} hexes, the target is at {action.range}.",
                rule="A9.22",
            )
    if owner is None or not owner.good_order or owner.pinned or weapon.fire_marker != "none":
        raise IllegalAction(
            "A Fire Lane needs a Good Order SW MG without a First/Final Fire marker, "
            "manned by unpinned Infantry.",
            rule="A9.22",
        )
    if owner.fire_marker in ("first", "final"):
        raise IllegalAction(
            f"{owner.name} is marked {MARKER_NAMES[owner.fire_marker]}, so its fire now is "
            "Subsequent First Fire (or FPF), and no Fire Lane is placed when the manning "
            "Infantry use it in that attack.",
            rule="A9.22",
        )


def manned_lanes(state: AslState, unit: Unit) -> list[str]:
    """The MGs ``unit`` possesses whose Fire Lane stands (A9.223).

    >>> from rules_core.asl.examples import fb16_fire_group
    >>> st = fb16_fire_group()
    >>> manned_lanes(st, st.unit("A"))
    []
    """
    lanes = {lane.weapon.lower() for lane in state.fire_lanes}
    return [w.name for w in state.weapons if w.possessor == unit.name and w.name.lower() in lanes]


def check_lane_crew(
    state: AslState, action: Fire, weapons: Sequence[Weapon], units: Sequence[Unit]
) -> None:
    """While its Fire Lane stands, a MG's manning Infantry use Subsequent First Fire or FPF only
    if a TPBF situation occurs, which cancels the lane (A9.223). The lane's own Residual FP
    attack is no fire by them (A9.222: "a unique form of Residual FP").

    >>> from rules_core.asl.examples import fb16_fire_group
    >>> st = fb16_fire_group()
    >>> check_lane_crew(st, Fire(units=("A",)), [], [st.unit("A")])
    """
    if action.tpbf or action.lane_residual or not state.fire_lanes:
        return
    crews = list(units) + [o for w in weapons if (o := possessor(state, w)) is not None]
    for unit in crews:
        lanes = manned_lanes(state, unit)
        if lanes and (action.fpf or unit.fire_marker in ("first", "final")):
            how = "FPF" if action.fpf else "Subsequent First Fire"
            raise IllegalAction(
                f"{unit.name} mans the Fire Lane of {', '.join(lanes)}: it uses {how} only "
                "when an enemy unit enters its Location (tpbf:true, which cancels the lane).",
                rule="A9.223",
            )


__all__ = [
    "MAX_SW_MG_NORMAL_RANGE",
    "check_lane_crew",
    "check_lane_options",
    "check_lane_weapon",
    "manned_lanes",
]
