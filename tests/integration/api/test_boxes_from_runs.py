"""A Friend Box of the dice of a round the player has just played (``POST /v1/boxes``
with ``from_run``): the box has those dice, the run is the owner's, and those dice (which
carry no mark but by chance) are refused by ``/v1/analyze`` on every worker."""

from __future__ import annotations

import asyncio
import secrets
import uuid
from typing import Any

import asyncpg
import httpx
import pytest

from service.rules.fairplay import Candidates, Mark, box_keys
from service.rules.ruleset import Roll, Rules
from service.settings import Settings
from service.store.in_play import DiceInPlay
from tests.conftest import SECRET, ServerProcess, app_with, fetchval
from tests.integration.api.helpers import (
    auth,
    daily_dice,
    fresh,
    insert_box,
    new_player,
    new_player_at,
)
from tests.integration.api.test_fair_play import analyze, disguises
from tests.runs import legal_run, legal_runs

MARK = Mark(SECRET.encode())


def solo_dice(*, marked: bool = False, rolls: int = 10) -> tuple[Roll, ...]:
    """Random dice, as a Solo round rolls them: without the mark of box dice (or with it)."""
    while True:
        dice = tuple((secrets.randbelow(6) + 1, secrets.randbelow(6) + 1) for _ in range(rolls))
        if MARK.carried_by(Candidates(dice)) == marked and len(legal_runs(dice, 2)) == 2:
            return dice


def from_run(dice: tuple[Roll, ...], moves: list[Any], **rules: Any) -> dict[str, Any]:
    return {"rules": rules, "from_run": {"dice": [list(r) for r in dice], "moves": moves}}


async def count_boxes(database_url: str, owner: dict[str, str]) -> int:
    count: int = await fetchval(
        database_url, "SELECT count(*) FROM boxes WHERE owner_id = $1", uuid.UUID(owner["id"])
    )
    return count


@pytest.mark.parametrize("marked", [False, True])
async def test_a_box_of_a_run_has_its_dice_and_the_owners_run(
    client: httpx.AsyncClient, database_url: str, marked: bool
) -> None:
    owner = await new_player(client, name="Owner")
    friend = await new_player(client, name="Friend")
    dice = solo_dice(marked=marked)
    mine, other = legal_runs(dice, 2)
    created = await client.post("/v1/boxes", json=from_run(dice, mine), headers=auth(owner))
    assert created.status_code == 201, created.text
    box = created.json()
    assert box["dice"] == [list(r) for r in dice]
    assert box["owner"] == {"name": "Owner"} and box["rules"]["tiles"] == 9
    assert set(box) == {"code", "display_code", "rules", "dice", "owner"}
    code = box["code"]
    assert await fetchval(database_url, "SELECT from_run FROM boxes WHERE code = $1", code)
    assert (await client.get(f"/v1/boxes/{code}")).json()["players"] == 1

    results = await client.get(f"/v1/boxes/{code}/results", headers=auth(owner))
    assert [(r["name"], r["mode"]) for r in results.json()] == [("Owner", "blind")]
    owner_score = results.json()[0]["score"]

    # The owner's run is stored as that run: the same again is 200, another 409.
    again = await client.post(f"/v1/boxes/{code}/runs", json={"moves": mine}, headers=auth(owner))
    assert again.status_code == 200, again.text
    assert again.json()["score"] == owner_score and again.json()["sequence"] == f"box/{code}"
    assert "versus" not in again.json() and "best_line" in again.json()["analysis"]
    another = await client.post(
        f"/v1/boxes/{code}/runs", json={"moves": other}, headers=auth(owner)
    )
    assert another.status_code == 409

    # A friend plays it as any box: the owner's result hidden until their run is in.
    hidden = await client.get(f"/v1/boxes/{code}/results", headers=auth(friend))
    assert hidden.status_code == 403
    target = (await client.get(f"/v1/boxes/{code}?mode=target", headers=auth(friend))).json()
    assert target["target"]["score"] == owner_score
    run = await client.post(
        f"/v1/boxes/{code}/runs", json={"moves": other, "mode": "target"}, headers=auth(friend)
    )
    assert run.status_code == 201, run.text
    assert run.json()["versus"]["owner_score"] == owner_score
    seen = await client.get(f"/v1/boxes/{code}/results", headers=auth(friend))
    assert sorted(r["name"] for r in seen.json()) == ["Friend", "Owner"]

    # And nobody may analyse those dice, in any disguise.
    for disguised in (dice, *disguises(dice)):
        refused = await analyze(client, disguised)
        assert refused.status_code == 403 and refused.json()["type"] == "/problems/dice-in-play"
    assert (await analyze(client, dice, move_rule="single")).status_code == 403


