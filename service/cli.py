"""The ``shutbox`` command line."""

from __future__ import annotations

import argparse
import atexit
import os
import shutil
import signal
import sys
import tempfile
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import Any

import msgspec

from service.rules.ruleset import (
    MOVE_RULE_VALUES,
    NEWER_FIELDS,
    ONE_DIE_CHOICE_VALUES,
    ONE_DIE_VALUES,
    SCORING_VALUES,
    TOTAL_VALUES,
    Rules,
)
from service.rules.solver import solution
from service.support.settings import Settings, SettingsError


def _tile_list(text: str) -> list[int]:
    try:
        return [int(part) for part in text.replace(",", " ").split()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of tiles: {text!r}") from None


def _rules_from(args: argparse.Namespace) -> Rules:
    start = [tile for chunk in args.start for tile in chunk] if args.start else None
    raw = {
        "tiles": args.tiles,
        "one_die": args.one_die,
        "move_rule": args.move_rule,
        "scoring": args.scoring,
        "start": start,
        "total": args.total,
        "one_die_choice": args.one_die_choice,
        "first_must_close": args.first_must_close,
        "stop_on_total": args.stop_on_total,
    }
    return msgspec.convert(raw, Rules)


def _solve(args: argparse.Namespace) -> int:
    try:
        rules = _rules_from(args)
    except msgspec.ValidationError as error:
        print(f"shutbox solve: {error}", file=sys.stderr)
        return 2
    figures = solution(rules)
    if args.json:
        sys.stdout.write(msgspec.json.encode(figures).decode() + "\n")
        return 0
    start = ", ".join(map(str, rules.start)) if rules.start else f"1..{rules.tiles}"
    print(
        f"Rules: {rules.tiles} tiles, start {start}, one die {rules.one_die}, "
        f"move rule {rules.move_rule}, scoring {rules.scoring}"
        + "".join(
            f", {name.replace('_', ' ')} {value}"
            for name, value in rules.stored().items()
            if name in NEWER_FIELDS
        )
    )
    print(f"Expected score under the optimum: {figures.expected_score:.4f}")
    print(f"Best shut chance:                 {figures.p_shut:.4%}")
    print(
        f"Hint policy (shut chance first):  {figures.hint_policy.p_shut:.4%} shut, "
        f"expected score {figures.hint_policy.expected_score:.4f}"
    )
    print("Final-score distribution under the optimum:")
    for score, probability in figures.distribution.items():
        print(f"  {score:>6}  {probability:8.4%}")
    return 0


def _metrics_directory(settings: Settings) -> str:
    """A new directory for the workers' metrics files (prometheus_client's multiprocess
    mode), removed at exit: in ``SHUTBOX_METRICS_DIR``, else in the temporary directory
    (``TMPDIR``, else ``/tmp``). It is the one place the service writes at start-up, so
    a read-only root filesystem works with a tmpfs there."""
    try:
        made = tempfile.mkdtemp(prefix="shutbox-metrics-", dir=settings.metrics_dir)
    except OSError as error:
        where = f"SHUTBOX_METRICS_DIR {settings.metrics_dir}" if settings.metrics_dir else "/tmp"
        raise SettingsError(
            f"{settings.workers} workers keep their metrics in files, but no directory for "
            f"them can be made in {where}: {error.strerror or error}. On a read-only root "
            "filesystem, mount a tmpfs at /tmp or name a writable directory in "
            "SHUTBOX_METRICS_DIR"
        ) from None
    atexit.register(shutil.rmtree, made, ignore_errors=True)
    return made


def _serve(args: argparse.Namespace) -> int:
    from granian import Granian
    from granian.constants import HTTPModes, Interfaces
    from granian.http import HTTP1Settings

    from service.store import embedded

    settings = Settings.from_env()
    overrides = {k: v for k in ("host", "port", "workers") if (v := getattr(args, k)) is not None}
    settings = embedded.resolve(msgspec.structs.replace(settings, **overrides))
    # The workers read the same settings from the environment, the embedded ones included.
    assert settings.database_url and settings.secret
    os.environ["DATABASE_URL"] = settings.database_url
    os.environ["SHUTBOX_SECRET"] = settings.secret
    os.environ["SHUTBOX_WORKERS"] = str(settings.workers)  # --workers too: the metrics say it
    if settings.workers > 1 and "PROMETHEUS_MULTIPROC_DIR" not in os.environ:
        try:
            os.environ["PROMETHEUS_MULTIPROC_DIR"] = _metrics_directory(settings)
        except SettingsError as error:
            print(f"shutbox serve: {error}", file=sys.stderr)
            return 2
    Granian(
        "service.app:create_app",
        factory=True,
        interface=Interfaces.ASGI,
        address=settings.host,
        port=settings.port,
        workers=settings.workers,
        backlog=2048,
        # A connection that has not sent its request headers in time is closed, so idle
        # and half-sent connections cannot pile up. HTTP/1 only: in the auto mode, a
        # connection that sends nothing at all waits for its first bytes with no timer.
        http=HTTPModes.http1,
        http1_settings=HTTP1Settings(header_read_timeout=round(settings.header_timeout * 1000)),
        # A worker that dies (killed, out of memory) is replaced, while the others go on
        # answering on the shared socket; one that dies again within 5.5 s of being
        # replaced is a crash loop, and stops the service (its supervisor restarts it).
        respawn_failed_workers=True,
        # SIGTERM (or SIGINT): the workers finish the requests in flight, and one still
        # running after this many seconds (stuck in its start-up, say) is killed.
        workers_kill_timeout=settings.stop_timeout,
    ).serve(target_loader=worker_app, wrap_loader=False)
    return 0


def worker_app() -> Any:
    """The app, made in a worker process (granian's loader), after SIGTERM and SIGINT
    get their default action back.

    A forked worker inherits the main process's handlers, which only flag the main
    process's loop: a SIGTERM the main process sent while the worker imported and made
    the app was swallowed, the worker went on to serve, and the main process waited for
    it forever. With the default action the signal ends the worker there (it serves
    nothing yet); granian's own handlers, set on the worker's event loop next, stop it
    gracefully from then on."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    from service.app import create_app
    from service.support import logs

    # Before the app is made: a worker that dies in its start-up is counted too.
    logs.worker_started(Settings.from_env().workers)
    return create_app()


def _migrate(args: argparse.Namespace) -> int:
    import asyncio

    import asyncpg

    from service.store import embedded
    from service.store.db import migrate

    settings = embedded.resolve(Settings.from_env())

    async def run() -> list[int]:
        connection = await asyncpg.connect(settings.database_url)
        try:
            return await migrate(connection)
        finally:
            await connection.close()

    applied = asyncio.run(run())
    print(f"applied migrations: {applied}" if applied else "the schema is up to date")
    return 0


def _synth_day(args: argparse.Namespace) -> int:
    import asyncio
    import time

    from service.store import embedded
    from service.store.cache import Cache
    from service.store.db import create_pool, migrate
    from service.store.synth import synth_day

    settings = embedded.resolve(Settings.from_env())
    assert settings.database_url is not None

    async def run() -> int:
        pool = await create_pool(settings.database_url or "", statement_timeout=0)
        cache = Cache.connect(None, settings.redis_prefix)
        try:
            async with pool.acquire() as connection:
                await migrate(connection)
            return await synth_day(
                pool, cache, settings.secret_bytes, args.date, args.runs, args.seed
            )
        finally:
            await pool.close()

    started = time.perf_counter()
    total = asyncio.run(run())
    elapsed = time.perf_counter() - started
    print(f"{args.date}: {args.runs} runs added in {elapsed:.1f} s; the date has {total} runs")
    return 0


def openapi_document() -> bytes:
    """The OpenAPI document generated from the app, as committed in ``openapi/``."""
    import json

    from service.app import create_app

    # The document does not depend on where the data lives: nothing connects here.
    app = create_app(Settings(database_url="postgresql://unused", secret="unused"))
    schema = app.openapi_schema.to_schema()
    return (json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()


def _openapi(args: argparse.Namespace) -> int:
    document = openapi_document()
    if args.output == "-":
        sys.stdout.buffer.write(document)
    else:
        Path(args.output).write_bytes(document)
        print(f"wrote {args.output}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="shutbox", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    solve = commands.add_parser("solve", help="exact figures of a rules variant's start position")
    solve.add_argument("--tiles", type=int, default=9, help="tiles 1..N (2..12, default 9)")
    solve.add_argument("--one-die", choices=ONE_DIE_VALUES, default="never")
    solve.add_argument("--move-rule", choices=MOVE_RULE_VALUES, default="any")
    solve.add_argument("--scoring", choices=SCORING_VALUES, default="sum")
    solve.add_argument(
        "--start", type=_tile_list, nargs="+", help="tiles open at the start, e.g. 4,5,6,7,8,9"
    )
    solve.add_argument("--total", choices=TOTAL_VALUES, default="sum")
    solve.add_argument("--one-die-choice", choices=ONE_DIE_CHOICE_VALUES, default="optional")
    solve.add_argument(
        "--first-must-close", type=int, help='a tile the first move must close ("2 to go")'
    )
    solve.add_argument(
        "--stop-on-total", type=int, help='a total that ends the turn when rolled ("Unlucky 7")'
    )
    solve.add_argument("--json", action="store_true", help="print the figures as JSON")
    solve.set_defaults(handler=_solve)

    serve = commands.add_parser("serve", help="run the HTTP service under granian")
    serve.add_argument("--host", help="address to listen on (env SHUTBOX_HOST)")
    serve.add_argument("--port", type=int, help="port (env SHUTBOX_PORT)")
    serve.add_argument("--workers", type=int, help="worker processes (env SHUTBOX_WORKERS)")
    serve.set_defaults(handler=_serve)

    migrate = commands.add_parser("migrate", help="apply the database migrations")
    migrate.set_defaults(handler=_migrate)

    synth = commands.add_parser(
        "synth-day", help="fill a date with synthetic players' official runs (load tests)"
    )
    synth.add_argument("date", type=date.fromisoformat, help="the date, YYYY-MM-DD")
    synth.add_argument("--runs", type=int, required=True, help="how many players and runs")
    synth.add_argument("--seed", type=int, default=0, help="the same seed, the same runs")
    synth.set_defaults(handler=_synth_day)

    openapi = commands.add_parser("openapi", help="write the OpenAPI document")
    openapi.add_argument("--output", default="openapi/openapi.json", help="a path, or - for stdout")
    openapi.set_defaults(handler=_openapi)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.handler(args))


if __name__ == "__main__":
    sys.exit(main())
