"""Official daily runs: one per player and date, ranks, leaderboards, history, share."""

from __future__ import annotations

import hashlib
import json
import secrets
import uuid
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from service.support.clock import FixedClock
from tests.conftest import ServerProcess, every_redis_mode, fetchval
from tests.integration.api.helpers import auth, count_runs, daily_dice, new_player
from tests.runs import legal_run, legal_runs, run_with_score

TODAY = "2026-11-29"  # the test clock's date (12:00 UTC)


async def submit(
    client: httpx.AsyncClient, player: dict[str, str], moves: list[object], day: str = TODAY
) -> httpx.Response:
    return await client.post(f"/v1/daily/{day}/runs", json={"moves": moves}, headers=auth(player))


async def test_the_first_run_is_official_and_the_identical_run_gets_the_same_body(
    client: httpx.AsyncClient, database_url: str
) -> None:
    player = await new_player(client, name="Ann")
    dice = await daily_dice(client, TODAY)
    first, other = legal_runs(dice, 2)
    accepted = await submit(client, player, first)
    assert accepted.status_code == 201, accepted.text
    body = accepted.json()
    assert body["official"] is True and body["run_id"]
    assert body["sequence"] == f"daily/{TODAY}" and body["dice"] == [list(r) for r in dice]
    assert body["streak"] == {
        "current": 1, "best": 1, "last_played": TODAY, "played_today": True, "freezes": 0,
        "weekly": {"current": 1, "best": 1},
    }  # fmt: skip
    assert body["rank"]["position"] >= 1 and body["rank"]["players"] >= 1

    again = await submit(client, player, first)
    assert again.status_code == 200 and again.content == accepted.content

    refused = await submit(client, player, other)
    assert refused.status_code == 409
    problem = refused.json()
    assert problem["type"] == "/problems/already-played"
    assert problem["official_run_id"] == body["run_id"]
    assert problem["official_run"] == f"/v1/daily/{TODAY}/runs/me"
    assert await count_runs(database_url, player["id"]) == 1

    mine = await client.get(f"/v1/daily/{TODAY}/runs/me", headers=auth(player))
    assert mine.status_code == 200
    assert mine.json()["moves"] == body["moves"] and "streak" not in mine.json()
    assert mine.json()["rank"]["players"] >= 1


async def test_an_illegal_run_stores_nothing(client: httpx.AsyncClient, database_url: str) -> None:
    player = await new_player(client)
    dice = await daily_dice(client, TODAY)
    legal = legal_run(dice)
    refused = await submit(client, player, legal[:-1] if len(legal) > 1 else [[12]])
    assert refused.status_code == 422
    assert refused.json()["type"] in {"/problems/run-ends-early", "/problems/not-a-tile"}
    assert await count_runs(database_url, player["id"]) == 0
    missing = await client.get(f"/v1/daily/{TODAY}/runs/me", headers=auth(player))
    assert missing.status_code == 404
    streak = (await client.get("/v1/players/me/streak", headers=auth(player))).json()
    assert streak == {
        "current": 0, "best": 0, "last_played": None, "played_today": False, "freezes": 0,
        "weekly": {"current": 0, "best": 0},
    }  # fmt: skip


@pytest.mark.parametrize(
    ("day", "status", "type_"),
    [
        ("2026-11-30", 422, "/problems/date-not-open"),  # begun at UTC+14, not in UTC yet
        ("2026-11-28", 422, "/problems/date-not-open"),  # past its grace in UTC
        ("2026-12-05", 404, "/problems/unknown-date"),  # not begun anywhere
        ("2025-06-01", 404, "/problems/unknown-date"),  # before launch
    ],
)
async def test_only_open_dates_can_be_played(
    client: httpx.AsyncClient, day: str, status: int, type_: str
) -> None:
    player = await new_player(client)
    response = await submit(client, player, [[7]], day)
    assert response.status_code == status and response.json()["type"] == type_


