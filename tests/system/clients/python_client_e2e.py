"""A program written against the Python client that openapi-python-client generates from
openapi/openapi.json (``shutbox_client``, made by tests/system/clients/test_python_client.py):
it plays a Daily Dice and a Friend Box against a live server, is refused an illegal run
with the documented problem, and reads the proxy's own answers (deploy/nginx.conf) as the
documented problems they are. Every step checks the answer and raises on a mismatch.

    python tests/system/clients/python_client_e2e.py play http://127.0.0.1:8000
    python tests/system/clients/python_client_e2e.py proxy '[[503, "{...}"], ...]'

It is type-checked with the client under ``mypy --strict``: answers are narrowed with
``isinstance``, never cast, so a member the document gets wrong does not type-check.
"""

from __future__ import annotations

import json
import secrets
import sys
from datetime import UTC, date, datetime
from typing import TypeVar

import httpx
from shutbox_client import AuthenticatedClient, Client
from shutbox_client.api.daily_dice import get_daily_dice, get_my_daily_run, submit_daily_run
from shutbox_client.api.friend_box import create_box, get_box, submit_box_run
from shutbox_client.api.game import hint
from shutbox_client.api.operations import healthz
from shutbox_client.api.players import create_player
from shutbox_client.models import (
    BodyTooLargeProblem,
    BoxOut,
    BoxRunResult,
    BoxRunSubmission,
    CreatedBox,
    CreatedPlayer,
    DailyDice,
    DailyRunResult,
    HeadersTooLargeProblem,
    Hint,
    HintRequest,
    InternalErrorProblem,
    InvalidRequestProblem,
    NewBox,
    NewPlayer,
    OfficialRunResult,
    RateLimitedProblem,
    RequestTimeoutProblem,
    RunSubmission,
    UnavailableProblem,
    UriTooLongProblem,
    WrongTotalProblem,
)
from shutbox_client.types import Response, Unset

Parsed = TypeVar("Parsed")
Expected = TypeVar("Expected")

STANDARD_TILES = list(range(1, 10))
DAY = date(2026, 11, 29)  # any date: the proxy answers before the service reads it
TIMEOUT = httpx.Timeout(60.0)


def expect(response: Response[Parsed], kind: type[Expected], status: int) -> Expected:
    """The answer parsed as ``kind``, after checking its status."""
    parsed = response.parsed
    if response.status_code != status or not isinstance(parsed, kind):
        raise AssertionError(
            f"expected {status} {kind.__name__}, got {response.status_code}: "
            f"{response.content[:500]!r}"
        )
    return parsed


def player(base_url: str, name: str) -> tuple[AuthenticatedClient, CreatedPlayer]:
    anyone = Client(base_url=base_url, raise_on_unexpected_status=True, timeout=TIMEOUT)
    created = expect(
        create_player.sync_detailed(
            client=anyone,
            body=NewPlayer(name=name, time_zone="UTC"),
            idempotency_key=secrets.token_urlsafe(16),
        ),
        CreatedPlayer,
        201,
    )
    assert created.name == name and created.time_zone == "UTC", created
    api = AuthenticatedClient(
        base_url=base_url, token=created.token, raise_on_unexpected_status=True, timeout=TIMEOUT
    )
    return api, created


def play_with_hints(api: AuthenticatedClient, dice: list[list[int]]) -> list[list[int]]:
    """A legal turn on ``dice`` under the standard rules: each roll as the hint says."""
    open_tiles = list(STANDARD_TILES)
    moves: list[list[int]] = []
    for roll in dice:
        if not open_tiles:
            break
        advice = expect(
            hint.sync_detailed(client=api, body=HintRequest(open_=open_tiles, roll=roll)), Hint, 200
        )
        if not advice.best:
            assert advice.options == [], "no best set only when the roll closes nothing"
            break
        assert advice.options[0].tiles == advice.best, "the best set is the first option"
        assert sum(advice.best) == sum(roll), (advice.best, roll)
        moves.append(advice.best)
        open_tiles = [tile for tile in open_tiles if tile not in advice.best]
    return moves


def left_open(moves: list[list[int]]) -> list[int]:
    closed = {tile for move in moves for tile in move}
    return [tile for tile in STANDARD_TILES if tile not in closed]


