"""Invariants: exact odds sum to 1, wagons never go negative, replay reproduces the state."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from rules_core.cwb import SYSTEM, Ammo, CwbState, Fire
from rules_core.cwb.state import SideData, Unit, Wagon
from rules_core.cwb.supply_wagons import wagon_cost
from rules_core.dice import ScriptedDice
from rules_core.errors import RulesError

AMMO = st.sampled_from(list(Ammo))


@given(
    p=st.integers(0, 100),
    ammo=AMMO,
    mode=st.sampled_from(["offensive", "defensive"]),
    unit_type=st.sampled_from(["infantry", "cavalry", "artillery"]),
    isolated=st.booleans(),
)
def test_fire_odds_are_exact_and_sum_to_one(
    p: int, ammo: Ammo, mode: str, unit_type: str, isolated: bool
) -> None:
    state = CwbState(
        sides=(SideData(name="Union", ammo_loss_pct=p, isolation_rule=True),),
        units=(
            Unit.model_validate(
                {
                    "name": "A",
                    "side": "Union",
                    "men": 100,
                    "ammo": ammo,
                    "type": unit_type,
                    "isolated": isolated,
                }
            ),
        ),
    )
    action = SYSTEM.parse_action({"action": "cwb.fire", "unit": "A", "mode": mode})
    try:
        odds = SYSTEM.odds(state, action)
    except RulesError:
        assert ammo is Ammo.OUT or (ammo is Ammo.LOW and mode == "offensive")
        return
    assert sum(odds.values()) == 1
    rolls = unit_type != "artillery" or isolated
    loss = sum((pr for facts, pr in odds.items() if ("ammo loss", "yes") in facts), Fraction(0))
    if rolls and ammo is not Ammo.OUT:
        assert loss == Fraction(p, 100)
    else:
        assert loss == 0


def test_fire_odds_p4_exactly() -> None:
    state = CwbState(
        sides=(SideData(name="Union", ammo_loss_pct=4),),
        units=(Unit(name="A", side="Union", men=100),),
    )
    assert SYSTEM.odds(state, Fire(unit="A", mode="offensive")) == {
        (("ammo loss", "yes"), ("A", "Low On Ammo")): Fraction(1, 25),
        (("ammo loss", "no"), ("A", "Normal")): Fraction(24, 25),
    }


@given(men=st.integers(1, 5000))
def test_wagon_cost_covers_the_men(men: int) -> None:
    assert wagon_cost(men, "ceil") * 10 >= men > (wagon_cost(men, "ceil") - 1) * 10
    assert wagon_cost(men, "floor") * 10 <= men < (wagon_cost(men, "floor") + 1) * 10
    assert wagon_cost(men, "floor") <= wagon_cost(men, "round") <= wagon_cost(men, "ceil")
    assert wagon_cost(men + 1, "ceil") >= wagon_cost(men, "ceil")


def _action(draw: Any) -> dict[str, Any]:
    unit = draw(st.sampled_from(["U1", "U2", "C1", "Nobody"]))
    kind = draw(st.sampled_from(["fire", "resupply", "set", "isolation"]))
    if kind == "fire":
        return {
            "action": "cwb.fire",
            "unit": unit,
            "mode": draw(st.sampled_from(["offensive", "defensive"])),
        }
    if kind == "resupply":
        return {
            "action": "cwb.resupply",
            "unit": unit,
            "wagon": draw(st.sampled_from(["UW", "CW"])),
            "path": draw(st.integers(0, 7)),
            "routed": draw(st.sampled_from([None, False, True])),
        }
    if kind == "set":
        return {
            "action": "cwb.unit.set",
            "name": unit,
            "ammo": draw(AMMO).value,
            "men": draw(st.integers(1, 400)),
        }
    return {"action": "cwb.isolation", "unit": unit, "isolated": draw(st.booleans())}


@st.composite
def plays(draw: Any) -> tuple[list[dict[str, Any]], list[int]]:
    actions = [_action(draw) for _ in range(draw(st.integers(1, 25)))]
    faces = draw(st.lists(st.integers(1, 100), min_size=25, max_size=25))
    return actions, faces


def _start(strength_u: int, strength_c: int) -> CwbState:
    state = SYSTEM.new_state(
        ["Union", "Confederate"],
        {"cwb_ammo_loss_pct": {"Union": 30, "Confederate": 60}, "cwb_isolation": True},
    )
    for name, side, men in [("U1", "Union", 95), ("U2", "Union", 240), ("C1", "Confederate", 7)]:
        state = SYSTEM.run(
            state,
            SYSTEM.parse_action({"action": "cwb.unit.add", "name": name, "side": side, "men": men}),
            ScriptedDice([]),
        ).state
    for name, side, strength in [("UW", "Union", strength_u), ("CW", "Confederate", strength_c)]:
        state = SYSTEM.run(
            state,
            SYSTEM.parse_action(
                {"action": "cwb.wagon.add", "name": name, "side": side, "strength": strength}
            ),
            ScriptedDice([]),
        ).state
    return state


def _play(
    state: CwbState, actions: list[dict[str, Any]], faces: list[int]
) -> tuple[CwbState, list[str]]:
    dice = ScriptedDice(faces)
    log: list[str] = []
    for data in actions:
        before = state
        try:
            state = SYSTEM.run(state, SYSTEM.parse_action(data), dice).state
            log.append("ok")
        except RulesError as refused:
            assert state == before
            log.append(refused.user_message)
        for wagon in state.wagons:
            assert wagon.strength >= 1  # a wagon reduced to 0 is removed, never negative
    return state, log


@settings(max_examples=150)
@given(play=plays(), strength_u=st.integers(1, 40), strength_c=st.integers(1, 40))
def test_wagons_never_negative_and_strength_only_goes_to_resupply(
    play: tuple[list[dict[str, Any]], list[int]], strength_u: int, strength_c: int
) -> None:
    actions, faces = play
    start = _start(strength_u, strength_c)
    end, _ = _play(start, actions, faces)
    for wagon in start.wagons:
        left = [w.strength for w in end.wagons if w.name == wagon.name]
        assert (left[0] if left else 0) <= wagon.strength


@settings(max_examples=100)
@given(play=plays(), strength=st.integers(1, 40))
def test_replay_from_the_log_reproduces_the_state(
    play: tuple[list[dict[str, Any]], list[int]], strength: int
) -> None:
    actions, faces = play
    start = _start(strength, strength)
    first, log1 = _play(start, actions, faces)
    # replay from the stored JSON of the start state and of each action, as the bot does
    restored = SYSTEM.parse_state(start.model_dump_json())
    stored = [SYSTEM.parse_action(data).model_dump_json() for data in actions]
    again, log2 = _play(restored, [SYSTEM.parse_action(s).model_dump() for s in stored], faces)
    assert again == first
    assert log1 == log2
    assert SYSTEM.parse_state(first.model_dump_json()) == first


def test_wagon_starting_strength_is_consumed_exactly() -> None:
    state = _start(12, 5)
    state = SYSTEM.run(
        state,
        SYSTEM.parse_action({"action": "cwb.unit.set", "name": "U1", "ammo": "low"}),
        ScriptedDice([]),
    ).state
    out = SYSTEM.run(
        state,
        SYSTEM.parse_action({"action": "cwb.resupply", "unit": "U1", "wagon": "UW", "path": 5}),
        ScriptedDice([]),
    )
    assert out.state.wagon("UW") == Wagon(name="UW", side="Union", strength=2)
