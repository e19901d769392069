"""The game page in a real browser: Debian's Chromium, driven by playwright-core from
node scripts (``tests/system/browser/*.mjs``), against a real server process.

Each scenario is a node script that takes the server's URL and the artefacts directory
(``node daily.mjs http://127.0.0.1:PORT DIR``, or ``SHUTBOX_BASE_URL`` and
``SHUTBOX_TEST_ARTIFACTS``), plays through the page as a person would, fails on any
console error, page error, server error or request to another host, and prints the
paths of its screenshots. Run one by hand against ``scripts/serve`` the same way.
A scenario that needs data first has a preparation (``PREPARATIONS``): the archive's
gets a closed date filled with official runs, named in ``SHUTBOX_ARCHIVE_DATE``.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest

from service.rules.ruleset import Rules
from service.store import daily, players
from service.store.db import create_pool
from service.support.calendar import has_closed_everywhere
from service.usecases import deals
from tests.conftest import ROOT, ServerProcess
from tests.system.browser.environment import HERE, artifacts, require

SCENARIO_TIMEOUT = 240  # seconds; each takes a few
ARCHIVE_PLAYERS = 20  # the synthetic players' official runs of the archive's date

# What a scenario needs of the server's data before it runs: more of its environment.
Preparation = Callable[[dict[str, str]], dict[str, str]]


def run_scenario(script: str, server: ServerProcess, prepare: Preparation | None = None) -> str:
    """Run tests/system/browser/<script> against ``server`` (its data prepared first, on
    its environment): its output, or fail with it (skip when node, its packages or
    Chromium are missing; fail in CI)."""
    node = require()
    extra = prepare(server.env) if prepare else {}
    return _run(node, script, server, extra)


def an_archive_date(server_env: dict[str, str]) -> dict[str, str]:
    """A Daily Dice date that has ended everywhere, filled with synthetic players'
    official runs by ``shutbox synth-day`` (as an operator fills one): SHUTBOX_ARCHIVE_DATE.
    Two days before today at UTC, so that it has closed whenever the scenario runs, and the
    ten dates before it (its practice list) too."""
    day = datetime.now(UTC).date() - timedelta(days=2)
    assert has_closed_everywhere(day, datetime.now(UTC))
    command = [sys.executable, "-m", "service.cli", "synth-day", day.isoformat()]
    done = subprocess.run(
        [*command, "--runs", str(ARCHIVE_PLAYERS), "--seed", "7"],
        cwd=ROOT,
        env={**os.environ, **server_env},
        capture_output=True,
        text=True,
        timeout=SCENARIO_TIMEOUT,
    )
    assert done.returncode == 0, f"synth-day failed:\n{done.stdout}\n{done.stderr}"
    return {"SHUTBOX_ARCHIVE_DATE": day.isoformat()}


# The Solo rounds phone.mjs resumes on dice set in advance: deals of them, signed with the
# server's secret as POST /v1/deals signs its own (the page plays Solo on deals only).
SOLO_DICE = {
    "threes-and-fours": ({"tiles": 9}, [[3, 4]] * 10),
    "two-measures": (
        {"tiles": 9},
        [[3, 3], [6, 6], [5, 4], [1, 4], [6, 5], [6, 3], [6, 3], [3, 5], [2, 4], [6, 3]],
    ),
    "twelve-ones": ({"tiles": 12, "scoring": "digits"}, [[1, 1]] * 13),
}


def solo_deals(server_env: dict[str, str]) -> dict[str, str]:
    key = deals.signing_key(server_env["SHUTBOX_SECRET"].encode())
    now = datetime.now(UTC)
    made = {
        name: {
            "rules": rules,
            "dice": dice,
            "deal": deals.token(
                key,
                deals.Deal(
                    id=uuid.uuid4(),
                    rules=Rules(**rules),
                    dice=tuple((a, b) for a, b in dice),
                    expires_at=now + deals.LIFETIME,
                ),
            ),
        }
        for name, (rules, dice) in SOLO_DICE.items()
    }
    return {"SHUTBOX_SOLO_DEALS": json.dumps(made)}


STREAK_LANGUAGES = ("en", "de", "nb", "nl")


def players_who_missed_yesterday(server_env: dict[str, str]) -> dict[str, str]:
    """A player for each language (in UTC) whose official runs, stored as submissions
    leave them, cover seven dates in a row through the day before yesterday (the seventh
    earned a freeze) and not yesterday: SHUTBOX_STREAK_PLAYERS, their ids and tokens."""

    async def prepare() -> list[dict[str, str]]:
        now = datetime.now(UTC)
        today = now.date()
        first = today - timedelta(days=8)
        pool = await create_pool(server_env["DATABASE_URL"], max_size=2)
        made = []
        try:
            await daily.make_partitions(pool, first, today)
            for language in STREAK_LANGUAGES:
                token = players.new_token()
                player = await players.create(pool, None, "UTC", now - timedelta(days=9), token)
                for n in range(7):
                    day = first + timedelta(days=n)
                    at = datetime(day.year, day.month, day.day, 12, tzinfo=UTC)
                    run = daily.VerifiedRun(day, [[9], [8], [7]], 10, 0, at).of(player)
                    [stored] = await daily.submit_batch(pool, [run])
                    assert isinstance(stored, daily.Stored) and stored.run.streak_current == n + 1
                made.append({"id": str(player.id), "token": token, "language": language})
        finally:
            await pool.close()
        return made

    return {"SHUTBOX_STREAK_PLAYERS": json.dumps(asyncio.run(prepare()))}


PREPARATIONS: dict[str, Preparation] = {
    "archive.mjs": an_archive_date,
    "phone.mjs": solo_deals,
    "streak.mjs": players_who_missed_yesterday,
    "views.mjs": solo_deals,
}


def _run(node: str, script: str, server: ServerProcess, extra: dict[str, str]) -> str:
    where = artifacts()
    started = time.monotonic()
    try:
        done = subprocess.run(
            [node, str(HERE / script), server.url, str(where)],
            cwd=HERE,
            env={
                **os.environ,
                **extra,
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
            "first_try.mjs",
            "first-try-7-new-code-asked-390.png",
            id="a_first_daily_dice_taught_practised_and_shared_on_phones",
        ),
        pytest.param(
            "friend_box.mjs",
            "box-4-result-phone.png",
            id="friend_box_by_code_between_two_players",
        ),
        pytest.param("solo.mjs", "solo-3-result-phone.png", id="solo_variants_with_hints"),
        pytest.param(
            "phone.mjs", "phone-390-8-digits-result.png", id="the_board_and_result_on_phones"
        ),
        pytest.param(
            "account.mjs", "account-2-claimed.png", id="moving_the_player_to_another_device"
        ),
        pytest.param("language.mjs", "language-2-nb.png", id="the_page_in_german_then_norwegian"),
        pytest.param(
            "friends.mjs", "friends-6-removed-phone.png", id="friends_and_their_daily_board"
        ),
        pytest.param(
            "archive.mjs", "archive-3-practice-list.png", id="an_earlier_date_as_practice_and_stats"
        ),
        pytest.param(
            "streak.mjs", "streak-nl-2-result.png", id="a_streak_kept_by_a_freeze_in_four_languages"
        ),
        pytest.param(
            "series.mjs",
            "series-6-box-result-phone.png",
            id="a_series_of_three_rounds_and_a_solo_box",
        ),
        pytest.param(
            "names.mjs",
            "names-9-code-on-another-phone-360.png",
            id="friends_by_name_never_anonymous_on_phones",
        ),
        pytest.param(
            "views.mjs", "views-1280-statistics.png", id="every_view_on_two_phones_with_axe"
        ),
        pytest.param(
            "standings.mjs",
            "standings-5-en-1280.png",
            id="series_standings_of_six_rounds_fit_a_phone",
        ),
    ],
)
def test_a_scenario_plays_through(
    script: str, last_screenshot: str, two_workers: ServerProcess
) -> None:
    output = run_scenario(script, two_workers, PREPARATIONS.get(script))
    assert last_screenshot in output
