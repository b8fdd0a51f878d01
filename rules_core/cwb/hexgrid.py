"""The optional hex grid: the wagon path and the isolation trace, computed by breadth-first search.

**Coordinates.** A hex is ``(column, row)``, both counted from 0 at the map's top-left hex, in one
of the four offset layouts of a hex map (the map says which; default ``odd-q``):

* ``odd-q`` / ``even-q`` — flat-topped hexes in vertical columns; the odd (resp. even) columns
  sit half a hex lower than their neighbours;
* ``odd-r`` / ``even-r`` — pointy-topped hexes in horizontal rows; the odd (resp. even) rows sit
  half a hex further right.

Internally each hex is converted to axial coordinates ``(q, r)`` whose six neighbours are the
fixed offsets of :data:`AXIAL_DIRECTIONS`; distances are exact integers. A path's length is the
number of hexes entered (a wagon in an adjacent hex is 1 hex away).

**What blocks a trace** (CWB Supply, CWB Isolated Units):

* the wagon path enters no hex holding an enemy unit, and no hex in an enemy Zone-Of-Control that
  is empty of friendly units; it is at most 5 hexes long;
* the isolation trace reaches a map-edge hex, a Blocked hex or a Supply Source hex, entering no
  hex in an enemy Zone-Of-Control that no friendly unit occupies (and, by our reading, no hex
  holding an enemy unit);
* ZOC (our reading — the page does not define ZOC): every enemy unit exerts a ZOC into the six
  hexes around it; wagons exert none; a hex holding a friendly unit or wagon is "occupied";
  Blocked hexes can be reached but not crossed; no trace leaves the map.

>>> neighbours((2, 2), "odd-q")
((3, 2), (3, 1), (2, 1), (1, 1), (1, 2), (2, 3))
>>> distance((0, 0), (3, 4), "odd-q")
6
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Iterable

from rules_core.cwb.state import CwbState, Hex, HexLayout, HexMap, Unit, Wagon
from rules_core.errors import InvalidInput

AXIAL_DIRECTIONS: tuple[tuple[int, int], ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
"""The six neighbours of an axial hex ``(q, r)``, counter-clockwise from "east"."""

MAX_WAGON_PATH = 5
"""CWB Supply: the path to a friendly Supply Wagon is no longer than 5 hexes."""

_HEX = re.compile(r"^\s*\(?\s*(\d+)\s*[,/ .]\s*(\d+)\s*\)?\s*$")


def parse_hex(text: str) -> Hex:
    """A hex from ``"12,5"``, ``"12/5"`` or ``"(12, 5)"``: column then row, from 0 (CWB Supply).

    :raises InvalidInput: when the text is not two whole numbers.

    >>> parse_hex("12/5")
    (12, 5)
    >>> parse_hex("C5")
    Traceback (most recent call last):
    ...
    rules_core.errors.InvalidInput: 'C5' is not a hex; write column,row as in 12,5 (12/5 in lists).
    """
    match = _HEX.match(text)
    if match is None:
        raise InvalidInput(f"{text!r} is not a hex; write column,row as in 12,5 (12/5 in lists).")
    return int(match.group(1)), int(match.group(2))


def format_hex(hex_: Hex) -> str:
    """A hex as players type it (CWB Supply and Isolated Units name hexes this way).

    >>> format_hex((12, 5))
    '12,5'
    """
    return f"{hex_[0]},{hex_[1]}"


def to_axial(hex_: Hex, layout: HexLayout) -> tuple[int, int]:
    """Offset ``(column, row)`` to axial ``(q, r)`` (hex geometry for CWB Supply paths).

    >>> to_axial((3, 3), "odd-q"), to_axial((3, 3), "even-r")
    ((3, 2), (1, 3))
    """
    col, row = hex_
    if layout == "odd-q":
        return col, row - (col - (col & 1)) // 2
    if layout == "even-q":
        return col, row - (col + (col & 1)) // 2
    if layout == "odd-r":
        return col - (row - (row & 1)) // 2, row
    return col - (row + (row & 1)) // 2, row


def from_axial(q: int, r: int, layout: HexLayout) -> Hex:
    """Axial ``(q, r)`` back to offset ``(column, row)`` (hex geometry for CWB Supply paths).

    >>> from_axial(*to_axial((7, 4), "even-q"), "even-q")
    (7, 4)
    """
    if layout == "odd-q":
        return q, r + (q - (q & 1)) // 2
    if layout == "even-q":
        return q, r + (q + (q & 1)) // 2
    if layout == "odd-r":
        return q + (r - (r & 1)) // 2, r
    return q + (r + (r & 1)) // 2, r


def neighbours(hex_: Hex, layout: HexLayout) -> tuple[Hex, ...]:
    """The six hexes around ``hex_``, some maybe off the map (CWB Supply, Isolated Units).

    >>> neighbours((1, 1), "odd-q")
    ((2, 2), (2, 1), (1, 0), (0, 1), (0, 2), (1, 2))
    """
    q, r = to_axial(hex_, layout)
    return tuple(from_axial(q + dq, r + dr, layout) for dq, dr in AXIAL_DIRECTIONS)


def distance(a: Hex, b: Hex, layout: HexLayout) -> int:
    """The number of hexes from ``a`` to ``b`` on an open map (CWB Supply: path length).

    >>> distance((0, 0), (0, 5), "odd-q")
    5
    """
    aq, ar = to_axial(a, layout)
    bq, br = to_axial(b, layout)
    dq, dr = aq - bq, ar - br
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def on_map(hex_: Hex, hex_map: HexMap) -> bool:
    """Whether ``hex_`` lies on the map (CWB Isolated Units: map-edge hexes end a trace).

    >>> on_map((4, 0), HexMap(columns=4, rows=3))
    False
    """
    col, row = hex_
    return 0 <= col < hex_map.columns and 0 <= row < hex_map.rows


def is_map_edge(hex_: Hex, hex_map: HexMap) -> bool:
    """Whether ``hex_`` is a hex on the edge of the map (CWB Isolated Units).

    >>> small = HexMap(columns=4, rows=3)
    >>> is_map_edge((0, 1), small), is_map_edge((1, 1), small)
    (True, False)
    """
    col, row = hex_
    return on_map(hex_, hex_map) and (
        col in (0, hex_map.columns - 1) or row in (0, hex_map.rows - 1)
    )


def shortest_path(
    start: Hex,
    is_goal: Callable[[Hex], bool],
    may_enter: Callable[[Hex], bool],
    may_cross: Callable[[Hex], bool],
    layout: HexLayout,
    max_length: int | None = None,
) -> tuple[Hex, ...] | None:
    """The shortest line of hexes from ``start`` to a goal hex, or ``None`` (breadth-first).

    ``may_enter`` says which hexes a path may enter at all; ``may_cross`` which of those it may
    continue from (a Blocked hex can be reached but not crossed). The start hex itself is never
    tested. The result lists the hexes from ``start`` to the goal, both included.

    >>> open_map = HexMap(columns=5, rows=5)
    >>> shortest_path((2, 2), lambda h: h == (2, 0), lambda h: on_map(h, open_map),
    ...               lambda h: True, "odd-q")
    ((2, 2), (2, 1), (2, 0))
    """
    if is_goal(start):
        return (start,)
    previous: dict[Hex, Hex] = {start: start}
    frontier: deque[tuple[Hex, int]] = deque([(start, 0)])
    while frontier:
        current, length = frontier.popleft()
        if max_length is not None and length >= max_length:
            continue
        if current != start and not may_cross(current):
            continue
        for nxt in neighbours(current, layout):
            if nxt in previous or not may_enter(nxt):
                continue
            previous[nxt] = current
            if is_goal(nxt):
                path = [nxt]
                while path[-1] != start:
                    path.append(previous[path[-1]])
                return tuple(reversed(path))
            frontier.append((nxt, length + 1))
    return None


def _hexes(items: Iterable[Unit | Wagon]) -> set[Hex]:
    return {item.hex for item in items if item.hex is not None}


def enemy_zoc(state: CwbState, side: str) -> set[Hex]:
    """Hexes in the Zone-Of-Control of ``side``'s enemies: around every enemy unit (our reading).

    >>> from rules_core.cwb.state import SideData
    >>> state = CwbState(sides=(SideData(name="U"), SideData(name="C")),
    ...                  units=(Unit(name="X", side="C", men=10, hex=(1, 1)),))
    >>> sorted(enemy_zoc(state, "U"))
    [(0, 1), (0, 2), (1, 0), (1, 2), (2, 1), (2, 2)]
    """
    layout = state.map.layout if state.map is not None else "odd-q"
    zoc: set[Hex] = set()
    for hex_ in _hexes(u for u in state.units if u.side != side):
        zoc.update(neighbours(hex_, layout))
    return zoc


def _occupancy(state: CwbState, side: str) -> tuple[set[Hex], set[Hex]]:
    friendly = _hexes(u for u in state.units if u.side == side)
    friendly |= _hexes(w for w in state.wagons if w.side == side)
    enemy = _hexes(u for u in state.units if u.side != side)
    enemy |= _hexes(w for w in state.wagons if w.side != side)
    return friendly, enemy


def wagon_path(state: CwbState, unit: Unit, wagon: Wagon) -> tuple[Hex, ...] | None:
    """The shortest resupply path from ``unit`` to ``wagon`` of at most 5 hexes (CWB Supply).

    It enters no enemy-occupied hex and no empty hex in an enemy ZOC; ``None`` if there is none.

    >>> from rules_core.cwb.state import SideData
    >>> state = CwbState(sides=(SideData(name="U"), SideData(name="C")),
    ...                  map=HexMap(columns=10, rows=10),
    ...                  units=(Unit(name="A", side="U", men=10, hex=(0, 5)),),
    ...                  wagons=(Wagon(name="W", side="U", strength=5, hex=(0, 8)),))
    >>> len(wagon_path(state, state.unit("A"), state.wagon("W"))) - 1
    3
    """
    if state.map is None or unit.hex is None or wagon.hex is None:
        raise InvalidInput("The map, the unit's hex and the wagon's hex are all needed.")
    hex_map = state.map
    friendly, enemy = _occupancy(state, unit.side)
    zoc = enemy_zoc(state, unit.side)
    blocked = set(hex_map.blocked)
    target = wagon.hex

    def may_enter(hex_: Hex) -> bool:
        if not on_map(hex_, hex_map) or hex_ in enemy:
            return False
        if hex_ in blocked and hex_ != target:
            return False
        return hex_ not in zoc or hex_ in friendly

    return shortest_path(
        unit.hex,
        lambda h: h == target,
        may_enter,
        lambda h: True,
        hex_map.layout,
        max_length=MAX_WAGON_PATH,
    )


def isolation_trace(state: CwbState, unit: Unit) -> tuple[Hex, ...] | None:
    """The line of hexes to a map-edge, Blocked or Supply Source hex (CWB Isolated Units).

    ``None`` means no line can be traced: the unit is Isolated.

    >>> from rules_core.cwb.state import SideData
    >>> state = CwbState(sides=(SideData(name="U"),), map=HexMap(columns=5, rows=5),
    ...                  units=(Unit(name="A", side="U", men=10, hex=(2, 2)),))
    >>> isolation_trace(state, state.unit("A"))
    ((2, 2), (3, 2), (4, 3))
    """
    if state.map is None or unit.hex is None:
        raise InvalidInput("The map and the unit's hex are both needed.")
    hex_map = state.map
    friendly, enemy = _occupancy(state, unit.side)
    zoc = enemy_zoc(state, unit.side)
    blocked = set(hex_map.blocked)
    sources = set(hex_map.supply_sources)
    avoid_enemy = state.isolation_avoids_enemy_units

    def is_goal(hex_: Hex) -> bool:
        return is_map_edge(hex_, hex_map) or hex_ in blocked or hex_ in sources

    def may_enter(hex_: Hex) -> bool:
        if not on_map(hex_, hex_map):
            return False
        if avoid_enemy and hex_ in enemy:
            return False
        return hex_ not in zoc or hex_ in friendly

    return shortest_path(unit.hex, is_goal, may_enter, lambda h: h not in blocked, hex_map.layout)


__all__ = [
    "AXIAL_DIRECTIONS",
    "MAX_WAGON_PATH",
    "distance",
    "enemy_zoc",
    "format_hex",
    "from_axial",
    "is_map_edge",
    "isolation_trace",
    "neighbours",
    "on_map",
    "parse_hex",
    "shortest_path",
    "to_axial",
    "wagon_path",
]
