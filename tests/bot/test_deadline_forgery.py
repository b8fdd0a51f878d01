"""The deadlines' entries in an export (a deadline, a pause agreed by both, an extension, a
missed deadline, a forfeit claim and its ruling): both verifiers accept the honest export and
reject each re-hashed forgery — a pause one player took alone, a miss before its deadline or of
the wrong player or not by the bot, an extension beyond the organiser's limit, a claim before the
silence or against oneself, a forfeit granted by a player or on no claim, a result naming the
forfeit's loser the winner (``referee verify``
in-process, ``bot/log/verify_dice.py`` as a subprocess)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.log.export import export_game
from bot.log.verify import verify_text
from bot.storage import open_repository
from bot.table import commands as gc
from tests.bot.conftest import ADMIN, ALICE, BOB, HERE
from tests.bot.test_deadlines import seated
from tests.bot.test_verify_forgery import of_kind, reseal, standalone
from tests.bot.toysystem import SYSTEM

SYSTEMS = {"toy": SYSTEM}


async def play(db: Path, **deadline: str) -> str:
    """A pause agreed by both, an extension, a missed deadline, a forfeit claim granted and the
    league result of it; the export (``deadline``: more settings, such as a clock time in a
    zone)."""
    repo = await open_repository(db)
    try:
        table = await seated(repo, extensions="1", silence="3d", **deadline)
        table.clock.advance(hours=1)
        proposed = await table.act(BOB, gc.GameDeadlinePause(length="1d", reason="a wedding"))
        await table.act(ALICE, gc.GameConfirm(entry=proposed.seq or 0))
        table.clock.advance(days=1, hours=5)
        await table.act(BOB, gc.GameDeadlineExtend())
        table.clock.advance(days=5)
        await table.fire()
        claimed = await table.act(ALICE, gc.GameDeadlineClaim(reason="silent"))
        granted = gc.GameRule(entry=claimed.seq or 0, decision="grant", reason="silent")
        await table.act(ADMIN, granted)
        won = gc.GameResult(winner="Axis", scenario="FT91", attacker="Axis", tournament="T1")
        await table.act(ADMIN, won)  # the league result of the forfeit, by the organiser
        row = await repo.latest_game(HERE.guild_id, HERE.channel_id)
        assert row is not None
        return await export_game(repo, row)
    finally:
        await repo.close()


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> str:
    return asyncio.run(play(tmp_path_factory.mktemp("deadline-forgery") / "game.db"))


def test_the_honest_export_with_the_deadlines_entries_verifies_with_both(
    exported: str, tmp_path: Path
) -> None:
    kinds = [e.split('"kind":"')[1].split('"')[0] for e in exported.split("\n")[1:] if e]
    for kind in ("game.deadline", "game.pause", "game.extend", "game.missed", "game.claim",
                 "game.ruling", "game.result"):  # fmt: skip
        assert kind in kinds
    report = verify_text(exported, SYSTEMS)
    assert report.ok, report.message
    run = standalone(exported, tmp_path)
    assert run.returncode == 0 and run.stdout.startswith("OK"), run.stdout


def settings(**changes: Any) -> Callable[[list[dict[str, Any]]], None]:
    def edit(entries: list[dict[str, Any]]) -> None:
        of_kind(entries, "game.deadline")["clock"].update(changes)

    return edit


def pause_alone(entries: list[dict[str, Any]]) -> None:
    del of_kind(entries, "game.pause")["agreed"]


def pause_too_long(entries: list[dict[str, Any]]) -> None:
    pause = of_kind(entries, "game.pause")
    pause["until"] = (datetime.fromisoformat(pause["at"]) + timedelta(days=100)).isoformat()


def missed_by_alice(entries: list[dict[str, Any]]) -> None:
    missed = of_kind(entries, "game.missed")
    missed["side"], missed["player"] = "Axis", {"id": ALICE.user_id, "name": "alice"}


def missed_by_a_player(entries: list[dict[str, Any]]) -> None:
    of_kind(entries, "game.missed")["by"] = {"id": ALICE.user_id, "name": "alice"}


def forfeit_granted_by_a_player(entries: list[dict[str, Any]]) -> None:
    of_kind(entries, "game.ruling")["by"] = {"id": ALICE.user_id, "name": "alice"}


def ruling_on_no_claim(entries: list[dict[str, Any]]) -> None:
    of_kind(entries, "game.ruling")["entry"] -= 1


def result_against_the_forfeit(entries: list[dict[str, Any]]) -> None:
    of_kind(entries, "game.result")["winner"] = "Allied"


def deadline_after_the_forfeit(entries: list[dict[str, Any]]) -> None:
    """The organiser's deadline written again after the forfeit was granted (the clock stopped)."""
    ruling = of_kind(entries, "game.ruling")
    at = entries.index(ruling) + 1
    again = {**of_kind(entries, "game.deadline"), "at": ruling["at"], "interaction": "i-again"}
    entries.insert(at, again)
    for seq, entry in enumerate(entries[at:], start=ruling["seq"] + 1):
        entry["seq"] = seq


def claim_for_the_other_side(entries: list[dict[str, Any]]) -> None:
    claim = of_kind(entries, "game.claim")
    claim["side"], claim["against"] = "Allied", "Axis"


FORGERIES: dict[str, Callable[[list[dict[str, Any]]], None]] = {
    "a pause one player took alone": pause_alone,
    "a pause of 100 days": pause_too_long,
    "a miss before its deadline (the deadline made longer)": settings(deadline=864000),
    "a miss of the player who was not to act": missed_by_alice,
    "a miss written by a player": missed_by_a_player,
    "an extension beyond the organiser's limit": settings(extensions=0),
    "a forfeit claim before the silence allowing it": settings(silence=30 * 86400),
    "a forfeit claim against the claimant's own side": claim_for_the_other_side,
    "a forfeit granted by a player": forfeit_granted_by_a_player,
    "a ruling on an entry that is no forfeit claim": ruling_on_no_claim,
    "a result naming the forfeit's loser the winner": result_against_the_forfeit,
    "a deadline set after the forfeit was granted": deadline_after_the_forfeit,
}


@pytest.mark.parametrize("what", list(FORGERIES))
def test_a_forged_deadlines_entry_is_rejected_by_both_verifiers(
    exported: str, tmp_path: Path, what: str
) -> None:
    forged = reseal(exported, FORGERIES[what])
    assert forged != exported
    report = verify_text(forged, SYSTEMS)
    assert not report.ok, (what, report.message)
    run = standalone(forged, tmp_path)
    assert run.returncode == 1 and run.stdout.startswith("MISMATCH"), (what, run.stdout)
