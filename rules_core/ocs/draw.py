"""Direct draw and HQ throw: where needed supply comes from (OCS 12.3a-d, 12.3b A-D, 12.6f).

The bot has no OCS map: the path lengths are facts the player states (``draw-mp``, ``throw-mp``)
and the rules that follow from them are the referee's:

* a unit (or the HQ that throws) draws from one or more dumps within 5 MP (12.3a; "adjacent is
  close enough", 12.3c, so the count is to the unit's hex or a hex next to it);
* an HQ throws what it draws to units within its printed throw range (12.3b), never from Strat
  Mode (12.3b C, 12.6e), and never supply another HQ threw to it (12.3b D: no re-throw);
* thrown supply is used at once (12.3b A): the commands that draw pay in the same breath.

>>> from rules_core.ocs.state import Dump
>>> s = OcsState(sides=("Axis",), dumps=(Dump(side="Axis", hex="A1", tokens=3),
...              Dump(side="Axis", hex="B1", tokens=2)))
>>> source = supply_source(s, "Axis", "A1, B1")
>>> source.available(s), source.spend(s, 4).dumps
(5, (Dump(side='Axis', hex='B1', tokens=1),))
"""

from __future__ import annotations

from dataclasses import dataclass

from rules_core.errors import IllegalAction, InvalidInput
from rules_core.ocs.state import OcsState, Unit
from rules_core.outcome import Step

DRAW_RANGE_MP = 5
"""OCS 12.3a: units draw from a dump within 5 MP (Truck MP, or the HQ's own mobility type)."""


def dump_hexes(text: str | None) -> tuple[str, ...]:
    """The hexes of the dumps named, in the order given ("0905, 1006"; 12.3a: one or more).

    >>> dump_hexes("0905, 1006"), dump_hexes(None)
    (('0905', '1006'), ())
    >>> dump_hexes("0905, 0905")
    Traceback (most recent call last):
    ...
    rules_core.errors.InvalidInput: The dump in 0905 is named twice.
    """
    if text is None:
        return ()
    hexes: list[str] = []
    for part in text.split(","):
        hex = part.strip()
        if not hex:
            continue
        if hex in hexes:
            raise InvalidInput(f"The dump in {hex} is named twice.")
        hexes.append(hex)
    return tuple(hexes)


@dataclass(frozen=True)
class SupplySource:
    """Validated dumps (and the HQ that throws from them) one side draws on."""

    side: str
    dumps: tuple[str, ...]
    hq: Unit | None
    steps: tuple[Step, ...]

    def available(self, state: OcsState, *, organic: bool = True) -> int:
        """Tokens all the dumps hold for the side (on the ground and loaded, 12.1b)."""
        return sum(state.supply_at(hex, self.side, organic=organic) for hex in self.dumps)

    def spend(self, state: OcsState, tokens: int, *, organic: bool = True) -> OcsState:
        """``state`` with ``tokens`` taken from the dumps in the order named (12.3a)."""
        left = tokens
        for hex in self.dumps:
            if left == 0:
                break
            taken = min(left, state.supply_at(hex, self.side, organic=organic))
            state = state.spend(hex, self.side, taken, organic=organic)
            left -= taken
        if left:
            raise ValueError(f"a dump may never go negative: {left} T short")
        return state

    @property
    def where(self) -> str:
        """``the dump in A1`` / ``the dumps in A1, B1``, and the HQ that throws."""
        if not self.dumps:
            return "no dump"
        text = ("the dump in " if len(self.dumps) == 1 else "the dumps in ") + ", ".join(self.dumps)
        return text + (f", thrown by {self.hq.name}" if self.hq else "")


