"""Repair dr (A9.72) with the FB16.33/16.43 elimination thresholds and Disabled Guns (D3.7).

Reading 11 (elimination wins a tie with the R#); the configured repair drm; a Gun's printed removal
number (C2.2) lowers the elimination threshold.
"""

from __future__ import annotations

from rules_core.asl.actions import Repair
from rules_core.asl.fb16 import repair_elimination, weapon_level
from rules_core.asl.state import AslOutcome, AslState
from rules_core.dice import Dice
from rules_core.errors import IllegalAction, InvalidInput
from rules_core.frozen import replaced
from rules_core.outcome import Modifier, Outcome, Step
from rules_core.words import counted

VEHICLE_R_NUMBER = 1
"""D3.7: vehicle armament is repaired on a dr of 1."""
REPAIR_CAPACITY: dict[str, int] = {"squad": 2, "half_squad": 1, "crew": 1, "leader": 1, "hero": 1}
"""A9.72: a unit repairs as many weapons as it could fire in one phase (A9.11, A9.12)."""


def repair_result(final_dr: int, r_number: int, elimination: int) -> str:
    """A9.72: ``"eliminated"`` on Final dr ≥ E (wins ties, reading 11), ``"repaired"`` on ≤ R#.

    >>> [repair_result(dr, 4, 4) for dr in (3, 4, 6)]
    ['repaired', 'eliminated', 'eliminated']
    >>> repair_result(3, 2, 6)
    'no change'
    """
    if final_dr >= elimination:
        return "eliminated"
    if final_dr <= r_number:
        return "repaired"
    return "no change"


def resolve_repair(state: AslState, action: Repair, dice: Dice) -> Outcome[AslState]:
    """Resolve a Repair dr (A9.72, FB16.33, FB16.43, D3.7).

    >>> from rules_core.asl.system import SYSTEM
    >>> from rules_core.asl.actions import AddWeapon
    >>> from rules_core.dice import ScriptedDice
    >>> st = SYSTEM.new_state(["Axis", "Allied"], {})
    >>> from rules_core.asl.actions import AddUnit, SetPhase
    >>> for a in (AddUnit(name="A", side="Axis", kind="squad"),
    ...           AddWeapon(name="LMG", side="Axis", kind="sw_mg", repair=2, owner="A",
    ...                     status="malfunctioned"), SetPhase(side="Axis")):
    ...     st = SYSTEM.resolve(st, a, ScriptedDice([])).state
    >>> resolve_repair(st, Repair(weapon="LMG"), ScriptedDice([2])).fact("LMG")
    'repaired'
    """
    weapon = state.weapon(action.weapon)
    if weapon is None:
        raise InvalidInput(f"There is no weapon called {action.weapon!r} in this game.")
    if weapon.status != "malfunctioned":
        raise IllegalAction(f"{weapon.name} is {weapon.status}, not malfunctioned.", rule="A9.72")
    if not weapon.repairable:
        raise IllegalAction(f"{weapon.name} cannot be repaired (no repair number).", rule="A9.7")
    if weapon.captured_from is not None:
        raise IllegalAction(
            f"A captured {weapon.name} may be repaired only by its original owner.", rule="A9.72"
        )
    if state.phase is None:
        raise IllegalAction("No Player Turn has begun; start one with /asl phase.", rule="A3")
    if state.phase != "rph":
        raise IllegalAction("Repair is attempted in the Rally Phase.", rule="A9.72")
    if weapon.repair_tried:
        raise IllegalAction(
            f"A Repair dr was already made for {weapon.name} this Player Turn; it stays as it is "
            "until the next one.",
            rule="A9.72",
        )
    vehicle = weapon.kind == "veh_mg"
    owner = state.unit(weapon.possessor) if weapon.possessor else None
    if action.unit is not None:
        named = state.unit(action.unit)
        if named is None:
            raise InvalidInput(f"There is no unit called {action.unit!r} in this game.")
        if owner is None or named.name != owner.name:
            raise IllegalAction(
                f"{named.name} does not possess {weapon.name}; only its possessor repairs it.",
                rule="A9.72",
            )
    if owner is None and weapon.is_sw:
        raise IllegalAction(
            f"{weapon.name} has no possessor; only the unit possessing a SW repairs it "
            "(record it with /asl weapon add … owner: update:true).",
            rule="A9.72",
        )
    if owner is not None:
        if not owner.good_order:
            raise IllegalAction(
                f"{owner.name} is broken; only a Good Order unit may repair.", rule="A9.72"
            )
        if weapon.kind == "gun" and owner.kind != "crew":
            raise IllegalAction("Only a crew may repair a Gun.", rule="A9.72")
        capacity = REPAIR_CAPACITY[owner.kind]
        if owner.repairs >= capacity:
            raise IllegalAction(
                f"{owner.name} has already made {counted(owner.repairs, 'Repair dr')} this Rally "
                f"Phase; a {owner.kind.replace('_', '-')} repairs as many weapons as it could fire "
                f"in one phase ({capacity}).",
                rule="A9.72",
            )
    r_number = weapon.r_number
    if r_number is None:
        if not vehicle:
            raise InvalidInput(f"{weapon.name} has no R#; add it again with repair.")
        r_number = VEHICLE_R_NUMBER
    level = weapon_level(state, weapon)
    elimination = repair_elimination(level)
    if weapon.kind == "gun" and weapon.removal_number is not None:
        elimination = min(elimination, weapon.removal_number)
    dr = dice.dr("Repair dr")
    roll = dice.rolls[-1]
    drm = state.config.repair_drm
    final = dr + drm
    result = repair_result(final, r_number, elimination)
    permanent = "disabled" if weapon.kind in ("gun", "veh_mg") else "eliminated"
    rule = "A9.72"
    if result == "eliminated":
        if elimination < 6 and final < 6:
            rule = "FB16.43" if weapon.kind == "gun" else "FB16.33"
            if weapon.kind == "gun" and weapon.removal_number == elimination and level < 3:
                rule = "C2.2"
        text = f"Repair dr {dr}, Final {final} ≥ {elimination} — {weapon.name} {permanent}"
        update: dict[str, object] = {"status": permanent}
        fact = permanent
    elif result == "repaired":
        text = f"Repair dr {dr}, Final {final} ≤ R{r_number} — {weapon.name} repaired"
        if weapon.low_ammo:
            text += " (still Low Ammo)"
        update = {"status": "ok"}
        fact = "repaired"
    else:
        text = f"Repair dr {dr}, Final {final} — {weapon.name} stays malfunctioned this turn"
        update = {}
        fact = "no change"
    modifiers = (Modifier(label="repair drm", value=drm, rule="A9.72"),) if drm else ()
    steps = [Step(rule=rule, text=text, dice=(roll,), modifiers=modifiers)]
    update["repair_tried"] = True
    new = state.with_weapons({weapon.name: replaced(weapon, update)})
    if owner is not None:
        new = new.with_units({owner.name: replaced(owner, {"repairs": owner.repairs + 1})})
    return AslOutcome(state=new, steps=tuple(steps), rolls=(roll,), facts=((weapon.name, fact),))


__all__ = ["VEHICLE_R_NUMBER", "repair_result", "resolve_repair"]
