"""A real server process (``shutbox serve`` with two workers), as an operator runs it."""

from __future__ import annotations

import asyncio
import time

import httpx
import redis

from service.rules.dice import derive_dice
from tests.conftest import REDIS_URL, UNREACHABLE_REDIS_URL, ServerProcess


def clear_prefix(prefix: str) -> None:
    client = redis.Redis.from_url(REDIS_URL)
    try:
        for key in client.scan_iter(match=f"{prefix}*"):
            client.unlink(key)
    finally:
        client.close()


async def concurrent_gets(
    url: str, count: int, path: str = "/v1/daily/2026-06-15"
) -> list[httpx.Response]:
    # A connection each, so that both workers answer.
    async def one() -> httpx.Response:
        async with httpx.AsyncClient(base_url=url, timeout=30) as client:
            return await client.get(path)

    return list(await asyncio.gather(*(one() for _ in range(count))))


def test_the_same_dice_across_workers_and_restarts(
    server_env: dict[str, str], redis_prefix: str
) -> None:
    first = ServerProcess({**server_env, "SHUTBOX_SECRET": "first-secret"}).start()
    try:
        responses = asyncio.run(concurrent_gets(first.url, 40))
    finally:
        first.stop()
    assert {r.status_code for r in responses} == {200}
    bodies = {r.content for r in responses}
    assert len(bodies) == 1  # the first issue raced across workers; one row won
    dice = responses[0].json()["dice"]
    assert dice == [list(r) for r in derive_dice(b"first-secret", "daily/2026-06-15", 10)]

    clear_prefix(redis_prefix)  # only PostgreSQL remembers now
    second = ServerProcess({**server_env, "SHUTBOX_SECRET": "second-secret"}).start()
    try:
        again = httpx.get(f"{second.url}/v1/daily/2026-06-15").json()["dice"]
        fresh = httpx.get(f"{second.url}/v1/daily/2026-06-16").json()["dice"]
    finally:
        second.stop()
    assert again == dice  # stored: a new secret never changes dice players have seen
    assert fresh == [list(r) for r in derive_dice(b"second-secret", "daily/2026-06-16", 10)]


def test_ready_metrics_and_logs(two_workers: ServerProcess) -> None:
    server = two_workers
    ready = httpx.get(f"{server.url}/readyz").json()
    assert ready == {"status": "ready", "database": "up", "redis": "up"}
    answered = httpx.get(f"{server.url}/healthz", headers={"X-Request-ID": "abc-123"})
    assert answered.headers["x-request-id"] == "abc-123"
    names = {
        "requests": 'shutbox_requests_total{method="GET",path="/v1/rules",status="200"}',
        "timed": 'shutbox_request_duration_seconds_count{method="GET",path="/v1/rules"}',
        "every": 'shutbox_request_duration_seconds_bucket{le="+Inf",method="GET",path="/v1/rules"}',
    }

    def counted() -> dict[str, float]:
        metrics = httpx.get(f"{server.url}/metrics")
        assert metrics.status_code == 200
        found = dict(line.rpartition(" ")[::2] for line in metrics.text.splitlines())
        return {what: float(found.get(name, 0)) for what, name in names.items()}

    # The server is shared: what earlier tests sent counts too, each worker's once it has
    # written it (every 50 ms). Settled: two scrapes a worker's writes apart agree.
    before = counted()
    while True:
        time.sleep(0.2)
        if (again := counted()) == before:
            break
        before = again
    asyncio.run(concurrent_gets(server.url, 6, "/v1/rules"))  # both workers answer
    # Each worker writes what it counted within moments: every request is in a scrape.
    deadline = time.monotonic() + 30
    while (now := counted())["requests"] < before["requests"] + 6 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert {what: now[what] - before[what] for what in names} == dict.fromkeys(names, 6.0), now
    docs = httpx.get(f"{server.url}/schema")
    assert docs.status_code == 200 and "html" in docs.headers["content-type"]


def test_serving_with_redis_unreachable(server_env: dict[str, str]) -> None:
    server = ServerProcess({**server_env, "REDIS_URL": UNREACHABLE_REDIS_URL}, workers=1).start()
    try:
        ready = httpx.get(f"{server.url}/readyz")
        assert ready.status_code == 200 and ready.json()["redis"] == "down"
        daily = httpx.get(f"{server.url}/v1/daily/2026-06-15")
        assert daily.status_code == 200 and len(daily.json()["dice"]) == 10
    finally:
        server.stop()


def test_head_is_answered_wherever_get_is(two_workers: ServerProcess) -> None:
    """HEAD gets the GET's status and headers, its length included, and no body; the
    request log says HEAD. Where GET is not allowed, HEAD is not either."""
    server = two_workers
    with httpx.Client(base_url=server.url, timeout=30) as client:
        for path in ("/healthz", "/v1/daily/2026-06-15", "/v1/rules", "/play", "/play/app.js"):
            got, head = client.get(path), client.head(path)
            assert (got.status_code, head.status_code) == (200, 200), path
            assert head.content == b"", path
            assert head.headers["content-type"] == got.headers["content-type"], path
            assert head.headers["content-length"] == got.headers["content-length"], path
            # The same encoding (the page's files come compressed where accepted).
            assert head.headers.get("content-encoding") == got.headers.get("content-encoding")
            plain = client.get(path, headers={"accept-encoding": "identity"})
            assert plain.headers["content-length"] == str(len(plain.content)), path
        assert client.head("/v1/nowhere").status_code == 404
        refused = client.head("/v1/analyze")  # POST only
        assert refused.status_code == 405 and refused.content == b""
        client.head("/v1/rules", headers={"X-Request-ID": "head-check-1"})
    output = server.output_with('"request_id":"head-check-1"')
    logged = [line for line in output.splitlines() if "head-check-1" in line]
    assert len(logged) == 1 and '"method":"HEAD"' in logged[0], logged
