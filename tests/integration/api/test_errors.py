"""Bad input is refused cleanly: problem details with a stable type, never a 500."""

from __future__ import annotations

import re
import secrets
from typing import Any

import httpx
import pytest

from service.api.idempotency import KEY_PATTERN

DICE = [[3, 4], [6, 6], [1, 1], [1, 2], [2, 3], [5, 5], [6, 6], [1, 1], [2, 2], [3, 3]]


def assert_problem(response: httpx.Response, status: int, type_: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/problem+json"
    problem: dict[str, Any] = response.json()
    assert problem["type"] == type_
    assert problem["status"] == status
    assert problem["title"] and problem["detail"]
    return problem


@pytest.mark.parametrize(
    ("body", "says"),
    [
        (b'{"dice": [[3, 4]', ""),
        (b"not json at all", ""),
        (b'{"dice": [[1,1],[1,1],[1,1]], "moves": [], "colour": 1}', "colour"),
        (b'{"dice": "3,4", "moves": []}', "dice"),
        (b'{"dice": [[3, 7]], "moves": []}', "dice"),
        (b'{"dice": [[0, 1]], "moves": []}', "dice"),
        (b'{"rules": {"tiles": 13}, "dice": [], "moves": []}', "tiles"),
        (b'{"rules": {"one_die": "x"}, "dice": [], "moves": []}', "one_die"),
        (b'{"rules": {"start": [10]}, "dice": [], "moves": []}', "start"),
        (b'{"dice": [[1,1],[1,1],[1,1]], "moves": [[13]]}', "moves"),
        (b'{"dice": [[1,1],[1,1],[1,1]], "moves": [{"dice": 3, "tiles": [1]}]}', "dice"),
        (b'{"dice": [[1,1],[1,1],[1,1]], "moves": [{"tiles": [1], "x": 1}]}', "x"),
    ],
)  # fmt: skip
async def test_malformed_bodies_are_400(client: httpx.AsyncClient, body: bytes, says: str) -> None:
    response = await client.post(
        "/v1/analyze", content=body, headers={"content-type": "application/json"}
    )
    problem = assert_problem(response, 400, "/problems/invalid-request")
    assert says in problem["detail"]


@pytest.mark.parametrize(
    ("dice", "moves", "type_"),
    [
        (DICE[:9], [], "/problems/invalid-dice"),  # too few rolls for 9 tiles
        ([*DICE, [1, 1]], [], "/problems/invalid-dice"),  # too many
        (DICE, [[10]], "/problems/not-a-tile"),  # a tile of a bigger box
        (DICE, [[8]], "/problems/wrong-total"),
        (DICE, [[7], [6, 6]], "/problems/tile-repeated"),
    ],
)
async def test_requests_that_break_the_rules_are_422(
    client: httpx.AsyncClient, dice: list[list[int]], moves: list[Any], type_: str
) -> None:
    response = await client.post("/v1/analyze", json={"dice": dice, "moves": moves})
    assert_problem(response, 422, type_)


@pytest.mark.parametrize("redis_mode", ["no-redis"], indirect=True)
async def test_an_oversized_body_is_413(client: httpx.AsyncClient) -> None:
    body = b'{"dice": [], "moves": [], "pad": "' + b"x" * 20000 + b'"}'
    response = await client.post(
        "/v1/analyze", content=body, headers={"content-type": "application/json"}
    )
    assert_problem(response, 413, "/problems/body-too-large")


@pytest.mark.parametrize(
    ("path", "status", "type_"),
    [
        ("/v1/daily/2026-02-30", 400, "/problems/invalid-date"),
        ("/v1/daily/2026-13-01", 400, "/problems/invalid-date"),
        ("/v1/daily/20261129", 400, "/problems/invalid-date"),
        ("/v1/daily/yesterday", 400, "/problems/invalid-date"),
        ("/v1/daily/2099-01-01", 404, "/problems/unknown-date"),
        ("/v1/daily/2025-12-31", 404, "/problems/unknown-date"),  # before launch
        ("/v1/nowhere", 404, "/problems/not-found"),
    ],
)
async def test_bad_paths(client: httpx.AsyncClient, path: str, status: int, type_: str) -> None:
    assert_problem(await client.get(path), status, type_)


async def test_wrong_method_is_a_problem_too(client: httpx.AsyncClient) -> None:
    assert_problem(await client.delete("/v1/analyze"), 405, "/problems/method-not-allowed")


async def test_authentication_errors(client: httpx.AsyncClient) -> None:
    missing = assert_problem(await client.get("/v1/players/me"), 401, "/problems/unauthorized")
    assert "Bearer" in missing["detail"]
    bad = await client.get("/v1/players/me", headers={"Authorization": "Bearer nope"})
    assert_problem(bad, 401, "/problems/unauthorized")
    assert bad.headers["www-authenticate"] == "Bearer"


@pytest.mark.parametrize(
    ("key", "status"),
    [
        (b"k" * 223, 201),  # with 32 characters of its own below: 255
        ("cl\u00e9 ~".encode("latin-1"), 201),  # printable in ISO 8859-1, as a header is read
        (b"", 400),
        (b"k" * 256, 400),
        (b"a\x7fb", 400),
        (b"a\xa0b", 400),  # a no-break space shows nothing
        (b"a\xadb", 400),  # nor does a soft hyphen
    ],
)
async def test_an_idempotency_key_is_what_the_document_says(
    client: httpx.AsyncClient, key: bytes, status: int
) -> None:
    if status == 201:  # a key of this test run's own (the database outlives it)
        key += secrets.token_hex(16).encode()
    response = await client.post("/v1/players", json={}, headers=[(b"Idempotency-Key", key)])
    if status == 400:
        assert_problem(response, 400, "/problems/invalid-idempotency-key")
    else:
        assert response.status_code == status, response.text


def test_the_documented_key_pattern_is_printable_text() -> None:
    key = re.compile(KEY_PATTERN)
    assert all(bool(key.fullmatch(chr(c))) == chr(c).isprintable() for c in range(256))
