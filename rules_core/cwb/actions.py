"""The `/cwb` commands, one frozen model each (see the convention in :mod:`rules_core.system`).

Each model is both the typed action the rules resolve and the declaration of its slash command:
the ``action`` literal is the command path, the docstring's first line its help text and every
field's description its option's help text.

Hexes are written ``column,row`` (``12,5``) in a single option; in a list option (``blocked``,
``sources``), whose items are separated by commas, each hex is written ``column/row`` (``12/5``).

>>> Fire(unit="1st Minnesota", mode="defensive").action
'cwb.fire'
>>> Fire.rolls_dice
True
"""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.config import JsonDict

from rules_core.cwb.state import Ammo, HexLayout, UnitType, WagonRounding

_UNIT: JsonDict = {"autocomplete": "unit"}
_WAGON: JsonDict = {"autocomplete": "wagon"}
_SIDE: JsonDict = {"autocomplete": "side"}


class Params(BaseModel):
    """The scenario's Parameter Data: ammo-loss chance, wagon rounding, artillery Ammo Level."""

    model_config = ConfigDict(frozen=True)
    action: Literal["cwb.params"] = "cwb.params"
    scenario: ClassVar[bool] = True
    setup: ClassVar[bool] = True
    ammo_loss: int | None = Field(
        default=None,
        ge=0,
        le=100,
        description="Percent chance of an ammo loss each time a unit fires",
    )
    side: str | None = Field(
        default=None,
        description="Only this side's ammo-loss, artillery-ammo, isolation (default: every side)",
        json_schema_extra=_SIDE,
    )
    wagon_rounding: WagonRounding | None = Field(
        default=None, description="Wagon cost of men/10: ceil (default), round or floor"
    )
    artillery_ammo: Ammo | None = Field(
        default=None, description="The side's artillery Ammo Level: normal, low or out"
    )
    isolation: bool | None = Field(
        default=None, description="Use the Isolation Effects Optional Rule"
    )
    ammo_loss_types: tuple[str, ...] | None = Field(
        default=None, description="Unit types that roll for ammo loss (default: infantry, cavalry)"
    )


class UnitAdd(BaseModel):
    """Add a unit: infantry, cavalry or artillery, with its men."""

    model_config = ConfigDict(frozen=True)
    action: Literal["cwb.unit.add"] = "cwb.unit.add"
    scenario: ClassVar[bool] = True
    name: str = Field(
        min_length=1, max_length=80, description="The unit's name, e.g. 1st Minnesota"
    )
    side: str = Field(description="The side it fights for", json_schema_extra=_SIDE)
    men: int = Field(ge=1, le=100_000, description="Men in the unit")
    type: UnitType = Field(default="infantry", description="Infantry, cavalry or artillery")
    ammo: Ammo = Field(default=Ammo.NORMAL, description="Ammunition at start: normal, low or out")
    hex: str | None = Field(default=None, description="Its hex as column,row (optional)")


class UnitSet(BaseModel):
    """Change a unit: men, ammunition, Routed, hex."""

    model_config = ConfigDict(frozen=True)
    action: Literal["cwb.unit.set"] = "cwb.unit.set"
    scenario: ClassVar[bool] = True
    name: str = Field(description="The unit", json_schema_extra=_UNIT)
    men: int | None = Field(default=None, ge=1, le=100_000, description="Men now in the unit")
    ammo: Ammo | None = Field(default=None, description="Ammunition: normal, low or out")
    routed: bool | None = Field(default=None, description="Routed (true) or rallied (false)")
    hex: str | None = Field(default=None, description="Its hex as column,row; 'none' takes it off")


class UnitRemove(BaseModel):
    """Remove a unit from the game."""

    model_config = ConfigDict(frozen=True)
    action: Literal["cwb.unit.remove"] = "cwb.unit.remove"
    name: str = Field(description="The unit", json_schema_extra=_UNIT)


class UnitList(BaseModel):
    """List the units with ammunition, morale reminder, Routed and Isolated."""

    model_config = ConfigDict(frozen=True)
    action: Literal["cwb.unit.list"] = "cwb.unit.list"
    read_only: ClassVar[bool] = True
    side: str | None = Field(
        default=None, description="Only this side's units", json_schema_extra=_SIDE
    )


class WagonAdd(BaseModel):
    """Add a Supply Wagon; each strength point resupplies 10 men."""

    model_config = ConfigDict(frozen=True)
    action: Literal["cwb.wagon.add"] = "cwb.wagon.add"
    scenario: ClassVar[bool] = True
    name: str = Field(min_length=1, max_length=80, description="The wagon's name")
    side: str = Field(description="The side it belongs to", json_schema_extra=_SIDE)
    strength: int = Field(
        ge=1, le=10_000, description="Strength points (1 per 10 men it can resupply)"
    )
    hex: str | None = Field(default=None, description="Its hex as column,row (optional)")


