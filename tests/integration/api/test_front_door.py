"""The hot routes answered before the framework (``service.api.front.hot``) answer as the
framework would: same templates for the metrics, same answers, CORS and host checks
left to the framework, and a 500 problem for an error raised on the way."""

from __future__ import annotations

import re
from typing import Annotated, Any

import httpx
import msgspec
import pytest
from litestar import Controller, get
from litestar.params import PathParameter

from service.api.daily import feed_reply
from service.api.front import ratelimit
from service.api.front.answers import content_length
from service.api.front.hot import BEFORE_FRAMEWORK, ByPath, Reply
from service.app import App, create_app, route_handlers
from service.rules.dice import derive_dice
from service.rules.ruleset import Rules
from service.support.settings import Settings
from tests.conftest import NOW, app_with, declared
from tests.integration.api.helpers import auth, daily_dice, new_player
from tests.runs import legal_run, legal_runs

DAY = NOW.date().isoformat()
METHODS = {"get", "put", "post", "patch", "delete"}
SAMPLES = {
    "GET /v1/daily/{day}": ("GET", f"/v1/daily/{DAY}"),
    "POST /v1/analyze": ("POST", "/v1/analyze"),
    "POST /v1/daily/{day}/runs": ("POST", f"/v1/daily/{DAY}/runs"),
    "GET /v1/players/me/streak": ("GET", "/v1/players/me/streak"),
    "GET /v1/players/me/today": ("GET", "/v1/players/me/today"),
    "GET /v1/daily/{day}/friends": ("GET", f"/v1/daily/{DAY}/friends"),
    "GET /v1/daily/{day}/share": ("GET", f"/v1/daily/{DAY}/share"),
}
PLAYER_READS = [path for method, path in SAMPLES.values() if method == "GET"][1:]
"""The hot GETs of a player (``ByHeaders``), in the order of ``SAMPLES``."""


def test_each_hot_route_carries_the_template_the_router_gives(settings: Settings) -> None:
    app = create_app(settings)
    assert isinstance(app, App)
    assert sorted(f"{route.method} {route.template}" for route in app.hot_routes) == sorted(SAMPLES)
    for route in app.hot_routes:
        method, path = SAMPLES[f"{route.method} {route.template}"]
        assert route.path.fullmatch(path)
        _app, handler, *_, template = app.asgi_router.handle_routing(path=path, method=method)
        assert template == route.template
        assert handler is route.handler  # the router's, whose opt names the answerer


def test_each_hot_route_is_answered_by_its_own_handlers_answerer(settings: Settings) -> None:
    """The fast path and the handlers' ``opt`` agree: a route is hot exactly when its
    handler names an answerer, and is answered by that one (the feed's answerer on the
    feed's route, and on no other)."""
    app = create_app(settings)
    assert isinstance(app, App)
    hot = {(route.method, route.template): route for route in app.hot_routes}
    assert {where: route.answerer for where, route in hot.items()} == declared(
        app, BEFORE_FRAMEWORK
    )
    for route in app.hot_routes:
        assert route.answerer is route.handler.opt[BEFORE_FRAMEWORK]
    feed = [route for route in app.hot_routes if route.answerer == ByPath(feed_reply)]
    assert [(route.method, route.template) for route in feed] == [("GET", "/v1/daily/{day}")]


async def probe_reply(scope: Any, path: re.Match[str]) -> Reply | None:
    """A GET's fast path of its own: its name back, or None (to the handler) for "pass"."""
    if path["name"] == "pass":
        return None
    body = msgspec.json.encode({"answered": "before", "name": path["name"]})
    return 200, [(b"content-type", b"application/json"), content_length(body)], body


Name = Annotated[str, PathParameter()]


class Probe(Controller):
    """Routes added hot: a GET with an answerer of its own and no word on limits, and a
    GET that names none."""

    path = "/probe"

    @get("/{name:str}", opt={BEFORE_FRAMEWORK: ByPath(probe_reply)}, include_in_schema=False)
    async def hot(self, name: Name) -> dict[str, str]:
        return {"answered": "handler", "name": name}

    @get("/{name:str}/cold", include_in_schema=False)
    async def cold(self, name: Name) -> dict[str, str]:
        return {"answered": "handler", "name": name}


