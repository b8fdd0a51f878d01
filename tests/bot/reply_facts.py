"""Reply facts against the state: no reply states an effect the state does not hold (issue 23).

The harness is generic. It plays the test suite's games (``tests/bot/games``) and every console
session of the docs through a real console on a fresh SQLite file, then walks each game's log:
every action is resolved again with its logged dice and each fact of its outcome — what the
reply shows after the arrow — is read against the state after it. How a fact maps to a state is
each system's word: a module ``tests/<system>/reply_facts.py`` with

    def problems(before, action, outcome) -> Iterable[str]

that yields one sentence per fact the state does not hold, and raises :class:`Unmapped` for a
fact it does not know (a new kind of fact must say how it is checked before it passes).
"""

from __future__ import annotations

import asyncio
import importlib
import io
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel

from bot.commands import build_registry
from bot.console import CONSOLE_GUILD, Console, ConsoleOptions, Reproducible
from bot.dice.game_dice import FaceScript
from bot.log.gamelog import rebuild_state, replay_action
from bot.service.game_service import GameService
from bot.storage import open_repository
from rules_core.outcome import Outcome
from rules_core.system import SYSTEM_NAMES, GameSystem, get_system
from tests.docs.examples import ROOT, doc_files, sessions

GAMES = ROOT / "tests" / "bot" / "games"
SALTS = 8
"""The suite's whole games play with real dice: each is played under this many seeds."""


class Unmapped(Exception):
    """A fact whose meaning for the state the system's reader does not know."""


class FactReader(Protocol):
    """A system's ``tests/<system>/reply_facts.py`` module."""

    def problems(self, before: Any, action: Any, outcome: Outcome[Any]) -> Iterable[str]: ...


@dataclass(frozen=True)
class Script:
    """A console script: where it comes from, its lines, its scripted dice (None: real dice)."""

    name: str
    lines: tuple[str, ...]
    dice: tuple[int, ...] | None
    user: str = "you"
    salt: str = "0"
    """Real dice: the salt of the run's seeds (each salt plays the game with other dice)."""


@dataclass(frozen=True)
class Finding:
    """A fact the state after its action does not hold (or a fact no reader knows)."""

    script: str
    system: str
    seq: int
    command: str
    problem: str

    def __str__(self) -> str:
        return f"{self.script}: {self.system} entry #{self.seq} ({self.command}): {self.problem}"


def scripts() -> list[Script]:
    """The suite's whole games and every console session of the docs."""
    found = [
        Script(
            f"tests/bot/games/{path.name} (seeds {salt})",
            tuple(path.read_text().splitlines()),
            None,
            "alice",
            str(salt),
        )
        for path in sorted(GAMES.glob("*.txt"))
        for salt in range(SALTS)
    ]
    for doc in doc_files():
        for session in sessions(doc):
            faces = tuple(int(f) for f in session.dice.replace(" ", "").split(",") if f)
            found.append(Script(session.name, session.commands, faces if faces else ()))
    return found


def reader(system: str) -> FactReader:
    """The system's fact reader, ``tests/<system>/reply_facts.py``."""
    module: FactReader = importlib.import_module(f"tests.{system}.reply_facts")
    return module


def _command(action: BaseModel) -> str:
    return "/" + str(getattr(action, "action", "?")).replace(".", " ")


def _check_game(
    script: str, system: GameSystem[Any, Any], entries: list[dict[str, Any]]
) -> Iterator[Finding]:
    read = reader(system.name)
    state: BaseModel | None = None
    voided: set[int] = set()
    for entry in entries:
        kind = entry["kind"]
        if kind == "resolved":
            kind = entry["resolves"]
        seq = int(entry["seq"])
        if kind == "game.new":
            state = system.new_state(tuple(entry["sides"]), dict(entry.get("options", {})))
        elif kind == "game.void":
            voided.add(int(entry["entry"]))
            state = rebuild_state(system, entries[: seq - 1], voided)
        elif kind == "action":
            assert state is not None
            outcome = replay_action(system, state, entry)
            action = system.parse_action(entry["action"])
            try:
                for problem in read.problems(state, action, outcome):
                    yield Finding(script, system.name, seq, _command(action), problem)
            except Unmapped as exc:
                yield Finding(script, system.name, seq, _command(action), f"unmapped fact {exc}")
            state = outcome.state


async def _play(script: Script, workdir: Path) -> list[Finding]:
    workdir.mkdir(parents=True, exist_ok=True)
    database = workdir / "game.db"
    repo = await open_repository(database)
    findings: list[Finding] = []
    try:
        # the console's own reproducible sources: a game with real dice plays the same every
        # run for the same salt, so a finding is never a matter of luck
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
        for game in await repo.games_in_guild(CONSOLE_GUILD):
            if game.system not in SYSTEM_NAMES:
                continue
            entries = [e.data() for e in await repo.entries(game.id)]
            findings.extend(_check_game(script.name, get_system(game.system), entries))
    finally:
        await repo.close()
    return findings


def watch(monkeypatch: Any, system: GameSystem[Any, Any]) -> None:
    """Make every ``system.run`` of a test check its reply's facts against its state.

    A system's rules tests then hold every outcome they resolve to the same standard as the
    games: a fact the state does not hold fails the test that resolved it.
    """
    original = system.run
    read = reader(system.name)

    def run(state: Any, action: Any, dice: Any) -> Outcome[Any]:
        outcome = original(state, action, dice)
        wrong = list(read.problems(state, action, outcome))
        assert not wrong, f"{_command(action)}: {wrong}"
        return outcome

    monkeypatch.setattr(system, "run", run)


def findings(script: Script, workdir: Path) -> list[Finding]:
    """Play ``script`` and read every action's facts against the state after it."""
    return asyncio.run(_play(script, workdir))


__all__ = [
    "FactReader",
    "Finding",
    "Script",
    "Unmapped",
    "findings",
    "reader",
    "scripts",
    "watch",
]
