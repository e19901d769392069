"""Issued dice: derived on first issue, stored in PostgreSQL, cached from then on."""

from __future__ import annotations

from datetime import datetime

import msgspec

from service.rules.dice import ALGORITHM, derive_dice
from service.rules.ruleset import Roll, Rules
from service.store.cache import Cache
from service.store.db import QUERIES, Database


class IssuedSequence(msgspec.Struct, frozen=True):
    id: str
    rules: Rules
    dice: tuple[Roll, ...]


_decoder = msgspec.json.Decoder(IssuedSequence)
# A box is played for a while, then rarely: keep its dice in the caches for an hour.
CACHED_FOR_SECONDS = 3600


def cache_key(sequence_id: str) -> str:
    """A sequence's key in the cache; a date's (``daily/2026-11-29``) has the date as its
    hash tag, as every key of one date has on a Redis Cluster."""
    kind, _, name = sequence_id.partition("/")
    return f"{{{name}}}:sequence" if kind == "daily" else f"sequence:{sequence_id}"


def _rolls(flat: list[int]) -> tuple[Roll, ...]:
    return tuple((flat[i], flat[i + 1]) for i in range(0, len(flat), 2))


def _cached(issued: IssuedSequence) -> bytes:
    """An issued sequence as the cache keeps it: its rules as ``Rules.stored`` writes them,
    so that the sequences of earlier variants are cached byte for byte as before."""
    return msgspec.json.encode(
        {"id": issued.id, "rules": issued.rules.stored(), "dice": issued.dice}
    )


async def stored(database: Database, cache: Cache, sequence_id: str) -> IssuedSequence | None:
    """A sequence issued before (from the cache, else PostgreSQL), or None."""
    key = cache_key(sequence_id)
    cached = await cache.get(key)
    if cached is not None:
        return _decoder.decode(cached)
    row = await database.fetchrow(QUERIES.sequence_by_id, sequence_id)
    if row is None:
        return None
    issued = IssuedSequence(
        id=sequence_id, rules=msgspec.convert(row["rules"], Rules), dice=_rolls(row["dice"])
    )
    await cache.set(key, _cached(issued), expires_in=CACHED_FOR_SECONDS)
    return issued


async def issue(
    database: Database, cache: Cache, secret: bytes, sequence_id: str, rules: Rules, now: datetime
) -> IssuedSequence:
    """The sequence's stored dice; on first issue they are derived and stored (the
    first writer wins a race, so every process serves the same dice)."""
    found = await stored(database, cache, sequence_id)
    if found is not None:
        return found
    dice = derive_dice(secret, sequence_id, rules.rolls)
    created = await create(database, cache, sequence_id, rules, dice, ALGORITHM, now)
    if created is not None:
        return created
    issued = await stored(database, cache, sequence_id)  # another process issued it first
    assert issued is not None, "a sequence just stored must be found"
    return issued


async def create(
    database: Database,
    cache: Cache,
    sequence_id: str,
    rules: Rules,
    dice: tuple[Roll, ...],
    algorithm: str,
    now: datetime,
) -> IssuedSequence | None:
    """A new sequence of these dice (derived by ``algorithm``) under ``sequence_id``;
    None if that id was ever issued before."""
    flat = [d for roll in dice for d in roll]
    status = await database.execute(
        QUERIES.insert_sequence, sequence_id, rules.stored(), flat, algorithm, now
    )
    if status != "INSERT 0 1":
        return None
    issued = IssuedSequence(id=sequence_id, rules=rules, dice=dice)
    await cache.set(cache_key(sequence_id), _cached(issued), expires_in=CACHED_FOR_SECONDS)
    return issued