async def test_a_get_added_hot_is_answered_by_its_own_answerer_and_limited(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A GET marked hot with an answerer of its own is answered by that one, before the
    framework, not by the feed's; and it is limited, its handler saying nothing of
    limits (the feed's exemption is the feed handler's alone). A GET naming no answerer
    is the framework's."""
    import secrets

    from litestar.testing import AsyncTestClient

    from service.support.clock import FixedClock

    reached: list[str] = []
    framework = App.framework

    async def seen(self: App, scope: Any, receive: Any, send: Any) -> None:
        reached.append(scope["path"])
        await framework(self, scope, receive, send)

    monkeypatch.setattr(App, "framework", seen)
    prefix = f"{settings.redis_prefix}{secrets.token_hex(4)}:"
    changed = msgspec.structs.replace(settings, redis_prefix=prefix, rate_limit_address="4/h")
    app = create_app(changed, FixedClock(NOW), handlers=[*route_handlers(), Probe])
    assert isinstance(app, App)
    assert ("GET", "/probe/{name}") in {(r.method, r.template) for r in app.hot_routes}
    assert ("GET", "/probe/{name}/cold") not in {(r.method, r.template) for r in app.hot_routes}
    async with AsyncTestClient(app) as client:
        answers = [await client.get(f"/probe/{name}") for name in ("a", DAY, "pass")]
        assert [a.json() for a in answers] == [
            {"answered": "before", "name": "a"},
            {"answered": "before", "name": DAY},  # a date: still its own, not the feed
            {"answered": "handler", "name": "pass"},
        ]
        assert reached == ["/probe/pass"]  # only what its answerer handed on
        cold = await client.get("/probe/b/cold")
        assert cold.json() == {"answered": "handler", "name": "b"}
        assert (await client.get("/probe/c")).status_code == 429  # the fifth: limited
        for _ in range(3):  # the feed is not limited: its handler says so
            assert (await client.get(f"/v1/daily/{DAY}")).status_code == 200


def test_a_fast_path_not_named_by_its_answerer_is_refused_at_start_up(
    settings: Settings,
) -> None:
    """``True`` (once "the feed") or a bare function says nothing of what answers: the
    app does not start."""

    async def bare(scope: Any, path: re.Match[str]) -> Reply | None:
        return None

    for word in (True, bare):

        class Vague(Controller):
            path = "/vague"

            @get("/{name:str}", opt={BEFORE_FRAMEWORK: word}, include_in_schema=False)
            async def vague(self, name: Name) -> str:
                return name

        with pytest.raises(TypeError, match="ByBody, ByPath or ByHeaders"):
            create_app(settings, handlers=[*route_handlers(), Vague])


def answer_of(response: httpx.Response) -> tuple[int, dict[str, str], Any]:
    """The answer but its request id, what CORS adds for a browser, and its run's id and
    rank (each side has a player of its own; the second ranks among two)."""
    headers = {
        k: v
        for k, v in response.headers.items()
        if k != "x-request-id" and not k.startswith("access-control-")
    }
    vary = [v.strip() for v in headers.pop("vary", "").split(",") if v.strip() != "Origin"]
    if any(vary):
        headers["vary"] = ", ".join(vary)
    body = response.json()
    if isinstance(body, dict) and "rank" in body:
        # The rank's figures may differ in length (other runs of the date): so may the body.
        headers.pop("content-length", None)
    if isinstance(body, dict):
        for of_the_player in ("run_id", "official_run_id", "rank"):
            body.pop(of_the_player, None)
    return response.status_code, headers, body


async def test_before_and_inside_the_framework_the_answers_are_the_same(
    settings: Settings,
) -> None:
    """With CORS configured, a browser's request (Origin) takes the framework's way and
    gets CORS headers; the same request without Origin is answered before it."""
    origin = "https://play.example"
    async with app_with(settings, cors_origins=[origin]) as client:
        dice = derive_dice(b"front door", "box/F1", Rules().rolls)
        analyze: dict[str, Any] = {"dice": dice, "moves": legal_run(dice)}
        runs = legal_runs(await daily_dice(client, DAY), 2)
        players = [await new_player(client), await new_player(client)]  # one each way
        sent: list[tuple[str, str, Any, list[dict[str, str]]]] = [
            ("GET", f"/v1/daily/{DAY}", None, [{}, {}]),
            ("POST", "/v1/analyze", analyze, [{}, {}]),
            ("POST", "/v1/analyze", {**analyze, "moves": analyze["moves"][:0]}, [{}, {}]),
            ("POST", "/v1/analyze", {"dice": "no"}, [{}, {}]),
            ("POST", f"/v1/daily/{DAY}/runs", {"moves": runs[0]}, [*map(auth, players)]),
            ("POST", f"/v1/daily/{DAY}/runs", {"moves": runs[0]}, [*map(auth, players)]),
            ("POST", f"/v1/daily/{DAY}/runs", {"moves": runs[1]}, [*map(auth, players)]),
            (
                "POST",
                f"/v1/daily/{DAY}/runs",
                {"moves": runs[0]},
                [{"Authorization": "Bearer x"}] * 2,
            ),
        ]
        # A player's reads: the same player both ways (one who played: 200s; one who has
        # not: the board's 403, the share's 404), and the 401s of no token or a bad one.
        unplayed = await new_player(client)
        for path in PLAYER_READS:
            for headers in (auth(players[0]), auth(unplayed), {}, {"Authorization": "Bearer x"}):
                sent.append(("GET", path, None, [headers, headers]))
            sent.append(("GET", path, None, [{**auth(players[0]), "Accept-Language": "de"}] * 2))
        for method, path, body, (as_front, as_framework) in sent:
            content = None if body is None else msgspec.json.encode(body)
            kind = {"Content-Type": "application/json"} if body is not None else {}
            front = await client.request(method, path, content=content, headers=as_front | kind)
            framework = await client.request(
                method, path, content=content, headers=as_framework | kind | {"Origin": origin}
            )
            assert "access-control-allow-origin" not in front.headers
            assert framework.headers["access-control-allow-origin"] == origin
            assert answer_of(front) == answer_of(framework), (path, body)
            assert front.headers["x-request-id"] != framework.headers["x-request-id"]


async def test_metrics_count_the_hot_routes_by_template(client: httpx.AsyncClient) -> None:
    async def counts() -> list[float]:
        """The count of each hot route's requests with the status expected below."""
        metrics = (await client.get("/metrics")).text.splitlines()
        found = []
        for route, status in zip(SAMPLES, (200, 200, 201, 200, 200, 200, 200), strict=True):
            method, template = route.split(" ")
            labels = f'{{method="{method}",path="{template}",status="{status}"}}'
            line = f"shutbox_requests_total{labels} "
            found.append(sum(float(m.removeprefix(line)) for m in metrics if m.startswith(line)))
        return found

    dice = derive_dice(b"front door", "box/F2", Rules().rolls)
    moves = legal_run(await daily_dice(client, DAY))
    player = await new_player(client)
    before = await counts()
    assert (await client.get(f"/v1/daily/{DAY}")).status_code == 200
    analyze = {"dice": dice, "moves": legal_run(dice)}
    assert (await client.post("/v1/analyze", json=analyze)).status_code == 200
    run = await client.post(f"/v1/daily/{DAY}/runs", json={"moves": moves}, headers=auth(player))
    assert run.status_code == 201
    for path in PLAYER_READS:
        assert (await client.get(path, headers=auth(player))).status_code == 200, path
    assert await counts() == [n + 1 for n in before]


async def test_a_host_the_router_refuses_is_refused_on_a_hot_route(
    client: httpx.AsyncClient,
) -> None:
    for method, path in SAMPLES.values():
        answer = await client.request(method, path, headers={"Host": "bad host/"}, json={})
        assert answer.status_code == 400, (path, answer.text)


async def test_an_error_on_the_way_is_the_500_problem_either_way(
    client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An error raised in the service's middleware (here the rate limiter), before the
    framework (analyze) or inside it (a player's creation): the same 500 problem, with
    the request's id."""

    async def broken(self: ratelimit.RateLimiter, scope: Any, own: str | None = None) -> float:
        raise RuntimeError("a bug")

    monkeypatch.setattr(ratelimit.RateLimiter, "wait_for", broken)
    answers = [
        await client.post("/v1/analyze", json={}, headers={"X-Request-ID": "front"}),
        await client.post("/v1/players", json={}, headers={"X-Request-ID": "framework"}),
    ]
    for answer, rid in zip(answers, ["front", "framework"], strict=True):
        assert answer.status_code == 500
        assert answer.headers["content-type"] == "application/problem+json"
        assert answer.headers["x-request-id"] == rid
        assert answer.json()["type"] == answers[0].json()["type"]
    assert answers[0].content == answers[1].content


async def test_the_frameworks_own_answers_are_logged_and_counted(
    client: httpx.AsyncClient,
) -> None:
    """The log and metrics take every request as it comes: a path no route has (404)
    too, with its id, counted as unmatched (not by its path: any client can make one)."""
    line = 'shutbox_requests_total{method="GET",path="unmatched",status="404"} '

    async def unmatched() -> float:
        metrics = (await client.get("/metrics")).text.splitlines()
        return sum(float(m.removeprefix(line)) for m in metrics if m.startswith(line))

    before = await unmatched()
    answer = await client.get("/no/such/path", headers={"X-Request-ID": "lost"})
    assert (answer.status_code, answer.headers["x-request-id"]) == (404, "lost")
    assert await unmatched() == before + 1


async def test_the_hot_routes_are_answered_without_the_framework(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What all goes well on is answered before the framework, on every hot route: with
    the framework's way shut, the feed (200, 304), an analysis and an official run (201,
    then 200 for the identical run, with and without a key) are still answered; only a
    problem goes on to the framework (the handler answers it from the start)."""
    from service.app import App

    async def shut(self: App, scope: Any, receive: Any, send: Any) -> None:
        raise AssertionError(f"{scope['method']} {scope['path']} reached the framework")

    monkeypatch.setattr(App, "framework", shut)
    async with app_with(settings) as client:
        feed = await client.get(f"/v1/daily/{DAY}")
        assert feed.status_code == 200
        etag = {"If-None-Match": feed.headers["etag"]}
        assert (await client.get(f"/v1/daily/{DAY}", headers=etag)).status_code == 304
        dice = derive_dice(b"front door", "box/F3", Rules().rolls)
        analyze = await client.post("/v1/analyze", json={"dice": dice, "moves": legal_run(dice)})
        assert analyze.status_code == 200
        moves = legal_run([tuple(roll) for roll in feed.json()["dice"]])
        for key in ({}, {"Idempotency-Key": "once"}):
            player = await new_player(client)
            for status in (201, 200 if not key else 201):
                run = await client.post(
                    f"/v1/daily/{DAY}/runs", json={"moves": moves}, headers=auth(player) | key
                )
                assert run.status_code == status, run.text
        for path in PLAYER_READS:  # the reads of a player who played
            assert (await client.get(path, headers=auth(player))).status_code == 200, path
        # The shut way answers 500 (the error on the way): a problem took it.
        problem = await client.post("/v1/analyze", json={"dice": dice, "moves": [[13]]})
        assert problem.status_code == 500


async def test_options_allows_every_method_of_the_path(
    client: httpx.AsyncClient, settings: Settings
) -> None:
    # Litestar 2's own answer named the methods of a path's first handler alone
    # (service.api.front.litestar.options_of_whole_paths): GET of /v1/players/me, not PATCH.
    document = create_app(settings).openapi_schema.to_schema()
    for template, item in document["paths"].items():
        path = re.sub(r"\{[^}]+\}", "1", template)
        response = await client.options(path)
        assert response.status_code == 204, path
        documented = {method.upper() for method in item if method in METHODS}
        allowed = set(response.headers["allow"].split(", "))
        assert allowed == documented | {"OPTIONS"}, path
