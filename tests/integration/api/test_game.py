"""The stateless game services agree with the rules engine on every field."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from typing import Any

import httpx
import msgspec
import pytest

from service.rules.analysis import Report, report
from service.rules.computers import EASY, MEDIUM, play
from service.rules.dice import derive_dice
from service.rules.replay import Move
from service.rules.ruleset import Rules, tiles_of
from service.rules.solver import solution, solve
from tests.conftest import ROOT, ServerProcess

VARIANTS = [
    Rules(),
    Rules(one_die="high_closed"),
    Rules(one_die="sum_le_6", move_rule="single"),
    Rules(tiles=12, move_rule="dice_or_sum", scoring="digits"),
    Rules(tiles=10, scoring="count", start=(4, 5, 6, 7, 8, 9, 10)),
    Rules(move_rule="die_or_sum_both", total="sum_or_difference", first_must_close=3),
    Rules(tiles=8, one_die="sum_le_6", one_die_choice="mandatory", stop_on_total=7),
]


def sample_runs() -> list[tuple[Rules, tuple[tuple[int, int], ...], tuple[Move, ...]]]:
    runs = []
    for n in range(2 * len(VARIANTS)):
        rules = VARIANTS[n % len(VARIANTS)]
        dice = derive_dice(b"api-tests", f"box/R{n}", rules.rolls)
        player = EASY if n % 2 else MEDIUM
        runs.append(
            (rules, dice, play(solve(rules), player, rules.start_position, dice, f"p{n}").moves)
        )
    return runs


def rules_json(rules: Rules) -> dict[str, Any]:
    return {k: v for k, v in json.loads(msgspec.json.encode(rules)).items() if v is not None}


def assert_agrees(got: Any, expected: Report, rules: Rules) -> None:
    """An answer of ``/v1/analyze`` is the rules core's report, field by field."""
    run, analysis = expected.run, expected.analysis
    assert "run_id" not in got and "official" not in got
    assert got["sequence"] is None
    assert got["rules"] == rules_json(rules)
    assert got["dice"] == [list(r) for r in run.dice]
    assert got["moves"] == [m.as_json() for m in run.moves]
    assert (got["rolls_used"], got["score"], got["shut"]) == (run.rolls_used, run.score, run.shut)
    assert got["open"] == list(tiles_of(run.open_tiles))
    a = got["analysis"]
    assert a["hindsight"] is analysis.hindsight
    assert a["best_possible"] == analysis.best_possible
    if analysis.hindsight:
        assert a["best_line"] == [m.as_json() for m in analysis.best_line or ()]
        assert (
            a["total_cost"]
            == run.score - expected.best_possible
            == sum(m["hindsight_cost"] for m in a["moves"])
        )
        assert a["could_be_better"] == list(analysis.could_be_better or ())
    else:
        assert a["best_line"] is a["total_cost"] is a["could_be_better"] is None
    for entry, core in zip(a["moves"], analysis.moves, strict=True):
        assert entry["index"] == core.index and entry["roll"] == list(core.roll)
        assert entry["dice_used"] == core.dice_used
        assert entry["chosen"] == list(core.chosen) and entry["best"] == list(core.best)
        assert entry["hindsight_cost"] == core.hindsight_cost
        hindsight_best = core.hindsight_best
        assert entry["hindsight_best"] == (hindsight_best and hindsight_best.as_json())
        for field in ("expected_score", "best_expected_score", "dice_loss", "expected_loss"):
            assert entry[field] == pytest.approx(getattr(core, field), rel=1e-12, abs=1e-12)
        assert entry["label"] == core.label
    for name, computer in expected.computer.items():
        assert got["computer"][name] == {
            "score": computer.score,
            "shut": computer.shut,
            "moves": [m.as_json() for m in computer.moves],
        }


def easy_seed(dice: Sequence[Sequence[int]]) -> str:
    return "dice/" + "".join(f"{a}{b}" for a, b in dice)


async def test_analyze_agrees_with_the_rules_engine(client: httpx.AsyncClient) -> None:
    """Dice the client brings: the report without hindsight."""
    for rules, dice, moves in sample_runs():
        body = {"rules": rules_json(rules), "dice": dice, "moves": [m.as_json() for m in moves]}
        response = await client.post("/v1/analyze", json=body)
        assert response.status_code == 200, response.text
        expected = report(rules, dice, moves, easy_seed(dice), hindsight=False)
        assert_agrees(response.json(), expected, rules)


