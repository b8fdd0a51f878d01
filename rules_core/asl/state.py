"""The ASL game state: sides with their Ammunition Shortage level, units, weapons, phase, MPh shots.

Everything is a frozen pydantic model; a transition returns a new state (A9, FB16, the Player Turn
of A3).

>>> side = Side(name="Axis", nationality="German", axis=True, level=4)
>>> side.level
4
>>> Weapon(name="LMG", side="Axis", kind="sw_mg").status
'ok'
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from rules_core.frozen import replaced
from rules_core.outcome import Outcome

WeaponKind = Literal[
    "sw_mg", "sw_other", "veh_mg", "gun", "dc", "ft", "psk", "radio", "phone"
]  # fmt: skip
"""A SW MG, another SW, vehicle Inherent MG Armament, a Gun (any ordnance that is not a MG);
the kinds FB16.12 names are their own kinds: DC, FT, PSK, radio, field phone."""
SW_KINDS: frozenset[str] = frozenset({"sw_mg", "sw_other", "dc", "ft", "psk", "radio", "phone"})
"""Support Weapons: portaged and fired (or used) by the Personnel possessing them (A9.1)."""
FB_IMMUNE_KINDS: frozenset[str] = frozenset({"dc", "ft", "psk", "radio", "phone"})
"""FB16.12: radios, field phones, DCs, PSKs and FTs are not subject to Ammunition Shortage."""
MgType = Literal["lmg", "mmg", "hmg", "50cal"]
"""A MG's size where a rule asks it (A9.8 dismantling: HMG/MMG; the Russian .50 cal)."""
UnitKind = Literal["squad", "half_squad", "crew", "leader", "hero"]
Phase = Literal["rph", "pfph", "mph", "dfph", "afph", "rtph", "ccph"]
FireMarker = Literal["none", "prep", "first", "final", "intensive"]
WeaponStatus = Literal["ok", "malfunctioned", "eliminated", "disabled"]

PHASE_NAMES: dict[str, str] = {
    "rph": "Rally Phase",
    "pfph": "Prep Fire Phase",
    "mph": "Movement Phase",
    "dfph": "Defensive Fire Phase",
    "afph": "Advancing Fire Phase",
    "rtph": "Rout Phase",
    "ccph": "Close Combat Phase",
}
PHASE_ORDER: tuple[Phase, ...] = ("rph", "pfph", "mph", "dfph", "afph", "rtph", "ccph")
"""A3: the phases of one Player Turn, in order (the APh is not refereed here)."""
FIRE_PHASES: frozenset[str] = frozenset({"pfph", "mph", "dfph", "afph"})
"""A3: the phases in which IFT and To Hit fire happens."""
MARKER_NAMES: dict[str, str] = {
    "none": "no fire marker",
    "prep": "Prep Fire",
    "first": "First Fire",
    "final": "Final Fire",
    "intensive": "Intensive Fire",
}