def daily_dice(base_url: str) -> None:
    api, alice = player(base_url, "Alice (Python)")
    day = datetime.now(UTC).date()  # the player is in UTC: today is open
    daily = expect(get_daily_dice.sync_detailed(day, client=api), DailyDice, 200)
    assert daily.date == day and daily.sequence == f"daily/{day.isoformat()}", daily
    assert len(daily.dice) == daily.rules.tiles + 1 == 10, daily

    # An illegal run: 422, parsed as the problem the document names, with its members.
    illegal = submit_daily_run.sync_detailed(day, client=api, body=RunSubmission(moves=[[1]]))
    wrong = expect(illegal, WrongTotalProblem, 422)
    assert wrong.type_ == "/problems/wrong-total" and wrong.status == 422, wrong
    assert wrong.move_index == 0 and wrong.dice_used == 2 and wrong.reason, wrong
    assert not isinstance(wrong.roll, Unset) and wrong.roll == daily.dice[0], wrong

    moves = play_with_hints(api, daily.dice)
    submitted = submit_daily_run.sync_detailed(
        day,
        client=api,
        body=RunSubmission(moves=list(moves)),
        idempotency_key=secrets.token_urlsafe(16),
    )
    result = expect(submitted, DailyRunResult, 201)
    assert result.official and result.sequence == daily.sequence, result
    assert result.open_ == left_open(moves) and result.shut == (result.open_ == []), result
    analysis = result.analysis
    assert analysis.hindsight and analysis.best_possible is not None, "an official run's"
    assert analysis.total_cost == result.score - analysis.best_possible
    assert sum(m.hindsight_cost or 0 for m in analysis.moves) == analysis.total_cost
    assert 1 <= result.rank.position <= result.rank.players, result.rank
    assert 0 <= result.rank.percentile <= 100, result.rank
    assert result.streak.current == 1 and result.streak.played_today, result.streak
    assert result.streak.last_played is not None, result.streak
    assert result.streak.last_played == day, result.streak

    mine = expect(get_my_daily_run.sync_detailed(day, client=api), OfficialRunResult, 200)
    assert (mine.run_id, mine.score, mine.moves) == (result.run_id, result.score, result.moves)
    print(f"ok Daily Dice ({alice.id}: {result.score})")


def friend_box(base_url: str) -> None:
    owner_api, _owner = player(base_url, "Owner (Python)")
    box = expect(
        create_box.sync_detailed(
            client=owner_api, body=NewBox(), idempotency_key=secrets.token_urlsafe(16)
        ),
        CreatedBox,
        201,
    )
    assert box.owner.name == "Owner (Python)" and len(box.dice) == 10, box
    owners = play_box(owner_api, box)
    assert isinstance(owners.versus, Unset), "the owner's own run has no versus"

    friend_api, _friend = player(base_url, "Friend (Python)")
    shown = expect(get_box.sync_detailed(box.display_code, client=friend_api), BoxOut, 200)
    assert shown.code == box.code and shown.players == 1, shown
    assert isinstance(shown.target, Unset), "blind mode shows nothing of the owner's"
    friends = play_box(friend_api, box)
    assert not isinstance(friends.versus, Unset), "a friend's run against the owner's"
    assert friends.versus.owner_score == owners.score, friends.versus
    print(f"ok Friend Box ({friends.score} against {owners.score}: {friends.versus.outcome})")


def play_box(api: AuthenticatedClient, box: CreatedBox) -> BoxRunResult:
    """A player's run of the box, played with the hints."""
    body = BoxRunSubmission(moves=list(play_with_hints(api, box.dice)))
    return expect(
        submit_box_run.sync_detailed(box.code, client=api, body=body),
        BoxRunResult,
        201,
    )


ProxyProblem = (
    InvalidRequestProblem
    | RequestTimeoutProblem
    | BodyTooLargeProblem
    | UriTooLongProblem
    | RateLimitedProblem
    | HeadersTooLargeProblem
    | InternalErrorProblem
    | UnavailableProblem
)
FRONTED: dict[int, type[ProxyProblem]] = {
    400: InvalidRequestProblem,
    408: RequestTimeoutProblem,
    413: BodyTooLargeProblem,
    414: UriTooLongProblem,
    429: RateLimitedProblem,
    431: HeadersTooLargeProblem,
    500: InternalErrorProblem,
    503: UnavailableProblem,
}
"""The problem the proxy answers with, by status (``problems.PROXY``)."""


def proxy(answers: list[tuple[int, str]]) -> None:
    """The proxy's own answers, as the client reads them on every operation it fronts."""
    for status, body in answers:

        def answer(
            request: httpx.Request, status: int = status, body: str = body
        ) -> httpx.Response:
            headers = {"Content-Type": "application/problem+json", "Retry-After": "1"}
            return httpx.Response(status, content=body.encode(), headers=headers)

        anyone = Client(base_url="http://proxy.invalid", raise_on_unexpected_status=True)
        anyone.set_httpx_client(
            httpx.Client(base_url="http://proxy.invalid", transport=httpx.MockTransport(answer))
        )
        position = HintRequest(open_=[1, 2], roll=[1, 2])
        kind = FRONTED.get(status)
        if kind is None:
            raise AssertionError(f"the proxy answers {status}: which problem is it?")
        # Every operation: one without a body, a path's, a body's.
        read = [
            (p.type_, p.status)
            for p in (
                expect(healthz.sync_detailed(client=anyone), kind, status),
                expect(get_daily_dice.sync_detailed(DAY, client=anyone), kind, status),
                expect(hint.sync_detailed(client=anyone, body=position), kind, status),
            )
        ]
        sent = json.loads(body)
        assert all(kind == (sent["type"], sent["status"]) for kind in read), (read, sent)
    print(f"ok the proxy's answers ({len(answers)})")


def main(argv: list[str]) -> None:
    command, argument = argv
    if command == "play":
        daily_dice(argument)
        friend_box(argument)
    elif command == "proxy":
        proxy([(status, body) for status, body in json.loads(argument)])
    else:
        raise SystemExit(f"unknown command {command}")


if __name__ == "__main__":
    main(sys.argv[1:])
