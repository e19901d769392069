"""Players, the use cases: create one (with a token of the client's, or one made here),
change a name, a time zone or a language, move to a new device with a transfer code,
and what a player is shown of themselves (the streak, the history, the statistics).

What a name, a time zone and a client's own token must be are rules of their own
(``checked_name``, ``checked_time_zone``, ``checked_token``): each raises the refusal
the API answers as 422. The API decodes and renders.
"""

from __future__ import annotations

import unicodedata
import uuid
from datetime import date, datetime
from typing import Final, Literal, NamedTuple
from zoneinfo import available_timezones

import asyncpg
from msgspec import UnsetType

from service.caching import cached
from service.store import daily, players
from service.store.daily import PlayerCounters
from service.store.db import Database
from service.store.players import PlayerRow
from service.store.players import TimeZoneChangeTooSoon as TimeZoneChangeTooSoon
from service.store.players import TokenInUse as TokenInUse
from service.store.ranks import Histograms, Rank
from service.support import codes, tokens
from service.support.calendar import StreakRuns, local_today, open_dates, streak_at, today_of
from service.support.i18n import Language

NAME_MAX: Final = 40
# Characters that take up room on a screen but show nothing (they are letters or
# symbols to Unicode): a name made of them, or hiding them, is refused.
BLANKS: Final = frozenset("\u115f\u1160\u3164\uffa0\u2800")
_INVISIBLE: Final = frozenset({"Cc", "Cf", "Cs", "Co", "Cn"})
_SHOWS_NOTHING: Final = _INVISIBLE | {"Zs", "Zl", "Zp", "Mn", "Mc", "Me"}
# Names the time zone database knows that are not places: the server's own zone,
# a build artefact, a template.
NOT_PLACES: Final = frozenset({"Factory", "localtime", "posixrules"})


class InvalidName(Exception):
    """A name people could not read: ``why`` says what is wrong with it."""

    def __init__(self, why: Literal["invisible", "length", "shows_nothing"]) -> None:
        self.why = why
        super().__init__(why)


class UnknownTimeZone(Exception):
    """Not an IANA time zone of a place."""


class WeakToken(Exception):
    """A client's own token that shows less than ``tokens.MIN_TOKEN_BITS`` random bits."""


class UnknownTransferCode(Exception):
    """No live transfer code is this one: never made, expired, or spent."""

    def __init__(self, code: str) -> None:
        self.code = code
        super().__init__(code)


@cached("time_zones", 1)  # one set: the zones of places
def zones_of_places() -> frozenset[str]:
    return frozenset(
        zone
        for zone in available_timezones()
        if zone not in NOT_PLACES and not zone.startswith(("posix/", "right/"))
    )


def checked_time_zone(time_zone: str) -> str:
    """A time zone of a place, else ``UnknownTimeZone``."""
    if time_zone not in zones_of_places():
        raise UnknownTimeZone(time_zone)
    return time_zone


def checked_name(name: str | None) -> str | None:
    """A name people can read: Unicode-normalised (NFC), trimmed, no control or
    invisible characters, and something that shows; else ``InvalidName``.

    >>> checked_name("  Ada "), checked_name(None)
    ('Ada', None)
    """
    if name is None:
        return None
    cleaned = unicodedata.normalize("NFC", name).strip()
    if any(c in BLANKS or unicodedata.category(c) in _INVISIBLE for c in cleaned):
        raise InvalidName("invisible")
    if not 1 <= len(cleaned) <= NAME_MAX:
        raise InvalidName("length")
    if all(unicodedata.category(c) in _SHOWS_NOTHING for c in cleaned):
        raise InvalidName("shows_nothing")
    return cleaned


def checked_token(token: str | None) -> str | None:
    """A client's own token, refused (``WeakToken``) when it shows less than 128 random
    bits: runs, sequences and repeated blocks count for little (``tokens.token_bits``)."""
    if token is not None and tokens.token_bits(token) < tokens.MIN_TOKEN_BITS:
        raise WeakToken
    return token


class NewPlayer(NamedTuple):
    """A player to create, checked: the token is the client's own (``own_token``) or
    one made here."""

    name: str | None
    time_zone: str
    token: str
    own_token: bool


