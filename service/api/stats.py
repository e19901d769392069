"""A player's statistics over their official daily runs: counters kept with each run
stored (``service.store.daily``), so reading them never reads the runs."""

from __future__ import annotations

from typing import Annotated, Final

import msgspec
from litestar import Controller, get
from msgspec import Meta

from service.api import problems
from service.api.deps import BEARER, PlayerDep, ServicesDep
from service.api.document import documented
from service.api.schemas import Streak, streak_out
from service.usecases import players
from service.usecases.players import Figures

_NO_RUN: Final = "null: no official run yet."


class PlayerStats(msgspec.Struct, frozen=True):
    """The player's figures over their official daily runs (not boxes, not practice)."""

    played: Annotated[int, Meta(description="The player's official daily runs.")]
    shut: Annotated[int, Meta(description="Those that shut the box (score 0).")]
    shut_rate: Annotated[
        float | None, Meta(description=f"The share of them that shut the box, 0..1; {_NO_RUN}")
    ]
    mean_score: Annotated[
        float | None, Meta(description=f"The mean score (lower is better); {_NO_RUN}")
    ]
    mean_best_possible: Annotated[
        float | None,
        Meta(
            description="The mean best possible score: the lowest any line of choices "
            f"reaches on each run's dice; {_NO_RUN}"
        ),
    ]
    mean_cost: Annotated[
        float | None,
        Meta(
            description="The mean of score - best_possible: what the player's choices cost "
            f"against the best possible on their dice (0: the best every time); {_NO_RUN}"
        ),
    ]
    distribution: Annotated[
        dict[int, int],
        Meta(
            description="How many official runs ended on each score (JSON object keys are "
            'strings: "0", "1", ...); scores no run ended on are left out ({} with no run).'
        ),
    ]
    streak: Annotated[Streak, Meta(description="The player's daily streak now.")]


def stats_out(figures: Figures) -> PlayerStats:
    return PlayerStats(
        played=figures.played,
        shut=figures.shut,
        shut_rate=figures.shut_rate,
        mean_score=figures.mean_score,
        mean_best_possible=figures.mean_best_possible,
        mean_cost=figures.mean_cost,
        distribution=figures.distribution,
        streak=streak_out(figures.streak),
    )


class StatsController(Controller):
    path = "/v1/players/me/stats"
    tags = ["Players"]

    @get(
        "/",
        operation_id="getMyStats",
        summary="The player's statistics over their official daily runs",
        description=(
            "Played, shut and shut rate, the mean score, best possible score and cost of the "
            "player's choices (score - best possible), the score distribution and the "
            "streak, over the official daily runs (not boxes, not practice). Kept as "
            "counters with each run stored: as cheap to read after ten years of play as "
            "after one day. With no official run: `played` 0, the means and the rate null."
        ),
        security=BEARER,
        responses=documented(problems.AUTHENTICATED),
    )
    async def stats(self, player: PlayerDep, services: ServicesDep) -> PlayerStats:
        return stats_out(await players.stats(services.pool, player, services.clock.now()))
