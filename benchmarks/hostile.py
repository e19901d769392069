"""Hostile clients against a two-worker server: can one client exhaust the service?

    .venv/bin/python benchmarks/hostile.py [--seconds 10] [--clients 4] [--junk 3000]
        [--junk-clients 8] [--analyses 3000] [--slow 300] [--slow-seconds 25] [--workers 2]

Everything runs on loopback (127.0.0.1), bounded in count and time, and stops by
itself. The server is ``shutbox serve`` with two granian workers, a throwaway database
on the local PostgreSQL (created here, dropped at the end) and default settings
otherwise: no Redis (each worker keeps its own rate limits), the default rate limits
(a client over them gets 429, counted below as any other answer).

1. Variants: ``--clients`` clients cycle through every rules variant (tiles 2..12 x
   one die x move rule x scoring: 297, none solved yet) for ``--seconds``, each
   request a ``GET /v1/solution``, a ``POST /v1/hint`` or a ``POST /v1/analyze`` (a
   legal run on random dice, played greedily here: no solver in this process), while
   ``GET /healthz`` is sampled every 50 ms on a new connection each time (so both
   workers answer it). Printed: healthz p50, p99 and max (target: p99 ≤ 100 ms).
2. Junk: ``--junk`` Daily Dice paths with a long random segment (checked: no answer
   repeats it), then ``--analyses`` analyses over the variants in turn.
3. Malformed requests, each on a connection of its own, as bytes (no client library
   tidies them): junk methods (lower case too), NUL bytes in the method, the path (raw
   and %00) and header values, static paths the file system refuses, and Content-Type,
   Content-Length and Authorization given twice, on the routes answered before the
   framework and in it. Counted by status; a 5xx is a failure.
4. Slow bodies: ``--slow`` connections send their headers, then one byte of body every
   5 s; after ``--slow-seconds`` (target: none still open, each answered 408 once
   ``SHUTBOX_BODY_TIMEOUT``, 10 s by default, has passed).

5. Metrics (run first, while the client's address has its allowance): 300 requests
   with random junk methods on one connection (``/metrics`` must grow by less than
   20 KB), then 16 clients scraping ``/metrics`` (httpx, in a process of their own) as
   fast as they are answered, 200 or 429, for ``--seconds`` while ``/healthz`` is
   sampled as in 1 (target: p99 <= 50 ms).

Then the resident memory of each worker (psutil; target: the largest ≤ 200 MiB), and
of the solver processes the workers started. Every answer is counted by status.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import random
import secrets
import statistics
import string
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any, Final

import httpx
import psutil

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.processes import ADMIN_URL, Spawned, answers_ok
from service.rules import ruleset
from service.rules.ruleset import Roll, Rules
from tests.resources import HOST, free_port, throwaway_database
from tests.runs import JsonMove, legal_run

# What the service must hold to under attack.
TARGET_P99_MS: Final = 100.0
METRICS_P99_MS: Final = 50.0
TARGET_RSS_MIB: Final = 200.0

# How the attack runs: the health probe's period, the start-up wait.
HEALTH_EVERY: Final = 0.05
STARTUP_SECONDS: Final = 60.0
VARIANTS: Final = tuple(
    Rules(tiles=tiles, one_die=one_die, move_rule=move_rule, scoring=scoring)
    for tiles in range(2, 13)
    for one_die in ruleset.ONE_DIE_VALUES
    for move_rule in ruleset.MOVE_RULE_VALUES
    for scoring in ruleset.SCORING_VALUES
)


def rules_body(rules: Rules) -> dict[str, Any]:
    """The rules as a request gives them: the fields ``Rules.stored`` keeps, none null."""
    return {field: value for field, value in rules.stored().items() if value is not None}


def greedy_run(rules: Rules, rng: random.Random) -> tuple[list[Roll], list[JsonMove]]:
    """Random dice and a legal run on them, the first choice each roll (``tests.runs.first``)."""
    dice: list[Roll] = [(rng.randint(1, 6), rng.randint(1, 6)) for _ in range(rules.rolls)]
    return dice, legal_run(dice, rules)


def request_for(rules: Rules, kind: int, rng: random.Random) -> tuple[str, str, dict[str, Any]]:
    """One of the three requests that need a variant's tables: method, path, arguments."""
    if kind == 0:
        return "GET", "/v1/solution", {"params": rules_body(rules)}
    if kind == 1:
        body = {"rules": rules_body(rules), "open": list(range(1, rules.tiles + 1)), "roll": [3, 4]}
        return "POST", "/v1/hint", {"json": body}
    dice, moves = greedy_run(rules, rng)
    body = {"rules": rules_body(rules), "dice": [list(r) for r in dice], "moves": moves}
    return "POST", "/v1/analyze", {"json": body}


