"""SP loaded on Transport Points are a dump too (OCS 12.1b); Organic Trucks' load (12.10e B)."""

from __future__ import annotations

from rules_core.ocs.actions import Attack, FuelAction, Recover
from rules_core.ocs.state import Dump, Unit
from tests.ocs.helpers import game, run

TRUCKS = Unit(
    name="Trucks", side="Axis", kind="transport", hex="A1", steps=2, printed_ma=12, load_tokens=6
)
ORGANIC = TRUCKS.model_copy(update={"name": "Organic", "organic": True, "load_tokens": 4})
BN = Unit(name="Bn", side="Axis", steps=3, movement="track")


def test_loaded_SP_pay_without_unloading_ground_first() -> None:
    state = game(BN, TRUCKS, dumps=[Dump(side="Axis", hex="A1", tokens=1)])
    out = run(state, Attack(attackers=("Bn",), dump="A1"))
    assert out.state == game(BN, TRUCKS.model_copy(update={"load_tokens": 4}))
    assert out.facts == (("Bn", "paid 3 T"), ("Dump", "-3 T"))


def test_fuel_from_a_loaded_truck_only() -> None:
    state = game(BN, TRUCKS)
    out = run(state, FuelAction(method="unit", target="Bn", dump="A1"))
    assert out.state == game(
        BN.model_copy(update={"fuel": "phase"}), TRUCKS.model_copy(update={"load_tokens": 5})
    )


def test_recovery_leaves_SP_on_organic_trucks_alone() -> None:
    low = Unit(name="Low Bn", side="Axis", hex="A1", internals="LOW")
    state = game(low, ORGANIC, TRUCKS.model_copy(update={"load_tokens": 1}))
    out = run(state, Recover(side="Axis", dump="A1"))
    # only the 1 T on the ordinary Trucks must be expended: it buys nothing and is wasted
    assert out.state == game(low, ORGANIC, TRUCKS.model_copy(update={"load_tokens": 0}))
    assert out.facts == (("Low Bn", "LOW"), ("Dump", "-1 T"))


def test_organic_load_is_used_last_when_paying() -> None:
    state = game(BN, ORGANIC, TRUCKS.model_copy(update={"load_tokens": 1}))
    out = run(state, Attack(attackers=("Bn",), dump="A1"))
    assert out.state == game(
        BN,
        ORGANIC.model_copy(update={"load_tokens": 2}),
        TRUCKS.model_copy(update={"load_tokens": 0}),
    )


def test_units_may_use_internals_when_the_only_dump_is_on_organic_trucks() -> None:
    one = Unit(name="One", side="Axis")
    state = game(one, ORGANIC)
    out = run(state, Attack(attackers=("One",), dump="A1", organic=False))
    assert out.state == game(one.model_copy(update={"internals": "LOW"}), ORGANIC)
    assert out.rules_cited() == ["OCS 12.10b"]
