"""A player's statistics counted again from their official runs in ``daily_runs``: what
the counters kept with each run stored (``GET /v1/players/me/stats``) must equal."""

from __future__ import annotations

import uuid
from typing import Any, NamedTuple

import asyncpg

from service.store.daily import PlayerCounters


class Recount(NamedTuple):
    played: int
    shut: int
    score_total: int
    best_possible_total: int
    scores: dict[int, int]

    @classmethod
    def of(cls, counters: PlayerCounters | None) -> Recount:
        """The store's counters in this shape (None: no official run)."""
        if counters is None:
            return cls(0, 0, 0, 0, {})
        return cls(
            counters.played,
            counters.shut,
            counters.score_total,
            counters.best_possible_total,
            counters.scores,
        )

    def figures(self) -> dict[str, Any]:
        """What ``GET /v1/players/me/stats`` answers of these counts (JSON), its streak
        left out."""
        played = self.played

        def mean(total: int) -> float | None:
            return total / played if played else None

        return {
            "played": played,
            "shut": self.shut,
            "shut_rate": mean(self.shut),
            "mean_score": mean(self.score_total),
            "mean_best_possible": mean(self.best_possible_total),
            "mean_cost": mean(self.score_total - self.best_possible_total),
            "distribution": {str(score): runs for score, runs in sorted(self.scores.items())},
        }


async def recount(
    database: asyncpg.Pool | asyncpg.Connection, player_ids: list[uuid.UUID]
) -> dict[uuid.UUID, Recount]:
    """Each player's official runs counted (a player without any: all zero)."""
    rows = await database.fetch(
        """SELECT player_id, score, count(*)::int AS runs, sum(best_possible)::bigint AS best
           FROM daily_runs WHERE player_id = ANY($1::uuid[]) GROUP BY player_id, score""",
        player_ids,
    )
    counted = {player_id: Recount(0, 0, 0, 0, {}) for player_id in player_ids}
    for row in rows:
        was = counted[row["player_id"]]
        counted[row["player_id"]] = Recount(
            played=was.played + row["runs"],
            shut=was.shut + (row["runs"] if row["score"] == 0 else 0),
            score_total=was.score_total + row["score"] * row["runs"],
            best_possible_total=was.best_possible_total + row["best"],
            scores={**was.scores, row["score"]: row["runs"]},
        )
    return counted
