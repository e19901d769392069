"""Friends through the API: friend codes, friendships both ways and their limit, and the
friends' board of a Daily Dice date."""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter
from typing import Any

import asyncpg
import httpx
import pytest

from service.support.codes import ALPHABET, display, is_valid, with_check
from service.support.settings import Settings
from tests.conftest import SharedServer, app_with, fetchval
from tests.integration.api.helpers import auth, daily_dice, insert_run, new_player
from tests.runs import legal_runs, score_of

TODAY = "2026-11-29"  # the test clock's date (12:00 UTC): open to players in UTC
CLOSED = "2026-10-07"  # closed everywhere at the clock's now; no other test stores runs on it
MOST = 200

# Friends touch Redis only through the rate limits and the daily runs (each tested with
# and without it); the rest, without.
without_redis = pytest.mark.parametrize("redis_mode", ["no-redis"], indirect=True)
with_and_without_redis = pytest.mark.parametrize("redis_mode", ["redis", "no-redis"], indirect=True)


async def friend_code(client: httpx.AsyncClient, player: dict[str, str]) -> dict[str, str]:
    response = await client.post("/v1/players/me/friend-code", headers=auth(player))
    assert response.status_code == 201, response.text
    made: dict[str, str] = response.json()
    return made


async def redeem(client: httpx.AsyncClient, player: dict[str, str], code: str) -> httpx.Response:
    return await client.post("/v1/friends", json={"code": code}, headers=auth(player))


async def friends_of(client: httpx.AsyncClient, player: dict[str, str]) -> list[dict[str, Any]]:
    response = await client.get("/v1/friends", headers=auth(player))
    assert response.status_code == 200, response.text
    found: list[dict[str, Any]] = response.json()
    return found


async def befriend(client: httpx.AsyncClient, one: dict[str, str], other: dict[str, str]) -> None:
    response = await redeem(client, one, (await friend_code(client, other))["code"])
    assert response.status_code == 201, response.text


async def board(client: httpx.AsyncClient, player: dict[str, str], day: str) -> httpx.Response:
    return await client.get(f"/v1/daily/{day}/friends", headers=auth(player))


def ids(friends: list[dict[str, Any]]) -> list[str]:
    return [friend["id"] for friend in friends]


# --- friend codes ------------------------------------------------------------------------


@without_redis
async def test_a_friend_code_is_made_like_a_box_code_and_a_new_one_revokes_the_last(
    client: httpx.AsyncClient,
) -> None:
    owner = await new_player(client, name="Owner")
    friend = await new_player(client, name="Friend")
    first = await friend_code(client, owner)
    code = first["code"]
    assert len(code) == 9 and set(code) <= set(ALPHABET) and is_valid(code)
    assert first["display_code"] == display(code) == f"{code[:4]}-{code[4:]}"
    second = await friend_code(client, owner)
    assert second["code"] != code and is_valid(second["code"])

    revoked = await redeem(client, friend, code)
    assert revoked.status_code == 404, revoked.text
    assert revoked.json()["type"] == "/problems/unknown-friend-code"
    assert await friends_of(client, friend) == []
    redeemed = await redeem(client, friend, second["display_code"])
    assert redeemed.status_code == 201, redeemed.text


@without_redis
async def test_redeeming_a_code_makes_friends_both_ways(client: httpx.AsyncClient) -> None:
    owner = await new_player(client, name="Owner")
    friend = await new_player(client, name="Friend")
    code = (await friend_code(client, owner))["code"]
    created = await redeem(client, friend, code)
    assert created.status_code == 201, created.text
    assert created.json() == {"id": owner["id"], "name": "Owner"}
    assert ids(await friends_of(client, friend)) == [owner["id"]]
    assert ids(await friends_of(client, owner)) == [friend["id"]]
    [shown] = await friends_of(client, owner)
    assert shown["name"] == "Friend"

    again = await redeem(client, friend, code)
    assert again.status_code == 200 and again.json() == created.json()
    # From the other side: friends already, the same one friendship.
    back = await redeem(client, owner, (await friend_code(client, friend))["code"])
    assert back.status_code == 200 and back.json() == {"id": friend["id"], "name": "Friend"}
    assert ids(await friends_of(client, owner)) == [friend["id"]]
    assert ids(await friends_of(client, friend)) == [owner["id"]]