def fresh_connections(url: str) -> httpx.AsyncClient:
    """A client that opens a connection per request, so that both workers take turns."""
    limits = httpx.Limits(max_keepalive_connections=0)
    return httpx.AsyncClient(base_url=url, timeout=30, limits=limits)


async def cycle_variants(
    url: str, deadline: float, offset: int, statuses: Counter[str], rng: random.Random
) -> None:
    order = VARIANTS[offset:] + VARIANTS[:offset]
    async with fresh_connections(url) as client:
        for n, rules in enumerate(itertools.cycle(order)):
            if time.monotonic() >= deadline:
                return
            method, path, arguments = request_for(rules, n % 3, rng)
            try:
                answer = await client.request(method, path, **arguments)
                statuses[f"{path} {answer.status_code}"] += 1
            except httpx.HTTPError as error:
                statuses[f"{path} {type(error).__name__}"] += 1


async def sample_health(url: str, deadline: float, latencies: list[float]) -> Counter[int]:
    statuses: Counter[int] = Counter()
    async with fresh_connections(url) as client:
        while time.monotonic() < deadline:
            started = time.perf_counter()
            answer = await client.get("/healthz")
            latencies.append((time.perf_counter() - started) * 1000)
            statuses[answer.status_code] += 1
            await asyncio.sleep(max(0.0, HEALTH_EVERY - (time.perf_counter() - started)))
    return statuses


def latency_line(latencies: list[float], target_ms: float) -> str:
    p50 = statistics.median(latencies)
    p99 = statistics.quantiles(latencies, n=100)[98]
    verdict = "ok" if p99 <= target_ms else "OVER TARGET"
    return (
        f"/healthz: {len(latencies)} samples, p50 {p50:.1f} ms, p99 {p99:.1f} ms, "
        f"max {max(latencies):.1f} ms (target p99 <= {target_ms:.0f} ms: {verdict})"
    )


async def metrics_phase(url: str, seconds: float) -> None:
    async with httpx.AsyncClient(base_url=url, timeout=30) as client:
        first = await client.get("/metrics")
        assert first.status_code == 200, first.text
        rng = random.Random(5)
        for _ in range(300):
            method = "".join(rng.choices(string.ascii_uppercase, k=24))
            await client.request(method, "/v1/daily/2026-11-29")
        last = await client.get("/metrics")
        assert last.status_code == 200, last.text
        grown = len(last.content) - len(first.content)
    verdict = "ok" if grown < 20_000 else "OVER TARGET"
    print("\n5. 300 junk methods on one connection")
    print(f"   /metrics grew by {grown:,} bytes (target < 20,000: {verdict})")
    # The scrapers in a process of their own, as a crowd of them would be: in this one,
    # their client's own work would delay the samples.
    latencies: list[float] = []
    root = str(Path(__file__).resolve().parents[1])
    scrapers = subprocess.Popen(
        [sys.executable, "-c", f"import benchmarks.hostile as h; h.scrape({url!r}, {seconds})"],
        stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": root},
    )  # fmt: skip
    await asyncio.sleep(1)  # the scrapers under way
    health = await sample_health(url, time.monotonic() + seconds - 2, latencies)
    scraped = scrapers.communicate()[0].strip()
    print(f"   16 clients scraping /metrics for {seconds:.0f} s: {scraped}")
    print(f"   {latency_line(latencies, METRICS_P99_MS)}; statuses {dict(health)}")


