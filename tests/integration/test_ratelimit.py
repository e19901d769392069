"""Rate limits: per address and per token, 429 with Retry-After, atomic across workers."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from service.api.front.ratelimit import RateLimiter
from service.store.cache import Cache
from service.support.settings import Limit, Settings, SettingsError
from tests.conftest import (
    REDIS_URL,
    ServerProcess,
    app_with,
    declared,
    from_address,
    on_redis_cluster_too,
    served,
)


@pytest.fixture
async def limited(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    # A fresh prefix per test: these buckets must start full.
    async with app_with(settings, rate_limit_address="6/h", rate_limit_token="3/h") as client:
        yield client


@on_redis_cluster_too
async def test_an_address_over_its_limit_gets_429(
    limited: httpx.AsyncClient, client: httpx.AsyncClient
) -> None:
    answers = [await limited.get("/v1/solution") for _ in range(8)]
    assert [a.status_code for a in answers] == [200] * 6 + [429] * 2
    refused = answers[-1]
    assert refused.headers["content-type"] == "application/problem+json"
    assert refused.json()["type"] == "/problems/rate-limited"
    assert int(refused.headers["retry-after"]) >= 1
    assert (await limited.get("/healthz")).status_code == 200  # operations are not limited
    # Its members in the order of every other problem's (the framework's): one registry.
    other = await client.get("/v1/daily/not-a-date")
    assert other.status_code == 400
    assert list(other.json()) == list(refused.json())


@on_redis_cluster_too
async def test_a_token_over_its_limit_gets_429(limited: httpx.AsyncClient) -> None:
    player = (await limited.post("/v1/players", json={})).json()
    headers = {"Authorization": f"Bearer {player['token']}"}
    answers = [await limited.get("/v1/players/me", headers=headers) for _ in range(4)]
    assert [a.status_code for a in answers] == [200, 200, 200, 429]


@on_redis_cluster_too
async def test_a_request_one_limit_refuses_takes_nothing_from_the_others(
    limited: httpx.AsyncClient,
) -> None:
    # The address may send 6, the token 3: the token's refusals leave the address's
    # tokens where they were (on a cluster too: a request's buckets share a slot).
    player = (await limited.post("/v1/players", json={})).json()
    headers = {"Authorization": f"Bearer {player['token']}"}
    with_token = [await limited.get("/v1/players/me", headers=headers) for _ in range(5)]
    assert [a.status_code for a in with_token] == [200, 200, 200, 429, 429]
    without = [await limited.get("/v1/solution") for _ in range(3)]
    assert [a.status_code for a in without] == [200, 200, 429]


@pytest.mark.parametrize(
    ("text", "limit"),
    [("600/m", Limit(600, 60)), ("5/s", Limit(5, 1)), ("20/h", Limit(20, 3600)), ("off", None)],
)
def test_limits_are_read_from_settings(text: str, limit: Limit | None) -> None:
    assert Limit.parse(text) == limit


def test_an_unreadable_limit_stops_the_start() -> None:
    with pytest.raises(SettingsError, match="rate limit"):
        Settings.from_env({"SHUTBOX_RATE_LIMIT_ADDRESS": "lots"})


def test_each_operations_own_limit_is_read_from_its_variable() -> None:
    for name in Settings().operation_limits:
        variable = f"SHUTBOX_RATE_LIMIT_{name.upper()}"
        assert Settings.from_env({variable: "5/m"}).operation_limits[name] == Limit(5, 60)
        assert Settings.from_env({variable: "off"}).operation_limits[name] is None
        with pytest.raises(SettingsError, match="rate limit"):
            Settings.from_env({variable: "lots"})


def scope(peer: str, forwarded: str | None = None) -> Any:
    headers = [(b"x-forwarded-for", forwarded.encode())] if forwarded else []
    return {"type": "http", "client": (peer, 5000), "headers": headers}


def test_forwarded_for_is_believed_only_from_trusted_proxies() -> None:
    limiter = RateLimiter(Cache(None, "t:"), Limit(1, 1), Limit(1, 1), ["10.0.0.0/8", "::1"])
    assert limiter.client_address(scope("203.0.113.9", "198.51.100.1")) == "203.0.113.9"
    assert limiter.client_address(scope("10.1.2.3", "198.51.100.1")) == "198.51.100.1"
    # A client cannot hide behind an address it writes itself: the nearest untrusted wins.
    assert limiter.client_address(scope("10.1.2.3", "1.2.3.4, 198.51.100.1, 10.9.9.9")) == (
        "198.51.100.1"
    )
    assert limiter.client_address(scope("::1", "2001:db8::7")) == "2001:db8::7"
    assert limiter.client_address(scope("10.1.2.3")) == "10.1.2.3"


def test_limits_hold_across_two_workers(
    server_env: dict[str, str], redis_prefix: str, shared_redis_url: str
) -> None:
    env = {
        **server_env,
        "REDIS_URL": shared_redis_url,
        "SHUTBOX_REDIS_PREFIX": f"{redis_prefix}across:",
        "SHUTBOX_RATE_LIMIT_ADDRESS": "20/h",
        "SHUTBOX_TRUSTED_PROXIES": "127.0.0.1",
    }
    server = ServerProcess(env, workers=2).start()

    async def burst(forwarded: str, count: int) -> Counter[int]:
        async def one() -> int:
            async with httpx.AsyncClient(base_url=server.url, timeout=30) as client:
                response = await client.get("/v1/solution", headers={"X-Forwarded-For": forwarded})
                return response.status_code

        return Counter(await asyncio.gather(*(one() for _ in range(count))))

    try:
        first = asyncio.run(burst("198.51.100.1", 60))
        other = asyncio.run(burst("198.51.100.2", 10))
    finally:
        server.stop()
    assert first == {200: 20, 429: 40}  # one bucket, shared by both workers
    assert other == {200: 10}  # another client behind the same proxy has its own


async def test_the_daily_feed_and_operations_are_not_limited(limited: httpx.AsyncClient) -> None:
    for _ in range(10):
        assert (await limited.get("/v1/daily/2026-11-29")).status_code == 200
        assert (await limited.get("/readyz")).status_code == 200
    assert (await limited.get("/v1/solution")).status_code == 200  # the bucket is still full


async def test_a_refused_request_takes_no_token_from_its_other_limits() -> None:
    limiter = RateLimiter(Cache(None, "t:"), None, None, [])
    address, token = Limit(2, 3600), Limit(1, 3600)
    client = "198.51.100.4"
    assert await limiter.take(client, [("address", address), ("token", token)]) == 0
    assert await limiter.take(client, [("address", address), ("token", token)]) > 0
    # The refused request left the address its second token, and only that one.
    assert await limiter.take(client, [("address", address)]) == 0
    assert await limiter.take(client, [("address", address)]) > 0


async def test_requests_sharing_one_redis_call_are_taken_in_order_as_in_a_process(
    redis_prefix: str, shared_redis_url: str
) -> None:
    """Requests of several clients at once, taken in Redis by the limiter's batches (the
    first alone, the rest together; one script call a hash slot on a cluster): each is
    all or nothing, in order, exactly as the in-process buckets decide them one after
    another."""
    import secrets

    address, token, other = Limit(4, 3600), Limit(2, 3600), Limit(1, 3600)
    named = [
        ("198.51.100.1", [("a", address), ("t", token)]),
        ("198.51.100.2", [("o", other)]),
        ("198.51.100.1", [("a", address)]),
        ("198.51.100.1", [("a", address), ("t", token)]),
        ("198.51.100.3", [("a", address), ("t", token)]),
        ("198.51.100.1", [("a", address), ("t", token)]),  # the token is spent: refused...
        ("198.51.100.1", [("a", address)]),  # ...and the address has its last token
        ("198.51.100.2", [("o", other)]),
        ("198.51.100.1", [("a", address)]),
    ]
    cache = Cache.connect(shared_redis_url, f"{redis_prefix}{secrets.token_hex(4)}:")
    limiter = RateLimiter(cache, None, None, [])
    try:
        shared = await asyncio.gather(*(limiter.take(c, buckets) for c, buckets in named))
        assert cache.usable  # decided by the script, not by the fallback to this process
        if cache.clustered:  # the clients' buckets live in slots of their own
            slots = {cache.slot(cache.key(c, "ratelimit", "a")) for c, _buckets in named}
            assert len(slots) == 3
    finally:
        await cache.close()
    alone = RateLimiter(Cache(None, "t:"), None, None, [])
    one_by_one = [await alone.take(c, buckets) for c, buckets in named]
    allowed = [wait == 0 for wait in shared]
    assert allowed == [wait == 0 for wait in one_by_one]
    assert allowed == [True, True, True, True, True, False, True, False, False]


@on_redis_cluster_too
async def test_requests_of_one_process_at_once_share_the_buckets(
    settings: Settings, redis_mode: str
) -> None:
    """Many requests of several clients at once from one process (batched together):
    each client gets exactly its limit, whatever Redis (or none) decides them."""
    import secrets

    cache = Cache.connect(settings.redis_url, f"{settings.redis_prefix}{secrets.token_hex(4)}:")
    limiter = RateLimiter(cache, None, None, [])
    clients = [f"203.0.113.{n}" for n in range(1, 9)] * 8
    try:
        waits = await asyncio.gather(
            *(limiter.take(client, [("burst", Limit(5, 3600))]) for client in clients)
        )
        assert cache.usable == (redis_mode in ("redis", "redis-cluster"))
    finally:
        await cache.close()
    allowed = Counter(client for client, wait in zip(clients, waits) if wait == 0)
    assert allowed == dict.fromkeys(clients, 5)


async def test_tokens_taken_ahead_never_let_processes_past_the_limit(
    redis_prefix: str, shared_redis_url: str
) -> None:
    """A process takes a few tokens at once from a large bucket and spends them on the
    client's next requests: alone it gets exactly the limit; two processes taking turns
    never get more between them, and at most the tokens each holds ahead fewer."""
    import secrets

    from service.store.buckets.ahead import ahead

    limit = Limit(256, 3600)
    assert ahead(limit) == 4
    prefix = f"{redis_prefix}{secrets.token_hex(4)}:"
    caches = [Cache.connect(shared_redis_url, prefix) for _ in range(3)]
    alone, first, second = (RateLimiter(cache, None, None, []) for cache in caches)
    try:
        waits = [await alone.take("198.51.100.7", [("address", limit)]) for _ in range(300)]
        assert sum(wait == 0 for wait in waits) == 256
        assert all(wait > 0 for wait in waits[256:])
        allowed = 0
        for n in range(400):
            limiter = first if n % 3 else second
            allowed += await limiter.take("198.51.100.8", [("address", limit)]) == 0
        assert all(cache.usable for cache in caches)
    finally:
        for cache in caches:
            await cache.close()
    assert 256 - 2 * ahead(limit) <= allowed <= 256


async def test_a_large_bucket_seen_first_lets_one_request_through_each_process(
    redis_prefix: str, shared_redis_url: str
) -> None:
    """A process lets the first request of a large bucket it has not seen lately go on
    before Redis answers, its token taken after: once the tokens are taken, a bucket
    another process emptied refuses it too. So a client gets at most one request over
    its limit per process, and only on a large bucket: a small one stays exact."""
    import secrets

    large, small = Limit(256, 3600), Limit(20, 3600)
    prefix = f"{redis_prefix}{secrets.token_hex(4)}:"
    caches = [Cache.connect(shared_redis_url, prefix) for _ in range(3)]
    emptying, late, later = (RateLimiter(cache, None, None, []) for cache in caches)
    try:
        for limit in (large, small):
            name = f"limit-{limit.requests}"
            waits = [await emptying.take("198.51.100.9", [(name, limit)]) for _ in range(300)]
            assert sum(wait == 0 for wait in waits) == limit.requests
            await emptying.reconciled()
        # The large bucket is empty in Redis; a process that never saw it lets one through...
        assert await late.take("198.51.100.9", [("limit-256", large)]) == 0
        await late.reconciled()
        # ...and no more, once it knows: Redis decides its next ones.
        assert await late.take("198.51.100.9", [("limit-256", large)]) > 0
        assert await later.take("198.51.100.9", [("limit-256", large)]) == 0
        await later.reconciled()
        assert all([await later.take("198.51.100.9", [("limit-256", large)]) > 0 for _ in range(5)])
        # The small bucket is exact to the request: Redis decides even the first.
        assert await late.take("198.51.100.9", [("limit-20", small)]) > 0
        # The address and the token of a request: both large, both unseen, both taken.
        fresh = [("address", large), (f"token:{secrets.token_hex(4)}", large)]
        assert await late.take("198.51.100.10", fresh) == 0
        await late.reconciled()
        assert all(cache.usable for cache in caches)
        client = caches[0].redis
        assert client is not None
        for name, _limit in fresh:
            tokens = await client.hget(caches[0].key("198.51.100.10", "ratelimit", name), "tokens")
            assert tokens is not None and float(tokens) <= 256 - 1
    finally:
        for cache in caches:
            await cache.close()


async def test_tokens_let_through_at_first_sight_are_taken_before_the_app_stops(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A request let through at first sight has its token taken in Redis within a
    moment, or when the process stops at the latest: a stopping process drops none."""
    import secrets

    import msgspec
    import redis.asyncio
    from litestar.testing import AsyncTestClient

    import service.store.buckets.shared
    from service.app import create_app
    from service.support.clock import FixedClock
    from tests.conftest import NOW, REDIS_URL

    # Not before the stop.
    monkeypatch.setattr(service.store.buckets.shared, "RECONCILE_SECONDS", 3600.0)
    prefix = f"{settings.redis_prefix}{secrets.token_hex(4)}:"
    changed = msgspec.structs.replace(settings, redis_prefix=prefix, rate_limit_address="1200/h")
    async with AsyncTestClient(create_app(changed, FixedClock(NOW))) as client:
        assert (await client.get("/v1/solution")).status_code == 200
    shared = redis.asyncio.Redis.from_url(REDIS_URL)
    try:
        keys = [key async for key in shared.scan_iter(match=f"{prefix}*ratelimit*")]
        assert len(keys) == 1
        tokens = await shared.hget(keys[0], "tokens")
        assert tokens is not None and float(tokens) < 1200
    finally:
        await shared.aclose()