@without_redis
async def test_codes_are_read_as_people_type_them(client: httpx.AsyncClient) -> None:
    owner = await new_player(client, name="Owner")
    friend = await new_player(client)
    code = (await friend_code(client, owner))["code"]
    typed = f" {code[:4].lower()} - {code[4:]} ".replace("0", "o").replace("1", "l")
    assert (await redeem(client, friend, typed)).status_code == 201

    for wrong in [code[:3] + next(c for c in ALPHABET if c != code[3]) + code[4:]]:
        mistyped = await redeem(client, friend, wrong)
        assert mistyped.status_code == 400, mistyped.text
        assert mistyped.json()["type"] == "/problems/mistyped-code"
        assert "friend code" in mistyped.json()["detail"]
    for malformed in ("ABC", "X" * 65):  # too few symbols; more than a code is typed in
        short = await redeem(client, friend, malformed)
        assert short.status_code == 400 and short.json()["type"] == "/problems/invalid-code"
    unknown = with_check("ZZZZZZZZ" if code[:8] != "ZZZZZZZZ" else "YYYYYYYY")
    missing = await redeem(client, friend, unknown)
    assert missing.status_code == 404 and missing.json()["type"] == "/problems/unknown-friend-code"
    for body in ({}, {"code": 12345}, {"code": code, "extra": 1}):
        bad = await client.post("/v1/friends", json=body, headers=auth(friend))
        assert bad.status_code == 400, (body, bad.text)
        assert bad.json()["type"] == "/problems/invalid-request"


@without_redis
async def test_ones_own_code_is_422_and_nothing_is_stored(client: httpx.AsyncClient) -> None:
    player = await new_player(client, name="Narcissus")
    code = (await friend_code(client, player))["code"]
    own = await redeem(client, player, code)
    assert own.status_code == 422, own.text
    assert own.json()["type"] == "/problems/own-friend-code"
    assert await friends_of(client, player) == []


@without_redis
async def test_a_redemption_needs_a_token(client: httpx.AsyncClient) -> None:
    owner = await new_player(client)
    code = (await friend_code(client, owner))["code"]
    for response in (
        await client.post("/v1/friends", json={"code": code}),
        await client.post("/v1/players/me/friend-code"),
        await client.get("/v1/friends"),
        await client.delete(f"/v1/friends/{owner['id']}"),
        await client.get(f"/v1/daily/{CLOSED}/friends"),
    ):
        assert response.status_code == 401, response.text


@without_redis
async def test_an_idempotency_key_replays_the_first_answer(client: httpx.AsyncClient) -> None:
    owner = await new_player(client, name="Owner")
    friend = await new_player(client)
    code = (await friend_code(client, owner))["code"]
    headers = auth(friend) | {"Idempotency-Key": "befriend-1"}
    first = await client.post("/v1/friends", json={"code": code}, headers=headers)
    replayed = await client.post("/v1/friends", json={"code": code}, headers=headers)
    assert (first.status_code, replayed.status_code) == (201, 201)
    assert first.content == replayed.content
    other = await client.post("/v1/friends", json={"code": with_check("Z" * 8)}, headers=headers)
    assert other.status_code == 422 and other.json()["type"] == "/problems/idempotency-key-reused"


# --- the limit ---------------------------------------------------------------------------


