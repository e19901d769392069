"""A player's statistics (``GET /v1/players/me/stats``): their figures over their official
daily runs, whichever way each run was sent, each run counted once, equal to a recount of
the runs, concurrent submissions to a real server too."""

from __future__ import annotations

import asyncio
import secrets
import uuid
from collections import Counter
from datetime import UTC, date, datetime, time, timedelta
from functools import cache
from typing import Any

import asyncpg
import httpx
import pytest

from service.rules.dice import daily_sequence_id, derive_dice
from service.store import daily
from service.support.clock import FixedClock
from tests.conftest import SECRET, ServerProcess
from tests.integration.api.helpers import auth, daily_dice, fresh, new_player, new_player_at
from tests.recount import recount
from tests.runs import legal_runs, run_with_score, score_of

STATS = "/v1/players/me/stats"


@cache
def shut_day() -> date:
    """A date (of 2027, untouched by the other tests) whose dice let a run shut the box,
    and whose next dates allow more than one score."""
    for n in range(200):
        day = date(2027, 3, 1) + timedelta(days=n)
        if 0 in run_with_score(derive_dice(SECRET.encode(), daily_sequence_id(day), 10), {0}):
            return day
    raise AssertionError("no date of 2027 whose dice can shut the box")


async def stats(client: httpx.AsyncClient, player: dict[str, str]) -> dict[str, Any]:
    response = await client.get(STATS, headers=auth(player))
    assert response.status_code == 200, response.text
    figures: dict[str, Any] = response.json()
    return figures


async def streak(client: httpx.AsyncClient, player: dict[str, str]) -> dict[str, Any]:
    """The player's streak as the streak endpoint shows it: the statistics show the same."""
    response = await client.get("/v1/players/me/streak", headers=auth(player))
    assert response.status_code == 200, response.text
    shown: dict[str, Any] = response.json()
    return shown


NO_STREAK = {
    "current": 0, "best": 0, "last_played": None, "played_today": False, "freezes": 0,
    "weekly": {"current": 0, "best": 0},
}  # fmt: skip


def lengths(streak: dict[str, Any]) -> dict[str, int]:
    return {"current": streak["current"], "best": streak["best"]}


async def test_a_player_without_an_official_run(client: httpx.AsyncClient) -> None:
    player = await new_player(client)
    assert await stats(client, player) == {
        "played": 0,
        "shut": 0,
        "shut_rate": None,
        "mean_score": None,
        "mean_best_possible": None,
        "mean_cost": None,
        "distribution": {},
        "streak": NO_STREAK,
    }
    refused = await client.get(STATS)
    assert refused.status_code == 401
    assert refused.json()["type"] == "/problems/unauthorized"
    bad = await client.get(STATS, headers={"Authorization": "Bearer " + "x" * 43})
    assert bad.status_code == 401


def expected(answers: list[dict[str, Any]]) -> dict[str, Any]:
    """The figures of the runs these official answers accepted, but the streak."""
    scores = [answer["score"] for answer in answers]
    best = [answer["analysis"]["best_possible"] for answer in answers]
    played = len(answers)
    return {
        "played": played,
        "shut": sum(answer["shut"] for answer in answers),
        "shut_rate": sum(answer["shut"] for answer in answers) / played,
        "mean_score": sum(scores) / played,
        "mean_best_possible": sum(best) / played,
        "mean_cost": (sum(scores) - sum(best)) / played,
        "distribution": {str(score): runs for score, runs in Counter(scores).items()},
    }


