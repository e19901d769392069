"""Two ``shutbox serve`` processes (two workers each, as on two machines) on one
PostgreSQL and one Redis (or Redis Cluster): one player's 50 different runs of a date
sent to both at once make one official run, and both then tell the same rank and
leaderboard."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, date, datetime, time
from typing import Any

import httpx
import pytest

from service.rules.dice import daily_sequence_id, derive_dice
from tests.conftest import REDIS_URL, ServerProcess, server_environment
from tests.integration.api.helpers import auth, fresh, new_player_at
from tests.runs import legal_runs, score_of

SECRET = "two-processes-secret"
RACE = 50
OTHERS = 12


def busy_days() -> list[date]:
    """August dates (untouched by the other tests) whose dice allow 50 different runs
    and several scores: one for each Redis."""
    found = []
    for n in range(1, 32):
        day = date(2026, 8, n)
        runs = legal_runs(derive_dice(SECRET.encode(), daily_sequence_id(day), 10), 2000)
        if len(runs) >= RACE and len({score_of(moves) for moves in runs}) >= 4:
            found.append(day)
    assert len(found) >= 2, "too few August dates with 50 different runs"
    return found


DAYS = dict(zip(["redis", "redis-cluster"], busy_days()))
Servers = tuple[ServerProcess, ServerProcess, date]


@pytest.fixture(scope="module", params=list(DAYS))
def servers(
    database_url: str, redis_prefix: str, request: pytest.FixtureRequest
) -> Iterator[Servers]:
    """Both processes, their clocks frozen at noon of the date they are tested on."""
    cluster = request.param == "redis-cluster"
    redis_url = request.getfixturevalue("redis_cluster_url") if cluster else REDIS_URL
    env = {
        **server_environment(database_url, redis_url),
        "SHUTBOX_REDIS_PREFIX": f"{redis_prefix}two-processes:",
        "SHUTBOX_SECRET": SECRET,
    }
    day = DAYS[request.param]
    noon = datetime.combine(day, time(12), tzinfo=UTC)
    first = ServerProcess(env, workers=2, frozen_at=noon).start()
    try:
        second = ServerProcess(env, workers=2, frozen_at=noon).start()
    except BaseException:
        first.stop()
        raise
    yield first, second, day
    second.stop()
    first.stop()


def test_fifty_runs_across_two_processes_make_one_official_run_ranked_alike(
    servers: Servers,
) -> None:
    urls = [servers[0].url, servers[1].url]
    day = servers[2].isoformat()
    runs_path = f"/v1/daily/{day}/runs"

    async def scenario() -> tuple[list[httpx.Response], list[list[httpx.Response]]]:
        dice = [(await fresh(url, "GET", f"/v1/daily/{day}")).json()["dice"] for url in urls]
        assert dice[0] == dice[1]  # one secret, one set of dice
        mine = derive_dice(SECRET.encode(), daily_sequence_id(servers[2]), 10)
        assert dice[0] == [list(r) for r in mine], "another test issued this date first"
        runs = legal_runs(dice[0], 2000)
        # Other players first, with runs of several scores, half on each process.
        by_score: dict[int, list[Any]] = {}
        for moves in runs:
            by_score.setdefault(score_of(moves), moves)
        others = [await new_player_at(urls[n % 2], time_zone="UTC") for n in range(OTHERS)]
        scores = sorted(by_score)
        stored = await asyncio.gather(
            *(fresh(urls[n % 2], "POST", runs_path, json={"moves": by_score[scores[n % len(scores)]]},
                    headers=auth(other))
              for n, other in enumerate(others))
        )  # fmt: skip
        assert {r.status_code for r in stored} == {201}
        # Then one player sends 50 different runs at once, split across the processes.
        player = await new_player_at(urls[0], time_zone="UTC")
        race = await asyncio.gather(
            *(fresh(urls[n % 2], "POST", runs_path, json={"moves": moves}, headers=auth(player))
              for n, moves in enumerate(runs[:RACE]))
        )  # fmt: skip
        official = next(r for r in race if r.status_code == 201)
        winning = next(moves for r, moves in zip(race, runs) if r is official)
        # Each process, each worker (fresh connections), after the race: the run, its
        # rank now, the leaderboard; the identical run again.
        views = [
            list(
                await asyncio.gather(
                    *(fresh(url, "GET", f"/v1/daily/{day}/runs/me", headers=auth(player))
                      for _ in range(4)),
                    *(fresh(url, "GET", f"/v1/daily/{day}/leaderboard", headers=auth(player))
                      for _ in range(4)),
                    fresh(url, "POST", runs_path, json={"moves": winning}, headers=auth(player)),
                )
            )
            for url in urls
        ]  # fmt: skip
        return list(race), views

    race, views = asyncio.run(scenario())
    assert Counter(r.status_code for r in race) == {201: 1, 409: RACE - 1}
    official = next(r for r in race if r.status_code == 201).json()
    for refused in (r for r in race if r.status_code == 409):
        assert refused.json()["official_run_id"] == official["run_id"]

    mine = [response for view in views for response in view[:4]]
    boards = [response for view in views for response in view[4:8]]
    again = [view[8] for view in views]
    assert {r.status_code for r in mine + boards} == {200}
    assert {r.json()["run_id"] for r in mine} == {official["run_id"]}
    ranks = [r.json()["rank"] for r in mine]
    assert all(rank == ranks[0] for rank in ranks), ranks  # both processes, every worker
    leaderboards = [r.json() for r in boards]
    assert all(board == leaderboards[0] for board in leaderboards)
    board = leaderboards[0]
    assert board["players"] == OTHERS + 1
    histogram = {int(score): count for score, count in board["histogram"].items()}
    better = sum(count for score, count in histogram.items() if score < official["score"])
    assert ranks[0]["position"] == better + 1
    assert ranks[0]["players"] == board["players"]
    # The identical run again, to either process: 200, the first answer's body.
    assert [r.status_code for r in again] == [200, 200]
    assert again[0].content == again[1].content
    assert again[0].json() == next(r for r in race if r.status_code == 201).json()
