"""Series through the API: codes and seats, what each player is shown of the rounds, every
format's end, computer seats, fair play, and one run per player per round across workers."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from service.rules.ruleset import Roll, Rules
from service.support.codes import display, with_check
from tests.conftest import SharedServer, fetchval
from tests.integration.api.helpers import auth, fresh, new_player, new_player_at, problem_type
from tests.runs import STANDARD, legal_run, legal_runs, run_with_score

Dice = list[list[int]]


async def new_series(
    client: httpx.AsyncClient, creator: dict[str, str], **body: Any
) -> dict[str, Any]:
    body.setdefault("format", {"kind": "rounds", "rounds": 3})
    response = await client.post("/v1/series", json=body, headers=auth(creator))
    assert response.status_code == 201, response.text
    series: dict[str, Any] = response.json()
    return series


async def series_where(
    client: httpx.AsyncClient,
    players: list[dict[str, str]],
    suits: Callable[[Dice], bool],
    **body: Any,
) -> dict[str, Any]:
    """A new series of the first of ``players`` whose first round's dice suit the test,
    the others joined."""
    for _ in range(300):
        series = await new_series(client, players[0], **body)
        if suits(series["next"]["dice"]):
            for player in players[1:]:
                await joined(client, player, series["code"])
            return series
    raise AssertionError("no series with dice that suit the test")


def straddle(limit: int) -> Callable[[Dice], bool]:
    """Dice with a run that scores ``limit`` or more and one that scores less."""
    return lambda dice: max(scored(dice)) >= limit and min(scored(dice)) < limit


async def straddling(
    client: httpx.AsyncClient, players: list[dict[str, str]], score: int, **format: Any
) -> tuple[str, dict[int, Any], int, int]:
    """A series of ``players`` in ``format`` whose first round has a run scoring ``score``
    or more and one scoring less: its code, the round's runs by score, the highest and the
    lowest score."""
    series = await series_where(client, players, straddle(score), format=format)
    by_score = scored(next_dice(series))
    return series["code"], by_score, max(by_score), min(by_score)


async def join(client: httpx.AsyncClient, player: dict[str, str], code: str) -> httpx.Response:
    return await client.post(f"/v1/series/{code}/players", headers=auth(player))


async def joined(client: httpx.AsyncClient, player: dict[str, str], code: str) -> None:
    response = await join(client, player, code)
    assert response.status_code == 201, response.text


async def seen(client: httpx.AsyncClient, player: dict[str, str], code: str) -> dict[str, Any]:
    response = await client.get(f"/v1/series/{code}", headers=auth(player))
    assert response.status_code == 200, response.text
    series: dict[str, Any] = response.json()
    return series


async def play(
    client: httpx.AsyncClient, player: dict[str, str], code: str, round_number: int, moves: Any
) -> httpx.Response:
    return await client.post(
        f"/v1/series/{code}/rounds/{round_number}/runs",
        json={"moves": moves},
        headers=auth(player),
    )


async def played(
    client: httpx.AsyncClient, player: dict[str, str], code: str, round_number: int, moves: Any
) -> dict[str, Any]:
    """The series after the player's run of the round (which must be accepted)."""
    response = await play(client, player, code, round_number, moves)
    assert response.status_code == 201, response.text
    series: dict[str, Any] = response.json()["series"]
    return series


def scored(dice: Dice, rules: Rules = STANDARD) -> dict[int, Any]:
    """A legal run for each score the dice allow."""
    return run_with_score(dice, set(range(200)), rules)


def next_dice(series: dict[str, Any]) -> Dice:
    dice: Dice = series["next"]["dice"]
    return dice


def row_of(series: dict[str, Any], player: dict[str, str]) -> dict[str, Any]:
    return next(p for p in series["players"] if p.get("id") == player["id"])


