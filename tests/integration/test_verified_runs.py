"""A date's runs are verified and analysed once a process, and their answers encoded once:
what players see is the rules core's result for each run on its date's dice, whoever
sent it first, byte for byte the ``DailyRunResult``, in every language.

Through the API only: how much a process keeps is the bounded caches' test
(``tests/unit/rules/test_bounded_caches.py``), not this one's.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from datetime import UTC, date, datetime, time, timedelta
from typing import Any, Final

import httpx
import msgspec

from service.api.schemas import DailyRunResult, run_result
from service.rules.analysis import report
from service.rules.errors import IllegalRun
from service.rules.replay import Move, replay
from service.rules.ruleset import Roll
from service.support.clock import FixedClock
from service.support.i18n import LANGUAGES, speaking
from tests.integration.api.helpers import auth, daily_dice, new_player
from tests.runs import STANDARD, every, played, runs, scripted

# What a process keeps is in the process, whichever Redis the dice are cached in.

TODAY: Final = "2026-11-29"  # the test clock's date (12:00 UTC)
TOMORROW: Final = "2026-11-30"  # begun at UTC+14
OWN_FIELDS: Final = ("run_id", "official", "streak", "rank")
"""What a ``DailyRunResult`` has beyond its ``RunResult``: the submission's own."""


async def submit(
    client: httpx.AsyncClient,
    player: dict[str, str],
    moves: Sequence[Move],
    day: str = TODAY,
    language: str = LANGUAGES[0],
) -> httpx.Response:
    return await client.post(
        f"/v1/daily/{day}/runs",
        json={"moves": [move.as_json() for move in moves]},
        headers={**auth(player), "Accept-Language": language},
    )


def result_of(answer: httpx.Response) -> dict[str, Any]:
    """A submission's run result: its answer without the submission's own fields."""
    body: dict[str, Any] = answer.json()
    return {k: v for k, v in body.items() if k not in OWN_FIELDS}


def verified(day: str, dice: Sequence[Roll], moves: Sequence[Move]) -> Any:
    """The run result the rules core gives the run on the date's dice, as JSON."""
    sequence = f"daily/{day}"
    with speaking(LANGUAGES[0]):
        result = run_result(report(STANDARD, dice, moves, sequence), sequence)
    return msgspec.json.decode(msgspec.json.encode(result))


async def test_a_run_sent_again_is_answered_as_the_first_time(client: httpx.AsyncClient) -> None:
    """The run from a second player is answered with the first player's run result, and
    the first player's again with the very same bytes: the rules core's result for the
    run on the date's dice. The same moves sent for another date are judged on its dice."""
    dice = await daily_dice(client, TODAY)
    moves = played(dice, policy=scripted([1, 0, 2]))
    first, second = await new_player(client), await new_player(client)
    accepted = await submit(client, first, moves)
    assert accepted.status_code == 201, accepted.text
    assert result_of(accepted) == verified(TODAY, dice, moves)
    other = await submit(client, second, moves)
    assert other.status_code == 201 and result_of(other) == result_of(accepted)
    again = await submit(client, first, moves)
    assert again.status_code == 200 and again.content == accepted.content

    # Tomorrow (open at UTC+14) has dice of its own: today's run is judged on them, as
    # the rules core judges it there, and tomorrow's run is answered with its own result.
    tomorrow = await daily_dice(client, TOMORROW)
    assert tomorrow != dice
    try:
        replay(STANDARD, tomorrow, moves)
    except IllegalRun as refusal:
        expected: tuple[int, Any] = (422, f"/problems/{refusal.code}")
    else:
        expected = (201, verified(TOMORROW, tomorrow, moves))
    players = [await new_player(client, time_zone="Pacific/Kiritimati") for _ in range(2)]
    answer = await submit(client, players[0], moves, TOMORROW)
    got = result_of(answer) if answer.status_code == 201 else answer.json()["type"]
    assert (answer.status_code, got) == expected, answer.text
    own = played(tomorrow, policy=scripted([1, 0, 2]))
    answer = await submit(client, players[1], own, TOMORROW)
    assert answer.status_code == 201 and result_of(answer) == verified(TOMORROW, tomorrow, own)


