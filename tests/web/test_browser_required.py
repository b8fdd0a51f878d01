"""Under ``.ci/run`` the verifier page's tests never skip: a missing Chromium fails them, whether
or not the caller of ``.ci/run`` sets ``CI`` (a plain run of ``.ci/run`` used to skip them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.web import browser

CI_RUN = Path(__file__).resolve().parents[2] / ".ci" / "run"


def test_ci_run_requires_the_browser_tests_whatever_its_caller_sets() -> None:
    lines = CI_RUN.read_text(encoding="utf-8").splitlines()
    assert f"export {browser.REQUIRED}=1" in lines
    assert not any(line.startswith("unset") for line in lines)


def test_a_missing_chromium_fails_when_required_and_skips_otherwise(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(browser, "CHROMIUM", str(tmp_path / "no-chromium"))
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setenv(browser.REQUIRED, "1")
    with pytest.raises(pytest.fail.Exception, match="chromium"):
        browser.Browser()
    monkeypatch.delenv(browser.REQUIRED)
    with pytest.raises(pytest.skip.Exception, match="chromium"):
        browser.Browser()
