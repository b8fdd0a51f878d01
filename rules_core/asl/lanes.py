"""Fire Lanes stand only while their MG and its manning Infantry may keep them (A9.22, A9.223).

A lane is removed the moment its MG malfunctions (or is eliminated, disabled or removed) or its
manning Infantry are broken, pinned or eliminated — whichever action does it: an attack's own
FB16.2 break, a check the bot rolls that pins the unit, a status recorded by the players.
:func:`standing_lanes` is called after each of them.
"""

from __future__ import annotations

from rules_core.asl.state import AslState, Weapon
from rules_core.frozen import replaced


def mans_lane(state: AslState, weapon: Weapon) -> bool:
    """Whether ``weapon`` may keep (or lay) a Fire Lane now: a Good Order SW MG manned by Good
    Order, unpinned Infantry (A9.22, A9.223).

    >>> from rules_core.asl.examples import fb16_fire_group
    >>> st = fb16_fire_group()
    >>> mans_lane(st, st.weapon("HMG"))
    True
    """
    crew = state.unit(weapon.possessor) if weapon.possessor else None
    return (
        weapon.kind == "sw_mg"
        and weapon.status == "ok"
        and crew is not None
        and crew.good_order
        and not crew.pinned
    )


def standing_lanes(state: AslState) -> tuple[AslState, list[str]]:
    """The state without the Fire Lanes that may not stand, and the MGs whose lane ended
    (A9.223).

    >>> from rules_core.asl.examples import fb16_fire_group
    >>> from rules_core.asl.state import FireLane
    >>> st = fb16_fire_group()
    >>> st = st.model_copy(update={"fire_lanes": (FireLane(weapon="HMG", location="K4"),)})
    >>> pinned = st.with_units({"A": st.unit("A").model_copy(update={"pinned": True})})
    >>> standing_lanes(pinned)[1]
    ['HMG']
    """
    kept = []
    ended = []
    for lane in state.fire_lanes:
        weapon = state.weapon(lane.weapon)
        if weapon is not None and mans_lane(state, weapon):
            kept.append(lane)
        else:
            ended.append(lane.weapon)
    if not ended:
        return state, ended
    return replaced(state, {"fire_lanes": tuple(kept)}), ended


__all__ = ["mans_lane", "standing_lanes"]
