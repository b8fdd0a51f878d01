"""A toy game system for the service tests and the console subprocess (``--plugin``).

It follows the command-declaration convention of ``rules_core/system.py``: ``toy.shoot`` rolls a
DR and, on doubles, a dr more (so a replay reads a varying number of dice); ``toy.ammo`` sets a
level that later shots depend on (so a void changes what follows); ``toy.tally`` is a listing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from rules_core.dice import Dice
from rules_core.errors import IllegalAction, InvalidInput
from rules_core.outcome import Outcome, Step
from rules_core.system import GameSystem


class Tally(BaseModel):
    model_config = ConfigDict(frozen=True)
    sides: tuple[str, ...]
    hits: tuple[int, ...]
    ammo: tuple[int, ...]


class Shoot(BaseModel):
    """Shoot: a To Hit DR; doubles add a Bonus dr."""

    model_config = ConfigDict(frozen=True)
    rolls_dice: ClassVar[bool] = True
    action: Literal["toy.shoot"] = "toy.shoot"
    side: str = Field(description="The shooting side", json_schema_extra={"autocomplete": "side"})
    target: int = Field(default=7, ge=2, le=12, description="Hit on this DR or less")
    weapons: tuple[str, ...] = Field(default=(), description="Weapons used (names)")
    careful: bool = Field(default=False, description="Take careful aim: -1 DRM")


class Ammo(BaseModel):
    """Set a side's ammunition; a side with 0 ammo may not shoot."""

    model_config = ConfigDict(frozen=True)
    action: Literal["toy.ammo"] = "toy.ammo"
    side: str = Field(description="The side", json_schema_extra={"autocomplete": "side"})
    level: int = Field(ge=0, le=5, description="Ammunition level 0-5")
    correction: bool = Field(
        default=False,
        description="A referee's out-of-sequence correction",
        json_schema_extra={"referee_only": True},
    )


class ShowTally(BaseModel):
    """List the hits of every side."""

    model_config = ConfigDict(frozen=True)
    read_only: ClassVar[bool] = True
    action: Literal["toy.tally"] = "toy.tally"


ToyAction = Annotated[Shoot | Ammo | ShowTally, Field(discriminator="action")]


class Toy(GameSystem[Tally, Shoot | Ammo | ShowTally]):
    name = "toy"
    title = "Toy Wargame"
    state_type = Tally
    action_types = (Shoot, Ammo, ShowTally)
    action_adapter: TypeAdapter[Shoot | Ammo | ShowTally] = TypeAdapter(ToyAction)

    def new_state(self, sides: Sequence[str], options: Mapping[str, Any]) -> Tally:
        return Tally(sides=tuple(sides), hits=(0,) * len(sides), ammo=(1,) * len(sides))

    def acting_side(self, state: Tally, action: Shoot | Ammo | ShowTally) -> str | None:
        return None if isinstance(action, ShowTally) else action.side

    def names(self, state: Tally, kind: str) -> list[str]:
        return list(state.sides) if kind == "side" else []

    def summary(self, state: Tally) -> list[str]:
        return [f"{s}: ammo {a}" for s, a in zip(state.sides, state.ammo, strict=True)]

    def _index(self, state: Tally, side: str) -> int:
        if side not in state.sides:
            raise InvalidInput(f"{side!r} is not a side of this game.")
        return state.sides.index(side)

    def resolve(self, state: Tally, action: Shoot | Ammo | ShowTally, dice: Dice) -> Outcome[Tally]:
        if isinstance(action, ShowTally):
            text = ", ".join(f"{s} {h}" for s, h in zip(state.sides, state.hits, strict=True))
            return Outcome[Tally](state=state, steps=(Step(rule="T0", text=text),))
        i = self._index(state, action.side)
        if isinstance(action, Ammo):
            ammo = list(state.ammo)
            ammo[i] = action.level
            return Outcome[Tally](
                state=state.model_copy(update={"ammo": tuple(ammo)}),
                steps=(Step(rule="T3", text=f"{action.side} ammunition {action.level}"),),
            )
        if state.ammo[i] == 0:
            raise IllegalAction(f"{action.side} has no ammunition.", rule="T3")
        colored, white = dice.DR("To Hit DR")
        total = colored + white - action.careful
        hits = 1 if total <= action.target else 0
        steps = [Step(rule="T2", text=f"Final DR {total} vs {action.target}")]
        if colored == white:
            bonus = dice.dr("Bonus dr")
            hits += bonus >= 4
            steps.append(Step(rule="T4", text=f"doubles: Bonus dr {bonus}"))
        new_hits = list(state.hits)
        new_hits[i] += hits
        return Outcome[Tally](
            state=state.model_copy(update={"hits": tuple(new_hits)}),
            steps=tuple(steps),
            facts=(("hits", str(hits)),),
        )


SYSTEM = Toy()
