"""The Civil War Battles game state: sides and their Parameter Data, units, Supply Wagons, the map.

Everything the HPS supply page ("Supply" and "Isolated Units") makes a player track, and
nothing more: per unit its ammunition level, men, Routed and Isolated
flags; per wagon its strength; per side the ammo-loss percentage of the scenario's Parameter
Data, the artillery Ammo Level and whether the Isolation Effects Optional Rule is in use. Hex
positions and the map are optional: with them the wagon path and the isolation trace are
computed (:mod:`rules_core.cwb.hexgrid`) instead of declared.

States are frozen; every change returns a new state.

>>> state = CwbState(sides=(SideData(name="Union", ammo_loss_pct=4),))
>>> state = state.with_unit(Unit(name="1st Minnesota", side="Union", men=262))
>>> state.unit("1st minnesota").ammo.label
'Normal'
>>> state.unit("20th Maine")
Traceback (most recent call last):
...
rules_core.errors.InvalidInput: There is no unit called '20th Maine' in this game.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from rules_core.errors import InvalidInput
from rules_core.outcome import Outcome


class Ammo(StrEnum):
    """A unit's ammunition level (CWB Supply): Normal, Low On Ammo, Out Of Ammo."""

    NORMAL = "normal"
    LOW = "low"
    OUT = "out"

    @property
    def label(self) -> str:
        """The level as the game names it.

        >>> Ammo.LOW.label
        'Low On Ammo'
        """
        return AMMO_LABELS[self]


AMMO_LABELS: dict[Ammo, str] = {
    Ammo.NORMAL: "Normal",
    Ammo.LOW: "Low On Ammo",
    Ammo.OUT: "Out Of Ammo",
}

AMMO_ORDER: tuple[Ammo, ...] = (Ammo.NORMAL, Ammo.LOW, Ammo.OUT)
"""CWB Supply: each loss moves one step along this order; Out is the last."""

UnitType = Literal["infantry", "cavalry", "artillery"]
"""The unit types of the supply page (Infantry rolls when firing; Artillery follows its side)."""

UNIT_TYPES: tuple[UnitType, ...] = ("infantry", "cavalry", "artillery")

WagonRounding = Literal["ceil", "round", "floor"]
"""``cwb_wagon_rounding`` (CWB Supply): how ``men / 10`` becomes wagon strength."""

Hex = tuple[int, int]
"""A hex as ``(column, row)``, both counted from 0 (see :mod:`rules_core.cwb.hexgrid`)."""

HexLayout = Literal["odd-q", "even-q", "odd-r", "even-r"]
"""Offset layout of the map's hexes (see :mod:`rules_core.cwb.hexgrid`)."""


def worse(a: Ammo, b: Ammo) -> Ammo:
    """The lower of two ammunition levels: Out < Low < Normal (CWB Supply).

    >>> worse(Ammo.NORMAL, Ammo.LOW).label
    'Low On Ammo'
    """
    return a if AMMO_ORDER.index(a) >= AMMO_ORDER.index(b) else b


class SideData(BaseModel):
    """One side and the scenario data that is per side (CWB Supply)."""

    model_config = ConfigDict(frozen=True)

    name: str
    ammo_loss_pct: int | None = Field(default=None, ge=0, le=100)
    """Parameter Data: percent chance of an ammo loss per fire; None until entered."""
    artillery_ammo: Ammo = Ammo.NORMAL
    """The side's artillery Ammo Level (CWB Supply: artillery fire follows it)."""
    isolation_rule: bool = False
    """Whether the Isolation Effects Optional Rule is in use for this side."""


class Unit(BaseModel):
    """A combat unit: its men, ammunition and the flags the supply rules read."""

    model_config = ConfigDict(frozen=True)

    name: str
    side: str
    type: UnitType = "infantry"
    men: int = Field(ge=1)
    ammo: Ammo = Ammo.NORMAL
    """Infantry and cavalry: their ammunition. Artillery: its own level, used when Isolated."""
    routed: bool = False
    isolated: bool = False
    hex: Hex | None = None


class Wagon(BaseModel):
    """A Supply Wagon: each strength point resupplies 10 men (CWB Supply)."""

    model_config = ConfigDict(frozen=True)

    name: str
    side: str
    strength: int = Field(ge=1)
    hex: Hex | None = None


class HexMap(BaseModel):
    """The map for computed traces: its size, layout, Blocked hexes and Supply Sources."""

    model_config = ConfigDict(frozen=True)

    columns: int = Field(ge=1)
    rows: int = Field(ge=1)
    layout: HexLayout = "odd-q"
    blocked: tuple[Hex, ...] = ()
    supply_sources: tuple[Hex, ...] = ()


