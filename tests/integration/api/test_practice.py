"""The archive: practice runs of dates that have closed everywhere, verified and
analysed as official runs are, ranked against the date's official runs, never official.

The test database is the session's: each test fills dates of its own (in September,
which no other test plays), and a test run in several Redis modes a date per mode.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

import httpx
import pytest

from service.support.calendar import closes_everywhere_at
from service.support.clock import FixedClock
from service.support.settings import Settings
from tests.conftest import NOW, app_with, fetchval
from tests.integration.api.helpers import auth, daily_dice, new_player
from tests.runs import legal_run, legal_runs, run_with_score

Player = dict[str, str]
AFTER_EVERY_DATE_HERE = NOW  # 2026-11-29 12:00 UTC: every date of September has closed
RUN_FIELDS = ("sequence", "rules", "dice", "moves", "rolls_used", "open", "score", "shut")
RUN_FIELDS += ("analysis", "computer")


def per_mode(redis_mode: str, first_day: int) -> str:
    """A September date of this test's own in each Redis mode (the database is shared)."""
    modes = ["redis", "no-redis", "redis-unreachable"]
    return date(2026, 9, first_day + modes.index(redis_mode)).isoformat()


async def practise(
    client: httpx.AsyncClient,
    day: str,
    moves: list[Any],
    player: Player | None = None,
    **headers: str,
) -> httpx.Response:
    sent = {**(auth(player) if player else {}), **headers}
    return await client.post(f"/v1/daily/{day}/practice", json={"moves": moves}, headers=sent)


async def submit(
    client: httpx.AsyncClient, player: Player, day: str, moves: list[Any]
) -> httpx.Response:
    return await client.post(f"/v1/daily/{day}/runs", json={"moves": moves}, headers=auth(player))


def while_open(day: str) -> datetime:
    """Noon UTC on ``day``: open to a player in UTC."""
    return datetime.combine(date.fromisoformat(day), datetime.min.time(), tzinfo=UTC).replace(
        hour=12
    )


async def kept_rows(database_url: str, player: Player) -> int:
    count: int = await fetchval(
        database_url, "SELECT count(*) FROM practice_runs WHERE player_id = $1", player["id"]
    )
    return count


async def kept_of_day(database_url: str, day: str) -> int:
    count: int = await fetchval(
        database_url, "SELECT count(*) FROM practice_runs WHERE day = $1", date.fromisoformat(day)
    )
    return count


async def listed(client: httpx.AsyncClient, player: Player, query: str = "") -> list[Any]:
    response = await client.get(f"/v1/players/me/practice{query}", headers=auth(player))
    assert response.status_code == 200, response.text
    entries: list[Any] = response.json()
    return entries


@pytest.mark.parametrize("redis_mode", ["no-redis"], indirect=True)
async def test_a_closed_date_is_analysed_as_an_official_run_kept_only_with_a_token(
    client: httpx.AsyncClient, clock: FixedClock, database_url: str
) -> None:
    day = "2026-09-01"
    clock.set(while_open(day))
    moves = legal_run(await daily_dice(client, day))
    official = await new_player(client, name="Official")
    assert (await submit(client, official, day, moves)).status_code == 201
    clock.set(AFTER_EVERY_DATE_HERE)
    mine = (await client.get(f"/v1/daily/{day}/runs/me", headers=auth(official))).json()

    anonymous = await practise(client, day, moves)
    assert anonymous.status_code == 201, anonymous.text
    body = anonymous.json()
    # The same run, the same answer as the official run's, field for field.
    assert {f: body[f] for f in RUN_FIELDS} == {f: mine[f] for f in RUN_FIELDS}
    assert body["official"] is False and body["kept"] is False
    assert "run_id" not in body and "streak" not in body and "rank" not in body
    # Alone on its score: the official run and this one share first place.
    assert body["would_rank"] == {"position": 1, "players": 2, "percentile": 0.0}
    assert await kept_of_day(database_url, day) == 0  # without a token, kept nowhere

    player = await new_player(client, name="Practiser")
    with_token = await practise(client, day, moves, player)
    assert with_token.status_code == 201, with_token.text
    assert with_token.json() == {**body, "kept": True}
    assert await kept_rows(database_url, player) == 1
    assert await listed(client, player) == [
        {
            "date": day,
            "score": body["score"],
            "shut": body["shut"],
            "best_possible": body["analysis"]["best_possible"],
            "would_rank": body["would_rank"],
            "played_at": "2026-11-29T12:00:00Z",
        }
    ]

    bad_token = await practise(client, day, moves, {"token": "x" * 43})
    assert bad_token.status_code == 401 and bad_token.json()["type"] == "/problems/unauthorized"