async def test_analyze_of_a_deal_agrees_with_the_rules_engine(client: httpx.AsyncClient) -> None:
    """Dice the service dealt: the whole report, hindsight included."""
    for n, rules in enumerate(VARIANTS):
        dealt = await client.post("/v1/deals", json={"rules": rules_json(rules)})
        assert dealt.status_code == 201, dealt.text
        assert dealt.json()["rules"] == rules_json(rules)
        dice = tuple((a, b) for a, b in dealt.json()["dice"])
        player = EASY if n % 2 else MEDIUM
        moves = play(solve(rules), player, rules.start_position, dice, f"p{n}").moves
        body = {"deal": dealt.json()["deal"], "moves": [m.as_json() for m in moves]}
        response = await client.post("/v1/analyze", json=body)
        assert response.status_code == 200, response.text
        assert_agrees(response.json(), report(rules, dice, moves, easy_seed(dice)), rules)


def test_analyze_answers_alike_whichever_path_takes_it(two_workers: ServerProcess) -> None:
    """A body that says its length is answered before the framework's routing; one that
    doesn't (sent in chunks) by the handler: the same answer, byte for byte, with the
    same headers; a problem is the handler's either way. On a real server: chunked
    bodies are the server's to read."""
    server = two_workers
    with httpx.Client(base_url=server.url) as http:
        for rules, dice, moves in sample_runs()[:6]:
            body = {
                "rules": rules_json(rules),
                "dice": dice,
                "moves": [m.as_json() for m in moves],
            }
            encoded = json.dumps(body).encode()
            headers = {"content-type": "application/json", "accept-language": "de"}
            known = http.post("/v1/analyze", content=encoded, headers=headers)
            chunked = http.post(
                "/v1/analyze", content=iter([encoded[:7], encoded[7:]]), headers=headers
            )
            assert "content-length" not in chunked.request.headers
            assert known.status_code == chunked.status_code == 200, known.text
            assert known.content == chunked.content
            for header in ("content-type", "content-language", "vary"):
                assert known.headers[header] == chunked.headers[header], header
            twice = [moves[0].as_json()] * 2 if moves else [[1]]  # tiles closed already
            illegal = http.post("/v1/analyze", json={**body, "moves": twice}, headers=headers)
            assert illegal.status_code == 422, illegal.text
            assert illegal.headers["content-type"] == "application/problem+json"


async def test_analyze_refuses_an_illegal_run_naming_the_move(client: httpx.AsyncClient) -> None:
    dice = [[3, 4], [6, 6], [1, 1], [1, 2], [2, 3], [5, 5], [6, 6], [1, 1], [2, 2], [3, 3]]
    response = await client.post("/v1/analyze", json={"dice": dice, "moves": [[7], [3, 7, 2]]})
    assert response.status_code == 422
    assert response.headers["content-type"] == "application/problem+json"
    problem = response.json()
    assert problem["type"] == "/problems/tile-not-open"
    assert problem["move_index"] == 1 and problem["roll"] == [6, 6]
    assert problem["detail"] == "Move 2 (roll 6 + 6 = 12): tile 7 is already closed"
    early = await client.post("/v1/analyze", json={"dice": dice, "moves": [[7]]})
    assert early.status_code == 422 and early.json()["type"] == "/problems/run-ends-early"
    assert [3, 9] in early.json()["possible"]


async def test_analyze_reads_one_die_moves(client: httpx.AsyncClient) -> None:
    dice = [[4, 5], [4, 4], [3, 4], [6, 1], [5, 1], [4, 1], [3, 1], [2, 1], [1, 1], [1, 1]]
    one_die = [{"dice": 1, "tiles": [t]} for t in (6, 5, 4, 3, 2, 1)]
    body = {"rules": {"one_die": "high_closed"}, "dice": dice, "moves": [[9], [8], [7], *one_die]}
    response = await client.post("/v1/analyze", json=body)
    assert response.status_code == 200, response.text
    assert response.json()["shut"] is True and response.json()["score"] == 0
    assert response.json()["moves"][3] == {"dice": 1, "tiles": [6]}