class AslConfig(BaseModel):
    """The ASL configuration flags, with their defaults.

    >>> AslConfig().fb_atmm_level4_drm, AslConfig().repair_drm
    (1, 0)
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    fb_atmm_level4_drm: int = Field(default=1, ge=0, le=2)
    """FB16.64: the ATMM drm at level 4 (chart/prose 1; the FB16 EX uses 2)."""
    repair_drm: int = Field(default=0, ge=-3, le=3)
    """A9.72: a drm added to every Repair dr (the Δ of A9.72 refers to a rule we do not have)."""


class Side(BaseModel):
    """A side, its nationality, whether it is Axis, and its FB16 Ammunition Shortage level."""

    model_config = ConfigDict(frozen=True)

    name: str
    nationality: str
    axis: bool
    level: int = Field(default=0, ge=0, le=5)
    san: int = Field(default=0, ge=0, le=7)
    """A14.1: its Sniper Activation Number (below 2: no Sniper)."""


class Unit(BaseModel):
    """A squad, half-squad, crew, leader or hero, with the data FB16.2 Unit Replacement needs."""

    model_config = ConfigDict(frozen=True)

    name: str
    side: str
    kind: UnitKind
    nationality: str
    quality: str = ""
    replaced_by: tuple[str, ...] = ()
    """A19.13 replacement chain: the next lower-quality counters, best first."""
    elite: bool = False
    smoke: int = 0
    """A24.1 SMOKE exponent (0: none)."""
    broken: bool = False
    pinned: bool = False
    berserk: bool = False
    unarmed: bool = False
    cx: bool = False
    fire_marker: FireMarker = "none"
    """A3, A8: the Prep/First/Final Fire marker of its Inherent FP."""
    fired: bool = False
    """Its Inherent FP attacked this phase (A7: once per phase unless the rules say otherwise)."""
    forfeit: bool = False
    """A9.11: Inherent FP forfeited for the remaining fire phases of this Player Turn."""
    mgs: tuple[str, ...] = ()
    """A9.11/A9.12: the SW MGs it fired this phase."""
    directed: bool = False
    """A leader who directed fire this phase (A9.12: one who fires a SW may not)."""
    sw_used: bool = False
    """A9.12: an SMC who fired a SW this phase (a leader loses his leadership DRM)."""
    repairs: int = 0
    """A9.72: Repair drs it made this Player Turn."""

    @property
    def good_order(self) -> bool:
        """A.7: Good Order — not broken.

        >>> Unit(name="A", side="Axis", kind="squad", nationality="German", broken=True).good_order
        False
        """
        return not self.broken

    @property
    def is_mmc(self) -> bool:
        """Multi-Man Counter: squad, half-squad or crew (FB16.2 Unit Replacement, A9.11).

        >>> Unit(name="C", side="Axis", kind="crew", nationality="German").is_mmc
        True
        """
        return self.kind in ("squad", "half_squad", "crew")

    @property
    def is_smc(self) -> bool:
        """Single-Man Counter: leader or hero (A9.12; immune under FB16.11).

        >>> Unit(name="L", side="Axis", kind="leader", nationality="German").is_smc
        True
        """
        return self.kind in ("leader", "hero")


class Weapon(BaseModel):
    """A SW, Gun or vehicle MG with its printed numbers and current markers (A9.7)."""

    model_config = ConfigDict(frozen=True)

    name: str
    side: str
    """The side that possesses (uses) the weapon now."""
    kind: WeaponKind
    printed_b: int | None = None
    printed_x: int | None = None
    rof: int | None = None
    r_number: int | None = None
    repairable: bool = True
    removal_number: int | None = None
    possessor: str | None = None
    captured_from: str | None = None
    main_armament: bool = False
    fb_immune: bool = False
    """FB16.65 and other immunity not given by the kind (a vehicular smoke dispenser)."""
    mg: MgType | None = None
    """The MG's size, when known (A9.8)."""
    mortar: bool = False
    """A9.8: a light mortar of four PP or less or a 76-82mm mortar, which may be dismantled."""
    normal_range: int | None = None
    """A9.1: a SW MG's Normal Range in hexes (the number after the dash of its strength)."""
    cmg: bool = False
    """A9.4 EXC: a CMG/IFE needs no leader beyond 16 hexes and treats no Infantry as concealed."""
    dm: bool = False
    """A9.8: dismantled."""
    special_ammo: tuple[tuple[str, int], ...] = ()
    """C8.9: (type, printed Depletion Number)."""
    depleted: tuple[str, ...] = ()
    status: WeaponStatus = "ok"
    fire_marker: FireMarker = "none"
    low_ammo: bool = False
    spent: bool = False
    """A9.2: it may not fire again this phase (no or lost Multiple ROF, Sustained Fire, use)."""
    lane_laid: bool = False
    """A9.22: it laid a Fire Lane this MPh (no further fire until the DFPh except vs TPBF)."""
    prep_fired: bool = False
    """A3: it fired in this PFPh keeping Multiple ROF (no marker, A9.2): no fire in the AFPh."""
    ca_fixed: bool = False
    """A9.21: a SW MMG/HMG in woods/rubble/building fired this phase: further shots only inside
    the Covered Arc of that shot."""
    repair_tried: bool = False
    """A9.72: a Repair dr was made for it this Player Turn."""

    @property
    def is_sw(self) -> bool:
        """A Support Weapon (A9.1), fired only by the unit possessing it.

        >>> Weapon(name="DC", side="Axis", kind="dc").is_sw
        True
        """
        return self.kind in SW_KINDS

    @property
    def immune(self) -> bool:
        """FB16.12 (by its kind) or FB16.65 (flagged): not subject to Ammunition Shortage.

        >>> Weapon(name="FT", side="Axis", kind="ft").immune
        True
        """
        return self.fb_immune or self.kind in FB_IMMUNE_KINDS

    @property
    def is_mg(self) -> bool:
        """SW MG or vehicle MG: the weapons A9.2 ROF, A9.3 and A9.71 speak of.

        >>> Weapon(name="PaK", side="Axis", kind="gun").is_mg
        False
        """
        return self.kind in ("sw_mg", "veh_mg")


class ShotCount(BaseModel):
    """A9.2: shots a DEFENDER MG has taken this MPh at one unit in one Location."""

    model_config = ConfigDict(frozen=True)

    weapon: str
    target: str
    location: str
    shots: int


class FireLane(BaseModel):
    """A9.22: a Fire Lane laid by a MG; it expires at the end of the MPh."""

    model_config = ConfigDict(frozen=True)

    weapon: str
    location: str


