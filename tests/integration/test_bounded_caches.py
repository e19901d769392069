"""Every cache of the running app stays within its bound, the most recently used kept
(tests/unit/rules/test_bounded_caches.py fills each one alone)."""

from __future__ import annotations

import httpx
import pytest

from service.caching import registered
from service.rules.dice import derive_dice
from service.rules.ruleset import Rules
from tests.unit.rules.test_bounded_caches import fill_past_its_bound, greedy_moves


@pytest.mark.parametrize("redis_mode", ["no-redis"], indirect=True)
async def test_every_cache_keeps_at_most_its_bound_the_most_recently_used(
    client: httpx.AsyncClient,
) -> None:
    """The app running (its services' and rate limiter's caches made), with some traffic
    through it; then each cache filled past its bound through its public interface."""
    assert (await client.post("/v1/analyze", json=analyze_body())).status_code == 200
    caches = registered()
    assert {"solver_tables", "daily_feed", "rate_limit_local_buckets"} <= {c.name for c in caches}
    for cache in caches:
        assert len(cache) <= cache.bound, cache
        fill_past_its_bound(cache)
        cache.clear()
    # The caches emptied cost only work: the app answers as before.
    assert (await client.post("/v1/analyze", json=analyze_body())).status_code == 200


def analyze_body() -> dict[str, object]:
    rules = Rules(tiles=9)
    dice = tuple(derive_dice(b"bounded", "analyze", rules.rolls))
    return {
        "dice": [list(roll) for roll in dice],
        "moves": [{"tiles": list(m.tiles)} for m in greedy_moves(rules, dice)],
        "rules": {"tiles": 9},
    }
