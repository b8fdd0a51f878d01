"""`cwb.supply`: the start-of-Movement-Phase resupply of a whole side on the map (default order)."""

from __future__ import annotations

import pytest

from rules_core.cwb import SYSTEM, Ammo, CwbState, Supply
from rules_core.cwb.state import HexMap, SideData, Unit, Wagon
from rules_core.dice import ScriptedDice
from rules_core.errors import InvalidInput

BOARD = HexMap(columns=12, rows=12)
SIDES = (SideData(name="Union"), SideData(name="Confederate"))


def test_units_in_order_draw_from_the_nearest_wagon_that_can_pay() -> None:
    state = CwbState(
        sides=SIDES,
        map=BOARD,
        units=(
            Unit(name="A", side="Union", men=95, ammo=Ammo.OUT, hex=(5, 5)),
            Unit(name="B", side="Union", men=40, ammo=Ammo.LOW, hex=(5, 4)),
            Unit(name="C", side="Union", men=300, ammo=Ammo.LOW, routed=True, hex=(5, 3)),
            Unit(name="D", side="Union", men=20, ammo=Ammo.LOW),
            Unit(name="E", side="Union", men=60, ammo=Ammo.NORMAL, hex=(6, 5)),
            Unit(name="Reb", side="Confederate", men=500, ammo=Ammo.LOW, hex=(0, 0)),
        ),
        wagons=(
            Wagon(name="Far", side="Union", strength=30, hex=(5, 9)),  # 4 hexes from A
            Wagon(name="Near", side="Union", strength=10, hex=(5, 7)),  # 2 hexes from A
            Wagon(name="Rebel", side="Confederate", strength=99, hex=(10, 10)),
        ),
    )
    with ScriptedDice([]) as dice:
        outcome = SYSTEM.run(state, Supply(side="union"), dice)
    # A (10) empties Near, which is removed; B (4) then draws from Far, 5 hexes away
    assert outcome.state == state.model_copy(
        update={
            "units": (
                Unit(name="A", side="Union", men=95, hex=(5, 5)),
                Unit(name="B", side="Union", men=40, hex=(5, 4)),
                *state.units[2:],
            ),
            "wagons": (
                Wagon(name="Far", side="Union", strength=26, hex=(5, 9)),
                Wagon(name="Rebel", side="Confederate", strength=99, hex=(10, 10)),
            ),
        }
    )
    assert outcome.facts == (
        ("A", "resupplied"),
        ("wagon Near", "removed"),
        ("B", "resupplied"),
        ("wagon Far", "strength 26"),
        ("C", "not resupplied (Routed)"),
        ("D", "not resupplied (no hex)"),
    )


def test_a_unit_no_wagon_can_pay_for_is_listed_and_left_alone() -> None:
    state = CwbState(
        sides=SIDES,
        map=BOARD,
        units=(Unit(name="A", side="Union", men=95, ammo=Ammo.OUT, hex=(5, 5)),),
        wagons=(
            Wagon(name="W", side="Union", strength=9, hex=(5, 6)),
            Wagon(name="X", side="Union", strength=50, hex=(5, 11)),
        ),
    )
    outcome = SYSTEM.run(state, Supply(side="Union"), ScriptedDice([]))
    assert outcome.state == state
    assert outcome.explanation() == [
        "CWB Supply: A: no wagon within 5 hexes holds the 10 strength its 95 men need"
    ]


def test_supply_needs_a_map() -> None:
    state = CwbState(sides=SIDES)
    with pytest.raises(InvalidInput, match=r"^No map is registered; register it with /cwb map"):
        SYSTEM.run(state, Supply(side="Union"), ScriptedDice([]))


def test_the_path_goes_around_an_enemy_wagon_and_too_far_is_too_far() -> None:
    state = CwbState(
        sides=SIDES,
        map=BOARD,
        units=(
            Unit(name="A", side="Union", men=95, ammo=Ammo.OUT, hex=(5, 5)),
            Unit(name="B", side="Union", men=40, ammo=Ammo.LOW, hex=(5, 4)),
        ),
        wagons=(
            Wagon(name="Far", side="Union", strength=30, hex=(5, 9)),
            Wagon(name="Near", side="Union", strength=10, hex=(5, 7)),
            Wagon(name="Rebel", side="Confederate", strength=99, hex=(5, 6)),
        ),
    )
    outcome = SYSTEM.run(state, Supply(side="Union"), ScriptedDice([]))
    assert outcome.explanation() == [
        "CWB Supply: Path traced on the map: 3 hexes, 5,5 → 6,6 → 6,7 → 5,7",
        "CWB Supply: 95 men cost 10 wagon strength (1 per 10 men, rounded up); "
        "A Out Of Ammo → Normal (its morale checks no longer take −1; the players apply it; "
        "the bot rolls no morale check)",
        "CWB Supply: Wagon Near reduced to 0 and removed from the map",
        # straight down column 5 is 5 hexes, but 5,6 holds the enemy wagon
        "CWB Supply: B: no friendly wagon within 5 hexes",
    ]
    assert outcome.state == state.model_copy(
        update={
            "units": (Unit(name="A", side="Union", men=95, hex=(5, 5)), state.units[1]),
            "wagons": (state.wagons[0], state.wagons[2]),
        }
    )
