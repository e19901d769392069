"""Fair play: the stateless analysis never hands out the answer key of a live
challenge, and blind Friend Box play holds."""

from __future__ import annotations

import asyncio
import secrets
from datetime import UTC, datetime
from typing import Any

import asyncpg
import httpx
import pytest

from service.clock import FixedClock
from service.codes import new_code
from service.rules.ruleset import Roll, Rules
from service.store.in_play import fingerprint, live_dates
from tests.api.helpers import auth, daily_dice, legal_runs, new_player


async def analyze(
    client: httpx.AsyncClient, dice: tuple[Roll, ...], **rules: Any
) -> httpx.Response:
    """Analyse a legal run on ``dice`` under ``rules``."""
    moves = legal_runs(dice, 1, Rules(**rules))[0]
    return await client.post(
        "/v1/analyze", json={"dice": [list(r) for r in dice], "moves": moves, "rules": rules}
    )


def other_dice(dice: tuple[Roll, ...], from_roll: int) -> tuple[Roll, ...]:
    """The same dice, every roll from ``from_roll`` on changed."""
    return dice[:from_roll] + tuple(((a % 6) + 1, b) for a, b in dice[from_roll:])


def test_live_dates_span_the_time_zones_of_the_earth() -> None:
    # Noon UTC on 29 November: 28 November is still today at UTC-12 (plus grace), and
    # 30 November has begun at UTC+14... not yet (it begins at 10:00 UTC on the 29th).
    noon = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
    assert [d.isoformat() for d in live_dates(noon)] == ["2026-11-28", "2026-11-29", "2026-11-30"]
    assert fingerprint([(1, 2)] * 10) != fingerprint([(2, 1)] * 10)


async def test_the_dice_of_a_live_date_are_not_analysed(
    client: httpx.AsyncClient, clock: FixedClock
) -> None:
    today = await daily_dice(client, "2026-11-29")
    refused = await analyze(client, today)
    assert refused.status_code == 403
    assert refused.json()["type"] == "/problems/dice-in-play"
    assert "best_line" not in refused.text
    # Changing the rolls a turn rarely reaches does not hide them...
    assert (await analyze(client, other_dice(today, 7))).status_code == 403
    # ...nor other rules on the same dice (a 12-tile box on the same first rolls).
    longer = (*today, (1, 1), (2, 2), (3, 3))
    assert (await analyze(client, longer, tiles=12)).status_code == 403
    # Other dice are analysed as ever.
    assert (await analyze(client, other_dice(today, 6))).status_code == 200
    # A date that has closed everywhere is history: its analysis is open to all.
    old = await daily_dice(client, "2026-11-20")
    assert (await analyze(client, old)).status_code == 200
    # Once 29 November has closed everywhere, its dice can be analysed.
    clock.set(datetime(2026, 12, 1, 12, 15, tzinfo=UTC))
    assert (await analyze(client, today)).status_code == 200


async def test_the_dice_of_a_box_are_not_analysed(client: httpx.AsyncClient) -> None:
    owner = await new_player(client)
    box = await client.post("/v1/boxes", json={"rules": {"tiles": 10}}, headers=auth(owner))
    dice = tuple((a, b) for a, b in box.json()["dice"])
    refused = await analyze(client, dice, tiles=10)
    assert refused.status_code == 403 and refused.json()["type"] == "/problems/dice-in-play"


async def test_a_box_made_by_another_process_is_learnt(
    client: httpx.AsyncClient, database_url: str
) -> None:
    """A box stored by another process (here: straight into the tables) is refused once
    this process has followed the boxes table."""
    dice = tuple((secrets.randbelow(6) + 1, secrets.randbelow(6) + 1) for _ in range(10))
    assert (await analyze(client, dice)).status_code == 200
    connection = await asyncpg.connect(database_url)
    try:
        owner = await connection.fetchval("SELECT id FROM players LIMIT 1")
        if owner is None:
            owner = (await new_player(client))["id"]
        code = new_code()
        flat = [d for roll in dice for d in roll]
        await connection.execute(
            "INSERT INTO sequences (id, rules, dice, algorithm, issued_at) "
            "VALUES ($1, '{}'::jsonb, $2, 'test', now())",
            f"box/{code}",
            flat,
        )
        await connection.execute(
            "INSERT INTO boxes (code, owner_id, sequence_id, created_at) "
            "VALUES ($1, $2, $3, now())",
            code,
            owner,
            f"box/{code}",
        )
    finally:
        await connection.close()
    # Each process follows the boxes table every few seconds.
    for _ in range(100):
        refused = await analyze(client, dice)
        if refused.status_code == 403:
            break
        await asyncio.sleep(0.1)
    assert refused.status_code == 403 and refused.json()["type"] == "/problems/dice-in-play"


@pytest.mark.parametrize("redis_mode", ["redis"], indirect=True)
async def test_a_player_shown_the_target_plays_a_target_run(client: httpx.AsyncClient) -> None:
    owner, friend, blind = [await new_player(client, name=name) for name in ("O", "F", "B")]
    box = (await client.post("/v1/boxes", json={}, headers=auth(owner))).json()
    code = box["code"]
    runs = legal_runs(tuple((a, b) for a, b in box["dice"]), 3)
    played = await client.post(
        f"/v1/boxes/{code}/runs", json={"moves": runs[0]}, headers=auth(owner)
    )
    assert played.status_code == 201

    anonymous = (await client.get(f"/v1/boxes/{code}?mode=target")).json()
    assert "target" not in anonymous
    shown = (await client.get(f"/v1/boxes/{code}?mode=target", headers=auth(friend))).json()
    assert shown["target"]["score"] == played.json()["score"]
    # The friend saw the owner's result: the run is a target run, whatever it says.
    said_blind = await client.post(
        f"/v1/boxes/{code}/runs", json={"moves": runs[1], "mode": "blind"}, headers=auth(friend)
    )
    assert said_blind.status_code == 201
    really_blind = await client.post(
        f"/v1/boxes/{code}/runs", json={"moves": runs[2]}, headers=auth(blind)
    )
    assert really_blind.status_code == 201
    results = (await client.get(f"/v1/boxes/{code}/results", headers=auth(owner))).json()
    assert {r["name"]: r["mode"] for r in results} == {"O": "blind", "F": "target", "B": "blind"}
