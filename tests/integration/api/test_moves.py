"""``POST /v1/moves``: every legal set of a position on a roll, exactly the moves the
replay of a run accepts there, under the rules' dice; bad input a problem, never a 500."""

from __future__ import annotations

import operator
from functools import reduce
from typing import Any, Literal

import httpx
import msgspec
import pytest

from service.api.game import MovesRequest, legal_moves
from service.rules.errors import IllegalRun, RunEndsEarly
from service.rules.replay import Move, replay
from service.rules.ruleset import ALL_ROLLS, OpenTiles, Roll, Rules, tiles_of
from service.support.settings import Settings
from tests.conftest import app_with
from tests.integration.api.helpers import daily_dice

NO_REDIS = pytest.mark.parametrize("redis_mode", ["no-redis"], indirect=True)


def by_sum(tiles: int) -> dict[int, list[OpenTiles]]:
    """Every set of tiles of a box, by what its tiles add up to."""
    sets: dict[int, list[OpenTiles]] = {}
    for mask in range(1, 1 << tiles):
        sets.setdefault(sum(tiles_of(mask)), []).append(mask)
    return sets


def accepts(rules: Rules, roll: Roll, dice: int, closed: OpenTiles) -> bool:
    """Whether the replay of a run takes ``closed`` as its first move on ``roll`` (closing
    nothing: whether a run may end on that roll, unplayed)."""
    rolls = [roll, *[(1, 1)] * (rules.rolls - 1)]
    # A run ends on a roll of two dice it cannot play, with no move for it.
    moves = [] if closed == 0 and dice == 2 else [Move(tiles=tiles_of(closed), dice=dice)]
    try:
        replay(rules, rolls, moves)
    except RunEndsEarly as error:
        # After the move (it was taken) the run stops too soon; or with no move, the roll
        # could be played.
        return bool(moves) and error.index == 1
    except IllegalRun:
        return False
    return True


def replay_walk(rules: Rules, dice: Literal[1, 2] | None, dice_used: int) -> int:
    """Every position of the box where ``dice_used`` may be rolled (as the start of a
    run), on every roll: the sets ``/v1/moves`` answers are exactly the moves the replay
    accepts there. Every set a move rule can make adds up to a number of the roll (a
    die, the total, the difference), so those sets are the ones asked about; the rest no
    rule allows. (Under ``first_must_close``, the positions where that tile is open: a
    run starts only there.) Returns how many positions were walked."""
    sums = by_sum(rules.tiles)
    walked = 0
    for position in range(1, 1 << rules.tiles):
        must = rules.first_must_close
        if must is not None and not position >> (must - 1) & 1:
            continue
        start = msgspec.convert({**msgspec.to_builtins(rules), "start": tiles_of(position)}, Rules)
        if dice_used not in start.dice_choices(position):
            continue
        walked += 1
        for roll in ALL_ROLLS:
            answer = legal_moves(
                MovesRequest(open=list(tiles_of(position)), roll=roll, rules=start, dice=dice)
            )
            sets = {sum(1 << (t - 1) for t in tiles) for tiles in answer.sets}
            d1, d2 = roll
            numbers = {d1, d2, d1 + d2, abs(d1 - d2)} if dice_used == 2 else {d1}
            asked = {s for n in numbers for s in sums.get(n, ()) if s & position == s}
            assert sets <= asked, (position, roll)
            for closed in (0, *asked):
                taken = accepts(start, roll, dice_used, closed)
                assert taken == (closed in sets or (closed == 0 and not sets)), (
                    tiles_of(position),
                    roll,
                    tiles_of(closed),
                )
            assert answer.tiles == sorted({t for tiles in answer.sets for t in tiles})
            assert answer.one_die_allowed == start.one_die_allowed(position)
    return walked


def test_every_position_and_roll_of_the_standard_box_offers_what_the_replay_takes() -> None:
    assert replay_walk(Rules(), None, 2) == 511  # every position but the shut box


@pytest.mark.parametrize("one_die", ["high_closed", "sum_le_6"])
def test_one_die_offers_what_the_replay_takes(one_die: str) -> None:
    rules = msgspec.convert({"one_die": one_die}, Rules)
    allowed = sum(rules.one_die_allowed(p) for p in range(1, 512))
    assert replay_walk(rules, 1, 1) == allowed > 0
    # Where one die is a must, it is what a roll counts unless the request says.
    mandatory = msgspec.structs.replace(rules, one_die_choice="mandatory")
    assert replay_walk(mandatory, None, 1) == allowed


