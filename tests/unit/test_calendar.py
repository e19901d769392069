"""Streaks from the streak row alone agree with streaks from every date played; the
dates open in a time zone."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import jsonschema_rs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.support.calendar import (
    GRACE,
    ISO_DATE,
    StreakRuns,
    day_at,
    local_today,
    named_date,
    open_dates,
    streak_after,
    streak_runs,
)

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
    runs = StreakRuns(3, 4, FIRST, freezes=0, weekly_length=1, weekly_best=1)
    with pytest.raises(ValueError, match="not after the latest date played"):
        streak_after(runs, FIRST + timedelta(days=offset))


ZONES = [
    "UTC",
    "Europe/Oslo",
    "America/New_York",
    "America/Santiago",
    "Asia/Kathmandu",
    "Australia/Lord_Howe",
    "Pacific/Chatham",
    "America/St_Johns",
    "Pacific/Kiritimati",
]
# Around local midnights and the daylight-saving changes of 2026 and 2027 in these zones.
instants = st.datetimes(
    min_value=datetime(2026, 1, 1), max_value=datetime(2027, 12, 31), timezones=st.just(UTC)
)


@settings(max_examples=300)
@given(st.sampled_from(ZONES), instants, st.lists(st.integers(-200, 200), max_size=12))
def test_the_day_kept_for_a_minute_is_the_day_of_every_instant_in_it(
    zone: str, start: datetime, steps: list[int]
) -> None:
    """``open_dates`` and ``local_today`` keep a zone's day for a UTC minute: each answers
    as computed afresh, instant after instant (seconds apart, around the same minutes)."""
    now = start
    for step in [0, *steps]:
        now += timedelta(seconds=step)
        today, grace = day_at(now, zone)
        assert local_today(now, zone) == today
        assert open_dates(now, zone) == ((today, today - timedelta(days=1)) if grace else (today,))


@pytest.mark.parametrize("zone", ZONES)
def test_the_day_turns_at_local_midnight_and_the_grace_ends_15_minutes_later(zone: str) -> None:
    local = ZoneInfo(zone)
    midnight = datetime(2026, 11, 30, tzinfo=local).astimezone(UTC)
    second = timedelta(seconds=1)
    for now, expected in (
        (midnight - second, (date(2026, 11, 29),)),
        (midnight, (date(2026, 11, 30), date(2026, 11, 29))),
        (midnight + GRACE - second, (date(2026, 11, 30), date(2026, 11, 29))),
        (midnight + GRACE, (date(2026, 11, 30),)),
    ):
        assert open_dates(now, zone) == expected


# What the OpenAPI document says of a date in a path: the pattern and the format.
DOCUMENTED_DATE = jsonschema_rs.validator_for(
    {"type": "string", "format": "date", "pattern": f"^{ISO_DATE}$"}, validate_formats=True
)


@given(
    st.one_of(
        st.dates().map(date.isoformat),
        st.from_regex(re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}"), fullmatch=True),
        st.text(st.sampled_from("0123456789-\n\uff12 T"), max_size=12),
    )
)
def test_the_documented_date_is_what_is_read_as_a_date(text: str) -> None:
    assert DOCUMENTED_DATE.is_valid(text) == (named_date(text) is not None), text
