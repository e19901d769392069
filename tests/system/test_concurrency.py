"""Concurrency claims, against a real server with two worker processes: one official
attempt per player and date, identical resubmissions, idempotency keys."""

from __future__ import annotations

import asyncio
import secrets
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, date, datetime, time
from functools import cache
from typing import Any

import httpx
import pytest

from service.rules.dice import daily_sequence_id, derive_dice
from tests.conftest import ServerProcess, fetchval, server_environment
from tests.integration.api.helpers import auth, count_runs, fresh, new_player_at
from tests.runs import legal_runs

SECRET = "concurrency-secret"


@cache
def busy_day() -> date:
    """A July date (untouched by the other tests) whose dice allow 50 different runs:
    found when a test first needs it, not when the module is collected."""
    for n in range(1, 32):
        day = date(2026, 7, n)
        if len(legal_runs(derive_dice(SECRET.encode(), daily_sequence_id(day), 10), 50)) == 50:
            return day
    raise AssertionError("no July date with 50 different runs")


@pytest.fixture(scope="module")
def server(database_url: str, redis_prefix: str) -> Iterator[ServerProcess]:
    env = {
        **server_environment(database_url),
        "SHUTBOX_REDIS_PREFIX": redis_prefix,
        "SHUTBOX_SECRET": SECRET,
    }
    noon = datetime.combine(busy_day(), time(12), tzinfo=UTC)
    process = ServerProcess(env, workers=2, frozen_at=noon).start()
    yield process
    process.stop()


async def player_with_many_runs(url: str, count: int) -> tuple[dict[str, str], str, list[Any]]:
    """A new player, today's date on the server, and ``count`` different legal runs."""
    day = busy_day().isoformat()
    dice = (await fresh(url, "GET", f"/v1/daily/{day}")).json()["dice"]
    runs = legal_runs(dice, count)
    assert len(runs) == count
    return await new_player_at(url, time_zone="UTC"), day, runs


def test_fifty_different_runs_at_once_make_one_official_run(
    server: ServerProcess, database_url: str
) -> None:
    async def scenario() -> list[httpx.Response]:
        player, day, runs = await player_with_many_runs(server.url, 50)
        headers = auth(player)
        return list(
            await asyncio.gather(
                *(
                    fresh(server.url, "POST", f"/v1/daily/{day}/runs", json={"moves": moves},
                          headers=headers)
                    for moves in runs
                )
            )
        )  # fmt: skip

    responses = asyncio.run(scenario())
    assert Counter(r.status_code for r in responses) == {201: 1, 409: 49}
    official = next(r for r in responses if r.status_code == 201).json()
    for refused in (r for r in responses if r.status_code == 409):
        assert refused.json()["official_run_id"] == official["run_id"]


def test_fifty_identical_runs_at_once_make_one_row(
    server: ServerProcess, database_url: str
) -> None:
    async def scenario() -> tuple[dict[str, str], list[httpx.Response]]:
        player, day, runs = await player_with_many_runs(server.url, 1)
        headers = auth(player)
        body = {"moves": runs[0]}
        responses = await asyncio.gather(
            *(fresh(server.url, "POST", f"/v1/daily/{day}/runs", json=body, headers=headers)
              for _ in range(50))
        )  # fmt: skip
        return player, list(responses)

    player, responses = asyncio.run(scenario())
    assert Counter(r.status_code for r in responses) == {201: 1, 200: 49}
    assert len({r.content for r in responses}) == 1  # the same body every time
    assert asyncio.run(count_runs(database_url, player["id"])) == 1


def test_twenty_runs_with_one_key_at_once_get_one_answer(
    server: ServerProcess, database_url: str
) -> None:
    """An official run's key holds no lock while the run is stored (its row keeps the
    key): the same keyed run sent twenty times at once, across both workers, stores one
    run and every answer is the one first given for the key, status and bytes."""

    async def scenario() -> tuple[dict[str, str], list[httpx.Response]]:
        player, day, runs = await player_with_many_runs(server.url, 1)
        headers = auth(player) | {"Idempotency-Key": secrets.token_hex(16)}
        responses = await asyncio.gather(
            *(fresh(server.url, "POST", f"/v1/daily/{day}/runs", json={"moves": runs[0]},
                    headers=headers)
              for _ in range(20))
        )  # fmt: skip
        return player, list(responses)

    player, responses = asyncio.run(scenario())
    assert len({(r.status_code, r.content) for r in responses}) == 1, responses
    assert responses[0].status_code == 201
    assert asyncio.run(count_runs(database_url, player["id"])) == 1


def test_different_runs_with_one_key_at_once_store_one_and_refuse_the_rest(
    server: ServerProcess, database_url: str
) -> None:
    """Ten different runs with the same key at once: one is stored and answered; every
    other is refused, 422 (the key answered another run: the run's row keeps its key),
    nothing more stored; and the key then answers its own run only."""

    async def scenario() -> tuple[dict[str, str], str, list[Any], list[httpx.Response]]:
        player, day, runs = await player_with_many_runs(server.url, 10)
        headers = auth(player) | {"Idempotency-Key": "one-key"}
        responses = await asyncio.gather(
            *(fresh(server.url, "POST", f"/v1/daily/{day}/runs", json={"moves": moves},
                    headers=headers)
              for moves in runs)
        )  # fmt: skip
        return player, day, runs, list(responses)

    player, day, runs, responses = asyncio.run(scenario())
    statuses = Counter(r.status_code for r in responses)
    assert statuses == {201: 1, 422: 9}, statuses
    stored = next(n for n, r in enumerate(responses) if r.status_code == 201)
    assert asyncio.run(count_runs(database_url, player["id"])) == 1
    headers = auth(player) | {"Idempotency-Key": "one-key"}
    url = f"/v1/daily/{day}/runs"
    again = asyncio.run(
        fresh(server.url, "POST", url, json={"moves": runs[stored]}, headers=headers)
    )
    assert (again.status_code, again.content) == (201, responses[stored].content)
    other = runs[(stored + 1) % len(runs)]
    reused = asyncio.run(fresh(server.url, "POST", url, json={"moves": other}, headers=headers))
    assert reused.status_code == 422 and reused.json()["type"] == "/problems/idempotency-key-reused"


@pytest.mark.parametrize("own_token", [True, False], ids=["own-token", "server-token"])
def test_one_idempotency_key_creates_one_player_across_workers(
    server: ServerProcess, database_url: str, own_token: bool
) -> None:
    name = f"Idem {secrets.token_hex(4)}"
    headers = {"Idempotency-Key": secrets.token_hex(16)}
    body = {"name": name, **({"token": secrets.token_urlsafe(32)} if own_token else {})}

    async def scenario() -> list[httpx.Response]:
        return list(
            await asyncio.gather(
                *(fresh(server.url, "POST", "/v1/players", json=body, headers=headers)
                  for _ in range(20))
            )
        )  # fmt: skip

    responses = asyncio.run(scenario())
    if own_token:  # every retry gets the player, with the token the client holds anyway
        assert {r.status_code for r in responses} == {201}
        assert len({r.content for r in responses}) == 1
    else:  # the token was shown once, to one of them; the others get none
        assert Counter(r.status_code for r in responses) == {201: 1, 409: 19}
        token = next(r.json()["token"] for r in responses if r.status_code == 201)
        assert not any(token in r.text for r in responses if r.status_code == 409)

    named = fetchval(database_url, "SELECT count(*) FROM players WHERE name = $1", name)
    assert asyncio.run(named) == 1
