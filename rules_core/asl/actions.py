"""The ``/asl`` commands as action models; each model declares its command.

See the docstring of :mod:`rules_core.system` for the convention.

>>> Fire(weapons=("HMG", "LMG")).action
'asl.fire'
"""

from __future__ import annotations

from fractions import Fraction
from typing import Annotated, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic.config import JsonDict

from rules_core.asl.state import FireMarker, MgType, Phase, UnitKind, WeaponKind, WeaponStatus

_SIDE: JsonDict = {"autocomplete": "side"}
_UNIT: JsonDict = {"autocomplete": "unit"}
_WEAPON: JsonDict = {"autocomplete": "weapon"}
_REFEREE: JsonDict = {"referee_only": True}
"""An option only a referee may set (the service checks it; the log and the result show it)."""


class SetLevel(BaseModel):
    """Set a side's FB16 Ammunition Shortage level (0 = none)."""

    model_config = ConfigDict(frozen=True)
    action: Literal["asl.level"] = "asl.level"
    scenario: ClassVar[bool] = True
    setup: ClassVar[bool] = True
    side: str = Field(description="The Axis side", json_schema_extra=_SIDE)
    level: int = Field(ge=0, le=5, description="Ammunition Shortage level 0-5 (FB16.1)")


MAX_MF = 99
"""The most MF/MP a unit spends in one Location, as far as the options go."""


def mf_in_range(mf: Fraction | None) -> Fraction | None:
    """MF/MP as a player types them, ``1``, ``1.5``, ``3/2`` (A9.2: "FRD"), from 0 to 99.

    >>> mf_in_range(Fraction(3, 2))
    Fraction(3, 2)
    """
    if mf is not None and not 0 <= mf <= MAX_MF:
        raise ValueError(f"MF/MP spent in a Location are 0 to {MAX_MF}")
    return mf


class SetSan(BaseModel):
    """Set a side's Sniper Activation Number, SAN (A14.1; below 2: no Sniper)."""

    model_config = ConfigDict(frozen=True)
    action: Literal["asl.san"] = "asl.san"
    scenario: ClassVar[bool] = True
    setup: ClassVar[bool] = True
    side: str = Field(description="The side whose Sniper it is", json_schema_extra=_SIDE)
    san: int = Field(ge=0, le=7, description="Its SAN from the scenario, 0-7 (A14.1)")
    correction: bool = Field(
        default=False,
        description="Referee: raise a SAN in play (a SAN is never increased, A14.1)",
        json_schema_extra=_REFEREE,
    )


class AddUnit(BaseModel):
    """Add (or update) a squad, half-squad, crew, leader or hero."""

    model_config = ConfigDict(frozen=True)
    action: Literal["asl.unit.add"] = "asl.unit.add"
    scenario: ClassVar[bool] = True
    name: str = Field(description="Unit name, unique in the game", json_schema_extra=_UNIT)
    side: str = Field(description="The unit's side", json_schema_extra=_SIDE)
    kind: UnitKind = Field(description="squad, half_squad, crew, leader or hero")
    quality: str = Field(default="", description="Counter, e.g. 4-6-7 or 9-1")
    replaced_by: tuple[str, ...] = Field(
        default=(), description="A19.13 replacement chain, best first, e.g. 4-4-7, 4-3-6"
    )
    nationality: str | None = Field(
        default=None, description="Nationality if not the side's (e.g. Hungarian)"
    )
    elite: bool = Field(default=False, description="Elite unit (Hungarian PF/ATMM, FB13.6-13.7)")
    smoke: int = Field(default=0, ge=0, le=6, description="SMOKE exponent (A24.1); 0 = none")
    broken: bool | None = Field(default=None, description="Broken (default: as it is, or not)")
    pinned: bool | None = Field(default=None, description="Pinned (default: as it is, or not)")
    berserk: bool | None = Field(default=None, description="Berserk (default: as it is, or not)")
    unarmed: bool = Field(default=False, description="Unarmed")
    cx: bool = Field(default=False, description="Marked CX")
    update: bool = Field(default=False, description="Replace an existing unit of this name")