@pytest.mark.parametrize("redis_mode", ["no-redis"], indirect=True)
@pytest.mark.parametrize(
    "day",
    [
        "2026-11-29",  # today in UTC
        "2026-11-28",  # closed in UTC (00:15), still open at UTC-12 until 12:15 UTC
        "2026-11-30",  # begun at UTC+14 only
    ],
)
async def test_a_date_still_open_somewhere_is_422_saying_when_it_closes(
    client: httpx.AsyncClient, database_url: str, day: str
) -> None:
    moves = legal_run(await daily_dice(client, day))
    player = await new_player(client)
    refused = await practise(client, day, moves, player)
    assert refused.status_code == 422, refused.text
    problem = refused.json()
    assert problem["type"] == "/problems/date-not-closed"
    closes_at = closes_everywhere_at(date.fromisoformat(day))
    assert problem["closes_at"] == closes_at.isoformat().replace("+00:00", "Z")
    assert closes_at.strftime("%Y-%m-%d %H:%M") in problem["detail"]
    assert await kept_rows(database_url, player) == 0


@pytest.mark.parametrize("redis_mode", ["no-redis"], indirect=True)
async def test_a_date_opens_to_practice_when_it_ends_at_utc_minus_12(
    client: httpx.AsyncClient, clock: FixedClock
) -> None:
    day = "2026-09-02"
    closes_at = datetime(2026, 9, 3, 12, 15, tzinfo=UTC)  # midnight at UTC-12, and 15 minutes
    clock.set(closes_at - timedelta(seconds=1))
    moves = legal_run(await daily_dice(client, day))
    player = await new_player(client, time_zone="Etc/GMT+12")  # the last zone to end a date
    # A second before, a player there may still play it officially: it is no archive yet.
    assert (await submit(client, player, day, moves)).status_code == 201
    assert (await practise(client, day, moves)).status_code == 422
    clock.set(closes_at)
    assert (await practise(client, day, moves)).status_code == 201


@pytest.mark.parametrize("redis_mode", ["no-redis"], indirect=True)
@pytest.mark.parametrize("day", ["2026-12-05", "2025-06-01", "today", "2026-13-01", "2026-1-5"])
async def test_a_date_without_daily_dice_is_answered_as_the_daily_routes_answer(
    client: httpx.AsyncClient, day: str
) -> None:
    dice = await client.get(f"/v1/daily/{day}")
    assert dice.status_code in (400, 404)
    refused = await practise(client, day, [[9]])
    assert (refused.status_code, refused.json()["type"]) == (
        dice.status_code,
        dice.json()["type"],
    )
    assert refused.json()["detail"] == dice.json()["detail"]


@pytest.mark.parametrize("redis_mode", ["no-redis"], indirect=True)
async def test_an_illegal_run_is_refused_as_the_daily_refuses_it(
    client: httpx.AsyncClient, clock: FixedClock, database_url: str
) -> None:
    day = "2026-09-04"
    clock.set(while_open(day))
    dice = await daily_dice(client, day)
    legal = legal_run(dice)
    illegal = [
        legal[:-1] if len(legal) > 1 else [[12]],  # stops early (or not a tile)
        [[9], [9]] if legal[0] != [9] else [[8], [8]],  # a tile closed twice, or a wrong total
        [*legal, [1]],  # a move after the end
    ]
    player = await new_player(client)
    official = [await submit(client, player, day, moves) for moves in illegal]
    assert [r.status_code for r in official] == [422, 422, 422]
    clock.set(AFTER_EVERY_DATE_HERE)
    practised = [await practise(client, day, moves, player) for moves in illegal]
    assert [r.json() for r in practised] == [r.json() for r in official]
    assert all("move_index" in r.json() for r in practised)
    assert await kept_rows(database_url, player) == 0


async def date_with_scores(
    client: httpx.AsyncClient, redis_mode: str, count: int
) -> tuple[str, dict[int, list[Any]]]:
    """The first date of this mode's ten in April whose dice reach ``count`` scores, and
    a legal run for each score reached (the dice are the secret's: the same every time)."""
    first = date(2026, 4, 1 + 10 * ["redis", "no-redis", "redis-unreachable"].index(redis_mode))
    for day in (first + timedelta(days=n) for n in range(10)):
        by_score = run_with_score(await daily_dice(client, day.isoformat()), set(range(46)))
        if len(by_score) >= count:
            return day.isoformat(), by_score
    raise AssertionError(f"no date from {first} on reaches {count} scores")