async def test_create_and_join_by_code_within_the_seats(
    client: httpx.AsyncClient, database_url: str
) -> None:
    ann, bob, cy = [await new_player(client, name=n) for n in ("Ann", "Bob", "Cy")]
    series = await new_series(client, ann, computers=["easy", "hard", "easy"])
    code = series["code"]
    assert series["display_code"] == display(code)
    assert series["status"] == "open" and series["rounds_complete"] == 0
    assert series["format"] == {"kind": "rounds", "rounds": 3}
    assert series["shut_wins"] is False and series["rules"]["tiles"] == 9
    assert series["winners"] == []
    assert series["next"]["round"] == 1 and len(series["next"]["dice"]) == 10
    assert [(p["seat"], p.get("id"), p["name"], p.get("computer")) for p in series["players"]] == [
        (0, ann["id"], "Ann", None),
        (1, None, "Easy 1", "easy"),
        (2, None, "Hard", "hard"),
        (3, None, "Easy 2", "easy"),
    ]
    # The computers have played round 1, but nobody is shown it before playing it.
    assert all(p["rounds"] == [None] and p["total"] == 0 for p in series["players"])
    assert all(not p["out"] and "place" not in p for p in series["players"])

    # Codes are read as people type them; a typo is 400, an unknown code 404.
    typed = f" {code[:4].lower()} - {code[4:]}".replace("0", "o").replace("1", "l")
    assert (await seen(client, ann, typed))["code"] == code
    mistyped = code[:-1] + ("0" if code[-1] != "0" else "1")
    response = await client.get(f"/v1/series/{mistyped}", headers=auth(ann))
    assert problem_type(response, 400) == "/problems/mistyped-code"
    unknown = with_check("00000000" if code[:8] != "00000000" else "11111111")
    response = await client.get(f"/v1/series/{unknown}", headers=auth(ann))
    assert problem_type(response, 404) == "/problems/unknown-series"
    assert (await join(client, bob, unknown)).status_code == 404
    assert (await client.get(f"/v1/series/{code}")).status_code == 401

    # Nothing is shown to a player who is not in it: no dice, no names.
    outside = await client.get(f"/v1/series/{code}", headers=auth(bob))
    assert problem_type(outside, 403) == "/problems/series-hidden"
    assert "dice" not in outside.text and "Ann" not in outside.text

    first = await join(client, bob, code)
    assert first.status_code == 201
    assert row_of(first.json(), bob) == {
        "seat": 4, "id": bob["id"], "name": "Bob", "total": 0, "rounds": [None], "played": 0,
        "out": False,
    }  # fmt: skip
    assert first.json()["next"] == series["next"]  # the same dice for everyone
    again = await join(client, bob, code)
    assert again.status_code == 200 and again.json() == first.json()
    assert await fetchval(
        database_url, "SELECT count(*) FROM series_players WHERE series_code = $1", code
    ) == 2  # fmt: skip

    # Once the first round is complete, nobody joins; whoever is in still is.
    dice = next_dice(series)
    await played(client, ann, code, 1, legal_run(dice))
    assert (await seen(client, ann, code))["status"] == "open"  # Bob has not played
    after = await played(client, bob, code, 1, legal_run(dice))
    assert after["status"] == "playing" and after["rounds_complete"] == 1
    late = await join(client, cy, code)
    assert problem_type(late, 409) == "/problems/series-started"
    assert (await join(client, bob, code)).status_code == 200


