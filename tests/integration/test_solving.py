"""Tables for requests: solved in a solver process, never on the event loop; shared
through PostgreSQL; solves bounded per process (503) and per client (429)."""

from __future__ import annotations

import asyncio
import functools
import secrets
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import msgspec
import pytest
from litestar import Litestar

from service.app import create_app
from service.rules import solver
from service.rules.ruleset import Rules
from service.store.solving import Solver
from service.store.tables import rules_key, solve_packed
from service.support.clock import FixedClock
from service.support.settings import Settings
from tests.conftest import NOW, base_settings, fetchval, on_redis_cluster_too

TWELVE = Rules(tiles=12, one_die="high_closed", move_rule="single", scoring="count")
SMALL = [
    Rules(tiles=3, one_die=one_die, move_rule=move_rule)
    for one_die in ("high_closed", "sum_le_6")
    for move_rule in ("dice_or_sum", "single")
]


def solve_when_open(gate: str, rules: dict[str, object]) -> bytes:
    """What a solver process runs in these tests: waits for the test to open the gate
    (a file), then solves."""
    deadline = time.monotonic() + 60
    while not Path(gate).exists() and time.monotonic() < deadline:
        time.sleep(0.005)
    return solve_packed(rules)


def query(rules: Rules) -> dict[str, Any]:
    fields = msgspec.to_builtins(rules)
    return {k: fields[k] for k in ("tiles", "one_die", "move_rule", "scoring")}


@pytest.fixture
def solver_settings(database_url: str, redis_prefix: str) -> Settings:
    return base_settings(database_url, f"{redis_prefix}{secrets.token_hex(4)}:")


@pytest.fixture
async def unsolved(database_url: str) -> AsyncIterator[None]:
    """Every variant of these tests solved nowhere yet: not held, not stored."""

    async def forget() -> None:
        connection = await asyncpg.connect(database_url)
        try:
            exists = await connection.fetchval("SELECT to_regclass('solver_tables') IS NOT NULL")
            if exists:
                for rules in (TWELVE, *SMALL):
                    await connection.execute(
                        "DELETE FROM solver_tables WHERE tiles = $1 AND one_die = $2 "
                        "AND move_rule = $3 AND scoring = $4",
                        *query(rules).values(),
                    )
        finally:
            await connection.close()

    solver.LOADED.clear()
    await forget()
    yield
    solver.LOADED.clear()


@asynccontextmanager
async def running(settings: Settings) -> AsyncIterator[Litestar]:
    """The app with its lifespan, answering many requests at once (the test client
    would take them one at a time)."""
    app = create_app(settings, FixedClock(NOW))
    async with app.lifespan():
        yield app


def client_of(app: Litestar, address: str = "198.51.100.7") -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app, client=(address, 50000))
    return httpx.AsyncClient(transport=transport, base_url="http://testserver", timeout=60)


def gated(app: Litestar, gate: Path) -> Solver:
    solver_of_app: Solver = app.state.solver
    solver_of_app.solve_in_process = functools.partial(solve_when_open, str(gate))
    return solver_of_app


async def until(condition: Any) -> None:
    """Wait for a condition on the event loop's own progress (no time limit of ours
    decides the outcome: a test stuck here fails on pytest's timeout or the gate's)."""
    while not condition():
        await asyncio.sleep(0.005)


@pytest.fixture
def no_solving_here(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Rules]]:
    """Every solve in this process (not in a solver process), recorded."""
    solved: list[Rules] = []
    original = solver.Tables.__init__

    def recording(self: solver.Tables, rules: Rules) -> None:
        solved.append(rules)
        original(self, rules)

    monkeypatch.setattr(solver.Tables, "__init__", recording)
    yield solved