# --- limits by the route the router chose, however its path is written ------------------


def spellings(path: str) -> list[str]:
    """``path`` and the ways of writing it that the router reads as the same route:
    slashes doubled (at the start, between segments: all of them, or only the last one),
    one added at the end, the first letter of the last segment percent-encoded."""
    head, _, last = path.rpartition("/")
    written = [
        path,
        "/" + path,
        path.replace("/", "//"),
        f"{head}//{last}",
        path + "/",
        f"{head}/%{ord(last[0]):02X}{last[1:]}",
    ]
    return list(dict.fromkeys(written))


def at(client: httpx.AsyncClient, path: str) -> httpx.URL:
    """The URL of ``path`` as written: a path starting with ``//`` is not a host."""
    return client.base_url.copy_with(raw_path=path.encode())


def test_spellings_are_what_they_say() -> None:
    assert spellings("/v1/players/claim") == [
        "/v1/players/claim",
        "//v1/players/claim",
        "//v1//players//claim",
        "/v1/players//claim",
        "/v1/players/claim/",
        "/v1/players/%63laim",
    ]


PARAMETERS = {"{code}": "X", "{day}": "2026-11-27", "{round}": "1"}
"""A value of each path parameter: a request the route's handler answers (a code it
refuses, a date)."""
COUNTED_WITH = {("GET", "/v1/boxes/{code}"): "?mode=target"}
"""What a request must add to its path to count against its operation's own limit, where
only some of its requests do; every request here has a bearer token (a junk one)."""