def throwing_hq(state: OcsState, side: str, text: str) -> Unit:
    """The HQ named to throw supply, checked: an HQ of ``side``, on the map, not in Strat Mode.

    :raises IllegalAction: Strat Mode (12.3b C), a chain of HQs (12.3b D, no re-throw).

    >>> s = OcsState(sides=("Axis",), units=(Unit(name="HQ", side="Axis", kind="HQ",
    ...              mode="strat"),))
    >>> throwing_hq(s, "Axis", "HQ")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rules_core.errors.IllegalAction: HQ is in Strat Mode and cannot throw supply. (OCS 12.3b C)
    """
    names = [n.strip() for n in text.split(",") if n.strip()]
    if len(names) > 1:
        raise IllegalAction(
            f"{names[1]} cannot re-throw supply thrown to it by {names[0]}; name the one HQ that "
            "draws from the dump.",
            rule="OCS 12.3b D",
        )
    if not names:
        raise InvalidInput("Name the HQ that throws the supply.")
    hq = state.unit(names[0])
    if hq.kind != "HQ":
        raise IllegalAction(f"{hq.name} is not an HQ; only an HQ throws supply.", rule="OCS 12.3b")
    if hq.side != side:
        raise InvalidInput(f"{hq.name} belongs to {hq.side}, not {side}.")
    if hq.location != "map" or hq.steps == 0:
        raise IllegalAction(f"{hq.name} is not on the map.", rule="OCS 12.3b")
    if hq.mode == "strat":
        raise IllegalAction(
            f"{hq.name} is in Strat Mode and cannot throw supply.", rule="OCS 12.3b C"
        )
    return hq


def supply_source(
    state: OcsState,
    side: str,
    dump: str | None,
    hq: str | None = None,
    draw_mp: int | None = None,
    throw_mp: int | None = None,
) -> SupplySource:
    """Check the dumps, the HQ and the stated path lengths before anything is paid (12.3a-d).

    :raises IllegalAction: a draw beyond 5 MP (12.3a), a throw beyond the HQ's range (12.3b),
        an HQ in Strat Mode (12.3b C), a re-throw (12.3b D), a dump of the other side (12.1d).

    >>> from rules_core.ocs.state import Dump
    >>> s = OcsState(sides=("Axis",), dumps=(Dump(side="Axis", hex="A1", tokens=3),))
    >>> supply_source(s, "Axis", "A1", draw_mp=6)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rules_core.errors.IllegalAction: A dump is drawn from within 5 MP; 6 MP is too far...
    """
    hexes = dump_hexes(dump)
    for hex in hexes:
        state.supply_at(hex, side)  # refuses a hex with no supply of the side (12.1d)
    steps: list[Step] = []
    headquarters: Unit | None = None
    if hq is not None and hq.strip():
        if not hexes:
            raise InvalidInput("Name the dump the HQ draws from (dump).")
        headquarters = throwing_hq(state, side, hq)
    elif throw_mp is not None:
        raise InvalidInput("Name the HQ that throws (hq) with its throw distance.")
    if draw_mp is not None:
        if not hexes:
            raise InvalidInput("Name the dump drawn from (dump) with its distance.")
        if draw_mp > DRAW_RANGE_MP:
            raise IllegalAction(
                f"A dump is drawn from within {DRAW_RANGE_MP} MP; {draw_mp} MP is too far (an HQ "
                "may draw it and throw it further).",
                rule="OCS 12.3a",
            )
        drawer = headquarters.name if headquarters else "the units"
        steps.append(
            Step(
                rule="OCS 12.3a",
                text=f"{drawer} draw from {', '.join(hexes)}: {draw_mp} MP, within {DRAW_RANGE_MP}",
            )
        )
    if headquarters is not None:
        if throw_mp is not None:
            if headquarters.throw_range == 0:
                raise InvalidInput(
                    f"Record {headquarters.name}'s throw range first (/ocs unit change "
                    "throw-range)."
                )
            if throw_mp > headquarters.throw_range:
                raise IllegalAction(
                    f"{headquarters.name} throws {headquarters.throw_range} MP; {throw_mp} MP "
                    "is beyond its throw range.",
                    rule="OCS 12.3b",
                )
            reach = f"{throw_mp} of its {headquarters.throw_range} MP"
        else:
            reach = "within its throw range (stated)"
        steps.append(
            Step(
                rule="OCS 12.3b",
                text=f"{headquarters.name} throws the supply it draws, {reach}; used at once "
                "(12.3b A)",
            )
        )
    return SupplySource(side=side, dumps=hexes, hq=headquarters, steps=tuple(steps))


__all__ = ["DRAW_RANGE_MP", "SupplySource", "dump_hexes", "supply_source", "throwing_hq"]