def scrape(url: str, seconds: float, clients: int = 16) -> None:
    """``clients`` clients scraping ``/metrics`` one request after another for
    ``seconds``; prints the answers by status."""
    statuses: Counter[int] = Counter()
    deadline = time.monotonic() + seconds

    async def one() -> None:
        async with httpx.AsyncClient(base_url=url, timeout=30) as client:
            while time.monotonic() < deadline:
                statuses[(await client.get("/metrics")).status_code] += 1

    async def crowd() -> None:
        await asyncio.gather(*(one() for _ in range(clients)))

    asyncio.run(crowd())
    print(dict(statuses))


async def variants_phase(url: str, seconds: float, clients: int) -> None:
    deadline = time.monotonic() + seconds
    statuses: Counter[str] = Counter()
    latencies: list[float] = []
    stride = len(VARIANTS) // clients
    health, *_ = await asyncio.gather(
        sample_health(url, deadline, latencies),
        *(
            cycle_variants(url, deadline, n * stride, statuses, random.Random(n))
            for n in range(clients)
        ),
    )
    print(f"\n1. {clients} clients cycling {len(VARIANTS)} variants for {seconds:.0f} s")
    print(f"   {latency_line(latencies, TARGET_P99_MS)}; statuses {dict(health)}")
    print_statuses(statuses)


def junk_segment(rng: random.Random) -> str:
    alphabet = string.ascii_letters + string.digits + "-._~"
    return "".join(rng.choices(alphabet, k=rng.randint(200, 2000)))


async def junk_phase(url: str, junk: int, analyses: int, clients: int) -> None:
    statuses: Counter[str] = Counter()
    echoed = 0
    rng = random.Random(7)
    queue = iter(range(junk))

    async def junk_dates() -> None:
        nonlocal echoed
        async with httpx.AsyncClient(base_url=url, timeout=30) as client:
            for _ in queue:
                segment = junk_segment(rng)
                try:
                    answer = await client.get(f"/v1/daily/{segment}")
                except httpx.HTTPError as error:
                    statuses[f"/v1/daily/<junk> {type(error).__name__}"] += 1
                    continue
                statuses[f"/v1/daily/<junk> {answer.status_code}"] += 1
                echoed += segment[:40] in answer.text

    await asyncio.gather(*(junk_dates() for _ in range(clients)))
    turns = iter(range(analyses))

    async def analyse() -> None:
        async with fresh_connections(url) as client:
            for n in turns:
                _, path, arguments = request_for(VARIANTS[n % len(VARIANTS)], 2, rng)
                try:
                    answer = await client.post(path, **arguments)
                    statuses[f"{path} {answer.status_code}"] += 1
                except httpx.HTTPError as error:
                    statuses[f"{path} {type(error).__name__}"] += 1

    await asyncio.gather(*(analyse() for _ in range(clients)))
    print(f"\n2. {junk} junk Daily Dice paths, then {analyses} analyses over the variants")
    print(f"   answers repeating the junk segment: {echoed}")
    print_statuses(statuses)


MALFORMED_BODY: Final = b'{"dice": [[3, 4]], "moves": []}'


