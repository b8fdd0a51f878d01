"""REFEREE_EVENT_LOOP: the standard library's loop by default, uvloop when asked for, and the
standard library's again when uvloop is missing (bot/event_loop.py)."""

from __future__ import annotations

import asyncio
import logging
import sys

import pytest
import uvloop

from bot.config import Settings
from bot.event_loop import loop_factory


def test_asyncio_is_the_default_and_uvloop_may_be_chosen(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REFEREE_EVENT_LOOP", raising=False)
    assert Settings(_env_file=None).event_loop == "asyncio"
    monkeypatch.setenv("REFEREE_EVENT_LOOP", "uvloop")
    assert Settings(_env_file=None).event_loop == "uvloop"


def test_each_choice_runs_on_its_loop() -> None:
    async def which() -> str:
        return type(asyncio.get_running_loop()).__module__

    for choice, module in (("uvloop", "uvloop"), ("asyncio", "asyncio")):
        with asyncio.Runner(loop_factory=loop_factory(choice)) as runner:
            assert runner.run(which()).split(".")[0] == module
    assert loop_factory("uvloop") is uvloop.new_event_loop


def test_without_uvloop_the_standard_loop_runs_and_says_so(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setitem(sys.modules, "uvloop", None)  # import uvloop now raises ImportError
    with caplog.at_level(logging.WARNING, logger="bot.event_loop"):
        assert loop_factory("uvloop") is None
    assert "uvloop is not installed" in caplog.text
