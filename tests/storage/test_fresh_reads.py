"""A process's reads show what another process wrote: its cached copy of a game is checked
against the database's head (one small read) before a listing, a preview or an autocomplete
answers from it — on both engines, with a real second process (a console) writing the game."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from bot.console import CONSOLE_GUILD, console_id
from bot.models import Actor, Place, Reply
from bot.service.game_service import GameService
from bot.service.systems import InstalledSystems
from bot.storage import open_repository
from bot.table import commands as gc
from rules_core.asl.actions import AddUnit

ROOT = Path(__file__).resolve().parents[2]
TABLE = Place(guild_id=CONSOLE_GUILD, channel_id=console_id("table"))
YOU = Actor(user_id=console_id("you"), name="you")  # the console's own user
BOB = Actor(user_id=console_id("bob"), name="bob")


def other_process(database: Path | str, lines: str) -> str:
    """A console process playing ``lines`` at the same table, in the same database."""
    done = subprocess.run(
        [sys.executable, "-m", "bot", "console", "-", "--db", str(database), "--channel", "table"],
        input=lines, capture_output=True, text=True, timeout=120, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def field(reply: Reply, name: str) -> str:
    return dict(reply.fields)[name]


async def test_reads_show_what_another_process_wrote_since(database: Path | str) -> None:
    repo = await open_repository(database)
    try:
        service = GameService(repo, InstalledSystems())
        await service.handle(TABLE, YOU, "new", gc.GameNew(system="asl", title="Hill 621"))
        await service.handle(TABLE, YOU, "seat-you", gc.GameSeat(side="Axis"))
        await service.handle(TABLE, BOB, "seat-bob", gc.GameSeat(side="Allied"))
        status = await service.handle(TABLE, YOU, "status-1", gc.GameStatus())
        assert field(status, "Log head").startswith("#3 ")
        assert await service.autocomplete(TABLE, "unit") == []
        assert (TABLE.guild_id, TABLE.channel_id) in service.core.live  # the game is cached

        out = other_process(
            database,
            '/roll dice:DR reason:"Sniper check"\n'
            "/asl unit add name:A1 side:Axis kind:squad quality:4-6-7\n",
        )
        assert "#4 DR" in out and "#5 /asl unit add" in out

        status = await service.handle(TABLE, YOU, "status-2", gc.GameStatus())
        head = field(status, "Log head")
        row = await repo.active_game(TABLE.guild_id, TABLE.channel_id)
        assert row is not None and head == f"#5 {row.head_hash[:12]}…"  # as a person reads it
        assert field(status, "Next die") == "#3"
        log = await service.handle(TABLE, YOU, "log", gc.GameLog())
        assert log.title == "Hill 621: log entries #1–#5 of 5"
        assert dict(log.fields)["#4"].startswith("you: /roll DR ")
        assert await service.autocomplete(TABLE, "unit") == ["A1"]  # a reader of the state too
        # this process writes on top of the other's entries: no refusal, no fork
        await service.handle(
            TABLE, YOU, "unit-2", AddUnit(name="A2", side="Axis", kind="squad", quality="4-6-7")
        )
        assert await service.autocomplete(TABLE, "unit") == ["A1", "A2"]

        # you play Axis: your end is a proposal Bob confirms (entry 7)
        other_process(database, "/game end\n@bob /game confirm entry:7\n")
        status = await service.handle(TABLE, YOU, "status-3", gc.GameStatus())
        assert field(status, "Status") == "ended"
    finally:
        await repo.close()