def malformed_requests() -> list[tuple[str, bytes]]:
    """(what, request bytes) of requests no client library would send."""
    json_type = b"Content-Type: application/json\r\n"
    length = b"Content-Length: %d\r\n" % len(MALFORMED_BODY)
    chunked = b"Transfer-Encoding: chunked\r\n"
    chunks = b"%x\r\n%s\r\n0\r\n\r\n" % (len(MALFORMED_BODY), MALFORMED_BODY)
    found: list[tuple[str, bytes]] = []

    def request(what: str, line: bytes, headers: bytes = b"", body: bytes = b"") -> None:
        head = line + b" HTTP/1.1\r\nHost: shutbox\r\nConnection: close\r\n" + headers
        found.append((what, head + b"\r\n" + body))

    for method in (b"FOO", b"get", b"Post", b"BREW", b"M-SEARCH", b"X" * 300, b"G\x00T", b"\x00"):
        for path in (b"/v1/analyze", b"/v1/daily/2026-11-29", b"/play/app.js", b"/healthz"):
            request(f"method {method[:8]!r} {path.decode()}", method + b" " + path)
    for path in (
        b"/play/app.js%00",
        b"/play/%00",
        b"/play/app.js\x00",
        b"/play/" + b"x" * 300,
        b"/play/app.js/index.html",
        b"/play/%ED%A0%80",
        b"/v1/daily/2026-11-29%00",
        b"/v1/analyze%00",
    ):
        for method in (b"GET", b"HEAD"):
            request(f"{method.decode()} {path[:24]!r}", method + b" " + path)
    for header in (
        b"Authorization: Bearer a\x00b",
        b"X-Request-ID: \x00",
        b"Accept-Language: \x00",
    ):
        request(f"NUL in {header.split(b':')[0].decode()}", b"GET /v1/players/me", header + b"\r\n")
    repeats = {
        "two Content-Types": b"Content-Type: text/plain\r\n" + json_type,
        "two Authorizations": json_type + b"Authorization: Bearer a\r\nAuthorization: Bearer b\r\n",
        "two equal Content-Lengths": json_type + length,
        "two Content-Lengths": json_type + b"Content-Length: 1\r\n",
    }
    for what, headers in repeats.items():
        for path in (b"/v1/analyze", b"/v1/players", b"/v1/daily/2026-11-29/runs"):
            request(f"{what}, {path.decode()}", b"POST " + path, headers + length, MALFORMED_BODY)
            if "Length" not in what:
                request(
                    f"{what}, chunked, {path.decode()}", b"POST " + path, headers + chunked, chunks
                )
    return found


async def answer_of(url: str, request: bytes) -> str:
    """The status line's code of the answer to ``request``, or why there is none."""
    host, port = url.removeprefix("http://").split(":")
    try:
        reader, writer = await asyncio.open_connection(host, int(port))
    except OSError as error:
        return type(error).__name__
    try:
        writer.write(request)
        await writer.drain()
        line = await asyncio.wait_for(reader.readline(), 30)
        return line.split(b" ")[1].decode() if line.startswith(b"HTTP/") else "no answer"
    except (OSError, TimeoutError) as error:
        return type(error).__name__
    finally:
        writer.close()


async def malformed_phase(url: str) -> None:
    requests = malformed_requests()
    statuses: Counter[str] = Counter()
    failures = []
    for what, request in requests:
        status = await answer_of(url, request)
        statuses[status] += 1
        if status.startswith("5") or status == "no answer":
            failures.append(f"   {what}: {status}")
    print(f"\n3. {len(requests)} malformed requests: answers {dict(sorted(statuses.items()))}")
    print("\n".join(failures) if failures else "   no 5xx (target: none): ok")


async def slow_bodies_phase(url: str, connections: int, seconds: float) -> None:
    host, port = url.removeprefix("http://").split(":")
    head = (
        b"POST /v1/analyze HTTP/1.1\r\nHost: shutbox\r\nContent-Type: application/json\r\n"
        b"Content-Length: 1000\r\n\r\n"
    )
    outcomes: Counter[str] = Counter()

    async def trickle() -> None:
        try:
            reader, writer = await asyncio.open_connection(host, int(port))
        except OSError as error:
            outcomes[f"not opened: {type(error).__name__}"] += 1
            return
        deadline = time.monotonic() + seconds
        answer = b""
        try:
            writer.write(head + b"{")
            while time.monotonic() < deadline:
                try:
                    chunk = await asyncio.wait_for(reader.read(65536), 5)
                except TimeoutError:
                    if not answer:
                        writer.write(b" ")  # one byte of body every 5 s
                    continue
                if not chunk:
                    status = answer.split(b" ")[1].decode() if answer.startswith(b"HTTP/") else "-"
                    outcomes[f"answered {status} and closed"] += 1
                    return
                answer += chunk
            outcomes["still open"] += 1
        except OSError as error:
            outcomes[f"closed: {type(error).__name__}"] += 1
        finally:
            writer.close()

    await asyncio.gather(*(trickle() for _ in range(connections)))
    still = outcomes.get("still open", 0)
    verdict = "ok" if still == 0 else "OVER TARGET"
    print(f"\n4. {connections} slow bodies (a byte every 5 s), after {seconds:.0f} s")
    print(f"   still open: {still} (target: 0: {verdict})")
    print_statuses(outcomes)


