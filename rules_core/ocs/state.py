"""The OCS game state: sides, dumps, units and fuel markers (OCS 12.1, 12.5, 12.10).

Every model is frozen; a transition builds a new state with :meth:`OcsState.model_copy`.
Supply is stored as integer Tokens (1 SP = 4 T); Regimental Equivalents as exact fractions.

>>> state = OcsState(sides=("Axis", "Soviet"))
>>> state.options.ocs_rounding
'half-up'
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from rules_core.errors import IllegalAction, InvalidInput
from rules_core.ocs.tokens import Rounding, format_tokens
from rules_core.outcome import Outcome

UnitKind = Literal["combat", "HQ", "transport"]
"""A combat unit, an HQ (a combat unit too, 12.9b) or a Transport Point counter (non-combat)."""
Arms = Literal["armor", "mech", "other"]
"""v3 9.4e codes: Armor (yellow, or red with a tank symbol), Mech (red, no tank), Other."""
Mode = Literal["combat", "move", "strat", "reserve", "DG"]
"""A unit's mode: Combat, Move, Strat or Reserve; DG (disorganized) is a mode too (OCS 12.8c)."""
InternalStocks = Literal["NONE", "LOW", "EXHAUSTED"]
Movement = Literal["leg", "truck", "track"]
Fuel = Literal["none", "phase"]
"""Single-unit fuel (12.5c C): none, or fueled for the current phase only.

Formation and HQ fuel, which lasts until the Clean Up Phase, lives on :class:`FuelMarker`.
"""
TraceCheck = Literal["traced", "ate", "none"]
Location = Literal["map", "dead pile", "reinforcement"]
Phase = Literal["supply", "movement", "reaction", "combat", "exploitation", "cleanup"]
"""The phases of a Player Turn the supply rules name (12.5d, 12.6, 12.10e, 12.11a).

The Reaction Phase is the reacting (non-phasing) player's; the side of a phase is the player who
acts in it."""
Segment = Literal["movement", "barrage", "combat"]
"""The segment inside a Movement, Reaction or Exploitation Phase (12.11a: Movement Segments)."""


class OcsOptions(BaseModel):
    """The OCS options of a game, with their defaults."""

    model_config = ConfigDict(frozen=True)

    ocs_rounding: Rounding = "half-up"
    """How "round to the nearest" treats exact halves (default: up)."""
    dak_brigades: bool = False
    """OCS 12.4 exception: in DAK a 2-step brigade pays 1 T to attack."""
    ruleset: Literal["ocs_v3_charts"] = "ocs_v3_charts"
    """The v3 charts (9.4e Combined Arms)."""


class Dump(BaseModel):
    """Supply on the ground in one hex, owned by one side (OCS 12.1b, 12.1d)."""

    model_config = ConfigDict(frozen=True)

    side: str
    hex: str
    tokens: int = Field(ge=0)

    def render(self) -> str:
        """``Axis 0905: 4 1/2 SP`` (OCS 12.1a notation).

        >>> Dump(side="Axis", hex="0905", tokens=18).render()
        'Axis 0905: 4 1/2 SP'
        """
        return f"{self.side} {self.hex}: {format_tokens(self.tokens)}"


class Unit(BaseModel):
    """One counter: a combat unit, an HQ or a Transport Point counter (steps = its points)."""

    model_config = ConfigDict(frozen=True)

    name: str
    side: str
    kind: UnitKind = "combat"
    hex: str | None = None
    steps: int = Field(default=1, ge=0)
    re: Fraction = Fraction(1)
    ar: int = Field(default=3, ge=0, le=5)
    arms: Arms = "other"
    antitank: bool = False
    formation: str | None = None
    hq: str | None = None
    brigade: bool = False
    mode: Mode = "combat"
    movement: Movement = "leg"
    printed_ma: int = Field(default=4, ge=0)
    out_of_supply: bool = False
    internals: InternalStocks = "NONE"
    fuel: Fuel = "none"
    trace: TraceCheck = "traced"
    had_genuine_trace_last_check: bool = True
    load_tokens: int = Field(default=0, ge=0)
    organic: bool = False
    """Organic Transport Points: their load is exempt from recovery (12.10e B)."""
    location: Location = "map"
    return_turn: int | None = None
    throw_range: int = Field(default=0, ge=0)
    """An HQ's printed throw range in MP (12.3b); 0 for other units."""
    extender: bool = False
    """Transport Points turned into an Extender (12.7): they neither move nor carry SP."""

    @property
    def is_combat_unit(self) -> bool:
        """HQs are combat units for supply (12.9b); Transport Points are not (12.9a)."""
        return self.kind != "transport"

    def with_steps(self, steps: int) -> Unit:
        """A copy with ``steps`` left; a multi-step unit's RE follows its steps (series rule 9.11d).

        The RE keeps its share per step (a 2-step, 1-RE unit that loses a step is 1/2 RE), so a
        unit that still has steps never drops to 0 RE; with no step left it goes to the Dead Pile.

        >>> Unit(name="Pz", side="Axis", steps=2, re=Fraction(1)).with_steps(1).re
        Fraction(1, 2)
        >>> Unit(name="Div", side="Axis", steps=3, re=Fraction(3)).with_steps(0).location
        'dead pile'
        """
        update: dict[str, object] = {"steps": steps}
        if self.steps > 1 and steps > 0:
            update["re"] = self.re * steps / self.steps
        if steps == 0:
            update["location"] = "dead pile"
            # Fraction(0), never the int 0: the field is a Fraction (serializer warning otherwise)
            update["re"] = Fraction(0) if self.steps > 1 else self.re
        return self.model_copy(update=update)

    @property
    def is_trucks(self) -> bool:
        """Capture Table: Transport Points with MA > 10 are Trucks; MA ≤ 10, Other ones."""
        return self.printed_ma > 10


