"""An entry sealed by orjson (``seal(entry, plain=True)``, bot/log/gamelog.py) has the very body
and hash of the canonical one: any difference would make honest logs fail verification."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import bot.service.core as core
from bench import service_profile
from bot.log.gamelog import canonical, entry_hash, seal

PLAIN = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)  # beyond 64 bits: the standard library
    | st.text(),  # control characters, quotes, backslashes, emoji, U+2028, non-BMP…
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=8), inner, max_size=5)
    ),
    max_leaves=30,
)
"""JSON's own values without floats, as an entry built from float-free models holds them."""


@given(entry=st.dictionaries(st.text(max_size=8), PLAIN, max_size=8))
def test_a_plain_entry_has_the_canonical_body_and_hash(entry: dict[str, Any]) -> None:
    body = canonical(entry)
    assert seal(entry, plain=True) == seal(entry) == (body, entry_hash(body))


def test_what_orjson_refuses_is_written_by_the_standard_library() -> None:
    deep: list[Any] = []
    for _ in range(300):  # orjson's limit is 255 levels
        deep = [deep]
    for entry in ({"n": 2**64}, {"n": -(2**64)}, {"deep": deep}):
        assert seal(entry, plain=True) == seal(entry)


def test_the_entries_of_a_played_game_are_sealed_plain(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The benchmark's fire cycle (set-up, phases, units, weapons, fire): every action entry is
    sealed by orjson, each with the canonical body."""
    sealed: list[bool] = []

    def both(entry: Any, *, plain: bool = False) -> tuple[str, str]:
        assert seal(entry, plain=plain) == seal(entry)
        sealed.append(plain)
        return seal(entry, plain=plain)

    monkeypatch.setattr(core, "seal", both)
    asyncio.run(service_profile.run(3, 0, 0, tmp_path))
    assert len(sealed) >= 21 and all(sealed)
