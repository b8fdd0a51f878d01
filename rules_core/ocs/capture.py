"""Capturing dumps and Transport Points: the Capture Table (OCS 12.11b; v3 chart; 9.14b-c).

>>> CAPTURE_TABLE[5]
(50, 50, 75)
>>> captured_share(3, 25)
1
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from rules_core.dice import Dice, Roll
from rules_core.errors import IllegalAction, InvalidInput
from rules_core.ocs.actions import Capture
from rules_core.ocs.state import OcsOutcome, OcsState, Unit
from rules_core.ocs.tokens import Rounding, format_tokens, round_nearest
from rules_core.outcome import Fact, Outcome, Step
from rules_core.words import counted

Category = Literal["Dump", "Trucks", "Other Transport Points"]

CAPTURE_TABLE: dict[int, tuple[int, int, int]] = {
    # OCS v3 Capture Table: dr → % captured of (Dump on the ground, Trucks and their loaded SP,
    # Other Transport Points and their loaded SP). The stray "Moto a." row is ignored.
    1: (0, 0, 0),
    2: (25, 0, 0),
    3: (25, 25, 25),
    4: (50, 50, 50),
    5: (50, 50, 75),
    6: (75, 75, 100),
}
"""OCS Capture Table (v3 charts): percent captured per category."""

COLUMN: dict[Category, int] = {"Dump": 0, "Trucks": 1, "Other Transport Points": 2}
DISPLACEMENT_HEXES: dict[Category, int] = {"Trucks": 10, "Other Transport Points": 5}
"""Capture Table notes 3 and 4: the remainder displaces up to 10 (Trucks) or 5 hexes (Other)."""


def captured_share(amount: int, percent: int, rounding: Rounding = "half-up") -> int:
    """The captured part of an amount: the percent, rounded to the nearest whole (12.11b, 9.14c).

    >>> captured_share(12, 25), captured_share(36, 50), captured_share(2, 75)
    (3, 18, 2)
    """
    return round_nearest(Fraction(amount * percent, 100), rounding)


@dataclass(frozen=True)
class CapturePlan:
    """A validated capture: who captures, from whom, and what lies in the hex per category."""

    captor: str
    owner: str
    hex: str
    ground: int
    vehicles: dict[Category, tuple[Unit, ...]]
    categories: tuple[Category, ...]
    movement_phase: bool
    rounding: Rounding


@dataclass(frozen=True)
class CaptureRoll:
    """One Capture dr per category, and the percent each gives."""

    rolls: tuple[Roll, ...]
    percents: tuple[int, ...]
    facts: tuple[Fact, ...]


def plan_capture(state: OcsState, action: Capture) -> CapturePlan:
    """Validate a capture before any die (OCS 12.11b).

    :raises IllegalAction: owner's combat units still in the hex, nothing to capture, or a
        capturing unit that is not a combat unit of the capturing side.

    >>> from rules_core.ocs.state import Dump
    >>> s = OcsState(sides=("Axis", "Soviet"), dumps=(Dump(side="Soviet", hex="A1", tokens=8),),
    ...              units=(Unit(name="Moto", side="Axis", hex="A1"),))
    >>> plan_capture(s, Capture(side="Axis", hex="A1", unit="Moto")).categories
    ('Dump',)
    """
    state.check_side(action.side)
    captor_unit = state.unit(action.unit)
    if captor_unit.side != action.side:
        raise InvalidInput(f"{captor_unit.name} belongs to {captor_unit.side}, not {action.side}.")
    if not captor_unit.is_combat_unit or captor_unit.location != "map":
        raise IllegalAction(
            f"{captor_unit.name} is not an Attack-Capable combat unit on the map.",
            rule="OCS 12.11b",
        )
    if captor_unit.hex is not None and captor_unit.hex != action.hex:
        raise IllegalAction(
            f"{captor_unit.name} is in {captor_unit.hex}, not in {action.hex}: a capture is "
            f"rolled when it enters the hex; move it there first (/ocs unit move).",
            rule="OCS 12.11b",
        )
    movement_phase = _movement_phase(state, action)
    owners = {d.side for d in state.dumps if d.hex == action.hex and d.side != action.side}
    owners |= {
        u.side
        for u in state.units
        if u.hex == action.hex
        and u.kind == "transport"
        and u.location == "map"
        and u.side != action.side
        and u.steps > 0
    }
    if not owners:
        raise IllegalAction(
            f"There are no enemy SP or Transport Points in {action.hex} to capture.",
            rule="OCS 12.11b",
        )
    if len(owners) > 1:
        raise InvalidInput(f"Several sides hold supply in {action.hex}; capture one at a time.")
    owner = owners.pop()
    defenders = [
        u.name
        for u in state.units
        if u.hex == action.hex and u.side == owner and u.is_combat_unit and u.location == "map"
    ]
    if defenders:
        raise IllegalAction(
            f"{', '.join(defenders)} must be evicted from {action.hex} before a capture.",
            rule="OCS 12.11b",
        )
    extenders = [
        u.name
        for u in state.units
        if u.hex == action.hex and u.side == owner and u.extender and u.location == "map"
    ]
    if extenders:
        raise IllegalAction(
            f"{', '.join(extenders)} collapses as enemy combat units enter: record it first "
            "(/ocs extender how:collapse); its Transport Points are then captured as such.",
            rule="OCS 12.7h",
        )
    transports = [
        u
        for u in state.units
        if u.hex == action.hex
        and u.side == owner
        and u.kind == "transport"
        and u.location == "map"
        and u.steps > 0
    ]
    vehicles: dict[Category, tuple[Unit, ...]] = {
        "Trucks": tuple(u for u in transports if u.is_trucks),
        "Other Transport Points": tuple(u for u in transports if not u.is_trucks),
    }
    ground = state.dump_tokens(action.hex, owner)
    categories: list[Category] = []
    if ground:
        categories.append("Dump")
    categories.extend(c for c in ("Trucks", "Other Transport Points") if vehicles[c])
    return CapturePlan(
        captor=action.side,
        owner=owner,
        hex=action.hex,
        ground=ground,
        vehicles=vehicles,
        categories=tuple(categories),
        movement_phase=movement_phase,
        rounding=state.options.ocs_rounding,
    )


NO_ENTRY_PHASES = ("supply", "cleanup")
"""Phases in which no unit moves, advances or retreats, so none enters a hex (12.11b)."""


def _movement_phase(state: OcsState, action: Capture) -> bool:
    """Whether the capture happens in the captor's Movement Phase (Capture Table note 5).

    Once phases are tracked the bot knows it, and a stated answer that contradicts it is refused;
    and no unit enters a hex in a Supply or Clean Up Phase (12.11b "When an Attack-Capable unit
    enters a hex", reading 21).
    """
    if state.phase is None:
        return True if action.movement_phase is None else action.movement_phase
    if state.phase in NO_ENTRY_PHASES:
        raise IllegalAction(
            f"A capture is rolled when an Attack-Capable unit enters the hex, by moving or "
            f"advancing; no unit enters a hex in {state.phase_side}'s "
            f"{'Supply' if state.phase == 'supply' else 'Clean Up'} Phase.",
            rule="OCS 12.11b",
        )
    known = state.phase == "movement" and state.phase_side == action.side
    if action.movement_phase is not None and action.movement_phase != known:
        raise IllegalAction(
            f"It is {state.phase_side}'s {state.phase} phase: the capture happens "
            + ("in" if known else "outside")
            + f" {action.side}'s Movement Phase (leave movement-phase out).",
            rule="OCS 12.11b",
        )
    return known


@dataclass(frozen=True)
class VehicleSplit:
    """How one category of Transport Points divides (9.14c).

    ``taken`` holds, per counter, the points captured and the Tokens the captured vehicles of
    that counter carry away; ``kept_load`` the load left on the owner's part of each counter;
    ``ground`` captured Tokens that no captured vehicle carries (they land on the captor's side
    of the hex).
    """

    points: int
    load: int
    taken: tuple[tuple[Unit, int, int], ...]
    kept_load: tuple[int, ...] = ()
    ground: int = 0

    @property
    def taken_points(self) -> int:
        """Points captured in the category."""
        return sum(p for _, p, _ in self.taken)

    @property
    def taken_load(self) -> int:
        """Loaded Tokens captured in the category."""
        return sum(t for _, _, t in self.taken) + self.ground


def split_vehicles(plan: CapturePlan, category: Category, percent: int) -> VehicleSplit:
    """Divide a category: the percent of the points and, separately, of their load (9.14c).

    Points are taken from the counters in their listed order (the owner's choice). Exactly the
    captured share of the pooled load goes with the captor — on the captured vehicles, their own
    load first — and the owner's remaining vehicles keep the rest to displace. Only when every
    point is captured and the load share is smaller does the captor take the whole load (no
    vehicle of the owner is left to carry it away).

    >>> trucks = tuple(Unit(name=f"T{i}", side="S", kind="transport", printed_ma=12,
    ...                     load_tokens=4) for i in range(3))
    >>> plan = CapturePlan("A", "S", "H", 0, {"Trucks": trucks, "Other Transport Points": ()},
    ...                    ("Trucks",), True, "half-up")
    >>> split = split_vehicles(plan, "Trucks", 25)
    >>> split.taken_points, split.taken_load, split.kept_load
    (1, 3, (0, 5, 4))
    """
    units = plan.vehicles[category]
    points = sum(u.steps for u in units)
    load = sum(u.load_tokens for u in units)
    points_left = captured_share(points, percent, plan.rounding)
    captured_points: list[int] = []
    for unit in units:
        p = min(points_left, unit.steps)
        points_left -= p
        captured_points.append(p)
    owner_keeps = any(p < u.steps for u, p in zip(units, captured_points, strict=True))
    share = captured_share(load, percent, plan.rounding) if owner_keeps else load
    # the captured vehicles carry the share, their own load first
    carried = [0] * len(units)
    own = [u.load_tokens for u in units]
    left = share
    for i, p in enumerate(captured_points):
        if p and left:
            carried[i] = min(left, own[i])
            own[i] -= carried[i]
            left -= carried[i]
    first_captured = next((i for i, p in enumerate(captured_points) if p), None)
    if left and first_captured is not None:
        # the rest of the share comes off the owner's counters onto the first captured vehicle
        for i in range(len(units)):
            moved = min(left, own[i])
            own[i] -= moved
            carried[first_captured] += moved
            left -= moved
    ground = 0
    if left:  # no captured vehicle: the captured SP are taken off the owner's loads, in order
        ground = left
        for i in range(len(units)):
            moved = min(left, own[i])
            own[i] -= moved
            left -= moved
    # a fully captured counter's leftover load moves to the owner's first remaining vehicle
    keeper = next(
        (i for i, (u, p) in enumerate(zip(units, captured_points, strict=True)) if p < u.steps),
        None,
    )
    for i, (unit, p) in enumerate(zip(units, captured_points, strict=True)):
        if p == unit.steps and own[i] and keeper is not None:
            own[keeper] += own[i]
            own[i] = 0
    return VehicleSplit(
        points=points,
        load=load,
        taken=tuple((u, p, t) for u, p, t in zip(units, captured_points, carried, strict=True)),
        kept_load=tuple(own),
        ground=ground,
    )


def category_fact(plan: CapturePlan, category: Category, face: int) -> Fact:
    """What one Capture dr captures in one category, as a fact (Capture Table).

    >>> from rules_core.ocs.state import Unit
    >>> plan = CapturePlan("Axis", "Soviet", "B2", 36, {"Trucks": (), "Other Transport Points": ()},
    ...                    ("Dump",), True, "half-up")
    >>> category_fact(plan, "Dump", 5)
    ('Dump', '4 1/2 SP captured')
    """
    percent = CAPTURE_TABLE[face][COLUMN[category]]
    if category == "Dump":
        taken = captured_share(plan.ground, percent, plan.rounding)
        return (category, f"{format_tokens(taken)} captured")
    split = split_vehicles(plan, category, percent)
    return (
        category,
        f"{counted(split.taken_points, 'point')} and {format_tokens(split.taken_load)} captured",
    )


def roll_capture(plan: CapturePlan, dice: Dice) -> CaptureRoll:
    """Roll one Capture dr per category present (Capture Table note 1).

    >>> from rules_core.dice import ScriptedDice
    >>> plan = CapturePlan("Axis", "Soviet", "B2", 12, {"Trucks": (), "Other Transport Points": ()},
    ...                    ("Dump",), True, "half-up")
    >>> roll_capture(plan, ScriptedDice([2])).facts
    (('Dump', '3 T captured'),)
    """
    rolls: list[Roll] = []
    percents: list[int] = []
    facts: list[Fact] = []
    for category in plan.categories:
        label = f"Capture dr ({category})"
        face = dice.dr(label)
        rolls.append(Roll(label=label, kind="dr", sides=6, faces=(face,)))
        percents.append(CAPTURE_TABLE[face][COLUMN[category]])
        facts.append(category_fact(plan, category, face))
    return CaptureRoll(tuple(rolls), tuple(percents), tuple(facts))


def capture_odds(plan: CapturePlan) -> dict[tuple[Fact, ...], Fraction]:
    """Exact odds of a capture: the categories' drs are independent (Capture Table note 1).

    >>> plan = CapturePlan("Axis", "Soviet", "B2", 4, {"Trucks": (), "Other Transport Points": ()},
    ...                    ("Dump",), True, "half-up")
    >>> capture_odds(plan)[(("Dump", "0 T captured"),)]
    Fraction(1, 6)
    """
    joint: dict[tuple[Fact, ...], Fraction] = {(): Fraction(1)}
    for category in plan.categories:
        column: dict[Fact, Fraction] = {}
        for face in range(1, 7):
            fact = category_fact(plan, category, face)
            column[fact] = column.get(fact, Fraction(0)) + Fraction(1, 6)
        joint = {(*facts, fact): p * q for facts, p in joint.items() for fact, q in column.items()}
    return joint


def _halves(rounding: Rounding) -> str:
    return "halves up" if rounding == "half-up" else "halves to even"


def apply_capture(state: OcsState, plan: CapturePlan, rolled: CaptureRoll) -> Outcome[OcsState]:
    """The new state and explanation of a capture (OCS 12.11b; Capture Table notes 2-5).

    >>> from rules_core.dice import ScriptedDice
    >>> from rules_core.ocs.state import Dump
    >>> s = OcsState(sides=("Axis", "Soviet"), dumps=(Dump(side="Soviet", hex="B2", tokens=12),),
    ...              units=(Unit(name="Moto", side="Axis", hex="B2"),))
    >>> plan = plan_capture(s, Capture(side="Axis", hex="B2", unit="Moto"))
    >>> out = apply_capture(s, plan, roll_capture(plan, ScriptedDice([2])))
    >>> [d.render() for d in out.state.dumps]
    ['Axis B2: 3 T']
    """
    steps: list[Step] = []
    new_state = state
    captor_ground = 0
    replaced: dict[str, Unit | None] = {}
    captured_units: list[Unit] = []
    for category, roll, percent in zip(plan.categories, rolled.rolls, rolled.percents, strict=True):
        if category == "Dump":
            taken = captured_share(plan.ground, percent, plan.rounding)
            destroyed = plan.ground - taken
            captor_ground += taken
            new_state = new_state.with_dump(plan.owner, plan.hex, 0)
            steps.append(
                Step(
                    rule="OCS 12.11b",
                    text=f"Capture dr {roll.total} (Dump on the ground): {percent}% of "
                    f"{format_tokens(plan.ground)} = {Fraction(plan.ground * percent, 100)} T, "
                    f"rounded to the nearest Token ({_halves(plan.rounding)}): "
                    f"{format_tokens(taken)} captured, "
                    f"{format_tokens(destroyed)} destroyed (note 2)",
                    dice=(roll,),
                )
            )
            continue
        split = split_vehicles(plan, category, percent)
        points, load = split.points, split.load
        taken_points, taken_load = split.taken_points, split.taken_load
        captor_ground += split.ground
        for (unit, p, t), kept_load in zip(split.taken, split.kept_load, strict=True):
            remaining = unit.model_copy(update={"steps": unit.steps - p, "load_tokens": kept_load})
            replaced[unit.name] = remaining if remaining.steps else None
            if p:
                captured_units.append(
                    unit.model_copy(
                        update={
                            "name": state.unique_name(
                                f"{unit.name} (captured by {plan.captor})",
                                (c.name for c in captured_units),
                            ),
                            "side": plan.captor,
                            "steps": p,
                            "load_tokens": t,
                            "fuel": "none",
                        }
                    )
                )
        hexes = DISPLACEMENT_HEXES[category]
        steps.append(
            Step(
                rule="OCS 12.11b",
                text=f"Capture dr {roll.total} ({category}): {percent}% of "
                f"{counted(points, 'point')} = {Fraction(points * percent, 100)}, "
                "rounded to the nearest point "
                f"({_halves(plan.rounding)}): {taken_points} captured, and of "
                f"{format_tokens(load)} loaded = "
                f"{format_tokens(taken_load)} captured; the owner displaces "
                f"{counted(points - taken_points, 'point')} with "
                f"{format_tokens(load - taken_load)} up to {hexes} hexes (notes 3-4)",
                dice=(roll,),
            )
        )
        if taken_points:
            steps.append(
                Step(
                    rule="OCS 12.11b",
                    text="captured vehicles "
                    + (
                        "may move this phase (Movement Phase)"
                        if plan.movement_phase
                        else "may not move this phase"
                    )
                    + " (note 5)",
                )
            )
    units = [replaced.get(u.name, u) for u in state.units]
    kept = tuple(u for u in units if u is not None) + tuple(captured_units)
    new_state = new_state.model_copy(update={"units": kept})
    if captor_ground:
        new_state = new_state.with_dump(
            plan.captor, plan.hex, new_state.dump_tokens(plan.hex, plan.captor) + captor_ground
        )
    return OcsOutcome(state=new_state, steps=tuple(steps), rolls=rolled.rolls, facts=rolled.facts)


__all__ = [
    "CAPTURE_TABLE",
    "COLUMN",
    "DISPLACEMENT_HEXES",
    "NO_ENTRY_PHASES",
    "CapturePlan",
    "CaptureRoll",
    "Category",
    "VehicleSplit",
    "apply_capture",
    "capture_odds",
    "captured_share",
    "category_fact",
    "plan_capture",
    "roll_capture",
    "split_vehicles",
]
