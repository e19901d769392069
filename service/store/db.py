"""The PostgreSQL pool, the numbered migrations in ``sql/migrations``, the functions in
``sql/functions`` and the named queries in ``sql/queries``."""

from __future__ import annotations

import functools
import hashlib
import logging
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, TypeAlias, TypeVar

import asyncpg
import msgspec
from asyncpg.pool import PoolConnectionProxy

log = logging.getLogger("shutbox.db")

Connection: TypeAlias = asyncpg.Connection | PoolConnectionProxy
Database: TypeAlias = asyncpg.Pool | Connection
"""Where a query can run: the pool, or a connection (inside a transaction, say)."""

S = TypeVar("S", bound=msgspec.Struct)
T = TypeVar("T")


def row_as(kind: type[S], row: asyncpg.Record) -> S:
    """The struct of a row: its columns named as the struct's fields (others left)."""
    return kind(**{name: row[name] for name in kind.__struct_fields__})


UNAVAILABLE: Final = (
    asyncpg.PostgresConnectionError,  # the connection failed or is gone
    asyncpg.exceptions.OperatorInterventionError,  # shutting down, cannot connect now
    asyncpg.TooManyConnectionsError,
    asyncpg.InterfaceError,  # e.g. a pool connection closed under us
    # A connection the server ended while it was idle: PostgreSQL shutting down (or a
    # backend terminated) says so to every session, and asyncpg, which expects no
    # message there, puts the connection in a state that waits for the end of a query
    # it never sent ("cannot switch to state 12; another operation (2) is in progress").
    # It is closed as soon as asyncpg reads the end of the socket, and the pool connects
    # anew; a request that took it from the pool meanwhile meets this error.
    asyncpg.InternalClientError,
    OSError,  # refused, unreachable, socket gone, timed out
)
"""The errors of a database that cannot be reached now (a 503, not a bug)."""

TIMED_OUT: Final = (asyncpg.QueryCanceledError,)
"""A statement the database cancelled, past its ``statement_timeout`` (a 503 of its own:
the database is there, but too slow now)."""


@asynccontextmanager
async def connection_of(database: Database) -> AsyncIterator[Connection]:
    """A connection to work on: the one given, or one from the pool for the while."""
    if isinstance(database, asyncpg.Pool):
        async with database.acquire() as connection:
            yield connection
    else:
        yield database


SQL_DIR: Final = Path(__file__).resolve().parents[2] / "sql"
# Any constant shared by every process of the service: migrations run one at a time.
MIGRATION_LOCK: Final = 0x5B0C_0001
_NAME = re.compile(r"^--\s*name:\s*(\w+)\s*$", re.M)


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str


def migrations() -> list[Migration]:
    """The numbered migrations, in order (``001_players.sql`` is version 1)."""
    found = []
    for path in sorted((SQL_DIR / "migrations").glob("*.sql")):
        number, _, name = path.stem.partition("_")
        found.append(Migration(int(number), name, path.read_text()))
    versions = [m.version for m in found]
    assert versions == list(range(1, len(found) + 1)), (
        f"migrations must be numbered 1..n: {versions}"
    )
    return found


class MigrationEdited(RuntimeError):
    """A migration applied to this database was changed since: refused, at start-up."""


def checksum(migration: Migration) -> str:
    """The SHA-256 of a migration's (or a function's) text, kept with it once applied."""
    return hashlib.sha256(migration.sql.encode()).hexdigest()


def functions() -> list[Migration]:
    """Today's definition of each function, a file each (``daily_batch_read.sql``), in
    name order (version 0: they are not numbered)."""
    return [
        Migration(0, path.stem, path.read_text())
        for path in sorted((SQL_DIR / "functions").glob("*.sql"))
    ]