class AddWeapon(BaseModel):
    """Add (or update) a SW MG, other SW, Gun or vehicle MG with its printed numbers."""

    model_config = ConfigDict(frozen=True)
    action: Literal["asl.weapon.add"] = "asl.weapon.add"
    scenario: ClassVar[bool] = True
    name: str = Field(description="Weapon name, unique in the game", json_schema_extra=_WEAPON)
    side: str = Field(description="The side that possesses it", json_schema_extra=_SIDE)
    kind: WeaponKind = Field(
        description="sw_mg, sw_other, veh_mg, gun, or dc, ft, psk, radio, phone"
    )
    b: int | None = Field(default=None, ge=2, le=12, description="Printed B# (none: B12)")
    x: int | None = Field(default=None, ge=2, le=12, description="Printed X#")
    rof: int | None = Field(default=None, ge=1, le=4, description="Multiple ROF")
    repair: int | None = Field(default=None, ge=1, le=6, description="R# (vehicle armament: 1)")
    repairable: bool = Field(default=True, description="False if the reverse has no repair number")
    removal: int | None = Field(
        default=None, ge=1, le=6, description="Removal number on a Gun's malfunctioned side"
    )
    owner: str | None = Field(default=None, description="Possessing unit", json_schema_extra=_UNIT)
    captured_from: str | None = Field(
        default=None,
        description="Original owner side if captured",
        json_schema_extra={"autocomplete": "side", "names_enemy": True},
    )
    main_armament: bool = Field(default=False, description="Vehicle MG that is the MA")
    fb_immune: bool = Field(
        default=False, description="Not subject to FB (a smoke dispenser, FB16.65); DC, FT… by kind"
    )
    mg: MgType | None = Field(default=None, description="MG size: lmg, mmg, hmg, 50cal (A9.8)")
    mortar: bool = Field(
        default=False, description="A light mortar (4 PP or less) or a 76-82mm mortar (A9.8)"
    )
    normal_range: int | None = Field(
        default=None, ge=1, le=99, description="Normal Range in hexes: 8 for a 4-8 MG (A9.1)"
    )
    cmg: bool = Field(default=False, description="CMG/IFE: no leader needed beyond 16 hexes (A9.4)")
    dm: bool | None = Field(default=None, description="Dismantled (A9.8)")
    special_ammo: tuple[str, ...] = Field(
        default=(), description="Special Ammo with Depletion Numbers, e.g. APCR:5, HEAT:4"
    )
    status: WeaponStatus | None = Field(default=None, description="Current status (default: ok)")
    low_ammo: bool | None = Field(default=None, description="Marked Low Ammo (FB16.42)")
    marker: FireMarker | None = Field(default=None, description="Fire marker it carries now")
    update: bool = Field(default=False, description="Replace an existing weapon of this name")
    correction: bool = Field(
        default=False,
        description="Referee: change status or markers of a weapon in play",
        json_schema_extra=_REFEREE,
    )


class ListWeapons(BaseModel):
    """List the weapons with their status and markers."""

    model_config = ConfigDict(frozen=True)
    action: Literal["asl.weapon.list"] = "asl.weapon.list"
    read_only: ClassVar[bool] = True


class RemoveWeapon(BaseModel):
    """Remove a weapon from the game."""

    model_config = ConfigDict(frozen=True)
    action: Literal["asl.weapon.remove"] = "asl.weapon.remove"
    name: str = Field(description="The weapon", json_schema_extra=_WEAPON)


class Fire(BaseModel):
    """An IFT attack: breakdown, ROF, Random Selection, FB Unit Replacement, Residual flags."""

    model_config = ConfigDict(frozen=True)
    action: Literal["asl.fire"] = "asl.fire"
    rolls_dice: ClassVar[bool] = True
    weapons: tuple[str, ...] = Field(
        default=(), description="Weapons firing, in stack order", json_schema_extra=_WEAPON
    )
    units: tuple[str, ...] = Field(
        default=(), description="Units firing their Inherent FP", json_schema_extra=_UNIT
    )
    leader: str | None = Field(
        default=None,
        description="Leader directing the fire: the bot adds his leadership DRM (A7.53)",
        json_schema_extra=_UNIT,
    )
    helper: str | None = Field(
        default=None,
        description="Second SMC firing the SMC-held MG with its possessor (A9.12)",
        json_schema_extra=_UNIT,
    )
    phase: Phase | None = Field(
        default=None, description="Another phase than the game's (referee correction only)"
    )
    correction: bool = Field(
        default=False,
        description="Referee: an out-of-sequence correction (fire in phase:)",
        json_schema_extra=_REFEREE,
    )
    tpbf: bool = Field(
        default=False, description="Fire at a unit entering the MG's own Location (A9.223)"
    )
    sustained: tuple[str, ...] = Field(
        default=(), description="MGs using Sustained Fire (A9.3)", json_schema_extra=_WEAPON
    )
    fpf: bool = Field(default=False, description="Final Protective Fire (MPh)")
    fire_lane: bool = Field(
        default=False, description="Lay a Fire Lane with each SW MG firing (A9.22)"
    )
    spraying: bool = Field(default=False, description="Spraying Fire at two adjacent hexes (A9.5)")
    lane_residual: bool = Field(
        default=False, description="A Fire Lane Residual attack of this MG (A9.22)"
    )
    targets: tuple[str, ...] = Field(
        default=(),
        description="Units attacked: MPh MG fire (A9.2 shot limit), beyond 16 hexes (A9.4)",
    )
    location: str | None = Field(default=None, description="Target Location in the MPh, e.g. H6")
    mf: Fraction | None = Field(
        default=None, description="MF/MP the targets spent in that Location, 0-99 (1.5 too)"
    )
    _mf = field_validator("mf")(mf_in_range)
    range: int | None = Field(
        default=None, ge=0, le=99, description="Range in hexes (beyond 16 a leader directs, A9.4)"
    )
    overstacked: bool = Field(
        default=False, description="Beyond 16 hexes: the targets' Location is overstacked (A9.4)"
    )
    same_level: bool | None = Field(
        default=None, description="Fire Lane: the target is at the MG's own level (A9.22)"
    )
    mg_terrain: Literal["woods", "rubble", "building", "other"] | None = Field(
        default=None, description="The firing MMG/HMG's hex: woods, rubble, building, other (A9.21)"
    )
    inside_ca: bool | None = Field(
        default=None, description="Target inside the Covered Arc of the MG's prior shot (A9.21)"
    )
    lowering: tuple[str, ...] = Field(
        default=(), description="Other A.11 B# lowering per weapon, e.g. LMG:1 (captured use)"
    )
    drm: int = Field(
        default=0, ge=-9, le=9, description="Other IFT DRM: TEM, Hindrance, FFMO/FFNAM, CX… (A7)"
    )


