"""Fair play at scale: a worker's start-up and memory with a million boxes stored, and
the analyses of new boxes' dice across two workers.

    python -m benchmarks.fair_play [--boxes 1000000]

1. Start-up: the service (``shutbox serve``, one worker, defaults otherwise) on a new
   database (migrated by a first start), from spawn to its first ``200`` from
   ``/readyz``, and the worker's RSS;
   then ``--boxes`` boxes put straight into the tables (as the service stores them:
   sequences, boxes with their dice keys), and the same again. One box is made through
   the API before: right after the second start its dice must be refused (403).
   Targets (issue 27): at most 1.5x the time with none and at most 3 s more, at most
   32 MiB more.
2. No window: two workers; 20 boxes made one after the other, each followed at once by
   6 analyses of its dice in parallel, then 5 more at 0.2 s steps, each on a connection
   of its own (so both workers take part): 220 analyses, target: none answered 200.
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
# $1 boxes of one owner: codes from their numbers, dice from a hash, keys marked.
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
           'hmac-sha256-marked-v1', now()
    FROM made
    RETURNING id
)
INSERT INTO boxes (code, owner_id, sequence_id, created_at, dice_key, dice_key_marked)
SELECT substr(id, 5), '00000000-0000-4000-8000-000000000001', id, now(),
       hashint8(('x' || md5(id))::bit(64)::bigint), true
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


async def analyze(url: str, dice: list[list[int]]) -> int:
    moves = legal_run(dice)
    response = await fresh(url, "POST", "/v1/analyze", json={"dice": dice, "moves": moves})
    return response.status_code


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
        print(f"1. {boxes:,} boxes stored in {time.perf_counter() - started:.0f} s")
        full = Service(env, 1, scratch / "full.log")
        refused = asyncio.run(analyze(full.url, old_box))
        full_rss = full.worker_rss_mib()
        full.stop()
    ratio = full.ready_after / empty.ready_after
    more = full.ready_after - empty.ready_after
    print(
        f"   ready after: none {empty.ready_after:.2f} s, {boxes:,} boxes {full.ready_after:.2f} s"
    )
    print(f"   ratio {ratio:.2f} (target <= 1.5), {more:+.2f} s (target <= +3 s)")
    grown = full_rss - empty_rss
    print(f"   worker RSS: {empty_rss:.1f} -> {full_rss:.1f} MiB ({grown:+.1f}, target <= +32)")
    print(f"   an old box's dice right after start: {refused} (target 403)")
    return ratio <= 1.5 and more <= 3 and grown <= 32 and refused == 403


async def races(url: str) -> dict[int, int]:
    statuses: dict[int, int] = {}
    for _ in range(20):
        dice = await new_box(url)
        answers = list(await asyncio.gather(*(analyze(url, dice) for _ in range(6))))
        for _ in range(5):
            await asyncio.sleep(0.2)
            answers.append(await analyze(url, dice))
        for status in answers:
            statuses[status] = statuses.get(status, 0) + 1
    return statuses


def window(scratch: Path) -> bool:
    with throwaway_database(ADMIN_URL, "shutbox_fair_play") as url:
        env = service_env(url, "", "fair-play:")
        del env["REDIS_URL"]
        server = Service(env, 2, scratch / "two.log")
        try:
            statuses = asyncio.run(races(url=server.url))
        finally:
            server.stop()
    answered = statuses.get(200, 0)
    print(f"2. 220 analyses of 20 new boxes' dice on two workers: {dict(sorted(statuses.items()))}")
    print(f"   answered 200: {answered} (target 0)")
    return answered == 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--boxes", type=int, default=1_000_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        scratch = Path(directory)
        ok = startup(args.boxes, scratch)
        ok = window(scratch) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
