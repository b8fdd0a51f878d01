"""Names typed by players — systems, sides, units, wagons — are matched with case ignored.

The real game systems on a real SQLite file: ``/game new system:ASL`` and ``/game seat
side:axis`` are accepted and recorded in the game's own spelling; a player acting for a side
typed in another case is still acting for the seat they hold.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.errors import NotYourSide
from bot.service.game_service import GameService
from bot.service.systems import InstalledSystems
from bot.storage import Repository, open_repository
from bot.table import commands as gc
from rules_core.asl.actions import AddWeapon
from rules_core.cwb import Ammo, Fire, Params, UnitAdd, UnitSet, WagonAdd
from rules_core.errors import InvalidInput
from rules_core.ocs.actions import DumpAdd
from tests.bot.conftest import ALICE, BOB, HERE


@pytest.fixture
async def real(tmp_path: Path) -> AsyncIterator[tuple[GameService, Repository]]:
    repo = await open_repository(tmp_path / "referee.db")
    yield GameService(repo, InstalledSystems()), repo
    await repo.close()


async def test_a_system_name_in_capitals_starts_that_system(
    real: tuple[GameService, Repository],
) -> None:
    service, repo = real
    reply = await service.handle(HERE, ALICE, "n1", gc.GameNew(system="ASL"))
    assert reply.seq == 1
    row = await repo.active_game(HERE.guild_id, HERE.channel_id)
    assert row is not None and row.system == "asl"
    with pytest.raises(InvalidInput, match="Unknown game system 'SL'"):
        await service.handle(HERE, ALICE, "n2", gc.GameNew(system="SL"))


async def test_a_side_typed_in_lower_case_takes_the_seat_as_the_game_spells_it(
    real: tuple[GameService, Repository],
) -> None:
    service, repo = real
    await service.handle(HERE, ALICE, "n1", gc.GameNew(system="Asl"))
    seat = await service.handle(HERE, BOB, "n2", gc.GameSeat(side="axis"))
    row = await repo.active_game(HERE.guild_id, HERE.channel_id)
    assert row is not None
    assert row.table["seats"]["Axis"]["id"] == BOB.user_id
    assert "axis" not in row.table["seats"]
    assert "Axis" in seat.title or any("Axis" in str(v) for v in seat.fields)
    # bob acts for "AXIS" (his seat) but not for "allied"
    added = await service.handle(
        HERE, BOB, "n3", AddWeapon(name="HMG A", side="AXIS", kind="sw_mg", b=11)
    )
    assert added.side == "Axis"
    with pytest.raises(NotYourSide, match="Allied seat"):
        await service.handle(
            HERE, BOB, "n4", AddWeapon(name="LMG B", side="allied", kind="sw_mg", b=11)
        )


async def test_sides_differing_only_in_case_are_one_side(
    real: tuple[GameService, Repository],
) -> None:
    service, repo = real
    with pytest.raises(InvalidInput, match="at least two different sides"):
        await service.handle(HERE, ALICE, "n1", gc.GameNew(system="cwb", sides=("Union", "UNION")))
    assert await repo.active_game(HERE.guild_id, HERE.channel_id) is None


async def test_cwb_units_wagons_and_sides_are_found_in_any_case(
    real: tuple[GameService, Repository],
) -> None:
    service, _ = real
    await service.handle(HERE, ALICE, "c1", gc.GameNew(system="CWB"))
    await service.handle(HERE, BOB, "c2", gc.GameSeat(side="UNION"))
    await service.handle(HERE, ALICE, "c3", Params(ammo_loss=0, side="union"))
    unit = UnitAdd(name="1st Minnesota", side="union", men=262)
    assert (await service.handle(HERE, BOB, "c4", unit)).side == "Union"
    await service.handle(HERE, BOB, "c5", WagonAdd(name="Wagon A", side="UNION", strength=30))
    await service.handle(HERE, BOB, "c6", UnitSet(name="1ST MINNESOTA", ammo=Ammo.LOW))
    fired = await service.handle(HERE, BOB, "c7", Fire(unit="1st minnesota", mode="defensive"))
    assert fired.side == "Union"


async def test_a_side_typed_in_another_case_is_logged_as_the_game_spells_it(
    real: tuple[GameService, Repository],
) -> None:
    service, repo = real
    await service.handle(HERE, ALICE, "o1", gc.GameNew(system="ocs", sides=("Axis", "Soviet")))
    await service.handle(HERE, BOB, "o2", gc.GameSeat(side="AXIS"))
    reply = await service.handle(HERE, BOB, "o3", DumpAdd(side="axis", hex="0905", amount="2 SP"))
    assert reply.side == "Axis"
    row = await repo.active_game(HERE.guild_id, HERE.channel_id)
    assert row is not None
    stored = await repo.entry_by_interaction("o3")
    assert stored is not None and json.loads(stored.body)["side"] == "Axis"
    with pytest.raises(NotYourSide, match="Soviet seat"):
        await service.handle(HERE, BOB, "o4", DumpAdd(side="SOVIET", hex="0905", amount="1 SP"))
