"""Daily dates in players' time zones: which dates are open, and streaks.

Functions of an instant and a time zone (the app's one clock supplies the instant),
pure but for one cache (``_days``, a zone's today for its UTC minute) that changes no
answer. Dates are calendar dates, so daylight-saving changes never break or double a
day, and a date is played at most once (a key in the schema).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import UTC, date, datetime, time, timedelta
from typing import Final, NamedTuple, Protocol
from zoneinfo import ZoneInfo

from service.caching import LRU, cached

GRACE: Final = timedelta(minutes=15)
"""After local midnight, the date just ended stays open this long."""
EARLIEST_UTC_OFFSET: Final = timedelta(hours=14)  # a date begins first at UTC+14
LATEST_UTC_OFFSET: Final = timedelta(hours=12)  # and ends last at UTC-12


MINUTE: Final = timedelta(minutes=1)
DAYS_KEPT: Final = 4096
"""Time zones whose day at the latest minute asked is kept (``_day``): every zone there
is (some 600), and room for the names a client may send for them."""
_days: LRU[str, tuple[int, date, bool]] = LRU("calendar_days", DAYS_KEPT)


def day_at(now: datetime, time_zone: str) -> tuple[date, bool]:
    """Today in ``time_zone`` at ``now``, and whether it is the first ``GRACE`` after its
    local midnight (yesterday still open)."""
    today, grace, _whole_minutes = _day_and_offsets(now, time_zone)
    return today, grace


def _day_and_offsets(now: datetime, time_zone: str) -> tuple[date, bool, bool]:
    """``day_at``, and whether the zone's offsets at ``now`` and at its midnight are
    whole minutes."""
    zone = ZoneInfo(time_zone)
    local = now.astimezone(zone)
    today = local.date()
    midnight = datetime.combine(today, time(0), tzinfo=zone)
    offsets = (local.utcoffset(), midnight.utcoffset())
    whole = all(offset is not None and not offset % MINUTE for offset in offsets)
    return today, now - midnight < GRACE, whole


def _day(now: datetime, time_zone: str) -> tuple[date, bool]:
    """``day_at``, the same all through a UTC minute (every offset and transition of a
    zone falls on a whole minute since the 1970s; one that does not is not kept): each
    official run asks it twice or more, so a zone's answer is kept for its minute."""
    minute = int(now.timestamp() // 60)
    found = _days.get(time_zone)
    if found is not None and found[0] == minute:
        return found[1], found[2]
    today, grace, whole_minutes = _day_and_offsets(now, time_zone)
    if whole_minutes:
        _days.put(time_zone, (minute, today, grace))
    return today, grace


def local_today(now: datetime, time_zone: str) -> date:
    return _day(now, time_zone)[0]


def open_dates(
    now: datetime, time_zone: str, closed_before: date | None = None
) -> tuple[date, ...]:
    """The dates a player may play now: today in their time zone, and yesterday during
    the first 15 minutes after local midnight; never a date before ``closed_before``
    (dates that closed for the player before a change of time zone stay closed).

    >>> oslo = datetime(2026, 3, 29, 22, 10, tzinfo=UTC)  # 00:10 on the 30th in Oslo
    >>> open_dates(oslo, "Europe/Oslo")
    (datetime.date(2026, 3, 30), datetime.date(2026, 3, 29))
    >>> open_dates(oslo, "Europe/Oslo", closed_before=date(2026, 3, 30))
    (datetime.date(2026, 3, 30),)

    Moving west never reopens a date (the new today is kept open: time only moves on):

    >>> open_dates(oslo, "America/New_York", closed_before=date(2026, 3, 30))
    (datetime.date(2026, 3, 30),)
    """
    today, grace = _day(now, time_zone)
    if closed_before is not None and today < closed_before:
        return (closed_before,)
    if grace and (closed_before is None or today - timedelta(1) >= closed_before):
        return today, today - timedelta(days=1)
    return (today,)


class Resident(Protocol):
    """Where a player's dates come from: their time zone, and the date before which every
    date has closed for them (a change of time zone; None: none)."""

    @property
    def time_zone(self) -> str: ...

    @property
    def closed_before(self) -> date | None: ...


def is_open_for(player: Resident, day: date, now: datetime) -> bool:
    """Whether ``player`` may play ``day`` at ``now`` (``open_dates``): the one rule,
    whichever way a run is sent (its player looked up first, or with the batch that
    stores it)."""
    return day in open_dates(now, player.time_zone, player.closed_before)


ISO_DATE: Final = "(?!0000)[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])"
"""The shape of a date a client writes (YYYY-MM-DD, from year 1), as a regular
expression; with JSON Schema's ``format: date`` (no day a month lacks), what
``named_date`` reads, as the OpenAPI document says it."""
_ISO_DATE: Final = re.compile(ISO_DATE)


def named_date(text: str) -> date | None:
    """The date ``text`` names as YYYY-MM-DD, or None. Only text shaped as a date is
    kept (``_date_of``): anything else a client sends is refused before it costs memory."""
    if len(text) != 10 or not _ISO_DATE.fullmatch(text):
        return None
    return _date_of(text)


@cached("dates_named", bound=4096)
def _date_of(text: str) -> date | None:
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None


def has_begun(day: date, now: datetime) -> bool:
    """Whether ``day`` has begun somewhere on Earth (UTC+14) at ``now``."""
    return (now.astimezone(UTC) + EARLIEST_UTC_OFFSET).date() >= day


def has_closed_everywhere(day: date, now: datetime) -> bool:
    """Whether ``day`` has ended everywhere on Earth (UTC-12), grace included."""
    return now >= closes_everywhere_at(day)


def closes_everywhere_at(day: date) -> datetime:
    """The instant ``day`` has ended everywhere on Earth (UTC-12), grace included: 12:15
    UTC the next day (``has_closed_everywhere`` from then on).

    >>> closes_everywhere_at(date(2026, 11, 28)).isoformat()
    '2026-11-29T12:15:00+00:00'
    """
    ends = datetime.combine(day + timedelta(days=1), time(0), tzinfo=UTC) + LATEST_UTC_OFFSET
    return ends + GRACE


FREEZE_EVERY: Final = 7
"""Each 7th consecutive date played (7th, 14th, ...) earns a freeze."""
FREEZES_HELD: Final = 2
"""The most freezes a player holds: one earned with two held is not earned."""


def week_of(day: date) -> int:
    """The number of ``day``'s week, Monday to Sunday (1 January of year 1 was a Monday).
    Dates are the player's local dates, so this is the week in the player's time zone.

    >>> week_of(date(2026, 11, 29)) + 1 == week_of(date(2026, 11, 30))  # Sunday, Monday
    True
    """
    return (day.toordinal() - 1) // 7


class StreakRuns(NamedTuple):
    """A player's streaks as of their latest played date: what the streak row holds, so
    that the streak now is read from it alone, whatever the history's length."""

    latest_length: int
    """Dates played in the streak that ends at ``last_played`` (frozen dates in it
    neither count nor break it)."""
    best: int
    last_played: date
    freezes: int
    """Freezes held after ``last_played`` (0..``FREEZES_HELD``)."""
    weekly_length: int
    """Consecutive weeks with a date played, ending with ``last_played``'s week."""
    weekly_best: int


def streak_runs(days: Iterable[date]) -> StreakRuns | None:
    """The streaks the played dates make (None if none): ``streak_after`` date after date.

    >>> d = date(2026, 11, 2)  # a Monday
    >>> streak_runs([d, d + timedelta(1), d + timedelta(2), d + timedelta(5), d + timedelta(6)])
    StreakRuns(latest_length=2, best=3, last_played=datetime.date(2026, 11, 8), freezes=0, \
weekly_length=1, weekly_best=1)
    """
    runs = None
    for day in sorted(set(days)):
        runs = streak_after(runs, day)
    return runs


def frozen_dates(days: Iterable[date]) -> list[date]:
    """The dates between the played ones that freezes covered (``frozen_before``)."""
    runs, frozen = None, []
    for day in sorted(set(days)):
        frozen += frozen_before(runs, day)
        runs = streak_after(runs, day)
    return frozen


def frozen_before(runs: StreakRuns | None, day: date) -> list[date]:
    """The dates missed between the latest played date and ``day`` (played after it)
    that freezes cover: spent in date order, as many as are held."""
    if runs is None:
        return []
    missed = (day - runs.last_played).days - 1
    return [runs.last_played + timedelta(days=n) for n in range(1, min(missed, runs.freezes) + 1)]


def streak_after(runs: StreakRuns | None, day: date) -> StreakRuns:
    """The streaks once ``day`` is played, from those before it (None: none played),
    when ``day`` comes after every date played. The dates missed in between spend the
    freezes held, one each, in date order; a missed date beyond them breaks the streak
    (and the freezes are spent). A date played out of order (before the latest) can
    join two runs: that needs the dates (``streak_runs``).

    >>> d = date(2026, 11, 1)
    >>> streak_after(StreakRuns(2, 3, d, 0, 1, 1), d + timedelta(1))
    StreakRuns(latest_length=3, best=3, last_played=datetime.date(2026, 11, 2), freezes=0, \
weekly_length=2, weekly_best=2)
    >>> streak_after(StreakRuns(6, 6, d, 0, 1, 1), d + timedelta(1)).freezes  # the 7th date
    1
    >>> streak_after(StreakRuns(2, 3, d, 1, 1, 1), d + timedelta(2))  # a date frozen
    StreakRuns(latest_length=3, best=3, last_played=datetime.date(2026, 11, 3), freezes=0, \
weekly_length=2, weekly_best=2)
    >>> streak_after(StreakRuns(2, 3, d, 1, 1, 1), d + timedelta(3))  # two missed
    StreakRuns(latest_length=1, best=3, last_played=datetime.date(2026, 11, 4), freezes=0, \
weekly_length=2, weekly_best=2)
    """
    if runs is None:
        return StreakRuns(1, 1, day, 0, 1, 1)
    if day <= runs.last_played:
        raise ValueError(f"{day} is not after the latest date played, {runs.last_played}")
    missed = (day - runs.last_played).days - 1
    if missed <= runs.freezes:
        length, freezes = runs.latest_length + 1, runs.freezes - missed
    else:
        length, freezes = 1, 0
    if length % FREEZE_EVERY == 0:
        freezes = min(FREEZES_HELD, freezes + 1)
    weeks = week_of(day) - week_of(runs.last_played)
    weekly = runs.weekly_length + weeks if weeks <= 1 else 1
    return StreakRuns(
        length, max(runs.best, length), day, freezes, weekly, max(runs.weekly_best, weekly)
    )


class StreakAt(NamedTuple):
    """A player's streaks at an instant, from their ``StreakRuns``."""

    current: int
    """The latest streak's length, while every date after it that has closed for the
    player is frozen; else 0."""
    freezes: int
    """Freezes held now: those of the streak row, less those the dates closed since the
    latest played one spent."""
    weekly: int
    """The latest run of weeks' length while the week after it has not closed; else 0."""
    frozen: tuple[date, ...]
    """The dates after the latest played one that freezes cover now."""


def streak_at(
    runs: StreakRuns, now: datetime, time_zone: str, closed_before: date | None = None
) -> StreakAt:
    """The streaks at ``now``: the dates closed for the player since the latest played
    one (before the first date open to them, ``open_dates``: a date closed before a
    change of time zone stays closed) spend the freezes held, in date order; one more
    breaks the streak. A read spends nothing stored: the next run stored spends the same
    freezes on the same dates (``frozen_before``).

    >>> runs = StreakRuns(7, 7, date(2026, 11, 26), 1, 2, 2)
    >>> streak_at(runs, datetime(2026, 11, 28, 12, tzinfo=UTC), "UTC")  # the 27th frozen
    StreakAt(current=7, freezes=0, weekly=2, frozen=(datetime.date(2026, 11, 27),))
    >>> streak_at(runs, datetime(2026, 11, 29, 12, tzinfo=UTC), "UTC")  # and the 28th missed
    StreakAt(current=0, freezes=0, weekly=2, frozen=(datetime.date(2026, 11, 27),))
    """
    earliest_open = min(open_dates(now, time_zone, closed_before))
    missed = (earliest_open - runs.last_played).days - 1
    frozen = tuple(frozen_before(runs, earliest_open))
    if missed <= runs.freezes:
        current, freezes = runs.latest_length, runs.freezes - max(missed, 0)
    else:
        current, freezes = 0, 0
    weekly_open = week_of(earliest_open) - week_of(runs.last_played) <= 1
    return StreakAt(current, freezes, runs.weekly_length if weekly_open else 0, frozen)


def current_streak(
    runs: StreakRuns | None, now: datetime, time_zone: str, closed_before: date | None = None
) -> int:
    """The latest streak counts while every date after it that has closed for the player
    is frozen (``streak_at``)."""
    return 0 if runs is None else streak_at(runs, now, time_zone, closed_before).current


def today_of(
    now: datetime, time_zone: str, closed_before: date | None = None
) -> tuple[date, datetime]:
    """The player's today (the latest date open to them) and when it closes for them:
    its local midnight's end plus the grace, in UTC.

    >>> day, closes_at = today_of(datetime(2026, 3, 29, 21, 0, tzinfo=UTC), "Europe/Oslo")
    >>> day, closes_at.isoformat()  # the 23-hour day of the spring change
    (datetime.date(2026, 3, 29), '2026-03-29T22:15:00+00:00')
    """
    today = max(open_dates(now, time_zone, closed_before))
    midnight = datetime.combine(today + timedelta(days=1), time(0), tzinfo=ZoneInfo(time_zone))
    return today, (midnight + GRACE).astimezone(UTC)