@pytest.mark.parametrize("redis_mode", ["redis", "no-redis", "redis-unreachable"], indirect=True)
async def test_would_rank_places_the_score_among_the_dates_official_runs(
    client: httpx.AsyncClient, clock: FixedClock, redis_mode: str
) -> None:
    day, by_score = await date_with_scores(client, redis_mode, 5)
    clock.set(while_open(day))
    scores = sorted(by_score)
    s0, s1, s2, s3, s4 = scores[0], scores[1], scores[2], scores[3], scores[-1]
    officials = [s0, s1, s1, s3, s3]  # two ties; nobody on s2 or s4
    players = [await new_player(client, name=f"O{i}") for i in range(len(officials))]
    for player, score in zip(players, officials, strict=True):
        assert (await submit(client, player, day, by_score[score])).status_code == 201
    clock.set(AFTER_EVERY_DATE_HERE)

    expected = {
        s0: {"position": 1, "players": 6, "percentile": round(100 * 4 / 6, 2)},
        s1: {"position": 2, "players": 6, "percentile": round(100 * 2 / 6, 2)},
        s2: {"position": 4, "players": 6, "percentile": round(100 * 2 / 6, 2)},
        s3: {"position": 4, "players": 6, "percentile": 0.0},
        s4: {"position": 6, "players": 6, "percentile": 0.0},
    }
    for score, rank in expected.items():
        response = await practise(client, day, by_score[score])
        assert response.status_code == 201, response.text
        assert response.json()["would_rank"] == rank, score
    # A tie takes the official runs' position on that score, among one more player.
    tied = (await client.get(f"/v1/daily/{day}/runs/me", headers=auth(players[1]))).json()
    assert tied["rank"]["position"] == expected[s1]["position"]
    assert tied["rank"]["players"] + 1 == expected[s1]["players"]
    # A date closed with no official run: first of one.
    empty = per_mode(redis_mode, 20)
    alone = await practise(client, empty, legal_run(await daily_dice(client, empty)))
    assert alone.json()["would_rank"] == {"position": 1, "players": 1, "percentile": 0.0}


async def official_state(
    client: httpx.AsyncClient, day: str, players: list[Player]
) -> dict[str, Any]:
    """What practice must never change: the date's leaderboard and histogram, and each
    player's official run of the date, streak, profile and history."""
    seen: dict[str, Any] = {
        "leaderboard": (await client.get(f"/v1/daily/{day}/leaderboard?limit=100")).json()
    }
    for player in players:
        paths = (f"/v1/daily/{day}/runs/me", "/v1/players/me/streak", "/v1/players/me")
        for path in (*paths, "/v1/players/me/history"):
            response = await client.get(path, headers=auth(player))
            seen[f"{player['name']} {path}"] = (response.status_code, response.json())
    return seen


@pytest.mark.parametrize("redis_mode", ["redis", "no-redis"], indirect=True)
async def test_practice_changes_no_leaderboard_histogram_streak_or_history(
    client: httpx.AsyncClient, clock: FixedClock, database_url: str, redis_mode: str
) -> None:
    day = per_mode(redis_mode, 23)
    clock.set(while_open(day))
    runs = legal_runs(await daily_dice(client, day), 3)
    played, other = await new_player(client, name="Played"), await new_player(client, name="Not")
    assert (await submit(client, played, day, runs[0])).status_code == 201
    clock.set(AFTER_EVERY_DATE_HERE)
    before = await official_state(client, day, [played, other])
    assert before["leaderboard"]["players"] == 1

    for player, moves in [(played, runs[-1]), (other, runs[0]), (other, runs[-1])]:
        assert (await practise(client, day, moves, player)).status_code == 201
    assert (await practise(client, day, runs[0])).status_code == 201  # anonymous

    assert await official_state(client, day, [played, other]) == before
    assert await kept_rows(database_url, other) == 1
    # The player without an official run of the date still has none, nor a streak.
    assert before[f"Not /v1/daily/{day}/runs/me"][0] == 404
    assert before["Not /v1/players/me/streak"] == (
        200,
        {
            "current": 0, "best": 0, "last_played": None, "played_today": False,
            "freezes": 0, "weekly": {"current": 0, "best": 0},
        },
    )  # fmt: skip
    assert before["Not /v1/players/me/history"] == (200, [])


async def practise_the_first_line(
    client: httpx.AsyncClient, day: str, player: Player
) -> httpx.Response:
    return await practise(client, day, legal_run(await daily_dice(client, day)), player)