class ToHit(BaseModel):
    """An ordnance To Hit DR: breakdown, Low Ammo, Special Ammo depletion, ROF."""

    model_config = ConfigDict(frozen=True)
    action: Literal["asl.tohit"] = "asl.tohit"
    rolls_dice: ClassVar[bool] = True
    gun: str = Field(description="The Gun (or MG firing as ordnance)", json_schema_extra=_WEAPON)
    helper: str | None = Field(
        default=None,
        description="Second SMC firing the SMC-held MG with its possessor (A9.12)",
        json_schema_extra=_UNIT,
    )
    phase: Phase | None = Field(
        default=None, description="Another phase than the game's (referee correction only)"
    )
    correction: bool = Field(
        default=False,
        description="Referee: an out-of-sequence correction (fire in phase:)",
        json_schema_extra=_REFEREE,
    )
    targets: tuple[str, ...] = Field(
        default=(), description="Units a MG attacks in the MPh (for the A9.2 shot limit)"
    )
    location: str | None = Field(default=None, description="Target Location in the MPh, e.g. H6")
    mf: Fraction | None = Field(
        default=None, description="MF/MP the targets spent in that Location, 0-99 (1.5 too)"
    )
    _mf = field_validator("mf")(mf_in_range)
    range: int | None = Field(
        default=None, ge=0, le=99, description="Range in hexes of a MG firing as ordnance"
    )
    to_kill: bool = Field(
        default=False, description="A MG's AFV To Kill attack: within Normal Range, full FP (A9.61)"
    )
    intensive: bool = Field(default=False, description="Intensive Fire (C5.6)")
    ovr_prevention: bool = Field(
        default=False, description="OVR Prevention: fire at an AFV overrunning in the MPh (FB16.52)"
    )
    special_ammo: str | None = Field(default=None, description="Special Ammunition type, e.g. APCR")
    lowering: int = Field(default=0, ge=0, le=6, description="Other A.11 B# lowering (captured…)")
    drm: int = Field(default=0, ge=-9, le=9, description="Total To Hit DRM (for the Final DR)")


class Repair(BaseModel):
    """A Repair dr for a malfunctioned weapon, with the level's elimination threshold."""

    model_config = ConfigDict(frozen=True)
    action: Literal["asl.repair"] = "asl.repair"
    rolls_dice: ClassVar[bool] = True
    weapon: str = Field(description="The malfunctioned weapon", json_schema_extra=_WEAPON)
    unit: str | None = Field(
        default=None, description="Repairing unit (default: its possessor)", json_schema_extra=_UNIT
    )


class Check(BaseModel):
    """An availability check (PF, ATMM, SMOKE, Starshell/IR) with its drms."""

    model_config = ConfigDict(frozen=True)
    action: Literal["asl.check"] = "asl.check"
    rolls_dice: ClassVar[bool] = True
    kind: Literal["pf", "atmm", "smoke", "starshell"] = Field(description="What is checked")
    unit: str = Field(description="The unit checking", json_schema_extra=_UNIT)
    cx: bool | None = Field(default=None, description="CX (default: the unit's marker)")
    year: int | None = Field(
        default=None, ge=1939, le=1945, description="Scenario year (PF: −1 in 1945, PFk in 1943)"
    )
    target: Literal["afv", "unarmored_vehicle", "other"] | None = Field(
        default=None, description="PF/ATMM target: AFV (default), unarmored vehicle, or other"
    )
    pfk: bool = Field(default=False, description="PFk (Aug-Sep 1943 only, C13.31)")
    usage: int | None = Field(
        default=None, ge=0, le=6, description="Starshell/IR usage number (scenario data)"
    )
    drm: int = Field(default=0, ge=-6, le=6, description="Any other drm")