async def test_sixteen_seats_at_most_computers_counted(client: httpx.AsyncClient) -> None:
    ann, bob = await new_player(client), await new_player(client)
    full = await new_series(client, ann, computers=["medium"] * 15)
    assert len(full["players"]) == 16
    response = await join(client, bob, full["code"])
    assert problem_type(response, 409) == "/problems/series-full"
    response = await client.post(
        "/v1/series",
        json={"format": {"kind": "rounds", "rounds": 1}, "computers": ["medium"] * 16},
        headers=auth(ann),
    )
    assert response.status_code == 400


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"format": {"kind": "rounds", "rounds": 0}},
        {"format": {"kind": "rounds", "rounds": 21}},
        {"format": {"kind": "rounds"}},
        {"format": {"kind": "to_score", "target": 9}},
        {"format": {"kind": "to_score", "target": 1001}},
        {"format": {"kind": "elimination", "limit": 4}},
        {"format": {"kind": "elimination", "limit": 45, "out_when": "passed"}},
        {"format": {"kind": "best_of", "rounds": 3}},
        {"format": {"kind": "rounds", "rounds": 3, "target": 10}},
        {"format": {"kind": "rounds", "rounds": "3"}},
        {"format": {"kind": "rounds", "rounds": 3}, "computers": ["expert"]},
        {"format": {"kind": "rounds", "rounds": 3}, "shut_wins": 1},
        {"format": {"kind": "rounds", "rounds": 3}, "rules": {"tiles": 13}},
        {"format": {"kind": "rounds", "rounds": 3}, "players": 4},
    ],
)
async def test_a_bad_series_is_400_and_stores_nothing(
    client: httpx.AsyncClient, database_url: str, body: dict[str, Any]
) -> None:
    ann = await new_player(client)
    response = await client.post("/v1/series", json=body, headers=auth(ann))
    assert problem_type(response, 400) == "/problems/invalid-request"
    assert await fetchval(
        database_url, "SELECT count(*) FROM series WHERE creator_id = $1", ann["id"]
    ) == 0  # fmt: skip


async def test_the_bounds_the_rules_state_are_those_a_series_is_held_to(
    client: httpx.AsyncClient,
) -> None:
    # The page takes its form's bounds from GET /v1/rules: they must be the requests'.
    bounds = (await client.get("/v1/rules")).json()["series"]
    ann = await new_player(client)
    for kind, field in (("rounds", "rounds"), ("to_score", "target"), ("elimination", "limit")):
        low, high = bounds[field]["minimum"], bounds[field]["maximum"]
        for number, status in ((low - 1, 400), (low, 201), (high, 201), (high + 1, 400)):
            body = {"format": {"kind": kind, field: number}}
            response = await client.post("/v1/series", json=body, headers=auth(ann))
            assert response.status_code == status, (kind, number, response.text)
    seats = bounds["seats"]
    one_round = {"kind": "rounds", "rounds": 1}
    full = await new_series(client, ann, format=one_round, computers=["easy"] * (seats - 1))
    assert len(full["players"]) == seats
    body = {"format": one_round, "computers": ["easy"] * seats}
    response = await client.post("/v1/series", json=body, headers=auth(ann))
    assert problem_type(response, 400) == "/problems/invalid-request"


async def test_every_format_and_out_when_round_trips(client: httpx.AsyncClient) -> None:
    ann = await new_player(client)
    for format in (
        {"kind": "rounds", "rounds": 20},
        {"kind": "to_score", "target": 100},
        {"kind": "elimination", "limit": 45, "out_when": "reached"},
        {"kind": "elimination", "limit": 45, "out_when": "exceeded"},
    ):
        series = await new_series(client, ann, format=format, shut_wins=True)
        assert series["format"] == format and series["shut_wins"] is True
        assert (await seen(client, ann, series["code"]))["format"] == format
    series = await new_series(client, ann, format={"kind": "elimination", "limit": 45})
    assert series["format"]["out_when"] == "reached"