def new_player(name: str | None, time_zone: str, token: str | None) -> NewPlayer:
    """A player to create, its name, time zone and token checked (``InvalidName``,
    ``UnknownTimeZone``, ``WeakToken``); without a token of the client's, one is made."""
    checked = checked_name(name), checked_time_zone(time_zone)
    own = checked_token(token)
    return NewPlayer(*checked, own or players.new_token(), own is not None)


async def create(database: Database, new: NewPlayer, now: datetime) -> tuple[bool, PlayerRow]:
    """The player of ``new``: created now (True), or the one the token already belongs
    to (False: a retry that lost its answer)."""
    try:
        return True, await players.create(database, new.name, new.time_zone, now, new.token)
    except players.TokenTaken as taken:
        return False, taken.player


async def update(
    pool: asyncpg.Pool,
    player: PlayerRow,
    now: datetime,
    name: str | UnsetType | None,
    time_zone: str | UnsetType,
    language: Language | UnsetType,
) -> PlayerRow:
    """Change what is given of the player (``name`` None removes the name). Raises
    ``InvalidName``, ``UnknownTimeZone``, ``TimeZoneChangeTooSoon`` (once in 24 hours);
    a date that has closed for the player stays closed after a change of time zone."""
    checked = None if isinstance(name, UnsetType) else checked_name(name)
    zone = None if isinstance(time_zone, UnsetType) else checked_time_zone(time_zone)
    return await players.update(
        pool,
        player.id,
        now,
        set_name=not isinstance(name, UnsetType),
        name=checked,
        time_zone=zone,
        closed_before=min(open_dates(now, player.time_zone, player.closed_before)),
        language=None if isinstance(language, UnsetType) else language,
    )


class Transfer(NamedTuple):
    """A one-time code that moves a player to a new device, and when it stops working."""

    code: str
    expires_at: datetime


async def offer_transfer(pool: asyncpg.Pool, player_id: uuid.UUID, now: datetime) -> Transfer:
    """A new transfer code for the player, replacing any earlier one (the store keeps
    only its hash)."""
    code = codes.new_code(codes.TRANSFER_DATA_SYMBOLS)
    return Transfer(code, await players.offer_transfer(pool, player_id, code, now))


async def claim(
    pool: asyncpg.Pool, code: str, token: str | None, now: datetime
) -> tuple[PlayerRow, str]:
    """The player behind a live transfer code (canonical, ``codes.parse``) moved to
    ``token`` (else one made here), and that token. Raises ``WeakToken``,
    ``TokenInUse`` (another player's token), ``UnknownTransferCode``."""
    token = checked_token(token) or players.new_token()
    row = await players.claim(pool, code, token, now)
    if row is None:
        raise UnknownTransferCode(code)
    return row, token


class StreakNow(NamedTuple):
    """A player's daily streak and weekly streak now."""

    current: int
    """Consecutive dates played back from the latest, while every date closed since is
    frozen (``service.support.calendar.streak_at``)."""
    best: int
    last_played: date | None
    played_today: bool
    freezes: int
    """Freezes held now, 0..2."""
    weekly_current: int
    weekly_best: int
    frozen: tuple[date, ...] = ()
    """The dates after the latest played one that freezes cover now (not stored yet)."""


NO_STREAK: Final = StreakNow(0, 0, None, False, 0, 0, 0)


def streak_now(
    runs: StreakRuns | None,
    played_today: bool,
    now: datetime,
    time_zone: str,
    closed_before: date | None = None,
) -> StreakNow:
    """The streaks a player's streak row makes now, in their time zone (a date closed
    for them before a change of time zone stays closed: ``closed_before``)."""
    if runs is None:
        return NO_STREAK
    at = streak_at(runs, now, time_zone, closed_before)
    return StreakNow(
        current=at.current,
        best=runs.best,
        last_played=runs.last_played,
        played_today=played_today,
        freezes=at.freezes,
        weekly_current=at.weekly,
        weekly_best=runs.weekly_best,
        frozen=at.frozen,
    )