class WagonSet(BaseModel):
    """Move a Supply Wagon or correct its strength."""

    model_config = ConfigDict(frozen=True)
    action: Literal["cwb.wagon.set"] = "cwb.wagon.set"
    name: str = Field(description="The wagon", json_schema_extra=_WAGON)
    strength: int | None = Field(default=None, ge=1, le=10_000, description="Strength points now")
    hex: str | None = Field(default=None, description="Its hex as column,row; 'none' takes it off")


class Fire(BaseModel):
    """A unit fires: fire permission by ammunition, then the ammo-loss d100."""

    model_config = ConfigDict(frozen=True)
    action: Literal["cwb.fire"] = "cwb.fire"
    rolls_dice: ClassVar[bool] = True
    unit: str = Field(description="The firing unit", json_schema_extra=_UNIT)
    mode: Literal["offensive", "defensive"] = Field(description="Offensive or Defensive Fire")


class Resupply(BaseModel):
    """Resupply a unit from a Supply Wagon at the start of your Movement Phase."""

    model_config = ConfigDict(frozen=True)
    action: Literal["cwb.resupply"] = "cwb.resupply"
    unit: str = Field(description="The unit to resupply", json_schema_extra=_UNIT)
    wagon: str = Field(description="The friendly Supply Wagon", json_schema_extra=_WAGON)
    path: int | None = Field(
        default=None,
        ge=0,
        le=1000,
        description="Hexes to the wagon avoiding enemies and empty enemy ZOC (computed if on map)",
    )
    routed: bool | None = Field(
        default=None, description="Whether the unit is Routed now (default: as recorded)"
    )


class Supply(BaseModel):
    """Start of a side's Movement Phase: resupply every eligible unit from its nearest wagon."""

    model_config = ConfigDict(frozen=True)
    action: Literal["cwb.supply"] = "cwb.supply"
    side: str = Field(description="The side whose Movement Phase begins", json_schema_extra=_SIDE)


class Isolation(BaseModel):
    """Record the Isolation test's result for a unit and its melee effect."""

    model_config = ConfigDict(frozen=True)
    action: Literal["cwb.isolation"] = "cwb.isolation"
    unit: str = Field(description="The unit tested", json_schema_extra=_UNIT)
    isolated: bool = Field(description="True if no line of hexes could be traced")


class Melee(BaseModel):
    """A unit's Melee defence strength, with the Isolated ×1/4 as an exact fraction."""

    model_config = ConfigDict(frozen=True)
    action: Literal["cwb.melee"] = "cwb.melee"
    read_only: ClassVar[bool] = True
    unit: str = Field(description="The defending unit", json_schema_extra=_UNIT)
    strength: int | None = Field(
        default=None,
        ge=0,
        le=100_000,
        description="Its melee defence strength before isolation (default: men)",
    )


class Map(BaseModel):
    """Register the map for computed wagon paths and isolation traces."""

    model_config = ConfigDict(frozen=True)
    action: Literal["cwb.map"] = "cwb.map"
    scenario: ClassVar[bool] = True
    setup: ClassVar[bool] = True
    columns: int = Field(ge=1, le=1000, description="Hex columns on the map (numbered from 0)")
    rows: int = Field(ge=1, le=1000, description="Hex rows on the map (numbered from 0)")
    layout: HexLayout = Field(
        default="odd-q", description="Offset layout: odd-q (default), even-q, odd-r or even-r"
    )
    blocked: tuple[str, ...] = Field(default=(), description="Blocked hexes, each as column/row")
    sources: tuple[str, ...] = Field(
        default=(), description="Supply Source hexes, each as column/row"
    )


class Turn(BaseModel):
    """Start of a side's turn: the Isolation test of its units, traced on the map."""

    model_config = ConfigDict(frozen=True)
    action: Literal["cwb.turn"] = "cwb.turn"
    side: str = Field(description="The side whose turn begins", json_schema_extra=_SIDE)


CwbAction = (
    Params
    | UnitAdd
    | UnitSet
    | UnitRemove
    | UnitList
    | WagonAdd
    | WagonSet
    | Fire
    | Resupply
    | Supply
    | Isolation
    | Melee
    | Map
    | Turn
)
"""Every `/cwb` action."""

CwbActionField = Annotated[CwbAction, Field(discriminator="action")]

ACTION_TYPES: tuple[type[BaseModel], ...] = (
    Params,
    UnitAdd,
    UnitSet,
    UnitRemove,
    UnitList,
    WagonAdd,
    WagonSet,
    Fire,
    Resupply,
    Supply,
    Isolation,
    Melee,
    Map,
    Turn,
)

__all__ = [
    "ACTION_TYPES",
    "CwbAction",
    "CwbActionField",
    "Fire",
    "Isolation",
    "Map",
    "Melee",
    "Params",
    "Resupply",
    "Supply",
    "Turn",
    "UnitAdd",
    "UnitList",
    "UnitRemove",
    "UnitSet",
    "WagonAdd",
    "WagonSet",
]
