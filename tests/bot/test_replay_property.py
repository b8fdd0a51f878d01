"""Property: whatever is declared, voided or refused, the snapshot is what the log replays to."""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from bot.dice.game_dice import FaceScript
from bot.errors import UserError
from bot.log.gamelog import rebuild_state, state_json
from bot.log.verify import verify_lines
from bot.service.game_service import GameService
from bot.storage import open_repository
from bot.table import commands as gc
from rules_core.errors import IllegalAction, RulesError
from tests.bot.conftest import ALICE, BOB, HERE, start_game
from tests.bot.toysystem import SYSTEM, Ammo, Shoot

steps = st.lists(
    st.one_of(
        st.builds(lambda side, target: ("shoot", side, target), st.sampled_from(["Axis", "Allied"]),
                  st.integers(2, 12)),
        st.builds(lambda side, level: ("ammo", side, level), st.sampled_from(["Axis", "Allied"]),
                  st.integers(0, 2)),
        st.builds(lambda n: ("void", n), st.integers(1, 30)),
        st.just(("roll",)),
    ),
    min_size=1,
    max_size=25,
)  # fmt: skip


def build(step: tuple[object, ...]) -> BaseModel:
    """The command a generated step stands for."""
    kind, *args = step
    if kind == "shoot":
        return Shoot(side=str(args[0]), target=int(str(args[1])))
    if kind == "ammo":
        return Ammo(side=str(args[0]), level=int(str(args[1])))
    if kind == "void":
        return gc.GameVoid(entry=int(str(args[0])), reason="property")
    return gc.RollDice(dice="2d6")


async def play(path: Path, script: list[tuple[object, ...]]) -> None:
    repo = await open_repository(path)
    try:
        service = GameService(repo, {"toy": SYSTEM})
        await start_game(service)
        for i, step in enumerate(script):
            actor = ALICE if i % 2 else BOB
            command = build(step)
            with contextlib.suppress(UserError, RulesError):  # a refusal changes nothing
                await service.handle(HERE, actor, f"i{i}", command)
        row = await repo.active_game(HERE.guild_id, HERE.channel_id)
        assert row is not None
        entries = [e.data() for e in await repo.entries(row.id)]
        rebuilt = rebuild_state(SYSTEM, entries, set(row.table["voided"]))
        assert state_json(rebuilt) == row.state_json
        export = await service.handle(HERE, ALICE, "export", gc.GameExport())
        assert export.file is not None
        report = verify_lines(export.file.content.decode().splitlines(), {"toy": SYSTEM})
        assert report.ok, report.message
    finally:
        await repo.close()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(script=steps)
def test_the_snapshot_is_always_what_the_log_replays_to(script: list[tuple[object, ...]]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(play(Path(folder) / "p.db", script))


def test_scripted_faces_are_not_consumed_by_refused_declarations() -> None:
    script = FaceScript([6, 5])

    async def run(path: Path) -> None:
        repo = await open_repository(path)
        try:
            service = GameService(repo, {"toy": SYSTEM}, script=script)
            await start_game(service)
            await service.handle(HERE, ALICE, "a", Ammo(side="Axis", level=0))
            with pytest.raises(IllegalAction):
                await service.handle(HERE, ALICE, "b", Shoot(side="Axis"))
            reply = await service.handle(HERE, BOB, "c", Shoot(side="Allied"))
            assert [d.face for d in reply.dice] == [6, 5]
        finally:
            await repo.close()

    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(run(Path(folder) / "s.db"))
