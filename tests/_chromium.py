"""Debian's Chromium for the browser tests (tests/test_browser.py, tests/test_book_site.py): where it is, how it is
started, and what a run that requires it does when it is missing.

    DISTLAB_CHROMIUM=/path/to/chromium     another Chromium than the one on PATH
    DISTLAB_REQUIRE_BROWSER=1              fail, not skip, where Chromium or Playwright is missing (.ci/run)
"""
import os
import shutil

import pytest

CHROMIUM = os.environ.get("DISTLAB_CHROMIUM") or shutil.which("chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]  # no network here: no background connections
REQUIRED = os.environ.get("DISTLAB_REQUIRE_BROWSER") == "1"
if REQUIRED and CHROMIUM is None:
    raise RuntimeError("DISTLAB_REQUIRE_BROWSER=1 but no Chromium: apt-get install chromium, or DISTLAB_CHROMIUM=/path")


def needs_chromium(instead: str = "") -> pytest.MarkDecorator:
    """The skip mark of a module whose tests drive Chromium; `instead` says what runs in their place, if anything."""
    return pytest.mark.skipif(CHROMIUM is None, reason="no Chromium: apt-get install chromium (.ci/run does)"
                              + (f"; {instead}" if instead else ""))


def launch(playwright):
    """A headless Chromium, started by Playwright (`playwright_session` in conftest.py)."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
