"""Load and unload with leapfrogging (12.2a, chart 13.2d), Extenders (12.7) and the Special
Purposes costs as ledger entries (chart 13.2d)."""

from __future__ import annotations

import pytest

from rules_core.dice import ScriptedDice
from rules_core.errors import IllegalAction, InvalidInput, RulesError
from rules_core.ocs import SYSTEM
from rules_core.ocs.actions import (
    AnyOcsAction,
    Attack,
    Capture,
    Extender,
    Load,
    SetPhase,
    Special,
    UnitMove,
)
from rules_core.ocs.state import Dump, OcsState, Unit
from tests.ocs.helpers import game, run

TRUCKS = Unit(name="Trucks", side="Axis", kind="transport", hex="A1", steps=3, printed_ma=15)
WAGONS = Unit(name="Wagons", side="Axis", kind="transport", hex="A2", steps=2, printed_ma=8)
MORE = TRUCKS.model_copy(update={"name": "More", "hex": "A3", "steps": 3})
GROUND = Dump(side="Axis", hex="A1", tokens=12)


def refused(state: OcsState, action: AnyOcsAction) -> RulesError:
    before = state.model_dump_json()
    dice = ScriptedDice([])
    with pytest.raises(RulesError) as info:
        SYSTEM.run(state, action, dice)
    assert dice.rolls == ()
    assert state.model_dump_json() == before
    return info.value


def test_loading_costs_a_tenth_of_the_MA_in_MP_and_moves_SP_onto_the_trucks() -> None:
    out = run(game(TRUCKS, dumps=[GROUND]), Load(transport="Trucks", amount="2 SP"))
    assert out.state.unit("Trucks").load_tokens == 8
    assert out.state.dump_tokens("A1", "Axis") == 4
    assert out.explanation() == [
        "OCS 12.2a: Trucks loads 2 SP in A1; it carries 2 SP",
        "OCS 13.2d: loading costs Trucks 10% of its MA 15 = 2 MP",  # 1.5 rounds up
    ]
    muddy = run(game(TRUCKS, dumps=[GROUND]), Load(transport="Trucks", amount="1 SP", ma=7))
    assert muddy.explanation()[1].endswith("MA 7 = 1 MP")


def test_SP_unloaded_in_a_phase_are_not_loaded_again_in_that_phase() -> None:
    loaded = TRUCKS.model_copy(update={"load_tokens": 8})
    state = run(
        game(loaded, MORE.model_copy(update={"hex": "A1"})), SetPhase(side="Axis", phase="movement")
    ).state
    state = run(state, Load(transport="Trucks", amount="2 SP", unload=True)).state
    assert state.dump_tokens("A1", "Axis") == 8
    error = refused(state, Load(transport="More", amount="1 T"))
    assert isinstance(error, IllegalAction) and error.rule == "OCS 12.2a"
    assert "2 SP of it was unloaded this phase and may not be loaded again" in str(error)
    later = run(state, SetPhase(side="Axis", phase="combat")).state
    assert run(later, Load(transport="More", amount="2 SP")).state.unit("More").load_tokens == 8


def test_moving_and_using_SP_at_once_is_no_leapfrog() -> None:
    """12.2b: SP unloaded this phase may still be drawn and used at once."""
    loaded = TRUCKS.model_copy(update={"load_tokens": 8})
    bn = Unit(name="Bn", side="Axis", hex="A1", steps=2)
    state = run(game(loaded, bn), Load(transport="Trucks", amount="2 SP", unload=True)).state
    assert run(state, Attack(attackers=("Bn",), dump="A1")).fact("Dump") == "-2 T"


@pytest.mark.parametrize(
    ("action", "kind", "text"),
    [
        (Load(transport="Trucks", amount="5 SP"), IllegalAction, "cannot be loaded"),
        (Load(transport="Trucks", amount="1 T", unload=True), IllegalAction, "carries 0 T"),
        (Load(transport="Trucks", amount="0 T"), InvalidInput, "at least 1 T"),
        (Load(transport="Bn", amount="1 T"), InvalidInput, "not a Transport Point counter"),
        (Load(transport="Wagons", amount="1 T"), InvalidInput, "Axis has no dump in A2"),
    ],
)
def test_bad_loads_are_refused(action: AnyOcsAction, kind: type[RulesError], text: str) -> None:
    error = refused(game(TRUCKS, WAGONS, Unit(name="Bn", side="Axis"), dumps=[GROUND]), action)
    assert isinstance(error, kind) and text in str(error)


def test_five_truck_points_from_two_hexes_form_an_extender_and_the_rest_stays() -> None:
    state = game(TRUCKS, MORE)
    out = run(
        state,
        Extender(how="form", units=("Trucks", "More"), hex="A3", connected=True, name="Ext"),
    )
    assert [(u.name, u.steps, u.extender, u.hex) for u in out.state.units] == [
        ("More", 1, False, "A3"),
        ("Ext", 5, True, "A3"),
    ]
    assert out.rules_cited() == ["OCS 12.7e", "OCS 12.7e", "OCS 12.7a"]
    error = refused(out.state, UnitMove(unit="Ext", hex="A4"))
    assert isinstance(error, IllegalAction) and error.rule == "OCS 12.7"
    error = refused(out.state, Load(transport="Ext", amount="1 T"))
    assert isinstance(error, IllegalAction) and error.rule == "OCS 12.7a"
    back = run(out.state, Extender(how="unform", units=("Ext",)))
    assert back.state.unit("Ext").extender is False
    assert "spending half their MA (15/2 MP)" in back.explanation()[0]