async def test_a_later_round_s_dice_are_never_shown_early(client: httpx.AsyncClient) -> None:
    ann, bob, eve = [await new_player(client) for _ in range(3)]
    series = await new_series(client, ann, computers=["medium"])
    code = series["code"]
    await joined(client, bob, code)
    first = next_dice(series)
    after_one = await played(client, ann, code, 1, legal_run(first))
    assert after_one["next"]["round"] == 2
    second = next_dice(after_one)
    assert second != first

    # Bob has not played round 1: he is shown its dice, and no later round's.
    bobs = await client.get(f"/v1/series/{code}", headers=auth(bob))
    assert bobs.json()["next"] == {"round": 1, "dice": first}
    assert bobs.text.count('"dice"') == 1
    # A run of a round he has not reached is refused before anything is checked against
    # its dice: even an illegal one names no roll of them.
    for moves in (legal_run(second), [[9]], [[1, 2, 3, 4, 5, 6, 7, 8, 9]]):
        response = await play(client, bob, code, 2, moves)
        assert problem_type(response, 422) == "/problems/round-not-reached"
        assert "roll" not in response.json()
    response = await play(client, bob, code, 3, legal_run(second))
    assert problem_type(response, 422) == "/problems/round-not-reached"
    for bad in ("0", "201", "x", "1.0", "-1", "\u0661"):
        response = await play(client, bob, code, bad, legal_run(first))  # type: ignore[arg-type]
        assert response.status_code == 400, (bad, response.text)
        assert "dice" not in response.text

    # Ann, on round 2, is shown round 2's dice, and round 3's only once she reaches it.
    anns = await seen(client, ann, code)
    assert anns["next"] == {"round": 2, "dice": second}
    after_two = await played(client, ann, code, 2, legal_run(second))
    assert after_two["next"]["round"] == 3 and next_dice(after_two) not in (first, second)
    assert (await seen(client, bob, code))["next"] == {"round": 1, "dice": first}

    # Somebody who is not a player sees nothing and plays nothing.
    response = await client.get(f"/v1/series/{code}", headers=auth(eve))
    assert response.status_code == 403 and "dice" not in response.text
    response = await play(client, eve, code, 1, legal_run(first))
    assert response.status_code == 403 and "dice" not in response.text


async def test_other_players_scores_show_once_one_has_played_that_round(
    client: httpx.AsyncClient,
) -> None:
    ann, bob = await new_player(client, name="Ann"), await new_player(client, name="Bob")
    series = await new_series(client, ann, computers=["hard"])
    code = series["code"]
    await joined(client, bob, code)
    dice = next_dice(series)
    anns_run = legal_run(dice)
    answer = await play(client, ann, code, 1, anns_run)
    assert answer.status_code == 201
    result = answer.json()
    hard = result["computer"]["hard"]["score"]  # the Hard seat plays the same dice
    after = result["series"]
    # Ann has reached round 2 (issued now): the computer has played it, shown to nobody.
    assert row_of(after, ann)["rounds"] == [result["score"], None]
    assert row_of(after, bob)["rounds"] == [None, None]
    assert after["players"][1]["rounds"] == [hard, None]
    assert after["players"][1]["total"] == hard

    # Bob has not played round 1: neither Ann's score nor Hard's is shown to him.
    bobs = await seen(client, bob, code)
    assert row_of(bobs, ann)["rounds"] == [None, None] and row_of(bobs, ann)["total"] == 0
    assert bobs["players"][1]["rounds"] == [None, None] and bobs["players"][1]["total"] == 0
    # ... but that they have played it is: Bob's page can tell who he is waiting for.
    assert [p["played"] for p in bobs["players"]] == [1, 2, 0]

    bobs_run = legal_runs(dice, 2)[-1]
    bobs_after = await played(client, bob, code, 1, bobs_run)
    assert row_of(bobs_after, ann)["rounds"] == [result["score"], None]
    assert bobs_after["players"][1]["rounds"] == [hard, None]
    anns = await seen(client, ann, code)
    bob_score = row_of(bobs_after, bob)["rounds"][0]
    assert row_of(anns, bob)["rounds"] == [bob_score, None]
    assert row_of(anns, bob)["total"] == bob_score


async def test_computer_seats_play_each_round_as_soon_as_it_is_issued(
    client: httpx.AsyncClient, database_url: str
) -> None:
    ann = await new_player(client)
    series = await new_series(client, ann, computers=["easy", "medium", "hard"])
    code = series["code"]
    stored = await fetchval(
        database_url,
        "SELECT computer_scores FROM series_rounds WHERE series_code = $1 AND round = 1",
        code,
    )
    assert len(stored) == 3  # played at once, before anyone has played
    result = (await play(client, ann, code, 1, legal_run(next_dice(series)))).json()
    # They play as the computer players of the run's analysis do, on the same dice.
    assert list(stored) == [result["computer"][level]["score"] for level in ("easy", "medium", "hard")]  # fmt: skip
    after = result["series"]
    assert [p["rounds"][0] for p in after["players"][1:]] == list(stored)
    # Round 1 is complete (the computers and Ann have played it): round 2 is issued, and
    # the computers have played it too, though nobody is shown it yet.
    assert after["status"] == "playing" and after["rounds_complete"] == 1
    assert await fetchval(
        database_url,
        "SELECT cardinality(computer_scores) FROM series_rounds"
        " WHERE series_code = $1 AND round = 2",
        code,
    ) == 3  # fmt: skip
    assert [p["rounds"][1] for p in after["players"][1:]] == [None, None, None]


