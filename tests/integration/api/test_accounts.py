"""Accounts that can't be taken over: tokens never kept in plain text (nor in a kept
answer), idempotent creation that is useless to anyone but its client, transfer to a
new device, time zones that can't replay the calendar, names that show something."""

from __future__ import annotations

import asyncio
import os
import secrets
import subprocess
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

import httpx
import pytest
import redis

from service.support.clock import FixedClock
from service.support.codes import ALPHABET, TRANSFER_LENGTH, display
from service.support.settings import Settings
from tests.conftest import NOW, REDIS_URL, app_with, every_redis_mode
from tests.integration.api.helpers import auth, daily_dice, new_player
from tests.runs import legal_run


def own_token() -> str:
    return secrets.token_urlsafe(32)


async def create(client: httpx.AsyncClient, body: dict[str, object], key: str) -> httpx.Response:
    return await client.post("/v1/players", json=body, headers={"Idempotency-Key": key})


@every_redis_mode
async def test_a_replayed_creation_never_hands_out_the_token(client: httpx.AsyncClient) -> None:
    # Two clients send the same (guessable) key and body: the first gets its player; the
    # second gets no token at all, so it can't take the account over.
    key = f"device-{secrets.token_hex(4)}"  # say, a device id: guessable
    first = await create(client, {"name": "Device"}, key)
    second = await create(client, {"name": "Device"}, key)
    assert first.status_code == 201 and first.json()["token"]
    assert second.status_code == 409 and second.json()["type"] == "/problems/token-not-kept"
    assert first.json()["token"] not in second.text
    me = await client.get("/v1/players/me", headers=auth(first.json()))
    assert me.status_code == 200


@every_redis_mode
async def test_a_client_token_makes_creation_safe_to_retry_and_its_key_its_own(
    client: httpx.AsyncClient,
) -> None:
    mine, theirs = own_token(), own_token()
    body = {"name": "Kim", "time_zone": "Europe/Oslo"}
    key = f"phone-{secrets.token_hex(4)}"
    created = await create(client, {**body, "token": mine}, key)
    retried = await create(client, {**body, "token": mine}, key)
    assert created.status_code == retried.status_code == 201
    assert created.content == retried.content and created.json()["token"] == mine
    # Another client with the same key is in another scope: its own player, not locked out.
    other = await create(client, {**body, "token": theirs}, key)
    assert other.status_code == 201 and other.json()["id"] != created.json()["id"]
    assert other.json()["token"] == theirs
    # Without a key, the same token finds the same player (200): the client holds it.
    again = await client.post("/v1/players", json={"token": mine})
    assert again.status_code == 200 and again.json()["id"] == created.json()["id"]
    assert again.json()["name"] == "Kim"


@pytest.mark.parametrize(
    ("token", "status", "type_"),
    [
        ("short", 400, "/problems/invalid-request"),
        ("not base64 at all, not base64 at all, not b", 400, "/problems/invalid-request"),
        ("x" * 129, 400, "/problems/invalid-request"),
    ],
)
async def test_a_client_token_must_be_base64url(
    client: httpx.AsyncClient, token: str, status: int, type_: str
) -> None:
    response = await client.post("/v1/players", json={"token": token})
    assert response.status_code == status and response.json()["type"] == type_


# Tokens made by a pattern, not by chance: each shows far less than 128 random bits
# (most hold 16 or more distinct symbols, which was once taken for enough).
GUESSABLE_TOKENS = [
    "a" * 43,
    "ab" * 30,
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopq",  # the alphabet, in base64url order
    "-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcde",  # in ASCII order
    "zyxwvutsrqponmlkjihgfedcbaZYXWVUTSRQPONMLKJ",  # descending
    "ACEGIKMOQSUWYacegikmoqsuwy02468-ACEGIKMOQSU",  # every other symbol
    "".join(symbol * 4 for symbol in "ABCDEFGHIJKL")[:43],  # AAAABBBBCCCC...
    "".join(symbol * 3 for symbol in "ABCDEFGHIJKLMNO")[:43],  # AAABBBCCC...
    "AZBYCXDWEVFUGTHSIRJQKPLOMNNMOLPKQJRISHTGUFV",  # two sequences interleaved
    "0123456789" * 4 + "012",
    "qwertyuiop" * 4 + "asd",  # a repeated block
    "Kq7_Vd0xPz3mWb9E" * 3,  # a repeated random block (96 bits)
    "Kq7_Vd0xPz3mWb9E" + "A" * 27,  # 96 random bits and a run
]


