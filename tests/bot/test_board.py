"""The status board's content (``/game board``), from real games of each system played through
the service as the console types them: whose turn it is with the player's name, seats, the
markers that matter in the system, proposals waiting, the last entries and how many are not
shown — always within one Discord embed's limits. Turning it off and on; who may."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.commands import Request, build_registry, execute, parse_line
from bot.console import console_id, console_user
from bot.errors import NotYourSide
from bot.models import Actor, Place, Reply
from bot.render.embed import render_embed
from bot.render.text import render_text
from bot.service.game_service import GameService
from bot.service.systems import InstalledSystems
from bot.storage import open_repository
from bot.table import commands as gc
from bot.table.board import BOARD_ENTRIES

PLACE = Place(guild_id=7, channel_id=70)
REF = Actor(user_id=console_id("ref"), name="ref")
ALICE = Actor(user_id=console_id("alice"), name="alice")
BOB = Actor(user_id=console_id("bob"), name="bob")
CAROL = Actor(user_id=console_id("carol"), name="carol")


class Table:
    def __init__(self, service: GameService) -> None:
        self.service = service
        self.registry = build_registry(service.systems)
        self.counter = itertools.count()

    async def line(self, actor: Actor, text: str) -> Reply:
        words, options = parse_line(text)
        request = Request(PLACE, actor, f"i{next(self.counter)}", words, options)
        return await execute(self.service, request, self.registry, console_user)

    async def board(self, actor: Actor = ALICE) -> dict[str, str]:
        reply = await self.line(actor, "/game board")
        assert reply.command == "/game board" and not reply.ephemeral
        embed = render_embed(reply)
        assert len(embed) <= 6000 and len(embed.fields) <= 25
        assert all(len(f.value or "") <= 1024 for f in embed.fields)
        return dict(reply.fields)


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[Table]:
    repo = await open_repository(tmp_path / "board.db")
    yield Table(GameService(repo, InstalledSystems()))
    await repo.close()


async def seated(table: Table, system: str, sides: str) -> None:
    await table.line(REF, f'/game new system:{system} sides:"{sides}"')
    first, second = sides.split(",")
    await table.line(ALICE, f"/game seat side:{first}")
    await table.line(BOB, f"/game seat side:{second}")


async def test_asl_board_names_the_phasing_player_and_the_markers(table: Table) -> None:
    await seated(table, "asl", "Axis,Allied")
    lines = [
        "/asl level side:Axis level:4",
        "/asl unit add name:A1 side:Axis kind:squad quality:4-6-7",
        "/asl unit add name:R1 side:Allied kind:squad quality:4-4-7",
        "/asl weapon add name:LMG side:Axis kind:sw_mg b:12 owner:A1 status:malfunctioned",
        "/asl weapon add name:PaK side:Axis kind:gun low_ammo:true",
        "/asl unit set name:R1 status:broken",
        "/asl phase side:Allied phase:rph",
    ]
    for text in lines:
        await table.line(REF, text)
    board = await table.board()
    assert board["Turn"] == "Rally Phase of Allied (Player Turn 1)\nAllied to act: bob"
    assert board["Seats"] == "Axis: alice · Allied: bob"
    assert board["Table"].splitlines() == [
        "Axis: Ammunition Shortage level 4",
        "Allied: no Ammunition Shortage",
        "Malfunctioned: LMG",
        "Low Ammo: PaK",
        "Broken: R1",
    ]
    shown = board["Last entries"].splitlines()
    assert len(shown) == BOARD_ENTRIES + 1
    assert shown[-2].startswith("#10 ref: /asl phase")
    assert shown[-1] == "(5 older entries not shown: /game log)"


async def test_in_the_defensive_fire_phase_the_defenders_player_acts(table: Table) -> None:
    await seated(table, "asl", "Axis,Allied")
    await table.line(REF, "/asl phase side:Axis phase:dfph")
    board = await table.board()
    assert board["Turn"] == "Defensive Fire Phase of Axis (Player Turn 1)\nAllied to act: bob"


async def test_ocs_board_shows_dumps_out_of_supply_and_fuel(table: Table) -> None:
    await seated(table, "ocs", "Axis,Soviet")
    lines = [
        '/ocs dump add side:Axis hex:0905 amount:"6 SP"',
        '/ocs unit add name:"XL HQ" side:Axis kind:HQ steps:1 hex:0905 movement:truck '
        "throw-range:8",
        '/ocs unit add name:"1/5 Pz" side:Axis steps:2 re:2 ar:4 formation:"5 Pz" hq:"XL HQ" '
        "hex:1005 movement:track",
        "/ocs unit add name:Kampfgruppe side:Axis steps:1 ar:2 hex:1410",
        "/ocs phase side:Axis phase:supply turn:1",
        "/ocs trace units:Kampfgruppe status:none",
    ]
    for text in lines:
        await table.line(ALICE, text)
    board = await table.board(BOB)
    assert board["Turn"] == "Turn 1: Axis Supply Phase\nAxis to act: alice"
    table_lines = board["Table"].splitlines()
    assert "Axis dumps: 0905 6 SP" in table_lines, table_lines
    assert any(line.startswith("Axis Out of Supply: Kampfgruppe") for line in table_lines)
    assert "Soviet dumps: none" in table_lines


async def test_cwb_board_shows_ammo_and_wagons_and_no_turn(table: Table) -> None:
    await seated(table, "cwb", "Union,Confederate")
    lines = [
        "/cwb params ammo-loss:30",
        '/cwb unit add name:"1st Minnesota" side:Union men:95 ammo:low',
        '/cwb unit add name:"20th Maine" side:Union men:386 ammo:out',
        '/cwb wagon add name:"Wagon A" side:Union strength:10',
    ]
    for text in lines:
        await table.line(ALICE, text)
    board = await table.board()
    assert "Turn" not in board
    table_lines = board["Table"].splitlines()
    assert any("Low" in line and "1st Minnesota" in line for line in table_lines), table_lines
    assert any("Out" in line and "20th Maine" in line for line in table_lines), table_lines
    assert "Union wagons: Wagon A 10" in table_lines


async def test_a_proposal_waiting_is_on_the_board(table: Table) -> None:
    await seated(table, "asl", "Axis,Allied")
    proposal = await table.line(ALICE, "/asl level side:Axis level:2")
    assert proposal.command == "/game propose"
    board = await table.board(BOB)
    assert board["Waiting for confirmation"].startswith(f"#{proposal.seq} alice: ")


async def test_many_markers_stay_within_a_fields_limit(table: Table) -> None:
    await seated(table, "asl", "Axis,Allied")
    for n in range(120):
        await table.line(REF, f"/asl unit add name:Broken-squad-{n:03} side:Axis kind:squad "
                         "broken:true")  # fmt: skip
    board = await table.board()
    assert board["Table"].splitlines()[-1].endswith(" more")
    text = render_text(await table.line(ALICE, "/game board"))
    assert "Broken: Broken-squad-000" in text


async def test_the_board_shows_what_another_process_wrote(table: Table, tmp_path: Path) -> None:
    await seated(table, "asl", "Axis,Allied")
    await table.line(REF, "/asl unit add name:A1 side:Axis kind:squad")
    assert await table.service.board_of(PLACE) is None  # not on yet
    await table.board()  # this process now holds the game in its cache
    other_repo = await open_repository(tmp_path / "board.db")  # a console on the same file
    try:
        other = Table(GameService(other_repo, InstalledSystems()))
        other.counter = itertools.count(1000)  # its own interaction ids
        await other.line(REF, "/asl unit set name:A1 status:broken")
    finally:
        await other_repo.close()
    found = await table.service.board_of(PLACE)
    assert found is not None
    assert "Broken: A1" in dict(found[0].fields)["Table"]


async def test_the_board_is_turned_off_and_on_by_players_only(table: Table) -> None:
    await seated(table, "asl", "Axis,Allied")
    with pytest.raises(NotYourSide):
        await table.line(CAROL, "/game board on:false")
    off = await table.line(BOB, "/game board on:false")
    assert off.ephemeral and off.title == "Status board off"
    game = await table.service.repo.active_game(PLACE.guild_id, PLACE.channel_id)
    assert game is not None
    saved = await table.service.repo.board(game.id)
    assert saved is not None and not saved.enabled
    assert await table.service.board_of(PLACE) is None
    await table.board(REF)
    assert await table.service.board_of(PLACE) is not None
    await table.line(REF, "/game end")
    found = await table.service.board_of(PLACE)  # the last update shows the game ended
    assert found is not None and found[0].title.endswith("status board (ended)")
    assert isinstance(gc.GameBoard(on=False), gc.GameBoard)
