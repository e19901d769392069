"""Token buckets in this process only: the rate limits when Redis is absent or down."""

from __future__ import annotations

import time
from typing import Final

from service.caching import LRU
from service.support.settings import Limit

KEPT: Final = 100_000
"""Buckets a process keeps of each kind (its own, tokens taken ahead, seen lately): some
100 bytes each, for clients by the hundred thousand."""

Buckets = list[tuple[str, Limit]]
"""The buckets of one request: (key, limit) each."""


class LocalBuckets:
    """The same token buckets as the Redis script's (``shared``), in this process."""

    def __init__(self) -> None:
        # key → (tokens, at): past the bound the least recently used leave (full again).
        self._buckets: LRU[str, tuple[float, float]] = LRU("rate_limit_local_buckets", KEPT)

    def take(self, buckets: Buckets) -> float:
        """All or nothing, as the Redis script: 0 if allowed, else the seconds to wait."""
        now = time.monotonic()
        levels = []
        wait = 0.0
        for key, limit in buckets:
            found = self._buckets.pop(key)
            tokens, at = found if found is not None else (float(limit.requests), now)
            tokens = min(limit.requests, tokens + (now - at) * limit.rate)
            levels.append(tokens)
            if tokens < 1:
                wait = max(wait, (1 - tokens) / limit.rate)
        for (key, _limit), tokens in zip(buckets, levels):
            self._buckets.put(key, (tokens - (1 if wait == 0 else 0), now))
        return wait