async def refill(client: httpx.AsyncClient, name: str) -> None:
    """The client's bucket of the limit ``name`` full again (its Redis key gone)."""
    import redis.asyncio

    prefix = client.app.state.services.settings.redis_prefix  # type: ignore[attr-defined]
    shared = redis.asyncio.Redis.from_url(REDIS_URL)
    try:
        async for key in shared.scan_iter(match=f"{prefix}*ratelimit*{name}"):
            await shared.delete(key)
    finally:
        await shared.aclose()


async def test_an_operations_own_limit_holds_however_its_path_is_written(
    settings: Settings,
) -> None:
    """Each operation with a limit of its own (from its handler's ``opt``), each spelling
    of its path once: every spelling takes a token of the one bucket, so the limit is
    spent by them together, and then every spelling is refused. A spelling the router
    does not read as the route (upper case) is a 404, never the operation. The operations
    that share a limit (``stores``) each spend it from full; those whose requests count
    only when they store (a token, target mode) are not refused otherwise."""
    from service.api.boxes import target_seen
    from service.api.front.ratelimit import OWN_LIMIT, STORES, stores_for_a_player

    walked = spellings("/v1/friends")
    limits = {f"rate_limit_{name}": f"{len(walked)}/h" for name in Settings().operation_limits}
    async with app_with(settings, rate_limit_address="1000/h", **limits) as client:
        own = declared(client.app, OWN_LIMIT)
        assert own == {
            ("POST", "/v1/players"): "accounts",
            ("POST", "/v1/players/claim"): "claims",
            ("POST", "/v1/friends"): "friends",
            ("GET", "/v1/friend-codes/{code}"): "friends",
            ("POST", "/v1/daily/{day}/runs"): STORES,
            ("POST", "/v1/daily/{day}/practice"): stores_for_a_player,
            ("POST", "/v1/boxes"): STORES,
            ("GET", "/v1/boxes/{code}"): target_seen,
            ("POST", "/v1/boxes/{code}/runs"): STORES,
            ("POST", "/v1/series"): STORES,
            ("POST", "/v1/series/{code}/players"): STORES,
            ("POST", "/v1/series/{code}/rounds/{round}/runs"): STORES,
        }
        junk = {"Authorization": "Bearer " + "j" * 43}
        for (method, template), limit in own.items():
            name = limit if isinstance(limit, str) else STORES
            await refill(client, name)
            path = template
            for parameter, value in PARAMETERS.items():
                path = path.replace(parameter, value)
            written = spellings(path)
            assert len(written) == len(walked)
            counted = COUNTED_WITH.get((method, template), "")

            async def send(path: str, method: str = method, **headers: str) -> int:
                url = at(client, path)
                return (await client.request(method, url, json={}, headers=headers)).status_code

            first = [await send(p + counted, **junk) for p in written]
            assert 404 not in first and 429 not in first, (template, first)
            again = [await send(p + counted, **junk) for p in written]
            assert again == [429] * len(written), template
            assert await send(path.upper() + counted, **junk) == 404
            if not isinstance(limit, str):  # storing nothing: not counted, not refused
                assert await send(path) != 429, template  # no token
                assert await send(path + counted) != 429, template
                if counted:
                    assert await send(path, **junk) != 429, template


