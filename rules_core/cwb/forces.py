"""The Civil War Battles forces of a game written back as set-up commands.

The scenario's Parameter Data (per side, then for the game), the map with its Blocked hexes and
Supply Sources, every unit with its men, type, ammunition and hex, every Supply Wagon, and the
units that are Routed (CWB Supply, Isolated Units). Whether a unit is Isolated is decided again by
the next side's turn, so it is not part of a set-up.

>>> from rules_core.cwb.scenario import new_game
>>> from rules_core.scenario import command_line
>>> [command_line(a) for a in forces(new_game(["Union"], {}))]
['params wagon-rounding:ceil ammo-loss-types:"infantry, cavalry"']
"""

from __future__ import annotations

from pydantic import BaseModel

from rules_core.cwb.actions import Map, Params, UnitAdd, UnitSet, WagonAdd
from rules_core.cwb.hexgrid import format_hex
from rules_core.cwb.state import Ammo, CwbState, Hex


def forces(state: CwbState) -> list[BaseModel]:
    """The set-up commands that set up ``state``'s parameters, map, units and wagons."""
    out: list[BaseModel] = []
    for side in state.sides:
        changed = Params(
            side=side.name,
            ammo_loss=side.ammo_loss_pct,
            artillery_ammo=None if side.artillery_ammo == Ammo.NORMAL else side.artillery_ammo,
            isolation=side.isolation_rule or None,
        )
        if changed != Params(side=side.name):
            out.append(changed)
    # the game's parameters are written always: a new game's options may set others
    out.append(Params(wagon_rounding=state.wagon_rounding, ammo_loss_types=state.ammo_loss_types))
    if state.map is not None:
        out.append(
            Map(
                columns=state.map.columns,
                rows=state.map.rows,
                layout=state.map.layout,
                blocked=tuple(_listed(h) for h in state.map.blocked),
                sources=tuple(_listed(h) for h in state.map.supply_sources),
            )
        )
    for unit in state.units:
        out.append(
            UnitAdd(
                name=unit.name,
                side=unit.side,
                men=unit.men,
                type=unit.type,
                ammo=unit.ammo,
                hex=_hex(unit.hex),
            )
        )
    for wagon in state.wagons:
        out.append(
            WagonAdd(name=wagon.name, side=wagon.side, strength=wagon.strength, hex=_hex(wagon.hex))
        )
    out += [UnitSet(name=unit.name, routed=True) for unit in state.units if unit.routed]
    return out


def _hex(hex_: Hex | None) -> str | None:
    return None if hex_ is None else format_hex(hex_)


def _listed(hex_: Hex) -> str:
    """A hex in a comma-separated list: column/row."""
    return f"{hex_[0]}/{hex_[1]}"


__all__ = ["forces"]
