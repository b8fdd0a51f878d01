"""A local drand chain and relay on 127.0.0.1 (a round every second) and a beacon game service."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.dice.beacon.games import BeaconConfig
from bot.dice.beacon.local import LocalChain, LocalRelay
from bot.models import Actor, Place
from bot.service.game_service import GameService
from bot.storage import open_repository
from bot.table import commands as gc
from tests.bot.toysystem import SYSTEM

ALICE = Actor(user_id=1, name="alice")
BOB = Actor(user_id=2, name="bob")
ADMIN = Actor(user_id=9, name="admin", is_admin=True)
HERE = Place(guild_id=100, channel_id=200)


@pytest.fixture
async def relay() -> AsyncIterator[LocalRelay]:
    server = LocalRelay(LocalChain.new(period=1))
    await server.start()
    yield server
    await server.stop()


def beacon_config(relay: LocalRelay, **kwargs: float) -> BeaconConfig:
    """The relay's chain; a relay that answers does so in milliseconds, but a loaded machine may
    take seconds: 3 s a request, and a player waits up to 30 s for a round that comes (a test of
    a round that does not come says how patient the player is)."""
    settings = {"timeout": 3.0, "patience": 30.0, **kwargs}
    return BeaconConfig(chain=relay.info, relays=(relay.url,), **settings)  # type: ignore[arg-type]


@pytest.fixture
async def db(database: Path | str) -> Path | str:
    """The beacon games' database, on each engine (an SQLite file, a PostgreSQL database)."""
    return database


@pytest.fixture
async def service(db: Path | str, relay: LocalRelay) -> AsyncIterator[GameService]:
    repo = await open_repository(db)
    svc = GameService(repo, {"toy": SYSTEM}, beacon=beacon_config(relay), dice_default="beacon")
    yield svc
    await svc.close_beacon()
    await repo.close()


async def start_beacon_game(service: GameService, place: Place = HERE) -> None:
    """A toy beacon game: alice referees and holds Axis, bob holds Allied."""
    await service.handle(place, ALICE, "new", gc.GameNew(system="toy", dice="beacon"))
    await service.handle(place, ALICE, "seat-a", gc.GameSeat(side="Axis"))
    await service.handle(place, BOB, "seat-b", gc.GameSeat(side="Allied"))
