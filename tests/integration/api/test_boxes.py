"""Friend Box through the API: codes, blind and target play, results, every variant."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from service.rules.computers import COMPUTERS, play
from service.rules.replay import replay
from service.rules.ruleset import Rules
from service.rules.solver import solve
from service.support.codes import ALPHABET, display, with_check
from tests.integration.api.helpers import auth, new_player
from tests.runs import legal_runs

VARIANTS: list[dict[str, Any]] = [
    {},
    {"one_die": "high_closed"},
    {"one_die": "sum_le_6"},
    {"move_rule": "dice_or_sum"},
    {"move_rule": "single"},
    {"tiles": 10},
    {"tiles": 12},
    {"scoring": "count"},
    {"scoring": "digits", "tiles": 12},
    {"start": [4, 5, 6, 7, 8, 9]},
    {"tiles": 12, "one_die": "sum_le_6", "move_rule": "single", "scoring": "digits"},
]


async def new_box(client: httpx.AsyncClient, owner: dict[str, str], **rules: Any) -> dict[str, Any]:
    response = await client.post("/v1/boxes", json={"rules": rules}, headers=auth(owner))
    assert response.status_code == 201, response.text
    box: dict[str, Any] = response.json()
    return box


async def play_box(
    client: httpx.AsyncClient, player: dict[str, str], code: str, moves: list[Any], mode: str
) -> httpx.Response:
    return await client.post(
        f"/v1/boxes/{code}/runs", json={"moves": moves, "mode": mode}, headers=auth(player)
    )


@pytest.mark.parametrize("redis_mode", ["no-redis"], indirect=True)
async def test_every_typo_and_adjacent_swap_of_a_real_code_is_400(
    client: httpx.AsyncClient,
) -> None:
    owner = await new_player(client, name="Owner")
    code = (await new_box(client, owner))["code"]
    assert (await client.get(f"/v1/boxes/{code}")).status_code == 200
    typos = [
        code[:i] + typed + code[i + 1 :]
        for i in range(len(code))
        for typed in ALPHABET
        if typed != code[i]
    ]
    swaps = [
        code[:i] + code[i + 1] + code[i] + code[i + 2 :]
        for i in range(len(code) - 1)
        if code[i] != code[i + 1]
    ]
    for wrong in typos + swaps:
        response = await client.get(f"/v1/boxes/{display(wrong)}")
        assert response.status_code == 400, wrong
        assert response.json()["type"] == "/problems/mistyped-code"
        assert "mistyped" in response.json()["detail"]


async def test_codes_are_read_as_people_type_them(client: httpx.AsyncClient) -> None:
    owner = await new_player(client, name="Owner")
    box = await new_box(client, owner)
    code = box["code"]
    assert box["display_code"] == f"{code[:4]}-{code[4:]}"
    typed = f" {code[:4].lower()} - {code[4:]}".replace("0", "o").replace("1", "l")
    found = await client.get(f"/v1/boxes/{typed}")
    assert found.status_code == 200 and found.json()["code"] == code
    short = await client.get("/v1/boxes/ABC")
    assert short.status_code == 400 and short.json()["type"] == "/problems/invalid-code"
    # A well-formed code nobody created.
    unknown = with_check("ZZZZZZZZ" if code[:8] != "ZZZZZZZZ" else "YYYYYYYY")
    missing = await client.get(f"/v1/boxes/{unknown}")
    assert missing.status_code == 404 and missing.json()["type"] == "/problems/unknown-box"
    # The box first, then who asks: an unknown box is 404 whatever the token says.
    stranger = {"Authorization": "Bearer not-a-token-of-anyone-here"}
    missing = await client.get(f"/v1/boxes/{unknown}?mode=target", headers=stranger)
    assert missing.status_code == 404 and missing.json()["type"] == "/problems/unknown-box"


async def test_twenty_friends_blind_and_target(client: httpx.AsyncClient) -> None:
    owner = await new_player(client, name="Owner")
    box = await new_box(client, owner)
    code = box["code"]
    dice = tuple((a, b) for a, b in box["dice"])
    runs = legal_runs(dice, 2000)
    friends = [await new_player(client, name=f"Friend {i:02}") for i in range(20)]

    # Before the owner plays: target mode has nothing to show yet.
    early = (await client.get(f"/v1/boxes/{code}?mode=target")).json()
    assert "target" not in early and early["players"] == 0
    # A friend who plays before the owner gets no versus (there is nothing to compare).
    first = await play_box(client, friends[0], code, runs[0], "blind")
    assert first.status_code == 201 and "versus" not in first.json()

    owner_run = await play_box(client, owner, code, runs[1], "blind")
    assert owner_run.status_code == 201 and "versus" not in owner_run.json()
    owner_score = owner_run.json()["score"]

    for n, friend in enumerate(friends[1:], start=1):
        mode = "blind" if n % 2 else "target"
        if mode == "blind":
            # Blind: nothing of the owner's result anywhere before the friend's run is in.
            seen = (await client.get(f"/v1/boxes/{code}")).json()
            assert "target" not in seen
            assert set(seen) == {"code", "display_code", "rules", "dice", "owner", "players"}
            hidden = await client.get(f"/v1/boxes/{code}/results", headers=auth(friend))
            assert hidden.status_code == 403 and hidden.json()["type"] == "/problems/results-hidden"
            illegal = await play_box(client, friend, code, [[1, 2, 3, 4, 5, 6, 7, 8, 9]], mode)
            assert illegal.status_code == 422 and "versus" not in illegal.json()
            assert "owner" not in str(illegal.json())
        else:
            anonymous = (await client.get(f"/v1/boxes/{code}?mode=target")).json()
            assert "target" not in anonymous  # only an authenticated player sees it
            shown = (await client.get(f"/v1/boxes/{code}?mode=target", headers=auth(friend))).json()
            assert shown["target"]["score"] == owner_score
            assert shown["target"]["open"] == owner_run.json()["open"]
        moves = runs[(n * 37) % len(runs)]
        response = await play_box(client, friend, code, moves, mode)
        assert response.status_code == 201, response.text
        result = response.json()
        expected = (
            "win"
            if result["score"] < owner_score
            else "tie"
            if result["score"] == owner_score
            else "loss"
        )
        assert result["versus"] == {"owner_score": owner_score, "outcome": expected}
        # Identical again: the same body; another run: 409.
        again = await play_box(client, friend, code, moves, mode)
        assert again.status_code == 200 and again.content == response.content
        other = next(r for r in runs if r != moves)
        assert (await play_box(client, friend, code, other, mode)).status_code == 409

    results = (await client.get(f"/v1/boxes/{code}/results", headers=auth(owner))).json()
    assert len(results) == 21  # the owner and twenty friends
    keys = [(r["score"], r["submitted_at"]) for r in results]
    assert keys == sorted(keys)  # best first, ties in order of play
    assert {r["mode"] for r in results} == {"blind", "target"}
    scores = [r["score"] for r in results]
    assert len(set(scores)) < len(scores)  # there are ties, and they are kept
    # Ties share a place: 1 + the runs with a better score.
    assert [r["place"] for r in results] == [1 + sum(o < s for o in scores) for s in scores]
    assert [r["name"] for r in results if r["owner"]] == ["Owner"]
    assert [r["name"] for r in results if r["me"]] == ["Owner"]
    assert (await client.get(f"/v1/boxes/{code}")).json()["players"] == 21
    friend_view = await client.get(f"/v1/boxes/{code}/results", headers=auth(friends[3]))
    assert [r["name"] for r in friend_view.json() if r["me"]] == ["Friend 03"]
    mine_only = ("me",)
    assert [{k: v for k, v in r.items() if k not in mine_only} for r in friend_view.json()] == [
        {k: v for k, v in r.items() if k not in mine_only} for r in results
    ]
    # Page by page (pages that split ties among them), the same list with the same places.
    for size in (1, 4, 5):
        paged: list[dict[str, object]] = []
        while len(paged) <= len(results):
            query = {"limit": size, "offset": len(paged)}
            page = await client.get(f"/v1/boxes/{code}/results", params=query, headers=auth(owner))
            assert page.status_code == 200, page.text
            if not page.json():
                break
            paged += page.json()
        assert paged == results, size
    for bad in ({"limit": 0}, {"limit": 101}, {"offset": -1}, {"offset": "x"}):
        refused = await client.get(f"/v1/boxes/{code}/results", params=bad, headers=auth(owner))
        assert refused.status_code == 400, (bad, refused.text)
        assert refused.json()["type"] == "/problems/invalid-request"


@pytest.mark.parametrize("redis_mode", ["no-redis"], indirect=True)
async def test_a_player_s_own_run_of_a_box_on_any_device(client: httpx.AsyncClient) -> None:
    owner, friend = await new_player(client), await new_player(client)
    box = await new_box(client, owner)
    code = box["code"]
    mine = await client.get(f"/v1/boxes/{code}/runs/me", headers=auth(friend))
    assert mine.status_code == 404 and mine.json()["type"] == "/problems/no-box-run"
    assert display(code) in mine.json()["detail"]
    moves = legal_runs(tuple((a, b) for a, b in box["dice"]), 1)[0]
    played = await play_box(client, friend, code, moves, "blind")
    assert played.status_code == 201, played.text
    # Read back with the code as people type it: the 201's very bytes.
    typed = display(code).lower()
    mine = await client.get(f"/v1/boxes/{typed}/runs/me", headers=auth(friend))
    assert mine.status_code == 200 and mine.content == played.content
    # The owner has not played it: nothing of the friend's run is the owner's.
    assert (await client.get(f"/v1/boxes/{code}/runs/me", headers=auth(owner))).status_code == 404
    assert (await client.get(f"/v1/boxes/{code}/runs/me")).status_code == 401
    unknown = with_check("ZZZZZZZZ" if code[:8] != "ZZZZZZZZ" else "YYYYYYYY")
    missing = await client.get(f"/v1/boxes/{unknown}/runs/me", headers=auth(friend))
    assert missing.status_code == 404 and missing.json()["type"] == "/problems/unknown-box"


@pytest.mark.parametrize(
    "rules", VARIANTS, ids=lambda r: ",".join(f"{k}={v}" for k, v in r.items()) or "standard"
)
async def test_every_variant_end_to_end(client: httpx.AsyncClient, rules: dict[str, Any]) -> None:
    owner = await new_player(client, name="Host")
    box = await new_box(client, owner, **rules)
    core_rules = Rules(**{k: tuple(v) if k == "start" else v for k, v in rules.items()})
    dice = tuple((a, b) for a, b in box["dice"])
    assert len(dice) == core_rules.rolls
    tables = solve(core_rules)
    sequence = f"box/{box['code']}"
    for computer in COMPUTERS:
        moves = play(
            tables, computer, core_rules.start_position, dice, f"script/{computer.name}"
        ).moves
        scripted = await new_player(client, name=f"Script {computer.name}")
        response = await play_box(
            client, scripted, box["code"], [m.as_json() for m in moves], "blind"
        )
        assert response.status_code == 201, response.text
        result = response.json()
        expected = replay(core_rules, dice, moves)
        assert (result["score"], result["shut"]) == (expected.score, expected.shut)
        assert result["sequence"] == sequence
        assert (
            result["analysis"]["total_cost"] == expected.score - result["analysis"]["best_possible"]
        )
        for name, player in zip(("easy", "medium", "hard"), COMPUTERS, strict=True):
            assert (
                result["computer"][name]["score"]
                == play(tables, player, core_rules.start_position, dice, sequence).score
            )

    # An illegal run: refused with the move and the reason; nothing stored.
    cheat = await new_player(client, name="Cheat")
    refused = await play_box(client, cheat, box["code"], [[1, 2, 3, 4, 5, 6, 7, 8, 9]], "blind")
    assert refused.status_code == 422
    problem = refused.json()
    assert (
        problem["move_index"] == 0
        and problem["reason"]
        and problem["detail"].startswith("Move 1 (roll ")
    )
    assert (await client.get(f"/v1/boxes/{box['code']}")).json()["players"] == 3
