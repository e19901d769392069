"""Token buckets shared by every process, in Redis: one Lua script takes the tokens of
a request's buckets, all or nothing, atomically; the requests of one process that
arrive together share one call per hash slot (``service.store.batch``). A process
takes tokens of a large bucket a few at a time and spends them on the client's next
requests (``service.store.buckets.ahead``), and lets the first request of a large
bucket it has not seen lately through at once, its token taken in Redis after it;
when Redis is absent or down, the buckets are this process's own
(``service.store.buckets.local``)."""

from __future__ import annotations

import asyncio
import time
from typing import Final

import msgspec

from service.store.batch import Batcher
from service.store.buckets.ahead import TakenAhead, ahead
from service.store.buckets.local import Buckets, LocalBuckets
from service.store.cache import Cache
from service.support.settings import Limit

# Several requests at once, in order (the requests of one process that arrived together,
# whose keys share a hash slot on a cluster).
# ARGV[1]: one JSON array (one argument to encode, not six a request: redis-py's
# encoding of arguments cost more than the script): how many requests; then for each,
# its number of buckets n and n triples
# (capacity, refill per second, tokens wanted: 1, or more to keep ahead in the process);
# KEYS: the buckets of every request, in the same order. All or nothing per request:
# when every bucket has a token, each gives what is wanted of it, as far as it has;
# when one is empty, none gives anything. Returns for each request the milliseconds
# to wait (0: allowed), then the tokens each of its buckets gave.
_TOKEN_BUCKETS: Final = """
local A = cjson.decode(ARGV[1])
local now_parts = redis.call('TIME')
local now = tonumber(now_parts[1]) + tonumber(now_parts[2]) / 1000000
local answers = {}
local key_at = 1
local arg_at = 2
for r = 1, tonumber(A[1]) do
  local n = tonumber(A[arg_at])
  arg_at = arg_at + 1
  local levels = {}
  local wait_ms = 0
  for i = 0, n - 1 do
    local capacity = tonumber(A[arg_at + 3 * i])
    local rate = tonumber(A[arg_at + 3 * i + 1])
    local state = redis.call('HMGET', KEYS[key_at + i], 'tokens', 'at')
    local tokens = tonumber(state[1]) or capacity
    local at = tonumber(state[2]) or now
    tokens = math.min(capacity, tokens + math.max(0, now - at) * rate)
    levels[i] = tokens
    if tokens < 1 then
      wait_ms = math.max(wait_ms, math.ceil((1 - tokens) / rate * 1000))
    end
  end
  local given = {}
  for i = 0, n - 1 do
    local capacity = tonumber(A[arg_at + 3 * i])
    local rate = tonumber(A[arg_at + 3 * i + 1])
    local wanted = tonumber(A[arg_at + 3 * i + 2])
    local tokens = levels[i]
    given[i] = 0
    if wait_ms == 0 then
      given[i] = math.max(1, math.min(wanted, math.floor(tokens)))
      tokens = tokens - given[i]
    end
    redis.call('HSET', KEYS[key_at + i], 'tokens', tokens, 'at', now)
    redis.call('PEXPIRE', KEYS[key_at + i], math.ceil(capacity / rate * 1000) + 1000)
  end
  answers[#answers + 1] = wait_ms
  for i = 0, n - 1 do
    answers[#answers + 1] = given[i]
  end
  key_at = key_at + n
  arg_at = arg_at + 3 * n
end
return answers
"""

_json: Final = msgspec.json.Encoder()

RECONCILE_SECONDS: Final = 0.02
"""How long the tokens of a request let through at first sight may wait to be taken in
Redis, with those of the others let through meanwhile (one script call)."""


class TokenBuckets:
    """The rate limits' buckets, by key: in Redis while it answers (the same buckets for
    every process), else in this process."""

    def __init__(self, cache: Cache) -> None:
        self.cache = cache
        self.local = LocalBuckets()
        self.ahead = TakenAhead()
        self._script = cache.redis.register_script(_TOKEN_BUCKETS) if cache.redis else None
        # The requests of this process that arrive together share one script call per
        # hash slot (one in all on a single Redis).
        self._shared: Batcher[Buckets, float] = Batcher(self.take_together)

    async def take(self, buckets: Buckets) -> float:
        """A token from each bucket (all or nothing; the keys share a hash slot): 0, or
        the seconds to wait."""
        if self._script is not None and self.cache.usable:
            unseen = self.ahead.first_sight(buckets, time.monotonic())
            if unseen is None:
                return await self._shared(buckets)
            if unseen:
                # Their tokens, taken after the request, with the others of a moment.
                self._shared.send(unseen, within=RECONCILE_SECONDS)
            return 0.0
        return self.local.take(buckets)

    async def reconciled(self) -> None:
        """Once the tokens of the requests let through so far are taken in Redis."""
        await self._shared.handled()

    async def take_together(self, requests: list[Buckets]) -> list[float | Exception]:
        """The buckets of several requests, in order, each all or nothing (what the
        batcher of ``take`` calls): in Redis one script call per hash slot (the
        buckets of a request share one), the calls at once; this process's own buckets
        when Redis fails (the calls that went through keep their tokens taken). A
        bucket this process holds no tokens of is asked for some ahead (``ahead``),
        once in the batch; a request that waited for this batch while the tokens of
        the one before were on their way may find its tokens here by now."""
        script = self._script
        if script is None:
            return [self.local.take(buckets) for buckets in requests]
        now = time.monotonic()
        waits: list[float | Exception] = [0.0] * len(requests)
        by_slot: dict[int, list[int]] = {}
        for at, buckets in enumerate(requests):
            if not self.ahead.take(buckets, now):
                by_slot.setdefault(self.cache.slot(buckets[0][0]), []).append(at)
        if not by_slot:
            return waits
        asked: set[str] = set()

        def wanted(key: str, limit: Limit) -> int:
            if key in asked or self.ahead.holds(key, now):
                return 1
            asked.add(key)
            self.ahead.seen(key, limit, now)
            return ahead(limit)

        async def call(together: list[Buckets]) -> list[int]:
            keys: list[str] = []
            args: list[float] = [len(together)]
            for buckets in together:
                args.append(len(buckets))
                for key, limit in buckets:
                    keys.append(key)
                    args += [limit.requests, limit.rate, wanted(key, limit)]
            answers: list[int] = await script(keys=keys, args=[_json.encode(args)])
            return answers

        groups = [[requests[at] for at in group] for group in by_slot.values()]
        replies = await self.cache.call(lambda _: asyncio.gather(*map(call, groups)))
        if replies is None:
            for group in by_slot.values():
                for at in group:
                    waits[at] = self.local.take(requests[at])
            return waits
        for group, reply in zip(by_slot.values(), replies):
            position = 0
            for at in group:
                waits[at] = int(reply[position]) / 1000
                for key, _limit in requests[at]:
                    position += 1
                    self.ahead.keep(key, int(reply[position]) - 1, now)
                position += 1
        return waits