async def test_hint_ranks_by_shut_chance(client: httpx.AsyncClient) -> None:
    response = await client.post("/v1/hint", json={"open": list(range(1, 10)), "roll": [3, 4]})
    assert response.status_code == 200
    hint = response.json()
    assert hint["best"] == hint["options"][0]["tiles"] == [7]
    chances = [o["p_shut"] for o in hint["options"]]
    assert chances == sorted(chances, reverse=True)
    assert "dice_choice" not in hint


async def test_hint_offers_the_dice_choice(client: httpx.AsyncClient) -> None:
    body = {"rules": {"one_die": "high_closed"}, "open": [1, 2, 3]}
    choice = (await client.post("/v1/hint", json=body)).json()["dice_choice"]
    assert choice["best"] == 1 and choice["one"]["p_shut"] > choice["two"]["p_shut"]
    refused = await client.post("/v1/hint", json={"open": [1, 2, 3, 7], "roll": [3]})
    assert refused.status_code == 422 and refused.json()["type"] == "/problems/one-die-not-allowed"
    outside = await client.post("/v1/hint", json={"open": [10], "roll": [3, 4]})
    assert outside.status_code == 422 and outside.json()["type"] == "/problems/not-a-tile"


@pytest.mark.parametrize(
    ("query", "argv"),
    [
        ("", []),
        (
            "?tiles=10&one_die=sum_le_6&move_rule=single&scoring=digits",
            [
                "--tiles",
                "10",
                "--one-die",
                "sum_le_6",
                "--move-rule",
                "single",
                "--scoring",
                "digits",
            ],
        ),
        ("?open=4,5,6,7,8,9", ["--start", "4,5,6,7,8,9"]),
        (
            "?move_rule=die_or_sum_both&total=sum_or_difference&one_die=sum_le_6"
            "&one_die_choice=mandatory&first_must_close=3&stop_on_total=7",
            [
                "--move-rule",
                "die_or_sum_both",
                "--total",
                "sum_or_difference",
                "--one-die",
                "sum_le_6",
                "--one-die-choice",
                "mandatory",
                "--first-must-close",
                "3",
                "--stop-on-total",
                "7",
            ],
        ),
        (
            "?start=4,5,6,7,8,9&first_must_close=4",
            ["--start", "4,5,6,7,8,9", "--first-must-close", "4"],
        ),
        ("?move_rule=die_or_sum", ["--move-rule", "die_or_sum"]),
    ],
)
@pytest.mark.parametrize("redis_mode", ["no-redis"], indirect=True)
async def test_solution_agrees_with_shutbox_solve(
    client: httpx.AsyncClient, query: str, argv: list[str]
) -> None:
    response = await client.get(f"/v1/solution{query}")
    assert response.status_code == 200, response.text
    printed = subprocess.run(
        [sys.executable, "-m", "service.cli", "solve", "--json", *argv],
        capture_output=True, check=True, cwd=ROOT,
    ).stdout  # fmt: skip
    assert response.json() == json.loads(printed)


async def test_solution_refuses_bad_positions(client: httpx.AsyncClient) -> None:
    assert (await client.get("/v1/solution?open=10")).status_code == 422
    assert (await client.get("/v1/solution?open=1,1")).status_code == 422
    assert (await client.get("/v1/solution?open=a,b")).status_code == 400
    assert (await client.get("/v1/solution?tiles=13")).status_code == 400
    assert (await client.get("/v1/solution?one_die=maybe")).status_code == 400


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("first_must_close=10", "first_must_close"),
        ("tiles=6&first_must_close=7", "first_must_close"),
        ("start=4,5,6&first_must_close=2", "first_must_close"),
        ("stop_on_total=1", "stop_on_total"),
        ("stop_on_total=13", "stop_on_total"),
        ("total=product", "total"),
        ("one_die_choice=sometimes", "one_die_choice"),
        ("move_rule=die_or_sums", "move_rule"),
        ("tiles=6&start=7", "start"),
    ],
)
async def test_solution_refuses_rules_that_do_not_fit_naming_the_field(
    client: httpx.AsyncClient, query: str, field: str
) -> None:
    response = await client.get(f"/v1/solution?{query}")
    assert response.status_code == 400, response.text
    assert field in response.json()["detail"]


