"""A date's runs are verified and analysed once a process, and their answers encoded once:
the same answers, bounded."""

from __future__ import annotations

import itertools
import uuid
from datetime import UTC, date, datetime
from typing import Any, cast

import msgspec
import pytest

from service import daily
from service.api.schemas import DailyRunResult, run_result
from service.daily import RUNS_KEPT, DailyRuns, streak_of, submitted
from service.i18n import LANGUAGES, Language, speaking
from service.rules.analysis import report
from service.rules.dice import derive_dice
from service.rules.errors import IllegalRun
from service.rules.replay import Move
from service.rules.ruleset import Rules, tiles_of
from service.store.daily import DailyRun
from service.store.sequences import IssuedSequence

STANDARD = Rules()


def runs_of() -> DailyRuns:
    """What ``DailyRuns.verified`` needs: no database, no cache."""
    nothing = cast(Any, None)
    return DailyRuns(nothing, nothing, b"", nothing, nothing, nothing)


def issued(name: str, rules: Rules = STANDARD) -> IssuedSequence:
    return IssuedSequence(name, rules, tuple(derive_dice(b"kept", name, rules.rolls)))


def first_sets(rules: Rules, sequence: IssuedSequence, choices: list[int]) -> list[Move]:
    """A legal run: on each roll, the ``choices[i]``-th legal set (wrapping round)."""
    moves, position = [], rules.start_position
    for roll, choice in zip(sequence.dice, itertools.chain(choices, itertools.repeat(0))):
        sets = rules.legal_sets(position, roll, 2) if position else ()
        if not sets:
            break
        closed = sets[choice % len(sets)]
        moves.append(Move(tiles=tiles_of(closed)))
        position ^= closed
    return moves


def test_a_run_sent_again_is_answered_from_the_first_verification() -> None:
    sequence = issued("daily/2026-11-30")
    runs = runs_of()
    moves = first_sets(Rules(), sequence, [1, 0, 2])
    first = runs.verified(sequence, moves)
    assert runs.verified(sequence, list(moves)) is first
    assert first == report(sequence.rules, sequence.dice, moves, sequence.id)
    # Another date's dice: its own runs.
    other = issued("daily/2026-12-01")
    assert runs.verified(other, first_sets(Rules(), other, [1, 0, 2])).run.dice == other.dice


def test_an_illegal_run_is_refused_every_time_and_never_kept() -> None:
    sequence = issued("daily/2026-11-30")
    runs = runs_of()
    illegal = [Move(tiles=(1, 2, 3, 4, 5, 6, 7, 8, 9))]
    for _ in range(2):
        with pytest.raises(IllegalRun):
            runs.verified(sequence, illegal)
    assert runs._runs[sequence.id] == {}


def test_a_date_keeps_at_most_its_bound_of_runs_and_dates(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(daily, "RUNS_KEPT", 5)
    rules = Rules(tiles=12)
    sequence = issued("seq-6", rules)
    runs = runs_of()
    distinct = {
        tuple(first_sets(rules, sequence, list(c))) for c in itertools.product(range(3), repeat=4)
    }
    assert len(distinct) > 5
    for moves in distinct:
        assert runs.verified(sequence, moves) == report(rules, sequence.dice, moves, sequence.id)
    assert len(runs._runs[sequence.id]) == 5
    for n in range(daily.DATES_KEPT + 3):
        day = issued(f"daily/{n}")
        runs.verified(day, first_sets(Rules(), day, []))
    assert len(runs._runs) == daily.DATES_KEPT
    assert RUNS_KEPT >= 64  # a date's distinct runs are some dozens


def stored_run(streak: int, better: int) -> DailyRun:
    day = date(2026, 11, 30)
    return DailyRun(
        id=uuid.uuid4(),
        player_id=uuid.uuid4(),
        day=day,
        moves=[],
        score=7,
        best_possible=3,
        rank_better=better,
        rank_worse=4,
        rank_players=better + 9,
        streak_current=streak,
        streak_best=streak + 2,
        streak_last_played=day,
        played_today=True,
        submitted_at=datetime(2026, 11, 30, 12, tzinfo=UTC),
    )


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_submission_is_answered_with_the_bytes_of_its_daily_run_result(
    language: Language,
) -> None:
    """``submitted`` joins a run result encoded once to each submission's own fields:
    byte for byte what encoding the whole ``DailyRunResult`` gives, in every language."""
    sequence = issued("daily/2026-11-30")
    verified = runs_of().verified(sequence, first_sets(STANDARD, sequence, [2, 1]))
    with speaking(language):
        for run in (stored_run(1, 0), stored_run(5, 12), stored_run(2, 3)):
            whole = DailyRunResult(
                **msgspec.structs.asdict(run_result(verified, sequence.id)),
                run_id=str(run.id),
                official=True,
                streak=streak_of(run),
                rank=run.rank_at_submission,
            )
            body = submitted(verified, sequence.id, run)
            assert body == msgspec.json.encode(whole)
            assert msgspec.json.decode(body, type=DailyRunResult) == whole