async def test_the_loop_answers_while_a_variant_is_solved(
    solver_settings: Settings, unsolved: None, no_solving_here: list[Rules], tmp_path: Path
) -> None:
    gate = tmp_path / "gate"
    async with running(solver_settings) as app, client_of(app) as client:
        solving = gated(app, gate)
        answer = asyncio.create_task(client.get("/v1/solution", params=query(TWELVE)))
        await until(lambda: solving.waiting == 1)
        # The solve is under way in its process; the loop answers meanwhile.
        health = await client.get("/healthz")
        assert health.status_code == 200
        assert not answer.done()
        gate.touch()
        response = await answer
    assert response.status_code == 200, response.text
    assert no_solving_here == []  # not even the standard rules, at start-up
    assert response.json()["expected_score"] == solver.Tables(TWELVE).expected[TWELVE.full]


async def test_requests_for_one_variant_share_its_solve(
    solver_settings: Settings, unsolved: None, tmp_path: Path
) -> None:
    gate = tmp_path / "gate"
    rules = SMALL[0]
    async with running(solver_settings) as app, client_of(app) as client:
        solving = gated(app, gate)
        before = solving.solved
        asked = 0
        tables = solving.tables

        async def counted(rules: Rules, client: str | None = None) -> solver.Tables:
            nonlocal asked
            asked += 1
            return await tables(rules, client)

        solving.tables = counted  # type: ignore[method-assign]
        answers = [
            asyncio.create_task(client.get("/v1/solution", params=query(rules))),
            asyncio.create_task(
                client.post("/v1/hint", json={"rules": query(rules), "open": [1, 2, 3]})
            ),
            asyncio.create_task(client.get("/v1/solution", params=query(rules))),
        ]
        await until(lambda: asked == 3 and solving.waiting == 1)
        await asyncio.sleep(0.05)  # the last to ask reads PostgreSQL, finds nothing, joins
        gate.touch()
        responses = await asyncio.gather(*answers)
        assert [r.status_code for r in responses] == [200, 200, 200]
        assert solving.solved == before + 1


async def test_a_busy_solver_answers_503_with_retry_after(
    solver_settings: Settings, unsolved: None, tmp_path: Path
) -> None:
    gate = tmp_path / "gate"
    settings = msgspec.structs.replace(solver_settings, solver_queue=2)
    async with running(settings) as app, client_of(app) as client:
        solving = gated(app, gate)
        waiting = [
            asyncio.create_task(client.get("/v1/solution", params=query(rules)))
            for rules in SMALL[:2]
        ]
        await until(lambda: solving.waiting == 2)
        refused = await client.get("/v1/solution", params=query(SMALL[2]))
        assert refused.status_code == 503
        assert refused.headers["content-type"] == "application/problem+json"
        assert refused.json()["type"] == "/problems/solver-busy"
        assert int(refused.headers["retry-after"]) >= 1
        # A variant held already is answered as ever.
        assert (await client.get("/v1/solution")).status_code == 200
        gate.touch()
        assert [(await w).status_code for w in waiting] == [200, 200]
        assert (await client.get("/v1/solution", params=query(SMALL[2]))).status_code == 200


@on_redis_cluster_too
async def test_a_client_over_its_solve_budget_gets_429_and_others_are_served(
    settings: Settings, unsolved: None, redis_mode: str
) -> None:
    limited = msgspec.structs.replace(
        settings,
        redis_prefix=f"{settings.redis_prefix}{secrets.token_hex(4)}:",
        solver_rate_limit="2/h",
    )
    async with running(limited) as app:
        async with client_of(app, "198.51.100.1") as greedy:
            answers = [await greedy.get("/v1/solution", params=query(r)) for r in SMALL[:3]]
            assert [a.status_code for a in answers] == [200, 200, 429]
            refused = answers[-1]
            assert refused.json()["type"] == "/problems/rate-limited"
            assert int(refused.headers["retry-after"]) >= 1
            # Variants solved before cost the client nothing.
            assert (await greedy.get("/v1/solution", params=query(SMALL[0]))).status_code == 200
            assert (await greedy.get("/v1/solution")).status_code == 200
        async with client_of(app, "198.51.100.2") as other:
            served = await other.get("/v1/solution", params=query(SMALL[2]))
            assert served.status_code == 200
        # With a Redis (or a cluster) up, the budgets were Redis's, not this process's.
        assert app.state.services.cache.usable == (redis_mode in ("redis", "redis-cluster"))


