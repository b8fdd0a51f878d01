"""Every check docs/TRUST.md and docs/EXPORT.md say the verifiers make is run here: each row of
TRUST.md's table *What each verifier proves* and each bullet of EXPORT.md's *Reading an export
strictly* is matched with forgeries that the verifier named must refuse — and that the
standard-library checker accepts where the table says it does not check. A row or bullet
without forgeries fails, so a claim cannot be added without the test that runs it."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from bot.dice.beacon.games import BeaconConfig
from bot.dice.beacon.local import LocalChain, LocalRelay
from bot.log import verify_dice
from bot.log.signed import Anchor, check_hex
from bot.log.verify import verify_text
from tests.bot import test_deadline_forgery as deadlines
from tests.bot import test_results as results
from tests.bot import test_sealed_notes as notes
from tests.bot import test_verify_forgery as forgery
from tests.bot import test_verify_strict as strict
from tests.web import test_verifier_page as page

DOCS = Path(__file__).resolve().parents[2] / "docs"
Forgery = tuple[str, Sequence[str], Sequence[str]]
"""A forged export, and the keys and anchors it is checked with."""


class Games:
    """The honest games the forgeries are made from."""

    def __init__(self, tmp: Path) -> None:
        self.asl = asyncio.run(forgery.play(tmp / "asl.db", forgery.GAME))
        self.lines = asyncio.run(forgery.play(tmp / "lines.db", strict.LINES))
        self.key = json.loads(self.asl.split("\n")[0])["signature"]["key"]
        self.beacon = asyncio.run(_beacon_game(tmp / "beacon.db", end=True))
        self.beacon_active = asyncio.run(_beacon_game(tmp / "active.db", end=False))
        self.sealed = asyncio.run(_sealed_game(tmp / "sealed.db"))
        self.results = {
            name: asyncio.run(results.play(tmp / f"{name}.db", lines))
            for name, lines in (
                ("disputed", results.DISPUTED),
                ("confirmed", results.CONFIRMED),
                ("reseated", results.RESEATED),
            )
        }
        self.deadlines = asyncio.run(deadlines.play(tmp / "deadlines.db"))


async def _sealed_game(db: Path) -> str:
    table, _, text = await notes.play(db)
    await table.repo.close()
    return text


async def _beacon_game(db: Path, *, end: bool) -> str:
    relay = LocalRelay(LocalChain.new(period=1))
    await relay.start()
    try:
        # the relay answers in milliseconds, seconds under load: a round that comes is waited for
        config = BeaconConfig(chain=relay.info, relays=(relay.url,), timeout=3.0, patience=30.0)
        return await page.play(db, beacon=config, end=end)
    finally:
        await relay.stop()


def resolution(edit: Callable[[dict[str, Any]], None]) -> Callable[[list[dict[str, Any]]], None]:
    def change(entries: list[dict[str, Any]]) -> None:
        edit(next(e for e in entries if e["kind"] == "resolved"))

    return change


def later_round(entry: dict[str, Any]) -> None:
    entry["beacon"]["round"] += 1


def other_chain(entry: dict[str, Any]) -> None:
    beacon = LocalChain.new(period=1).beacon(entry["beacon"]["round"])
    entry["beacon"]["signature"] = beacon.signature.hex()
    entry["beacon"]["randomness"] = beacon.randomness.hex()


def another_game(entries: list[dict[str, Any]]) -> None:
    entries[2]["game"] = "0" * 32


def outcome(entries: list[dict[str, Any]]) -> None:
    action = next(e for e in entries if e["kind"] == "action" and e["outcome"]["steps"])
    action["outcome"]["steps"][0]["text"] += " (forged)"


def face(entries: list[dict[str, Any]]) -> None:
    roll = next(e for e in entries if e["kind"] == "roll")
    colored = roll["dice"][0]["face"] % 6 + 1
    roll["dice"][0]["face"] = colored
    faces = roll["rolls"][0]["faces"] = [colored, roll["rolls"][0]["faces"][1]]
    roll["total"], roll["text"] = sum(faces), f"DR {sum(faces)} ({faces[0]},{faces[1]})"


def long_reason(entries: list[dict[str, Any]]) -> None:
    roll = next(e for e in entries if e["kind"] == "roll")
    old, new = roll["reason"], "x" * 101
    roll["reason"] = new
    for item in (*roll["dice"], *roll["rolls"]):
        item["label"] = item["label"].replace(old, new, 1)


def claims_of_trust(games: Games) -> dict[str, tuple[list[Forgery], bool]]:
    """Each row of *What each verifier proves* (its first words): forgeries, and whether the
    standard-library checker refuses them too."""
    asl, lines, key = games.asl, games.lines, games.key
    reseal = forgery.reseal
    digest = json.loads(asl.split("\n")[3])["hash"]
    anchor = f"#3 · {'0' if digest[0] != '0' else '1'}{digest[1:8]}"  # not what the bot posted
    return {
        "the chain:": (
            [
                (reseal(asl, another_game), (), ()),
                (asl.replace("Forgery test", "Forgery tost", 1), (), ()),
            ],
            True,
        ),
        "the header says": ([(forgery.HEADER_FORGERIES["the header's title"](asl), (), ())], True),
        "every die of a revealed seed": ([(reseal(asl, face), (), ())], True),
        "no scripted die": ([(reseal(asl, forgery.dr_to_snake_eyes), (), ())], True),
        "what is shown beside the dice": (
            [(reseal(asl, forgery.roll_text), (), ()), (reseal(asl, forgery.roll_detail), (), ())],
            True,
        ),
        "strict reading:": ([(reseal(asl, strict.as_bool_or_float), (), ())], True),
        "who declared each entry": (
            [
                (reseal(lines, strict.by_player(6, forgery.ALICE, drop_sides=False)), (), ()),
                # a proposal carried out after it lapsed (its proposer gave up the seat)
                (
                    reseal(games.results["reseated"], results.confirmed_after_its_proposer_left),
                    (),
                    (),
                ),
            ],
            True,
        ),
        "nobody holding a seat acted alone": (
            [
                (reseal(games.results[name], forge), (), ())
                for name, forges in results.FORGERIES.items()
                for forge in forges
            ],
            True,
        ),
        "sealed notes:": (
            [(reseal(games.sealed, edit), (), ()) for edit in notes.FORGERIES.values()],
            True,
        ),
        "deadlines:": (
            [(reseal(games.deadlines, edit), (), ()) for edit in deadlines.FORGERIES.values()],
            True,
        ),
        "every ruling:": ([(reseal(asl, outcome), (), ())], False),
        "a beacon game: declarations": (
            [(reseal(games.beacon, resolution(later_round)), (), ())],
            True,
        ),
        "a beacon game: each round's BLS signature": (
            [(reseal(games.beacon_active, resolution(other_chain)), (), ())],
            False,
        ),
        "the export's signature": ([(reseal(asl, forgery.roll_text), [key], ())], True),
        "the anchors given": ([(asl, (), [anchor])], True),
    }


def trust_rows() -> list[tuple[str, str, str]]:
    text = (DOCS / "TRUST.md").read_text(encoding="utf-8")
    section = text.split("## What each verifier proves", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0] and not set(cells[0]) <= {"-"}:
            rows.append((cells[0], cells[1], cells[2]))
    return rows


def export_bullets() -> list[str]:
    text = (DOCS / "EXPORT.md").read_text(encoding="utf-8")
    section = text.split("## Reading an export strictly", 1)[1].split("\n## ", 1)[0]
    return [" ".join(b.split()) for b in section.split("\n- ")[1:]]


def claims_of_export(games: Games) -> dict[str, list[str]]:
    """Each bullet of *Reading an export strictly* (its first words): forged exports."""
    lines, asl, reseal = games.lines, games.asl, forgery.reseal
    return {
        "a line that is not its own canonical JSON": [
            strict.LINE_EDITS["a line that is not canonical JSON"](lines),
            strict.LINE_EDITS["a key given twice"](lines),
            strict.LINE_EDITS["a float written 6.0"](lines),
            reseal(lines, strict.as_bool_or_float),
            reseal(lines, strict.sequence_as_text),
        ],
        "a header whose `format`, `version` or `dice`": [
            strict.LINE_EDITS["a header of format version 3"](lines),
            strict.LINE_EDITS["an unknown dice derivation"](lines),
            strict.LINE_EDITS["a beacon derivation for a server game"](lines),
            reseal(lines, strict.entry_version),
        ],
        "an `at` that is not ISO 8601": [
            reseal(lines, strict.ENTRY_EDITS["a time that is not a time"]),
            reseal(lines, strict.ENTRY_EDITS["a date that does not exist"]),
            reseal(lines, strict.ENTRY_EDITS["an entry written before the one before it"]),
        ],
        "an `interaction` id used by two entries": [reseal(lines, strict.same_interaction)],
        "in entries of version 2:": [
            reseal(lines, strict.by_player(5, forgery.BOB, drop_sides=True)),
            reseal(asl, long_reason),
        ],
    }


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> Games:
    return Games(tmp_path_factory.mktemp("claims"))


def standalone_refuses(text: str, keys: Sequence[str], anchors: Sequence[str]) -> bool:
    try:
        checker = verify_dice.Checker(verify_dice.split_lines(text))
        checker.run()
        checker.ties(list(keys), [Anchor.parse(a) for a in anchors], check_hex)
    except (verify_dice.Mismatch, KeyError, TypeError, ValueError, IndexError, AttributeError):
        return True
    return False


def full_refuses(text: str, keys: Sequence[str], anchors: Sequence[str]) -> bool:
    systems = {**forgery.SYSTEMS, **page.SYSTEMS}  # the beacon games are the toy system's
    return not verify_text(text, systems, keys, [Anchor.parse(a) for a in anchors]).ok


def test_the_honest_games_pass_both(games: Games) -> None:
    for text in (
        games.asl, games.lines, games.beacon, games.beacon_active, games.sealed,
        *games.results.values(), games.deadlines,
    ):  # fmt: skip
        assert not standalone_refuses(text, [games.key] if text is games.asl else [], ())
        assert not full_refuses(text, (), ())


def test_every_row_of_what_each_verifier_proves_is_run(games: Games) -> None:
    claims = claims_of_trust(games)
    rows = trust_rows()
    assert len(rows) >= 10
    for claim, plain, full in rows:
        matched = [name for name in claims if claim.startswith(name)]
        assert len(matched) == 1, f"no forgery runs the claim {claim!r}"
        made, standalone_too = claims[matched[0]]
        assert full.startswith("yes"), claim  # referee verify makes every check the table lists
        assert plain.startswith("yes") == standalone_too, claim
        for text, keys, anchors in made:
            assert full_refuses(text, keys, anchors), claim
            assert standalone_refuses(text, keys, anchors) == standalone_too, claim


def test_every_bullet_of_reading_an_export_strictly_is_run(games: Games) -> None:
    claims = claims_of_export(games)
    bullets = export_bullets()
    assert len(bullets) == len(claims)
    for bullet in bullets:
        matched = [name for name in claims if bullet.startswith(name)]
        assert len(matched) == 1, f"no forgery runs the claim {bullet[:60]!r}"
        for text in claims[matched[0]]:
            assert full_refuses(text, (), ()) and standalone_refuses(text, (), ()), bullet
