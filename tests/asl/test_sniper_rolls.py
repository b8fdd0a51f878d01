"""A14.1 on the DRs the players roll themselves (issue 24, VASL dice-bot parity): a ``/roll`` of a
category whose Original DR activates a Sniper (TH, MC, TC, non-OBA IFT) says so when it equals
the SAN of the side the roller does not hold, on the server's dice and on a beacon round's."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.dice.beacon.local import LocalChain, LocalRelay
from bot.service.game_service import GameService
from bot.storage import open_repository
from bot.table import commands as gc
from rules_core.asl import SYSTEM
from rules_core.asl.actions import SetSan
from tests.asl.console import TABLE, play
from tests.beacon.conftest import ALICE, BOB, HERE, beacon_config


@pytest.fixture
async def relay() -> AsyncIterator[LocalRelay]:
    """A local drand chain and relay, a round every second (as tests/beacon uses)."""
    server = LocalRelay(LocalChain.new(period=1))
    await server.start()
    yield server
    await server.stop()


def notes(played_steps: list[dict[str, str]]) -> list[str]:
    return [f"{s['rule']}: {s['text']}" for s in played_steps if s["rule"] == "A14.1"]


async def test_a_roll_of_a_sniper_category_equal_to_the_enemy_san_activates_it(
    tmp_path: Path,
) -> None:
    played = await play(
        tmp_path,
        TABLE
        + """
        /asl san side:Axis san:3
        /asl san side:Allied san:4
        @carol /roll category:MC
        @bob /roll category:MC
        @bob /roll category:th
        @carol /roll category:Rally
        @carol /roll category:CC
        @carol /roll category:TK
        @carol /roll category:SA dice:DR
        @carol /roll category:OBA
        @carol /roll category:TC count:2
        @carol /roll category:MC dice:1d6
        """,
        dice="1,3,2,1,1,3,2,2,3,1,2,2,2,2,1,3,1,3,2,3,4",
    )
    allied = "A14.1: Original MC DR 4 = the Allied SAN 4 — the Allied Sniper is activated"
    assert notes(played.reply("@carol /roll category:MC")["steps"]) == [allied]
    axis = "A14.1: Original MC DR 3 = the Axis SAN 3 — the Axis Sniper is activated"
    assert notes(played.reply("@bob /roll category:MC")["steps"]) == [axis]
    # bob holds Allied: a DR 4 equals his own SAN, which no DR of his activates
    assert notes(played.reply("@bob /roll category:th")["steps"]) == []
    for other in ("Rally", "CC", "TK", "SA dice:DR", "OBA"):  # A14.1 names none of them
        assert notes(played.reply(f"@carol /roll category:{other}")["steps"]) == [], other
    tc = notes(played.reply("@carol /roll category:TC count:2")["steps"])
    assert tc == ["A14.1: Original TC DR 4 = the Allied SAN 4 — the Allied Sniper is activated"]
    assert notes(played.reply("@carol /roll category:MC dice:1d6")["steps"]) == []  # a dr, not a DR


async def test_a_referee_without_a_seat_is_told_whose_dr_it_must_be(tmp_path: Path) -> None:
    played = await play(
        tmp_path,
        """
        /game new system:asl
        @bob /game seat side:Axis
        @carol /game seat side:Allied
        /asl san side:Axis san:5
        /asl san side:Allied san:1
        /roll category:IFT
        /roll category:IFT
        """,
        dice="2,3,1,1",
    )
    first, second = (r["reply"] for n, r in sorted(played.results.items())[-2:])
    assert notes(first["steps"]) == [
        "A14.1: Original IFT DR 5 = the Axis SAN 5 — the Axis Sniper is activated if the Allied "
        "side made this DR"
    ]
    assert notes(second["steps"]) == []  # DR 2: the Allied SAN 1 is no Sniper (below 2)


async def test_a_beacon_roll_flags_the_enemy_sniper_as_a_server_roll_does(
    tmp_path: Path, relay: LocalRelay
) -> None:
    repo = await open_repository(tmp_path / "beacon.db")
    service = GameService(repo, {"asl": SYSTEM}, beacon=beacon_config(relay), dice_default="beacon")
    try:
        await service.handle(HERE, ALICE, "new", gc.GameNew(system="asl", dice="beacon"))
        await service.handle(HERE, ALICE, "seat-a", gc.GameSeat(side="Axis"))
        await service.handle(HERE, BOB, "seat-b", gc.GameSeat(side="Allied"))
        await service.handle(HERE, ALICE, "san-a", SetSan(side="Axis", san=7))
        await service.handle(HERE, ALICE, "san-b", SetSan(side="Allied", san=6))
        # set-up concerns both sides: bob confirms the playing referee's proposals (#4, #5)
        await service.handle(HERE, BOB, "ok-a", gc.GameConfirm(entry=4))
        await service.handle(HERE, BOB, "ok-b", gc.GameConfirm(entry=5))
        declared = await service.handle(
            HERE, BOB, "mc", gc.RollDice(dice="DR", count=10, category="MC")
        )
        resolved = await service.resolution(HERE, declared)
        faces = [d.face for d in resolved.dice]
        totals = [faces[i] + faces[i + 1] for i in range(0, len(faces), 2)]
        flagged = [f"{s.rule}: {s.text}" for s in resolved.steps if s.rule == "A14.1"]
        # bob holds Allied: each DR 7 activates the Axis Sniper; a DR 6, his own SAN, none
        assert flagged == [
            "A14.1: Original MC DR 7 = the Axis SAN 7 — the Axis Sniper is activated"
        ] * totals.count(7)
    finally:
        await service.close_beacon()
        await repo.close()
