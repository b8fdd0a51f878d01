"""Every command's largest reply fits Discord: rendered as the bot sends it (the embed, its
buttons, the mention, the files) and checked against Discord's limits per message
(``tests/fake_discord/limits.py``, the fake Discord's own checks).

The cases are built to be large on purpose: names of 80 characters (the longest a new thing may
have), a fire group of ten MGs and ten squads all malfunctioning (every DR boxcars), the log of
a long game, every proposal, the longest scenario ``/game setup`` takes, exports and statistics
of many dice, long roll batches and pools, every refusal. Then every command that none of them
used runs once with its ``/help`` example, so a new command is checked the day it is declared.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import discord
import pytest

from bot.commands.help import example
from bot.commands.registry import Request, build_registry, execute, split_line
from bot.console import console_file, console_user
from bot.console.session import ConsoleOptions, console_place
from bot.dice.game_dice import FaceScript
from bot.discord_ui.handler import DiscordHandler, reply_files
from bot.errors import UserError
from bot.models import Actor, Reply
from bot.service.game_service import GameService
from bot.service.systems import InstalledSystems
from bot.storage import open_repository
from rules_core.errors import RulesError
from tests.fake_discord.limits import check_message

ROOT = Path(__file__).resolve().parents[2]
GAMES = ROOT / "tests" / "bot" / "games"
MAX_FILES = 10
MAX_UPLOAD = 10 * 1024 * 1024


def name(kind: str, number: int) -> str:
    """A name of 80 characters, the longest a new thing may have."""
    return f"{kind} {number:02d} ".ljust(80, "x")


def quoted(names: Iterator[str] | list[str]) -> str:
    return '"' + ", ".join(names) + '"'


def asl_lines() -> list[str]:
    """An ASL game whose replies are as large as play makes them."""
    squads = [name("Squad", i) for i in range(10)]
    guns = [name("MG", i) for i in range(10)]
    lines = [
        '/game new system:asl title:"' + "T" * 100 + '"',
        "/game seat side:Axis",
        "@bob /game seat side:Allied",
        "/game referee add user:@carol",
        "@bob /asl level side:Axis level:3",  # a proposal of the other side
        *(f'/asl unit add name:"{s}" side:Axis kind:squad quality:4-6-7' for s in squads),
        *(
            f'/asl weapon add name:"{g}" side:Axis kind:sw_mg b:12 rof:3 repair:6 owner:"{s}"'
            for g, s in zip(guns, squads, strict=True)
        ),
        '/asl unit add name:"' + name("Leader", 1) + '" side:Axis kind:leader quality:9-2',
        "/asl phase phase:pfph side:Axis",
        f"/asl fire weapons:{quoted(guns[:2])} units:{quoted(squads[:2])} preview:true",
        f"/asl fire weapons:{quoted(guns)} units:{quoted(squads)}",
        "/asl weapon list",
        *(f'/asl repair weapon:"{g}" preview:true' for g in guns[:1]),
        "/asl phase",
        "/asl phase",
        "/asl phase",
        "/asl phase",
        "/asl phase",
        "/asl phase",  # the Rally Phase: repairs
        *(f'/asl repair weapon:"{g}"' for g in guns[:1]),
        "/asl phase",  # the Prep Fire Phase: a Final KIA comes from a fire phase (A9.74)
        f"/asl weapon kia weapons:{quoted(guns[:2])} kia:2 k:3 preview:true",
        f"/asl weapon kia weapons:{quoted(guns)} kia:2 k:3",
        '/roll dice:"20 DR" reason:"' + "R" * 100 + '"',
        '/roll dice:"100d6" reason:"' + "R" * 100 + '"',
        '/roll dice:"5 20d6k10" reason:"' + "R" * 100 + '"',
        "/roll dice:3d6 preview:true",
        "/roll dice:4d6k3 preview:true",
        "/roll dice:DR category:MC count:20",
        "/stats",
        "/stats scope:server",
        "/game status",
        "/game log last:50",
        "/game forces",
        "/game times scope:server",
        "/game list",
        '/game void entry:30 reason:"' + "V" * 200 + '"',
        '/game seed phrase:"' + "P" * 200 + '"',
        "/game export page:true",
        "/game notices on:false",
        "/game board",
        "/game rotate",
    ]
    return lines


def setup_lines() -> list[str]:
    """The longest scenario /game setup takes, proposed by a player and listed whole."""
    commands = ";".join(
        f'unit add name:"{name("Squad", i)[:70]}{i:03d}" side:Allied kind:squad quality:4-4-7'
        for i in range(500)
    )
    return [
        "/game new system:asl",
        "/game seat side:Axis",
        "@bob /game seat side:Allied",
        "/game referee add user:@carol",
        f"@bob /game setup text:'{commands}'",
        "/game confirm entry:5",
        "/game log",
        "/game forces",
        "/game status",
    ]


def game_lines(path: Path) -> list[str]:
    return [line for line in path.read_text().splitlines() if line and not line.startswith("#")]


@dataclass
class Checked:
    """What the test ran and checked."""

    commands: set[str] = field(default_factory=set)
    replies: int = 0
    refusals: list[str] = field(default_factory=list)
    largest: int = 0


def payload(reply: Reply, path: tuple[str, ...], options: dict[str, Any]) -> dict[str, Any]:
    """The message the bot sends for ``reply``, as Discord receives it."""
    embed, view = DiscordHandler._render(reply, path, options)
    body: dict[str, Any] = {"embeds": [embed.to_dict()]}
    if view is not discord.utils.MISSING:
        body["components"] = view.to_components()
    if reply.notice and reply.mention is not None:
        body["content"] = f"<@{reply.mention.id}>, {reply.notice.partition(', ')[2]}"
    return body


async def run(service: GameService, lines: list[str], channel: str, checked: Checked) -> None:
    registry = build_registry(service.systems)
    place = console_place(ConsoleOptions(database="", channel=channel))
    for number, line in enumerate(lines, start=1):
        who, text = ("you", line)
        if line.startswith("@"):
            who, _, text = line.partition(" ")
        try:
            words, values = split_line(text)
            spec, values = registry.resolve(words, values)
            checked.commands.add(spec.path)
            user = console_user(who)
            actor = Actor(user_id=user.id, name=user.name, is_admin=False)
            request = Request(place, actor, f"{channel}:{number}", spec.words, values)
            reply = await execute(service, request, registry, console_user, console_file)
        except (UserError, RulesError) as exc:
            checked.refusals.append(f"{line[:60]}: {exc.user_message}")
            check_message({"content": exc.user_message})  # the tree answers with the sentence
            continue
        body = payload(reply, spec.words, dict(values))
        try:
            check_message(body)
        except ValueError as exc:
            raise AssertionError(f"{channel} line {number} ({line[:80]}…): {exc}") from None
        files = reply_files(reply)
        assert len(files) <= MAX_FILES
        assert sum(len(f.fp.read()) for f in files) <= MAX_UPLOAD
        checked.replies += 1
        size = len(str(body))
        checked.largest = max(checked.largest, size)


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[GameService]:
    repo = await open_repository(tmp_path / "largest.db")
    yield GameService(repo, InstalledSystems(), script=FaceScript([6] * 20000))
    await repo.close()


async def test_every_commands_largest_reply_fits_discord(service: GameService) -> None:
    checked = Checked()
    await run(service, asl_lines(), "asl", checked)
    await run(service, setup_lines(), "setup", checked)
    for game in ("asl", "ocs", "cwb"):
        await run(service, game_lines(GAMES / f"{game}.txt"), f"game-{game}", checked)
    registry = build_registry(service.systems)
    missing = sorted(set(registry.commands) - checked.commands)
    systems = {"asl": "asl", "ocs": "ocs", "cwb": "cwb"}
    for path in missing:  # every other command at least once, with its /help example
        system = systems.get(path.split(".")[0], "asl")
        lines = [f"/game new system:{system}", "/game seat side:" + ("Axis")]
        await run(service, [*lines, example(registry.commands[path])], f"ex-{path}", checked)
    assert set(registry.commands) <= checked.commands
    assert checked.replies > 100, checked
    assert checked.largest > 3000, checked  # the cases are large indeed