@pytest.mark.parametrize("token", GUESSABLE_TOKENS)
async def test_a_guessable_client_token_is_refused_saying_how_to_make_one(
    client: httpx.AsyncClient, code: str, token: str
) -> None:
    for refused in (
        await client.post("/v1/players", json={"token": token}),
        await claim(client, code, token=token),
    ):
        assert refused.status_code == 422, refused.text
        assert refused.headers["content-type"].startswith("application/problem+json")
        problem = refused.json()
        assert problem["type"] == "/problems/weak-token" and problem["status"] == 422
        assert problem["title"] == "The token is not random enough"
        assert "32 random bytes" in problem["detail"]
    assert (await claim(client, code)).status_code == 200  # the code is still live


async def test_a_key_is_judged_on_the_json_value(client: httpx.AsyncClient) -> None:
    token = own_token()
    ordered = b'{"name": "Ola", "token": "%s"}' % token.encode()
    reordered = b'{"token":"%s","name":"Ola"}' % token.encode()
    headers = {"Idempotency-Key": secrets.token_hex(8), "Content-Type": "application/json"}
    first = await client.post("/v1/players", content=ordered, headers=headers)
    second = await client.post("/v1/players", content=reordered, headers=headers)
    assert first.status_code == second.status_code == 201
    assert first.content == second.content


async def transfer_code(client: httpx.AsyncClient, player: dict[str, str]) -> dict[str, str]:
    response = await client.post("/v1/players/me/transfer", headers=auth(player))
    assert response.status_code == 201, response.text
    offered: dict[str, str] = response.json()
    return offered


@pytest.fixture
async def code(client: httpx.AsyncClient) -> str:
    """The transfer code of a new player."""
    return (await transfer_code(client, await new_player(client)))["code"]


async def claim(client: httpx.AsyncClient, code: str, **body: str) -> httpx.Response:
    """``POST /v1/players/claim`` of ``code`` (with the new device's ``token``, if given)."""
    return await client.post("/v1/players/claim", json={"code": code, **body})


async def test_a_new_phone_keeps_the_player(client: httpx.AsyncClient, clock: FixedClock) -> None:
    old = await new_player(client, name="Mover", time_zone="Europe/Oslo")
    offered = await transfer_code(client, old)
    code = offered["code"]
    assert len(code) == TRANSFER_LENGTH and offered["display_code"] == display(code)
    assert datetime.fromisoformat(offered["expires_at"]) == NOW + timedelta(minutes=15)

    claimed = await claim(client, offered["display_code"])
    assert claimed.status_code == 200, claimed.text
    new = claimed.json()
    assert (new["id"], new["name"], new["time_zone"]) == (old["id"], "Mover", "Europe/Oslo")
    assert new["token"] != old["token"]
    assert (await client.get("/v1/players/me", headers=auth(new))).status_code == 200
    stale = await client.get("/v1/players/me", headers=auth(old))
    assert stale.status_code == 401  # the old token is dead at once
    spent = await claim(client, code)
    assert spent.status_code == 404 and spent.json()["type"] == "/problems/unknown-transfer-code"


async def test_a_transfer_code_expires_and_a_new_one_replaces_it(
    client: httpx.AsyncClient, clock: FixedClock
) -> None:
    player = await new_player(client)
    first = (await transfer_code(client, player))["code"]
    second = (await transfer_code(client, player))["code"]
    replaced = await claim(client, first)
    assert replaced.status_code == 404
    clock.set(NOW + timedelta(minutes=15))
    expired = await claim(client, second)
    assert expired.status_code == 404
    assert (await client.get("/v1/players/me", headers=auth(player))).status_code == 200


async def test_every_typo_and_adjacent_swap_of_a_transfer_code_is_400(
    client: httpx.AsyncClient, code: str
) -> None:
    wrong = set()
    for position in range(len(code)):
        for typed in ALPHABET:
            if typed != code[position]:
                wrong.add(code[:position] + typed + code[position + 1 :])
    for position in range(len(code) - 1):
        if code[position] != code[position + 1]:
            wrong.add(code[:position] + code[position + 1] + code[position] + code[position + 2 :])
    for typo in sorted(wrong):
        response = await claim(client, typo)
        assert response.status_code == 400, typo
        assert response.json()["type"] == "/problems/mistyped-code"
    malformed = await claim(client, "7M3Q-K2ZD2")  # a box code
    assert malformed.status_code == 400 and malformed.json()["type"] == "/problems/invalid-code"
    # After all of that, the right code still works.
    assert (await claim(client, code)).status_code == 200


