"""Daily Dice paths that name no date: refused cheaply, never remembered, never echoed,
and limited like any other request."""

from __future__ import annotations

import random
import string
from collections.abc import AsyncIterator

import httpx
import pytest

from service.caching import registered
from service.support.calendar import named_date
from service.support.settings import Settings
from tests.conftest import app_with


def junk(rng: random.Random, length: int) -> str:
    return "".join(rng.choices(string.ascii_letters + string.digits + "-_.~", k=length))


async def test_a_junk_date_is_400_without_the_segment_and_not_cached(
    client: httpx.AsyncClient,
) -> None:
    rng = random.Random(11)
    await client.get("/v1/daily/2026-11-29")
    (dates,) = [cache for cache in registered() if cache.name == "dates_named"]
    cached = len(dates)
    for n in range(200):
        segment = junk(rng, 50 + 40 * n)
        for path in (f"/v1/daily/{segment}", f"/v1/daily/{segment}/leaderboard"):
            response = await client.get(path)
            assert response.status_code == 400, path
            assert response.json()["type"] == "/problems/invalid-date"
            assert segment[:20] not in response.text
    # Shaped like a date, or a near miss: refused as ever, and not cached (the shape
    # already rules out a 13th month and a year 0).
    for text in ("2026-13-01", "0000-01-01", "2026-11-29\n", "\uff12\uff10\uff12\uff16-11-29"):
        assert named_date(text) is None
    assert len(dates) == cached


@pytest.fixture
async def limited(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    async with app_with(settings, rate_limit_address="5/h") as test_client:
        yield test_client


async def test_junk_dates_are_rate_limited_and_real_dates_are_not(
    limited: httpx.AsyncClient,
) -> None:
    statuses = [(await limited.get(f"/v1/daily/{'x' * 300}")).status_code for _ in range(7)]
    assert statuses == [400] * 5 + [429] * 2
    for _ in range(3):  # the feed of a date stays free of limits
        assert (await limited.get("/v1/daily/2026-11-29")).status_code == 200
