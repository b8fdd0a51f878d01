"""A fresh action's reply and dice are built from values this process made valid, without
validating them again (``built``, bot/service/replies.py): each is the model validation makes."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, field_validator

import bot.service.replies as replies
from bench import service_profile
from bot.models import DieView, Reply
from bot.service.game_service import GameService
from tests.bot.conftest import ALICE, BOB, HERE, start_game
from tests.bot.toysystem import Ammo, Shoot

Built = list[tuple[type[BaseModel], dict[str, Any]]]


def checked(monkeypatch: pytest.MonkeyPatch) -> Built:
    """``built`` made to check each model it builds against the validated one: equal, the same
    fields set, the fields in the same order (what ``model_dump`` writes)."""
    seen: Built = []
    build = replies.built

    def both(model: type[BaseModel], values: dict[str, Any]) -> Any:
        made, validated = build(model, values), model(**values)
        assert made == validated
        assert made.model_fields_set == validated.model_fields_set
        assert list(made.__dict__) == list(validated.__dict__)
        assert made.model_dump(mode="json") == validated.model_dump(mode="json")
        seen.append((model, values))
        return made

    monkeypatch.setattr(replies, "built", both)
    return seen


def test_the_fire_cycles_replies_are_the_validated_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The benchmark's fire cycle (set-up, phases, units, weapons, fire with its dice)."""
    seen = checked(monkeypatch)
    asyncio.run(service_profile.run(3, 0, 0, tmp_path))
    assert sum(model is Reply for model, _ in seen) >= 3 * 7
    assert any(model is DieView for model, _ in seen)


async def test_a_toy_games_replies_are_the_validated_ones(
    service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Dice, the other player told (``notify``), each side's reply; a redelivery's."""
    seen = checked(monkeypatch)
    await start_game(service)
    shot = await service.handle(HERE, ALICE, "s1", Shoot(side="Axis"))
    assert shot.dice and shot.notify and not shot.replayed
    await service.handle(HERE, BOB, "s2", Shoot(side="Allied"))
    await service.handle(HERE, ALICE, "a1", Ammo(side="Axis", level=2))
    assert sum(model is Reply for model, _ in seen) == 3
    # a redelivery is answered from the stored log, its reply validated
    again = await service.handle(HERE, ALICE, "s1", Shoot(side="Axis"))
    assert again.replayed
    assert again.model_dump(exclude={"replayed"}) == shot.model_dump(exclude={"replayed"})


def test_only_a_model_of_plain_fields_is_built() -> None:
    class Checked(BaseModel):
        name: str

        @field_validator("name")
        @classmethod
        def _strip(cls, value: str) -> str:
            return value.strip()

    class Mutable(BaseModel):
        names: list[str] = []

    for model in (Checked, Mutable):
        with pytest.raises(TypeError, match="by validation only"):
            replies.built(model, {"name": " a "})
    with pytest.raises(TypeError, match="needs face"):
        replies.built(DieView, {"seq": 1, "sides": 6, "label": "d6", "epoch": 1})
