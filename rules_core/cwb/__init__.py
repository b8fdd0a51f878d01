"""HPS Civil War Battles: ammunition, Supply Wagons and Isolation (the supply page: CWB Supply,
CWB Isolated Units).

One module per idea, in the game's own words:

* :mod:`~rules_core.cwb.state` — sides with their Parameter Data, units, wagons, the optional map;
* :mod:`~rules_core.cwb.actions` — the `/cwb` commands;
* :mod:`~rules_core.cwb.ammunition` — fire permission, the ammo-loss d100, the morale reminder;
* :mod:`~rules_core.cwb.supply_wagons` — resupply, 1 wagon strength per 10 men;
* :mod:`~rules_core.cwb.isolation` — the Isolation test's result and Melee defence at 1/4;
* :mod:`~rules_core.cwb.hexgrid` — the wagon path and isolation trace on a hex map;
* :mod:`~rules_core.cwb.scenario` — set-up actions and the game's option flags.

>>> SYSTEM.name, SYSTEM.title
('cwb', 'Civil War Battles')
"""

from __future__ import annotations

from rules_core.cwb.actions import (
    ACTION_TYPES,
    CwbAction,
    Fire,
    Isolation,
    Map,
    Melee,
    Params,
    Resupply,
    Supply,
    Turn,
    UnitAdd,
    UnitList,
    UnitRemove,
    UnitSet,
    WagonAdd,
    WagonSet,
)
from rules_core.cwb.state import Ammo, CwbState, HexMap, SideData, Unit, Wagon
from rules_core.cwb.system import CwbSystem

SYSTEM = CwbSystem()

__all__ = [
    "ACTION_TYPES",
    "SYSTEM",
    "Ammo",
    "CwbAction",
    "CwbState",
    "CwbSystem",
    "Fire",
    "HexMap",
    "Isolation",
    "Map",
    "Melee",
    "Params",
    "Resupply",
    "SideData",
    "Supply",
    "Turn",
    "Unit",
    "UnitAdd",
    "UnitList",
    "UnitRemove",
    "UnitSet",
    "Wagon",
    "WagonAdd",
    "WagonSet",
]
