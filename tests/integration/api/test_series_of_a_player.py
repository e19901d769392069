"""A player's series (GET /v1/players/me/series) and a series' invitation (GET
/v1/series/{code}/invite): what each shows, to whom, and that they agree with the
series as its players see it."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import httpx
import msgspec

from service.rules.ruleset import Rules
from service.support.clock import FixedClock
from service.support.codes import display, with_check
from tests.conftest import NOW
from tests.integration.api.helpers import auth, new_player, problem_type
from tests.integration.api.test_series import (
    joined,
    new_series,
    next_dice,
    played,
    row_of,
    scored,
    seen,
)


def any_run(series: dict[str, Any]) -> Any:
    rules = msgspec.convert(series["rules"], Rules)
    return next(iter(scored(next_dice(series), rules).values()))


async def mine(
    client: httpx.AsyncClient, player: dict[str, str], query: str = ""
) -> list[dict[str, Any]]:
    response = await client.get(f"/v1/players/me/series{query}", headers=auth(player))
    assert response.status_code == 200, response.text
    found: list[dict[str, Any]] = response.json()
    return found


async def test_a_players_series_newest_first_each_as_it_stands_for_them(
    client: httpx.AsyncClient, clock: FixedClock
) -> None:
    ann, bob = [await new_player(client, name=n) for n in ("Ann", "Bob")]
    assert await mine(client, ann) == []

    # The oldest: one round against a computer, played: finished, with Ann's place.
    clock.set(NOW)
    done = await new_series(client, ann, format={"kind": "rounds", "rounds": 1}, computers=["easy"])
    finished = await played(client, ann, done["code"], 1, any_run(done))
    assert finished["status"] == "finished"
    # Then one with Bob: Ann has played round 1, Bob not yet: open, Ann plays round 2 next.
    clock.set(NOW + timedelta(minutes=1))
    waiting = await new_series(client, ann, format={"kind": "elimination", "limit": 45})
    await joined(client, bob, waiting["code"])
    await played(client, ann, waiting["code"], 1, any_run(waiting))
    # The newest: nobody has played.
    clock.set(NOW + timedelta(minutes=2))
    fresh = await new_series(client, ann, format={"kind": "to_score", "target": 100})

    listed = await mine(client, ann)
    assert [s["code"] for s in listed] == [fresh["code"], waiting["code"], done["code"]]
    place = row_of(await seen(client, ann, done["code"]), ann)["place"]
    assert listed == [
        {
            "code": fresh["code"],
            "display_code": display(fresh["code"]),
            "format": {"kind": "to_score", "target": 100},
            "status": "open",
            "rounds_complete": 0,
            "next_round": 1,
        },
        {
            "code": waiting["code"],
            "display_code": display(waiting["code"]),
            "format": {"kind": "elimination", "limit": 45, "out_when": "reached"},
            "status": "open",
            "rounds_complete": 0,
            "next_round": 2,
        },
        {
            "code": done["code"],
            "display_code": display(done["code"]),
            "format": {"kind": "rounds", "rounds": 1},
            "status": "finished",
            "rounds_complete": 1,
            "place": place,
        },
    ]
    # Bob's own: the one he joined, his round 1 to play.
    assert [(s["code"], s.get("next_round")) for s in await mine(client, bob)] == [
        (waiting["code"], 1)
    ]

    # Once Bob has played round 1 it is complete: playing, for both.
    await played(client, bob, waiting["code"], 1, any_run(waiting))
    for player in (ann, bob):
        [entry] = [s for s in await mine(client, player) if s["code"] == waiting["code"]]
        shown = await seen(client, player, waiting["code"])
        assert entry["status"] == shown["status"] == "playing"
        assert entry["rounds_complete"] == shown["rounds_complete"] == 1
        assert entry.get("next_round") == shown.get("next", {}).get("round")


async def test_the_status_filter_and_the_pages(
    client: httpx.AsyncClient, clock: FixedClock
) -> None:
    ann = await new_player(client, name="Ann")
    codes = []
    for minute in range(5):
        clock.set(NOW + timedelta(minutes=minute))
        series = await new_series(client, ann, format={"kind": "rounds", "rounds": 1})
        if minute % 2 == 0:  # alone: round 1 played finishes it
            await played(client, ann, series["code"], 1, any_run(series))
        codes.append(series["code"])
    newest_first = codes[::-1]

    assert [s["code"] for s in await mine(client, ann)] == newest_first
    pages = [await mine(client, ann, f"?limit=2&offset={at}") for at in (0, 2, 4, 6)]
    assert [[s["code"] for s in page] for page in pages] == [
        newest_first[0:2],
        newest_first[2:4],
        newest_first[4:],
        [],
    ]
    finished = await mine(client, ann, "?status=finished")
    assert [s["code"] for s in finished] == [codes[4], codes[2], codes[0]]
    assert {s["status"] for s in finished} == {"finished"}
    assert [s["code"] for s in await mine(client, ann, "?status=open")] == [codes[3], codes[1]]
    assert await mine(client, ann, "?status=playing") == []
    clock.set(NOW + timedelta(minutes=5))
    going = await new_series(client, ann, format={"kind": "rounds", "rounds": 2})
    await played(client, ann, going["code"], 1, any_run(going))
    [playing] = await mine(client, ann, "?status=playing")
    assert playing["code"] == going["code"] and playing["next_round"] == 2
    assert [s["code"] for s in await mine(client, ann, "?status=open&limit=1&offset=1")] == [
        codes[1]
    ]

    for query in ("?status=over", "?limit=0", "?limit=101", "?offset=-1"):
        response = await client.get(f"/v1/players/me/series{query}", headers=auth(ann))
        assert problem_type(response, 400) == "/problems/invalid-request", query
    unauthorised = await client.get("/v1/players/me/series")
    assert problem_type(unauthorised, 401) == "/problems/unauthorized"


async def invite(client: httpx.AsyncClient, player: dict[str, str], code: str) -> httpx.Response:
    return await client.get(f"/v1/series/{code}/invite", headers=auth(player))


async def test_an_invitation_shows_the_series_but_no_score_before_joining(
    client: httpx.AsyncClient,
) -> None:
    ann, bob, cy = [await new_player(client, name=n) for n in ("Ann", "Bob", None)]
    series = await new_series(
        client,
        ann,
        # No one is out after the first round (12 tiles leave 78 at most): it goes on.
        format={"kind": "elimination", "limit": 100},
        computers=["medium", "easy", "easy"],
        rules={"tiles": 12},
    )
    code = series["code"]

    response = await invite(client, bob, display(code).lower())
    assert response.status_code == 200, response.text
    shown = response.json()
    assert shown == {
        "code": code,
        "display_code": display(code),
        "owner": {"name": "Ann"},
        "rules": series["rules"],
        "format": {"kind": "elimination", "limit": 100, "out_when": "reached"},
        "shut_wins": False,
        "status": "open",
        "seats": 4,
        "players": [
            {"name": "Ann"},
            {"name": "Medium", "computer": "medium"},
            {"name": "Easy 1", "computer": "easy"},
            {"name": "Easy 2", "computer": "easy"},
        ],
        "joined": False,
    }
    # Its players are still its players' alone to see.
    assert problem_type(await client.get(f"/v1/series/{code}", headers=auth(bob)), 403)

    await joined(client, bob, code)
    assert (await invite(client, bob, code)).json()["joined"] is True
    assert (await invite(client, bob, code)).json()["players"][-1] == {"name": "Bob"}

    # Once its first round is complete nobody can join: who sits at it is no longer shown.
    for player in (ann, bob):
        await played(client, player, code, 1, any_run(series))
    begun = (await invite(client, cy, code)).json()
    assert begun["status"] == "playing" and begun["players"] == [] and begun["seats"] == 5
    assert begun["owner"] == {"name": "Ann"} and begun["joined"] is False

    unknown = await invite(client, bob, with_check("00000000"))
    assert problem_type(unknown, 404) == "/problems/unknown-series"
    mistyped = code[:-1] + ("0" if code[-1] != "0" else "1")
    assert problem_type(await invite(client, bob, mistyped), 400) == "/problems/mistyped-code"
    assert problem_type(await client.get(f"/v1/series/{code}/invite"), 401)
