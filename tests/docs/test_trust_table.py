"""docs/TRUST.md's table *Which check catches which forgery* is run, row by row: each row's
forgery is made from one honest game, and exactly the checks the row names refuse it.

The checks, as the table defines them: **chain** — both verifiers refuse the file alone;
**replay** — ``referee verify`` refuses the file alone, the standard-library checker accepts it;
**anchor** — a verifier given an anchor the bot posted after the change refuses what it accepts
alone; **signature** — a verifier given the bot's key refuses what it accepts alone; **none** —
both accept it given the key and every anchor posted before the change.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from bot.log import verify_dice
from bot.log.signed import Anchor, check_hex
from bot.log.signing import signer
from bot.log.verify import verify_text
from bot.storage import open_repository
from tests.bot import test_consistent_rewrites as rewrites
from tests.bot.test_verify_forgery import ALICE, SYSTEMS, reseal

TRUST = Path(__file__).resolve().parents[2] / "docs" / "TRUST.md"
CHECKS = {"chain", "replay", "anchor", "signature", "none"}


def table() -> dict[str, set[str]]:
    """The rows of the table: forgery → the checks that catch it."""
    text = TRUST.read_text(encoding="utf-8")
    section = text.split("## Which check catches which forgery", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 2 and cells[0] not in ("forgery", "---"):
            rows[cells[0]] = {c.strip() for c in cells[1].split(",")}
    return rows


class Game:
    """The honest game (tests/bot/test_consistent_rewrites.py), its database and its key."""

    def __init__(self, tmp: Path) -> None:
        self.db = tmp / "honest" / "game.db"
        self.text, self.key = asyncio.run(rewrites.play(self.db, rewrites.GAME))
        self.tmp = tmp

    def forger(self, what: str) -> str:
        lines, seed_text, _ = rewrites.REWRITES[what]
        db = self.tmp / f"forger-{list(rewrites.REWRITES).index(what)}" / "game.db"
        return asyncio.run(rewrites.play(db, lines, seed_text))[0]

    def resigned(self, text: str) -> str:
        """``text`` signed with the bot's own key: what the operator, who holds it, can make."""

        async def sign() -> str:
            repo = await open_repository(self.db)
            try:
                key = await signer(repo)
            finally:
                await repo.close()
            lines = verify_dice.split_lines(text)
            header = json.loads(lines[0])
            head = header["head"]
            signature = key.sign_head(header["game"], head["seq"], head["hash"])
            header["signature"] = {"key": key.public_key, "sig": signature}
            return "\n".join([verify_dice.canonical(header), *lines[1:]]) + "\n"

        return asyncio.run(sign())


def entry(
    seq: int, edit: Callable[[dict[str, Any]], None]
) -> Callable[[list[dict[str, Any]]], None]:
    return lambda entries: edit(entries[seq - 1])


LEVEL = 6
"""The honest game's ``/asl level`` (set-up of both sides, by a referee): entry 6."""


def by_alice(downgrade: bool = False, sides: list[str] | None = None) -> Callable[..., None]:
    def edit(entries: list[dict[str, Any]]) -> None:
        entries[LEVEL - 1]["by"] = {"id": ALICE.user_id, "name": ALICE.name}
        if sides is None:
            del entries[LEVEL - 1]["sides"]
        else:
            entries[LEVEL - 1]["sides"] = sides
        if downgrade:
            for each in entries:
                each["v"] = 1

    return edit


def face(entries: list[dict[str, Any]]) -> None:
    """The Morale Check's colored die turned, its roll and text shown to match."""
    roll = next(e for e in entries if e["kind"] == "roll")
    colored = roll["dice"][0]["face"] % 6 + 1
    roll["dice"][0]["face"] = colored
    faces = roll["rolls"][0]["faces"] = [colored, roll["rolls"][0]["faces"][1]]
    roll["total"] = sum(faces)
    roll["text"] = f"DR {sum(faces)} ({faces[0]},{faces[1]})"


def outcome(entries: list[dict[str, Any]]) -> None:
    fire = next(e for e in entries if e["kind"] == "action" and e["action"]["action"] == "asl.fire")
    fire["outcome"]["steps"][0]["text"] += " (forged)"


def truncated(text: str) -> str:
    lines = verify_dice.split_lines(text)
    header = json.loads(lines[0])
    last = json.loads(lines[-2])
    header["head"] = {"seq": last["seq"], "hash": last["hash"]}
    header["status"] = "active"
    header.pop("signature")
    return "\n".join([verify_dice.canonical(header), *lines[1:-1]]) + "\n"