async def migrate(connection: Connection) -> list[int]:
    """Apply the migrations not applied yet, each in its own transaction; safe when
    several processes start at once (an advisory lock). Returns the versions applied.

    Each applied migration's checksum is kept: one edited after it was applied is
    refused (``MigrationEdited``), since this database never ran what it says now; a
    change goes in a new migration. Migrations applied before checksums were kept get
    theirs at the next start.

    First, each function of ``sql/functions`` whose file changed since this database last
    applied it is applied (``CREATE OR REPLACE``): a function is defined in one place,
    its file, not in the migrations, and exists before any migration calls it (PL/pgSQL
    bodies are checked when they run, so a function may name a table a migration makes).
    Migrations change tables."""
    applied_now = []
    # A migration, and the wait for another process's, may outlast a request's
    # statement timeout: none while migrating, the connection's own again after.
    timeout = await connection.fetchval("SELECT current_setting('statement_timeout')")
    await connection.execute("SELECT set_config('statement_timeout', '0', false)")
    await connection.execute("SELECT pg_advisory_lock($1)", MIGRATION_LOCK)
    try:
        await connection.execute(
            """CREATE TABLE IF NOT EXISTS schema_migrations (
                   version integer PRIMARY KEY,
                   name text NOT NULL,
                   applied_at timestamptz NOT NULL DEFAULT now());
               ALTER TABLE schema_migrations ADD COLUMN IF NOT EXISTS checksum text"""
        )
        await _apply_functions(connection)
        done = {
            r["version"]: r["checksum"]
            for r in await connection.fetch("SELECT version, checksum FROM schema_migrations")
        }
        for migration in migrations():
            digest = checksum(migration)
            if migration.version in done:
                kept = done[migration.version]
                if kept is None:
                    await connection.execute(
                        "UPDATE schema_migrations SET checksum = $2 WHERE version = $1",
                        migration.version,
                        digest,
                    )
                elif kept != digest:
                    raise MigrationEdited(
                        f"migration {migration.version:03d}_{migration.name}.sql was changed "
                        "after this database applied it: put the change in a new migration"
                    )
                continue
            async with connection.transaction():
                if _has_statements(migration.sql):  # one left only its history: comments
                    await connection.execute(migration.sql)
                await connection.execute(
                    "INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)",
                    migration.version,
                    migration.name,
                    digest,
                )
            log.info(
                "applied migration",
                extra={"version": migration.version, "migration": migration.name},
            )
            applied_now.append(migration.version)
    finally:
        await connection.execute("SELECT pg_advisory_unlock($1)", MIGRATION_LOCK)
        await connection.execute("SELECT set_config('statement_timeout', $1, false)", timeout)
    return applied_now


def _has_statements(sql: str) -> bool:
    return any(line.strip() and not line.lstrip().startswith("--") for line in sql.splitlines())


async def _apply_functions(connection: Connection) -> None:
    await connection.execute(
        """CREATE TABLE IF NOT EXISTS schema_functions (
               name text PRIMARY KEY,
               checksum text NOT NULL,
               applied_at timestamptz NOT NULL DEFAULT now())"""
    )
    kept = {
        r["name"]: r["checksum"]
        for r in await connection.fetch("SELECT name, checksum FROM schema_functions")
    }
    for function in functions():
        digest = checksum(function)
        if kept.get(function.name) == digest:
            continue
        async with connection.transaction():
            await connection.execute(function.sql)
            await connection.execute(
                """INSERT INTO schema_functions (name, checksum) VALUES ($1, $2)
                   ON CONFLICT (name) DO UPDATE
                   SET checksum = EXCLUDED.checksum, applied_at = now()""",
                function.name,
                digest,
            )
        log.info("applied function", extra={"function": function.name})


class Queries:
    """Named queries: ``-- name: get_player`` starts a query, the comment under it says
    what it does, and the query is the attribute of that name."""

    def __init__(self, directory: Path = SQL_DIR / "queries") -> None:
        self._sql: dict[str, str] = {}
        for path in sorted(directory.glob("*.sql")):
            parts = _NAME.split(path.read_text())
            for name, body in zip(parts[1::2], parts[2::2]):
                if name in self._sql:
                    raise ValueError(f"query {name} is defined twice")
                self._sql[name] = body.strip()

    def __getattr__(self, name: str) -> str:
        try:
            return self._sql[name]
        except KeyError:
            raise AttributeError(f"no query named {name}") from None

    def names(self) -> list[str]:
        return sorted(self._sql)


QUERIES: Final = Queries()


async def _init_connection(connection: asyncpg.Connection, statement_timeout: float) -> None:
    for type_name in ("json", "jsonb"):
        await connection.set_type_codec(
            type_name, schema="pg_catalog", encoder=_encode_json, decoder=msgspec.json.decode
        )
    # The service reads rows by key. A plan made while a table was nearly empty (a new
    # database, a month's partition after its first runs), and kept for the session as
    # a prepared statement's, would otherwise scan it whole at every call, however much
    # it has grown, until the next ANALYZE: no sequential scan where an index serves.
    # And no JIT compilation: none of these statements gains from it, and the cost a
    # scan turned off still adds where nothing else serves would have plans compiled at
    # every call (some 150 ms, for statements that run in well under 1 ms). And one
    # plan a statement, made at its first call and kept (until an ANALYZE of a table it
    # reads): by default PostgreSQL plans anew at every call a statement whose generic
    # plan it judges dearer than a plan for the values at hand, as it judges every
    # statement over the monthly partitions of daily runs and every one of an array: a
    # third of PostgreSQL's CPU a player-day went to planning (docs/performance.md, "One
    # plan a statement"). A date a parameter of its own still prunes the other months
    # when the plan starts; an array of dates prunes none.
    await connection.execute(
        "SET enable_seqscan = off; SET jit = off; SET plan_cache_mode = force_generic_plan"
    )
    # A timeout the database already has (its configuration, the role's, the URL's) is
    # kept; without one, a statement stuck behind a lock would hold its request forever.
    if statement_timeout > 0:
        milliseconds = str(max(1, round(statement_timeout * 1000)))
        await connection.execute(QUERIES.default_statement_timeout, milliseconds)