async def test_a_box_of_a_run_keeps_its_rules(client: httpx.AsyncClient) -> None:
    owner = await new_player(client)
    rules = {"tiles": 12, "move_rule": "dice_or_sum"}
    dice = solo_dice(rolls=13)
    moves = legal_run(dice, Rules(**rules))
    created = await client.post(
        "/v1/boxes", json=from_run(dice, moves, **rules), headers=auth(owner)
    )
    assert created.status_code == 201, created.text
    assert created.json()["rules"]["tiles"] == 12
    assert created.json()["rules"]["move_rule"] == "dice_or_sum"
    assert (await analyze(client, dice, **rules)).status_code == 403
    swapped = tuple((b, a) for a, b in dice)
    assert (await analyze(client, swapped, **rules)).status_code == 403


async def test_dice_in_play_are_not_made_into_a_box(
    client: httpx.AsyncClient, database_url: str
) -> None:
    owner = await new_player(client)
    today = await daily_dice(client, "2026-11-29")  # live at the tests' clock
    box = await client.post("/v1/boxes", json={}, headers=auth(owner))
    boxed = tuple((a, b) for a, b in box.json()["dice"])
    series = await client.post(
        "/v1/series", json={"format": {"kind": "rounds", "rounds": 2}}, headers=auth(owner)
    )
    assert series.status_code == 201, series.text
    round_dice = tuple((a, b) for a, b in series.json()["next"]["dice"])
    before = await count_boxes(database_url, owner)
    for dice in (today, boxed, round_dice, *disguises(today), *disguises(boxed)):
        refused = await client.post(
            "/v1/boxes", json=from_run(dice, legal_run(dice)), headers=auth(owner)
        )
        assert refused.status_code == 403, refused.text
        assert refused.json()["type"] == "/problems/dice-in-play"
    assert await count_boxes(database_url, owner) == before


async def test_an_illegal_run_is_the_problem_analyze_gives(
    client: httpx.AsyncClient, database_url: str
) -> None:
    owner = await new_player(client)
    dice = solo_dice()
    moves = legal_run(dice)
    for bad in ([[9, 9], *moves[1:]], moves[:-1], [*moves, [1]], [["x"]]):
        made = await client.post("/v1/boxes", json=from_run(dice, bad), headers=auth(owner))
        analysed = await client.post(
            "/v1/analyze", json={"dice": [list(r) for r in dice], "moves": bad}
        )
        assert made.status_code == analysed.status_code, (bad, made.text)
        assert made.status_code in (400, 422)
        assert made.json()["type"] == analysed.json()["type"]
    assert await count_boxes(database_url, owner) == 0
    # Nothing of them held either: the dice can still be analysed.
    assert (await analyze(client, dice)).status_code == 200


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"from_run": {"dice": [[1, 2]] * 10}}, 400),  # no moves
        ({"from_run": {"moves": []}}, 400),  # no dice
        ({"from_run": {"dice": [[1, 2]] * 10, "moves": [], "mode": "blind"}}, 400),
        ({"from_run": {"dice": [[1, 7]] * 10, "moves": []}}, 400),
        ({"from_run": {"dice": [[1, 2, 3]] * 10, "moves": []}}, 400),
        ({"from_run": {"dice": [[1, 2]] * 9, "moves": []}}, 422),  # 9 rolls for 9 tiles
        ({"from_run": {"dice": [[1, 2]] * 10, "moves": []}, "rules": {"tiles": 12}}, 422),
        ({"from_run": [], "rules": {}}, 400),
        ({"from_run": None}, 400),
    ],
)
async def test_bad_bodies_store_nothing(
    client: httpx.AsyncClient, database_url: str, body: dict[str, Any], status: int
) -> None:
    owner = await new_player(client)
    response = await client.post("/v1/boxes", json=body, headers=auth(owner))
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    assert await count_boxes(database_url, owner) == 0