async def test_one_run_per_player_per_round(client: httpx.AsyncClient, database_url: str) -> None:
    ann = await new_player(client)
    series = await new_series(client, ann)
    code = series["code"]
    dice = next_dice(series)

    illegal = await play(client, ann, code, 1, [[1]])
    assert illegal.status_code == 422 and "move_index" in illegal.json()
    assert await fetchval(
        database_url, "SELECT count(*) FROM series_runs WHERE series_code = $1", code
    ) == 0  # fmt: skip

    runs = legal_runs(dice, 2)
    first = await play(client, ann, code, 1, runs[0])
    assert first.status_code == 201
    body = first.json()
    assert body["official"] is True and body["sequence"] == f"series/{code}/1"
    assert body["dice"] == dice and body["analysis"]["total_cost"] >= 0
    again = await play(client, ann, code, 1, runs[0])
    assert again.status_code == 200 and again.content == first.content
    # The answer stored is the answer given, even after the series moves on.
    await played(client, ann, code, 2, legal_run(next_dice(body["series"])))
    assert (await play(client, ann, code, 1, runs[0])).content == first.content
    if len(runs) == 2:
        other = await play(client, ann, code, 1, runs[1])
        assert problem_type(other, 409) == "/problems/already-played"
        assert other.json()["official_run_id"] == body["run_id"]
    assert await fetchval(
        database_url, "SELECT count(*) FROM series_runs WHERE series_code = $1", code
    ) == 2  # fmt: skip

    # An Idempotency-Key gives the first answer again, and makes one series.
    headers = {**auth(ann), "Idempotency-Key": "one-series"}
    create = {"format": {"kind": "to_score", "target": 50}}
    made = await client.post("/v1/series", json=create, headers=headers)
    remade = await client.post("/v1/series", json=create, headers=headers)
    assert made.status_code == remade.status_code == 201 and made.content == remade.content


async def test_rounds_the_lowest_total_wins_after_the_last_round(
    client: httpx.AsyncClient,
) -> None:
    ann = await new_player(client)
    series = await new_series(client, ann, format={"kind": "rounds", "rounds": 2}, computers=["hard"])  # fmt: skip
    code = series["code"]
    one = await played(client, ann, code, 1, legal_run(next_dice(series)))
    assert one["status"] == "playing"
    two = await played(client, ann, code, 2, legal_run(next_dice(one)))
    assert two["status"] == "finished" and two["rounds_complete"] == 2
    assert "next" not in two
    totals = [p["total"] for p in two["players"]]
    assert totals == [sum(p["rounds"]) for p in two["players"]]
    best = min(totals)
    assert [w["seat"] for w in two["winners"]] == [s for s, t in enumerate(totals) if t == best]
    assert [p["place"] for p in two["players"]] == [
        1 + sum(other < t for other in totals) for t in totals
    ]
    # No third round: the series is over.
    response = await play(client, ann, code, 3, legal_run(next_dice(one)))
    assert problem_type(response, 422) == "/problems/series-finished"