class SetPhase(BaseModel):
    """Go on to the next phase (RPh, PFPh, MPh, DFPh, AFPh, RtPh, CCPh); expiring markers go."""

    model_config = ConfigDict(frozen=True)
    action: Literal["asl.phase"] = "asl.phase"
    advances_turn: ClassVar[bool] = True
    phase: Phase | None = Field(
        default=None, description="rph, pfph, mph, dfph, afph, rtph or ccph (default: the next)"
    )
    side: str | None = Field(
        default=None,
        description="The ATTACKER (needed only to begin the first Player Turn)",
        json_schema_extra={"autocomplete": "side", "names_enemy": True},
    )
    correction: bool = Field(
        default=False,
        description="Referee: jump out of sequence to phase/side",
        json_schema_extra=_REFEREE,
    )


class DestroyWeapon(BaseModel):
    """Destroy a SW, or malfunction it on purpose, instead of firing it (A9.73)."""

    model_config = ConfigDict(frozen=True)
    action: Literal["asl.weapon.destroy"] = "asl.weapon.destroy"
    name: str = Field(description="The weapon", json_schema_extra=_WEAPON)
    malfunction: bool = Field(default=False, description="Malfunction it instead of destroying it")


class Dismantle(BaseModel):
    """Dismantle a MG (or assemble a dismantled one); it counts as using it (A9.8)."""

    model_config = ConfigDict(frozen=True)
    action: Literal["asl.weapon.dm"] = "asl.weapon.dm"
    name: str = Field(description="The weapon", json_schema_extra=_WEAPON)
    assemble: bool = Field(default=False, description="Assemble it instead of dismantling it")


class RandomDestruction(BaseModel):
    """Random SW/Gun destruction after a Final KIA: a dr per weapon on the IFT column (A9.74)."""

    model_config = ConfigDict(frozen=True)
    action: Literal["asl.weapon.kia"] = "asl.weapon.kia"
    rolls_dice: ClassVar[bool] = True
    weapons: tuple[str, ...] = Field(
        description="The eliminated units' weapons", json_schema_extra=_WEAPON
    )
    kia: int = Field(ge=-6, le=12, description="Highest DR that is a KIA on that IFT column")
    k: int = Field(ge=-6, le=12, description="Highest DR that is a K on that IFT column")
    ovr: bool = Field(default=False, description="The KIA came from a fully-tracked AFV OVR (−1)")


UnitStatus = Literal["good_order", "broken", "pinned", "berserk", "eliminated"]


class SetUnit(BaseModel):
    """Record a unit's new status from a roll the bot does not make (e.g. a Morale Check)."""

    model_config = ConfigDict(frozen=True)
    action: Literal["asl.unit.set"] = "asl.unit.set"
    name: str = Field(description="The unit", json_schema_extra=_UNIT)
    status: UnitStatus = Field(description="good_order, broken, pinned, berserk or eliminated")
    quality: str | None = Field(default=None, description="New counter, e.g. 4-4-7 (if replaced)")
    reason: str = Field(default="", max_length=100, description="Why, e.g. MC DR 11")


AslAction = (
    SetLevel
    | SetSan
    | AddUnit
    | AddWeapon
    | ListWeapons
    | RemoveWeapon
    | Fire
    | ToHit
    | Repair
    | Check
    | SetPhase
    | SetUnit
    | DestroyWeapon
    | Dismantle
    | RandomDestruction
)
AslActionField = Annotated[AslAction, Field(discriminator="action")]
ACTION_TYPES: tuple[type[BaseModel], ...] = (
    SetLevel,
    SetSan,
    AddUnit,
    AddWeapon,
    ListWeapons,
    RemoveWeapon,
    Fire,
    ToHit,
    Repair,
    Check,
    SetPhase,
    SetUnit,
    DestroyWeapon,
    Dismantle,
    RandomDestruction,
)

__all__ = [
    "ACTION_TYPES",
    "AddUnit",
    "AddWeapon",
    "AslAction",
    "AslActionField",
    "Check",
    "DestroyWeapon",
    "Dismantle",
    "Fire",
    "ListWeapons",
    "RandomDestruction",
    "RemoveWeapon",
    "Repair",
    "SetLevel",
    "SetPhase",
    "SetSan",
    "SetUnit",
    "ToHit",
]
