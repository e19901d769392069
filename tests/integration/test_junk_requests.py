"""Junk that cannot grow the metrics, cannot dodge the limits, and cannot crowd the
operations endpoints: unknown methods and paths reach the metrics as fixed labels, every
answer (a 404, a 405) costs its token, the metrics are the operator's, readiness and
scrapes are shared by a crowd, and a client's limits count by network."""

from __future__ import annotations

import asyncio
import random
import string
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import asyncpg
import pytest
from prometheus_client.registry import CollectorRegistry

from service.api.front.addresses import LOOPBACK, limited_as
from service.api.front.ratelimit import RateLimiter
from service.store.cache import Cache
from service.support.settings import Limit, Settings, SettingsError
from tests.conftest import from_address, served

METRICS_TOKEN = "a-scraper-token-nobody-guesses"
IN_PROCESS = "testclient"
"""The peer of an in-process client (as the framework's test client names it): no IP."""


def junk_methods(count: int) -> list[str]:
    letters = random.Random(27)
    return ["".join(letters.choices(string.ascii_uppercase, k=24)) for _ in range(count)]


# --- metrics and logs: fixed labels for what a client makes up ---------------------------


async def test_junk_methods_grow_the_metrics_by_a_few_series_only(settings: Settings) -> None:
    methods = junk_methods(300)
    async with served(settings) as app, from_address(app, "127.0.0.1") as client:
        await client.get("/v1/rules")  # the route's series exist before
        before = (await client.get("/metrics")).text
        for n, method in enumerate(methods):  # one connection, one request after another
            path = "/v1/rules" if n % 2 else f"/no/such/path/{n}"
            answer = await client.request(method, path)
            assert answer.status_code in (404, 405), (method, path, answer.status_code)
        after = (await client.get("/metrics")).text
    assert len(after.encode()) - len(before.encode()) < 20_000
    assert not any(method in after for method in methods)
    for status in ("404", "405"):
        series = f'shutbox_requests_total{{method="other",path="unmatched",status="{status}"}}'
        assert counted(after, series) - counted(before, series) == 150


def counted(metrics: str, series: str) -> float:
    """A series' value in Prometheus text (0 if it is not there yet: the registry is the
    process's, shared with the tests before)."""
    for line in metrics.splitlines():
        if line.startswith(series + " "):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


# --- every answer counts: a request no handler takes too (around the router) -----------


@pytest.mark.parametrize("redis_mode", ["redis", "no-redis"], indirect=True)
async def test_404_and_405_cost_tokens_as_any_answer_does(settings: Settings) -> None:
    async with (
        served(settings, rate_limit_address="6/h") as app,
        from_address(app, "198.51.100.30") as client,
    ):
        assert (await client.get("/no/such/path")).status_code == 404
        assert (await client.get("/healthz/junk")).status_code == 404  # not /healthz
        assert (await client.get("/schema/a/b")).status_code == 404  # not the docs
        assert (await client.request("BREW", "/v1/rules")).status_code == 405
        assert (await client.delete("/v1/solution")).status_code == 405
        assert (await client.get("/metrics")).status_code == 404  # not allowed, counted
        refused = await client.get("/v1/solution", headers={"Accept-Language": "de"})
        assert refused.status_code == 429
        assert refused.json()["type"] == "/problems/rate-limited"
        assert refused.headers["content-language"] == "de"  # in the client's language
        assert int(refused.headers["retry-after"]) >= 1
        # Junk is refused as everything else once the address is over its limit.
        assert (await client.get("/no/such/path")).status_code == 429
        assert (await client.request("BREW", "/v1/rules")).status_code == 429
        assert (await client.get("/metrics")).status_code == 429
        async with from_address(app, "198.51.100.31") as another:  # its own budget
            assert (await another.get("/no/such/path")).status_code == 404
        # Health, readiness and the rules catalogue are not limited, by their exact path.
        assert (await client.get("/healthz")).status_code == 200
        assert (await client.get("/readyz")).status_code == 200
        assert (await client.get("/v1/rules")).status_code == 200


# --- the metrics: the operator's scrapers only, one rendering for a crowd ---------------


async def test_the_metrics_are_for_the_operators_scrapers_only(settings: Settings) -> None:
    changes: dict[str, Any] = {"metrics_token": METRICS_TOKEN, "trusted_proxies": ["10.0.0.1"]}
    async with served(settings, **changes) as app:
        for host in (IN_PROCESS, "127.0.0.1", "127.0.0.9", "::1", "::ffff:127.0.0.1"):
            async with from_address(app, host) as local:
                assert (await local.get("/metrics")).status_code == 200, host
        async with from_address(app, "203.0.113.9") as outsider:
            refused = await outsider.get("/metrics")
            assert refused.status_code == 404
            assert refused.headers["content-type"] == "application/problem+json"
            assert refused.json()["type"] == "/problems/not-found"
            wrong = {"Authorization": "Bearer not-the-metrics-token"}
            assert (await outsider.get("/metrics", headers=wrong)).status_code == 404
            scraper = {"Authorization": f"Bearer {METRICS_TOKEN}"}
            scraped = await outsider.get("/metrics", headers=scraper)
            assert scraped.status_code == 200
            assert "shutbox_requests_total" in scraped.text
        # Through a trusted proxy, the client it names is the one asking, not the proxy.
        for named in ("203.0.113.9", "not an ip"):
            async with from_address(app, "10.0.0.1", **{"X-Forwarded-For": named}) as via:
                assert (await via.get("/metrics")).status_code == 404, named
    async with served(settings, metrics_allow=["none"]) as app:
        for host in (IN_PROCESS, "127.0.0.1"):
            async with from_address(app, host) as local:
                assert (await local.get("/metrics")).status_code == 404, host


