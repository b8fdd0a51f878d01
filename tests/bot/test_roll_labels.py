"""A long roll reason is said once, in the roll's title, not copied into every die's label
(issue 24): `/roll dice:4d6 reason:"…"` labelled each of its four dice with the whole reason."""

from __future__ import annotations

import asyncio
import json
from functools import partial
from pathlib import Path
from typing import Any

import pytest

import bot.table.roll
from bot.log.verify import verify_text
from rules_core.roll import roll_expression
from tests.bot.test_verify_forgery import REF, SYSTEMS, play

LONG = "the squad in the woods after the Sniper's attack, second try"
LINES = [
    (REF, '/game new system:asl sides:"Axis,Allied" title:"Labels"'),
    (REF, f'/roll dice:4d6 reason:"{LONG}"'),
    (REF, '/roll dice:DR reason:"Sniper check"'),
    (REF, "/roll dice:dr category:MC"),
    (REF, "/game end"),
]


def _rolls(text: str) -> dict[str, list[str]]:
    entries = [json.loads(line) for line in text.splitlines()]
    return {
        e["reason"] or e.get("category", ""): [d["label"] for d in e["dice"]]
        for e in entries
        if e.get("kind") == "roll"
    }


def test_a_long_reason_is_not_copied_into_every_die_label(tmp_path: Path) -> None:
    text = asyncio.run(play(tmp_path / "a.db", LINES))
    labels = _rolls(text)
    assert labels[LONG] == ["d6"] * 4
    assert labels["Sniper check"] == ["Sniper check DR (colored)", "Sniper check DR (white)"]
    assert labels["MC"] == ["MC dr"]  # a category always names the dice
    assert verify_text(text, SYSTEMS).ok


def test_a_log_whose_reasons_all_named_the_dice_still_verifies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An export written before: every reason, however long, in every die's label."""
    before: Any = partial(roll_expression, reason_chars=100)
    monkeypatch.setattr(bot.table.roll, "roll_expression", before)
    text = asyncio.run(play(tmp_path / "b.db", LINES))
    assert _rolls(text)[LONG] == [f"{LONG} d6"] * 4
    report = verify_text(text, SYSTEMS)
    assert report.ok, report.message
