"""/roll by category and in batches, the rules' notes on a roll, and /stats per category — the
real service on a real SQLite file, with real (unscripted) dice from a fixed seed."""

from __future__ import annotations

import hashlib

import pytest

from bot.log.verify import verify_lines
from bot.models import UserRef
from bot.service.game_service import GameService
from bot.storage import Repository
from bot.table import commands as gc
from rules_core.errors import InvalidInput
from tests.bot.conftest import ALICE, BOB, HERE, start_game
from tests.bot.toysystem import SYSTEM

SEED = hashlib.sha256(b"a fixed seed for the tests").digest()


@pytest.fixture
def fixed(repo: Repository) -> GameService:
    """Real dice, not scripted, from a known seed: the same faces every run."""
    return GameService(repo, {"toy": SYSTEM}, seeds=lambda: SEED, game_ids=lambda: "ab" * 16)


async def roll(service: GameService, key: str, **options: object) -> tuple[int, list[int]]:
    reply = await service.handle(HERE, ALICE, key, gc.RollDice.model_validate(options))
    assert reply.seq is not None
    return reply.seq, [d.face for d in reply.dice]


async def test_a_batch_is_one_entry_with_each_roll_reported_and_verifies(
    fixed: GameService,
) -> None:
    await start_game(fixed)
    reply = await fixed.handle(HERE, ALICE, "r1", gc.RollDice(category="ift", count=3))
    assert len(reply.rolls) == 3 and all(r.kind == "DR" for r in reply.rolls)
    assert all(r.label == "IFT DR" for r in reply.rolls)
    faces = [d.face for d in reply.dice]
    assert [d.label for d in reply.dice[:2]] == ["IFT DR (colored)", "IFT DR (white)"]
    totals = [faces[i] + faces[i + 1] for i in range(0, 6, 2)]
    assert dict(reply.fields)["Totals"] == ", ".join(map(str, totals))
    assert reply.title.startswith("IFT DR ")
    export = await fixed.handle(HERE, ALICE, "export", gc.GameExport())
    assert export.file is not None
    lines = export.file.content.decode().splitlines()
    entry = next(line for line in lines if '"kind":"roll"' in line)
    assert '"category":"IFT"' in entry and '"expression":"3 DR"' in entry
    assert verify_lines(lines, {"toy": SYSTEM}).ok


async def test_a_category_picks_its_usual_dice_and_an_explicit_one_wins(fixed: GameService) -> None:
    await start_game(fixed)
    rs = await fixed.handle(HERE, ALICE, "rs", gc.RollDice(category="RS"))
    assert [r.kind for r in rs.rolls] == ["dr"] and rs.rolls[0].label == "RS dr"
    own = await fixed.handle(HERE, ALICE, "own", gc.RollDice(category="Sniper check", dice="2d6"))
    assert [r.label for r in own.rolls] == ["Sniper check d6", "Sniper check d6"]
    plain = await fixed.handle(HERE, ALICE, "plain", gc.RollDice(dice="DR", reason="Morale"))
    assert plain.rolls[0].label == "Morale DR"  # no category: the reason labels, as before


@pytest.mark.parametrize(
    ("options", "problem"),
    [
        ({"dice": "3 DR", "count": 2}, "Give the batch once"),
        ({"category": "IFT; drop table"}, "Write a roll category with letters"),
        ({"dice": "21 DR"}, "Roll between 1 and 20 at once"),
        ({"category": "x" * 21}, "Keep a roll category to 20 characters"),
        ({"dice": "20 30d6"}, "at most 100 dice"),
    ],
)
async def test_bad_categories_and_batches_are_refused_and_roll_nothing(
    fixed: GameService, options: dict[str, object], problem: str
) -> None:
    await start_game(fixed)
    with pytest.raises(InvalidInput, match=problem):
        await fixed.handle(HERE, ALICE, "bad", gc.RollDice.model_validate(options))
    status = await fixed.handle(HERE, ALICE, "status", gc.GameStatus())
    assert dict(status.fields)["Next die"] == "#1"


async def test_statistics_per_category_and_per_player(fixed: GameService) -> None:
    await start_game(fixed)
    await fixed.handle(HERE, ALICE, "a", gc.RollDice(category="IFT", count=5))
    await fixed.handle(HERE, ALICE, "b", gc.RollDice(category="RS", count=4))
    await fixed.handle(HERE, BOB, "c", gc.RollDice(category="IFT", count=2))
    ift = await fixed.handle(HERE, ALICE, "s1", gc.Stats(category="ift"))
    assert ift.title == "IFT dice of everyone in this channel"
    assert [sum(s.counts) for s in ift.stats] == [14]  # 7 DR, two dice each
    bobs = await fixed.handle(
        HERE, ALICE, "s2", gc.Stats(category="IFT", player=UserRef(id=2, name="bob"))
    )
    assert [sum(s.counts) for s in bobs.stats] == [4]
    every = await fixed.handle(HERE, ALICE, "s3", gc.Stats())
    lines = dict(every.fields)["By category"].splitlines()
    assert [line.split(":")[0] for line in lines] == ["IFT", "RS"]
    assert lines[0].startswith("IFT: 7 DR, mean ") and lines[1].startswith("RS: 4 dr, mean ")


async def test_category_autocomplete_offers_the_standard_categories(fixed: GameService) -> None:
    assert await fixed.autocomplete(HERE, "category", "") == [
        "IFT", "TH", "TK", "MC", "Rally", "CC", "TC", "SA", "RS",
    ]  # fmt: skip
    assert await fixed.autocomplete(HERE, "category", "t") == ["IFT", "TH", "TK", "TC"]
