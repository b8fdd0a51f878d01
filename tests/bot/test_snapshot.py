"""The fast snapshot (bot/service/snapshot.py) writes the very text of the canonical one
(bot/log/gamelog.py state_json), whose hash every entry logs: any difference would make honest
logs fail verification."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel

from bot.log.gamelog import state_json
from bot.service.snapshot import float_free, snapshot
from bot.service.systems import InstalledSystems
from rules_core.asl.actions import AddUnit, AddWeapon
from rules_core.asl.examples import build_state, fb16_fire_group

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