@without_redis
async def test_two_hundred_friends_at_most_on_either_side(client: httpx.AsyncClient) -> None:
    popular = await new_player(client, name="Popular")
    code = (await friend_code(client, popular))["code"]
    fans = [await new_player(client) for _ in range(MOST + 1)]
    for fan in fans[:MOST]:
        assert (await redeem(client, fan, code)).status_code == 201
    assert len(await friends_of(client, popular)) == MOST

    # The code's owner is full: the 201st fan is refused, nothing stored.
    theirs = await redeem(client, fans[MOST], code)
    assert theirs.status_code == 409, theirs.text
    assert theirs.json()["type"] == "/problems/too-many-friends"
    assert await friends_of(client, fans[MOST]) == []
    # The redeeming player is full: the same refusal from their side.
    mine = await redeem(client, popular, (await friend_code(client, fans[MOST]))["code"])
    assert mine.status_code == 409 and mine.json()["type"] == "/problems/too-many-friends"
    assert mine.json()["detail"] != theirs.json()["detail"]  # each says whose the limit is
    assert len(await friends_of(client, popular)) == MOST
    # A friend already is still 200, full or not.
    assert (await redeem(client, fans[0], code)).status_code == 200

    removed = await client.delete(f"/v1/friends/{fans[0]['id']}", headers=auth(popular))
    assert removed.status_code == 204
    assert (await redeem(client, fans[MOST], code)).status_code == 201
    assert len(await friends_of(client, popular)) == MOST


# --- removing a friend -------------------------------------------------------------------


@without_redis
async def test_removing_a_friend_removes_both_ways(client: httpx.AsyncClient) -> None:
    one, other, third = [await new_player(client, name=n) for n in ("One", "Other", "Third")]
    await befriend(client, one, other)
    await befriend(client, one, third)
    removed = await client.delete(f"/v1/friends/{other['id']}", headers=auth(one))
    assert removed.status_code == 204 and removed.content == b""
    assert ids(await friends_of(client, one)) == [third["id"]]
    assert await friends_of(client, other) == []

    # Not a friend (any more, or ever), or no player at all: 404.
    for gone in (other["id"], other["id"], str(uuid.uuid4()), one["id"]):
        again = await client.delete(f"/v1/friends/{gone}", headers=auth(one))
        assert again.status_code == 404, again.text
        assert again.json()["type"] == "/problems/not-a-friend"
    back = await client.delete(f"/v1/friends/{one['id']}", headers=auth(other))
    assert back.status_code == 404
    # A malformed id is a malformed request.
    malformed = await client.delete("/v1/friends/not-a-uuid", headers=auth(one))
    assert malformed.status_code == 400, malformed.text
    assert malformed.json()["type"] == "/problems/invalid-request"
    assert ids(await friends_of(client, one)) == [third["id"]]
    # From the other side, removed the same way; and friends again with a code.
    assert (await client.delete(f"/v1/friends/{one['id']}", headers=auth(third))).status_code == 204
    assert await friends_of(client, one) == []
    await befriend(client, other, one)
    assert ids(await friends_of(client, one)) == [other["id"]]


# --- streaks -----------------------------------------------------------------------------


@without_redis
async def test_friends_are_listed_with_their_own_streaks(client: httpx.AsyncClient) -> None:
    player, played, never = [await new_player(client, name=n) for n in ("Me", "Played", "Never")]
    await befriend(client, played, player)
    await befriend(client, player, never)
    moves = legal_runs(await daily_dice(client, TODAY), 1)[0]
    submitted = await client.post(
        f"/v1/daily/{TODAY}/runs", json={"moves": moves}, headers=auth(played)
    )
    assert submitted.status_code == 201, submitted.text

    # In the order they became friends: here at the same instant (the clock is frozen).
    listed = sorted(await friends_of(client, player), key=lambda f: f["name"] != "Played")
    assert ids(listed) == [played["id"], never["id"]]
    for friend, shown in zip((played, never), listed, strict=True):
        own = (await client.get("/v1/players/me/streak", headers=auth(friend))).json()
        assert shown["streak"] == own  # the same streak object wherever it appears
        assert set(shown) == {"id", "name", "streak"}
    assert listed[0]["streak"] == {
        "current": 1, "best": 1, "last_played": TODAY, "played_today": True, "freezes": 0,
        "weekly": {"current": 1, "best": 1},
    }  # fmt: skip
    assert listed[1]["streak"]["current"] == listed[1]["streak"]["best"] == 0


# --- the friends' board ------------------------------------------------------------------


