"""Every outcome the ASL tests resolve states only what its state holds (issue 23)."""

from __future__ import annotations

import pytest

from rules_core.asl import SYSTEM
from tests.bot.reply_facts import watch


@pytest.fixture(autouse=True)
def _reply_facts_hold(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    if getattr(request.function, "hypothesis", None) is None:  # property tests stay fast
        watch(monkeypatch, SYSTEM)
