"""Friend Box codes in the store: a code already taken is drawn again, never shared."""

from __future__ import annotations

from collections.abc import Iterator

import asyncpg
import pytest

from service.rules.ruleset import Rules
from service.store import boxes
from service.store.cache import Cache
from service.support.codes import new_code
from tests.integration.store.test_daily_batch import NOW, new_players


async def test_a_taken_code_is_drawn_again(
    pool: asyncpg.Pool, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = Cache.connect(None, "boxes:")
    (owner,) = await new_players(pool, 1)
    first, _ = await boxes.create(pool, cache, b"secret", owner, Rules(), NOW)
    fresh = new_code()
    drawn: Iterator[str] = iter([first, first, fresh])
    monkeypatch.setattr(boxes, "new_code", lambda: next(drawn))
    code, issued = await boxes.create(pool, cache, b"secret", owner, Rules(tiles=6), NOW)
    assert code == fresh and issued.rules == Rules(tiles=6)
    found = await boxes.box(pool, first)
    assert found is not None and found.sequence_id == f"box/{first}"  # untouched
    # A box whose code is free of sequences but taken by a box: drawn again too, and
    # the sequence made for it is rolled back.
    orphan = new_code()
    await pool.execute("UPDATE boxes SET code = $1 WHERE code = $2", orphan, fresh)
    later = new_code()
    drawn = iter([orphan, later])
    code, _ = await boxes.create(pool, cache, b"secret", owner, Rules(), NOW)
    assert code == later
    made = await pool.fetchval("SELECT count(*) FROM sequences WHERE id = $1", f"box/{orphan}")
    assert made == 0
