"""The hex grid: coordinates, breadth-first wagon paths and isolation traces."""

from __future__ import annotations

from itertools import pairwise
from typing import get_args

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules_core.cwb import SYSTEM, Ammo, CwbState
from rules_core.cwb.hexgrid import (
    distance,
    enemy_zoc,
    from_axial,
    isolation_trace,
    neighbours,
    on_map,
    shortest_path,
    to_axial,
    wagon_path,
)
from rules_core.cwb.state import Hex, HexLayout, HexMap, SideData, Unit, Wagon
from rules_core.dice import ScriptedDice

LAYOUTS: tuple[HexLayout, ...] = get_args(HexLayout)
HEXES = st.tuples(st.integers(0, 30), st.integers(0, 30))


def test_odd_q_neighbours_of_an_even_and_an_odd_column() -> None:
    # odd-q: odd columns sit half a hex lower, so an odd column's side neighbours are row, row+1
    assert set(neighbours((2, 2), "odd-q")) == {(3, 1), (3, 2), (1, 1), (1, 2), (2, 1), (2, 3)}
    assert set(neighbours((3, 2), "odd-q")) == {(4, 2), (4, 3), (2, 2), (2, 3), (3, 1), (3, 3)}
    assert set(neighbours((2, 2), "even-q")) == {(3, 2), (3, 3), (1, 2), (1, 3), (2, 1), (2, 3)}
    assert set(neighbours((2, 3), "odd-r")) == {(1, 3), (3, 3), (2, 2), (3, 2), (2, 4), (3, 4)}
    assert set(neighbours((2, 2), "even-r")) == {(1, 2), (3, 2), (2, 1), (3, 1), (2, 3), (3, 3)}


@given(hex_=HEXES, layout=st.sampled_from(LAYOUTS))
def test_coordinates_round_trip_and_neighbours_are_mutual(hex_: Hex, layout: HexLayout) -> None:
    assert from_axial(*to_axial(hex_, layout), layout) == hex_
    around = neighbours(hex_, layout)
    assert len(set(around)) == 6
    for other in around:
        assert hex_ in neighbours(other, layout)
        assert distance(hex_, other, layout) == 1


@given(a=HEXES, b=HEXES, layout=st.sampled_from(LAYOUTS))
def test_breadth_first_length_on_an_open_map_is_the_hex_distance(
    a: Hex, b: Hex, layout: HexLayout
) -> None:
    board = HexMap(columns=31, rows=31, layout=layout)
    path = shortest_path(a, lambda h: h == b, lambda h: on_map(h, board), lambda h: True, layout)
    assert path is not None
    assert len(path) - 1 == distance(a, b, layout)
    for x, y in pairwise(path):
        assert y in neighbours(x, layout)


def _state(
    *units: Unit,
    wagons: tuple[Wagon, ...] = (),
    board: HexMap | None = None,
    avoid_enemy: bool = True,
) -> CwbState:
    return CwbState(
        sides=(SideData(name="U", isolation_rule=True), SideData(name="C", isolation_rule=True)),
        units=units,
        wagons=wagons,
        map=board or HexMap(columns=11, rows=11),
        isolation_avoids_enemy_units=avoid_enemy,
    )


@pytest.mark.parametrize(("wagon_hex", "length"), [((5, 5), 0), ((5, 8), 3), ((5, 10), 5)])
def test_wagon_path_up_to_five_hexes(wagon_hex: Hex, length: int) -> None:
    state = _state(
        Unit(name="A", side="U", men=10, hex=(5, 5)),
        wagons=(Wagon(name="W", side="U", strength=1, hex=wagon_hex),),
    )
    path = wagon_path(state, state.unit("A"), state.wagon("W"))
    assert path is not None and len(path) - 1 == length


def test_wagon_path_of_six_hexes_is_none() -> None:
    state = _state(
        Unit(name="A", side="U", men=10, hex=(5, 4)),
        wagons=(Wagon(name="W", side="U", strength=1, hex=(5, 10)),),
    )
    assert distance((5, 4), (5, 10), "odd-q") == 6
    assert wagon_path(state, state.unit("A"), state.wagon("W")) is None


