"""Security: SQL only from named queries, tokens never logged, no dice before their
date, CORS only where configured."""

from __future__ import annotations

import ast
import secrets
import time
from pathlib import Path

import httpx
import msgspec
import pytest
from litestar.testing import AsyncTestClient

from service.app import create_app
from service.support.clock import FixedClock
from service.support.settings import Settings
from tests.conftest import NOW, ROOT, ServerProcess
from tests.integration.api.helpers import auth, new_player

QUERY_METHODS = {"execute", "fetch", "fetchrow", "fetchval", "executemany"}


def test_no_sql_is_built_by_string_formatting() -> None:
    """Every query the service runs is a named query (``QUERIES.name``), a constant, or a
    migration or a function read from ``sql/migrations`` or ``sql/functions`` (the pool's
    single statements hand on the query they are given)."""
    offenders = []
    for path in sorted((ROOT / "service").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in QUERY_METHODS
                and node.args
            ):
                continue
            sql = node.args[0]
            named = (
                isinstance(sql, ast.Attribute)
                and isinstance(sql.value, ast.Name)
                and (sql.value.id == "QUERIES")
            )
            constant = isinstance(sql, ast.Constant) and isinstance(sql.value, str)
            migration = ast.unparse(sql) in {"migration.sql", "function.sql"}
            # The pool's single statements hand on their caller's query, checked here
            # where the caller writes it.
            forwarded = path == ROOT / "service/store/db.py" and ast.unparse(sql) == "query"
            if not (named or constant or migration or forwarded):
                offenders.append(f"{Path(path).relative_to(ROOT)}:{node.lineno}")
    assert offenders == []


async def test_nothing_shows_the_dice_of_a_date_not_begun(client: httpx.AsyncClient) -> None:
    player = await new_player(client)
    future = "2026-12-01"  # the clock says 29 November, 12:00 UTC
    answers = [
        await client.get(f"/v1/daily/{future}"),
        await client.post(f"/v1/daily/{future}/runs", json={"moves": [[7]]}, headers=auth(player)),
        await client.get(f"/v1/daily/{future}/leaderboard", headers=auth(player)),
        await client.get(f"/v1/daily/{future}/runs/me", headers=auth(player)),
        await client.get(f"/v1/daily/{future}/share", headers=auth(player)),
    ]
    assert [a.status_code for a in answers] == [404, 404, 404, 404, 404]
    assert all("dice" not in a.json() and "roll" not in a.json() for a in answers)


@pytest.mark.parametrize("redis_mode", ["no-redis"], indirect=True)
async def test_cors_only_for_configured_origins(settings: Settings) -> None:
    preflight = {
        "Origin": "https://play.example",
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization",
    }
    async with AsyncTestClient(create_app(settings, FixedClock(NOW))) as closed:
        answer = await closed.options("/v1/analyze", headers=preflight)
        assert "access-control-allow-origin" not in answer.headers
    allowed = msgspec.structs.replace(settings, cors_origins=["https://play.example"])
    async with AsyncTestClient(create_app(allowed, FixedClock(NOW))) as opened:
        answer = await opened.options("/v1/analyze", headers=preflight)
        assert answer.headers["access-control-allow-origin"] == "https://play.example"
        other = await opened.options(
            "/v1/analyze", headers={**preflight, "Origin": "https://evil.example"}
        )
        assert other.headers.get("access-control-allow-origin") != "https://evil.example"


def test_tokens_never_reach_the_logs(two_workers: ServerProcess) -> None:
    server = two_workers
    token = httpx.post(f"{server.url}/v1/players", json={}).json()["token"]
    ours = {"X-Request-ID": f"tokens-{secrets.token_hex(4)}"}  # the server is shared
    headers = {"Authorization": f"Bearer {token}", **ours}
    assert httpx.get(f"{server.url}/v1/players/me", headers=headers).status_code == 200
    headers["Authorization"] += "x"
    assert httpx.get(f"{server.url}/v1/players/me", headers=headers).status_code == 401
    deadline = time.monotonic() + 10  # the request log is written every 50 ms
    while True:
        output = server.output()
        logged = [line for line in output.splitlines() if ours["X-Request-ID"] in line]
        if len(logged) == 2 or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    # Both requests logged, the token in neither (nor anywhere in the shared log).
    assert len(logged) == 2 and all('"path":"/v1/players/me"' in line for line in logged)
    assert token not in output


@pytest.mark.parametrize(
    ("body", "repeated"),
    [
        (b'{"a": 1, "b": {"a": 2}}', False),  # one name in two objects
        (b'{"a": "\\"b\\": \\"b\\":", "b": 1}', False),  # names quoted inside a string
        (b'{"a": 1, "b": 2, "a": 3}', True),
        (b'{"a": 1, "\\u0061": 2}', True),  # the same name, spelt with an escape
        (b'{"a": "\\"a\\": 1", "b": {"c": 1, "c": 2}}', True),  # deeper, after a string
        (b'[{"a": 1}, {"a": 2, "a": 3}]', True),
    ],
)
def test_a_name_repeated_in_one_object_is_refused(body: bytes, repeated: bool) -> None:
    """Repeated names are refused whichever way the body is checked: the quick scan of
    its names, or the second decoding it falls back on."""
    from typing import Any

    from litestar.exceptions import HTTPException

    from service.api.bodies import decode

    decoder: msgspec.json.Decoder[Any] = msgspec.json.Decoder()
    if not repeated:
        assert decode(decoder, body) == msgspec.json.decode(body)
        return
    with pytest.raises(HTTPException) as refused:
        decode(decoder, body)
    assert "given twice in one object" in str(refused.value.detail)


def test_a_tile_far_off_the_box_is_refused_without_building_its_mask() -> None:
    """The rules core takes any int as a tile: one of 10**9 is refused as not a tile,
    not turned into a billion-bit number first."""
    import tracemalloc

    from service.rules import errors
    from service.rules.replay import Move, replay
    from service.rules.ruleset import Rules

    dice = ((3, 4), (6, 6), (1, 1), (1, 2), (2, 3), (5, 5), (6, 6), (1, 1), (2, 2), (3, 3))
    tracemalloc.start()
    try:
        with pytest.raises(errors.NotATile):
            replay(Rules(), dice, [Move(tiles=(10**9,))])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000  # bytes: a mask of that tile would take 125 MB


@pytest.mark.parametrize("redis_mode", ["no-redis"], indirect=True)
async def test_cors_headers_answer_only_the_request_they_were_made_for(
    settings: Settings,
) -> None:
    """The Daily Dice feed is answered from headers made once per date: what the CORS
    layer adds for one browser's request is not in the next answer (to a request with no
    Origin, or from another origin), the feed's 304 included."""
    allowed = "https://a.example"
    day = NOW.date().isoformat()
    feed = f"/v1/daily/{day}"
    changed = msgspec.structs.replace(settings, cors_origins=[allowed])
    async with AsyncTestClient(create_app(changed, FixedClock(NOW))) as client:
        first = await client.get(feed, headers={"Origin": allowed})  # made by the handler
        etag = first.headers["etag"]
        for _ in range(2):
            for sent in ({"Origin": allowed}, {}, {"Origin": "https://evil.example"}):
                for extra in ({}, {"If-None-Match": etag}):
                    answer = await client.get(feed, headers=sent | extra)
                    assert answer.status_code == (304 if extra else 200)
                    allows = answer.headers.get_list("access-control-allow-origin")
                    assert allows == ([allowed] if sent.get("Origin") == allowed else []), (
                        sent,
                        extra,
                    )
                    assert answer.headers.get_list("etag") == [etag]