def test_the_variants_of_the_position_offer_what_the_replay_takes() -> None:
    """The fields that make a set legal in one position and not another, and a roll
    count as more than its sum, all at once: every position with tile 3 open (the first
    move must close it), every roll (7 ends the turn)."""
    rules = Rules(
        move_rule="die_or_sum_both", total="sum_or_difference", first_must_close=3, stop_on_total=7
    )
    assert replay_walk(rules, None, 2) == 256


@NO_REDIS
async def test_the_sets_of_a_roll_in_the_order_of_the_rules(client: httpx.AsyncClient) -> None:
    response = await client.post("/v1/moves", json={"open": list(range(1, 10)), "roll": [3, 4]})
    assert response.status_code == 200, response.text
    assert response.json() == {
        "sets": [[7], [1, 6], [2, 5], [3, 4], [1, 2, 4]],
        "tiles": [1, 2, 3, 4, 5, 6, 7],
        "one_die_allowed": False,
    }
    stuck = await client.post("/v1/moves", json={"open": [8, 9], "roll": [1, 2]})
    assert stuck.json() == {"sets": [], "tiles": [], "one_die_allowed": False}
    shut = await client.post("/v1/moves", json={"open": [], "roll": [6, 6]})
    assert shut.json() == {"sets": [], "tiles": [], "one_die_allowed": False}


@NO_REDIS
async def test_one_die_counts_the_first_die(client: httpx.AsyncClient) -> None:
    rules = {"one_die": "high_closed", "move_rule": "single"}
    body: dict[str, Any] = {"rules": rules, "open": [1, 2, 3, 6], "roll": [2, 4]}
    two = (await client.post("/v1/moves", json=body)).json()
    assert two == {"sets": [[6], [2]], "tiles": [2, 6], "one_die_allowed": True}
    one = (await client.post("/v1/moves", json={**body, "dice": 1})).json()
    assert one == {"sets": [[2]], "tiles": [2], "one_die_allowed": True}
    assert (await client.post("/v1/moves", json={**body, "dice": 2})).json() == two


@NO_REDIS
async def test_a_sample_through_http_is_the_rules_own(client: httpx.AsyncClient) -> None:
    variants = [
        Rules(),
        Rules(tiles=12, move_rule="dice_or_sum", total="sum_or_difference"),
        Rules(one_die="sum_le_6", one_die_choice="mandatory", move_rule="die_or_sum"),
        Rules(move_rule="die_or_sum_both", stop_on_total=7),
        Rules(tiles=10, first_must_close=3, move_rule="single"),
    ]
    for rules in variants:
        for position in (rules.full, 0b101010101 & rules.full, 0b111, 0b1):
            for roll in ALL_ROLLS[::5]:
                for dice in rules.dice_choices(position):
                    body = {
                        "rules": msgspec.to_builtins(rules),
                        "open": list(tiles_of(position)),
                        "roll": list(roll),
                        "dice": dice,
                    }
                    answer = (await client.post("/v1/moves", json=body)).json()
                    sets = rules.legal_sets(position, roll, dice)
                    assert answer == {
                        "sets": [list(tiles_of(s)) for s in sets],
                        "tiles": list(tiles_of(reduce(operator.or_, sets, 0))),
                        "one_die_allowed": rules.one_die_allowed(position),
                    }, body


@NO_REDIS
async def test_the_dice_of_a_live_date_are_no_secret_here(client: httpx.AsyncClient) -> None:
    # The rolls of a Daily Dice still in play: which sets each allows is the rules' to
    # say, not the run's (no figures, no ranking): no 403.
    for roll in await daily_dice(client, "2026-11-29"):
        body = {"open": list(range(1, 10)), "roll": list(roll)}
        assert (await client.post("/v1/moves", json=body)).status_code == 200


