"""What a player's name, time zone and streak are (``service.usecases.players``): pure
rules, tested without a database."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime

import pytest

from service.api.players import TIME_ZONE_PATTERN
from service.store.daily import PlayerCounters
from service.support.calendar import StreakRuns
from service.usecases.players import (
    NAME_MAX,
    InvalidName,
    UnknownTimeZone,
    checked_name,
    checked_time_zone,
    figures,
    streak_now,
    zones_of_places,
)


def test_every_time_zone_a_player_may_take_fits_the_documented_pattern() -> None:
    assert all(
        re.fullmatch(TIME_ZONE_PATTERN, zone) and len(zone) <= 64 for zone in zones_of_places()
    )


@pytest.mark.parametrize("zone", ["Europe/Oslo", "UTC", "America/Argentina/Buenos_Aires"])
def test_zones_of_places_are_taken(zone: str) -> None:
    assert checked_time_zone(zone) == zone


@pytest.mark.parametrize("zone", ["Mars/Olympus", "localtime", "Factory", "posix/UTC", ""])
def test_zones_that_are_no_place_are_refused(zone: str) -> None:
    with pytest.raises(UnknownTimeZone):
        checked_time_zone(zone)


def test_a_name_is_normalised_and_trimmed() -> None:
    assert checked_name("  Jose\u0301  ") == "Jos\u00e9"
    assert checked_name("x" * NAME_MAX) == "x" * NAME_MAX
    assert checked_name(None) is None


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("", "length"),
        ("   ", "length"),
        ("x" * (NAME_MAX + 1), "length"),
        ("bell\u0007", "invisible"),
        ("zero\u200bwidth", "invisible"),
        ("\u3164\u3164", "invisible"),  # Hangul fillers: room on a screen, nothing shown
        ("\u0301\u0301", "shows_nothing"),  # combining marks alone
    ],
)
def test_names_that_show_nothing_readable_are_refused(name: str, why: str) -> None:
    with pytest.raises(InvalidName) as refused:
        checked_name(name)
    assert refused.value.why == why


NOW = datetime(2026, 11, 29, 18, 0, tzinfo=UTC)


def test_a_streak_counts_while_its_next_date_is_open() -> None:
    runs = StreakRuns(4, 9, date(2026, 11, 28), freezes=0, weekly_length=2, weekly_best=3)
    assert streak_now(runs, False, NOW, "UTC") == (4, 9, date(2026, 11, 28), False, 0, 2, 3, ())
    lapsed = runs._replace(last_played=date(2026, 11, 27))
    assert streak_now(lapsed, False, NOW, "UTC").current == 0
    # In Kiribati (UTC+14) the 30th has begun: the 28th's streak has lapsed there.
    assert streak_now(runs, False, NOW, "Pacific/Kiritimati").current == 0
    assert streak_now(None, False, NOW, "UTC") == (0, 0, None, False, 0, 0, 0, ())


def test_a_player_s_figures_are_means_of_the_counters() -> None:
    counters = PlayerCounters(
        streak=StreakRuns(2, 5, date(2026, 11, 29), 0, 1, 1),
        played_today=True,
        played=4,
        shut=1,
        score_total=30,
        best_possible_total=10,
        scores={0: 1, 10: 3},
    )
    shown = figures(counters, NOW, "UTC")
    assert (shown.played, shown.shut, shown.shut_rate) == (4, 1, 0.25)
    assert (shown.mean_score, shown.mean_best_possible, shown.mean_cost) == (7.5, 2.5, 5.0)
    assert shown.distribution == {0: 1, 10: 3}
    assert (shown.streak.current, shown.streak.best) == (2, 5)
    none = figures(None, NOW, "UTC")
    assert none.played == 0 and none.shut_rate is None and none.mean_cost is None
