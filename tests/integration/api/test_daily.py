"""The Daily Dice feed: the same dice for everyone, stored on first issue, cacheable."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import asyncpg
import httpx
import pytest

from service.rules.dice import derive_dice
from service.support.clock import FixedClock
from tests.conftest import SECRET, every_redis_mode


@every_redis_mode
async def test_the_dice_of_a_date(client: httpx.AsyncClient) -> None:
    response = await client.get("/v1/daily/2026-11-29")
    assert response.status_code == 200
    daily = response.json()
    assert daily == {
        "date": "2026-11-29",
        "sequence": "daily/2026-11-29",
        "rules": {
            "tiles": 9,
            "one_die": "never",
            "move_rule": "any",
            "scoring": "sum",
            "total": "sum",
            "one_die_choice": "optional",
        },
        "dice": [list(r) for r in derive_dice(SECRET.encode(), "daily/2026-11-29", 10)],
    }
    again = await client.get("/v1/daily/2026-11-29")
    assert again.json() == daily
    assert "max-age" in response.headers["cache-control"]


async def test_etag_revalidation(client: httpx.AsyncClient) -> None:
    first = await client.get("/v1/daily/2026-11-20")
    etag = first.headers["etag"]
    revalidated = await client.get("/v1/daily/2026-11-20", headers={"If-None-Match": etag})
    assert revalidated.status_code == 304 and revalidated.content == b""
    other = await client.get("/v1/daily/2026-11-21", headers={"If-None-Match": etag})
    assert other.status_code == 200


@every_redis_mode
async def test_the_kept_copy_answers_as_the_handler_did(
    client: httpx.AsyncClient, clock: FixedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A date's answer is made once a process; later requests are answered from the
    process's copy: the same answer, the same metrics."""
    from service.api import daily

    made: list[date] = []

    async def daily_answer(services: Any, when: date, now: datetime) -> daily.Feed:
        made.append(when)
        return await realmake_feed(services, when, now)

    realmake_feed = daily.make_feed
    monkeypatch.setattr(daily, "make_feed", daily_answer)

    def seen(response: httpx.Response) -> tuple[int, bytes, dict[str, str]]:
        headers = {k: v for k, v in response.headers.items() if k != "x-request-id"}
        return response.status_code, response.content, headers

    async def counted() -> float:
        """Answers with 200 counted under the route (the registry is the process's)."""
        metrics = (await client.get("/metrics")).text
        line = 'shutbox_requests_total{method="GET",path="/v1/daily/{day}",status="200"} '
        found = [float(row[len(line) :]) for row in metrics.splitlines() if row.startswith(line)]
        return found[0] if found else 0.0

    before = await counted()
    first = await client.get("/v1/daily/2026-11-19")
    kept = await client.get("/v1/daily/2026-11-19")
    assert seen(kept) == seen(first)
    assert made == [date(2026, 11, 19)]  # the second was answered from the copy
    etag = {"If-None-Match": first.headers["etag"]}
    assert seen(await client.get("/v1/daily/2026-11-18", headers=etag))[0] == 200
    assert seen(await client.get("/v1/daily/2026-11-19", headers=etag))[:2] == (304, b"")
    # Every answer counted under the route, the handler's and the copy's alike.
    assert await counted() - before == 3
    clock.set(datetime(2026, 11, 5, tzinfo=UTC))  # the clock set back: not begun yet, 404
    assert (await client.get("/v1/daily/2026-11-19")).status_code == 404


@pytest.mark.parametrize(
    ("now", "day", "open_"),
    [
        # 2026-11-30 begins at UTC+14, i.e. at 10:00 UTC on the 29th.
        (datetime(2026, 11, 29, 9, 59, tzinfo=UTC), "2026-11-30", False),
        (datetime(2026, 11, 29, 10, 0, tzinfo=UTC), "2026-11-30", True),
        (datetime(2026, 11, 29, 23, 0, tzinfo=UTC), "2026-12-01", False),
        (datetime(2026, 11, 29, 0, 0, tzinfo=UTC), "2026-01-01", True),  # launch day
    ],
)
async def test_a_date_is_served_once_it_has_begun_somewhere(
    client: httpx.AsyncClient, clock: FixedClock, now: datetime, day: str, open_: bool
) -> None:
    clock.set(now)
    response = await client.get(f"/v1/daily/{day}")
    assert response.status_code == (200 if open_ else 404)


async def test_stored_dice_win_over_the_secret(
    client: httpx.AsyncClient, database_url: str
) -> None:
    """Dice stored once are served from then on, whatever the secret or algorithm says."""
    connection = await asyncpg.connect(database_url)
    try:
        await connection.execute(
            """INSERT INTO sequences (id, rules, dice, algorithm, issued_at)
               VALUES ('daily/2026-03-03', '{"tiles": 9}', $1, 'older-algorithm', now())""",
            [1, 1] * 10,
        )
    finally:
        await connection.close()
    response = await client.get("/v1/daily/2026-03-03")
    assert response.json()["dice"] == [[1, 1]] * 10