async def test_a_process_started_later_refuses_them(settings: Settings) -> None:
    dice = solo_dice()
    async with app_with(settings) as client:
        owner = await new_player(client)
        created = await client.post(
            "/v1/boxes", json=from_run(dice, legal_run(dice)), headers=auth(owner)
        )
        assert created.status_code == 201, created.text
    async with app_with(settings) as client:  # not listening when the box was made
        for disguised in (dice, *disguises(dice)):
            assert (await analyze(client, disguised)).status_code == 403


def in_play_of(client: httpx.AsyncClient) -> DiceInPlay:
    in_play: DiceInPlay = client.app.state.services.dice_in_play  # type: ignore[attr-defined]
    return in_play


async def box_unheard(database_url: str, owner: dict[str, str], dice: tuple[Roll, ...]) -> None:
    """A box of unmarked dice stored without a word to the listeners."""
    dice_key, dice_short_key = box_keys(dice, Rules())
    connection = await asyncpg.connect(database_url)
    try:
        await insert_box(
            connection,
            owner["id"],
            dice,
            "player-run",
            dice_key=dice_key,
            dice_key_marked=False,
            dice_short_key=dice_short_key,
            from_run=True,
        )
    finally:
        await connection.close()


async def test_a_listener_reconnected_reloads_and_one_down_asks_the_index(
    settings: Settings, database_url: str
) -> None:
    async with app_with(settings) as client:
        owner = await new_player(client)
        in_play = in_play_of(client)
        unheard = solo_dice()
        await box_unheard(database_url, owner, unheard)
        assert (await analyze(client, unheard)).status_code == 200  # not heard of: no word
        listener = "SELECT pid FROM pg_stat_activity WHERE application_name = 'shutbox-in-play'"
        connection = await asyncpg.connect(database_url)
        try:
            old = await connection.fetchval(listener + " AND datname = current_database()")
            await connection.execute("SELECT pg_terminate_backend($1)", old)
            while (
                await connection.fetchval(listener + " AND datname = current_database()")
                in (None, old)
                or not in_play.listening
            ):
                await asyncio.sleep(0.05)
        finally:
            await connection.close()
        assert (await analyze(client, unheard)).status_code == 403  # the reload
        # Not listening (down, not yet reconnected): every dice take the index.
        later = solo_dice()
        await box_unheard(database_url, owner, later)
        in_play.listening = False
        try:
            assert (await analyze(client, later)).status_code == 403
            assert (await analyze(client, solo_dice())).status_code == 200
        finally:
            in_play.listening = True


# Every worker of a real server, right after the box is made on one of them.


def test_every_worker_refuses_them_at_once(two_workers: ServerProcess) -> None:
    async def scenario() -> list[int]:
        owner = await new_player_at(two_workers.url)
        statuses = []
        for _ in range(10):
            dice = solo_dice()
            created = await fresh(
                two_workers.url,
                "POST",
                "/v1/boxes",
                json=from_run(dice, legal_run(dice)),
                headers=auth(owner),
            )
            assert created.status_code == 201, created.text
            answers = await asyncio.gather(
                *(
                    fresh(
                        two_workers.url,
                        "POST",
                        "/v1/analyze",
                        json={"dice": [list(r) for r in disguised], "moves": legal_run(disguised)},
                    )
                    for disguised in (dice, *disguises(dice), dice, dice, dice)
                )
            )
            statuses += [answer.status_code for answer in answers]
        return statuses

    statuses = asyncio.run(scenario())
    assert statuses == [403] * len(statuses)