async def test_solution_is_of_the_start_under_first_must_close(client: httpx.AsyncClient) -> None:
    """The start position is special under first_must_close: ``open`` as the start is the
    turn's start, ``open`` elsewhere a position of the turn."""
    first = (await client.get("/v1/solution?first_must_close=2")).json()
    assert first == json.loads(msgspec.json.encode(solution(Rules(first_must_close=2))))
    assert first["expected_score"] > (await client.get("/v1/solution")).json()["expected_score"]
    start = (await client.get("/v1/solution?start=2,3,4&first_must_close=2")).json()
    assert (
        start == (await client.get("/v1/solution?start=2,3,4&first_must_close=2&open=2,3,4")).json()
    )
    assert start != (await client.get("/v1/solution?first_must_close=2&open=2,3,4")).json()


async def test_hint_refuses_two_dice_where_one_die_is_a_must(client: httpx.AsyncClient) -> None:
    rules = {"one_die": "sum_le_6", "one_die_choice": "mandatory"}
    refused = await client.post(
        "/v1/hint", json={"rules": rules, "open": [1, 2, 3], "roll": [3, 4]}
    )
    assert refused.status_code == 422 and refused.json()["type"] == "/problems/two-dice-not-allowed"
    hinted = await client.post("/v1/hint", json={"rules": rules, "open": [1, 2, 3], "roll": [3]})
    assert [o["tiles"] for o in hinted.json()["options"]] == [[3], [1, 2]]
    before = await client.post("/v1/hint", json={"rules": rules, "open": [1, 2, 3]})
    assert before.json() == {"best": None, "options": []}  # no dice to choose


async def test_analyze_names_the_cause_of_a_two_dice_move_where_one_die_is_a_must(
    client: httpx.AsyncClient,
) -> None:
    rules = {"tiles": 3, "one_die": "sum_le_6", "one_die_choice": "mandatory"}
    body = {"rules": rules, "dice": [[3, 1], [2, 5], [1, 1], [6, 6]], "moves": [[3]]}
    refused = await client.post("/v1/analyze", json=body)
    assert refused.status_code == 422, refused.text
    problem = refused.json()
    assert problem["type"] == "/problems/two-dice-not-allowed" and problem["move_index"] == 0


async def test_rules_lists_every_variant(client: httpx.AsyncClient) -> None:
    catalog = (await client.get("/v1/rules")).json()
    assert catalog["standard"] == {
        "tiles": 9, "start": None, "one_die": "never", "move_rule": "any", "scoring": "sum",
        "total": "sum", "one_die_choice": "optional", "first_must_close": None,
        "stop_on_total": None,
    }  # fmt: skip
    fields = {f["field"]: f for f in catalog["fields"]}
    assert set(fields) == {
        "tiles", "start", "one_die", "move_rule", "scoring",
        "total", "one_die_choice", "first_must_close", "stop_on_total",
    }  # fmt: skip
    assert set(fields) == set(Rules.__struct_fields__) == set(catalog["standard"])
    assert [c["value"] for c in fields["move_rule"]["choices"]] == [
        "any", "dice_or_sum", "single", "die_or_sum", "die_or_sum_both",
    ]  # fmt: skip
    assert [c["value"] for c in fields["total"]["choices"]] == ["sum", "sum_or_difference"]
    assert [c["value"] for c in fields["one_die_choice"]["choices"]] == ["optional", "mandatory"]
    assert (fields["stop_on_total"]["minimum"], fields["stop_on_total"]["maximum"]) == (2, 12)
    assert (
        fields["first_must_close"]["default"] is None and fields["first_must_close"]["minimum"] == 1
    )
    assert all(c["description"] for f in fields.values() for c in f["choices"] or [])
    assert all(f["description"] for f in fields.values())


async def test_rules_speak_every_language(client: httpx.AsyncClient) -> None:
    english = (await client.get("/v1/rules")).json()
    for language in ("de", "nb", "nl"):
        said = (await client.get("/v1/rules", headers={"accept-language": language})).json()
        for ours, theirs in zip(english["fields"], said["fields"], strict=True):
            assert ours["description"] != theirs["description"], (language, ours["field"])
            for a, b in zip(ours["choices"] or [], theirs["choices"] or [], strict=True):
                assert a["description"] != b["description"], (language, a["value"])


def test_sample_runs_cover_one_die_moves() -> None:
    # The agreement test above is only as good as its runs: some must use one die.
    assert any(m.dice == 1 for _, _, moves in sample_runs() for m in moves)
