"""A Friend Box of a round the player has just played on a deal (``POST /v1/boxes`` with
``from_run``): the box has the deal's rules and dice, the run is the owner's, one deal
makes one box, and dice that were not dealt make none."""

from __future__ import annotations

import asyncio
import uuid
from datetime import timedelta
from typing import Any

import httpx
import pytest

from service.rules.ruleset import Rules
from service.support.clock import FixedClock
from tests.conftest import fetchval
from tests.integration.api.helpers import auth, daily_dice, new_player, problem_type
from tests.runs import legal_run, legal_runs


async def dealt(client: httpx.AsyncClient, runs: int = 2, **rules: Any) -> dict[str, Any]:
    """A deal whose dice allow ``runs`` different runs."""
    while True:
        response = await client.post("/v1/deals", json={"rules": rules})
        assert response.status_code == 201, response.text
        deal: dict[str, Any] = response.json()
        if len(legal_runs(deal["dice"], runs, Rules(**rules))) == runs:
            return deal


def from_run(deal: dict[str, Any], moves: list[Any], **more: Any) -> dict[str, Any]:
    return {"from_run": {"deal": deal["deal"], "moves": moves, **more}}


async def count_boxes(database_url: str, owner: dict[str, str]) -> int:
    count: int = await fetchval(
        database_url, "SELECT count(*) FROM boxes WHERE owner_id = $1", uuid.UUID(owner["id"])
    )
    return count


async def test_a_box_of_a_round_has_its_dice_and_the_owners_run(
    client: httpx.AsyncClient, database_url: str
) -> None:
    owner = await new_player(client, name="Owner")
    friend = await new_player(client, name="Friend")
    deal = await dealt(client)
    mine, other = legal_runs(deal["dice"], 2)
    created = await client.post(
        "/v1/boxes", json=from_run(deal, mine, hints_used=2), headers=auth(owner)
    )
    assert created.status_code == 201, created.text
    box = created.json()
    assert box["dice"] == deal["dice"]
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
    assert "versus" not in again.json() and again.json()["analysis"]["hindsight"] is True
    another = await client.post(
        f"/v1/boxes/{code}/runs", json={"moves": other}, headers=auth(owner)
    )
    assert another.status_code == 409

    # A friend plays it as any box: the owner's result hidden until their run is in, and
    # the target says the owner took hints.
    hidden = await client.get(f"/v1/boxes/{code}/results", headers=auth(friend))
    assert hidden.status_code == 403
    target = (await client.get(f"/v1/boxes/{code}?mode=target", headers=auth(friend))).json()
    assert target["target"]["score"] == owner_score and target["target"]["hints_used"] == 2
    run = await client.post(
        f"/v1/boxes/{code}/runs", json={"moves": other, "mode": "target"}, headers=auth(friend)
    )
    assert run.status_code == 201, run.text
    assert run.json()["versus"]["owner_score"] == owner_score
    seen = await client.get(f"/v1/boxes/{code}/results", headers=auth(friend))
    assert sorted(r["name"] for r in seen.json()) == ["Friend", "Owner"]


async def test_a_box_of_a_round_keeps_the_deals_rules(client: httpx.AsyncClient) -> None:
    owner = await new_player(client)
    rules = {"tiles": 12, "move_rule": "dice_or_sum"}
    deal = await dealt(client, 1, **rules)
    moves = legal_run(deal["dice"], Rules(**rules))
    created = await client.post("/v1/boxes", json=from_run(deal, moves), headers=auth(owner))
    assert created.status_code == 201, created.text
    assert created.json()["rules"]["tiles"] == 12
    assert created.json()["rules"]["move_rule"] == "dice_or_sum"
    # A deal binds its rules (and dice): other rules beside it are 422.
    both = {**from_run(await dealt(client, 1), moves), "rules": rules}
    refused = await client.post("/v1/boxes", json=both, headers=auth(owner))
    assert problem_type(refused, 422) == "/problems/deal-or-dice"
    deal = await dealt(client, 1)
    with_dice = from_run(deal, legal_run(deal["dice"]), dice=deal["dice"])
    refused = await client.post("/v1/boxes", json=with_dice, headers=auth(owner))
    assert problem_type(refused, 422) == "/problems/deal-or-dice"


