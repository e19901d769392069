"""The game page in a real browser: Debian's Chromium, driven by playwright-core from
node scripts (``tests/system/browser/*.mjs``), against a real server process.

Each scenario is a node script that takes the server's URL and the artefacts directory
(``node daily.mjs http://127.0.0.1:PORT DIR``, or ``SHUTBOX_BASE_URL`` and
``SHUTBOX_TEST_ARTIFACTS``), plays through the page as a person would, fails on any
console error, page error, server error or request to another host, and prints the
paths of its screenshots. Run one by hand against ``scripts/serve`` the same way.
"""

from __future__ import annotations

import os
import subprocess
import time

import pytest

from tests.conftest import ServerProcess
from tests.system.browser.environment import HERE, artifacts, require

SCENARIO_TIMEOUT = 240  # seconds; each takes a few


def run_scenario(script: str, server_env: dict[str, str]) -> str:
    """Run tests/system/browser/<script> against a server of its own: its output, or fail with it
    (skip when node, its packages or Chromium are missing; fail in CI)."""
    node = require()
    server = ServerProcess(server_env, workers=1).start()
    try:
        return _run(node, script, server)
    finally:
        server.stop()


def _run(node: str, script: str, server: ServerProcess) -> str:
    where = artifacts()
    started = time.monotonic()
    try:
        done = subprocess.run(
            [node, str(HERE / script), server.url, str(where)],
            cwd=HERE,
            env={
                **os.environ,
                "SHUTBOX_BASE_URL": server.url,
                "SHUTBOX_TEST_ARTIFACTS": str(where),
            },
            capture_output=True,
            text=True,
            timeout=SCENARIO_TIMEOUT,
        )
    except subprocess.TimeoutExpired as expired:
        pytest.fail(f"{script} took over {SCENARIO_TIMEOUT} s:\n{expired.stdout}\n{expired.stderr}")
    output = f"{done.stdout}\n{done.stderr}".strip()
    if done.returncode != 0:
        pytest.fail(
            f"{script} failed (exit {done.returncode}):\n{output}\n\n"
            f"server log (end):\n{server.output()[-3000:]}",
            pytrace=False,
        )
    print(f"{script}: {time.monotonic() - started:.1f} s\n{done.stdout}")  # the screenshots
    return done.stdout


@pytest.mark.parametrize(
    ("script", "last_screenshot"),
    [
        pytest.param("daily.mjs", "daily-3-result.png", id="daily_dice_played_to_the_end"),
        pytest.param(
            "friend_box.mjs",
            "box-4-result-phone.png",
            id="friend_box_by_code_between_two_players",
        ),
        pytest.param("solo.mjs", "solo-3-result-phone.png", id="solo_variants_with_hints"),
        pytest.param(
            "account.mjs", "account-2-claimed.png", id="moving_the_player_to_another_device"
        ),
        pytest.param("language.mjs", "language-2-nb.png", id="the_page_in_german_then_norwegian"),
    ],
)
def test_a_scenario_plays_through(
    script: str, last_screenshot: str, server_env: dict[str, str]
) -> None:
    output = run_scenario(script, server_env)
    assert last_screenshot in output