def forgeries(game: Game) -> dict[str, tuple[str, list[str]]]:
    """Each row's forgery, and the anchors posted that its forger faces (none listed: one the
    bot posted after the change)."""
    honest = game.text
    lines = honest.split("\n")
    roll = next(n for n, line in enumerate(lines) if '"kind":"roll"' in line)
    last_roll = next(n for n, line in enumerate(lines) if '"reason":"Sniper check"' in line)
    before_last = json.loads(lines[last_roll - 1])
    posted_before = [f"#{before_last['seq']} · {before_last['hash'][:8]}"]

    def reason(entries: list[dict[str, Any]]) -> None:
        """The reason rewritten, and with it every label that names it (dice and rolls)."""
        roll = entries[last_roll - 1]
        old, new = roll["reason"], "Sniper check, said later"
        roll["reason"] = new
        for item in (*roll["dice"], *roll["rolls"]):
            item["label"] = item["label"].replace(old, new, 1)

    return {
        "an entry edited without recomputing its hash": (
            honest.replace('"Morale Check"', '"Morale Chock"', 1),
            [],
        ),
        "an entry removed without recomputing the hashes": (
            "\n".join([*lines[:roll], *lines[roll + 1 :]]),
            [],
        ),
        "a die's face edited": (reseal(honest, face), []),
        "a revealed seed that is not the committed one": (
            reseal(honest, entry(len(lines) - 2, lambda e: e.update(revealed_seed="00" * 32))),
            [],
        ),
        "an action said to be a player's who does not hold all its sides, `sides` dropped": (
            reseal(honest, by_alice()),
            [],
        ),
        "the same, every entry claiming the older format where `sides` was optional": (
            reseal(honest, by_alice(downgrade=True)),
            [],
        ),
        "the same, `sides` rewritten to the side the player holds": (
            reseal(honest, by_alice(sides=["Axis"])),
            [],
        ),
        "an action's logged outcome edited": (reseal(honest, outcome), []),
        "the last entries removed, the header's head rewritten": (truncated(honest), []),
        "a roll's reason (free text) rewritten": (reseal(honest, reason), []),
        "an option changed, every later die and ruling recomputed": (
            game.forger("an option changed (the fire's drm)"),
            [],
        ),
        "an entry deleted, everything after it recomputed": (
            game.forger("an entry deleted (a bad Morale Check)"),
            [],
        ),
        "two entries swapped, everything after them recomputed": (
            game.forger("two entries swapped (who got which dice)"),
            [],
        ),
        "an entry inserted, everything after it recomputed": (game.forger("an entry inserted"), []),
        "a re-roll: a seed phrase slipped in, everything after it recomputed": (
            game.forger("a re-roll by a seed phrase slipped in"),
            [],
        ),
        "seed and commitment replaced, everything recomputed": (
            game.forger("seed and commitment replaced"),
            [],
        ),
        "the operator, holding the key, rewrites entries after the last anchor posted and signs": (
            game.resigned(reseal(honest, reason)),
            posted_before,
        ),
    }


def standalone_ok(text: str, keys: Sequence[str] = (), anchors: Sequence[str] = ()) -> bool:
    try:
        checker = verify_dice.Checker(verify_dice.split_lines(text))
        checker.run()
        checker.ties(list(keys), [Anchor.parse(a) for a in anchors], check_hex)
    except (verify_dice.Mismatch, KeyError, TypeError, ValueError, IndexError, AttributeError):
        return False
    return True


def full_ok(text: str, keys: Sequence[str] = (), anchors: Sequence[str] = ()) -> bool:
    return verify_text(text, SYSTEMS, list(keys), [Anchor.parse(a) for a in anchors]).ok


def caught_by(game: Game, text: str, posted: list[str]) -> set[str]:
    """Which checks refuse ``text``, as the table defines them; ``posted``: the anchors the bot
    posted that the forger could not change (default: one after the change)."""
    anchors = posted or [rewrites.anchor_after_the_change(game.text)]
    alone = (standalone_ok(text), full_ok(text))
    found = set()
    if not alone[0] and not alone[1]:
        found.add("chain")
    if alone[0] and not alone[1]:
        found.add("replay")
    if all(alone):
        if not (full_ok(text, anchors=anchors) and standalone_ok(text, anchors=anchors)):
            found.add("anchor")
        if not (full_ok(text, keys=[game.key]) and standalone_ok(text, keys=[game.key])):
            found.add("signature")
        given = ([game.key], anchors)
        if not found and full_ok(text, *given) and standalone_ok(text, *given):
            found.add("none")
    return found


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Game:
    return Game(tmp_path_factory.mktemp("trust"))


@pytest.fixture(scope="module")
def made(game: Game) -> dict[str, tuple[str, list[str]]]:
    return forgeries(game)


def test_the_table_names_known_checks_and_every_forgery_is_made(
    made: dict[str, tuple[str, list[str]]],
) -> None:
    rows = table()
    assert len(rows) >= 15
    assert all(checks <= CHECKS for checks in rows.values()), rows
    assert set(rows) == set(made), set(rows) ^ set(made)


@pytest.mark.parametrize("row", list(table()))
def test_each_forgery_is_caught_by_exactly_the_checks_the_table_names(
    game: Game, made: dict[str, tuple[str, list[str]]], row: str
) -> None:
    text, before = made[row]
    assert text != game.text
    assert caught_by(game, text, before) == table()[row], row


def test_the_honest_game_is_caught_by_nothing(game: Game) -> None:
    after = [rewrites.anchor_after_the_change(game.text)]
    assert full_ok(game.text, [game.key], after) and standalone_ok(game.text, [game.key], after)
    assert re.search(r"\| none \|", TRUST.read_text(encoding="utf-8"))