def test_wagon_path_never_enters_an_enemy_hex_nor_blocked_hex() -> None:
    # a wall of Blocked hexes across column 5 except row 5, where an enemy wagon stands
    blocked = tuple((5, r) for r in range(11) if r != 5)
    board = HexMap(columns=11, rows=11, blocked=blocked)
    state = _state(
        Unit(name="A", side="U", men=10, hex=(4, 5)),
        wagons=(
            Wagon(name="W", side="U", strength=1, hex=(6, 5)),
            Wagon(name="X", side="C", strength=1, hex=(5, 5)),
        ),
        board=board,
    )
    assert wagon_path(state, state.unit("A"), state.wagon("W")) is None
    opened = state.without_wagon("X")
    assert wagon_path(opened, opened.unit("A"), opened.wagon("W")) == ((4, 5), (5, 5), (6, 5))


def test_enemy_zoc_is_the_six_hexes_around_each_enemy_unit_not_wagons() -> None:
    state = _state(
        Unit(name="E", side="C", men=10, hex=(3, 3)),
        wagons=(Wagon(name="X", side="C", strength=1, hex=(8, 8)),),
    )
    assert enemy_zoc(state, "U") == set(neighbours((3, 3), "odd-q"))
    assert enemy_zoc(state, "C") == set()


def test_a_unit_on_the_map_edge_or_a_supply_source_is_never_isolated() -> None:
    ring = [
        Unit(name=f"E{i}", side="C", men=10, hex=h)
        for i, h in enumerate(neighbours((5, 5), "odd-q"))
    ]
    boxed = _state(Unit(name="A", side="U", men=10, hex=(5, 5)), *ring)
    assert isolation_trace(boxed, boxed.unit("A")) is None
    source = boxed.model_copy(update={"map": HexMap(columns=11, rows=11, supply_sources=((5, 5),))})
    assert isolation_trace(source, source.unit("A")) == ((5, 5),)
    edge = _state(
        Unit(name="A", side="U", men=10, hex=(0, 5)), Unit(name="E", side="C", men=10, hex=(1, 5))
    )
    assert isolation_trace(edge, edge.unit("A")) == ((0, 5),)


def test_isolation_trace_reaches_a_blocked_hex_inside_the_map() -> None:
    # enemies on a ring at distance 2 cover everything outside; a Blocked hex next to the
    # unit is a goal of its own (CWB Isolated Units: "Any Blocked hex")
    centre = (5, 5)
    far = [h for h in _ring(centre, 3)]
    enemies = [Unit(name=f"E{i}", side="C", men=10, hex=h) for i, h in enumerate(far)]
    state = _state(Unit(name="A", side="U", men=10, hex=centre), *enemies)
    assert isolation_trace(state, state.unit("A")) is None
    blocked = state.model_copy(update={"map": HexMap(columns=11, rows=11, blocked=((5, 4),))})
    assert isolation_trace(blocked, blocked.unit("A")) == ((5, 5), (5, 4))


def _ring(centre: Hex, radius: int) -> list[Hex]:
    return [
        (c, r) for c in range(11) for r in range(11) if distance(centre, (c, r), "odd-q") == radius
    ]


def test_a_gap_in_the_enemy_line_opens_only_when_friends_hold_the_zoc_hexes() -> None:
    # enemies on every hex 3 hexes from A at 5,5; their ZOC covers the rings at 2 and 4
    centre = (5, 5)
    enemies = [Unit(name=f"E{i}", side="C", men=10, hex=h) for i, h in enumerate(_ring(centre, 3))]
    state = _state(Unit(name="A", side="U", men=10, hex=centre), *enemies)
    assert isolation_trace(state, state.unit("A")) is None
    assert _ring(centre, 3)[0] == (2, 4)
    # a friend in the gap left by E0: the ring-2 hex before it is still empty enemy ZOC
    gap = state.without_unit("E0").with_unit(Unit(name="F", side="U", men=10, hex=(2, 4)))
    assert isolation_trace(gap, gap.unit("A")) is None
    assert not _flood_reaches_edge(gap, centre, enemy_zoc(gap, "U"))
    # a second friend on that ring-2 hex opens the line; 1,3 lay only in E0's ZOC
    held = gap.with_unit(Unit(name="G", side="U", men=10, hex=(3, 4)))
    assert isolation_trace(held, held.unit("A")) == ((5, 5), (4, 5), (3, 4), (2, 4), (1, 3), (0, 3))
    assert _flood_reaches_edge(held, centre, enemy_zoc(held, "U"))


