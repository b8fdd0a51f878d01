"""The ``/ocs`` commands as action models (the convention of rules_core/system.py).

Each model is one command: ``action`` is its path, the docstring's first line its help text and
each field an option. Amounts are strings in the players' notation ("3 SP 2 T", "4 1/2 SP").

>>> OcsAction  # doctest: +ELLIPSIS
typing.Annotated[...]
>>> DumpAdd(side="Axis", hex="0905", amount="4 SP").action
'ocs.dump.add'
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from rules_core.ocs.state import Arms, InternalStocks, Mode, Movement, Phase, Segment, UnitKind

_UNIT: dict[str, Any] = {"autocomplete": "unit"}
_DUMP: dict[str, Any] = {"autocomplete": "dump"}
_SIDE: dict[str, Any] = {"autocomplete": "side"}


class _Action(BaseModel):
    model_config = ConfigDict(frozen=True)


def _hq() -> Any:
    return Field(
        default=None,
        description="The HQ that throws (12.3b)",
        json_schema_extra=_UNIT,
    )


def _draw_mp() -> Any:
    return Field(default=None, ge=0, le=99, description="MP to the dump (12.3a: 5 at most)")


def _throw_mp() -> Any:
    return Field(default=None, ge=0, le=99, description="MP thrown by the HQ (12.3b)")


class DumpAdd(_Action):
    """Put supply on the ground: a new dump, or more SP in a side's dump (OCS 12.1)."""

    action: Literal["ocs.dump.add"] = "ocs.dump.add"
    scenario: ClassVar[bool] = True
    side: str = Field(description="The side that owns the supply", json_schema_extra=_SIDE)
    hex: str = Field(description="The hex of the dump, e.g. 0905", json_schema_extra=_DUMP)
    amount: str = Field(description='Supply to add: "3 SP 2 T", "4 1/2 SP", "2T"')


class DumpAdjust(_Action):
    """Spend supply from a dump, or set it to an amount (OCS 12.1a making change)."""

    action: Literal["ocs.dump.adjust"] = "ocs.dump.adjust"
    side: str = Field(description="The side that owns the dump", json_schema_extra=_SIDE)
    hex: str = Field(description="The hex of the dump", json_schema_extra=_DUMP)
    amount: str = Field(description='The amount: "1 SP", "2T", "4 1/2 SP"')
    how: Literal["spend", "set"] = Field(
        default="spend", description="spend an amount, or set the total"
    )
    reason: str = Field(default="", description="What the supply pays for (barrage, construction…)")


class DumpList(_Action):
    """List the dumps in exact Tokens."""

    read_only: ClassVar[bool] = True
    action: Literal["ocs.dump.list"] = "ocs.dump.list"
    side: str | None = Field(
        default=None, description="Only this side's dumps", json_schema_extra=_SIDE
    )


class UnitAdd(_Action):
    """Add a combat unit, HQ or Transport Point counter."""

    action: Literal["ocs.unit.add"] = "ocs.unit.add"
    scenario: ClassVar[bool] = True
    name: str = Field(description="The unit's name, unique in the game", json_schema_extra=_UNIT)
    side: str = Field(description="The side it belongs to", json_schema_extra=_SIDE)
    steps: int = Field(
        ge=0, le=99, description="Steps (for Transport Points: the number of points)"
    )
    re: str = Field(default="1", description='Regimental Equivalents now: "1", "1/2", "2 1/2"')
    ar: int = Field(default=3, ge=0, le=5, description="Action Rating")
    kind: UnitKind = Field(default="combat", description="combat unit, HQ or Transport Point")
    formation: str | None = Field(default=None, description="Its formation (none: independent)")
    hq: str | None = Field(default=None, description="The HQ it draws and takes fuel from")
    hex: str | None = Field(default=None, description="The hex it is in")
    brigade: bool = Field(
        default=False, description="It is a brigade (DAK: a 2-step brigade pays 1 T)"
    )
    arms: Arms = Field(default="other", description="9.4e: armor, mech or other")
    antitank: bool = Field(default=False, description="9.4e: it has the Antitank or AA symbol")
    movement: Movement = Field(default="leg", description="Its MP type: leg, truck or track")
    ma: int = Field(default=4, ge=0, le=99, description="Printed Movement Allowance")
    mode: Mode = Field(default="combat", description="Its mode")
    internals: InternalStocks = Field(default="NONE", description="Internal stocks marker")
    out_of_supply: bool = Field(default=False, description="It carries an Out of Supply marker")
    load: str = Field(default="0 T", description='Transport Points: SP loaded, e.g. "3 SP"')
    organic: bool = Field(default=False, description="Transport Points: they are Organic Trucks")
    throw_range: int = Field(default=0, ge=0, le=99, description="An HQ's printed throw range, MP")
    reinforcement: bool = Field(default=False, description="Arrives as a Reinforcement")


