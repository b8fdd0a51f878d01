"""Defects a first evening found (issue 16), each pinned by a test that failed before its fix.

* after ``/game end`` a command said "no game here" while ``/game status`` showed the ended game;
* side names had no length limit (150 characters accepted, then side autocomplete had nothing);
* autocomplete of a list option offered names already in the list;
* ``make run`` without a token suggested ``referee console``, which is not on the PATH;
* the console did not understand ``quit`` / ``exit``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.discord_ui.appcommands import _autocomplete as autocomplete_for
from bot.discord_ui.appcommands import option_specs
from bot.errors import NoGameHere
from bot.service.game_service import GameService
from bot.service.systems import InstalledSystems
from bot.storage import Repository, open_repository
from bot.table import commands as gc
from bot.table.new import MAX_SIDE_NAME
from rules_core.asl.actions import AddWeapon, Fire
from rules_core.errors import InvalidInput
from tests.bot.conftest import ALICE, BOB, HERE, end_game, start_game
from tests.bot.toysystem import Shoot

ROOT = Path(__file__).resolve().parents[2]


# --- after /game end ---------------------------------------------------------------------------


async def test_after_the_game_ends_a_command_says_so_and_how_to_start_the_next(
    service: GameService,
) -> None:
    await start_game(service)
    await end_game(service)
    status = await service.handle(HERE, BOB, "status", gc.GameStatus())
    assert ("Status", "ended") in status.fields
    for number, command in enumerate((gc.RollDice(dice="DR"), Shoot(side="Allied"))):
        with pytest.raises(NoGameHere) as caught:
            await service.handle(HERE, BOB, f"after-{number}", command)
        message = caught.value.user_message
        assert 'The game in this channel, "Toy Wargame game", has ended' in message
        assert "/game new" in message and "/game status" in message
    # a channel that never had a game still says there is none
    elsewhere = HERE.model_copy(update={"channel_id": 999})
    with pytest.raises(NoGameHere, match="There is no game in this channel"):
        await service.handle(elsewhere, BOB, "none", gc.RollDice(dice="DR"))
    # and the next game starts as the message says
    await service.handle(HERE, ALICE, "next", gc.GameNew(system="toy"))
    assert (await service.handle(HERE, ALICE, "roll", gc.RollDice(dice="dr"))).seq == 2


# --- side names: a limit, refused in one sentence ------------------------------------------------


async def test_a_side_name_longer_than_the_limit_is_refused(
    service: GameService, repo: Repository
) -> None:
    long = "A" * 150
    with pytest.raises(InvalidInput) as caught:
        await service.handle(HERE, ALICE, "n1", gc.GameNew(system="toy", sides=(long, "B")))
    assert caught.value.user_message == (
        f"A side's name may be at most {MAX_SIDE_NAME} characters; {'A' * 20}… has 150."
    )
    assert await repo.active_game(HERE.guild_id, HERE.channel_id) is None
    longest = "B" * MAX_SIDE_NAME
    await service.handle(HERE, ALICE, "n2", gc.GameNew(system="toy", sides=(longest, "C")))
    assert await service.autocomplete(HERE, "side", "bbb") == [longest]


# --- autocomplete of a list option ---------------------------------------------------------------


@pytest.fixture
async def asl(tmp_path: Path) -> AsyncIterator[GameService]:
    repo = await open_repository(tmp_path / "asl.db")
    service = GameService(repo, InstalledSystems())
    await service.handle(HERE, ALICE, "g", gc.GameNew(system="asl"))
    for number, name in enumerate(("MMG", "HMG", "LMG")):
        weapon = AddWeapon(name=name, side="Axis", kind="sw_mg")
        await service.handle(HERE, ALICE, f"w{number}", weapon)
    yield service
    await repo.close()


async def test_a_list_option_does_not_offer_the_names_already_in_it(asl: GameService) -> None:
    async def names(interaction: Any, kind: str, typed: str) -> list[str]:
        return await asl.autocomplete(HERE, kind, typed)

    spec = next(s for s in option_specs(Fire) if s.name == "weapons")
    complete = autocomplete_for(spec, names)
    offered = [choice.value for choice in await complete(None, "LMG, ")]  # type: ignore[arg-type]
    assert offered == ["LMG, MMG", "LMG, HMG"]
    offered = [c.value for c in await complete(None, "hmg, lmg, m")]  # type: ignore[arg-type]
    assert offered == ["hmg, lmg, MMG"]
    assert await complete(None, "MMG, HMG, LMG, ") == []  # type: ignore[arg-type]
    first = [c.value for c in await complete(None, "")]  # type: ignore[arg-type]
    assert first == ["MMG", "HMG", "LMG"]


# --- the command line ----------------------------------------------------------------------------


def referee(*args: str, stdin: str = "", cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DISCORD_TOKEN", "REFEREE_DB")}
    env["DISCORD_TOKEN"] = ""
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        input=stdin, capture_output=True, text=True, env=env, cwd=cwd, timeout=180,
    )  # fmt: skip


def test_without_a_token_the_console_hint_is_a_command_that_runs_here() -> None:
    run = referee("run")
    assert run.returncode == 2
    hint = run.stderr.split("without Discord", 1)[1]
    commands = [line.split("(")[0].strip() for line in hint.splitlines() if line.strip()]
    assert commands and all(not c.startswith("referee ") for c in commands), commands
    assert "make console" in commands
    dry = subprocess.run(
        ["make", "-n", "console"], capture_output=True, text=True, cwd=ROOT, timeout=180
    )
    assert dry.returncode == 0 and "referee console" in dry.stdout


@pytest.mark.parametrize("word", ["quit", "exit", "QUIT", "/quit", "/exit"])
def test_the_console_stops_at_quit_or_exit(word: str, tmp_path: Path) -> None:
    run = referee(
        "console", "-", "--db", str(tmp_path / "q.db"),
        stdin=f"/game new system:cwb\n{word}\n/game end\n", cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stderr == ""
    assert "New cwb game" in run.stdout
    assert "seed is revealed" not in run.stdout  # nothing after quit ran
    assert "line 2" not in run.stdout
