"""Streaks from the streak row alone agree with streaks from every date played."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.calendar import StreakRuns, streak_after, streak_runs

FIRST = date(2026, 1, 1)
# Gaps between dates played: mostly the next day (streaks), sometimes a missed day or more.
gaps = st.lists(st.sampled_from([1, 1, 1, 2, 3, 10]), min_size=1, max_size=60)


@given(gaps)
def test_each_date_after_the_last_extends_the_runs_as_all_the_dates_do(steps: list[int]) -> None:
    dates = [FIRST]
    for step in steps:
        dates.append(dates[-1] + timedelta(days=step))
    runs: StreakRuns | None = None
    for end in range(1, len(dates) + 1):
        runs = streak_after(runs, dates[end - 1])
        assert runs == streak_runs(dates[:end])


@pytest.mark.parametrize("offset", [0, -1, -5])
def test_a_date_not_after_the_last_needs_the_dates(offset: int) -> None:
    runs = StreakRuns(latest_length=3, best=4, last_played=FIRST)
    with pytest.raises(ValueError, match="not after the latest date played"):
        streak_after(runs, FIRST + timedelta(days=offset))
