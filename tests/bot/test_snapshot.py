"""The fast snapshot (bot/service/snapshot.py) writes the very text of the canonical one
(bot/log/gamelog.py state_json), whose hash every entry logs: any difference would make honest
logs fail verification."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel

import bot.service.core as core
from bench import service_profile
from bot.log.gamelog import state_json
from bot.service.snapshot import float_free, snapshot
from bot.service.systems import InstalledSystems
from rules_core.asl.actions import AddUnit, AddWeapon
from rules_core.asl.examples import build_state, fb16_fire_group
from rules_core.asl.state import AslConfig, Unit

NAMES = st.text(max_size=30).map(lambda text: f"u{text.replace(',', ';')}u")
"""A unit's name: any characters but a comma, none at either end a space."""


def test_every_installed_state_type_is_float_free() -> None:
    assert all(float_free(system.state_type) for system in InstalledSystems().values())


@given(units=st.lists(NAMES, min_size=1, max_size=6, unique_by=str.casefold), quality=st.text())
def test_the_same_text_whatever_the_names(units: list[str], quality: str) -> None:
    """Names of any characters (control characters, quotes, backslashes, emoji, U+2028…) and
    sorted keys are written alike."""
    actions: list[Any] = [
        AddUnit(name=n, side="Axis", kind="squad", quality=quality) for n in units
    ]
    actions.append(AddWeapon(name="MG", side="Axis", kind="sw_mg", rof=2, owner=units[0]))
    state = build_state(actions)
    assert snapshot(state) == state_json(state)


def test_the_same_text_for_every_system_s_new_state_and_a_played_state() -> None:
    for system in InstalledSystems().values():
        state = system.new_state(("Axis", "Allied"), {})
        assert snapshot(state) == state_json(state)
    assert snapshot(fb16_fire_group()) == state_json(fb16_fire_group())


def test_a_huge_integer_and_a_float_are_written_by_the_standard_library() -> None:
    class Huge(BaseModel):
        count: int

    class Rate(BaseModel):
        rate: float

    assert float_free(Huge) and not float_free(Rate)
    assert (
        snapshot(Huge(count=2**70))
        == state_json(Huge(count=2**70))
        == '{"count":' + str(2**70) + "}"
    )
    assert snapshot(Rate(rate=1e16)) == state_json(Rate(rate=1e16)) == '{"rate":1e+16}'


def test_the_same_text_when_items_are_kept_from_the_state_before() -> None:
    """The items' dumps kept from one snapshot serve the next only for the very same items."""
    state = fb16_fire_group()
    assert snapshot(state) == state_json(state)
    unit = state.units[0]
    changed = state.model_copy(
        update={"units": (unit.model_copy(update={"broken": not unit.broken}), *state.units[1:])}
    )
    assert snapshot(changed) == state_json(changed) != snapshot(state)
    assert snapshot(state) == state_json(state)


def test_an_item_of_a_subclass_is_written_as_its_field_declares_it() -> None:
    class Marked(Unit):
        mark: str = "x"

    state = fb16_fire_group()
    first = state.units[0]
    marked = Marked(**first.model_dump())
    state = state.model_copy(update={"units": (marked, *state.units[1:])})
    assert snapshot(state) == state_json(state)
    assert '"mark"' not in snapshot(state)


def test_the_state_s_other_fields_are_written_as_pydantic_writes_them() -> None:
    """Read without pydantic only when each is what its field declares: a config replaced, a
    config of a subclass, a bool where an integer is declared (set without validation)."""

    class Wider(AslConfig):
        extra: str = "x"

    state = fb16_fire_group()
    assert snapshot(state) == state_json(state)
    for changed in (
        state.model_copy(update={"config": AslConfig(repair_drm=1)}),
        state.model_copy(update={"config": Wider(**state.config.model_dump())}),
        state.model_copy(update={"turn": True}),
        state.model_copy(update={"phase_side": None, "phase": None, "turn": 2**70}),
    ):
        assert snapshot(changed) == state_json(changed)
    assert snapshot(state) == state_json(state)


def test_every_state_of_a_played_game_has_the_canonical_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The benchmark's fire cycle in a game of 14 units: each state committed, in order."""
    written: list[BaseModel] = []

    def checked(state: BaseModel) -> str:
        text = snapshot(state)
        assert text == state_json(state)
        written.append(state)
        return text

    monkeypatch.setattr(core, "snapshot", checked)
    asyncio.run(service_profile.run(4, 0, 0, tmp_path, extra=10))
    assert len(written) >= 28