@pytest.mark.parametrize("redis_mode", ["no-redis"], indirect=True)
async def test_the_practice_list_pages_as_the_history_does(
    client: httpx.AsyncClient, clock: FixedClock
) -> None:
    days = ["2026-09-26", "2026-09-27", "2026-09-28"]
    player, stranger = await new_player(client), await new_player(client)
    for day in days:
        assert (await practise_the_first_line(client, day, player)).status_code == 201
    assert (await practise_the_first_line(client, days[0], stranger)).status_code == 201

    newest_first = await listed(client, player)
    assert [e["date"] for e in newest_first] == days[::-1]
    fields = {"date", "score", "shut", "best_possible", "would_rank", "played_at"}
    assert set(newest_first[0]) == fields
    assert all(
        e["shut"] == (e["score"] == 0) and e["best_possible"] <= e["score"] for e in newest_first
    )
    assert [e["date"] for e in await listed(client, player, "?limit=2")] == days[:0:-1]
    page = await listed(client, player, f"?before={days[1]}&limit=2")
    assert [e["date"] for e in page] == days[:1]
    assert await listed(client, player, f"?before={days[0]}") == []
    assert [e["date"] for e in await listed(client, stranger)] == days[:1]  # their own only

    # Bad paging is refused exactly as the history refuses it.
    bad = ("?limit=0", "?limit=101", "?limit=x", "?limit=2.5", "?before=junk", "?before=2026-02-30")
    for query in bad:
        history = await client.get(f"/v1/players/me/history{query}", headers=auth(player))
        practice = await client.get(f"/v1/players/me/practice{query}", headers=auth(player))
        assert history.status_code == practice.status_code == 400, query
        assert practice.json()["type"] == history.json()["type"] == "/problems/invalid-request"
    assert len(await listed(client, player, "?limit=100")) == 3
    anonymous = await client.get("/v1/players/me/practice")
    assert anonymous.status_code == 401 and anonymous.json()["type"] == "/problems/unauthorized"


@pytest.mark.parametrize("redis_mode", ["no-redis"], indirect=True)
async def test_a_player_keeps_one_practice_run_a_date_the_latest(
    client: httpx.AsyncClient, clock: FixedClock, database_url: str
) -> None:
    day, other_day = "2026-09-05", "2026-09-06"
    by_score = run_with_score(await daily_dice(client, day), set(range(46)))
    assert len(by_score) >= 3, by_score
    player = await new_player(client)
    best_to_worst = sorted(by_score)[:3]
    for minutes, score in enumerate(best_to_worst):
        clock.set(AFTER_EVERY_DATE_HERE + timedelta(minutes=minutes))
        assert (await practise(client, day, by_score[score], player)).status_code == 201
    assert await kept_rows(database_url, player) == 1  # one a date, however often played
    (latest,) = await listed(client, player)
    assert latest["score"] == best_to_worst[-1]  # the latest, not the best
    assert latest["played_at"] == "2026-11-29T12:02:00Z"
    assert (await practise_the_first_line(client, other_day, player)).status_code == 201
    assert await kept_rows(database_url, player) == 2


@pytest.mark.parametrize("redis_mode", ["no-redis"], indirect=True)
async def test_an_idempotency_key_answers_the_first_practice_again(
    client: httpx.AsyncClient, database_url: str
) -> None:
    day = "2026-09-07"
    first, other = legal_runs(await daily_dice(client, day), 2)
    player = await new_player(client)
    sent = [await practise(client, day, first, player, **{"Idempotency-Key": "p-1"}) for _ in "ab"]
    assert [r.status_code for r in sent] == [201, 201] and sent[0].content == sent[1].content
    reused = await practise(client, day, other, player, **{"Idempotency-Key": "p-1"})
    assert reused.status_code == 422
    assert reused.json()["type"] == "/problems/idempotency-key-reused"
    assert await kept_rows(database_url, player) == 1


@pytest.mark.parametrize("redis_mode", ["redis", "no-redis"], indirect=True)
async def test_practice_is_rate_limited_as_analyze_is(settings: Settings) -> None:
    day = "2026-09-08"
    async with app_with(settings, rate_limit_address="4/h") as limited:
        dice = await daily_dice(limited, day)  # the Daily Dice feed is not limited
        moves = legal_run(dice)
        analysis = {"dice": [list(r) for r in dice], "moves": moves}
        statuses = []
        for _ in range(3):
            statuses.append((await practise(limited, day, moves)).status_code)
            statuses.append((await limited.post("/v1/analyze", json=analysis)).status_code)
        # One limit for both: four requests an hour from this address, then 429.
        assert statuses == [201, 200, 201, 200, 429, 429]
        refused = await practise(limited, day, moves)
        assert refused.status_code == 429 and refused.json()["type"] == "/problems/rate-limited"
        assert int(refused.headers["retry-after"]) >= 1