async def test_an_illegal_run_is_refused_every_time_and_never_kept(
    client: httpx.AsyncClient,
) -> None:
    """The same 422 each time it is sent, by one player or another; neither has played
    the date after it, so their legal runs are then their first official runs."""
    illegal = [Move(tiles=(1, 2, 3, 4, 5, 6, 7, 8, 9))]
    players = [await new_player(client), await new_player(client)]
    refusals = [await submit(client, player, illegal) for player in [*players, players[0]]]
    assert {r.status_code for r in refusals} == {422}
    assert len({r.content for r in refusals}) == 1
    moves = played(await daily_dice(client, TODAY))
    for player in players:
        assert (await submit(client, player, moves)).status_code == 201


async def test_each_run_of_many_dates_is_answered_with_its_own_result(
    client: httpx.AsyncClient, clock: FixedClock
) -> None:
    """Runs of twenty dates in turn by one player, the first date's again at the end; and
    on the date of most lines of play, distinct runs by the dozen, each sent again by
    another player after all of them: every answer is the rules core's result for its
    run on its date's dice."""
    days = [date(2026, 11, 1) + timedelta(days=n) for n in range(20)]
    dice_of = {day: await daily_dice(client, day.isoformat()) for day in days}
    lines_of = {day: list(itertools.islice(runs(dice_of[day], policy=every), 30)) for day in days}
    busiest = max(days, key=lambda day: len(lines_of[day]))
    assert len(lines_of[busiest]) > 20  # some dates' dice allow some dozens of lines
    clock.set(datetime.combine(busiest, time(12), UTC))
    for line in [*lines_of[busiest], *lines_of[busiest]]:
        answer = await submit(client, await new_player(client), line, busiest.isoformat())
        assert answer.status_code == 201, answer.text
        assert result_of(answer) == verified(busiest.isoformat(), dice_of[busiest], line)

    clock.set(datetime.combine(days[0], time(12), UTC))
    player = await new_player(client)
    answers = []
    for day in [*days, days[0]]:
        clock.set(datetime.combine(day, time(12), UTC))
        line = played(dice_of[day])
        answer = await submit(client, player, line, day.isoformat())
        assert answer.status_code in {200, 201}, answer.text
        assert result_of(answer) == verified(day.isoformat(), dice_of[day], line)
        answers.append(answer)
    assert [a.status_code for a in answers] == [201] * len(days) + [200]
    assert answers[-1].content == answers[0].content


async def test_a_submission_is_answered_with_the_bytes_of_its_daily_run_result(
    client: httpx.AsyncClient, clock: FixedClock
) -> None:
    """The run result is encoded once and each submission's own fields joined to it:
    the bytes are those of the ``DailyRunResult`` they decode to, in every language, for
    a first run and a streak's, a better rank and a worse one, a run sent again."""
    dice = await daily_dice(client, TODAY)
    lines = itertools.islice(runs(dice, policy=every), 2000)
    by_score = {replay(STANDARD, dice, line).score: line for line in lines}
    scores = sorted(by_score)
    assert len(scores) > 2  # the dice allow a better score than another and a worse one
    sent = [by_score[scores[len(scores) // 2]], by_score[scores[0]], by_score[scores[-1]]]
    clock.set(datetime(2026, 11, 28, 12, tzinfo=UTC))
    streaker = await new_player(client)
    yesterday = played(await daily_dice(client, "2026-11-28"))
    assert (await submit(client, streaker, yesterday, "2026-11-28")).status_code == 201
    clock.set(datetime(2026, 11, 29, 12, tzinfo=UTC))
    answers = []
    for language in LANGUAGES:
        for n, line in enumerate(sent):
            first = (language, n) == (LANGUAGES[0], 0)
            player = streaker if first else await new_player(client)
            answers.append(await submit(client, player, line, language=language))
        answers.append(await submit(client, streaker, sent[0], language=language))
    assert {a.status_code for a in answers} == {200, 201}
    for answer in answers:
        decoded = msgspec.json.decode(answer.content, type=DailyRunResult)
        assert answer.content == msgspec.json.encode(decoded)
    assert {a.json()["streak"]["current"] for a in answers} == {1, 2}
    assert len({a.json()["rank"]["position"] for a in answers}) > 1
    assert {a.headers["content-language"] for a in answers} == set(LANGUAGES)
