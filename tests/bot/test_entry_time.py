"""An entry's time (bot/service/game_service.py ``_now``) is what ``datetime.now(UTC)`` with
milliseconds gives, though it formats its date and time once a second."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from bot.service.game_service import _now, utc_milliseconds

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@given(st.lists(st.integers(min_value=0, max_value=253_402_300_799_999_999_999), max_size=20))
def test_the_same_text_as_datetime_at_any_instant(instants: list[int]) -> None:
    """In any order (the formatted second is reused only within its second)."""
    for ns in instants:
        read = EPOCH + timedelta(microseconds=ns // 1000)
        assert utc_milliseconds(ns) == read.isoformat(timespec="milliseconds")


def test_now_reads_the_clock_and_never_runs_backwards() -> None:
    before = datetime.now(UTC).isoformat(timespec="milliseconds")
    first, second = _now(), _now()
    after = datetime.now(UTC).isoformat(timespec="milliseconds")
    assert before <= first <= second <= after