async def test_to_score_ends_at_the_complete_round_where_a_total_reaches_the_target(
    client: httpx.AsyncClient,
) -> None:
    ann, bob = await new_player(client), await new_player(client)
    code, by_score, high, low = await straddling(client, [ann, bob], 10, kind="to_score", target=10)
    after_ann = await played(client, ann, code, 1, by_score[high])
    # Ann's total reached the target, but round 1 is not complete until Bob plays it.
    assert after_ann["status"] == "open" and row_of(after_ann, ann)["total"] == high
    after_bob = await played(client, bob, code, 1, by_score[low])
    assert after_bob["status"] == "finished" and after_bob["rounds_complete"] == 1
    assert [w["id"] for w in after_bob["winners"]] == [bob["id"]]
    assert row_of(after_bob, bob)["place"] == 1 and row_of(after_bob, ann)["place"] == 2
    # Ann's round 2 (she reached it) no longer counts, and can't be played.
    assert all(len(p["rounds"]) == 1 for p in after_bob["players"])
    response = await play(client, ann, code, 2, legal_run(next_dice(after_ann)))
    assert problem_type(response, 422) == "/problems/series-finished"


async def test_elimination_the_last_player_left_wins(client: httpx.AsyncClient) -> None:
    ann, bob, cy = [await new_player(client) for _ in range(3)]
    code, by_score, high, low = await straddling(
        client, [ann, bob, cy], 5, kind="elimination", limit=5
    )
    await played(client, ann, code, 1, by_score[high])
    await played(client, bob, code, 1, by_score[high])
    final = await played(client, cy, code, 1, by_score[low])
    assert final["status"] == "finished"
    assert [w["id"] for w in final["winners"]] == [cy["id"]]
    assert [p["out"] for p in final["players"]] == [True, True, False]
    assert [p["place"] for p in final["players"]] == [2, 2, 1]  # out together, same total


async def test_elimination_a_player_out_plays_no_more(client: httpx.AsyncClient) -> None:
    ann, bob, cy = [await new_player(client) for _ in range(3)]
    code, by_score, high, low = await straddling(
        client, [ann, bob, cy], 5, kind="elimination", limit=5
    )
    anns = await played(client, ann, code, 1, by_score[high])
    await played(client, bob, code, 1, by_score[low])
    after = await played(client, cy, code, 1, by_score[low])
    assert after["status"] == "playing" and after["rounds_complete"] == 1
    assert [p["out"] for p in after["players"]] == [True, False, False]
    assert "place" not in row_of(after, ann)
    assert "next" not in await seen(client, ann, code)
    # Ann reached round 2 before she was out, but she plays it no more.
    response = await play(client, ann, code, 2, legal_run(next_dice(anns)))
    assert problem_type(response, 422) == "/problems/out-of-series"


async def test_elimination_players_out_in_the_same_last_round_are_ranked_by_total(
    client: httpx.AsyncClient,
) -> None:
    ann, bob = await new_player(client), await new_player(client)
    series = await series_where(
        client,
        [ann, bob],
        lambda dice: len([s for s in scored(dice) if s >= 5]) >= 2,
        format={"kind": "elimination", "limit": 5},
    )
    code = series["code"]
    by_score = scored(next_dice(series))
    higher, lower = sorted(s for s in by_score if s >= 5)[-1:-3:-1]
    await played(client, ann, code, 1, by_score[higher])
    final = await played(client, bob, code, 1, by_score[lower])
    assert final["status"] == "finished" and final["rounds_complete"] == 1
    assert [p["out"] for p in final["players"]] == [True, True]
    assert [w["id"] for w in final["winners"]] == [bob["id"]]
    assert [p["place"] for p in final["players"]] == [2, 1]


async def test_a_shut_box_wins_the_series_when_its_round_is_complete(
    client: httpx.AsyncClient,
) -> None:
    ann, bob = await new_player(client), await new_player(client)
    rules = Rules(tiles=7)
    body: dict[str, Any] = {
        "format": {"kind": "rounds", "rounds": 5},
        "shut_wins": True,
        "rules": {"tiles": 7},
    }
    series = await series_where(
        client,
        [ann, bob],
        lambda dice: 0 in scored(dice, rules) and max(scored(dice, rules)) > 0,
        **body,
    )
    code = series["code"]
    by_score = scored(next_dice(series), rules)
    shut = await play(client, ann, code, 1, by_score[0])
    assert shut.json()["shut"] is True
    assert shut.json()["series"]["status"] == "open"  # Bob has not played round 1
    final = await played(client, bob, code, 1, by_score[max(by_score)])
    assert final["status"] == "finished" and final["rounds_complete"] == 1
    assert [w["id"] for w in final["winners"]] == [ann["id"]]
    assert [p["place"] for p in final["players"]] == [1, 2]

    # Several who shut in the round share the win.
    series = await series_where(
        client, [ann, bob], lambda dice: 0 in scored(dice, rules), **body, computers=["medium"]
    )
    code = series["code"]
    by_score = scored(next_dice(series), rules)
    await played(client, ann, code, 1, by_score[0])
    final = await played(client, bob, code, 1, by_score[0])
    assert final["status"] == "finished"
    medium_shut = final["players"][1]["rounds"] == [0]
    assert len(final["winners"]) == (3 if medium_shut else 2)