async def submit(client: httpx.AsyncClient, player: dict[str, str], moves: list[Any]) -> None:
    response = await client.post(
        f"/v1/daily/{TODAY}/runs", json={"moves": moves}, headers=auth(player)
    )
    assert response.status_code == 201, response.text


async def runs_by_score(client: httpx.AsyncClient) -> dict[int, list[Any]]:
    """A legal run of TODAY for each score the first lines of play reach."""
    found: dict[int, list[Any]] = {}
    for moves in legal_runs(await daily_dice(client, TODAY), 20000):
        found.setdefault(score_of(moves), moves)
    return found


@with_and_without_redis
async def test_the_board_shows_the_player_and_friends_only_once_played(
    client: httpx.AsyncClient,
) -> None:
    by_score = await runs_by_score(client)
    best, middle, worst = sorted(by_score)[0], sorted(by_score)[1], sorted(by_score)[-1]
    me = await new_player(client, name="Me")
    tie = await new_player(client, name="Tie")
    worse = await new_player(client, name="Worse")
    idle = await new_player(client, name="Idle")  # a friend who has not played
    stranger = await new_player(client, name="Stranger")  # better than all, not a friend
    for friend in (tie, worse, idle):
        await befriend(client, me, friend)
    await befriend(client, stranger, await new_player(client))
    await submit(client, stranger, by_score[best])
    await submit(client, tie, by_score[middle])
    await submit(client, worse, by_score[worst])

    hidden = await board(client, me, TODAY)
    assert hidden.status_code == 403, hidden.text
    assert hidden.json()["type"] == "/problems/leaderboard-hidden"
    await submit(client, me, by_score[middle])

    shown = await board(client, me, TODAY)
    assert shown.status_code == 200, shown.text
    assert shown.json()["date"] == TODAY
    players = shown.json()["players"]
    tied = {"score": middle, "shut": middle == 0, "rank": 1}
    # Tied: one place (their order, of submission, is the clock's: frozen here).
    assert sorted(players[:2], key=lambda p: p["name"]) == [
        {"id": me["id"], "name": "Me", **tied, "me": True},
        {"id": tie["id"], "name": "Tie", **tied, "me": False},
    ]
    assert players[2:] == [
        {"id": worse["id"], "name": "Worse", "score": worst, "shut": False, "rank": 3, "me": False}
    ]
    # A friend's board is their own: the stranger is nobody's friend here.
    from_worse = (await board(client, worse, TODAY)).json()["players"]
    assert [(p["id"], p["rank"], p["me"]) for p in from_worse] == [
        (me["id"], 1, False),
        (worse["id"], 2, True),
    ]
    # A friend who has not played sees nothing yet of the open date.
    assert (await board(client, idle, TODAY)).status_code == 403


async def insert_closed_run(database_url: str, player_id: str, day: str, score: int) -> None:
    """A run of a date closed everywhere (no client can submit one any more), as a
    submission would have left it."""
    connection = await asyncpg.connect(database_url)
    try:
        await insert_run(connection, player_id, day, score)
    finally:
        await connection.close()


@without_redis
async def test_a_closed_date_shows_its_board_to_anyone(
    client: httpx.AsyncClient, database_url: str
) -> None:
    me = await new_player(client, name="Me")
    friends = [await new_player(client, name=f"F{i}") for i in range(3)]
    for friend in friends:
        await befriend(client, friend, me)
    stranger = await new_player(client, name="Stranger")
    for player, score in ((friends[0], 0), (friends[1], 9), (friends[2], 0), (stranger, 0)):
        await insert_closed_run(database_url, player["id"], CLOSED, score)

    shown = await board(client, me, CLOSED)  # me never played it: it has closed
    assert shown.status_code == 200, shown.text
    players = shown.json()["players"]
    assert [(p["name"], p["score"], p["shut"], p["rank"], p["me"]) for p in players] == [
        ("F0", 0, True, 1, False),
        ("F2", 0, True, 1, False),
        ("F1", 9, False, 3, False),
    ]
    alone = await board(client, stranger, CLOSED)
    assert alone.status_code == 200
    assert [(p["name"], p["rank"], p["me"]) for p in alone.json()["players"]] == [
        ("Stranger", 1, True)
    ]