def _by_name(items: tuple[Any, ...]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """``items`` (sides, units or weapons) by lower-case name, the first of a name winning (as a
    scan in order finds it), with the tuple the index was built from.

    :class:`AslState` keeps it in its ``__dict__`` (as ``functools.cached_property`` would) and
    rebuilds it when the tuple it holds is not the one the index was built from: a
    copy (``model_copy``, :func:`~rules_core.frozen.replaced`) copies ``__dict__``, the index with
    it, and replaces only the updated fields.
    pydantic leaves keys of ``__dict__`` that are not fields out of dumps, equality and hashes.

    >>> a = Unit(name="A", side="Axis", kind="squad", nationality="German")
    >>> st = AslState(sides=(), units=(a,))
    >>> st.unit("a") is a, st.unit("B")
    (True, None)
    >>> b = a.model_copy(update={"name": "B"})
    >>> moved = st.model_copy(update={"units": (b,)})
    >>> moved.unit("a"), moved.unit("b") is b, st.unit("A") is a
    (None, True, True)
    >>> fresh = AslState(sides=(), units=(b,))
    >>> moved == fresh, moved.model_dump() == fresh.model_dump(), hash(moved) == hash(fresh)
    (True, True, True)
    """
    return items, {item.name.lower(): item for item in reversed(items)}


class AslState(BaseModel):
    """The whole ASL game state."""

    model_config = ConfigDict(frozen=True)

    sides: tuple[Side, ...]
    units: tuple[Unit, ...] = ()
    weapons: tuple[Weapon, ...] = ()
    phase: Phase | None = None
    phase_side: str | None = None
    """The ATTACKER: the side whose Player Turn it is (A3)."""
    turn: int = 0
    """Player Turns begun since the game's first (A3)."""
    shots: tuple[ShotCount, ...] = ()
    fire_lanes: tuple[FireLane, ...] = ()
    config: AslConfig = AslConfig()

    def side(self, name: str) -> Side | None:
        """The side called ``name`` (case-insensitive), or ``None`` (FB16.1 levels live here).

        >>> AslState(sides=(Side(name="Axis", nationality="German", axis=True),)).side("axis").name
        'Axis'
        """
        index = self.__dict__.get("_sides_by_name")
        if index is None or index[0] is not self.sides:
            index = self.__dict__["_sides_by_name"] = _by_name(self.sides)
        return index[1].get(name.lower())

    def unit(self, name: str) -> Unit | None:
        """The unit called ``name`` (case-insensitive), or ``None`` (FB16.2, A9.11).

        >>> AslState(sides=()).unit("A") is None
        True
        """
        index = self.__dict__.get("_units_by_name")
        if index is None or index[0] is not self.units:
            index = self.__dict__["_units_by_name"] = _by_name(self.units)
        return index[1].get(name.lower())

    def weapon(self, name: str) -> Weapon | None:
        """The weapon called ``name`` (case-insensitive), or ``None`` (A9.7).

        >>> st = AslState(sides=(), weapons=(Weapon(name="LMG", side="Axis", kind="sw_mg"),))
        >>> st.weapon("lmg").name
        'LMG'
        """
        index = self.__dict__.get("_weapons_by_name")
        if index is None or index[0] is not self.weapons:
            index = self.__dict__["_weapons_by_name"] = _by_name(self.weapons)
        return index[1].get(name.lower())

    def with_weapons(self, changed: dict[str, Weapon]) -> AslState:
        """A copy with the named weapons replaced (stack order kept: A.9 Random Selection order).

        >>> st = AslState(sides=(), weapons=(Weapon(name="LMG", side="Axis", kind="sw_mg"),))
        >>> bad = st.weapons[0].model_copy(update={"status": "malfunctioned"})
        >>> st.with_weapons({"LMG": bad}).weapons[0].status
        'malfunctioned'
        """
        return replaced(self, {"weapons": tuple(changed.get(w.name, w) for w in self.weapons)})

    def with_units(self, changed: dict[str, Unit]) -> AslState:
        """A copy with the named units replaced (stack order kept: A.9 Random Selection order).

        >>> a = Unit(name="A", side="Axis", kind="squad", nationality="German")
        >>> st = AslState(sides=(), units=(a,))
        >>> st.with_units({"A": a.model_copy(update={"broken": True})}).units[0].broken
        True
        """
        return replaced(self, {"units": tuple(changed.get(u.name, u) for u in self.units)})


AslOutcome = Outcome[AslState]
"""The outcome of an ASL action. Named once: ``Outcome[AslState]`` written at each call looks the
parametrised class up in pydantic's cache every time (a few microseconds and a dozen calls)."""
