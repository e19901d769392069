"""Issued sequences: their rules stored and cached as they always were for the earlier
variants, and every newer field kept."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime

import asyncpg
import msgspec
import pytest

from service.rules.ruleset import Rules
from service.store import sequences
from service.store.cache import Cache

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
DICE = ((3, 4), (6, 6), (1, 1), (1, 2), (2, 3), (5, 5), (6, 6), (1, 1), (2, 2), (3, 3))


@pytest.mark.parametrize(
    ("rules", "stored"),
    [
        (
            Rules(),
            {"tiles": 9, "start": None, "one_die": "never", "move_rule": "any", "scoring": "sum"},
        ),
        (
            Rules(start=(4, 5, 6, 7, 8, 9), one_die="high_closed", scoring="count"),
            {
                "tiles": 9, "start": [4, 5, 6, 7, 8, 9], "one_die": "high_closed",
                "move_rule": "any", "scoring": "count",
            },
        ),
        (
            Rules(move_rule="die_or_sum_both", total="sum_or_difference", first_must_close=2),
            {
                "tiles": 9, "start": None, "one_die": "never", "move_rule": "die_or_sum_both",
                "scoring": "sum", "total": "sum_or_difference", "first_must_close": 2,
            },
        ),
    ],
)  # fmt: skip
async def test_a_sequence_s_rules_are_stored_and_cached_with_only_the_fields_they_use(
    pool: asyncpg.Pool, rules: Rules, stored: dict[str, object]
) -> None:
    cache = Cache.connect(None, "t:")
    sequence_id = f"box/T{secrets.token_hex(6)}"
    try:
        issued = await sequences.create(pool, cache, sequence_id, rules, DICE, "test", NOW)
        assert issued is not None
        row = await pool.fetchval("SELECT rules FROM sequences WHERE id = $1", sequence_id)
        assert row == stored
        cached = await cache.get(sequences.cache_key(sequence_id))
        assert cached == msgspec.json.encode(
            {"id": sequence_id, "rules": stored, "dice": [list(r) for r in DICE]}
        )
        assert await sequences.stored(pool, cache, sequence_id) == issued
        await cache.delete(sequences.cache_key(sequence_id))
        assert await sequences.stored(pool, cache, sequence_id) == issued  # from PostgreSQL
    finally:
        await cache.close()