@pytest.mark.parametrize(
    ("units", "connected", "rule", "text"),
    [
        (("Trucks",), True, "OCS 12.7", "takes 5 Transport Points; these have 3"),
        (("Trucks", "Wagons"), True, "OCS 12.7d", "one type of Transport Points only"),
        (("Trucks", "More"), False, "OCS 12.7d", "unless it connects to a trace Supply Source"),
        (("Organic", "More"), True, "OCS 12.7", "Organic Trucks"),
        (("Loaded", "More"), True, "OCS 12.7d", "must unload"),
    ],
)
def test_extenders_that_may_not_form(
    units: tuple[str, ...], connected: bool, rule: str, text: str
) -> None:
    organic = TRUCKS.model_copy(update={"name": "Organic", "organic": True})
    loaded = TRUCKS.model_copy(update={"name": "Loaded", "load_tokens": 4})
    state = game(TRUCKS, WAGONS, MORE, organic, loaded)
    error = refused(state, Extender(how="form", units=units, hex="A1", connected=connected))
    assert isinstance(error, IllegalAction) and error.rule == rule and text in str(error)


def test_an_extender_collapses_before_a_capture_then_its_points_are_captured() -> None:
    ext = TRUCKS.model_copy(update={"name": "Ext", "steps": 5, "extender": True, "hex": "B2"})
    ext = ext.model_copy(update={"side": "Soviet"})
    moto = Unit(name="Moto", side="Axis", hex="B2")
    state = game(ext, moto)
    error = refused(state, Capture(side="Axis", hex="B2", unit="Moto"))
    assert isinstance(error, IllegalAction) and error.rule == "OCS 12.7h"
    collapsed = run(state, Extender(how="collapse", units=("Ext",))).state
    out = run(collapsed, Capture(side="Axis", hex="B2", unit="Moto"), [4])
    # dr 4: 50 % of the 5 points = 2 1/2, rounded to the nearest: 3 captured
    assert out.fact("Trucks") == "3 points and 0 T captured"


def test_special_purposes_are_paid_from_the_dumps_with_their_limits() -> None:
    state = game(dumps=[Dump(side="Axis", hex="A1", tokens=40)])
    refit = run(state, Special(purpose="refit", side="Axis", dump="A1", hex="C4"))
    assert refit.facts == (("Air base C4", "may refit"), ("Dump", "-1 T"))
    port = run(state, Special(purpose="port", side="Axis", dump="A1", hex="P1", engineer=True))
    assert port.fact("Dump") == "-1 SP"
    base = run(state, Special(purpose="airbase", side="Axis", dump="A1", hex="C4", engineer=True))
    assert base.fact("Dump") == "-1 SP"
    close = Special(
        purpose="airbase", side="Axis", dump="A1", hex="C5", engineer=True, close_terrain=True
    )
    assert run(state, close).fact("Dump") == "-2 SP"
    error = refused(
        base.state, Special(purpose="airbase", side="Axis", dump="A1", hex="C4", engineer=True)
    )
    assert isinstance(error, IllegalAction) and "one level per turn" in str(error)
    two = Special(purpose="hedgehog", side="Axis", dump="A1", hex="H1", levels=2, engineer=True)
    assert run(state, two).facts == (("Hedgehog H1", "+2 levels"), ("Dump", "-4 SP"))
    error = refused(state, two.model_copy(update={"engineer": False}))
    assert "(two with an engineer-capable unit in the hex)" in str(error)
    barrage = Special(purpose="barrage", side="Axis", dump="A1", amount="3 T")
    assert run(state, barrage).fact("Dump") == "-3 T"
    next_turn = run(base.state, SetPhase(side="Axis", phase="movement", turn=2)).state
    again = Special(purpose="airbase", side="Axis", dump="A1", hex="C4", engineer=True)
    assert run(next_turn, again).fact("Air base C4") == "+1 level"


@pytest.mark.parametrize(
    ("action", "text"),
    [
        (Special(purpose="port", side="Axis", dump="A1", hex="P1"), "engineer-capable"),
        (Special(purpose="airbase", side="Axis", dump="A1", hex="P1"), "engineer-capable"),
        (Special(purpose="hedgehog", side="Axis", dump="A1"), "Name the hex"),
        (Special(purpose="barrage", side="Axis", dump="A1"), "State the barrage's cost"),
        (Special(purpose="refit", side="Axis", dump="A1", hex="C", amount="1 T"), "Only a barrage"),
        (Special(purpose="port", side="Axis", dump="A1", hex="C", levels=2), "Levels are built"),
        (
            Special(purpose="hedgehog", side="Axis", dump="A1", hex="H", levels=2, engineer=True),
            "It costs 4 SP; the dump in A1 holds 3 SP",
        ),
    ],
)
def test_special_purposes_refused(action: AnyOcsAction, text: str) -> None:
    error = refused(game(dumps=[Dump(side="Axis", hex="A1", tokens=12)]), action)
    assert text in str(error)
