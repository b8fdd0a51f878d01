"""Fixtures for the bot tests: a real database on each engine (an SQLite file in tmp_path, a
database on the test run's PostgreSQL server) and a service with the toy system."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.models import Actor, Place, Reply
from bot.service.game_service import GameService
from bot.storage import Repository, open_repository
from bot.table import commands as gc
from tests.bot.toysystem import SYSTEM

ALICE = Actor(user_id=1, name="alice")
BOB = Actor(user_id=2, name="bob")
CAROL = Actor(user_id=3, name="carol")
ADMIN = Actor(user_id=9, name="admin", is_admin=True)
HERE = Place(guild_id=100, channel_id=200)


@pytest.fixture
async def repo(database: Path | str) -> AsyncIterator[Repository]:
    repository = await open_repository(database)
    yield repository
    await repository.close()


@pytest.fixture
def service(repo: Repository) -> GameService:
    return GameService(repo, {"toy": SYSTEM})


async def end_game(service: GameService, place: Place = HERE, key: str = "end") -> Reply:
    """Alice ends the game of :func:`start_game`: she plays Axis, so her end is a proposal that
    bob, the Allied player, confirms (docs/TRUST.md); the confirmation's reply."""
    proposal = await service.handle(place, ALICE, key, gc.GameEnd())
    assert proposal.command == "/game propose" and proposal.seq is not None, proposal.title
    return await service.handle(place, BOB, f"{key}-ok", gc.GameConfirm(entry=proposal.seq))


async def start_game(service: GameService, place: Place = HERE) -> None:
    """A toy game at ``place``: alice creates it (its referee) and holds Axis; bob holds Allied."""
    await service.handle(place, ALICE, f"new-{place.channel_id}", gc.GameNew(system="toy"))
    await service.handle(place, ALICE, f"seat-a-{place.channel_id}", gc.GameSeat(side="Axis"))
    await service.handle(place, BOB, f"seat-b-{place.channel_id}", gc.GameSeat(side="Allied"))
