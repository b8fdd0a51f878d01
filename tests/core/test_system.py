"""The GameSystem contract, exercised with a toy system of two actions."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from rules_core.dice import Dice, ScriptedDice
from rules_core.errors import IllegalAction, InvalidInput
from rules_core.outcome import Outcome, Step
from rules_core.system import GameSystem, get_system


class Tally(BaseModel):
    model_config = ConfigDict(frozen=True)
    sides: tuple[str, ...]
    hits: int = 0


class Shoot(BaseModel):
    model_config = ConfigDict(frozen=True)
    action: Literal["toy.shoot"] = "toy.shoot"
    side: str
    target: int = Field(ge=2, le=12)


class Reset(BaseModel):
    model_config = ConfigDict(frozen=True)
    action: Literal["toy.reset"] = "toy.reset"


ToyAction = Annotated[Shoot | Reset, Field(discriminator="action")]


class Toy(GameSystem[Tally, Shoot | Reset]):
    name = "toy"
    title = "Toy"
    state_type = Tally
    action_types = (Shoot, Reset)
    action_adapter: TypeAdapter[Shoot | Reset] = TypeAdapter(ToyAction)

    def new_state(self, sides: Sequence[str], options: Mapping[str, Any]) -> Tally:
        return Tally(sides=tuple(sides))

    def acting_side(self, state: Tally, action: Shoot | Reset) -> str | None:
        return action.side if isinstance(action, Shoot) else None

    def resolve(self, state: Tally, action: Shoot | Reset, dice: Dice) -> Outcome[Tally]:
        if isinstance(action, Reset):
            return Outcome[Tally](state=state.model_copy(update={"hits": 0}))
        if action.side not in state.sides:
            raise IllegalAction(f"{action.side} is not a side of this game.", rule="T1")
        total = sum(dice.DR("To Hit DR"))
        hit = total <= action.target
        new = state.model_copy(update={"hits": state.hits + hit})
        return Outcome[Tally](
            state=new,
            steps=(Step(rule="T2", text=f"DR {total} vs {action.target}"),),
            facts=(("shot", "hit" if hit else "miss"),),
        )


TOY = Toy()


def test_run_attaches_every_die_read() -> None:
    state = TOY.new_state(["Axis", "Allied"], {})
    with ScriptedDice([3, 4]) as dice:
        outcome = TOY.run(state, Shoot(side="Axis", target=7), dice)
    assert outcome.state.hits == 1
    assert [r.render() for r in outcome.rolls] == ["To Hit DR 7 (3,4)"]
    assert state.hits == 0  # the old state is untouched


def test_odds_group_by_facts_and_are_exact() -> None:
    state = TOY.new_state(["Axis"], {})
    odds = TOY.odds(state, Shoot(side="Axis", target=7))
    assert odds == {(("shot", "hit"),): Fraction(21, 36), (("shot", "miss"),): Fraction(15, 36)}


def test_illegal_action_is_refused_before_any_die() -> None:
    state = TOY.new_state(["Axis"], {})
    dice = ScriptedDice([])
    with pytest.raises(IllegalAction, match=r"not a side of this game. \(T1\)"):
        TOY.run(state, Shoot(side="Soviet", target=7), dice)
    assert dice.rolls == ()


def test_parse_action_gives_a_user_safe_message() -> None:
    assert TOY.parse_action('{"action": "toy.reset"}') == Reset()
    shot = TOY.parse_action({"action": "toy.shoot", "side": "Axis", "target": 5})
    assert isinstance(shot, Shoot)
    assert shot.target == 5
    with pytest.raises(InvalidInput, match="target"):
        TOY.parse_action({"action": "toy.shoot", "side": "Axis", "target": 13})


def test_state_round_trips() -> None:
    state = Tally(sides=("A", "B"), hits=2)
    assert TOY.parse_state(state.model_dump_json()) == state
    assert TOY.parse_state(state.model_dump()) == state


def test_unknown_system_is_invalid_input() -> None:
    with pytest.raises(InvalidInput, match="Unknown game system"):
        get_system("monopoly")
