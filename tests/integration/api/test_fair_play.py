"""Fair play: the stateless analysis never hands out the answer key of a live
challenge, and blind Friend Box play holds."""

from __future__ import annotations

import secrets
import uuid
from datetime import UTC, datetime
from typing import Any

import asyncpg
import httpx
import pytest

from service.clock import FixedClock
from service.rules.fairplay import deciding_key, only_sums_matter
from service.rules.ruleset import Roll, Rules
from service.settings import Settings
from service.store import boxes
from service.store.cache import Cache
from service.store.db import create_pool
from service.store.in_play import live_dates
from tests.conftest import NOW, SECRET, app_with
from tests.integration.api.helpers import auth, daily_dice, insert_box, new_player
from tests.runs import legal_run, legal_runs


async def analyze(
    client: httpx.AsyncClient, dice: tuple[Roll, ...], **rules: Any
) -> httpx.Response:
    """Analyse a legal run on ``dice`` under ``rules``."""
    moves = legal_run(dice, Rules(**rules))
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


def disguises(dice: tuple[Roll, ...]) -> list[tuple[Roll, ...]]:
    """The same dice as the analysis sees them under the standard rules: each roll
    written the other way round, and one roll replaced by another of the same total."""
    swapped = tuple((b, a) for a, b in dice)
    index = next(i for i, (a, b) in enumerate(dice) if 3 <= a + b <= 11)
    a, b = dice[index]
    same_total = (a - 1, b + 1) if a > 1 and b < 6 else (a + 1, b - 1)
    return [swapped, (*dice[:index], same_total, *dice[index + 1 :])]


def reached(dice: tuple[Roll, ...], rules: Rules) -> int:
    """How many rolls decide the analysis of these dice under these rules."""
    return len(deciding_key(dice, sums_only=only_sums_matter(rules))) - 1


async def test_the_dice_of_a_live_date_are_not_analysed(
    client: httpx.AsyncClient, clock: FixedClock
) -> None:
    today = await daily_dice(client, "2026-11-29")
    refused = await analyze(client, today)
    assert refused.status_code == 403
    assert refused.json()["type"] == "/problems/dice-in-play"
    assert "best_line" not in refused.text
    # In disguise: the same dice in another order, a roll for another of its total,
    # under every other rules variant too.
    for disguised in disguises(today):
        for rules in ({}, {"one_die": "high_closed"}, {"move_rule": "single"}):
            assert (await analyze(client, disguised, **rules)).status_code == 403, (
                disguised,
                rules,
            )
    # Changing the rolls no turn reaches does not hide them...
    assert (await analyze(client, other_dice(today, reached(today, Rules())))).status_code == 403
    # ...nor other rules on the same dice (a 12-tile box on the same first rolls).
    longer = (*today, (1, 1), (2, 2), (3, 3))
    assert (await analyze(client, longer, tiles=12)).status_code == 403
    # Other dice are analysed as ever: another total on a roll a turn can reach.
    for roll in (0, reached(today, Rules()) - 1):
        assert (
            await analyze(client, other_dice(today, roll)[: roll + 1] + today[roll + 1 :])
        ).status_code == 200
    # A date that has closed everywhere is history: its analysis is open to all.
    old = await daily_dice(client, "2026-11-20")
    assert (await analyze(client, old)).status_code == 200
    # Once 29 November has closed everywhere, its dice can be analysed.
    clock.set(datetime(2026, 12, 1, 12, 15, tzinfo=UTC))
    assert (await analyze(client, today)).status_code == 200


@pytest.mark.parametrize("rules", [{}, {"tiles": 10}, {"tiles": 4}, {"move_rule": "dice_or_sum"}])
async def test_the_dice_of_a_box_are_not_analysed(
    client: httpx.AsyncClient, rules: dict[str, Any]
) -> None:
    owner = await new_player(client)
    box = await client.post("/v1/boxes", json={"rules": rules}, headers=auth(owner))
    dice = tuple((a, b) for a, b in box.json()["dice"])
    refused = await analyze(client, dice, **rules)
    assert refused.status_code == 403 and refused.json()["type"] == "/problems/dice-in-play"
    swapped = tuple((b, a) for a, b in dice)
    assert (await analyze(client, swapped, **rules)).status_code == 403
    assert (await analyze(client, swapped, **{**rules, "one_die": "sum_le_6"})).status_code == 403
    if only_sums_matter(Rules(**rules)):
        for disguised in disguises(dice):
            assert (await analyze(client, disguised, **rules)).status_code == 403


async def test_a_box_made_by_another_process_is_refused_at_once(
    client: httpx.AsyncClient, database_url: str
) -> None:
    """A box stored by another process (here: the store's code on a pool of its own) is
    refused from the moment its creation is committed, without waiting for anything."""
    pool = await create_pool(database_url, min_size=1, max_size=1)
    try:
        owner = (await new_player(client))["id"]
        _, issued = await boxes.create(
            pool, Cache.connect(None, "other:"), SECRET.encode(), uuid.UUID(owner), Rules(), NOW
        )
        refused = await analyze(client, issued.dice)
        assert refused.status_code == 403 and refused.json()["type"] == "/problems/dice-in-play"
    finally:
        await pool.close()


async def test_boxes_made_before_the_mark_are_refused(
    settings: Settings, database_url: str
) -> None:
    """Boxes stored before their dice had keys (unmarked dice, no key) are given their
    keys when a process starts, and refused from then on, by every process."""
    dice = tuple((secrets.randbelow(6) + 1, secrets.randbelow(6) + 1) for _ in range(10))
    async with app_with(settings) as client:
        assert (await analyze(client, dice)).status_code == 200
        owner = (await new_player(client))["id"]
    connection = await asyncpg.connect(database_url)
    try:
        code = await insert_box(connection, owner, dice, "hmac-sha256-v1")
        async with app_with(settings) as client:
            for disguised in (dice, *disguises(dice)):
                refused = await analyze(client, disguised)
                assert (
                    refused.status_code == 403
                    and refused.json()["type"] == "/problems/dice-in-play"
                )
        assert await connection.fetchval(
            "SELECT dice_key IS NOT NULL FROM boxes WHERE code = $1", code
        )
    finally:
        await connection.close()


@pytest.mark.parametrize("redis_mode", ["redis"], indirect=True)
async def test_a_player_shown_the_target_plays_a_target_run(client: httpx.AsyncClient) -> None:
    owner, friend, blind = [await new_player(client, name=name) for name in ("O", "F", "B")]
    box = (await client.post("/v1/boxes", json={}, headers=auth(owner))).json()
    code = box["code"]
    runs = legal_runs(box["dice"], 3)
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