def _encode_json(value: object) -> str:
    return msgspec.json.encode(value).decode()


async def _keep_session(connection: asyncpg.Connection) -> None:
    """Hand a connection back to the pool as it is. The service keeps no session state
    (no LISTEN, no session settings but those of ``_init_connection``, advisory locks
    only per transaction, the start-up migration lock released explicitly), so the
    default reset (RESET ALL, UNLISTEN *, CLOSE ALL, unlock all) would only cost a round
    trip per request, and undo those settings."""


PARKED_FOR: Final = 30.0
"""Seconds a connection stays parked for the next single statement (``Pool``); then it
goes back to asyncpg's pool."""


class Pool(asyncpg.Pool):
    """asyncpg's pool, whose single statements (``fetch``, ``fetchrow``, ``fetchval``,
    ``execute``) run on a connection parked by an earlier one when there is one, up to
    half the pool parked: asyncpg's acquire and release around a statement (a task to
    shield the release, a timer, a proxy, a queue) cost more than the statement itself
    in the client: 92 against 45 µs of CPU on this project's machine (docs/performance.md).
    A statement that fails (cancelled mid-way too), or a parked connection found closed or
    parked for over ``PARKED_FOR``, hands its connection back to the pool, which resets
    or replaces it as it would. ``using``: the same for work of a few statements (a
    batch of official runs); ``acquire`` and other transactions are asyncpg's, on the
    other half at least."""

    __slots__ = ("_parked", "_parked_most")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._parked: list[tuple[Any, float]] = []  # a connection, parked when
        self._parked_most: int = kwargs["max_size"] // 2

    async def _statement(self, run: Callable[[Any], Awaitable[Any]]) -> Any:
        connection = None
        now = time.monotonic()
        while connection is None and self._parked:
            connection, parked_at = self._parked.pop()
            try:
                closed = connection.is_closed()
            except asyncpg.InterfaceError:  # closed, and taken back by asyncpg's pool
                connection = None
                continue
            # The server went away (the pool connects anew), or the connection lay idle
            # longer than a network between may keep it (asyncpg's pool closes its own
            # after 300 s idle).
            if closed or now - parked_at > PARKED_FOR:
                await self.release(connection)
                connection = None
        if connection is None:
            connection = await self.acquire()
        try:
            answer = await run(connection)
        except BaseException:
            await self.release(connection)
            raise
        if len(self._parked) < self._parked_most and not self.is_closing():
            self._parked.append((connection, time.monotonic()))
        else:
            await self.release(connection)
        return answer

    async def using(self, work: Callable[[Connection], Awaitable[T]]) -> T:
        """``work`` on a connection taken as a single statement takes one: for work of a
        few statements that leaves its connection as it found it (its transactions
        ended), such as a batch of official runs."""
        answer: T = await self._statement(work)
        return answer

    async def fetch(self, query: str, *args: Any, **options: Any) -> list[Any]:
        answer: list[Any] = await self._statement(lambda c: c.fetch(query, *args, **options))
        return answer

    async def fetchrow(self, query: str, *args: Any, **options: Any) -> Any:
        return await self._statement(lambda c: c.fetchrow(query, *args, **options))

    async def fetchval(self, query: str, *args: Any, **options: Any) -> Any:
        return await self._statement(lambda c: c.fetchval(query, *args, **options))

    async def execute(self, query: str, *args: Any, **options: Any) -> str:
        answer: str = await self._statement(lambda c: c.execute(query, *args, **options))
        return answer

    def get_idle_size(self) -> int:
        return super().get_idle_size() + len(self._parked)

    async def _unpark(self) -> None:
        parked, self._parked = self._parked, []
        for connection, _parked_at in parked:
            await self.release(connection)

    async def expire_connections(self) -> None:
        await self._unpark()
        await super().expire_connections()

    async def close(self) -> None:
        await self._unpark()
        await super().close()

    def terminate(self) -> None:
        self._parked = []
        super().terminate()


async def create_pool(
    url: str, *, min_size: int = 1, max_size: int = 10, statement_timeout: float = 0
) -> Pool:
    """One pool per process (``Pool``); connections decode json and jsonb with msgspec,
    and cancel a statement after ``statement_timeout`` seconds unless the database sets
    a timeout of its own (0: none). The client gives up a few seconds after the server
    would."""
    pool = Pool(
        url,
        min_size=min_size,
        max_size=max_size,
        max_queries=50000,
        max_inactive_connection_lifetime=300.0,
        init=functools.partial(_init_connection, statement_timeout=statement_timeout),
        reset=_keep_session,
        command_timeout=max(10, statement_timeout + 5),
        loop=None,
        connection_class=asyncpg.Connection,
        record_class=asyncpg.Record,
    )
    await pool
    return pool
