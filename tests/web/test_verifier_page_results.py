"""The offline verifier page checks who settled a result as both Python verifiers do (issue 22):
the honest exports of a confirmed, a conceded and a disputed-then-ruled result, and of proposals
that lapsed at a reseat, verify in a real headless Chromium; each forgery of
tests/bot/test_results.py (a result nobody confirmed, a ruling by a referee who plays, a referee
who plays acting alone for the other side, an entry claiming the older rules, a proposal
confirmed after its proposer gave up their seat) fails there, at the entry the standard-library
checker names."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.bot import test_results as results
from tests.bot import test_verify_strict as strict
from tests.bot.test_verify_forgery import play, reseal
from tests.web.browser import Browser
from tests.web.test_verifier_page import python_verdicts, write


def test_signed_results_verify_and_their_forgeries_fail_in_the_page(
    browser: Browser, tmp_path: Path
) -> None:
    exports = {
        name: asyncio.run(results.play(tmp_path / f"{name}.db", lines))
        for name, lines in (
            ("disputed", results.DISPUTED),
            ("confirmed", results.CONFIRMED),
            ("conceded", results.CONCEDED),
            ("reseated", results.RESEATED),
        )
    }
    for name, honest in exports.items():
        verdict = browser.verify(write(tmp_path, f"{name}.jsonl", honest))
        assert verdict.ok, (name, verdict)
    checked = 0
    for name, forges in results.FORGERIES.items():
        for forge in forges:
            forged = reseal(exports[name], forge)
            standalone, full, message = python_verdicts(forged)
            assert not (standalone or full), forge.__name__
            verdict = browser.verify(write(tmp_path, f"{forge.__name__}.jsonl", forged))
            assert not verdict.ok, (forge.__name__, verdict)
            assert verdict.problems[0].split(":")[0] == message.split(":")[0], (
                forge.__name__,
                message,
                verdict,
            )
            checked += 1
    assert checked == sum(len(forges) for forges in results.FORGERIES.values()) >= 10


def test_a_referee_who_plays_giving_their_seat_away_alone_fails_in_the_page(
    browser: Browser, tmp_path: Path
) -> None:
    honest = asyncio.run(play(tmp_path / "handover.db", strict.HANDOVER))
    assert browser.verify(write(tmp_path, "handover.jsonl", honest)).ok
    forged = reseal(honest, strict.handover_by_alice)
    verdict = browser.verify(write(tmp_path, "given_away.jsonl", forged))
    assert not verdict.ok
    assert verdict.problems[0].startswith("entry 5: alice gives their Axis seat away alone"), (
        verdict
    )
