"""The request metrics, written to Prometheus in batches, read as if written one by one;
and every in-process cache's size and bound."""

from __future__ import annotations

import gc
import secrets
from collections.abc import Iterable

import httpx
import pytest
from prometheus_client import REGISTRY, CollectorRegistry, Histogram, Metric
from prometheus_client.parser import text_string_to_metric_families

from service.caching import registered
from service.support.logs import RequestMetrics

Sample = tuple[str, dict[str, str], float]


async def test_a_batch_of_durations_is_observed_as_each_one_would_be() -> None:
    """Requests kept and written in one batch (``RequestMetrics.flush``) read in the
    metrics exactly as the same durations observed one by one."""
    path = f"/batched/{secrets.token_hex(4)}"  # a route of its own: no other request's
    values = [0.0, 0.004, 0.005, 0.0051, 0.3, 2.5, 7.5, 9.99, 10.0, 42.0]  # bounds and between
    kept = RequestMetrics()
    for value in values:
        kept.add("GET", path, 200, value)  # on a running loop: written later, together
    kept.flush()
    registry = CollectorRegistry()
    one_by_one = Histogram("one_by_one", "", registry=registry)
    for value in values:
        one_by_one.observe(value)

    def samples(found: Iterable[Metric], name: str, labels: dict[str, str]) -> list[Sample]:
        [metric] = [m for m in found if m.name == name]
        return [
            (s.name.removeprefix(name), {k: v for k, v in s.labels.items() if k == "le"}, s.value)
            for s in metric.samples
            if not s.name.endswith("_created") and labels.items() <= s.labels.items()
        ]

    labels = {"method": "GET", "path": path}
    batched = samples(REGISTRY.collect(), "shutbox_request_duration_seconds", labels)
    assert batched == samples(registry.collect(), "one_by_one", {})
    assert ("_count", {}, len(values)) in batched
    [counted] = samples(REGISTRY.collect(), "shutbox_requests", {**labels, "status": "200"})
    assert counted[1:] == ({}, len(values))


@pytest.mark.parametrize("redis_mode", ["no-redis"], indirect=True)
async def test_the_metrics_list_every_cache_with_its_entries_and_bound(
    client: httpx.AsyncClient,
) -> None:
    await client.get("/v1/daily/2026-11-29")  # a cache or two with something in it
    gc.collect()  # the caches of apps gone before: gone now, not between scrape and list
    response = await client.get("/metrics")
    assert response.status_code == 200
    gauges = {
        (sample.name, sample.labels["cache"]): sample.value
        for family in text_string_to_metric_families(response.text)
        if family.name in ("shutbox_cache_entries", "shutbox_cache_bound")
        for sample in family.samples
    }
    expected: dict[tuple[str, str], float] = {}
    for cache in registered():
        for name, value in (
            ("shutbox_cache_entries", len(cache)),
            ("shutbox_cache_bound", cache.bound),
        ):
            expected[(name, cache.name)] = expected.get((name, cache.name), 0) + value
    assert gauges == expected
    assert gauges["shutbox_cache_entries", "daily_feed"] >= 1
