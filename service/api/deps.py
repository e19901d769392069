"""What handlers are handed: the pool, the cache, the clock, the settings, the player."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from datetime import date
from typing import TYPE_CHECKING, Any, Final

import msgspec
from litestar import Request
from litestar.datastructures import State
from litestar.di import NamedDependency, Provide
from litestar.plugins.problem_details import ProblemDetailsException

from service.api import problems
from service.api.front.hot import Answer, ByHeaders, header
from service.api.front.ratelimit import RateLimiter
from service.api.front.reading import bearer_token
from service.caching import LRU
from service.store import daily as store_daily
from service.store import players
from service.store.batch import Batcher, SharedFlight
from service.store.cache import Cache, RedisState
from service.store.daily import NewRun, Stored, TokenRun
from service.store.db import Pool
from service.store.players import PlayerRow
from service.store.ranks import Histograms
from service.support.clock import Clock
from service.support.i18n import _, player_language
from service.support.settings import Settings
from service.usecases.daily import DailyRuns
from service.usecases.deals import signing_key
from service.usecases.practice import PracticeRuns

if TYPE_CHECKING:
    from service.api.daily import Feed
    from service.api.ops import DatabaseState

AnyRequest = Request[Any, Any, Any]
FEED_DATES_KEPT: Final = 1000
"""Dates whose Daily Dice answer a process keeps encoded: about three years."""


class Services:
    """Everything a handler may need, made once in the lifespan and handed over as one
    dependency (one dependency resolves without a task group on every request)."""

    def __init__(self, pool: Pool, cache: Cache, clock: Clock, settings: Settings) -> None:
        self.pool = pool
        self.cache = cache
        self.clock = clock
        self.settings = settings
        self.histograms = Histograms(pool, cache, clock)
        self.deal_key = signing_key(settings.secret_bytes)
        # The Daily Dice answers served, by date (a date's about 300 bytes).
        self.daily_feed: LRU[date, Feed] = LRU("daily_feed", bound=FEED_DATES_KEPT)
        # The readiness checks asked at once share one (a crowd takes one connection).
        self.readiness: SharedFlight[tuple[DatabaseState, RedisState]] = SharedFlight()
        # Concurrent requests share their round trips (one query, one commit a batch).
        self.players_by_token: Batcher[bytes, PlayerRow | None] = Batcher(
            lambda hashes: players.by_token_hashes(pool, hashes)
        )
        daily_batches: Batcher[NewRun, Stored] = Batcher(
            lambda runs: store_daily.submit_batch(pool, runs)
        )
        # The runs sent with a bearer token: their players looked up with the batch.
        by_token: Batcher[TokenRun, tuple[PlayerRow, Stored]] = Batcher(
            lambda runs: store_daily.submit_batch_by_tokens(pool, runs)
        )
        self.limiter = RateLimiter(
            cache,
            settings.address_limit,
            settings.token_limit,
            settings.trusted_proxies,
            settings.operation_limits,
            ipv6_prefix=settings.rate_limit_ipv6_prefix,
        )
        self.daily = DailyRuns(
            pool, cache, settings.secret_bytes, self.histograms, daily_batches, by_token
        )
        self.practice = PracticeRuns(pool, self.daily, self.histograms)


# What a handler declares to be handed the services or the request's player.
ServicesDep = NamedDependency[Services]
PlayerDep = NamedDependency[PlayerRow]


def _services(state: State) -> Services:
    services: Services = state.services
    return services


async def optional_player(request: AnyRequest, services: Services) -> PlayerRow | None:
    """The player of the request's token; None without one; 401 for a bad one."""
    if "authorization" not in request.headers:
        return None
    return await player_of(request, services)


async def _player(request: AnyRequest, services: ServicesDep) -> PlayerRow:
    return await player_of(request, services)


async def player_of(request: AnyRequest, services: Services) -> PlayerRow:
    return await player_of_header(request.headers.get("authorization", ""), services)


_CHALLENGE: Final = {"WWW-Authenticate": "Bearer"}


def no_such_player() -> ProblemDetailsException:
    """The 401 of a well-formed token that belongs to no player."""
    return problems.UNAUTHORIZED(_("This token belongs to no player."), headers=_CHALLENGE)


async def player_of_header(header: str, services: Services) -> PlayerRow:
    """The player of an Authorization header's bearer token, else 401."""
    token = bearer_token(header)
    if token is None:
        raise problems.UNAUTHORIZED(
            _("Send the player's token: {header}.", header="Authorization: Bearer <token>"),
            headers=_CHALLENGE,
        )
    return await player_of_hash(players.token_hash(token), services)


async def player_of_hash(digest: bytes, services: Services) -> PlayerRow:
    """The player of a bearer token's hash, else 401; the answer in their language."""
    player = await services.players_by_token(digest)
    if player is None:
        raise no_such_player()
    player_language(player.language)
    return player


PlayerRead = Callable[["Services", PlayerRow, dict[str, str]], Awaitable[msgspec.Struct]]
"""What a player's GET answers, from the services, the player and the path's parameters:
the one way both take, its handler and its ``ByHeaders`` answerer (``player_read``)."""
_encoder: Final = msgspec.json.Encoder()


def player_read(read: PlayerRead) -> ByHeaders:
    """``BEFORE_FRAMEWORK`` of a player's GET that ``read`` answers: the player of the
    request's bearer token, then ``read``, encoded; a problem on the way (no token, an
    unknown one, what ``read`` refuses) goes on to the handler, which answers it."""

    async def answer(scope: Any, path: re.Match[str]) -> Answer | None:
        services: Services = scope["app"].state.services
        try:
            token = header(scope, b"authorization") or ""
            player = await player_of_header(token, services)
            return 200, _encoder.encode(await read(services, player, path.groupdict()))
        except problems.ANSWERED:
            return None

    return ByHeaders(answer)


DEPENDENCIES = {
    "services": Provide(_services, sync_to_thread=False),
    "player": Provide(_player),
}

BEARER: list[dict[str, list[str]]] = [{"bearer": []}]
# A token is optional: it lets the server show more (the target of a box, a leaderboard).
MAYBE_BEARER: list[dict[str, list[str]]] = [{}, {"bearer": []}]
"""The security requirement of authenticated operations, for the OpenAPI document."""
