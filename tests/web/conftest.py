"""A headless Chromium for the verifier page's tests, one per module."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.web.browser import Browser


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    started = Browser()
    yield started
    started.close()
