"""The forgery suite's consistent rewrites: what a forger makes once the seed is public.

A die depends only on the seed, the game, the players' mix, its number and its size — not on the
action, nor on where it sits in the log. So after ``/game end`` anyone can play the game again
with an option changed, an entry deleted, two swapped, one inserted, a seed phrase slipped in (a
re-roll), or another seed and commitment, and get a file whose every hash, die and ruling agrees:
here the forger is the bot's own code, run on another database with the honest game's public
sources (its game id, its seed once revealed, its times, its interaction ids). Without a key or an
anchor each verifier can only say that such a file is consistent — and says so. The bot's
signature catches every one (the forger does not hold the bot's key), and so does any anchor the
bot posted after the change (docs/TRUST.md).
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.commands import Request, build_registry, execute, parse_line
from bot.console import console_user
from bot.log import verify_dice
from bot.log.export import export_game
from bot.log.verify import Anchor, verify_text
from bot.models import Actor
from bot.service.game_service import GameService
from bot.storage import open_repository
from tests.bot.test_verify_forgery import ALICE, BOB, PLACE, REF, SYSTEMS, standalone

Line = tuple[Actor, str]

GAME: list[Line] = [
    (REF, '/game new system:asl sides:"Axis,Allied" title:"Rewrites"'),
    (ALICE, "/game seat side:Axis"),
    (BOB, "/game seat side:Allied"),
    (REF, "/asl unit add name:A1 side:Axis kind:squad quality:4-6-7"),
    (REF, "/asl weapon add name:LMG side:Axis kind:sw_mg b:12 rof:1 owner:A1"),
    (REF, "/asl level side:Axis level:2"),
    (REF, "/asl phase phase:pfph side:Axis"),
    (ALICE, "/asl fire weapons:LMG"),
    (ALICE, '/roll dice:DR reason:"Morale Check"'),
    (BOB, '/roll dice:DR reason:"Sniper check"'),
    (ALICE, "/roll dice:2d6"),
    (REF, "/game end"),
]


def replace(index: int, line: Line) -> list[Line]:
    return [*GAME[:index], line, *GAME[index + 1 :]]


REWRITES: dict[str, tuple[list[Line], str, int]] = {
    "an option changed (the fire's drm)": (
        replace(7, (ALICE, "/asl fire weapons:LMG drm:-2")),
        "honest",
        8,
    ),
    "a roll's expression changed (DR to DR+2)": (
        replace(8, (ALICE, '/roll dice:DR+2 reason:"Morale Check"')),
        "honest",
        9,
    ),
    "an entry deleted (a bad Morale Check)": ([*GAME[:8], *GAME[9:]], "honest", 9),
    "two entries swapped (who got which dice)": (
        [*GAME[:8], GAME[9], GAME[8], *GAME[10:]],
        "honest",
        9,
    ),
    "an entry inserted": (
        [*GAME[:8], (ALICE, "/roll dice:dr reason:extra"), *GAME[8:]],
        "honest",
        9,
    ),
    "a re-roll by a seed phrase slipped in": (
        [*GAME[:8], (ALICE, '/game seed phrase:"once more"'), *GAME[8:]],
        "honest",
        9,
    ),
    "seed and commitment replaced": (GAME, "forged", 1),
}
"""Each rewrite: the lines the forger plays, the seed they use, the first entry that differs."""


def sources(seed_text: str) -> tuple[Callable[[], str], Callable[[], bytes], Callable[[], str]]:
    """The public sources of a game: its clock, its seeds (secret until revealed; a
    ``seed_text`` other than the honest one makes a forger's own seed) and its game id."""
    ticks, draws = itertools.count(), itertools.count()
    start = datetime(2026, 11, 23, 20, 0, tzinfo=UTC)

    def clock() -> str:
        return (start + timedelta(seconds=next(ticks))).isoformat(timespec="milliseconds")

    def seeds() -> bytes:
        return hashlib.sha256(f"{seed_text} {next(draws)}".encode()).digest()

    return clock, seeds, lambda: "5eed" * 8


async def play(db: Path, lines: list[Line], seed_text: str = "honest") -> tuple[str, str]:
    """The game's export, and the public key of the database that made it."""
    repo = await open_repository(db)
    try:
        clock, seeds, game_ids = sources(seed_text)
        service = GameService(repo, SYSTEMS, clock=clock, seeds=seeds, game_ids=game_ids)
        registry = build_registry(service.systems)
        for number, (actor, text) in enumerate(lines):
            words, options = parse_line(text)
            request = Request(PLACE, actor, f"line-{number}", words, options)
            await execute(service, request, registry, console_user)
        row = await repo.latest_game(PLACE.guild_id, PLACE.channel_id)
        assert row is not None
        return await export_game(repo, row), await service.signing_key()
    finally:
        await repo.close()


@pytest.fixture(scope="module")
def honest(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    return asyncio.run(play(tmp_path_factory.mktemp("honest") / "game.db", GAME))


@pytest.fixture(scope="module")
def forged(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    made = {}
    for what, (lines, seed_text, _) in REWRITES.items():
        text, _ = asyncio.run(play(tmp_path_factory.mktemp("forger") / "game.db", lines, seed_text))
        made[what] = text
    return made


def hashes(text: str) -> dict[int, str]:
    entries = [json.loads(line) for line in verify_dice.split_lines(text)[1:]]
    return {e["seq"]: e["hash"] for e in entries}


def anchor_after_the_change(honest: str) -> str:
    """What the bot posted under the honest game's last entry: ``#12 · 3f9a2c71``."""
    seq, digest = max(hashes(honest).items())
    return f"#{seq} · {digest[:8]}"


def with_signature_of(text: str, signed: str) -> str:
    """``text`` with the header signature of ``signed`` copied in (a forger's other try)."""
    lines = text.split("\n")
    header = json.loads(lines[0])
    header["signature"] = json.loads(signed.split("\n")[0])["signature"]
    lines[0] = verify_dice.canonical(header)
    return "\n".join(lines)


def test_the_honest_game_is_signed_and_anchored(honest: tuple[str, str]) -> None:
    text, key = honest
    report = verify_text(text, SYSTEMS, [key], [Anchor.parse(anchor_after_the_change(text))])
    assert report.ok, report.message
    assert report.message.split("\n")[1].startswith(f"Signed by the key given ({key[:16]}…)")
    assert "The anchors given prove that entries 1–12 are the ones the bot posted." in (
        report.message
    )


@pytest.mark.parametrize("what", list(REWRITES))
def test_a_consistent_rewrite_is_consistent_and_the_verdict_says_no_more(
    honest: tuple[str, str], forged: dict[str, str], tmp_path: Path, what: str
) -> None:
    text, changed = forged[what], REWRITES[what][2]
    assert text != honest[0]
    if changed > 1:
        assert hashes(text)[changed - 1] == hashes(honest[0])[changed - 1]
    assert hashes(text)[changed] != hashes(honest[0])[changed]
    report = verify_text(text, SYSTEMS)
    assert report.ok, report.message  # nothing in the file itself tells it from the honest one
    assert "It proves only its own consistency" in report.message
    run = standalone(text, tmp_path)
    assert run.returncode == 0 and "It proves only its own consistency" in run.stdout


@pytest.mark.parametrize("what", list(REWRITES))
def test_a_consistent_rewrite_is_rejected_by_the_bots_signature(
    honest: tuple[str, str], forged: dict[str, str], tmp_path: Path, what: str
) -> None:
    key = honest[1]
    for text in (forged[what], with_signature_of(forged[what], honest[0])):
        report = verify_text(text, SYSTEMS, [key])
        assert not report.ok and report.seq == 0, report.message
        assert "signed by the key given" in report.message or "does not hold" in report.message
        path = tmp_path / "forged.jsonl"
        path.write_text(text, encoding="utf-8")
        run = standalone_with(path, "--key", key)
        assert run.returncode == 1 and run.stdout.startswith("MISMATCH at entry 0:"), run.stdout


@pytest.mark.parametrize("what", list(REWRITES))
def test_a_consistent_rewrite_is_rejected_by_an_anchor_taken_after_it(
    honest: tuple[str, str], forged: dict[str, str], tmp_path: Path, what: str
) -> None:
    anchor = anchor_after_the_change(honest[0])
    report = verify_text(forged[what], SYSTEMS, anchors=[Anchor.parse(anchor)])
    assert not report.ok, report.message
    path = tmp_path / "forged.jsonl"
    path.write_text(forged[what], encoding="utf-8")
    run = standalone_with(path, "--anchor", anchor)
    assert run.returncode == 1 and run.stdout.startswith("MISMATCH at entry"), run.stdout


def test_an_anchor_before_the_change_does_not_catch_it_and_the_verdict_says_so(
    honest: tuple[str, str], forged: dict[str, str]
) -> None:
    seq = REWRITES["an entry inserted"][2] - 1
    anchor = Anchor.parse(f"{seq}:{hashes(honest[0])[seq][:8]}")
    report = verify_text(forged["an entry inserted"], SYSTEMS, anchors=[anchor])
    assert report.ok, report.message
    assert (
        f"The anchors given prove that entries 1–{seq} are the ones the bot posted; nothing ties "
        f"entries #{seq + 1}–#" in report.message
    )


def test_the_commitment_posted_at_game_new_catches_a_replaced_seed(
    honest: tuple[str, str], forged: dict[str, str]
) -> None:
    commitment = json.loads(honest[0].split("\n")[1])["commitment"]
    text = forged["seed and commitment replaced"]
    report = verify_text(text, SYSTEMS, anchors=[Anchor.parse(commitment)])
    assert not report.ok and "dice commitment" in report.message, report.message
    fine = verify_text(honest[0], SYSTEMS, anchors=[Anchor.parse(commitment)])
    assert fine.ok and "the dice of epoch 1 come from the seed it committed to" in fine.message


def standalone_with(path: Path, *args: str) -> Any:
    import subprocess
    import sys

    from tests.bot.test_verify_forgery import ROOT

    return subprocess.run(
        [sys.executable, "-I", str(ROOT / "bot" / "log" / "verify_dice.py"), str(path), *args],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