async def test_one_deal_makes_one_box(client: httpx.AsyncClient, database_url: str) -> None:
    owner, other = await new_player(client), await new_player(client)
    deal = await dealt(client)
    moves = legal_run(deal["dice"])
    made = await asyncio.gather(
        *(
            client.post("/v1/boxes", json=from_run(deal, moves), headers=auth(player))
            for player in (owner, other, owner)
        )
    )
    statuses = sorted(response.status_code for response in made)
    assert statuses == [201, 409, 409], [r.text for r in made]
    box = next(r.json() for r in made if r.status_code == 201)
    for response in made:
        if response.status_code == 409:
            assert problem_type(response, 409) == "/problems/deal-used"
            assert response.json()["code"] == box["code"]
    assert await count_boxes(database_url, owner) + await count_boxes(database_url, other) == 1


async def test_dice_that_were_not_dealt_make_no_box(
    client: httpx.AsyncClient, database_url: str, clock: FixedClock
) -> None:
    owner = await new_player(client)
    today = await daily_dice(client, "2026-11-29")
    deal = await dealt(client)
    payload, signature = deal["deal"].split(".")
    forged = {**deal, "deal": f"{payload}.{'B' * 43 if signature == 'A' * 43 else 'A' * 43}"}
    bodies = [
        # The shape before deals: a client's own dice.
        {"from_run": {"dice": [list(r) for r in today], "moves": legal_run(today)}},
        from_run(forged, legal_run(deal["dice"])),
    ]
    for body in bodies:
        refused = await client.post("/v1/boxes", json=body, headers=auth(owner))
        assert refused.status_code in (400, 422), refused.text
        assert refused.json()["type"] in ("/problems/not-dealt", "/problems/bad-deal")
    assert (
        problem_type(await client.post("/v1/boxes", json=bodies[0], headers=auth(owner)), 422)
        == "/problems/not-dealt"
    )
    clock.set(clock.now() + timedelta(hours=24))
    expired = await client.post(
        "/v1/boxes", json=from_run(deal, legal_run(deal["dice"])), headers=auth(owner)
    )
    assert problem_type(expired, 422) == "/problems/deal-expired"
    assert await count_boxes(database_url, owner) == 0


async def test_an_illegal_run_is_the_problem_analyze_gives(
    client: httpx.AsyncClient, database_url: str
) -> None:
    owner = await new_player(client)
    deal = await dealt(client)
    moves = legal_run(deal["dice"])
    for bad in ([[9, 9], *moves[1:]], moves[:-1], [*moves, [1]], [["x"]]):
        made = await client.post("/v1/boxes", json=from_run(deal, bad), headers=auth(owner))
        analysed = await client.post("/v1/analyze", json={"deal": deal["deal"], "moves": bad})
        assert made.status_code == analysed.status_code, (bad, made.text)
        assert made.status_code in (400, 422)
        assert made.json()["type"] == analysed.json()["type"]
    assert await count_boxes(database_url, owner) == 0
    # The deal made no box: it still makes one.
    made = await client.post("/v1/boxes", json=from_run(deal, moves), headers=auth(owner))
    assert made.status_code == 201, made.text


@pytest.mark.parametrize(
    ("from_run_body", "status"),
    [
        ({"moves": []}, 422),  # no deal: not dealt
        ({"deal": "x.y", "moves": []}, 400),  # not a token's shape
        ({"deal": "A" * 40 + "." + "A" * 43}, 400),  # no moves
        ({"deal": "A" * 40 + "." + "A" * 43, "moves": [], "mode": "blind"}, 400),
        ({"deal": "A" * 40 + "." + "A" * 43, "moves": [], "hints_used": -1}, 400),
        ({"deal": "A" * 40 + "." + "A" * 43, "moves": []}, 422),  # forged
        ([], 400),
        (None, 400),
    ],
)
async def test_bad_bodies_store_nothing(
    client: httpx.AsyncClient, database_url: str, from_run_body: Any, status: int
) -> None:
    owner = await new_player(client)
    response = await client.post("/v1/boxes", json={"from_run": from_run_body}, headers=auth(owner))
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    assert await count_boxes(database_url, owner) == 0
