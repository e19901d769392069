"""What the browser tests need from the machine: node, the npm packages of this folder
(playwright-core) and Debian's Chromium. Where something is missing the tests skip with
the commands that install it; in CI (``CI=true``) they fail instead, so that a CI that
lost its browser doesn't pass without testing the page."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
CHROMIUM = Path(os.environ.get("SHUTBOX_CHROMIUM", "/usr/bin/chromium"))
INSTALL = "npm ci --prefix tests/system/browser; apt-get install -y chromium (Debian's, at /usr/bin/chromium)"


def node() -> str | None:
    return shutil.which("node")


def missing(*, browser: bool = True) -> str | None:
    """What is missing to run the scenarios (or, browser=False, node alone), or None."""
    if node() is None:
        return "node is not installed (apt-get install -y nodejs npm)"
    if not browser:
        return None
    if not (HERE / "node_modules" / "playwright-core" / "package.json").is_file():
        return f"tests/system/browser/node_modules is missing: run `{INSTALL}`"
    if not os.access(CHROMIUM, os.X_OK):
        return f"{CHROMIUM} is missing: run `{INSTALL}`"
    return None


def require(*, browser: bool = True) -> str:
    """The node executable, or skip (fail in CI) naming what to install."""
    reason = missing(browser=browser)
    if reason is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"browser tests cannot run in CI: {reason}", pytrace=False)
        pytest.skip(reason)
    found = node()
    assert found is not None
    return found


def artifacts() -> Path:
    """Where screenshots go: $SHUTBOX_TEST_ARTIFACTS, else tests/system/browser/artifacts/."""
    where = os.environ.get("SHUTBOX_TEST_ARTIFACTS")
    path = Path(where) if where else HERE / "artifacts"
    path.mkdir(parents=True, exist_ok=True)
    return path
