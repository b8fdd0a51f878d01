"""The few lines ``/game status`` shows for an OCS game: dumps, supply markers, fuel.

Dumps per side in the players' "SP T" notation (OCS 12.1a; loaded SP shown apart, 12.1b), the
units marked Out of Supply (12.8a), Low or Exhausted (12.10b), and the fuel in force (12.5c).

>>> from rules_core.ocs.state import Dump, FuelMarker, OcsState, Unit
>>> state = OcsState(sides=("Axis", "Soviet"), dumps=(Dump(side="Axis", hex="0905", tokens=18),),
...     units=(Unit(name="1 Bn", side="Axis", out_of_supply=True, internals="LOW"),),
...     fuel_markers=(FuelMarker(side="Axis", method="hq", name="XL Pz HQ"),))
>>> for line in table_summary(state):
...     print(line)
Axis dumps: 0905 4 1/2 SP
Axis Out of Supply: 1 Bn
Axis Low: 1 Bn
Axis fuel: XL Pz HQ (HQ)
Soviet dumps: none
"""

from __future__ import annotations

from rules_core.ocs.state import OcsState
from rules_core.ocs.tokens import format_tokens

MAX_LINE = 180
"""Longest line shown; longer lists are cut with an ellipsis (a status must stay short)."""


def _line(label: str, items: list[str]) -> str:
    text = f"{label}: {', '.join(items)}"
    return text if len(text) <= MAX_LINE else text[: MAX_LINE - 1] + "…"


def table_summary(state: OcsState) -> list[str]:
    """Short status lines per side: dumps, Out of Supply / Low / Exhausted units, fuel (OCS 12).

    >>> table_summary(OcsState(sides=("Axis",)))
    ['Axis dumps: none']
    >>> table_summary(OcsState(sides=("Axis",), turn=2, phase="supply", phase_side="Axis"))
    ['Turn 2: Axis Supply Phase', 'Axis dumps: none']
    """
    lines: list[str] = []
    if state.phase is not None:
        # the turn as rules state (/ocs phase): whose phase it is
        phases = {
            "supply": "Supply",
            "movement": "Movement",
            "reaction": "Reaction",
            "combat": "Combat",
            "exploitation": "Exploitation",
            "cleanup": "Clean Up",
        }
        lines.append(f"Turn {state.turn}: {state.phase_side} {phases[state.phase]} Phase")
    for side in state.sides:
        ground = [f"{d.hex} {format_tokens(d.tokens)}" for d in state.dumps if d.side == side]
        loaded = [
            f"{u.hex or '?'} {format_tokens(u.load_tokens)} on {u.name}"
            for u in state.units
            if u.side == side and u.location == "map" and u.load_tokens
        ]
        lines.append(_line(f"{side} dumps", ground or ["none"]))
        if loaded:
            lines.append(_line(f"{side} loaded", loaded))
        on_map = [u for u in state.units if u.side == side and u.location == "map"]
        for label, names in (
            ("Out of Supply", [u.name for u in on_map if u.out_of_supply]),
            ("Low", [u.name for u in on_map if u.internals == "LOW"]),
            ("Exhausted", [u.name for u in on_map if u.internals == "EXHAUSTED"]),
        ):
            if names:
                lines.append(_line(f"{side} {label}", names))
        fuel = [
            f"{m.name} ({'HQ' if m.method == 'hq' else 'formation'})"
            for m in state.fuel_markers
            if m.side == side
        ]
        fuel += [f"{u.name} (this phase)" for u in on_map if u.fuel == "phase"]
        if fuel:
            lines.append(_line(f"{side} fuel", fuel))
    return lines


__all__ = ["MAX_LINE", "table_summary"]