def print_statuses(statuses: Counter[str]) -> None:
    for key, count in sorted(statuses.items()):
        print(f"   {key}: {count}")


def memory(server: Spawned) -> tuple[list[float], list[float]]:
    """RSS in MiB of the workers (the server's children) and of their solver processes."""
    workers = psutil.Process(server.pid).children()
    solvers = [p for worker in workers for p in worker.children(recursive=True)]
    mib = [w.memory_info().rss / 2**20 for w in workers]
    return sorted(mib), sorted(p.memory_info().rss / 2**20 for p in solvers)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=10.0, help="length of phase 1")
    parser.add_argument("--clients", type=int, default=4, help="clients cycling variants")
    parser.add_argument("--junk", type=int, default=3000, help="junk Daily Dice paths")
    parser.add_argument("--analyses", type=int, default=3000, help="analyses in phase 2")
    parser.add_argument("--junk-clients", type=int, default=8, help="clients in phase 2")
    parser.add_argument("--slow", type=int, default=300, help="slow-body connections")
    parser.add_argument("--slow-seconds", type=float, default=25.0, help="length of phase 4")
    parser.add_argument("--workers", type=int, default=2, help="server worker processes")
    args = parser.parse_args()

    port = free_port()
    url = f"http://{HOST}:{port}"
    command = [sys.executable, "-m", "service.cli", "serve", "--host", HOST, "--port", str(port)]
    command += ["--workers", str(args.workers)]
    with (
        throwaway_database(ADMIN_URL, "shutbox_hostile") as database_url,
        tempfile.TemporaryDirectory(prefix="shutbox-hostile-") as scratch,
    ):
        env = {
            **os.environ,
            "DATABASE_URL": database_url,
            "SHUTBOX_SECRET": secrets.token_urlsafe(16),
        }
        env.pop("REDIS_URL", None)
        # The request log at its default (INFO) goes to this file.
        server = Spawned("server", command, env, Path(scratch) / "server.log")
        try:
            failure = "hostile: the server did not become ready"
            ready = f"{url}/readyz"
            server.wait_until(lambda: answers_ok(ready), failure, STARTUP_SECONDS, every=0.2)
            before, solvers_before = memory(server)
            # First, while this client's address has its whole allowance: its scrapes
            # of /metrics are answered, not 429.
            asyncio.run(metrics_phase(url, args.seconds))
            asyncio.run(variants_phase(url, args.seconds, args.clients))
            asyncio.run(junk_phase(url, args.junk, args.analyses, args.junk_clients))
            asyncio.run(malformed_phase(url))
            asyncio.run(slow_bodies_phase(url, args.slow, args.slow_seconds))
            after, solvers_after = memory(server)
        finally:
            server.stop()
    verdict = "ok" if max(after) <= TARGET_RSS_MIB else "OVER TARGET"
    print("\nworker RSS MiB: before " + ", ".join(f"{m:.0f}" for m in before), end="")
    print("; after " + ", ".join(f"{m:.0f}" for m in after), end="")
    print(f" (target: the largest <= {TARGET_RSS_MIB:.0f} MiB: {verdict})")
    print(
        "solver processes RSS MiB: before "
        + (", ".join(f"{m:.0f}" for m in solvers_before) or "none")
        + "; after "
        + (", ".join(f"{m:.0f}" for m in solvers_after) or "none")
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