@without_redis
async def test_the_board_reads_dates_as_the_daily_routes_do(client: httpx.AsyncClient) -> None:
    player = await new_player(client)
    for day, status, kind in (
        ("2026-02-30", 400, "invalid-date"),
        ("not-a-date", 400, "invalid-date"),
        ("2025-12-31", 404, "unknown-date"),  # before launch
        ("2026-12-25", 404, "unknown-date"),  # not begun anywhere
    ):
        response = await board(client, player, day)
        leaderboard = await client.get(f"/v1/daily/{day}/leaderboard", headers=auth(player))
        assert response.status_code == leaderboard.status_code == status, (day, response.text)
        assert response.json()["type"] == leaderboard.json()["type"] == f"/problems/{kind}"


# --- rate limits -------------------------------------------------------------------------


@with_and_without_redis
async def test_redemptions_are_limited_per_address(settings: Settings) -> None:
    async with app_with(settings, rate_limit_friends="3/h") as limited:
        owner = await new_player(limited)
        player = await new_player(limited)
        code = (await friend_code(limited, owner))["code"]
        guesses = [await redeem(limited, player, with_check(f"{n:08d}")) for n in range(3)]
        assert [g.status_code for g in guesses] == [404] * 3
        refused = await redeem(limited, player, code)  # even the right one: 3 attempts made
        assert refused.status_code == 429, refused.text
        assert refused.json()["type"] == "/problems/rate-limited"
        assert int(refused.headers["retry-after"]) >= 1
        assert await friends_of(limited, player) == []
        # Only redemptions have this limit.
        assert (await limited.get("/v1/friends", headers=auth(player))).status_code == 200
        assert (await friend_code(limited, owner))["code"]


@without_redis
async def test_the_default_limit_lets_a_few_attempts_an_hour(settings: Settings) -> None:
    default = Settings().rate_limit_friends
    async with app_with(settings, rate_limit_friends=default) as limited:
        player = await new_player(limited)
        statuses = [(await redeem(limited, player, "ABC")).status_code for _ in range(31)]
    assert statuses == [400] * 30 + [429]  # 30 an hour (malformed codes count too)


# --- at once, on a real server -----------------------------------------------------------


def test_redeeming_each_others_codes_at_once_makes_one_friendship(
    two_workers: SharedServer,
) -> None:
    """Two players redeem each other's codes at the same moment, on two workers: one
    friendship (one 201, one 200), never an error; nor past the limit when many redeem
    the code of a player one friend short of it."""
    server = two_workers

    async def scenario() -> tuple[list[list[int]], Counter[int], int]:
        async with httpx.AsyncClient(base_url=server.url, timeout=60) as setup:
            pairs = [(await new_player(setup), await new_player(setup)) for _ in range(12)]
            codes = {p["id"]: (await friend_code(setup, p))["code"] for pair in pairs for p in pair}

            async def at_once(player: dict[str, str], code: str) -> int:
                async with httpx.AsyncClient(base_url=server.url, timeout=60) as own:
                    return (await redeem(own, player, code)).status_code

            statuses = [
                sorted(await asyncio.gather(at_once(a, codes[b["id"]]), at_once(b, codes[a["id"]])))
                for a, b in pairs
            ]
            popular = await new_player(setup)
            code = (await friend_code(setup, popular))["code"]
            for _ in range(MOST - 1):
                assert (await redeem(setup, await new_player(setup), code)).status_code == 201
            late = [await new_player(setup) for _ in range(6)]
            crowd = Counter(await asyncio.gather(*(at_once(p, code) for p in late)))
            count = len(await friends_of(setup, popular))
            for a, b in pairs:
                assert ids(await friends_of(setup, a)) == [b["id"]]
                assert ids(await friends_of(setup, b)) == [a["id"]]
            return statuses, crowd, count

    statuses, crowd, count = asyncio.run(scenario())
    assert statuses == [[200, 201]] * 12
    assert crowd == {201: 1, 409: 5} and count == MOST
    rows = asyncio.run(fetchval(two_workers.database_url, "SELECT count(*) FROM friendships"))
    assert rows % 2 == 0  # every friendship both ways