@every_redis_mode
async def test_ranks_leaderboard_and_visibility(
    client: httpx.AsyncClient, clock: FixedClock
) -> None:
    day = "2026-11-27"
    clock.set(datetime(2026, 11, 27, 12, 0, tzinfo=UTC))
    dice = await daily_dice(client, day)
    scores = run_with_score(dice, set(range(0, 46)))
    low, high = min(scores), max(scores)
    players = [await new_player(client, name=f"P{i}") for i in range(4)]
    outsider = await new_player(client, name="Late")

    hidden = await client.get(f"/v1/daily/{day}/leaderboard", headers=auth(outsider))
    assert hidden.status_code == 403 and hidden.json()["type"] == "/problems/leaderboard-hidden"
    assert (await client.get(f"/v1/daily/{day}/leaderboard")).status_code == 403

    # Two tie on the low score, one high, one in between if the dice allow.
    middle = sorted(scores)[len(scores) // 2]
    for player, score in zip(players, [low, low, high, middle], strict=True):
        assert (await submit(client, player, scores[score], day)).status_code == 201

    ranks = [
        (await client.get(f"/v1/daily/{day}/runs/me", headers=auth(p))).json()["rank"]
        for p in players
    ]
    assert ranks[0] == ranks[1]  # a tie shares its position and percentile

    board = await client.get(f"/v1/daily/{day}/leaderboard?limit=3", headers=auth(players[0]))
    assert board.status_code == 200, board.text
    data = board.json()
    histogram = {int(s): n for s, n in data["histogram"].items()}
    for score, rank in zip([low, low, high, middle], ranks, strict=True):
        assert rank["players"] == data["players"]
        assert rank["position"] == 1 + sum(n for s, n in histogram.items() if s < score)
        worse = sum(n for s, n in histogram.items() if s > score)
        assert rank["percentile"] == round(100 * worse / data["players"], 2)
    assert data["players"] == sum(data["histogram"].values()) >= 4
    assert data["top"][0]["score"] == min(int(s) for s in data["histogram"])
    assert len(data["top"]) == 3
    assert data["best_possible"] <= low
    assert data["shut_rate"] == data["histogram"].get("0", 0) / data["players"]

    # Once the date has ended everywhere (UTC-12, plus the grace), anyone may look.
    clock.set(datetime(2026, 11, 29, 0, 0, tzinfo=UTC))
    assert (await client.get(f"/v1/daily/{day}/leaderboard")).status_code == 200


async def test_history_and_share(client: httpx.AsyncClient, clock: FixedClock) -> None:
    player = await new_player(client)
    for n, day in enumerate(["2026-11-24", "2026-11-25", "2026-11-26"]):
        clock.set(datetime(2026, 11, 24 + n, 18, 0, tzinfo=UTC))
        moves = legal_run(await daily_dice(client, day))
        assert (await submit(client, player, moves, day)).status_code == 201
    history = (await client.get("/v1/players/me/history", headers=auth(player))).json()
    assert [h["date"] for h in history] == ["2026-11-26", "2026-11-25", "2026-11-24"]
    assert all(h["rank"]["position"] >= 1 for h in history)
    page = await client.get(
        "/v1/players/me/history?before=2026-11-26&limit=1", headers=auth(player)
    )
    assert [h["date"] for h in page.json()] == ["2026-11-25"]

    share = (await client.get("/v1/daily/2026-11-26/share", headers=auth(player))).json()["text"]
    run = (await client.get("/v1/daily/2026-11-26/runs/me", headers=auth(player))).json()
    lines = share.split("\n")
    assert lines[0] == "Shut the Box Challenge November 26, 2026"
    expected = "Shut the box in" if run["shut"] else f"Score {run['score']} in"
    assert lines[1].startswith(expected)
    assert len(lines[2]) == run["rolls_used"]
    assert set(lines[2]) <= set("🟩🟨🟧🟥⬛")
    for tile in range(1, 10):  # spoiler-free: no tiles, no dice
        assert str(tile) not in lines[2]
    assert (await client.get("/v1/daily/2026-11-20/share", headers=auth(player))).status_code == 404


@every_redis_mode
async def test_idempotency_keys(client: httpx.AsyncClient, database_url: str) -> None:
    key = {"Idempotency-Key": "0b6c4f5e-create-player"}
    body = {"name": "Kim", "token": secrets.token_urlsafe(32)}
    first = await client.post("/v1/players", json=body, headers=key)
    again = await client.post("/v1/players", json=body, headers=key)
    assert first.status_code == again.status_code == 201
    assert first.content == again.content  # the same player, the client's own token
    reused = await client.post("/v1/players", json={**body, "name": "Other"}, headers=key)
    assert reused.status_code == 422 and reused.json()["type"] == "/problems/idempotency-key-reused"

    player = first.json()
    dice = await daily_dice(client, TODAY)
    moves = legal_run(dice)
    headers = {**auth(player), "Idempotency-Key": "run-1"}
    url = f"/v1/daily/{TODAY}/runs"
    created = await client.post(
        url, json={"moves": moves}, headers={**headers, "Accept-Language": "de"}
    )
    replayed = await client.post(
        url, json={"moves": moves}, headers={**headers, "Accept-Language": "nl"}
    )
    assert (created.status_code, replayed.status_code) == (201, 201)
    assert created.content == replayed.content
    # The answer kept for the key, in the language it was written in, and saying so.
    assert created.headers["content-language"] == replayed.headers["content-language"] == "de"
    assert await count_runs(database_url, player["id"]) == 1


async def test_a_key_sent_after_its_run_was_stored_answers_the_stored_run(
    client: httpx.AsyncClient, database_url: str
) -> None:
    """A run first sent without a key: a keyed retry finds the run and is answered with
    it as an identical run again (200), whatever key it has; the run keeps no key, and
    no key is kept anywhere else (migration 025)."""
    player = await new_player(client)
    moves = legal_run(await daily_dice(client, TODAY))
    url = f"/v1/daily/{TODAY}/runs"
    stored = await client.post(url, json={"moves": moves}, headers=auth(player))
    headers = {**auth(player), "Idempotency-Key": "after-the-run"}
    retried = await client.post(url, json={"moves": moves}, headers=headers)
    again = await client.post(url, json={"moves": moves}, headers=headers)
    assert (stored.status_code, retried.status_code, again.status_code) == (201, 200, 200)
    assert stored.content == retried.content == again.content
    keys = "SELECT count(*) FROM idempotency_keys WHERE key = $1"
    assert await fetchval(database_url, keys, "after-the-run") == 0
    kept = await fetchval(
        database_url, "SELECT request_key FROM daily_runs WHERE player_id = $1", player["id"]
    )
    assert kept is None
    assert await count_runs(database_url, player["id"]) == 1


async def test_a_run_keeps_its_key_in_its_row_and_answers_it_after_the_date_closed(
    client: httpx.AsyncClient, database_url: str, clock: FixedClock
) -> None:
    """A keyed run's key is kept with the run, in its row (the first 16 bytes of the
    key's SHA-256, and the language asked for), not in a row of its own. Its retry after
    the date closed for the player (its answer lost on the way) is answered as it was
    first; another run with that key, an illegal one too, is 422 (the key's), without a
    key 422 (the date's)."""
    clock.set(datetime(2026, 11, 29, 22, 0, tzinfo=UTC))
    player = await new_player(client, time_zone="Europe/Oslo")
    first, other = legal_runs(await daily_dice(client, TODAY), 2)
    url = f"/v1/daily/{TODAY}/runs"
    key = "lost-on-the-way"
    headers = {**auth(player), "Idempotency-Key": key, "Accept-Language": "nb"}
    created = await client.post(url, json={"moves": first}, headers=headers)
    assert created.status_code == 201, created.text
    kept = "SELECT (request_key, request_language) FROM daily_runs WHERE player_id = $1"
    digest = uuid.UUID(bytes=hashlib.sha256(key.encode()).digest()[:16])
    assert tuple(await fetchval(database_url, kept, player["id"])) == (digest, "nb")
    keys = "SELECT count(*) FROM idempotency_keys WHERE key = $1"
    assert await fetchval(database_url, keys, key) == 0

    clock.set(datetime(2026, 11, 29, 23, 30, tzinfo=UTC))  # 00:30 in Oslo: closed
    retried = await client.post(
        url, json={"moves": first}, headers={**headers, "Accept-Language": "de"}
    )
    assert (retried.status_code, retried.content) == (201, created.content)
    assert retried.headers["content-language"] == "nb"
    for moves in (other, [*first, first[-1]]):  # another run; an illegal one (a move too many)
        reused = await client.post(url, json={"moves": moves}, headers=headers)
        assert reused.status_code == 422, reused.text
        assert reused.json()["type"] == "/problems/idempotency-key-reused"
    unkeyed = await client.post(url, json={"moves": first}, headers=auth(player))
    assert unkeyed.status_code == 422 and unkeyed.json()["type"] == "/problems/date-not-open"
    assert await count_runs(database_url, player["id"]) == 1


async def test_a_key_used_first_for_another_request_never_refuses_a_run_it_stored(
    client: httpx.AsyncClient, database_url: str
) -> None:
    """An official run's key is kept in the run's row: a key the player used first for
    another request (a box) must not find that request's answer, refusing a run. The
    run's key is the run's alone: the run is stored and answered, the box's key still
    answers the box, and a second run of the date with the run's key is refused (422),
    nothing more stored."""
    player = await new_player(client)
    headers = {**auth(player), "Idempotency-Key": "one-key-two-requests"}
    box = await client.post("/v1/boxes", json={}, headers=headers)
    assert box.status_code == 201, box.text
    first, other = legal_runs(await daily_dice(client, TODAY), 2)
    url = f"/v1/daily/{TODAY}/runs"
    run = await client.post(url, json={"moves": first}, headers=headers)
    assert run.status_code == 201, run.text
    again = await client.post("/v1/boxes", json={}, headers=headers)
    assert (again.status_code, again.content) == (201, box.content)
    reused = await client.post(url, json={"moves": other}, headers=headers)
    assert reused.status_code == 422 and reused.json()["type"] == "/problems/idempotency-key-reused"
    assert await count_runs(database_url, player["id"]) == 1


def test_official_runs_are_answered_alike_whichever_path_takes_them(
    two_workers: ServerProcess,
) -> None:
    """A run whose body says its length is answered before the framework's routing; one
    sent in chunks by the handler: an idempotency key used on one path is honoured on
    the other, an identical run again gets the same body, and a problem is the
    handler's either way. On a real server: chunked bodies are the server's to read."""
    server = two_workers
    with httpx.Client(base_url=server.url) as http:
        today = datetime.now(UTC).date().isoformat()
        dice = [tuple(roll) for roll in http.get(f"/v1/daily/{today}").json()["dice"]]
        first, other = legal_runs(dice, 2)
        url = f"/v1/daily/{today}/runs"

        def post(
            player: dict[str, str], moves: list[Any], chunked: bool, **headers: str
        ) -> httpx.Response:
            encoded = json.dumps({"moves": moves}).encode()
            content = iter([encoded[:5], encoded[5:]]) if chunked else encoded
            headers |= {"content-type": "application/json", "accept-language": "de"}
            return http.post(url, content=content, headers={**headers, **auth(player)})

        for key in ({"idempotency-key": "run-1"}, {}):
            for chunked_first in (False, True):
                player = http.post("/v1/players", json={"time_zone": "UTC"}).json()
                created = post(player, first, chunked_first, **key)
                again = post(player, first, not chunked_first, **key)
                assert created.status_code == 201, created.text
                assert again.status_code == (201 if key else 200), again.text
                assert created.content == again.content
                # A key's answer again is the kept one, and says the language it is in.
                for header in ("content-type", "content-language", "vary"):
                    assert created.headers[header] == again.headers[header], header
                refused = post(player, other, not chunked_first)
                assert refused.status_code == 409, refused.text
                assert refused.headers["content-type"] == "application/problem+json"


@pytest.mark.parametrize("key", [None, "run-1"])
async def test_a_database_that_cannot_answer_is_a_503_and_is_asked_once(
    client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch, key: str | None
) -> None:
    """The database fails under a run answered before the framework: the 503 the handler
    would give, at once, not the handler asking the database again. Without an
    idempotency key the player is looked up with the batch that stores the run; with
    one, first."""
    from service.store import daily, players

    player = await new_player(client, name="Ada")
    moves = legal_run(await daily_dice(client, TODAY))
    asked: list[int] = []

    async def refused(pool: object, items: list[object]) -> None:
        asked.append(len(items))
        raise ConnectionRefusedError(111, "Connection refused")

    monkeypatch.setattr(players, "by_token_hashes", refused)
    monkeypatch.setattr(daily, "submit_batch_by_tokens", refused)
    headers = auth(player) | ({"idempotency-key": key} if key else {})
    response = await client.post(f"/v1/daily/{TODAY}/runs", json={"moves": moves}, headers=headers)
    assert response.status_code == 503, response.text
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["type"] == "/problems/database-unavailable"
    assert int(response.headers["retry-after"]) > 0
    assert asked == [1]


@pytest.mark.parametrize(
    ("now", "moved_to", "day", "status"),
    [
        # 00:14:59 and 00:15 on 30 November in Oslo: the grace of the 29th, then its end.
        (datetime(2026, 11, 29, 23, 14, 59, tzinfo=UTC), None, "2026-11-29", 201),
        (datetime(2026, 11, 29, 23, 15, tzinfo=UTC), None, "2026-11-29", 422),
        # 00:30 in Oslo, moved to Los Angeles (15:30 on the 29th there): the 29th has closed
        # for the player, the 30th stays open.
        (datetime(2026, 11, 29, 23, 30, tzinfo=UTC), "America/Los_Angeles", "2026-11-29", 422),
        (datetime(2026, 11, 29, 23, 30, tzinfo=UTC), "America/Los_Angeles", "2026-11-30", 201),
    ],
)
@every_redis_mode
async def test_a_date_is_open_alike_whether_a_run_is_sent_with_an_idempotency_key_or_not(
    client: httpx.AsyncClient,
    clock: FixedClock,
    now: datetime,
    moved_to: str | None,
    day: str,
    status: int,
) -> None:
    """With an idempotency key the player is looked up before the run is stored; without
    one, with the batch that stores it. Either way one rule decides whether the date is
    open: at the end of the grace after local midnight, and for a date a change of time
    zone closed, both answer alike."""
    clock.set(now)
    moves = legal_run(await daily_dice(client, day))
    for key in (None, secrets.token_hex(8)):
        player = await new_player(client, time_zone="Europe/Oslo")
        if moved_to is not None:
            moved = await client.patch(
                "/v1/players/me", json={"time_zone": moved_to}, headers=auth(player)
            )
            assert moved.status_code == 200, moved.text
        headers = auth(player) | ({"Idempotency-Key": key} if key else {})
        response = await client.post(
            f"/v1/daily/{day}/runs", json={"moves": moves}, headers=headers
        )
        assert response.status_code == status, (key, response.text)
        if status == 422:
            assert response.json()["type"] == "/problems/date-not-open"
