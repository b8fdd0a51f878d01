"""The offline verifier page (bot/web/verify.html) driven in a real headless Chromium.

Debian's ``chromium`` and ``chromium-driver`` (``.ci/run`` installs them) through selenium: the
test chooses the export in the page's file input, as a player would, and reads the verdict the
page shows. Nothing but the page's own script and the browser's WebCrypto does the checking.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[2] / "bot" / "web" / "verify.html"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
REQUIRED = "REQUIRE_BROWSER_TESTS"
"""Set (by ``.ci/run``, whether or not its caller sets ``CI``): a missing Chromium fails the
page's tests instead of skipping them."""


@dataclass(frozen=True)
class Verdict:
    """What the page shows: ``ok``, its headline, the counts line and the listed problems."""

    ok: bool
    headline: str
    counts: str
    problems: tuple[str, ...]
    notes: tuple[str, ...]


class Browser:
    """One headless Chromium with the page; :meth:`verify` opens it afresh for each file."""

    def __init__(self) -> None:
        if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
            missing = "Debian's chromium and chromium-driver are not installed (.ci/run does)"
            if os.environ.get("CI") or os.environ.get(REQUIRED):
                pytest.fail(missing)  # .ci/run installs them: there the tests run, never skip
            pytest.skip(missing)
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service

        options = Options()
        options.binary_location = CHROMIUM
        for argument in ("--headless=new", "--no-sandbox", "--disable-gpu",
                         "--disable-dev-shm-usage"):  # fmt: skip
            options.add_argument(argument)
        self.driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)

    def verify(
        self, export: Path, timeout: float = 30.0, *, key: str = "", anchors: tuple[str, ...] = ()
    ) -> Verdict:
        """Open the page, type the bot's ``key`` and the ``anchors`` in their fields, choose
        ``export`` in its file input, wait for the verdict."""
        return self.verify_with(PAGE, export, timeout, key=key, anchors=anchors)

    def verify_with(
        self,
        page: Path,
        export: Path,
        timeout: float = 30.0,
        *,
        key: str = "",
        anchors: tuple[str, ...] = (),
    ) -> Verdict:
        """Open ``page`` (a copy of the verifier page), choose ``export``, read the verdict."""
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support.ui import WebDriverWait

        driver = self.driver
        driver.get(page.resolve().as_uri())
        if key:
            driver.find_element(By.ID, "key").send_keys(key)
        if anchors:
            driver.find_element(By.ID, "anchors").send_keys("\n".join(anchors))
        driver.find_element(By.ID, "file").send_keys(str(export.resolve()))
        WebDriverWait(driver, timeout).until(
            lambda d: d.find_element(By.ID, "verdict").get_attribute("data-state") != "waiting"
        )
        state = driver.find_element(By.ID, "verdict").get_attribute("data-state")

        def items(element_id: str) -> tuple[str, ...]:
            found = driver.find_elements(By.CSS_SELECTOR, f"#{element_id} li")
            return tuple(li.text for li in found)

        return Verdict(
            ok=state == "ok",
            headline=driver.find_element(By.ID, "verdict").text,
            counts=driver.find_element(By.ID, "counts").text,
            problems=items("problems"),
            notes=items("notes"),
        )

    def close(self) -> None:
        self.driver.quit()
