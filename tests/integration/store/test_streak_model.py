"""Streaks, freezes and the weekly streak as the service keeps them (runs stored by the
store, the streak read from the streak row, the history's frozen dates) against a plain
model of PRODUCT.md §6 written here: random calendars of played and missed dates, read
and played at random instants, the edges of the grace after local midnight among them,
with changes of time zone east and west."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from datetime import UTC, date, datetime, time, timedelta
from typing import NamedTuple
from zoneinfo import ZoneInfo

import asyncpg
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from msgspec import UNSET

from service.store import daily, players
from service.store.cache import Cache
from service.store.players import TimeZoneChangeTooSoon
from service.store.ranks import Histograms
from service.support.calendar import is_open_for
from service.support.clock import FixedClock
from service.usecases import players as use_cases

# --- the model: PRODUCT.md §6 in its own words --------------------------------------------


class Figures(NamedTuple):
    current: int
    best: int
    freezes: int
    weekly_current: int
    weekly_best: int
    frozen: frozenset[date]


def model(played: set[date], closed_through: date) -> Figures:
    """ "Each 7th consecutive date played earns a freeze, at most 2 held. A date missed
    while a freeze is held is covered by it automatically (spent in date order): the
    streak goes on (a frozen date neither counts nor breaks it). Missed dates beyond the
    freezes held break the streak." A date is missed once it has closed for the player
    (``closed_through`` and before) or a later date was played, unplayed.

    "Weekly streak: consecutive weeks (Monday to Sunday in the player's time zone) with
    at least one official run; current and best": current while the week after the
    latest played one has not closed."""
    if not played:
        return Figures(0, 0, 0, 0, 0, frozenset())
    count = best = freezes = 0
    frozen = set()
    day, last = min(played), max(played)
    while day <= max(last, closed_through):
        if day in played:
            count += 1
            if count % 7 == 0 and freezes < 2:
                freezes += 1
            best = max(best, count)
        elif day <= closed_through or day < last:  # missed
            if freezes > 0:
                freezes -= 1
                frozen.add(day)
            else:
                count = 0
        day += timedelta(days=1)
    mondays = sorted({d - timedelta(days=d.weekday()) for d in played})
    weeks = weekly_best = 0
    for at, monday in enumerate(mondays):
        weeks = weeks + 1 if at and monday - mondays[at - 1] == timedelta(days=7) else 1
        weekly_best = max(weekly_best, weeks)
    next_sunday = mondays[-1] + timedelta(days=13)
    weekly_current = 0 if next_sunday <= closed_through else weeks
    return Figures(count, best, freezes, weekly_current, weekly_best, frozenset(frozen))


def test_the_model_reads_as_the_product_says() -> None:
    monday = date(2031, 3, 3)
    assert monday.weekday() == 0
    week = {monday + timedelta(days=n) for n in range(7)}
    assert model(week, monday + timedelta(days=6)).freezes == 1  # the 7th date
    assert model(week, monday + timedelta(days=7)) == (  # a missed date, frozen
        7, 7, 0, 1, 1, frozenset({monday + timedelta(days=7)})
    )  # fmt: skip
    assert model(week, monday + timedelta(days=8)).current == 0  # two missed, one freeze
    assert model(week, monday + timedelta(days=13)).weekly_current == 0  # a week missed
    three = {monday + timedelta(days=n) for n in range(21)}
    assert model(three, monday + timedelta(days=20)).freezes == 2  # not a third


# --- the service, driven through the store ----------------------------------------------

ZONES = [
    "UTC",
    "Europe/Oslo",
    "America/New_York",
    "America/Los_Angeles",
    "Asia/Tokyo",
    "Pacific/Kiritimati",
    "Pacific/Pago_Pago",
    "Australia/Lord_Howe",
]
GRACE = timedelta(minutes=15)


class Step(NamedTuple):
    hours: int
    """How far time moves on (to the next local 00:05, in the grace: 0)."""
    minutes: int
    move_to: str | None
    play: int
    """0: nothing; 1: the latest open date; 2: every open date, oldest first; 3: every
    open date, newest first (out of order during the grace)."""


steps = st.lists(
    st.builds(
        Step,
        # Mostly a day on, played: streaks long enough to earn freezes.
        st.sampled_from([24] * 12 + [0, 0, 7, 20, 31, 48, 70]),
        st.integers(0, 59),
        st.one_of(*[st.none()] * 6, st.sampled_from(ZONES)),
        st.sampled_from([1] * 10 + [0, 0, 2, 3]),
    ),
    min_size=10,
    max_size=50,
)


@pytest.fixture
async def cache() -> AsyncIterator[Cache]:
    cache = Cache.connect(None, "streak-model:")
    yield cache
    await cache.close()


class Player:
    """One player, their time zone and what the model knows of them."""

    def __init__(self, row: players.PlayerRow, now: datetime) -> None:
        self.row, self.now = row, now
        self.played: set[date] = set()
        self.closed_through = self.local_today() - timedelta(days=1)

    def local_today(self) -> date:
        return self.now.astimezone(ZoneInfo(self.row.time_zone)).date()

    def in_grace(self) -> bool:
        local = self.now.astimezone(ZoneInfo(self.row.time_zone))
        midnight = datetime.combine(local.date(), time(0), tzinfo=local.tzinfo)
        return self.now - midnight < GRACE

    def move_on(self, hours: int, minutes: int) -> None:
        if hours:
            self.now += timedelta(hours=hours, minutes=minutes)
        else:  # the next local midnight, five minutes in
            zone = ZoneInfo(self.row.time_zone)
            tomorrow = self.now.astimezone(zone).date() + timedelta(days=1)
            self.now = datetime.combine(tomorrow, time(0, 5), tzinfo=zone).astimezone(UTC)
        self.close()

    def close(self) -> None:
        """Dates close and never open again, whatever the time zone (moving west)."""
        closed = self.local_today() - timedelta(days=2 if self.in_grace() else 1)
        self.closed_through = max(self.closed_through, closed)

    def open_dates(self) -> list[date]:
        """Oldest first: every date after those closed, up to today (after a move west,
        the date after the closed ones even if today is before it)."""
        first = self.closed_through + timedelta(days=1)
        last = max(self.local_today(), first)
        return [first + timedelta(days=n) for n in range((last - first).days + 1)]


async def play(pool: asyncpg.Pool, player: Player, day: date) -> None:
    assert is_open_for(player.row, day, player.now), (day, player.now, player.row)
    run = daily.VerifiedRun(day, [[day.day % 9 + 1]], 5, 2, player.now).of(player.row)
    [outcome] = await daily.submit_batch(pool, [run])
    assert isinstance(outcome, daily.Stored) and outcome.created
    player.played.add(day)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    steps=steps,
    first=st.integers(0, 3000),
    zone=st.sampled_from(ZONES),
    hour=st.integers(0, 23),
)
async def test_the_service_keeps_streaks_as_the_model_says(
    pool: asyncpg.Pool, cache: Cache, steps: list[Step], first: int, zone: str, hour: int
) -> None:
    # Dates of this test's own (2431..2439): others count a date's runs (ranks, synth-day).
    start = datetime(2431, 1, 1, hour, 30, tzinfo=UTC) + timedelta(days=first)
    await daily.make_partitions(
        pool, start.date() - timedelta(days=2), start.date() + timedelta(days=120)
    )
    row = await players.create(pool, None, zone, start, players.new_token())
    player = Player(row, start)
    histograms = Histograms(pool, cache, FixedClock(start))
    for step in steps:
        player.move_on(step.hours, step.minutes)
        if step.move_to is not None and step.move_to != player.row.time_zone:
            # At most one change in 24 hours: a change refused leaves the zone as it is.
            with contextlib.suppress(TimeZoneChangeTooSoon):
                player.row = await use_cases.update(
                    pool, player.row, player.now, UNSET, step.move_to, UNSET
                )
            player.close()
        open_now = player.open_dates()
        wanted = {0: [], 1: open_now[-1:], 2: open_now, 3: open_now[::-1]}[step.play]
        for day in wanted:
            if day not in player.played:
                await play(pool, player, day)
        expected = model(player.played, player.closed_through)
        streak = await use_cases.streak(pool, player.row, player.now)
        shown = (
            streak.current,
            streak.best,
            streak.freezes,
            streak.weekly_current,
            streak.weekly_best,
        )
        assert shown == expected[:5], (player.now, player.row.time_zone, sorted(player.played))
        assert streak.played_today == (player.local_today() in player.played)
        history = await use_cases.history(pool, histograms, player.row, player.now, date.max, 200)
        frozen = {entry.day for entry in history if isinstance(entry, use_cases.Frozen)}
        assert frozen == expected.frozen
        event("a date frozen" if frozen else "no date frozen")
        event("two freezes held" if expected.freezes == 2 else "fewer freezes")
        assert {entry.day for entry in history} == player.played | expected.frozen
        assert [entry.day for entry in history] == sorted(player.played | frozen, reverse=True)