class FuelMarker(BaseModel):
    """A Fuel marker on an HQ or a Formation marker on its Fueled side (OCS 12.5c A/B)."""

    model_config = ConfigDict(frozen=True)

    side: str
    method: Literal["formation", "hq"]
    name: str
    throws_from: str | None = None
    """HQ method: the single hex the HQ throws fuel from this phase, once chosen (12.5e)."""
    started_in: str | None = None
    """HQ method: the hex the HQ started its move from this phase, if it moved (12.5e)."""


class OcsState(BaseModel):
    """The whole OCS supply state of one game."""

    model_config = ConfigDict(frozen=True)

    sides: tuple[str, ...]
    options: OcsOptions = OcsOptions()
    dumps: tuple[Dump, ...] = ()
    units: tuple[Unit, ...] = ()
    fuel_markers: tuple[FuelMarker, ...] = ()
    blown_this_phase: tuple[tuple[str, str], ...] = ()
    """(side, hex) of the dumps blown this phase: once per dump per phase (12.11a).

    A dump is a location (12.1b): the SP on the ground in a hex and those loaded on Transport
    Points there are one dump, blown once a phase."""
    turn: int = Field(default=1, ge=1)
    """The game turn (12.8e: Breakout returns are counted from it)."""
    phase: Phase | None = None
    """The current phase, once the players track phases with ``/ocs phase`` (None: untracked)."""
    phase_side: str | None = None
    """The side whose phase it is (for the Reaction Phase: the reacting side)."""
    segment: Segment = "movement"
    """The segment of a Movement, Reaction or Exploitation Phase (12.11a)."""
    checked: tuple[str, ...] = ()
    """Units whose trace check was recorded in this Supply Phase (12.6, 12.8a)."""
    attrition_checked: tuple[str, ...] = ()
    """Units checked for Attrition in this Supply Phase (12.8a: once per Supply Phase)."""
    recovered_from: tuple[str, ...] = ()
    """Dumps (hexes) that paid the compulsory recovery of internals this Supply Phase (12.10e)."""
    trace_sources: tuple[tuple[str, str], ...] = ()
    """(formation, source) this Supply Phase: a formation traces to one HQ or dump (12.6f)."""
    unloaded: tuple[tuple[str, str, int], ...] = ()
    """(side, hex, Tokens) unloaded this phase: not loaded again this phase (12.2a)."""
    built: tuple[tuple[str, str, str, int, int], ...] = ()
    """(side, what, hex, turn, levels) built or improved: air bases and Hedgehogs (chart 13.2d)."""

    def unloaded_in(self, hex: str, side: str) -> int:
        """Tokens ``side`` unloaded in ``hex`` this phase (12.2a: they are not loaded again).

        >>> OcsState(sides=("Axis",), unloaded=(("Axis", "A1", 4),)).unloaded_in("A1", "Axis")
        4
        """
        return sum(t for s, h, t in self.unloaded if s == side and h == hex)

    def unit(self, name: str) -> Unit:
        """The unit called ``name``.

        :raises InvalidInput: when there is none.

        >>> OcsState(sides=("Axis",)).unit("Bob")
        Traceback (most recent call last):
        ...
        rules_core.errors.InvalidInput: There is no unit called 'Bob' in this game.
        """
        for unit in self.units:
            if unit.name == name:
                return unit
        raise InvalidInput(f"There is no unit called {name!r} in this game.")

    def side_units(self, names: Iterable[str], side: str | None = None) -> list[Unit]:
        """The named units, all of one side (the first one's unless ``side`` is given; 12.1d).

        >>> s = OcsState(sides=("Axis", "Soviet"), units=(Unit(name="a", side="Axis"),
        ...              Unit(name="b", side="Soviet")))
        >>> s.side_units(["a", "b"])
        Traceback (most recent call last):
        ...
        rules_core.errors.InvalidInput: b belongs to Soviet, not Axis.
        """
        units: list[Unit] = []
        for name in names:
            unit = self.unit(name.strip())
            if unit in units:
                raise InvalidInput(f"{unit.name} is named twice.")
            units.append(unit)
        if not units:
            raise InvalidInput("Name at least one unit.")
        owner = side or units[0].side
        for unit in units:
            if unit.side != owner:
                raise InvalidInput(f"{unit.name} belongs to {unit.side}, not {owner}.")
        return units

    def check_side(self, side: str) -> None:
        """Refuse a side that is not in this game (OCS 12.1d: supply belongs to a side).

        :raises InvalidInput: when ``side`` is not a side of this game.

        >>> OcsState(sides=("Axis",)).check_side("Allies")
        Traceback (most recent call last):
        ...
        rules_core.errors.InvalidInput: 'Allies' is not a side of this game; the sides are Axis.
        """
        if side not in self.sides:
            raise InvalidInput(
                f"{side!r} is not a side of this game; the sides are {', '.join(self.sides)}."
            )

    def dump_at(self, hex: str, side: str) -> Dump | None:
        """The dump of ``side`` in ``hex``, or ``None`` (OCS 12.1b).

        >>> OcsState(sides=("Axis",), dumps=(Dump(side="Axis", hex="A1", tokens=1),)).dump_at(
        ...     "A1", "Axis").tokens
        1
        """
        for dump in self.dumps:
            if dump.hex == hex and dump.side == side:
                return dump
        return None

    def own_dump(self, hex: str, side: str) -> Dump:
        """The dump of ``side`` in ``hex``; refuses an empty hex and a dump of the other side.

        >>> dump = Dump(side="Soviet", hex="0905", tokens=4)
        >>> state = OcsState(sides=("Axis", "Soviet"), dumps=(dump,))
        >>> state.own_dump("0905", "Axis")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        rules_core.errors.IllegalAction: The dump in 0905 belongs to Soviet; Axis may not use it...
        """
        dump = self.dump_at(hex, side)
        if dump is not None:
            return dump
        owners = [d.side for d in self.dumps if d.hex == hex]
        if owners:
            raise IllegalAction(
                f"The dump in {hex} belongs to {owners[0]}; {side} may not use it.",
                rule="OCS 12.1d",
            )
        raise InvalidInput(f"{side} has no dump in {hex}.")

    def unique_name(self, base: str, taken: Iterable[str] = ()) -> str:
        """``base``, or ``base #2``, ``base #3``… so that no two units share a name.

        >>> OcsState(sides=("Axis",), units=(Unit(name="T", side="Axis"),)).unique_name("T")
        'T #2'
        """
        used = {u.name for u in self.units} | set(taken)
        name, number = base, 1
        while name in used:
            number += 1
            name = f"{base} #{number}"
        return name

    def with_units(self, *changed: Unit) -> OcsState:
        """A copy with these units replaced (by name) or appended.

        >>> s = OcsState(sides=("Axis",), units=(Unit(name="a", side="Axis"),))
        >>> [u.steps for u in s.with_units(Unit(name="a", side="Axis", steps=2)).units]
        [2]
        """
        by_name = {u.name: u for u in changed}
        units = [by_name.pop(u.name, u) for u in self.units]
        units.extend(by_name.values())
        return self.model_copy(update={"units": tuple(units)})

    def with_dump(self, side: str, hex: str, tokens: int) -> OcsState:
        """A copy with ``side``'s dump in ``hex`` set to ``tokens`` (removed when empty, 12.1c).

        >>> OcsState(sides=("Axis",)).with_dump("Axis", "A1", 5).dumps[0].render()
        'Axis A1: 1 SP 1 T'
        """
        if tokens < 0:
            raise ValueError(f"a dump may never go negative ({tokens} T)")
        dumps = [d for d in self.dumps if not (d.hex == hex and d.side == side)]
        if tokens:
            index = next(
                (i for i, d in enumerate(self.dumps) if d.hex == hex and d.side == side),
                len(dumps),
            )
            dumps.insert(index, Dump(side=side, hex=hex, tokens=tokens))
        return self.model_copy(update={"dumps": tuple(dumps)})

    def carriers(self, hex: str, side: str, *, organic: bool = True) -> list[Unit]:
        """``side``'s loaded Transport Points on the map in ``hex``, Organic last (12.1b, 12.10a).

        >>> t = Unit(name="T", side="Axis", kind="transport", hex="A1", load_tokens=4, organic=True)
        >>> [u.name for u in OcsState(sides=("Axis",), units=(t,)).carriers("A1", "Axis")]
        ['T']
        """
        loaded = [
            u
            for u in self.units
            if u.kind == "transport"
            and u.side == side
            and u.hex == hex
            and u.location == "map"
            and u.load_tokens > 0
            and (organic or not u.organic)
        ]
        return sorted(loaded, key=lambda u: u.organic)

    def supply_at(self, hex: str, side: str, *, organic: bool = True) -> int:
        """Tokens ``side`` can use in ``hex``: on the ground and loaded (OCS 12.1b).

        :raises IllegalAction: the only supply there is the other side's (12.1d).
        :raises InvalidInput: ``side`` has no supply there.

        >>> trucks = Unit(name="T", side="Axis", kind="transport", hex="A1", load_tokens=4)
        >>> ground = Dump(side="Axis", hex="A1", tokens=2)
        >>> s = OcsState(sides=("Axis",), units=(trucks,), dumps=(ground,))
        >>> s.supply_at("A1", "Axis")
        6
        """
        loads = sum(u.load_tokens for u in self.carriers(hex, side, organic=organic))
        if self.dump_at(hex, side) is None and not self.carriers(hex, side):
            self.own_dump(hex, side)  # raises the right refusal
        return self.dump_tokens(hex, side) + loads

    def supply_held(self, hex: str | None, side: str, *, organic: bool = True) -> int:
        """Tokens of ``side`` in ``hex``, ground and loads, 0 when it has none there (12.1b).

        With ``organic=False`` the SP on Organic Trucks are left out (12.10a, 12.10e B).

        >>> trucks = Unit(name="T", side="Axis", kind="transport", hex="A1", load_tokens=4,
        ...               organic=True)
        >>> s = OcsState(sides=("Axis",), units=(trucks,))
        >>> s.supply_held("A1", "Axis"), s.supply_held("A1", "Axis", organic=False)
        (4, 0)
        """
        if hex is None:
            return 0
        loads = sum(u.load_tokens for u in self.carriers(hex, side, organic=organic))
        return self.dump_tokens(hex, side) + loads

    def spend(self, hex: str, side: str, tokens: int, *, organic: bool = True) -> OcsState:
        """A copy with ``tokens`` taken from ``side``'s supply in ``hex``: ground first, then loads.

        >>> trucks = Unit(name="T", side="Axis", kind="transport", hex="A1", load_tokens=4)
        >>> ground = Dump(side="Axis", hex="A1", tokens=2)
        >>> s = OcsState(sides=("Axis",), units=(trucks,), dumps=(ground,))
        >>> after = s.spend("A1", "Axis", 3)
        >>> after.dumps, after.units[0].load_tokens
        ((), 3)
        """
        if tokens < 0:
            raise ValueError(f"cannot spend a negative amount ({tokens} T)")
        ground = self.dump_tokens(hex, side)
        from_ground = min(ground, tokens)
        state = self.with_dump(side, hex, ground - from_ground) if from_ground else self
        left = tokens - from_ground
        changed: list[Unit] = []
        for carrier in self.carriers(hex, side, organic=organic):
            if left == 0:
                break
            taken = min(left, carrier.load_tokens)
            left -= taken
            changed.append(carrier.model_copy(update={"load_tokens": carrier.load_tokens - taken}))
        if left:
            raise ValueError(f"a dump may never go negative: {left} T short in {hex}")
        return state.with_units(*changed) if changed else state

    def dump_tokens(self, hex: str, side: str) -> int:
        """Tokens of ``side`` on the ground in ``hex``, 0 when there is no dump (OCS 12.1b).

        >>> OcsState(sides=("Axis",)).dump_tokens("A1", "Axis")
        0
        """
        dump = self.dump_at(hex, side)
        return dump.tokens if dump else 0


__all__ = [
    "Arms",
    "Dump",
    "Fuel",
    "FuelMarker",
    "InternalStocks",
    "Location",
    "Mode",
    "Movement",
    "OcsOptions",
    "OcsState",
    "Phase",
    "Segment",
    "TraceCheck",
    "Unit",
    "UnitKind",
]


OcsOutcome = Outcome[OcsState]
"""The outcome of an OCS action. Named once: ``Outcome[OcsState]`` written at each call looks the
parametrised class up in pydantic's cache every time (a few microseconds and a dozen calls)."""