@pytest.fixture
def rendering_held(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[list[int], threading.Event]]:
    """Each rendering of the metrics counted; one made off the event loop's thread held
    until the event is set (one on the loop is not: it would hold the loop)."""
    renderings: list[int] = []
    release = threading.Event()
    loop_thread = threading.get_ident()
    collect = CollectorRegistry.collect

    def counted(self: CollectorRegistry) -> Any:
        renderings.append(1)
        if threading.get_ident() != loop_thread:
            release.wait()
        yield from collect(self)

    monkeypatch.setattr(CollectorRegistry, "collect", counted)
    try:
        yield renderings, release
    finally:
        release.set()  # never a thread left waiting


async def let_the_others_arrive() -> None:
    """Turns of the event loop enough for the requests started together to reach their
    handler (nothing on their way waits for I/O)."""
    for _ in range(2_000):
        await asyncio.sleep(0)


async def test_concurrent_scrapes_share_one_rendering(
    settings: Settings, rendering_held: tuple[list[int], threading.Event]
) -> None:
    renderings, release = rendering_held
    async with served(settings) as app, from_address(app, "127.0.0.1") as scraper:
        scrapes = [asyncio.ensure_future(scraper.get("/metrics")) for _ in range(20)]
        await let_the_others_arrive()
        release.set()
        answers = await asyncio.gather(*scrapes)
        assert [answer.status_code for answer in answers] == [200] * 20
        assert len({answer.content for answer in answers}) == 1
        assert len(renderings) == 1
        # One that comes after it has a rendering of its own: nothing is kept.
        assert (await scraper.get("/metrics")).status_code == 200
        assert len(renderings) == 2


# --- readiness: a crowd takes one pooled connection -------------------------------------


