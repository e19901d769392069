"""Fair play by construction at scale: a worker's start-up and memory with a million
boxes stored are those with none (no process holds anything per box), and a box's dice
brought to the analysis get no hindsight figures.

    python -m benchmarks.fair_play [--boxes 1000000]

The service (``shutbox serve``, one worker, defaults otherwise) on a new database
(migrated by a first start), from spawn to its first ``200`` from ``/readyz``, and the
worker's RSS; then ``--boxes`` boxes put straight into the tables as the service stores
them (sequences and boxes, half of them boxes of a dealt Solo round, which every process
once held in memory), and the same again. One box is made through the API before: after
the second start its dice, brought to ``/v1/analyze``, are answered without hindsight.
Targets (issue 39): flat, at most 1.2x the time with none and at most 2 MiB more.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Final

import asyncpg
import httpx
import psutil

from benchmarks.processes import ADMIN_URL, Spawned, answers_ok, service_env
from tests.resources import HOST, free_port, throwaway_database
from tests.runs import legal_run

STARTUP_SECONDS: Final = 120.0

OWNER_SQL: Final = """
INSERT INTO players (id, name, time_zone, token_hash, created_at)
VALUES ('00000000-0000-4000-8000-000000000001', 'owner', 'UTC', sha256('x'), now())
"""
# $1 boxes of one owner: codes from their numbers, dice from a hash; every other one a
# box of a dealt round (its deal's id, the hints taken).
FILL_SQL: Final = """
WITH made AS (
    SELECT i, (SELECT string_agg(substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ',
                                        ((i >> (5 * k)) & 31)::int + 1, 1), '')
               FROM generate_series(0, 8) AS k) AS code
    FROM generate_series(1, $1) AS i
), sequences_made AS (
    INSERT INTO sequences (id, rules, dice, algorithm, issued_at)
    SELECT 'box/' || code, '{}'::jsonb,
           ARRAY(SELECT (1 + (hashint4(i * 20 + d) & 2147483647) % 6)::smallint
                 FROM generate_series(1, 20) AS d),
           CASE WHEN i % 2 = 0 THEN 'player-run' ELSE 'hmac-sha256-v1' END, now()
    FROM made
    RETURNING id, algorithm
)
INSERT INTO boxes (code, owner_id, sequence_id, created_at, from_run, deal_id, hints_used)
SELECT substr(id, 5), '00000000-0000-4000-8000-000000000001', id, now(),
       algorithm = 'player-run',
       CASE WHEN algorithm = 'player-run' THEN md5(id)::uuid END,
       CASE WHEN algorithm = 'player-run' THEN 0 END
FROM sequences_made
"""


class Service(Spawned):
    def __init__(self, env: dict[str, str], workers: int, log: Path) -> None:
        self.port = free_port()
        self.url = f"http://{HOST}:{self.port}"
        command = [sys.executable, "-m", "service.cli", "serve", "--host", HOST]
        command += ["--port", str(self.port), "--workers", str(workers)]
        started = time.perf_counter()
        super().__init__("server", command, env, log)
        ready = f"{self.url}/readyz"
        self.wait_until(
            lambda: answers_ok(ready), "the server did not start", STARTUP_SECONDS, 0.05
        )
        self.ready_after = time.perf_counter() - started

    def worker_rss_mib(self) -> float:
        workers = psutil.Process(self.pid).children()
        return max(w.memory_info().rss for w in workers) / 2**20


async def fill(url: str, boxes: int) -> None:
    connection = await asyncpg.connect(url)
    try:
        await connection.execute(OWNER_SQL)
        await connection.execute(FILL_SQL, boxes)
        await connection.execute("ANALYZE sequences; ANALYZE boxes")
    finally:
        await connection.close()


async def fresh(url: str, method: str, path: str, **kwargs: Any) -> httpx.Response:
    async with httpx.AsyncClient(base_url=url, timeout=60) as client:
        return await client.request(method, path, **kwargs)


async def new_box(url: str) -> list[list[int]]:
    player = (await fresh(url, "POST", "/v1/players", json={})).json()
    headers = {"Authorization": f"Bearer {player['token']}"}
    box = await fresh(url, "POST", "/v1/boxes", json={}, headers=headers)
    assert box.status_code == 201, box.text
    dice: list[list[int]] = box.json()["dice"]
    return dice


async def hindsight_given(url: str, dice: list[list[int]]) -> object:
    """What ``analysis.hindsight`` says of these dice brought to the analysis."""
    moves = legal_run(dice)
    response = await fresh(url, "POST", "/v1/analyze", json={"dice": dice, "moves": moves})
    assert response.status_code == 200, response.text
    given: object = response.json()["analysis"]["hindsight"]
    return given


def startup(boxes: int, scratch: Path) -> bool:
    with throwaway_database(ADMIN_URL, "shutbox_fair_play") as url:
        env = service_env(url, "", "fair-play:")
        del env["REDIS_URL"]  # the in-process cache: nothing learnt from Redis either
        first = Service(env, 1, scratch / "first.log")  # migrates the new database
        old_box = asyncio.run(new_box(first.url))
        first.stop()
        empty = Service(env, 1, scratch / "empty.log")
        empty_rss = empty.worker_rss_mib()
        empty.stop()
        started = time.perf_counter()
        asyncio.run(fill(url, boxes))
        print(f"{boxes:,} boxes stored in {time.perf_counter() - started:.0f} s")
        full = Service(env, 1, scratch / "full.log")
        hindsight = asyncio.run(hindsight_given(full.url, old_box))
        full_rss = full.worker_rss_mib()
        full.stop()
    ratio = full.ready_after / empty.ready_after
    more = full.ready_after - empty.ready_after
    print(
        f"   ready after: none {empty.ready_after:.2f} s, {boxes:,} boxes {full.ready_after:.2f} s"
    )
    print(f"   ratio {ratio:.2f} (target <= 1.2), {more:+.2f} s")
    grown = full_rss - empty_rss
    print(f"   worker RSS: {empty_rss:.1f} -> {full_rss:.1f} MiB ({grown:+.1f}, target <= +2)")
    print(f"   an old box's dice brought to the analysis: hindsight {hindsight} (target False)")
    return ratio <= 1.2 and grown <= 2 and hindsight is False


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--boxes", type=int, default=1_000_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        scratch = Path(directory)
        ok = startup(args.boxes, scratch)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