@every_redis_mode
async def test_a_claim_with_the_clients_own_token_can_be_retried(
    client: httpx.AsyncClient, code: str
) -> None:
    token = own_token()
    first = await claim(client, code, token=token)
    retried = await claim(client, code, token=token)
    assert first.status_code == retried.status_code == 200
    assert first.json() == retried.json() and first.json()["token"] == token
    stolen = await claim(client, code, token=own_token())
    assert stolen.status_code == 404  # spent: only the claim's own retry finds it


@pytest.fixture
async def default_limits(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    """The app with the default limits of account creation and claims."""
    defaults = Settings()
    async with app_with(
        settings,
        rate_limit_accounts=defaults.rate_limit_accounts,
        rate_limit_claims=defaults.rate_limit_claims,
    ) as client:
        yield client


async def test_account_creation_has_its_own_limit(default_limits: httpx.AsyncClient) -> None:
    # The general limit is off here: this is account creation's own, at its default.
    answers = [await default_limits.post("/v1/players", json={}) for _ in range(80)]
    statuses = [a.status_code for a in answers]
    assert statuses.count(201) == 60 and statuses[60:] == [429] * 20
    assert int(answers[-1].headers["retry-after"]) >= 1
    assert answers[-1].json()["type"] == "/problems/rate-limited"


async def test_claims_are_limited_per_address(default_limits: httpx.AsyncClient) -> None:
    attempts = [await claim(default_limits, "0000-0000-00000") for _ in range(25)]
    statuses = [a.status_code for a in attempts]
    assert 429 in statuses and statuses.index(429) == 20
    assert set(statuses[:20]) <= {400, 404}


async def patch_zone(
    client: httpx.AsyncClient, player: dict[str, str], time_zone: str
) -> httpx.Response:
    return await client.patch("/v1/players/me", json={"time_zone": time_zone}, headers=auth(player))


async def test_the_time_zone_changes_at_most_once_a_day(
    client: httpx.AsyncClient, clock: FixedClock
) -> None:
    player = await new_player(client, time_zone="Europe/Oslo")
    assert (await patch_zone(client, player, "Asia/Tokyo")).status_code == 200
    assert (await patch_zone(client, player, "Asia/Tokyo")).status_code == 200  # no change
    soon = await patch_zone(client, player, "America/Chicago")
    assert soon.status_code == 409
    assert datetime.fromisoformat(soon.json()["possible_at"]) == NOW + timedelta(hours=24)
    # Nothing was stored by the refused request, a name included.
    both = await client.patch(
        "/v1/players/me", json={"name": "Sneaky", "time_zone": "UTC"}, headers=auth(player)
    )
    assert both.status_code == 409
    me = (await client.get("/v1/players/me", headers=auth(player))).json()
    assert (me["name"], me["time_zone"]) == (None, "Asia/Tokyo")
    # Names still change at will.
    renamed = await client.patch("/v1/players/me", json={"name": "Kai"}, headers=auth(player))
    assert renamed.status_code == 200 and renamed.json()["name"] == "Kai"
    clock.set(NOW + timedelta(hours=24))
    assert (await patch_zone(client, player, "America/Chicago")).status_code == 200


async def test_moving_west_never_reopens_a_closed_date(
    client: httpx.AsyncClient, clock: FixedClock
) -> None:
    # 00:30 on 30 November in Oslo: 29 November has closed for this player.
    clock.set(datetime(2026, 11, 29, 23, 30, tzinfo=UTC))
    player = await new_player(client, time_zone="Europe/Oslo")
    moves = legal_run(await daily_dice(client, "2026-11-29"))
    assert (await patch_zone(client, player, "America/Los_Angeles")).status_code == 200
    # 15:30 on 29 November in Los Angeles, but the date closed for the player in Oslo.
    missed = await client.post(
        "/v1/daily/2026-11-29/runs", json={"moves": moves}, headers=auth(player)
    )
    assert missed.status_code == 422 and missed.json()["type"] == "/problems/date-not-open"
    # The date that was open in Oslo stays open.
    moves = legal_run(await daily_dice(client, "2026-11-30"))
    today = await client.post(
        "/v1/daily/2026-11-30/runs", json={"moves": moves}, headers=auth(player)
    )
    assert today.status_code == 201, today.text


async def test_an_eastward_flight_plays_the_new_local_today(
    client: httpx.AsyncClient, clock: FixedClock
) -> None:
    # 20:00 on 29 November in New York; in Tokyo it is already 30 November.
    clock.set(datetime(2026, 11, 30, 1, 0, tzinfo=UTC))
    player = await new_player(client, time_zone="America/New_York")
    assert (await patch_zone(client, player, "Asia/Tokyo")).status_code == 200
    moves = legal_run(await daily_dice(client, "2026-11-30"))
    played = await client.post(
        "/v1/daily/2026-11-30/runs", json={"moves": moves}, headers=auth(player)
    )
    assert played.status_code == 201, played.text


@pytest.mark.parametrize(
    "name",
    [
        "\u3164",  # Hangul filler: a letter to Unicode, shows nothing
        "\u3164\u3164\u3164",
        "\u2800",  # Braille pattern blank
        "\u0301",  # a lone combining mark
        " \u0301\u0308 ",
        "Ann\u3164",  # a filler hidden in a name
        "\u115f\u1160",
        "\uffa0",
    ],
)
async def test_names_that_show_nothing_are_422(client: httpx.AsyncClient, name: str) -> None:
    response = await client.post("/v1/players", json={"name": name})
    assert response.status_code == 422 and response.json()["type"] == "/problems/invalid-name"


async def test_names_with_marks_and_scripts_are_kept(client: httpx.AsyncClient) -> None:
    for name in ("Jose\u0301", "Åse", "李雷", "Ωmega ✓"):
        response = await client.post("/v1/players", json={"name": name})
        assert response.status_code == 201, name


@pytest.mark.parametrize("time_zone", ["localtime", "Factory", "posixrules", "posix/UTC"])
async def test_zones_that_are_not_places_are_422(client: httpx.AsyncClient, time_zone: str) -> None:
    response = await client.post("/v1/players", json={"time_zone": time_zone})
    assert response.status_code == 422
    assert response.json()["type"] == "/problems/unknown-time-zone"


async def test_no_token_or_code_is_stored_anywhere(
    client: httpx.AsyncClient, database_url: str, redis_prefix: str
) -> None:
    """After every creating flow, a dump of every table and every Redis key of this
    test holds no bearer token and no transfer code."""
    secrets_seen: list[str] = []
    plain = await new_player(client, name="Plain")
    keyed = (await create(client, {"name": "Keyed"}, f"k-{secrets.token_hex(4)}")).json()
    own = (await create(client, {"token": own_token()}, f"k-{secrets.token_hex(4)}")).json()
    secrets_seen += [plain["token"], keyed["token"], own["token"]]
    for player in (plain, keyed, own):
        box = await client.post(
            "/v1/boxes", json={}, headers={**auth(player), "Idempotency-Key": "box"}
        )
        assert box.status_code == 201
        dice = await daily_dice(client, "2026-11-29")
        run = await client.post(
            "/v1/daily/2026-11-29/runs",
            json={"moves": legal_run(dice)},
            headers={**auth(player), "Idempotency-Key": "run"},
        )
        assert run.status_code == 201
    offered = await transfer_code(client, plain)
    claimed = (await claim(client, offered["code"])).json()
    second = await transfer_code(client, own)  # a live, unclaimed code
    secrets_seen += [claimed["token"], offered["code"], second["code"]]

    dump = await asyncio.to_thread(pg_dump, database_url)
    assert "transfer_codes" in dump and "idempotency_keys" in dump
    store = redis.Redis.from_url(REDIS_URL)
    try:
        keys = list(store.scan_iter(match=f"{redis_prefix}*", count=500))
        values = b"".join(store.dump(key) or b"" for key in keys)
    finally:
        store.close()
    for secret in secrets_seen:
        assert secret not in dump
        assert secret.encode() not in values and not any(secret.encode() in k for k in keys)


def pg_dump(database_url: str) -> str:
    parts = urlsplit(database_url)
    env = {**os.environ, "PGPASSWORD": parts.password or ""}
    command = ["pg_dump", "--data-only", "--no-owner", database_url]
    return subprocess.run(command, env=env, capture_output=True, check=True, text=True).stdout
