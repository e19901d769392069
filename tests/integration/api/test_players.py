"""Players: creation, the token, the name and time zone rules."""

from __future__ import annotations

import hashlib

import asyncpg
import httpx
import pytest

from tests.integration.api.helpers import new_player


async def test_a_player_gets_a_token_that_is_stored_only_as_a_hash(
    client: httpx.AsyncClient, database_url: str
) -> None:
    created = await new_player(client, name="Ann", time_zone="Europe/Oslo")
    assert (created["name"], created["time_zone"]) == ("Ann", "Europe/Oslo")
    assert len(created["token"]) >= 40
    me = await client.get("/v1/players/me", headers={"Authorization": f"Bearer {created['token']}"})
    assert me.status_code == 200
    assert me.json()["id"] == created["id"] and me.json()["created_at"].startswith(
        "2026-11-29T12:00"
    )
    connection = await asyncpg.connect(database_url)
    try:
        stored = await connection.fetchval(
            "SELECT token_hash FROM players WHERE id = $1", created["id"]
        )
        columns = await connection.fetch("SELECT * FROM players WHERE id = $1", created["id"])
    finally:
        await connection.close()
    assert stored == hashlib.sha256(created["token"].encode()).digest()
    assert created["token"] not in str(dict(columns[0]))


async def test_defaults(client: httpx.AsyncClient) -> None:
    created = await new_player(client)
    assert created["name"] is None and created["time_zone"] == "UTC"


@pytest.mark.parametrize(
    ("body", "type_"),
    [
        ({"time_zone": "Mars/Olympus"}, "/problems/unknown-time-zone"),
        ({"time_zone": "../../etc/passwd"}, "/problems/unknown-time-zone"),
        ({"name": ""}, "/problems/invalid-name"),
        ({"name": "   "}, "/problems/invalid-name"),
        ({"name": "x" * 41}, "/problems/invalid-name"),
        ({"name": "bell\u0007"}, "/problems/invalid-name"),
        ({"name": "zero\u200bwidth"}, "/problems/invalid-name"),
    ],
)
async def test_bad_names_and_time_zones_are_422(
    client: httpx.AsyncClient, body: dict[str, str], type_: str
) -> None:
    response = await client.post("/v1/players", json=body)
    assert response.status_code == 422 and response.json()["type"] == type_


async def test_names_are_normalised(client: httpx.AsyncClient) -> None:
    created = await new_player(client, name="  Jose\u0301  ")  # decomposed é
    assert created["name"] == "Jos\u00e9"


async def test_patch_me(client: httpx.AsyncClient) -> None:
    created = await new_player(client, name="Bo")
    auth = {"Authorization": f"Bearer {created['token']}"}
    changed = await client.patch(
        "/v1/players/me", json={"time_zone": "America/New_York"}, headers=auth
    )
    assert changed.status_code == 200
    assert (changed.json()["name"], changed.json()["time_zone"]) == ("Bo", "America/New_York")
    cleared = await client.patch("/v1/players/me", json={"name": None}, headers=auth)
    assert cleared.json()["name"] is None and cleared.json()["time_zone"] == "America/New_York"
    refused = await client.patch("/v1/players/me", json={"time_zone": "Nowhere"}, headers=auth)
    assert refused.status_code == 422
    unknown = await client.patch("/v1/players/me", json={"colour": "red"}, headers=auth)
    assert unknown.status_code == 400
    after = await client.get("/v1/players/me", headers=auth)
    assert after.json()["time_zone"] == "America/New_York"  # nothing stored by the refusals