async def streak(pool: asyncpg.Pool, player: PlayerRow, now: datetime) -> StreakNow:
    """The player's daily streak now."""
    today = local_today(now, player.time_zone)
    runs, played = await daily.streak_row(pool, player.id, today)
    return streak_now(runs, today in played, now, player.time_zone, player.closed_before)


class Today(NamedTuple):
    """The player's today, for a phone to schedule a reminder before it closes."""

    day: date
    """The latest date open to the player (their local date; after a move west, the
    date that stays theirs until it closes)."""
    closes_at: datetime
    played: bool
    at_risk: bool
    """Not played, and its closing would spend a freeze or break the streak."""
    streak: StreakNow


async def today(pool: asyncpg.Pool, player: PlayerRow, now: datetime) -> Today:
    """The player's today now: which date, when it closes, whether it was played and
    whether the streak is at risk. One row by key, whatever the history."""
    day, closes_at = today_of(now, player.time_zone, player.closed_before)
    local = local_today(now, player.time_zone)
    runs, played = await daily.streak_row(pool, player.id, day, local)
    now_streak = streak_now(runs, local in played, now, player.time_zone, player.closed_before)
    done = day in played
    return Today(day, closes_at, done, not done and now_streak.current > 0, now_streak)


class Played(NamedTuple):
    """One of the player's official daily runs, ranked as it stands now."""

    day: date
    score: int
    shut: bool
    rank: Rank


class Frozen(NamedTuple):
    """A date the player missed that a freeze covered."""

    day: date


async def history(
    pool: asyncpg.Pool,
    histograms: Histograms,
    player: PlayerRow,
    now: datetime,
    before: date,
    limit: int,
) -> list[Played | Frozen]:
    """The player's official runs and frozen dates before ``before``, newest first: those
    stored, and those the freezes cover now after the latest played date (the next run
    stores them)."""
    runs, _played = await daily.streak_row(pool, player.id)
    trailing = [] if runs is None else [
        Frozen(day)
        for day in reversed(streak_at(runs, now, player.time_zone, player.closed_before).frozen)
        if day < before
    ]  # fmt: skip
    entries = await daily.history(pool, histograms, player.id, before, limit)
    stored: list[Played | Frozen] = [
        Frozen(e.day)
        if e.score is None or e.rank is None
        else Played(e.day, e.score, e.score == 0, e.rank)
        for e in entries
    ]
    return [*trailing, *stored][:limit]


class Figures(NamedTuple):
    """A player's statistics over their official daily runs (None: no run to average)."""

    played: int
    shut: int
    shut_rate: float | None
    mean_score: float | None
    mean_best_possible: float | None
    mean_cost: float | None
    """The mean of score - best possible: what the player's choices cost."""
    distribution: dict[int, int]
    streak: StreakNow


def _mean(total: int, played: int) -> float | None:
    return total / played if played else None


def figures(
    counters: PlayerCounters | None,
    now: datetime,
    time_zone: str,
    closed_before: date | None = None,
) -> Figures:
    """The figures of a player's counters (None: no official run), the streak as the
    streak endpoint shows it now.

    >>> from datetime import UTC
    >>> figures(None, datetime(2026, 11, 29, tzinfo=UTC), "UTC").mean_score is None
    True
    """
    streak = (
        NO_STREAK
        if counters is None
        else streak_now(counters.streak, counters.played_today, now, time_zone, closed_before)
    )
    if counters is None:
        return Figures(0, 0, None, None, None, None, {}, streak)
    played = counters.played
    return Figures(
        played=played,
        shut=counters.shut,
        shut_rate=_mean(counters.shut, played),
        mean_score=_mean(counters.score_total, played),
        mean_best_possible=_mean(counters.best_possible_total, played),
        mean_cost=_mean(counters.score_total - counters.best_possible_total, played),
        distribution=counters.scores,
        streak=streak,
    )


async def stats(pool: asyncpg.Pool, player: PlayerRow, now: datetime) -> Figures:
    """The player's statistics: counters kept with each run stored, so as cheap to read
    after ten years of play as after one day."""
    today = local_today(now, player.time_zone)
    counters = await daily.player_counters(pool, player.id, today)
    return figures(counters, now, player.time_zone, player.closed_before)