# --- one budget per address for every request that stores -------------------------------


@pytest.mark.parametrize("redis_mode", ["redis", "no-redis"], indirect=True)
async def test_the_requests_that_store_share_one_budget_per_address(
    settings: Settings, database_url: str
) -> None:
    """Spent on some storing operations, the budget refuses every other one from the
    address (429, Retry-After), storing nothing; what stores nothing goes on, and so
    does another address."""
    from tests.conftest import NOW, fetchval
    from tests.integration.api.helpers import auth, new_player
    from tests.runs import legal_runs

    today, closed = NOW.date().isoformat(), "2026-11-20"
    async with (
        served(settings, rate_limit_stores="3/h") as app,
        from_address(app, "198.51.100.29") as client,
    ):
        player = await new_player(client)
        mine = auth(player)
        dice = (await client.get(f"/v1/daily/{today}")).json()["dice"]
        old_dice = (await client.get(f"/v1/daily/{closed}")).json()["dice"]
        run, practice = legal_runs(dice, 1)[0], legal_runs(old_dice, 1)[0]
        spent = [
            await client.post(f"/v1/daily/{today}/runs", json={"moves": run}, headers=mine),
            await client.post(
                f"/v1/daily/{closed}/practice", json={"moves": practice}, headers=mine
            ),
            await client.post("/v1/boxes", json={}, headers=mine),
        ]
        assert [a.status_code for a in spent] == [201] * 3, [a.text for a in spent]
        box = spent[2].json()["code"]
        refused = [
            await client.post("/v1/boxes", json={}, headers=mine),
            await client.post(
                "/v1/series", json={"format": {"kind": "rounds", "rounds": 3}}, headers=mine
            ),
            await client.post(f"/v1/boxes/{box}/runs", json={"moves": []}, headers=mine),
            await client.get(f"/v1/boxes/{box}?mode=target", headers=mine),
            await client.post(
                f"/v1/daily/{closed}/practice", json={"moves": practice}, headers=mine
            ),
            await client.post(f"/v1/daily/{today}/runs", json={"moves": run}, headers=mine),
            await client.post("/v1/series/X/players", headers=mine),
            await client.post("/v1/series/X/rounds/1/runs", json={}, headers=mine),
        ]
        for answer in refused:
            assert answer.status_code == 429, (answer.request.url, answer.text)
            assert answer.json()["type"] == "/problems/rate-limited"
            assert int(answer.headers["retry-after"]) >= 1
        boxes = "SELECT count(*) FROM boxes WHERE owner_id = $1"
        assert await fetchval(database_url, boxes, player["id"]) == 1
        # What stores nothing: practice without a token, a box in blind mode, a code.
        anonymous = await client.post(f"/v1/daily/{closed}/practice", json={"moves": practice})
        assert anonymous.status_code == 201, anonymous.text
        assert (await client.get(f"/v1/boxes/{box}", headers=mine)).status_code == 200
        assert (await client.get(f"/v1/boxes/{box}?mode=target")).status_code == 200
        assert (await client.post("/v1/players/me/friend-code", headers=mine)).status_code == 201
        async with from_address(app, "198.51.100.30") as other:
            assert (await other.post("/v1/boxes", json={}, headers=mine)).status_code == 201
        assert await fetchval(database_url, boxes, player["id"]) == 2