def _flood_reaches_edge(state: CwbState, start: Hex, zoc: set[Hex]) -> bool:
    """An independent depth-first flood fill, to check the breadth-first search against."""
    friends = {u.hex for u in state.units if u.side == "U"}
    enemy = {u.hex for u in state.units if u.side == "C"}
    seen, todo = {start}, [start]
    while todo:
        c, r = todo.pop()
        if c in (0, 10) or r in (0, 10):
            return True
        for n in neighbours((c, r), "odd-q"):
            ok = 0 <= n[0] <= 10 and 0 <= n[1] <= 10 and n not in enemy
            if ok and n not in seen and (n not in zoc or n in friends):
                seen.add(n)
                todo.append(n)
    return False


def test_a_cwb_iso_flag_decides_whether_an_enemy_held_edge_hex_ends_the_trace() -> None:
    # 5×5 map, odd-q. A at 2,1; an enemy at the edge hex 2,0 covers 3,0 and 1,0 with its ZOC;
    # enemies at 4,2 / 0,2 / 2,3 cover 3,1 / 1,1 / 2,2. No enemy's ZOC covers 2,0 itself.
    board = HexMap(columns=5, rows=5)
    enemies = [
        Unit(name=f"E{i}", side="C", men=10, hex=h)
        for i, h in enumerate([(2, 0), (4, 2), (0, 2), (2, 3)])
    ]
    strict = _state(Unit(name="A", side="U", men=10, hex=(2, 1)), *enemies, board=board)
    assert (2, 0) not in enemy_zoc(strict, "U")
    assert set(neighbours((2, 1), "odd-q")) - {(2, 0)} <= enemy_zoc(strict, "U")
    assert isolation_trace(strict, strict.unit("A")) is None  # avoids enemy units (default)
    loose = strict.model_copy(update={"isolation_avoids_enemy_units": False})
    assert isolation_trace(loose, loose.unit("A")) == ((2, 1), (2, 0))


def test_turn_tests_only_the_sides_placed_units_and_keeps_the_others() -> None:
    state = _state(
        Unit(name="A", side="U", men=10, hex=(5, 5), isolated=True),
        Unit(name="B", side="U", men=10, isolated=True),
        Unit(name="E", side="C", men=10, hex=(0, 0), isolated=True),
    )
    outcome = SYSTEM.run(
        state, SYSTEM.parse_action({"action": "cwb.turn", "side": "U"}), ScriptedDice([])
    )
    assert outcome.state == _state(
        Unit(name="A", side="U", men=10, hex=(5, 5)),
        Unit(name="B", side="U", men=10, isolated=True),
        Unit(name="E", side="C", men=10, hex=(0, 0), isolated=True),
    )
    assert outcome.facts == (("turn", "U"), ("A", "not Isolated"))
    assert "B has no hex: its flag stays Isolated" in outcome.explanation()[-1]


def test_isolated_battery_rolls_its_own_ammo_after_the_turn_test() -> None:
    ring = [
        Unit(name=f"E{i}", side="C", men=10, hex=h)
        for i, h in enumerate(neighbours((5, 5), "odd-q"))
    ]
    state = _state(Unit(name="Battery", side="U", type="artillery", men=80, hex=(5, 5)), *ring)
    state = state.with_side(SideData(name="U", isolation_rule=True, ammo_loss_pct=50))
    after_turn = SYSTEM.run(
        state, SYSTEM.parse_action({"action": "cwb.turn", "side": "U"}), ScriptedDice([])
    ).state
    assert after_turn.unit("Battery").isolated
    fired = SYSTEM.run(
        after_turn,
        SYSTEM.parse_action({"action": "cwb.fire", "unit": "Battery", "mode": "offensive"}),
        ScriptedDice([50]),
    )
    assert fired.state.unit("Battery").ammo is Ammo.LOW
    assert fired.steps[1].rule == "CWB Supply"