async def test_a_second_process_reads_the_stored_tables_without_solving(
    solver_settings: Settings, unsolved: None, database_url: str
) -> None:
    async with running(solver_settings) as app, client_of(app) as client:
        before = app.state.solver.solved  # 1 if the standard rules were solved at start-up
        first = await client.get("/v1/solution", params=query(SMALL[1]))
        assert app.state.solver.solved == before + 1
    solver.LOADED.clear()  # as in a process of its own
    async with running(solver_settings) as app, client_of(app) as client:
        again = await client.get("/v1/solution", params=query(SMALL[1]))
        analysed = await client.post(
            "/v1/analyze",
            json={
                "rules": query(SMALL[1]),
                "dice": [[1, 2], [6, 6], [6, 6], [6, 6]],
                "moves": [[3]],
            },
        )
        assert app.state.solver.solved == 0
        assert app.state.solver.loaded == 2  # the standard rules at start-up, and this one
    assert again.json() == first.json()
    assert analysed.status_code == 200, analysed.text
    # One row of this variant (other tests of the session may store other scorings).
    rows = await fetchval(
        database_url,
        "SELECT count(*) FROM solver_tables "
        "WHERE tiles = $1 AND one_die = $2 AND move_rule = $3 AND scoring = $4",
        *query(SMALL[1]).values(),
    )
    assert rows == 1


async def test_unreadable_stored_tables_are_solved_again(
    solver_settings: Settings, unsolved: None, database_url: str
) -> None:
    rules = SMALL[3]
    connection = await asyncpg.connect(database_url)
    try:
        async with running(solver_settings) as app, client_of(app) as client:
            await connection.execute(
                "INSERT INTO solver_tables (tiles, one_die, move_rule, scoring, encoding, tables) "
                "VALUES ($1, $2, $3, $4, 1, $5)",
                *query(rules).values(),
                b"not tables",
            )
            before = app.state.solver.solved
            response = await client.get("/v1/solution", params=query(rules))
            assert response.status_code == 200
            assert app.state.solver.solved == before + 1
    finally:
        await connection.close()
    assert response.json()["expected_score"] == solver.Tables(rules).expected[rules.full]


NEWER = Rules(
    tiles=5, one_die="sum_le_6", one_die_choice="mandatory", move_rule="die_or_sum_both",
    total="sum_or_difference", first_must_close=2, stop_on_total=7,
)  # fmt: skip


async def test_a_newer_variant_is_solved_once_and_read_by_every_process(
    solver_settings: Settings, unsolved: None, database_url: str
) -> None:
    """A variant of the newer fields takes one solve in a solver process, then is stored
    (keyed by its rules) for a second process to read without solving."""
    key = rules_key(NEWER)
    params = {k: v for k, v in msgspec.to_builtins(NEWER).items() if v is not None}
    async with running(solver_settings) as app, client_of(app) as client:
        # (Migrated now.) Another test of the session may have stored it.
        await fetchval(database_url, "DELETE FROM solver_tables_of_rules WHERE rules = $1", key)
        before = app.state.solver.solved
        first = await client.get("/v1/solution", params=params)
        assert first.status_code == 200, first.text
        assert app.state.solver.solved == before + 1
    solver.LOADED.clear()  # as in a process of its own
    async with running(solver_settings) as app, client_of(app) as client:
        again = await client.get("/v1/solution", params=params)
        assert app.state.solver.solved == 0
        assert app.state.solver.loaded == 2  # the standard rules at start-up, and this one
    assert again.json() == first.json()
    assert first.json() == msgspec.to_builtins(solver.solution(NEWER), str_keys=True)
    stored = "SELECT count(*) FROM solver_tables_of_rules WHERE rules = $1"
    assert await fetchval(database_url, stored, key) == 1