@asynccontextmanager
async def readiness_checks_held() -> AsyncIterator[tuple[list[int], asyncio.Event]]:
    """Each readiness query (``SELECT 1``) counted, held until the event is set."""
    checks: list[int] = []
    release = asyncio.Event()
    fetchval = asyncpg.connection.Connection.fetchval

    async def counted(self: asyncpg.Connection, query: str, *args: Any, **kwargs: Any) -> Any:
        if query == "SELECT 1":
            checks.append(1)
            await release.wait()
        return await fetchval(self, query, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(asyncpg.connection.Connection, "fetchval", counted)
        try:
            yield checks, release
        finally:
            release.set()


async def test_a_crowd_of_readiness_checks_takes_one_connection(settings: Settings) -> None:
    async with served(settings) as app, from_address(app, "203.0.113.10") as crowd:
        async with readiness_checks_held() as (checks, release):
            asked = [asyncio.ensure_future(crowd.get("/readyz")) for _ in range(30)]
            await let_the_others_arrive()
            release.set()
            answers = await asyncio.gather(*asked)
        assert [answer.status_code for answer in answers] == [200] * 30
        assert {answer.json()["database"] for answer in answers} == {"up"}
        assert len(checks) == 1
        # One that comes after it has an answer of its own: nothing is kept.
        async with readiness_checks_held() as (checks, release):
            release.set()
            assert (await crowd.get("/readyz")).json()["status"] == "ready"
        assert len(checks) == 1


# --- addresses as networks --------------------------------------------------------------


def test_an_address_is_limited_as_its_network() -> None:
    assert limited_as("198.51.100.7", 64) == "198.51.100.7"
    assert limited_as("::ffff:198.51.100.7", 64) == "198.51.100.7"  # IPv4-mapped
    assert limited_as("2001:db8:1:2::1", 64) == limited_as("2001:db8:1:2:ffff:ab::9", 64)
    assert limited_as("2001:db8:1:2::1", 64) == "2001:db8:1:2::/64"
    assert limited_as("2001:db8:1:3::1", 64) == "2001:db8:1:3::/64"
    assert limited_as("2001:db8:1:2::1", 48) == limited_as("2001:db8:1:ff::1", 48)
    assert limited_as("2001:db8:1:2::1", 128) == "2001:db8:1:2::1/128"
    assert limited_as("::1", 64) == limited_as("127.0.0.1", 64) == limited_as("127.8.9.1", 64)
    assert limited_as("::1", 64) == LOOPBACK
    assert limited_as("testclient", 64) == "testclient"  # no IP: as given
    assert len(limited_as("x" * 10_000, 64)) <= 64
    assert len(limited_as(":" * 10_000, 64)) <= 64


async def test_every_address_of_a_network_shares_its_buckets() -> None:
    limiter = RateLimiter(Cache(None, "t:"), None, None, [])
    limit = [("address", Limit(2, 3600))]
    assert await limiter.take("2001:db8:1:2::1", limit) == 0
    assert await limiter.take("2001:db8:1:2:ffff::9", limit) == 0
    assert await limiter.take("2001:db8:1:2::3", limit) > 0  # the /64 is one client
    assert await limiter.take("2001:db8:1:3::1", limit) == 0  # the next /64 is another
    assert await limiter.take("198.51.100.7", limit) == 0
    assert await limiter.take("::ffff:198.51.100.7", limit) == 0
    assert await limiter.take("198.51.100.7", limit) > 0  # one IPv4 client either way
    assert await limiter.take("127.0.0.1", limit) == 0
    assert await limiter.take("::1", limit) == 0
    assert await limiter.take("127.0.0.2", limit) > 0  # the host's addresses are one
    wider = RateLimiter(Cache(None, "t:"), None, None, [], ipv6_prefix=48)
    assert await wider.take("2001:db8:1:2::1", limit) == 0
    assert await wider.take("2001:db8:1:3::1", limit) == 0
    assert await wider.take("2001:db8:1:4::1", limit) > 0


def test_a_trusted_proxy_on_a_dual_stack_socket_is_still_trusted() -> None:
    limiter = RateLimiter(Cache(None, "t:"), None, None, ["10.0.0.0/8"])
    forwarded = [(b"x-forwarded-for", b"198.51.100.1")]
    scope: Any = {"type": "http", "client": ("::ffff:10.1.2.3", 5000), "headers": forwarded}
    assert limiter.client_address(scope) == "198.51.100.1"


@pytest.mark.parametrize("redis_mode", ["redis", "no-redis"], indirect=True)
async def test_each_limit_per_address_counts_by_network(settings: Settings) -> None:
    limits: dict[str, Any] = {
        "rate_limit_address": "3/h",
        "rate_limit_accounts": "2/h",
        "rate_limit_claims": "1/h",
    }
    async with served(settings, **limits) as app:
        statuses = []
        for host in ("2001:db8:5:6::1", "2001:db8:5:6::2", "2001:db8:5:6:7::3"):
            async with from_address(app, host) as one:
                statuses.append((await one.post("/v1/players", json={})).status_code)
        assert statuses == [201, 201, 429]  # accounts: one /64, one budget
        async with from_address(app, "2001:db8:5:6::4") as one:
            assert (await one.post("/v1/players/claim", json={"code": "x"})).status_code != 429
        async with from_address(app, "2001:db8:5:6::5") as one:
            assert (await one.post("/v1/players/claim", json={"code": "x"})).status_code == 429
            # The general limit: the /64 has spent 3 (a request refused takes nothing).
            assert (await one.get("/v1/solution")).status_code == 429
        async with from_address(app, "2001:db8:5:7::1") as other:
            assert (await other.post("/v1/players", json={})).status_code == 201
        for host in ("198.51.100.20", "::ffff:198.51.100.20"):
            async with from_address(app, host) as mapped:
                assert (await mapped.get("/v1/solution")).status_code == 200
        async with from_address(app, "198.51.100.20") as mapped:
            assert (await mapped.get("/v1/solution")).status_code == 200
            assert (await mapped.get("/v1/solution")).status_code == 429


# --- the settings -----------------------------------------------------------------------


def test_the_settings_of_scrapers_and_networks_are_read_and_checked() -> None:
    settings = Settings.from_env(
        {
            "SHUTBOX_RATE_LIMIT_IPV6_PREFIX": "56",
            "SHUTBOX_METRICS_ALLOW": "10.0.0.0/8, ::1",
            "SHUTBOX_METRICS_TOKEN": METRICS_TOKEN,
        }
    )
    assert settings.rate_limit_ipv6_prefix == 56
    assert [str(network) for network in settings.metrics_networks] == ["10.0.0.0/8", "::1/128"]
    assert settings.metrics_token == METRICS_TOKEN
    default = Settings.from_env({})
    assert default.rate_limit_ipv6_prefix == 64
    assert [str(n) for n in default.metrics_networks] == ["127.0.0.0/8", "::1/128"]
    assert default.metrics_token is None
    assert Settings.from_env({"SHUTBOX_METRICS_ALLOW": "none"}).metrics_networks == []
    for bad in (
        {"SHUTBOX_RATE_LIMIT_IPV6_PREFIX": "0"},
        {"SHUTBOX_RATE_LIMIT_IPV6_PREFIX": "129"},
        {"SHUTBOX_METRICS_ALLOW": "localhost"},
        {"SHUTBOX_METRICS_TOKEN": "short"},
    ):
        with pytest.raises(SettingsError):
            Settings.from_env(bad)
