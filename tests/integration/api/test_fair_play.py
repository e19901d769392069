"""Fair play by construction (PRODUCT.md §6b): the hindsight figures of some dice come only
with dice the service chose. Dice a client brings are analysed without foresight, so no
disguise of a live challenge's dice (a later start, a changed roll no turn reads, rolls
reversed or of the same total) is an answer key; a deal's dice get the full analysis."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import httpx
import pytest

from service.rules.ruleset import Roll, Rules, tiles_of
from service.support.clock import FixedClock
from tests.integration.api.helpers import auth, daily_dice, new_player, problem_type
from tests.runs import legal_run, legal_runs, played
from tests.unit.rules.test_analysis import brute_force_best

HINDSIGHT = ("best_possible", "best_line", "could_be_better", "total_cost")


async def analyze(client: httpx.AsyncClient, dice: tuple[Roll, ...], **rules: Any) -> Any:
    """The analysis of a legal run on ``dice`` that a client brings, under ``rules``."""
    moves = legal_run(dice, Rules(**rules))
    response = await client.post(
        "/v1/analyze", json={"dice": [list(r) for r in dice], "moves": moves, "rules": rules}
    )
    assert response.status_code == 200, response.text
    return response.json()


def assert_no_foresight(result: Any) -> None:
    analysis = result["analysis"]
    assert analysis["hindsight"] is False
    assert all(analysis[figure] is None for figure in HINDSIGHT)
    assert all(m["hindsight_cost"] is None and m["hindsight_best"] is None
               for m in analysis["moves"])  # fmt: skip
    # What needs no later roll is there: the labels and the computer players.
    assert all(m["label"] for m in analysis["moves"]) and set(result["computer"]) == {
        "easy", "medium", "hard"
    }  # fmt: skip


def shifted(dice: tuple[Roll, ...], by: int, rules: Rules) -> tuple[Rules, tuple[Roll, ...]]:
    """The attack on a live challenge: its dice without their first ``by`` rolls (padded
    back to their length), started from the tiles a first ``by`` moves leave open."""
    position = rules.start_position
    for move in played(dice, rules)[:by]:
        position ^= sum(1 << (t - 1) for t in move.tiles)
    start = Rules(**{**rules.stored(), "start": tiles_of(position)})
    return start, dice[by:] + ((1, 1),) * by


async def live_dice(client: httpx.AsyncClient) -> list[tuple[Roll, ...]]:
    """The dice of two live dates, a box and a series round (standard rules)."""
    owner = await new_player(client)
    box = (await client.post("/v1/boxes", json={}, headers=auth(owner))).json()
    series = await client.post(
        "/v1/series", json={"format": {"kind": "rounds", "rounds": 2}}, headers=auth(owner)
    )
    assert series.status_code == 201, series.text

    def rolls(dice: list[list[int]]) -> tuple[Roll, ...]:
        return tuple((a, b) for a, b in dice)

    return [
        await daily_dice(client, "2026-11-29"),
        await daily_dice(client, "2026-11-30"),
        rolls(box["dice"]),
        rolls(series.json()["next"]["dice"]),
    ]


async def test_no_shift_of_a_live_challenge_is_an_answer_key(client: httpx.AsyncClient) -> None:
    for dice in await live_dice(client):
        assert_no_foresight(await analyze(client, dice))  # the dice themselves, too
        for by in (1, 2, 3):
            start, later = shifted(dice, by, Rules())
            if not start.start_position:
                continue  # shut in fewer moves: nothing left to ask
            assert_no_foresight(await analyze(client, later, **start.stored()))


NON_SUM_RULES = [
    {"move_rule": "single"},
    {"move_rule": "dice_or_sum"},
    {"move_rule": "die_or_sum_both"},
    {"one_die": "high_closed"},
    {"total": "sum_or_difference"},
]


@pytest.mark.parametrize("rules", NON_SUM_RULES, ids=lambda r: "-".join(map(str, r.values())))
async def test_no_roll_changed_reversed_or_of_the_same_total_is_an_answer_key(
    client: httpx.AsyncClient, rules: dict[str, Any]
) -> None:
    owner = await new_player(client)
    box = await client.post("/v1/boxes", json={"rules": rules}, headers=auth(owner))
    assert box.status_code == 201, box.text
    dice = tuple((a, b) for a, b in box.json()["dice"])
    last = dice[-1]
    index = next(i for i, (a, b) in enumerate(dice) if 3 <= a + b <= 11)
    a, b = dice[index]
    same_total = (a - 1, b + 1) if a > 1 and b < 6 else (a + 1, b - 1)
    for disguised in (
        (*dice[:-1], ((last[0] % 6) + 1, last[1])),  # the last roll, read by no turn
        tuple((b, a) for a, b in dice),  # every roll reversed
        (*dice[:index], same_total, *dice[index + 1 :]),
    ):
        assert_no_foresight(await analyze(client, disguised, **rules))


async def deal(client: httpx.AsyncClient, **body: Any) -> dict[str, Any]:
    response = await client.post("/v1/deals", json=body)
    assert response.status_code == 201, response.text
    dealt: dict[str, Any] = response.json()
    return dealt


@pytest.mark.parametrize("rules", [{}, {"tiles": 6}, *NON_SUM_RULES[:2], {"one_die": "sum_le_6"}])
async def test_a_deal_is_analysed_in_full(client: httpx.AsyncClient, rules: dict[str, Any]) -> None:
    dealt = await deal(client, rules=rules)
    assert set(dealt) == {"deal", "rules", "dice", "expires_at"}
    ruled = Rules(**rules)
    dice = tuple((a, b) for a, b in dealt["dice"])
    assert len(dice) == ruled.rolls
    for moves in legal_runs(dice, 3, ruled):
        response = await client.post("/v1/analyze", json={"deal": dealt["deal"], "moves": moves})
        assert response.status_code == 200, response.text
        analysis = response.json()["analysis"]
        assert analysis["hindsight"] is True
        assert analysis["best_possible"] == brute_force_best(ruled, dice)
        assert analysis["total_cost"] == response.json()["score"] - analysis["best_possible"]
        assert sum(m["hindsight_cost"] for m in analysis["moves"]) == analysis["total_cost"]
        assert response.json()["sequence"] is None and response.json()["dice"] == dealt["dice"]


async def test_a_forged_or_expired_deal_is_refused(
    client: httpx.AsyncClient, clock: FixedClock
) -> None:
    dealt = await deal(client)
    dice = tuple((a, b) for a, b in dealt["dice"])
    moves = legal_run(dice)
    payload, signature = dealt["deal"].split(".")
    forged = f"{payload}.{'B' * 43 if signature == 'A' * 43 else 'A' * 43}"
    refused = await client.post("/v1/analyze", json={"deal": forged, "moves": moves})
    assert problem_type(refused, 422) == "/problems/bad-deal"
    # A deal binds its dice and rules: sending them as well, or neither, is 422.
    both = await client.post(
        "/v1/analyze", json={"deal": dealt["deal"], "dice": dealt["dice"], "moves": moves}
    )
    assert problem_type(both, 422) == "/problems/deal-or-dice"
    neither = await client.post("/v1/analyze", json={"moves": moves})
    assert problem_type(neither, 422) == "/problems/deal-or-dice"
    clock.set(clock.now() + timedelta(hours=24))
    expired = await client.post("/v1/analyze", json={"deal": dealt["deal"], "moves": moves})
    assert problem_type(expired, 422) == "/problems/deal-expired"
    assert parsed(expired.json()["expired_at"]) == parsed(dealt["expires_at"])


def parsed(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


async def test_a_player_shown_the_target_plays_a_target_run(client: httpx.AsyncClient) -> None:
    owner, friend, blind = [await new_player(client, name=name) for name in ("O", "F", "B")]
    box = (await client.post("/v1/boxes", json={}, headers=auth(owner))).json()
    code = box["code"]
    lines = legal_runs(box["dice"], 3)  # fewer where the fresh dice allow fewer
    runs = [lines[n % len(lines)] for n in range(3)]  # each player's own run: alike or not
    played_run = await client.post(
        f"/v1/boxes/{code}/runs", json={"moves": runs[0]}, headers=auth(owner)
    )
    assert played_run.status_code == 201

    anonymous = (await client.get(f"/v1/boxes/{code}?mode=target")).json()
    assert "target" not in anonymous
    shown = (await client.get(f"/v1/boxes/{code}?mode=target", headers=auth(friend))).json()
    assert shown["target"]["score"] == played_run.json()["score"]
    assert shown["target"]["hints_used"] is None  # a box of fresh dice: no Solo round
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
