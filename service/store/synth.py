"""Synthetic Daily Dice days for load tests and benchmarks: ``shutbox synth-day``.

A date is filled with N new players, each with a legal official run on that date's
dice (the turn Easy, Medium or Hard plays, Easy seeded per player from a pool of
seeds), submitted one after another through the day: rows exactly as submissions
leave them (the rank and streak as they stood, the date's counters, the players'
counters of their runs), written in bulk by the store's own insert
(``daily.insert_runs``, which counts the runs it stores), a chunk of runs to a
statement.
"""

from __future__ import annotations

import random
import secrets
import uuid
from collections.abc import Iterator
from datetime import UTC, date, datetime, time, timedelta
from typing import Final

import asyncpg

from service.rules.analysis import Hindsight
from service.rules.computers import EASY, HARD, MEDIUM, ComputerRun, play
from service.rules.dice import daily_sequence_id
from service.rules.ruleset import Rules
from service.rules.solver import solve
from service.store import daily, sequences
from service.store.cache import Cache
from service.store.daily import DailyRun
from service.store.db import QUERIES
from service.store.ranks import stored_histograms
from service.support.calendar import StreakRuns

CHUNK: Final = 20_000
EASY_SEEDS: Final = 1024
MAX_SCORE: Final = 128  # above any score of the standard rules (45)


class _Fenwick:
    """Counts of scores seen so far, with sums of the counts below a score in log time."""

    def __init__(self, size: int) -> None:
        self.tree = [0] * (size + 1)
        self.total = 0

    def add(self, score: int, count: int = 1) -> None:
        self.total += count
        i = score + 1
        while i < len(self.tree):
            self.tree[i] += count
            i += i & -i

    def below(self, score: int) -> int:
        total, i = 0, score
        while i > 0:
            total += self.tree[i]
            i -= i & -i
        return total


def computer_runs(day: date, issued: sequences.IssuedSequence, seed: int) -> list[ComputerRun]:
    """Medium's and Hard's turns on the date's dice, then Easy's with many seeds."""
    tables = solve(issued.rules)
    start = issued.rules.start_position
    runs = [play(tables, strategy, start, issued.dice, issued.id) for strategy in (MEDIUM, HARD)]
    runs += [play(tables, EASY, start, issued.dice, f"synth/{seed}/{n}") for n in range(EASY_SEEDS)]
    return runs


def _ids(day: date, count: int, seed: int) -> Iterator[tuple[uuid.UUID, uuid.UUID]]:
    """A player id and a run id for each synthetic player of ``day`` (repeatable per date
    and seed: two dates filled with one seed have players of their own)."""
    rng = random.Random(f"ids/{day.isoformat()}/{seed}")
    for _ in range(count):
        yield (
            uuid.UUID(int=rng.getrandbits(128), version=4),
            uuid.UUID(int=rng.getrandbits(128), version=4),
        )


async def synth_day(
    pool: asyncpg.Pool, cache: Cache, secret: bytes, day: date, runs: int, seed: int
) -> int:
    """Fill ``day`` with ``runs`` new players and their official runs; returns how many
    runs the date has now."""
    await daily.make_partitions(pool, day, day)
    start_of_day = datetime.combine(day, time(0), tzinfo=UTC)
    issued = await sequences.issue(
        pool, cache, secret, daily_sequence_id(day), Rules(), start_of_day
    )
    tables = solve(issued.rules)
    best_possible = Hindsight(tables, issued.dice).best(issued.rules.start_position, 0)
    played = computer_runs(day, issued, seed)
    moves = [[m.as_json() for m in run.moves] for run in played]
    rng = random.Random(f"choices/{seed}")
    # Half the players play like Easy (a random legal move), a fifth like Medium, the
    # rest like Hard.
    choices = [2 + rng.randrange(EASY_SEEDS) if rng.random() < 0.5 else int(rng.random() < 0.6)
               for _ in range(min(runs, 100_000))]  # fmt: skip
    counts = _Fenwick(MAX_SCORE)
    for score, players in (await stored_histograms(pool, [day]))[day].items():
        counts.add(score, players)
    spacing = timedelta(seconds=86_399) / max(runs, 1)
    ids = _ids(day, runs, seed)
    done = 0
    async with pool.acquire() as connection:
        while done < runs:
            size = min(CHUNK, runs - done)
            chunk: list[DailyRun] = []
            for n in range(done, done + size):
                run = played[choices[n % len(choices)]]
                score = run.score
                better = counts.below(score)
                worse = counts.total - counts.below(score + 1)
                counts.add(score)
                submitted_at = start_of_day + spacing * n
                player_id, run_id = next(ids)
                chunk.append(
                    DailyRun(
                        id=run_id,
                        player_id=player_id,
                        day=day,
                        moves=moves[choices[n % len(choices)]],
                        score=score,
                        best_possible=best_possible,
                        rank_better=better,
                        rank_worse=worse,
                        rank_players=counts.total,
                        streak_current=1,
                        streak_best=1,
                        streak_last_played=day,
                        played_today=True,
                        submitted_at=submitted_at,
                        streak_freezes=0,
                        weekly_current=1,
                        weekly_best=1,
                    )
                )
            async with connection.transaction():
                await connection.execute(
                    QUERIES.insert_players_bulk,
                    [run.player_id for run in chunk],
                    [None] * size,
                    ["UTC"] * size,
                    # Tokens nobody holds: synthetic players never sign in.
                    [secrets.token_bytes(32) for _ in chunk],
                    [run.submitted_at for run in chunk],
                )
                streaks = {run.player_id: StreakRuns(1, 1, day, 0, 1, 1) for run in chunk}
                await daily.insert_runs(connection, chunk, streaks)
            done += size
    return counts.total
