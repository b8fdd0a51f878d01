"""Toy action models covering every option convention of rules_core/system.py."""

from __future__ import annotations

import enum
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator


class Phase(enum.Enum):
    RALLY = "rph"
    PREP_FIRE = "pfph"


class Fire(BaseModel):
    """Fire weapons at a target; rolls the IFT DR.

    Everything after the first line is not help text.
    """

    model_config = ConfigDict(frozen=True)
    rolls_dice: ClassVar[bool] = True
    action: Literal["toy.fire"] = "toy.fire"
    weapons: tuple[str, ...] = Field(
        description="Weapons that fire, comma-separated",
        json_schema_extra={"autocomplete": "weapon"},
    )
    phase: Phase = Field(default=Phase.PREP_FIRE, description="The phase of the attack")
    drm: int = Field(default=0, ge=-6, le=6, description="Net DRM")
    sustained: bool = Field(default=False, description="Sustained Fire")


class UnitAdd(BaseModel):
    """Add a unit to the game."""

    model_config = ConfigDict(frozen=True)
    action: Literal["toy.unit.add"] = "toy.unit.add"
    name: str = Field(description="The unit's name", min_length=1, max_length=40)
    side: str = Field(description="Its side", json_schema_extra={"autocomplete": "side"})
    kind: Literal["squad", "crew", "leader"] = Field(description="What it is")
    replaced_by: str | None = Field(default=None, description="What replaces it (FB16.6)")
    morale: int = Field(default=7, gt=2, lt=11, description="Its morale")


class Player(BaseModel):
    """A user as the application keeps it (like ``bot.models.UserRef``)."""

    model_config = ConfigDict(frozen=True)
    id: int
    name: str

    @model_validator(mode="before")
    @classmethod
    def _from_member(cls, value: Any) -> Any:
        if hasattr(value, "display_name"):
            return {"id": value.id, "name": value.display_name}
        return value


class Seat(BaseModel):
    """Take a seat; a referee may seat someone else."""

    model_config = ConfigDict(frozen=True)
    action: Literal["toy.seat"] = "toy.seat"
    side: str = Field(description="The side", json_schema_extra={"autocomplete": "side"})
    player: Player | None = Field(default=None, description="Seat this player instead")


class UnitList(BaseModel):
    """List the units."""

    model_config = ConfigDict(frozen=True)
    read_only: ClassVar[bool] = True
    action: Literal["toy.unit.list"] = "toy.unit.list"


class Boom(BaseModel):
    """A command whose handler has a bug."""

    model_config = ConfigDict(frozen=True)
    action: Literal["boom"] = "boom"


class Refuse(BaseModel):
    """A command the rules refuse."""

    model_config = ConfigDict(frozen=True)
    action: Literal["toy.refuse"] = "toy.refuse"
    why: Literal["rules", "user"] = Field(description="Which kind of refusal")


class Export(BaseModel):
    """Export the toy game as a file."""

    model_config = ConfigDict(frozen=True)
    read_only: ClassVar[bool] = True
    action: Literal["toy.export"] = "toy.export"


TOY_ACTIONS: tuple[type[BaseModel], ...] = (Fire, UnitAdd, UnitList, Boom, Refuse, Export, Seat)
TOY_NAMES = {
    "weapon": ["MMG", "HMG", "LMG", "ATR"],
    "side": ["Axis", "Allied"],
}