async def test_the_budget_of_requests_that_store_can_be_turned_off(settings: Settings) -> None:
    from tests.integration.api.helpers import auth, new_player

    async with app_with(settings, rate_limit_address="20/h", rate_limit_stores="off") as client:
        mine = auth(await new_player(client))
        made = [
            (await client.post("/v1/boxes", json={}, headers=mine)).status_code for _ in range(8)
        ]
    assert made == [201] * 8


async def test_every_spelling_of_a_hot_route_costs_a_token(settings: Settings) -> None:
    """The fast path answers the path as written, the framework's router the other
    spellings (``service.api.front.hot``): both count against the address's limit."""
    written = spellings("/v1/analyze")
    async with app_with(settings, rate_limit_address=f"{len(written) + 1}/h") as client:
        answers = [(await client.post(at(client, p), json={})).status_code for p in written]
        assert answers == [400] * len(written)  # answered by the handler: an empty body
        assert (await client.post("/V1/ANALYZE", json={})).status_code == 404
        assert (await client.post("/v1/analyze", json={})).status_code == 429


DOCS_ROUTES = ("/schema", "/schema/openapi.json", "/schema/scalar", "/schema/{path}")


async def test_what_is_not_limited_stays_so_however_its_path_is_written(
    settings: Settings,
) -> None:
    """With the address's budget spent, every spelling of an operation whose handler is
    not limited is still answered; whatever else is under its path, or in another case,
    is refused."""
    from service.api.front.ratelimit import NOT_LIMITED

    day = "2026-11-29"
    async with app_with(settings, rate_limit_address="2/h") as client:
        assert set(declared(client.app, NOT_LIMITED)) == {
            ("GET", "/healthz"),
            ("GET", "/readyz"),
            ("GET", "/v1/rules"),
            ("GET", "/v1/daily/{day}"),
            # The docs' router: its test (``docs_page``) says no to its 404 page and to
            # another method (below).
            *((m, p) for m in ("GET", "OPTIONS") for p in DOCS_ROUTES),
        }
        assert [(await client.get("/no/such/path")).status_code for _ in range(2)] == [404] * 2
        for path in ("/healthz", "/readyz", "/v1/rules", f"/v1/daily/{day}", "/schema/scalar"):
            for spelt in spellings(path):
                assert (await client.get(at(client, spelt))).status_code == 200, spelt
            assert (await client.get(path.upper())).status_code == 429, path
        for path in ("/schema", "/schema/openapi.json"):
            assert (await client.get(path)).status_code == 200, path
        for junk in ("/v1/daily/not-a-date", "/schema/junk", "/healthz/junk", "/no/such/path"):
            assert (await client.get(junk)).status_code == 429, junk
        assert (await client.post("/healthz")).status_code == 429  # another method
        assert (await client.options("/schema")).status_code == 429


def test_a_real_server_counts_every_spelling_against_the_one_limit(
    server_env: dict[str, str], redis_prefix: str
) -> None:
    """As the attacker sent them, to ``shutbox serve`` (granian hands the router the path
    as sent, percent-decoded): after the limit is spent, every spelling is refused."""
    written = spellings("/v1/friends")
    env = {
        **server_env,
        "SHUTBOX_REDIS_PREFIX": f"{redis_prefix}spelt:",
        "SHUTBOX_RATE_LIMIT_FRIENDS": f"{len(written)}/h",
    }
    server = ServerProcess(env, workers=1).start()
    try:
        with httpx.Client(timeout=30) as client:

            def send(path: str) -> int:
                url = httpx.URL(server.url).copy_with(raw_path=path.encode())
                return client.post(url, json={}).status_code

            first = [send(p) for p in written]
            again = [send(p) for p in written]
            upper = send("/V1/FRIENDS")
    finally:
        server.stop()
    assert 404 not in first and 429 not in first, first
    assert again == [429] * len(written)
    assert upper == 404