class UnitList(_Action):
    """List the units with their steps, mode and markers."""

    read_only: ClassVar[bool] = True
    action: Literal["ocs.unit.list"] = "ocs.unit.list"
    side: str | None = Field(
        default=None, description="Only this side's units", json_schema_extra=_SIDE
    )
    hex: str | None = Field(default=None, description="Only this hex")


class UnitChange(_Action):
    """Change a unit: steps left after losses, mode, RE, AR, formation, HQ."""

    action: Literal["ocs.unit.change"] = "ocs.unit.change"
    unit: str = Field(description="The unit", json_schema_extra=_UNIT)
    steps: int | None = Field(
        default=None, ge=0, le=99, description="Steps left (Transport Points: points left)"
    )
    re: str | None = Field(default=None, description='RE now, e.g. "1/2" (default: follows steps)')
    ar: int | None = Field(default=None, ge=0, le=5, description="Action Rating")
    mode: Mode | None = Field(default=None, description="New mode")
    formation: str | None = Field(default=None, description='Its formation ("none": independent)')
    hq: str | None = Field(
        default=None, description='The HQ it draws from ("none": no HQ)', json_schema_extra=_UNIT
    )
    throw_range: int | None = Field(
        default=None, ge=0, le=99, description="An HQ's throw range in MP"
    )
    reason: str = Field(default="", description="Why")


class UnitMove(_Action):
    """Move a unit (fuel checked), or place a Reinforcement (12.5)."""

    action: Literal["ocs.unit.move"] = "ocs.unit.move"
    unit: str = Field(description="The unit", json_schema_extra=_UNIT)
    hex: str = Field(description="The hex it ends in")
    how: Literal["move", "overrun", "retreat", "advance", "rail", "displaced", "placed"] = Field(
        default="move",
        description="move and overrun need fuel (12.5a-b)",
    )
    hq_at: str | None = Field(
        default=None,
        description="Hex the fueled HQ throws fuel from (12.5e)",
    )


class UnitRemove(_Action):
    """Remove a unit: eliminated to the Dead Pile, or withdrawn from the game."""

    action: Literal["ocs.unit.remove"] = "ocs.unit.remove"
    unit: str = Field(description="The unit", json_schema_extra=_UNIT)
    how: Literal["eliminated", "withdrawn"] = Field(
        default="eliminated", description="Dead Pile, or gone"
    )
    reason: str = Field(default="", description="Why")


class Attack(_Action):
    """Combat supply for an attack: 1 T per step, internals when on-map supply is short."""

    action: Literal["ocs.attack"] = "ocs.attack"
    attackers: tuple[str, ...] = Field(
        description="The attacking units, in the order they take supply", json_schema_extra=_UNIT
    )
    dump: str | None = Field(
        default=None,
        description="The dump's hex, 0905, or several: 0905, 1006",
        json_schema_extra=_DUMP,
    )
    organic: bool = Field(
        default=True,
        description="Use SP on Organic Trucks too (12.10a)",
    )
    hq: str | None = _hq()
    draw_mp: int | None = _draw_mp()
    throw_mp: int | None = _throw_mp()


