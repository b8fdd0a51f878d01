"""ASL through the real game service on a real SQLite file: previews (one message, computed off
the event loop), the referee-only correction (checked, logged and shown as such)."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from fractions import Fraction
from pathlib import Path

import pytest

from bot.errors import NotAReferee
from bot.models import Actor, Place
from bot.service.game_service import GameService
from bot.storage import Repository, open_repository
from bot.table import commands as gc
from rules_core.asl.actions import AddUnit, AddWeapon, AslAction, Fire, SetPhase, ToHit
from rules_core.asl.state import AslState
from rules_core.asl.system import AslSystem
from rules_core.errors import InvalidInput
from rules_core.odds import OddsTooLarge
from rules_core.outcome import Fact

ALICE = Actor(user_id=1, name="alice")  # creates the game: its referee; holds Axis
BOB = Actor(user_id=2, name="bob")  # holds Allied
HERE = Place(guild_id=7, channel_id=8)


class RecordingAsl(AslSystem):
    """The real ASL rules, remembering which thread computed each preview."""

    def __init__(self) -> None:
        self.threads: list[int] = []

    def preview_fields(
        self, state: AslState, action: AslAction
    ) -> tuple[tuple[str, str], ...] | None:
        self.threads.append(threading.get_ident())
        return super().preview_fields(state, action)

    def odds(self, state: AslState, action: AslAction) -> dict[tuple[Fact, ...], Fraction]:
        if isinstance(action, ToHit) and action.drm == 9:  # a stand-in for a huge declaration
            raise OddsTooLarge("more than 200000 dice sequences")
        return super().odds(state, action)


@pytest.fixture
async def repo(tmp_path: Path) -> AsyncIterator[Repository]:
    repository = await open_repository(tmp_path / "referee.db")
    yield repository
    await repository.close()


async def asl_game(service: GameService) -> None:
    await service.handle(HERE, ALICE, "new", gc.GameNew(system="asl"))
    await service.handle(HERE, ALICE, "seat-a", gc.GameSeat(side="Axis"))
    await service.handle(HERE, BOB, "seat-b", gc.GameSeat(side="Allied"))
    setup: list[AslAction] = [
        AddUnit(name="A", side="Axis", kind="squad"),
        AddWeapon(name="LMG", side="Axis", kind="sw_mg", rof=1, owner="A"),
        AddUnit(name="C", side="Axis", kind="crew"),
        AddWeapon(name="IG", side="Axis", kind="gun", owner="C"),
        SetPhase(phase="pfph", side="Axis"),
    ]
    for i, action in enumerate(setup):
        reply = await service.handle(HERE, ALICE, f"setup-{i}", action)
    # the first Player Turn concerns both sides: Alice, who plays, proposes it; Bob confirms
    assert reply.command == "/game propose" and reply.seq is not None
    await service.handle(HERE, BOB, "setup-confirm", gc.GameConfirm(entry=reply.seq))


async def test_a_fire_preview_is_one_message_computed_off_the_event_loop(
    repo: Repository,
) -> None:
    system = RecordingAsl()
    service = GameService(repo, {"asl": system})
    await asl_game(service)
    before = (await repo.active_game(HERE.guild_id, HERE.channel_id)).head_seq  # type: ignore[union-attr]
    reply = await service.handle(
        HERE, BOB, "pv", Fire(weapons=("LMG",), units=("A",)), preview=True
    )
    assert reply.preview and reply.ephemeral and reply.odds == ()
    fields = dict(reply.fields)
    assert list(fields) == ["Each weapon and unit", "Nothing bad happens", "Most likely results"]
    assert fields["Each weapon and unit"].startswith("LMG: fine 97.2% · malfunctioned 2.8%")
    assert fields["Nothing bad happens"].startswith("35/36 (97.2%)")
    assert system.threads and all(t != threading.get_ident() for t in system.threads)
    after = (await repo.active_game(HERE.guild_id, HERE.channel_id)).head_seq  # type: ignore[union-attr]
    assert after == before  # nothing logged, nothing rolled
    tohit = await service.handle(HERE, ALICE, "pv2", ToHit(gun="IG"), preview=True)
    assert tohit.odds and not tohit.fields  # short enough to list whole
    with pytest.raises(InvalidInput, match="too many dice outcomes to preview exactly"):
        await service.handle(HERE, ALICE, "pv3", ToHit(gun="IG", drm=9), preview=True)


async def test_a_correction_needs_a_referee_and_is_logged_and_shown_as_one(
    repo: Repository,
) -> None:
    service = GameService(repo, {"asl": RecordingAsl()})
    await asl_game(service)
    jump = SetPhase(phase="dfph", correction=True)
    with pytest.raises(NotAReferee):
        await service.handle(HERE, BOB, "jump-bob", jump)
    # Alice referees but plays Axis: her correction is a proposal Bob confirms
    proposal = await service.handle(HERE, ALICE, "jump", jump)
    assert proposal.command == "/game propose" and proposal.seq is not None
    confirm = gc.GameConfirm(entry=proposal.seq)
    reply = await service.handle(HERE, BOB, "jump-agreed", confirm)
    shown = ("Referee", "correction — proposed by a referee, alice, and agreed")
    assert shown in reply.fields
    assert "out-of-sequence correction by a referee" in reply.steps[1].text
    row = await repo.active_game(HERE.guild_id, HERE.channel_id)
    assert row is not None
    stored = await repo.entry_by_interaction("jump-agreed")
    assert stored is not None and stored.data()["referee_only"] == ["correction"]
    again = await service.handle(HERE, BOB, "jump-agreed", confirm)  # answered from the log
    assert again.replayed and shown in again.fields