# --- the current friend code, and whose a code is ----------------------------------------


@without_redis
async def test_the_current_friend_code_is_read_on_any_device(client: httpx.AsyncClient) -> None:
    owner = await new_player(client, name="Owner")
    none_yet = await client.get("/v1/players/me/friend-code", headers=auth(owner))
    assert none_yet.status_code == 404, none_yet.text
    assert none_yet.json()["type"] == "/problems/no-friend-code"
    assert none_yet.headers["content-type"].startswith("application/problem+json")

    first = await friend_code(client, owner)
    read = await client.get("/v1/players/me/friend-code", headers=auth(owner))
    assert read.status_code == 200 and read.json() == first
    second = await friend_code(client, owner)
    assert (await client.get("/v1/players/me/friend-code", headers=auth(owner))).json() == second

    # Another device: the player moved with a transfer code reads the same code.
    transfer = await client.post("/v1/players/me/transfer", headers=auth(owner))
    assert transfer.status_code == 201, transfer.text
    claimed = await client.post("/v1/players/claim", json={"code": transfer.json()["code"]})
    assert claimed.status_code == 200, claimed.text
    moved = await client.get("/v1/players/me/friend-code", headers=auth(claimed.json()))
    assert moved.status_code == 200 and moved.json() == second
    # Nobody else's.
    other = await new_player(client)
    assert (await client.get("/v1/players/me/friend-code", headers=auth(other))).status_code == 404
    assert (await client.get("/v1/players/me/friend-code")).status_code == 401


@without_redis
async def test_a_code_names_its_owner_before_it_is_redeemed(client: httpx.AsyncClient) -> None:
    owner = await new_player(client, name="Anna")
    nameless = await new_player(client)
    friend = await new_player(client, name="Ben")
    code = (await friend_code(client, owner))["code"]

    shown = await client.get(f"/v1/friend-codes/{display(code).lower()}", headers=auth(friend))
    assert shown.status_code == 200, shown.text
    assert shown.json() == {
        "code": code,
        "display_code": display(code),
        "owner": {"name": "Anna"},
        "yours": False,
    }
    # Reading it makes no friends.
    assert await friends_of(client, friend) == []
    own = await client.get(f"/v1/friend-codes/{code}", headers=auth(owner))
    assert own.json()["yours"] is True
    theirs = (await friend_code(client, nameless))["code"]
    unnamed = await client.get(f"/v1/friend-codes/{theirs}", headers=auth(friend))
    assert unnamed.json()["owner"] == {"name": None}

    # Read as a redemption reads it: replaced, unknown, mistyped.
    replaced = await client.get(f"/v1/friend-codes/{theirs}", headers=auth(friend))
    await friend_code(client, nameless)
    gone = await client.get(f"/v1/friend-codes/{theirs}", headers=auth(friend))
    assert replaced.status_code == 200 and gone.status_code == 404
    assert gone.json()["type"] == "/problems/unknown-friend-code"
    mistyped = code[:-1] + ("0" if code[-1] != "0" else "1")
    bad = await client.get(f"/v1/friend-codes/{mistyped}", headers=auth(friend))
    assert bad.status_code == 400 and bad.json()["type"] == "/problems/mistyped-code"
    assert (await client.get(f"/v1/friend-codes/{code}")).status_code == 401


@without_redis
async def test_reading_codes_counts_against_the_redemptions_limit(settings: Settings) -> None:
    async with app_with(settings, rate_limit_friends="3/h") as limited:
        owner = await new_player(limited, name="Owner")
        player = await new_player(limited)
        code = (await friend_code(limited, owner))["code"]
        guesses = [
            await limited.get(f"/v1/friend-codes/{with_check(f'{n:08d}')}", headers=auth(player))
            for n in range(3)
        ]
        assert [g.status_code for g in guesses] == [404] * 3
        refused = await limited.get(f"/v1/friend-codes/{code}", headers=auth(player))
        assert refused.status_code == 429, refused.text
        assert (await redeem(limited, player, code)).status_code == 429  # one budget