class Defend(_Action):
    """Combat supply for a defence: 2 T, or 1 T for 1 RE or less; or defend at half."""

    action: Literal["ocs.defend"] = "ocs.defend"
    defenders: tuple[str, ...] = Field(description="The defending units", json_schema_extra=_UNIT)
    dump: str | None = Field(
        default=None,
        description="The dump's hex, 0905, or several: 0905, 1006",
        json_schema_extra=_DUMP,
    )
    organic: bool = Field(
        default=True,
        description="Use SP on Organic Trucks too (12.10a)",
    )
    withhold: bool = Field(default=False, description="Withhold combat supply: defend at half")
    hq: str | None = _hq()
    draw_mp: int | None = _draw_mp()
    throw_mp: int | None = _throw_mp()


class FuelAction(_Action):
    """Pay fuel: Formation 1 SP, HQ 1 SP, or 1 T for a single unit (OCS 12.5)."""

    action: Literal["ocs.fuel"] = "ocs.fuel"
    method: Literal["formation", "hq", "unit"] = Field(description="Formation, HQ or single unit")
    target: str = Field(description="The formation, HQ or unit to fuel", json_schema_extra=_UNIT)
    dump: str = Field(description="Hex of the dump that pays", json_schema_extra=_DUMP)
    side: str | None = Field(
        default=None,
        description="The side paying (needed for a formation)",
        json_schema_extra=_SIDE,
    )
    internals: bool = Field(default=False, description="Pay from internal stocks (never allowed)")
    cut_off: bool = Field(
        default=False,
        description="Cut off from its formation's or HQ's fuel",
    )
    hq: str | None = _hq()
    draw_mp: int | None = _draw_mp()
    throw_mp: int | None = _throw_mp()


class Trace(_Action):
    """Record a trace check: traced, ate off the map, or Out of Supply (OCS 12.6, 12.8a)."""

    action: Literal["ocs.trace"] = "ocs.trace"
    units: tuple[str, ...] = Field(
        description="The units checked (eating: the units fed together)", json_schema_extra=_UNIT
    )
    status: Literal["traced", "eat", "none"] = Field(description="traced, eat off the map, or none")
    dump: str | None = Field(
        default=None, description="Eating: hex of the dump that feeds them", json_schema_extra=_DUMP
    )
    trace_available: bool = Field(
        default=False, description="Eating: a trace to a Supply Source exists after all"
    )
    no_recovery: bool = Field(
        default=False, description="No marked unit reaches this dump (12.10e)"
    )
    hq: str | None = Field(
        default=None,
        description="HQ traced through, or throwing (12.6f)",
        json_schema_extra=_UNIT,
    )
    draw_mp: int | None = _draw_mp()
    throw_mp: int | None = _throw_mp()


class Recover(_Action):
    """Internal-stocks recovery in the Supply Phase: 2 T per level per unit or RE (OCS 12.10e)."""

    action: Literal["ocs.recover"] = "ocs.recover"
    side: str = Field(description="The side in its Supply Phase", json_schema_extra=_SIDE)
    dump: str = Field(description="Hex of the dump the units reach", json_schema_extra=_DUMP)
    units: tuple[str, ...] = Field(
        default=(),
        description="Marked units reaching it (default: in its hex or the HQ's)",
        json_schema_extra=_UNIT,
    )
    hq: str | None = _hq()
    draw_mp: int | None = _draw_mp()
    throw_mp: int | None = _throw_mp()


class Attrition(_Action):
    """Attrition Table for a stack with Out of Supply units (OCS 12.8b)."""

    rolls_dice: ClassVar[bool] = True
    action: Literal["ocs.attrition"] = "ocs.attrition"
    units: tuple[str, ...] = Field(description="Every unit of the stack", json_schema_extra=_UNIT)
    losses: tuple[str, ...] = Field(
        default=(),
        description="OOS units in the order they lose steps (default: as listed)",
        json_schema_extra=_UNIT,
    )