@NO_REDIS
async def test_dice_the_rules_do_not_allow_here_are_refused(client: httpx.AsyncClient) -> None:
    body: dict[str, Any] = {"open": [1, 2, 3, 7], "roll": [3, 4], "dice": 1}
    never = await client.post("/v1/moves", json=body)
    assert never.status_code == 422
    assert never.json()["type"] == "/problems/one-die-not-allowed"
    assert never.json()["detail"] == "dice: these rules never allow rolling one die"
    high = await client.post("/v1/moves", json={**body, "rules": {"one_die": "high_closed"}})
    assert high.status_code == 422
    assert high.json()["detail"] == (
        "dice: one die is allowed only once every tile of 7 or more is closed"
    )
    german = await client.post("/v1/moves", json=body, headers={"Accept-Language": "de"})
    assert german.status_code == 422 and german.json()["detail"] != never.json()["detail"]
    # Where one die is a must, two dice are refused; left out, the one die counts.
    rules = {"one_die": "high_closed", "one_die_choice": "mandatory"}
    must: dict[str, Any] = {"rules": rules, "open": [1, 2, 3], "roll": [3, 4]}
    two = await client.post("/v1/moves", json={**must, "dice": 2})
    assert two.status_code == 422
    assert two.json()["type"] == "/problems/two-dice-not-allowed"
    assert two.json()["detail"] == "dice: these rules make you roll one die here"
    one = (await client.post("/v1/moves", json=must)).json()
    assert one == {"sets": [[3], [1, 2]], "tiles": [1, 2, 3], "one_die_allowed": True}
    assert (await client.post("/v1/moves", json={**must, "dice": 1})).json() == one


BAD_INPUT: list[tuple[Any, int, str]] = [
    ({"open": [10], "roll": [3, 4]}, 422, "not-a-tile"),
    ({"open": [2, 2], "roll": [3, 4]}, 422, "tile-repeated"),
    ({"open": [1], "roll": [0, 4]}, 400, "invalid-request"),
    ({"open": [1], "roll": [7, 4]}, 400, "invalid-request"),
    ({"open": [1], "roll": [3]}, 400, "invalid-request"),
    ({"open": [1], "roll": [3, 4, 5]}, 400, "invalid-request"),
    ({"open": [1], "roll": ["3", 4]}, 400, "invalid-request"),
    ({"open": [1], "roll": [3.0, 4]}, 400, "invalid-request"),
    ({"open": [13], "roll": [3, 4]}, 400, "invalid-request"),
    ({"open": [0], "roll": [3, 4]}, 400, "invalid-request"),
    ({"open": "1,2", "roll": [3, 4]}, 400, "invalid-request"),
    ({"roll": [3, 4]}, 400, "invalid-request"),
    ({"open": [1]}, 400, "invalid-request"),
    ({"open": [1], "roll": [3, 4], "dice": 3}, 400, "invalid-request"),
    ({"open": [1], "roll": [3, 4], "dice": 0}, 400, "invalid-request"),
    ({"open": [1], "roll": [3, 4], "extra": 1}, 400, "invalid-request"),
    ({"open": [1], "roll": [3, 4], "rules": {"tiles": 13}}, 400, "invalid-request"),
    ({"open": [1], "roll": [3, 4], "rules": {"move_rule": "all"}}, 400, "invalid-request"),
    ({"open": [1], "roll": [3, 4], "rules": {"start": [10]}}, 400, "invalid-request"),
    ({"open": [1], "roll": [3, 4], "rules": {"first_must_close": 10}}, 400, "invalid-request"),
    (
        {"open": [3], "roll": [3, 4], "rules": {"first_must_close": 2, "start": [3, 4]}},
        400,
        "invalid-request",
    ),
    ({"open": [1], "roll": [3, 4], "rules": {"stop_on_total": 13}}, 400, "invalid-request"),
    ({"open": [1], "roll": [3, 4], "rules": {"total": "product"}}, 400, "invalid-request"),
    ({"open": [5], "roll": [3, 4], "rules": {"tiles": 4}}, 422, "not-a-tile"),
    ([1, 2], 400, "invalid-request"),
]


@NO_REDIS
async def test_bad_input_is_a_problem(client: httpx.AsyncClient) -> None:
    for body, status, kind in BAD_INPUT:
        response = await client.post("/v1/moves", json=body)
        assert response.status_code == status, (body, response.text)
        assert response.headers["content-type"] == "application/problem+json"
        assert response.json()["type"] == f"/problems/{kind}", body


@NO_REDIS
async def test_a_body_that_is_not_json_is_a_problem(client: httpx.AsyncClient) -> None:
    for content in (b"", b"{", b"null"):
        response = await client.post(
            "/v1/moves", content=content, headers={"content-type": "application/json"}
        )
        assert response.status_code == 400, (content, response.text)


async def test_it_is_limited_like_every_game_service(settings: Settings) -> None:
    body = {"open": [1, 2, 3], "roll": [1, 2]}
    async with app_with(settings, rate_limit_address="3/h") as limited:
        answers = [await limited.post("/v1/moves", json=body) for _ in range(4)]
    assert [a.status_code for a in answers] == [200] * 3 + [429]
    assert answers[-1].json()["type"] == "/problems/rate-limited"
    assert int(answers[-1].headers["retry-after"]) >= 1
