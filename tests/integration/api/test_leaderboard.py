"""The leaderboard is read from one snapshot: a run committed while it is being read is
in all of it or in none of it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import date
from typing import Any

import asyncpg
import httpx
import pytest

from service.store import db
from tests.integration.api.helpers import insert_run, new_player

DAY = "2026-11-20"  # closed everywhere at the clock's now: the leaderboard is public


async def insert_counted_run(database_url: str, player_id: str, score: int) -> None:
    """A run of DAY committed with its date's counter on a connection of its own (what
    another process does)."""
    connection = await asyncpg.connect(database_url)
    try:
        async with connection.transaction():
            await insert_run(connection, player_id, DAY, score)
            await connection.execute(
                """INSERT INTO day_scores AS s (day, score, shard, players) VALUES ($1, $2, 0, 1)
                   ON CONFLICT (day, score, shard) DO UPDATE SET players = s.players + 1""",
                date.fromisoformat(DAY),
                score,
            )
    finally:
        await connection.close()


@pytest.mark.parametrize("redis_mode", ["no-redis"], indirect=True)
async def test_a_run_committed_mid_read_never_breaks_the_leaderboard(
    client: httpx.AsyncClient,
    database_url: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert (await client.get(f"/v1/daily/{DAY}")).status_code == 200  # the dice are issued
    players = [await new_player(client, name=f"L{i}") for i in range(4)]
    for player, score in zip(players[:3], (12, 20, 20), strict=True):
        await insert_counted_run(database_url, player["id"], score)
    late = players[3]

    # Right after the first read of the date's runs, a better run is committed.
    committed: list[int] = []

    def after_first_read(method: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        async def read(self: db.Pool, query: str, *args: Any, **kwargs: Any) -> Any:
            result = await method(self, query, *args, **kwargs)
            reads_runs = any(name in query for name in ("daily_runs", "day_scores", "leaderboard"))
            if reads_runs and not committed:
                await insert_counted_run(database_url, late["id"], 3)
                committed.append(3)
            return result

        return read

    for name in ("fetch", "fetchrow", "fetchval"):
        monkeypatch.setattr(db.Pool, name, after_first_read(getattr(db.Pool, name)))
    response = await client.get(f"/v1/daily/{DAY}/leaderboard")
    monkeypatch.undo()

    assert committed, "the leaderboard read no runs"
    assert response.status_code == 200, response.text
    board = response.json()
    histogram = {int(score): players for score, players in board["histogram"].items()}
    assert board["players"] == sum(histogram.values())
    for entry in board["top"]:
        assert entry["score"] in histogram
        assert entry["rank"] == 1 + sum(n for s, n in histogram.items() if s < entry["score"])
    assert len(board["top"]) == board["players"]  # fewer than the limit: the whole day

    # Read again, the late run is in all of it.
    again = (await client.get(f"/v1/daily/{DAY}/leaderboard")).json()
    assert again["players"] == 4 and again["histogram"] == {"3": 1, "12": 1, "20": 2}
    assert [(e["rank"], e["score"]) for e in again["top"]] == [(1, 3), (2, 12), (3, 20), (3, 20)]