class Breakout(_Action):
    """Breakout of a unit out of trace supply, and its return turn (OCS 12.8e)."""

    rolls_dice: ClassVar[bool] = True
    action: Literal["ocs.breakout"] = "ocs.breakout"
    unit: str = Field(description="The unit (or Transport Point counter)", json_schema_extra=_UNIT)
    first_turn: bool | None = Field(
        default=None, description="First turn out of trace (default: from its trace record)"
    )
    path: bool = Field(
        default=False, description="12.8e A: a clear path to a friendly unit in trace supply"
    )
    distance: int | None = Field(
        default=None,
        ge=0,
        le=999,
        description="12.8e B: hexes to the nearest friendly combat unit in trace",
    )
    turn: int | None = Field(
        default=None, ge=1, le=999, description="The current game turn (default: the game's turn)"
    )


class Blow(_Action):
    """Dump Blowing Table: destroy a percentage of the SP named (OCS 12.11a)."""

    rolls_dice: ClassVar[bool] = True
    action: Literal["ocs.blow"] = "ocs.blow"
    side: str = Field(description="The side blowing its own dump", json_schema_extra=_SIDE)
    dump: str = Field(description="Hex of the dump", json_schema_extra=_DUMP)
    amount: str = Field(description='How much to blow: "3 SP", "2 1/4 SP"')
    transport: str | None = Field(
        default=None,
        description="Blow the SP loaded on this Transport Point counter instead",
        json_schema_extra=_UNIT,
    )
    what: Literal["ground", "loads", "all"] = Field(
        default="ground",
        description="ground, loads, or all",
    )


class Capture(_Action):
    """Capture Table: one roll per category of enemy SP and Transport Points (OCS 12.11b)."""

    rolls_dice: ClassVar[bool] = True
    action: Literal["ocs.capture"] = "ocs.capture"
    side: str = Field(description="The capturing side", json_schema_extra=_SIDE)
    hex: str = Field(
        description="The hex entered",
        json_schema_extra={"autocomplete": "dump", "names_enemy": True},
    )
    unit: str = Field(description="The Attack-Capable unit that entered", json_schema_extra=_UNIT)
    movement_phase: bool | None = Field(
        default=None,
        description="Entered in the Movement Phase (default: the phase tracked, else yes)",
    )


class Strength(_Action):
    """Supply and combined-arms multipliers as exact fractions (OCS 12.8d, v3 9.4e)."""

    read_only: ClassVar[bool] = True
    action: Literal["ocs.strength"] = "ocs.strength"
    unit: str = Field(description="The unit", json_schema_extra=_UNIT)
    mode: Literal["attack", "defend"] = Field(description="Attacking or defending")
    supplied: bool = Field(default=True, description="Combat supply is paid for it")
    strength: int | None = Field(
        default=None, ge=0, le=999, description="Its printed strength, to multiply"
    )
    terrain_x2: bool = Field(default=False, description="Attack: the terrain multiplier is ×2")
    defenders: tuple[str, ...] = Field(
        default=(),
        description="Attack: the units in the defending hex",
        json_schema_extra={"autocomplete": "unit", "names_enemy": True},
    )
    hedgehog: bool = Field(default=False, description="Attack: the defending hex has a Hedgehog")


class Cleanup(_Action):
    """Clean Up Phase: Fuel markers end (12.5d); or end a phase (single-unit fuel, dumps blown)."""

    action: Literal["ocs.cleanup"] = "ocs.cleanup"
    side: str = Field(description="The phasing side", json_schema_extra=_SIDE)
    scope: Literal["cleanup", "phase"] = Field(
        default="cleanup", description="cleanup: all fuel ends; phase: only single-unit fuel ends"
    )


class Load(_Action):
    """Load or unload SP (12.2a, chart 13.2d)."""

    action: Literal["ocs.load"] = "ocs.load"
    transport: str = Field(description="The Transport Point counter", json_schema_extra=_UNIT)
    amount: str = Field(description='How much: "2 SP", "1 SP 2 T"')
    unload: bool = Field(default=False, description="Unload instead")
    ma: int | None = Field(
        default=None, ge=0, le=99, description="MA after weather (default: printed)"
    )