@pytest.mark.parametrize("keyed", [False, True], ids=["by-token", "by-player"])
async def test_the_figures_after_runs_on_a_few_dates(
    client: httpx.AsyncClient, clock: FixedClock, keyed: bool, database_url: str
) -> None:
    """Three dates in a row and one after a missed date, a shut box among them: without an
    Idempotency-Key a run's player is looked up with the batch that stores it (by token),
    with one first (by player). The identical run again (200), another run of a played
    date (409) and an illegal run (422) count nothing."""
    first = shut_day()
    days = [first, first + timedelta(1), first + timedelta(2), first + timedelta(4)]
    # The app made its partitions at start-up, for the months around the clock's now then.
    connection = await asyncpg.connect(database_url)
    try:
        await daily.make_partitions(connection, days[0], days[-1])
    finally:
        await connection.close()
    clock.set(datetime.combine(first, time(12), tzinfo=UTC))
    player = await new_player(client)

    def headers() -> dict[str, str]:
        return auth(player) | ({"Idempotency-Key": secrets.token_hex(8)} if keyed else {})

    answers: list[dict[str, Any]] = []
    last_moves: list[Any] = []
    for n, day in enumerate(days):
        clock.set(datetime.combine(day, time(12), tzinfo=UTC))
        dice = await daily_dice(client, day.isoformat())
        lines = legal_runs(dice, 50)
        # The shut box on the first date, the highest and lowest scores the dice allow after.
        moves = (
            run_with_score(dice, {0})[0]
            if n == 0
            else max(lines, key=score_of)
            if n % 2
            else min(lines, key=score_of)
        )
        response = await client.post(
            f"/v1/daily/{day}/runs", json={"moves": moves}, headers=headers()
        )
        assert response.status_code == 201, response.text
        answers.append(response.json())
        last_moves, other = moves, next(line for line in lines if line != moves)
    figures = expected(answers)
    assert 0 < figures["shut"] < figures["played"] == 4  # shut and not shut
    assert figures["mean_cost"] > 0 or figures["mean_score"] == figures["mean_best_possible"]
    shown = await stats(client, player)
    assert shown == {**figures, "streak": await streak(client, player)}
    assert lengths(shown["streak"]) == {"current": 1, "best": 3}

    day = days[-1].isoformat()
    again = await client.post(
        f"/v1/daily/{day}/runs", json={"moves": last_moves}, headers=headers()
    )
    assert again.status_code == 200, again.text
    refused = await client.post(f"/v1/daily/{day}/runs", json={"moves": other}, headers=headers())
    assert refused.status_code == 409, refused.text
    illegal = await client.post(f"/v1/daily/{day}/runs", json={"moves": [[1]]}, headers=headers())
    assert illegal.status_code == 422, illegal.text
    assert await stats(client, player) == shown

    # Two dates later the streak has lapsed, as the streak endpoint says; the rest stays.
    clock.set(datetime.combine(days[-1] + timedelta(2), time(12), tzinfo=UTC))
    later = await stats(client, player)
    assert later == {**figures, "streak": await streak(client, player)}
    assert lengths(later["streak"]) == {"current": 0, "best": 3}


@pytest.fixture
def server(server_env: dict[str, str]) -> Any:
    # During the grace after midnight UTC: the date before is still open to UTC players.
    frozen = datetime.combine(shut_day() + timedelta(days=40), time(0, 5), tzinfo=UTC)
    process = ServerProcess(server_env, workers=2, frozen_at=frozen).start()
    yield process, frozen
    process.stop()


def test_concurrent_submissions_count_each_run_once(
    server: tuple[ServerProcess, datetime], database_url: str
) -> None:
    """Players' runs of two dates sent all at once to a server of two workers, with and
    without Idempotency-Keys, each twice, and another run of each date besides: every
    player's figures are a recount of the runs stored."""
    process, frozen = server
    today = frozen.date()
    dates = [(today - timedelta(1)).isoformat(), today.isoformat()]

    async def scenario() -> list[tuple[dict[str, str], dict[str, Any]]]:
        players = [await new_player_at(process.url) for _ in range(12)]
        runs = {
            day: legal_runs((await fresh(process.url, "GET", f"/v1/daily/{day}")).json()["dice"], 8)
            for day in dates
        }
        sends = []
        for n, player in enumerate(players):
            for day in dates:
                official, other = runs[day][n % 8], runs[day][(n + 3) % 8]
                key = {"Idempotency-Key": secrets.token_hex(8)} if n % 3 == 0 else {}
                for moves, headers in ((official, key), (official, {}), (other, {})):
                    sends.append((player, day, moves, auth(player) | headers))
        rng = secrets.SystemRandom()
        rng.shuffle(sends)
        async with httpx.AsyncClient(base_url=process.url, timeout=60) as http:
            answers = await asyncio.gather(
                *(
                    http.post(f"/v1/daily/{day}/runs", json={"moves": moves}, headers=headers)
                    for _player, day, moves, headers in sends
                )
            )
            assert {a.status_code for a in answers} <= {200, 201, 409}, [
                a.text for a in answers if a.status_code not in (200, 201, 409)
            ]
            shown = []
            for player in players:
                response = await http.get(STATS, headers=auth(player))
                assert response.status_code == 200, response.text
                shown.append((player, response.json()))
        return shown

    shown = asyncio.run(scenario())

    async def recounted() -> dict[uuid.UUID, Any]:
        connection = await asyncpg.connect(database_url)
        try:
            return await recount(connection, [uuid.UUID(p["id"]) for p, _ in shown])
        finally:
            await connection.close()

    counts = asyncio.run(recounted())
    for player, figures in shown:
        counted = counts[uuid.UUID(player["id"])]
        assert counted.played == 2
        assert {k: v for k, v in figures.items() if k != "streak"} == counted.figures()
        assert lengths(figures["streak"]) == {"current": 2, "best": 2}
