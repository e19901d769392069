"""Instructions per request in the service's own process, counted by valgrind.

    .venv/bin/python benchmarks/instructions.py [--what runs|analyze|feed|streak] [--few N]
        [--many N] [--way front|framework] [--postgres URL] [--redis URL]

Served throughput on a shared machine drifts by a third within minutes: an A/B of a
change worth 10% needs many alternated pairs (``http_bench.py``). The instructions a
process executes do not drift: this counts them with callgrind, for the app called
straight over ASGI in one process (its lifespan included), against a real PostgreSQL
(a throwaway database) and Redis (a key prefix of its own), at the defaults: request
log at INFO, rate limits on at a limit no request here reaches.

The app serves ``--few`` requests one at a time, then, in another process on another
new database, ``--many``; each process under callgrind. What one request costs is the
difference divided by the difference in requests: the start-up (imports, migrations,
the solver's tables) falls out. One at a time, a request is a batch of its own: this
measures what a request costs the service's process, not what batching saves under
load, and nothing of what PostgreSQL, Redis or the HTTP server spend.

- ``runs``: ``POST /v1/daily/{today}/runs``, each a new player's first official run
  (the runs of ``http_bench.daily_run_bodies`` in turn), the players inserted straight
  into the database;
- ``analyze``: ``POST /v1/analyze``, the analyze bodies of ``http_bench.py`` in turn;
- ``feed``: ``GET /v1/daily/{today}``, the Daily Dice (its answer kept after the first);
- ``streak``: ``GET /v1/players/me/streak``, each a new player's: a player's read (its
  token looked up, a row read by key), as the streak, the friends' board and the share
  text are.

``--way framework`` takes every request the framework's way (the app with no hot
routes: no answer before the framework): the difference from ``--way front`` (the
default, the product's) is what answering before the framework saves a request.

Needs valgrind (Debian: ``apt-get install -y valgrind``). Prints the counts of both
processes and the instructions per request.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.http_bench import analyze_bodies, daily_run_bodies, redis_prefix
from benchmarks.processes import ADMIN_URL, ROOT, insert_players, positive, service_env
from tests.resources import throwaway_database

WARM_UP: Final = 20  # requests before the count begins to matter (caches, plans)
_COLLECTED: Final = re.compile(r"Collected : (\d+)")

Call = Callable[[str, str, bytes, list[tuple[bytes, bytes]]], Awaitable[tuple[int, bytes]]]


async def _serve(what: str, count: int, way: str) -> None:
    """In this process: the app started, ``WARM_UP`` requests, then ``count`` more."""
    from service.app import App, create_app
    from service.support.clock import SystemClock
    from service.support.settings import Settings

    app = create_app(Settings.from_env(), SystemClock())
    assert isinstance(app, App)
    if way == "framework":
        app.hot_routes = ()
    inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    outbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    state: dict[str, Any] = {}
    await inbox.put({"type": "lifespan.startup"})
    lifespan = asyncio.create_task(
        app({"type": "lifespan", "asgi": {"version": "3.0"}, "state": state}, inbox.get, outbox.put)
    )
    started = await outbox.get()
    if started["type"] != "lifespan.startup.complete":
        raise SystemExit(f"instructions: the app did not start: {started.get('message')}")

    async def call(
        method: str, path: str, body: bytes, headers: list[tuple[bytes, bytes]]
    ) -> tuple[int, bytes]:
        if body:
            headers = [*headers, (b"content-type", b"application/json")]
            headers.append((b"content-length", str(len(body)).encode()))
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": method,
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": b"",
            "root_path": "",
            "headers": [(b"host", b"127.0.0.1:8000"), *headers],
            "client": ("127.0.0.1", 40000),
            "server": ("127.0.0.1", 8000),
            "state": dict(state),
        }
        received = False

        async def receive() -> dict[str, Any]:
            nonlocal received
            if received:
                await asyncio.Event().wait()  # no disconnect: the answer is whole
            received = True
            return {"type": "http.request", "body": body, "more_body": False}

        status, chunks = 0, []

        async def send(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            else:
                chunks.append(message.get("body", b""))

        await app(scope, receive, send)
        return status, b"".join(chunks)

    requests = await MADE[what](call, WARM_UP + count)
    for method, path, body, headers, expected in requests:
        status, answer = await call(method, path, body, headers)
        if status != expected:
            raise SystemExit(f"instructions: {method} {path} answered {status}: {answer[:300]!r}")
    await inbox.put({"type": "lifespan.shutdown"})
    await outbox.get()
    await lifespan


Request = tuple[str, str, bytes, list[tuple[bytes, bytes]], int]


async def _runs(call: Call, count: int) -> list[Request]:
    today = datetime.now(UTC).date().isoformat()
    status, dice = await call("GET", f"/v1/daily/{today}", b"", [])
    if status != 200:
        raise SystemExit(f"instructions: GET /v1/daily/{today} answered {status}")
    bodies = daily_run_bodies(dice)
    url = os.environ["DATABASE_URL"]
    tokens = await asyncio.to_thread(insert_players, url, count, datetime.now(UTC), "UTC")
    path = f"/v1/daily/{today}/runs"
    return [
        ("POST", path, bodies[n % len(bodies)], [(b"authorization", f"Bearer {t}".encode())], 201)
        for n, t in enumerate(tokens)
    ]


async def _analyses(call: Call, count: int) -> list[Request]:
    bodies = analyze_bodies(32)
    return [("POST", "/v1/analyze", bodies[n % len(bodies)], [], 200) for n in range(count)]


async def _streaks(call: Call, count: int) -> list[Request]:
    url = os.environ["DATABASE_URL"]
    tokens = await asyncio.to_thread(insert_players, url, count, datetime.now(UTC), "UTC")
    path = "/v1/players/me/streak"
    return [("GET", path, b"", [(b"authorization", f"Bearer {t}".encode())], 200) for t in tokens]


async def _feeds(call: Call, count: int) -> list[Request]:
    today = datetime.now(UTC).date().isoformat()
    return [("GET", f"/v1/daily/{today}", b"", [], 200)] * count


MADE: Final = {"runs": _runs, "analyze": _analyses, "feed": _feeds, "streak": _streaks}
FIXED_SECRET: Final = "instructions-benchmark-secret-of-32-characters-at-least"


def counted(what: str, count: int, args: argparse.Namespace, scratch: Path) -> int:
    """The instructions of a process that serves ``count`` requests (and the warm-up)."""
    with (
        throwaway_database(args.postgres, "shutbox_instr") as db_url,
        redis_prefix(args.redis) as prefix,
    ):
        # The same dice and the same hashes in every process: a count that moves between
        # two runs of one tree is then the code's, not the dice's (a random secret moved
        # the counts of one tree by several per cent).
        env = service_env(db_url, args.redis, prefix, secret=FIXED_SECRET)
        env["PYTHONHASHSEED"] = "0"
        out = scratch / f"callgrind.{what}.{count}"
        command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
        command += [sys.executable, __file__, "--serve", what, str(count), args.way]
        done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True)
        found = _COLLECTED.findall(done.stderr)
        if done.returncode != 0 or not found:
            raise SystemExit(f"instructions: {' '.join(command)} failed:\n{done.stderr[-3000:]}")
        return int(found[-1])


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--what", choices=tuple(MADE), default="runs")
    parser.add_argument("--way", choices=("front", "framework"), default="front")
    parser.add_argument("--few", type=positive, default=50, help="requests of the first count")
    parser.add_argument("--many", type=positive, default=250, help="requests of the second")
    parser.add_argument("--postgres", default=ADMIN_URL, help="a role that creates databases")
    parser.add_argument("--redis", default=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
    parser.add_argument("--serve", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve is None and args.many <= args.few:
        parser.error("--many must be more than --few")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.serve is not None:
        what, count, way = args.serve
        asyncio.run(_serve(what, int(count), way))
        return 0
    with tempfile.TemporaryDirectory(prefix="shutbox-instructions-") as scratch:
        few = counted(args.what, args.few, args, Path(scratch))
        many = counted(args.what, args.many, args, Path(scratch))
    per_request = (many - few) / (args.many - args.few)
    what = f"{args.what} ({args.way})"
    print(f"{what}: {args.few} requests: {few:,} instructions; {args.many}: {many:,}")
    print(f"{what}: {per_request:,.0f} instructions a request (the difference, divided)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
