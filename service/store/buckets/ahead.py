"""Tokens a process takes of a large shared bucket ahead of the client's next requests,
and the buckets it asked Redis about lately: most requests of a busy client are decided
in the process, without a round trip to Redis."""

from __future__ import annotations

from typing import Final

from service.caching import LRU
from service.store.buckets.local import KEPT, Buckets
from service.support.settings import Limit

AHEAD_SHARE: Final = 64
AHEAD_MOST: Final = 64
AHEAD_SECONDS: Final = 1.0


def ahead(limit: Limit) -> int:
    """Tokens a process asks of a shared bucket at once: one for the request, the rest
    kept for the client's next requests to this process (``TakenAhead``). A 64th of the
    bucket, at most 64: none ahead for a limit under 128 (exact to the request), 18 for
    1200/m. Tokens kept ahead are taken from everyone else: a client can only get fewer
    requests than its limit this way (those another process holds when it is refused,
    for at most ``AHEAD_SECONDS``), never more."""
    return max(1, min(AHEAD_MOST, limit.requests // AHEAD_SHARE))


def seen_for(limit: Limit) -> float:
    """How long a process remembers a bucket it took tokens of (``TakenAhead``): as long
    as Redis keeps it, the time it takes to fill up again (its key's expiry)."""
    return limit.requests / limit.rate + 1.0


class TakenAhead:
    """Tokens this process took from shared buckets ahead of its requests, each key's
    usable until a second after it was taken: most requests of a busy client are
    decided here, without a round trip to Redis. And the buckets it asked Redis about
    lately (``first_sight``)."""

    def __init__(self) -> None:
        # key → (tokens, usable until); past the bound the least recently used go:
        # tokens dropped only refuse early (Redis decides), never late.
        self._held: LRU[str, tuple[int, float]] = LRU("rate_limit_tokens_ahead", KEPT)
        # key → remembered until, in the order of expiry, roughly; never past the bound
        # (``_room`` forgets only the expired: one unexpired forgotten lets a request by).
        self._seen: LRU[str, float] = LRU("rate_limit_buckets_seen", KEPT)

    def first_sight(self, buckets: Buckets, now: float) -> Buckets | None:
        """Whether a request may go on before Redis answers: when each of its buckets
        is either held here (``take``) or large (tokens taken ahead) and not seen by
        this process lately. Then its held tokens are spent, and the unseen buckets
        returned, now seen: their tokens are to be taken in Redis after the request.
        Else None, nothing spent: Redis decides first.

        A bucket Redis emptied lets one request more through each process that has
        not seen it for ``seen_for(limit)``: a client's first request to a process is
        not kept waiting for a round trip, and what that costs is bounded."""
        held, seen = self._held, self._seen
        spent: list[str] = []
        unseen: Buckets = []
        for key, limit in buckets:
            found = held.get(key)
            if found is not None and found[1] >= now:
                spent.append(key)
            elif ahead(limit) == 1 or (seen.peek(key) or 0.0) >= now or not self._room(now):
                return None
            else:
                unseen.append((key, limit))
        for key in spent:
            self._spend(key)
        for key, limit in unseen:
            self.seen(key, limit, now)
        return unseen

    def _room(self, now: float) -> bool:
        """Whether one more bucket may be remembered, forgetting the oldest expired."""
        seen = self._seen
        while len(seen) >= seen.bound:
            oldest = seen.oldest()
            if oldest is None:
                break
            if oldest[1] >= now:
                return False  # buckets by the hundred thousand lately: Redis first
            seen.pop(oldest[0])
        return True

    def seen(self, key: str, limit: Limit, now: float) -> None:
        """A bucket asked of Redis now (not a first sight for a while)."""
        if key in self._seen or self._room(now):
            self._seen.put(key, now + seen_for(limit))  # the most recent: expires last

    def _spend(self, key: str) -> None:
        found = self._held.peek(key)
        if found is None:
            return
        tokens, until = found
        if tokens > 1:
            self._held.put(key, (tokens - 1, until))
        else:
            self._held.pop(key)

    def take(self, buckets: Buckets, now: float) -> bool:
        """A token from each bucket if this process holds one of each (all or nothing)."""
        held = self._held
        for key, _limit in buckets:
            found = held.get(key)
            if found is None or found[1] < now:
                return False
        for key, _limit in buckets:
            self._spend(key)
        return True

    def holds(self, key: str, now: float) -> bool:
        found = self._held.peek(key)
        return found is not None and found[1] >= now

    def keep(self, key: str, tokens: int, now: float) -> None:
        if tokens < 1:
            return
        found = self._held.peek(key)
        if found is not None and found[1] >= now:
            tokens += found[0]
        self._held.put(key, (tokens, now + AHEAD_SECONDS))
