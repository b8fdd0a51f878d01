"""`/game log` says what each entry did, in a few words (issue 24): the phase reached, the unit
added, the proposal made — for every system's commands and every table command."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from typing import Any

from bot.commands import build_registry
from bot.console import CONSOLE_GUILD, Console, ConsoleOptions, Reproducible
from bot.dice.game_dice import FaceScript
from bot.service.game_service import GameService
from bot.storage import open_repository
from bot.table.reads import CLOCK_SUMMARIES, entry_line
from tests.bot.reply_facts import Script, scripts
from tests.bot.test_console import referee

GAME = """\
/game new system:asl title:"Hill 621"
@alice /game seat side:Axis
@bob /game seat side:Allied
/asl unit add name:A1 side:Axis kind:squad quality:4-6-7
/asl phase side:Allied phase:rph
@alice /asl level side:Axis level:2
@bob /game confirm entry:6
/game notices on:false
/game log
"""


def test_each_log_entry_says_its_effect(tmp_path: Path) -> None:
    """Regression: the log read `#5: you: /asl phase`, `#4: you: /asl unit add`."""
    run = referee("console", "-", "--db", str(tmp_path / "g.db"), stdin=GAME)
    assert run.returncode == 0, run.stdout
    log = run.stdout.split("Hill 621: log entries #1–#8 of 8\n")[1].splitlines()
    assert log == [
        "  #1: you: /game new → asl game: Axis, Allied",
        "  #2: alice: /game seat → Axis seat: alice",
        "  #3: bob: /game seat → Allied seat: bob",
        "  #4: you: /asl unit add → A1: German squad 4-6-7",
        "  #5: you: /asl phase → Rally Phase of Allied — Player Turn 1 begins",
        "  #6: alice: proposes /asl level side:Axis level:2",
        "  #7: bob: /asl level → Axis: Ammunition Shortage level 2 … (proposal #6 confirmed)",
        "  #8: you: /game notices → turn notices off",
    ]


async def _entries(script: Script, workdir: Path) -> list[dict[str, Any]]:
    database = workdir / "game.db"
    repo = await open_repository(database)
    try:
        reproducible = Reproducible("console", script.salt)
        service = GameService(
            repo,
            script=FaceScript(script.dice) if script.dice is not None else None,
            clock=reproducible.clock,
            seeds=reproducible.seed,
            game_ids=reproducible.game_id,
        )
        options = ConsoleOptions(database=database, user=script.user, export_dir=workdir)
        console = Console(
            service, build_registry(service.systems), options, io.StringIO(), reproducible
        )
        await console.run(script.lines)
        return [
            entry.data()
            for game in await repo.games_in_guild(CONSOLE_GUILD)
            for entry in await repo.entries(game.id)
        ]
    finally:
        await repo.close()


def test_every_entry_of_the_games_and_the_docs_says_what_it_did(tmp_path: Path) -> None:
    """Every system's and every table command's entry in the suite's games and the docs'
    console sessions has an effect after its command (proposals, voids, declines and rolls say
    theirs in their own words)."""
    own_words = {"roll", "game.void", "game.decline", "game.propose", "game.cancel", "declared"}
    own_words |= set(CLOCK_SUMMARIES)  # the deadlines' entries: "bob: deadline 48 h", …
    own_words |= {"game.result", "game.dispute", "game.ruling"}  # "ben: disputes the result of …"
    silent: list[str] = []
    kinds: set[str] = set()
    for number, script in enumerate(s for s in scripts() if s.salt == "0"):
        for entry in asyncio.run(_entries(script, tmp_path / str(number))):
            kind = entry["resolves"] if entry["kind"] == "resolved" else entry["kind"]
            kinds.add(entry["action"]["action"] if kind == "action" else kind)
            line = entry_line(entry)
            effect = line.partition(" → ")[2]
            if kind not in own_words and (not effect.strip() or effect.startswith("[")):
                silent.append(f"{script.name}: #{entry['seq']} {line}")
    assert not silent, "\n".join(silent)
    # the games and sessions reach commands of every system and the table's writes
    for kind in ("asl.phase", "asl.unit.add", "ocs.phase", "cwb.params", "game.seat", "game.end"):
        assert kind in kinds
