"""Worked-example states from A9 and FB16, for doctests, the console and the tests.

>>> state = fb16_fire_group()
>>> [u.name for u in state.units], [w.name for w in state.weapons]
(['A', 'B', '9-1'], ['HMG', 'LMG'])
"""

from __future__ import annotations

from rules_core.asl.actions import AddUnit, AddWeapon, AslAction, SetLevel, SetPhase
from rules_core.asl.state import AslState
from rules_core.asl.system import SYSTEM
from rules_core.dice import ScriptedDice


def build_state(actions: list[AslAction], sides: tuple[str, ...] = ("Axis", "Allied")) -> AslState:
    """A state built by resolving setup actions that roll no dice (FB16 scenario setup).

    >>> build_state([SetLevel(side="Axis", level=2)]).side("Axis").level
    2
    """
    state = SYSTEM.new_state(list(sides), {})
    for action in actions:
        with ScriptedDice([]) as dice:
            state = SYSTEM.run(state, action, dice).state
    return state


def fb16_fire_group() -> AslState:
    """The FB16 EX: German PFPh at level 4, squads A (→ SS 5-4-8) and B, a 9-1, HMG and LMG.

    >>> fb16_fire_group().side("Axis").level
    4
    """
    return build_state(
        [
            SetLevel(side="Axis", level=4),
            SetPhase(phase="pfph", side="Axis"),
            AddUnit(
                name="A", side="Axis", kind="squad", quality="SS 6-5-8", replaced_by=("SS 5-4-8",)
            ),
            AddUnit(name="B", side="Axis", kind="squad", quality="4-4-7"),
            AddUnit(name="9-1", side="Axis", kind="leader", quality="9-1"),
            AddWeapon(name="HMG", side="Axis", kind="sw_mg", rof=3, owner="A"),
            AddWeapon(name="LMG", side="Axis", kind="sw_mg", rof=1, owner="B", repair=2),
        ]
    )


__all__ = ["build_state", "fb16_fire_group"]