class Extender(_Action):
    """Form or unform an Extender (12.7)."""

    action: Literal["ocs.extender"] = "ocs.extender"
    how: Literal["form", "unform", "collapse"] = Field(
        description="form, unform or collapse (12.7)"
    )
    units: tuple[str, ...] = Field(
        description="Transport Points (form) or the Extender",
        json_schema_extra=_UNIT,
    )
    hex: str | None = Field(default=None, description="The common hex (12.7e)")
    connected: bool = Field(default=False, description="Connects to a Supply Source now (12.7d)")
    name: str | None = Field(default=None, description="Its name")


class Special(_Action):
    """Supply for Special Purposes: air base, Hedgehog, port, barrage (chart 13.2d)."""

    action: Literal["ocs.special"] = "ocs.special"
    purpose: Literal["refit", "airbase", "hedgehog", "port", "barrage"] = Field(
        description="What is paid for"
    )
    side: str = Field(description="The side paying", json_schema_extra=_SIDE)
    dump: str = Field(
        description="The paying dump's hex, 0905, or several: 0905, 1006", json_schema_extra=_DUMP
    )
    hex: str | None = Field(default=None, description="The hex")
    levels: int = Field(default=1, ge=1, le=9, description="Levels built")
    engineer: bool = Field(default=False, description="Engineer present")
    close_terrain: bool = Field(default=False, description="In Very or Extremely Close terrain")
    amount: str | None = Field(default=None, description="Barrage cost")
    hq: str | None = _hq()
    draw_mp: int | None = _draw_mp()
    throw_mp: int | None = _throw_mp()


class SetPhase(_Action):
    """Go to a phase: the supply rules follow the turn's order."""

    action: Literal["ocs.phase"] = "ocs.phase"
    advances_turn: ClassVar[bool] = True
    side: str = Field(
        description="Whose phase",
        json_schema_extra={"autocomplete": "side", "names_enemy": True},
    )
    phase: Phase = Field(description="The phase")
    segment: Segment = Field(default="movement", description="The segment (12.11a)")
    turn: int | None = Field(
        default=None, ge=1, le=999, description="The game turn (default: unchanged)"
    )


ACTION_TYPES: tuple[type[BaseModel], ...] = (
    DumpAdd,
    DumpAdjust,
    DumpList,
    UnitAdd,
    UnitList,
    UnitChange,
    UnitMove,
    UnitRemove,
    Attack,
    Defend,
    FuelAction,
    Trace,
    Recover,
    Attrition,
    Breakout,
    Blow,
    Capture,
    Strength,
    Cleanup,
    SetPhase,
    Load,
    Extender,
    Special,
)

AnyOcsAction = (
    DumpAdd
    | DumpAdjust
    | DumpList
    | UnitAdd
    | UnitList
    | UnitChange
    | UnitMove
    | UnitRemove
    | Attack
    | Defend
    | FuelAction
    | Trace
    | Recover
    | Attrition
    | Breakout
    | Blow
    | Capture
    | Strength
    | Cleanup
    | SetPhase
    | Load
    | Extender
    | Special
)
OcsAction = Annotated[AnyOcsAction, Field(discriminator="action")]

__all__ = [
    "ACTION_TYPES",
    "AnyOcsAction",
    "Attack",
    "Attrition",
    "Blow",
    "Breakout",
    "Capture",
    "Cleanup",
    "Defend",
    "DumpAdd",
    "DumpAdjust",
    "DumpList",
    "Extender",
    "FuelAction",
    "Load",
    "OcsAction",
    "Recover",
    "SetPhase",
    "Special",
    "Strength",
    "Trace",
    "UnitAdd",
    "UnitChange",
    "UnitList",
    "UnitMove",
    "UnitRemove",
]
