"""The ASL forces of a game written back as set-up commands (levels, units, weapons).

Each Axis side's Ammunition Shortage level (FB16.1), each side's SAN (A14.1), every unit with
its counter, replacement chain and status (A1, A19.13), every weapon with its printed numbers,
possessor and markers (A9.7), in the game's order (the stack order Random Selection reads, A.9).
What only play makes — this phase's fire markers and shots of units, Fire Lanes, depleted Special
Ammo, the phase — is not part of a set-up.

>>> from rules_core.asl.examples import fb16_fire_group
>>> from rules_core.scenario import command_line
>>> [command_line(a) for a in forces(fb16_fire_group())][:2]
['level side:Axis level:4', 'unit add name:A side:Axis kind:squad quality:"SS 6-5-8" \
replaced-by:"SS 5-4-8"']
"""

from __future__ import annotations

from pydantic import BaseModel

from rules_core.asl.actions import AddUnit, AddWeapon, SetLevel, SetSan
from rules_core.asl.state import AslState, Unit, Weapon


def forces(state: AslState) -> list[BaseModel]:
    """The set-up commands that set up ``state``'s levels, units and weapons (FB16.1, A1, A9.7)."""
    out: list[BaseModel] = [
        SetLevel(side=side.name, level=side.level) for side in state.sides if side.level
    ]
    out += [SetSan(side=side.name, san=side.san) for side in state.sides if side.san]
    out += [_unit(state, unit) for unit in state.units]
    out += [_weapon(weapon) for weapon in state.weapons]
    return out


def _unit(state: AslState, unit: Unit) -> AddUnit:
    side = state.side(unit.side)
    same = side is not None and side.nationality == unit.nationality
    nationality = None if same else unit.nationality
    return AddUnit(
        name=unit.name,
        side=unit.side,
        kind=unit.kind,
        quality=unit.quality,
        replaced_by=unit.replaced_by,
        nationality=nationality,
        elite=unit.elite,
        smoke=unit.smoke,
        broken=unit.broken or None,
        pinned=unit.pinned or None,
        berserk=unit.berserk or None,
        unarmed=unit.unarmed,
        cx=unit.cx,
    )


def _weapon(weapon: Weapon) -> AddWeapon:
    return AddWeapon(
        name=weapon.name,
        side=weapon.side,
        kind=weapon.kind,
        b=weapon.printed_b,
        x=weapon.printed_x,
        rof=weapon.rof,
        repair=weapon.r_number,
        repairable=weapon.repairable,
        removal=weapon.removal_number,
        owner=weapon.possessor,
        captured_from=weapon.captured_from,
        main_armament=weapon.main_armament,
        fb_immune=weapon.fb_immune,
        mg=weapon.mg,
        mortar=weapon.mortar,
        normal_range=weapon.normal_range,
        cmg=weapon.cmg,
        dm=weapon.dm or None,
        special_ammo=tuple(f"{kind}:{number}" for kind, number in weapon.special_ammo),
        status=None if weapon.status == "ok" else weapon.status,
        low_ammo=weapon.low_ammo or None,
        marker=None if weapon.fire_marker == "none" else weapon.fire_marker,
    )


__all__ = ["forces"]
