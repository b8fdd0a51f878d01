"""Worked rows E10 (wagon strength, 1 per 10 men) and E17 (ammo loss, p = 4; isolation).

Each row is a test of its own, with scripted dice, asserting the whole new state.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from rules_core.cwb import SYSTEM, Ammo, CwbState, Fire, Isolation, Melee, Resupply, Turn
from rules_core.cwb.state import HexMap, SideData, Unit, Wagon
from rules_core.dice import ScriptedDice
from rules_core.errors import IllegalAction

UNION = SideData(name="Union", ammo_loss_pct=4, isolation_rule=True)
CSA = SideData(name="Confederate", ammo_loss_pct=4, isolation_rule=True)


def game(*units: Unit, wagons: tuple[Wagon, ...] = (), hex_map: HexMap | None = None) -> CwbState:
    return CwbState(sides=(UNION, CSA), units=units, wagons=wagons, map=hex_map)


def regiment(men: int = 95, ammo: Ammo = Ammo.LOW, **extra: object) -> Unit:
    return Unit.model_validate(
        {"name": "1st Minnesota", "side": "Union", "men": men, "ammo": ammo, **extra}
    )


def wagon(strength: int, **extra: object) -> Wagon:
    return Wagon.model_validate({"name": "Trains", "side": "Union", "strength": strength, **extra})


# --- E10: CWB wagon strength, 1 per 10 men -------------------------------------------------------


def test_E10_1_95_men_low_wagon_10_resupplied_and_wagon_removed() -> None:
    state = game(regiment(95, Ammo.LOW), wagons=(wagon(10),))
    with ScriptedDice([]) as dice:
        outcome = SYSTEM.run(state, Resupply(unit="1st Minnesota", wagon="Trains", path=3), dice)
    assert outcome.state == game(regiment(95, Ammo.NORMAL))
    assert outcome.facts == (("1st Minnesota", "resupplied"), ("wagon Trains", "removed"))
    assert outcome.rolls == ()
    assert outcome.explanation()[-1] == (
        "CWB Supply: Wagon Trains reduced to 0 and removed from the map"
    )


def test_E10_2_95_men_out_wagon_9_not_resupplied_stays_out() -> None:
    state = game(regiment(95, Ammo.OUT), wagons=(wagon(9),))
    with pytest.raises(IllegalAction, match=r"need 10 .* all-or-nothing\. \(CWB Supply\)"):
        SYSTEM.run(state, Resupply(unit="1st Minnesota", wagon="Trains", path=3), ScriptedDice([]))
    assert state == game(regiment(95, Ammo.OUT), wagons=(wagon(9),))


def test_E10_3_100_men_low_wagon_25_costs_10() -> None:
    state = game(regiment(100, Ammo.LOW), wagons=(wagon(25),))
    outcome = SYSTEM.run(
        state, Resupply(unit="1st Minnesota", wagon="Trains", path=5), ScriptedDice([])
    )
    assert outcome.state == game(regiment(100, Ammo.NORMAL), wagons=(wagon(15),))
    assert outcome.fact("wagon Trains") == "strength 15"


def test_E10_4_1_man_low_wagon_1_costs_1_and_wagon_removed() -> None:
    state = game(regiment(1, Ammo.LOW), wagons=(wagon(1),))
    outcome = SYSTEM.run(
        state, Resupply(unit="1st Minnesota", wagon="Trains", path=0), ScriptedDice([])
    )
    assert outcome.state == game(regiment(1, Ammo.NORMAL))


def test_E10_5_95_men_low_routed_not_eligible() -> None:
    state = game(regiment(95, Ammo.LOW, routed=True), wagons=(wagon(50),))
    with pytest.raises(IllegalAction, match=r"^1st Minnesota is Routed and cannot be resupplied\."):
        SYSTEM.run(state, Resupply(unit="1st Minnesota", wagon="Trains", path=1), ScriptedDice([]))
    # declared Routed now, though recorded as not Routed: refused as well
    fresh = game(regiment(95, Ammo.LOW), wagons=(wagon(50),))
    with pytest.raises(IllegalAction, match="Routed"):
        SYSTEM.run(
            fresh,
            Resupply(unit="1st Minnesota", wagon="Trains", path=1, routed=True),
            ScriptedDice([]),
        )
    assert state == game(regiment(95, Ammo.LOW, routed=True), wagons=(wagon(50),))


def test_E10_6_95_men_low_wagon_6_hexes_away_not_eligible() -> None:
    state = game(regiment(95, Ammo.LOW), wagons=(wagon(50),))
    with pytest.raises(IllegalAction, match=r"A path of 6 hexes is longer than the 5 hexes"):
        SYSTEM.run(state, Resupply(unit="1st Minnesota", wagon="Trains", path=6), ScriptedDice([]))
    assert state == game(regiment(95, Ammo.LOW), wagons=(wagon(50),))


def test_E10_6_on_the_map_wagon_6_hexes_away_not_eligible() -> None:
    board = HexMap(columns=12, rows=12)
    state = game(regiment(95, Ammo.LOW, hex=(3, 2)), wagons=(wagon(50, hex=(3, 8)),), hex_map=board)
    with pytest.raises(IllegalAction, match=r"no path of at most 5 hexes to wagon Trains at 3,8"):
        SYSTEM.run(state, Resupply(unit="1st Minnesota", wagon="Trains"), ScriptedDice([]))
    moved = state.with_wagon(wagon(50, hex=(3, 7)))
    outcome = SYSTEM.run(moved, Resupply(unit="1st Minnesota", wagon="Trains"), ScriptedDice([]))
    assert outcome.state == game(
        regiment(95, Ammo.NORMAL, hex=(3, 2)), wagons=(wagon(40, hex=(3, 7)),), hex_map=board
    )


def test_E10_7_95_men_normal_nothing_and_wagon_unchanged() -> None:
    state = game(regiment(95, Ammo.NORMAL), wagons=(wagon(50),))
    outcome = SYSTEM.run(
        state, Resupply(unit="1st Minnesota", wagon="Trains", path=2), ScriptedDice([])
    )
    assert outcome.state == state
    assert outcome.facts == (("1st Minnesota", "not resupplied (Normal)"),)


# --- E17: CWB ammo loss (p = 4) and isolation ---------------------------------------------------


def test_E17_1_normal_infantry_fires_d100_4_goes_low() -> None:
    state = game(regiment(262, Ammo.NORMAL))
    with ScriptedDice([4]) as dice:
        outcome = SYSTEM.run(state, Fire(unit="1st Minnesota", mode="offensive"), dice)
    assert outcome.state == game(regiment(262, Ammo.LOW))
    assert [r.render() for r in outcome.rolls] == ["Ammo loss d100 4"]
    assert outcome.facts == (("ammo loss", "yes"), ("1st Minnesota", "Low On Ammo"))
    assert outcome.explanation() == [
        "CWB Supply: 1st Minnesota (Normal) may fire Offensive Fire",
        "CWB Supply: Ammo loss d100 4 ≤ 4 — ammunition Normal → Low On Ammo",
        "CWB Supply: 1st Minnesota: morale checks −1 while Low On Ammo "
        "(the players apply it; the bot rolls no morale check)",
    ]
    assert outcome.steps[-1].modifiers[0].value == -1


def test_E17_2_normal_infantry_fires_d100_5_unchanged() -> None:
    state = game(regiment(262, Ammo.NORMAL))
    with ScriptedDice([5]) as dice:
        outcome = SYSTEM.run(state, Fire(unit="1st Minnesota", mode="offensive"), dice)
    assert outcome.state == state
    assert outcome.facts == (("ammo loss", "no"), ("1st Minnesota", "Normal"))
    assert len(outcome.steps) == 2  # no morale reminder while Normal


def test_E17_3_low_unit_offensive_fire_refused() -> None:
    state = game(regiment(262, Ammo.LOW))
    dice = ScriptedDice([])
    with pytest.raises(
        IllegalAction, match=r"^1st Minnesota is Low On Ammo and may only fire Defensive Fire\."
    ):
        SYSTEM.run(state, Fire(unit="1st Minnesota", mode="offensive"), dice)
    assert dice.rolls == ()
    assert state == game(regiment(262, Ammo.LOW))


def test_E17_4_low_unit_defensive_fire_allowed_d100_1_goes_out() -> None:
    state = game(regiment(262, Ammo.LOW))
    with ScriptedDice([1]) as dice:
        outcome = SYSTEM.run(state, Fire(unit="1st Minnesota", mode="defensive"), dice)
    assert outcome.state == game(regiment(262, Ammo.OUT))
    assert outcome.facts == (("ammo loss", "yes"), ("1st Minnesota", "Out Of Ammo"))
    assert outcome.explanation()[-1] == (
        "CWB Supply: 1st Minnesota: morale checks −1 while Out Of Ammo "
        "(the players apply it; the bot rolls no morale check)"
    )


@pytest.mark.parametrize("mode", ["offensive", "defensive"])
def test_E17_5_out_unit_any_fire_refused(mode: str) -> None:
    state = game(regiment(262, Ammo.OUT))
    dice = ScriptedDice([])
    with pytest.raises(IllegalAction, match=r"Out Of Ammo and cannot fire until it is resupplied"):
        SYSTEM.run(
            state,
            SYSTEM.parse_action({"action": "cwb.fire", "unit": "1st Minnesota", "mode": mode}),
            dice,
        )
    assert dice.rolls == ()
    assert state == game(regiment(262, Ammo.OUT))


def test_E17_6_isolated_unit_defends_in_melee_at_one_quarter() -> None:
    state = game(regiment(262, Ammo.NORMAL))
    outcome = SYSTEM.run(state, Isolation(unit="1st Minnesota", isolated=True), ScriptedDice([]))
    assert outcome.state == game(regiment(262, Ammo.NORMAL, isolated=True))
    assert outcome.explanation() == [
        "CWB Isolated Units: 1st Minnesota is Isolated: defends in Melee at ×1/4 strength"
    ]
    melee = SYSTEM.run(outcome.state, Melee(unit="1st Minnesota"), ScriptedDice([]))
    assert melee.state == outcome.state
    assert melee.facts == (("1st Minnesota melee defence", "131/2"),)
    assert Fraction(melee.facts[0][1]) == Fraction(262) * Fraction(1, 4)


def test_E17_6_on_the_map_only_routes_cross_empty_enemy_zoc_isolated() -> None:
    # 5×5 map, odd-q. The Union regiment at 2,2 is two hexes from every edge. Enemy units at
    # 3,2 / 2,1 / 1,2 hold three of the six hexes around it and put the other three (3,1 / 1,1 /
    # 2,3) in their ZOC, empty of friendly units: every route crosses an empty enemy-ZOC hex.
    board = HexMap(columns=5, rows=5)
    enemies = tuple(
        Unit(name=f"CSA {i}", side="Confederate", men=300, hex=h)
        for i, h in enumerate([(3, 2), (2, 1), (1, 2)])
    )
    state = game(regiment(262, Ammo.NORMAL, hex=(2, 2)), *enemies, hex_map=board)
    with ScriptedDice([]) as dice:
        outcome = SYSTEM.run(state, Turn(side="Union"), dice)
    assert outcome.state == game(
        regiment(262, Ammo.NORMAL, hex=(2, 2), isolated=True), *enemies, hex_map=board
    )
    assert outcome.facts == (("turn", "Union"), ("1st Minnesota", "Isolated"))
    melee = SYSTEM.run(outcome.state, Melee(unit="1st Minnesota", strength=8), ScriptedDice([]))
    assert melee.facts == (("1st Minnesota melee defence", "2"),)
    # a friendly unit in the ZOC hex 3,1 opens the line 2,2 → 3,1 → 4,1 (map edge)
    friend = Unit(name="2nd Minnesota", side="Union", men=200, hex=(3, 1))
    retest = SYSTEM.run(outcome.state.with_unit(friend), Turn(side="Union"), ScriptedDice([]))
    assert retest.state == game(
        regiment(262, Ammo.NORMAL, hex=(2, 2)), *enemies, friend, hex_map=board
    )
    assert "1st Minnesota: line 2,2 → 3,1 → 4,1" in retest.explanation()[1]