async def test_a_rounds_hindsight_comes_only_with_its_run(client: httpx.AsyncClient) -> None:
    ann = await new_player(client)
    series = await new_series(client, ann, format={"kind": "rounds", "rounds": 1})
    dice = next_dice(series)
    moves = legal_run(dice)
    brought = await client.post("/v1/analyze", json={"dice": dice, "moves": moves})
    assert brought.status_code == 200 and brought.json()["analysis"]["best_line"] is None
    # The player's own run has its whole analysis.
    result = await play(client, ann, series["code"], 1, moves)
    assert result.status_code == 201 and result.json()["analysis"]["hindsight"] is True
    assert result.json()["analysis"]["best_line"] is not None


# One run per player per round, across the workers of a real server.


async def series_with_runs(url: str, count: int) -> tuple[dict[str, str], str, list[Any]]:
    """A new player, a series of theirs, and ``count`` different legal runs of its first
    round."""
    player = await new_player_at(url)
    for _ in range(50):
        response = await fresh(
            url,
            "POST",
            "/v1/series",
            json={"format": {"kind": "rounds", "rounds": 2}, "rules": {"tiles": 12}},
            headers=auth(player),
        )
        assert response.status_code == 201, response.text
        dice: list[Roll] = response.json()["next"]["dice"]
        runs = legal_runs(dice, count, Rules(tiles=12))
        if len(runs) == count:
            return player, response.json()["code"], runs
    raise AssertionError(f"no series with {count} different runs")


async def count_series_runs(database_url: str, code: str) -> int:
    count: int = await fetchval(
        database_url, "SELECT count(*) FROM series_runs WHERE series_code = $1", code
    )
    return count


def test_twenty_identical_runs_at_once_make_one_run(two_workers: SharedServer) -> None:
    async def scenario() -> tuple[str, list[httpx.Response]]:
        player, code, runs = await series_with_runs(two_workers.url, 1)
        path = f"/v1/series/{code}/rounds/1/runs"
        body = {"moves": runs[0]}
        responses = await asyncio.gather(
            *(
                fresh(two_workers.url, "POST", path, json=body, headers=auth(player))
                for _ in range(20)
            )
        )
        return code, list(responses)

    code, responses = asyncio.run(scenario())
    assert Counter(r.status_code for r in responses) == {201: 1, 200: 19}
    assert len({r.content for r in responses}) == 1  # the same body every time
    assert asyncio.run(count_series_runs(two_workers.database_url, code)) == 1


def test_twenty_different_runs_at_once_make_one_run(two_workers: SharedServer) -> None:
    async def scenario() -> tuple[str, list[httpx.Response]]:
        player, code, runs = await series_with_runs(two_workers.url, 20)
        path = f"/v1/series/{code}/rounds/1/runs"
        responses = await asyncio.gather(
            *(
                fresh(two_workers.url, "POST", path, json={"moves": moves}, headers=auth(player))
                for moves in runs
            )
        )
        return code, list(responses)

    code, responses = asyncio.run(scenario())
    assert Counter(r.status_code for r in responses) == {201: 1, 409: 19}
    stored = next(r for r in responses if r.status_code == 201).json()
    for refused in (r for r in responses if r.status_code == 409):
        assert refused.json()["official_run_id"] == stored["run_id"]
    assert asyncio.run(count_series_runs(two_workers.database_url, code)) == 1
