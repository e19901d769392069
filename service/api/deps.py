"""What handlers are handed: the pool, the cache, the clock, the settings, the player."""

from __future__ import annotations

from typing import Any

import asyncpg
from litestar import Request
from litestar.datastructures import State
from litestar.di import NamedDependency, Provide

from service.api.problems import problem
from service.clock import Clock
from service.settings import Settings
from service.store import players
from service.store.cache import Cache
from service.store.players import PlayerRow
from service.store.ranks import Leaderboards


def _pool(state: State) -> asyncpg.Pool:
    pool: asyncpg.Pool = state.pool
    return pool


def _cache(state: State) -> Cache:
    cache: Cache = state.cache
    return cache


def _clock(state: State) -> Clock:
    clock: Clock = state.clock
    return clock


def _settings(state: State) -> Settings:
    settings: Settings = state.settings
    return settings


def _leaderboards(state: State) -> Leaderboards:
    leaderboards: Leaderboards = state.leaderboards
    return leaderboards


async def optional_player(request: Request[Any, Any, Any], pool: asyncpg.Pool) -> PlayerRow | None:
    """The player of the request's token; None without one; 401 for a bad one."""
    if "authorization" not in request.headers:
        return None
    return await _player(request, pool)


async def _player(
    request: Request[Any, Any, Any], pool: NamedDependency[asyncpg.Pool]
) -> PlayerRow:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    challenge = {"WWW-Authenticate": "Bearer"}
    if scheme.lower() != "bearer" or not token.strip():
        raise problem(
            401, "unauthorized", "Send the player's token: Authorization: Bearer <token>.",
            headers=challenge,
        )  # fmt: skip
    player = await players.by_token(pool, token.strip())
    if player is None:
        raise problem(401, "unauthorized", "This token belongs to no player.", headers=challenge)
    return player


DEPENDENCIES = {
    "pool": Provide(_pool, sync_to_thread=False),
    "cache": Provide(_cache, sync_to_thread=False),
    "clock": Provide(_clock, sync_to_thread=False),
    "settings": Provide(_settings, sync_to_thread=False),
    "player": Provide(_player),
    "leaderboards": Provide(_leaderboards, sync_to_thread=False),
}

BEARER: list[dict[str, list[str]]] = [{"bearer": []}]
"""The security requirement of authenticated operations, for the OpenAPI document."""