class CwbState(BaseModel):
    """A Civil War Battles game: sides, units, wagons, the optional map, and the option flags."""

    model_config = ConfigDict(frozen=True)

    sides: tuple[SideData, ...]
    units: tuple[Unit, ...] = ()
    wagons: tuple[Wagon, ...] = ()
    map: HexMap | None = None
    wagon_rounding: WagonRounding = "ceil"
    """``cwb_wagon_rounding`` (CWB Supply)."""
    ammo_loss_types: tuple[UnitType, ...] = ("infantry", "cavalry")
    """``cwb_ammo_loss_types``: unit types that roll for ammo loss after every fire."""
    isolated_artillery_own_ammo: bool = True
    """``cwb_isolated_artillery_own_ammo``: an Isolated battery tracks its own ammunition."""
    isolation_avoids_enemy_units: bool = True
    """``cwb_isolation_avoids_enemy_units``: the isolation trace enters no enemy-held hex."""

    def side(self, name: str) -> SideData:
        """The side called ``name``, case ignored (per-side Parameter Data).

        :raises InvalidInput: when there is no such side.

        >>> CwbState(sides=(SideData(name="Union", ammo_loss_pct=4),)).side("union").ammo_loss_pct
        4
        """
        for side in self.sides:
            if side.name.casefold() == name.casefold():
                return side
        names = ", ".join(s.name for s in self.sides)
        raise InvalidInput(f"There is no side called {name!r} in this game; sides: {names}.")

    def unit(self, name: str) -> Unit:
        """The unit called ``name``, case ignored (CWB Supply).

        :raises InvalidInput: when there is no such unit.

        >>> CwbState(sides=(SideData(name="U"),), units=(Unit(name="A", side="U", men=9),)).unit(
        ...     "a").men
        9
        """
        for unit in self.units:
            if unit.name.casefold() == name.casefold():
                return unit
        raise InvalidInput(f"There is no unit called {name!r} in this game.")

    def wagon(self, name: str) -> Wagon:
        """The Supply Wagon called ``name``, case ignored (CWB Supply).

        :raises InvalidInput: when there is no such wagon.

        >>> CwbState(sides=(SideData(name="U"),)).wagon("W")
        Traceback (most recent call last):
        ...
        rules_core.errors.InvalidInput: There is no Supply Wagon called 'W' in this game.
        """
        for wagon in self.wagons:
            if wagon.name.casefold() == name.casefold():
                return wagon
        raise InvalidInput(f"There is no Supply Wagon called {name!r} in this game.")

    def with_side(self, side: SideData) -> CwbState:
        """A copy with ``side`` replacing the side of the same name (CWB Supply).

        >>> s = CwbState(sides=(SideData(name="U"),))
        >>> s.with_side(SideData(name="U", ammo_loss_pct=3)).sides[0].ammo_loss_pct
        3
        """
        sides = tuple(side if s.name == side.name else s for s in self.sides)
        return self.model_copy(update={"sides": sides})

    def with_unit(self, unit: Unit) -> CwbState:
        """A copy with ``unit`` replacing the unit of the same name, or appended (CWB Supply).

        >>> s = CwbState(sides=(SideData(name="U"),)).with_unit(Unit(name="A", side="U", men=9))
        >>> len(s.with_unit(Unit(name="A", side="U", men=8)).units)
        1
        """
        if any(u.name == unit.name for u in self.units):
            units = tuple(unit if u.name == unit.name else u for u in self.units)
        else:
            units = (*self.units, unit)
        return self.model_copy(update={"units": units})

    def without_unit(self, name: str) -> CwbState:
        """A copy without the unit called exactly ``name`` (CWB Supply).

        >>> s = CwbState(sides=(SideData(name="U"),), units=(Unit(name="A", side="U", men=9),))
        >>> s.without_unit("A").units
        ()
        """
        return self.model_copy(update={"units": tuple(u for u in self.units if u.name != name)})

    def with_wagon(self, wagon: Wagon) -> CwbState:
        """A copy with ``wagon`` replacing the wagon of the same name, or appended (CWB Supply).

        >>> s = CwbState(sides=(SideData(name="U"),))
        >>> s = s.with_wagon(Wagon(name="W", side="U", strength=5))
        >>> s.with_wagon(Wagon(name="W", side="U", strength=2)).wagons[0].strength
        2
        """
        if any(w.name == wagon.name for w in self.wagons):
            wagons = tuple(wagon if w.name == wagon.name else w for w in self.wagons)
        else:
            wagons = (*self.wagons, wagon)
        return self.model_copy(update={"wagons": wagons})

    def without_wagon(self, name: str) -> CwbState:
        """A copy without the wagon called exactly ``name`` (CWB Supply: removed at 0).

        >>> w = Wagon(name="W", side="U", strength=1)
        >>> s = CwbState(sides=(SideData(name="U"),), wagons=(w,))
        >>> s.without_wagon("W").wagons
        ()
        """
        return self.model_copy(update={"wagons": tuple(w for w in self.wagons if w.name != name)})


__all__ = [
    "AMMO_LABELS",
    "AMMO_ORDER",
    "UNIT_TYPES",
    "Ammo",
    "CwbState",
    "Hex",
    "HexLayout",
    "HexMap",
    "SideData",
    "Unit",
    "UnitType",
    "Wagon",
    "WagonRounding",
    "worse",
]


CwbOutcome = Outcome[CwbState]
"""The outcome of a CWB action. Named once: ``Outcome[CwbState]`` written at each call looks the
parametrised class up in pydantic's cache every time (a few microseconds and a dozen calls)."""
