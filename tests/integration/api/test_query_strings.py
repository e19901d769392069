"""Query strings read strictly: a parameter given twice, or one the operation does not
take, is a 400 naming it, on every operation and whichever way the request takes
(``service.api.front.reading``); the queries an operation takes are answered as before."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from tests.conftest import NOW
from tests.integration.api.helpers import auth, new_player

DAY = NOW.date().isoformat()
# A value of each path parameter the document has, that the router takes.
PATH_VALUES = {
    "day": DAY,
    "code": "QRYTEP597",
    "round": "1",
    "friend_id": "6f1c2d8e-0b7a-4c55-9d0e-2f3a4b5c6d7e",
}


def operations(client: httpx.AsyncClient) -> list[tuple[str, str, list[str]]]:
    """Every operation of the app's document: its method, a path to it, and the query
    parameters it lists."""
    document: dict[str, Any] = client.app.openapi_schema.to_schema()  # type: ignore[attr-defined]
    found = []
    for template, item in document["paths"].items():
        path = re.sub(r"\{(\w+)\}", lambda m: PATH_VALUES[m[1]], template)
        for method, operation in item.items():
            if method in ("get", "post", "put", "patch", "delete"):
                query = [p["name"] for p in operation.get("parameters", []) if p["in"] == "query"]
                found.append((method.upper(), path, query))
    return found


def refused_for(answer: httpx.Response, name: str) -> bool:
    """Whether ``answer`` is the 400 problem of a query parameter, naming ``name``."""
    return (
        answer.status_code == 400
        and answer.headers["content-type"] == "application/problem+json"
        and answer.json()["type"] == "/problems/invalid-request"
        and f"query parameter {name} " in answer.json()["detail"]
    )


async def test_every_operation_refuses_a_query_parameter_it_does_not_take(
    client: httpx.AsyncClient,
) -> None:
    walked = operations(client)
    assert len(walked) > 30
    for method, path, query in walked:
        answer = await client.request(method, f"{path}?sneaky=1", json={})
        assert refused_for(answer, "sneaky"), (method, path, answer.text)
        said = answer.json()["detail"]
        assert said.endswith(f"it takes {', '.join(sorted(query))}." if query else "none."), said


@pytest.mark.parametrize(
    ("query", "name"),
    [
        ("open=1&open=9", "open"),
        ("tiles=9&tiles=5", "tiles"),
        ("%6Fpen=1,2&open=9", "open"),  # the same name, percent-encoded
        ("open=&open=9", "open"),  # an empty value is given all the same
        ("open&open=9", "open"),  # and so is a name without a value
        ("tiles=9&Tiles=5", "Tiles"),  # names are read as they are: this one is unknown
        ("tiles=9&oppen=1,2", "oppen"),
    ],
)
async def test_the_solution_reads_each_parameter_once(
    client: httpx.AsyncClient, query: str, name: str
) -> None:
    answer = await client.get(f"/v1/solution?{query}")
    assert refused_for(answer, name), answer.text


async def test_a_page_size_given_twice_is_refused_everywhere_it_is_taken(
    client: httpx.AsyncClient,
) -> None:
    player = await new_player(client)
    paged = [
        f"/v1/daily/{DAY}/leaderboard",
        "/v1/players/me/history",
        "/v1/players/me/practice",
        "/v1/players/me/series",
        f"/v1/boxes/{PATH_VALUES['code']}/results",
    ]
    for path in paged:
        answer = await client.get(f"{path}?limit=1&limit=100", headers=auth(player))
        assert refused_for(answer, "limit"), (path, answer.text)
        once = await client.get(f"{path}?limit=100", headers=auth(player))
        assert once.status_code != 400, (path, once.text)


async def test_the_fast_path_reads_a_query_as_the_framework_does(
    client: httpx.AsyncClient,
) -> None:
    """The hot routes answered before the framework (their paths as written) and inside
    it (a trailing slash takes the framework's way): the same 400, the same words."""
    player = await new_player(client)
    for method, path in (
        ("GET", f"/v1/daily/{DAY}"),
        ("POST", "/v1/analyze"),
        ("POST", f"/v1/daily/{DAY}/runs"),
    ):
        for query in ("x=1", "x=1&x=2"):
            fast = await client.request(method, f"{path}?{query}", json={}, headers=auth(player))
            framework = await client.request(
                method, f"{path}/?{query}", json={}, headers=auth(player)
            )
            assert refused_for(fast, "x"), (path, fast.text)
            assert (fast.status_code, fast.json()) == (framework.status_code, framework.json())


async def test_the_queries_operations_take_are_answered(client: httpx.AsyncClient) -> None:
    player = await new_player(client)
    solution = await client.get("/v1/solution?open=1,2,4&one_die=high_closed&tiles=9")
    assert solution.status_code == 200, solution.text
    history = await client.get(f"/v1/players/me/history?before={DAY}&limit=1", headers=auth(player))
    assert history.status_code == 200, history.text
    # A handler of no operation of the document reads no query: the page, the docs.
    assert (await client.get("/play?box=QRYTEP597")).status_code == 200
    assert (await client.get("/schema/openapi.json?download=1")).status_code == 200


async def test_a_strange_query_is_refused_in_the_clients_language(
    client: httpx.AsyncClient,
) -> None:
    answer = await client.get("/v1/rules?x=1", headers={"Accept-Language": "de"})
    assert answer.status_code == 400
    assert answer.headers["content-language"] == "de"
    assert "x" in answer.json()["detail"] and "query parameter" not in answer.json()["detail"]
