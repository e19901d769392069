"""The tables a request needs, never solved on the event loop: those this process
holds, else those stored in PostgreSQL, else solved in a small pool of processes and
stored for every process.

A variant not stored anywhere costs a solve (up to a few hundred milliseconds of a
solver process on 12 tiles), so solves are bounded: requests for a variant already
on its way share it; a process lets a few variants wait for its solver processes
(``SHUTBOX_SOLVER_QUEUE``), and beyond that answers ``SolverBusy``; a client address
may start only so many solves (``SHUTBOX_SOLVER_RATE_LIMIT``, a token bucket as the
rate limits are), beyond that ``TooManySolves``. Variants held or stored cost no
token: they take no solve. Of the newer variants the rules sheets do not name,
PostgreSQL keeps only the ``SHUTBOX_SOLVER_STORED`` used most recently
(``service.store.tables``): one let go is solved again when asked for.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import math
import multiprocessing
import os
import zlib
from collections.abc import Callable, Coroutine
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import KW_ONLY, dataclass, field
from typing import Any, Final, Protocol, TypeVar

import asyncpg
import msgspec

from service.rules.ruleset import Rules
from service.rules.solver import LOADED, Tables
from service.store import tables as stored_tables
from service.store.db import UNAVAILABLE
from service.support.settings import Limit

log = logging.getLogger("shutbox.solving")

BUSY_RETRY_AFTER_SECONDS: Final = 1
SOLVER_NICENESS: Final = 10
"""Solver processes run at this lower priority: where they share CPUs with the workers,
answering requests comes first and a solve takes the time left over."""
T = TypeVar("T")


class ClientLimits(Protocol):
    """What the solver asks of the API's rate limiter (``service.api.front.ratelimit``): a
    token from a client's buckets, or the seconds to wait for one."""

    async def take(self, client: str, buckets: list[tuple[str, Limit]]) -> float: ...


class SolverBusy(Exception):
    """This process has as many variants waiting for a solve as it lets wait."""

    retry_after = BUSY_RETRY_AFTER_SECONDS


class TooManySolves(Exception):
    """A client has started as many solves as its budget allows for now."""

    def __init__(self, wait: float) -> None:
        super().__init__(f"too many solves; wait {wait:.1f} s")
        self.retry_after = max(1, math.ceil(wait))


@dataclass(eq=False)
class Solver:
    """One per process: its pool of solver processes, the loads and solves in flight."""

    pool: asyncpg.Pool | None
    _: KW_ONLY
    processes: int = 1
    queue: int = 4
    stored: int = 100  # variants the rules sheets do not name kept in PostgreSQL
    per_client: Limit | None = None
    limiter: ClientLimits | None = None
    # What a solver process runs: a module-level function of the rules as plain data.
    solve_in_process: Callable[[dict[str, object]], bytes] = field(
        default_factory=lambda: stored_tables.solve_packed
    )
    _executor: ProcessPoolExecutor | None = field(default=None, init=False)
    _loads: dict[Rules, asyncio.Task[Tables | None]] = field(default_factory=dict, init=False)
    _solves: dict[Rules, asyncio.Task[Tables]] = field(default_factory=dict, init=False)
    solved: int = field(default=0, init=False)  # variants this process had solved
    loaded: int = field(default=0, init=False)  # variants this process read from PostgreSQL

    @property
    def waiting(self) -> int:
        """Variants waiting for a solve in this process now."""
        return len(self._solves)

    async def tables(self, rules: Rules, client: str | None = None) -> Tables:
        """The tables of ``rules``, held in this process once this returns (until the
        next await: hand them to the rules core straight away). ``client`` is the
        address whose budget a solve is taken from (None: no budget, e.g. at start-up).

        Raises ``SolverBusy`` or ``TooManySolves`` when a solve is needed and refused.
        """
        key = rules.solver_key
        found = LOADED.get(key)
        if found is not None:
            return found
        if key not in self._solves:
            found = await _shared(self._loads, key, lambda: self._load(key))
            if found is not None:
                return LOADED.keep(found)
        solve = self._solves.get(key)
        if solve is None:
            await self._admit(client)
            found = LOADED.get(key)  # another request may have brought it meanwhile
            if found is not None:
                return found
            solve = self._solves.get(key)
        if solve is None:
            found = await _shared(self._solves, key, lambda: self._solve(key))
        else:
            found = await asyncio.shield(solve)
        return LOADED.keep(found)

    async def _admit(self, client: str | None) -> None:
        """Whether another solve may start: room in this process, a token of the client's."""
        if self.waiting >= self.queue:
            raise SolverBusy
        if client is None or self.per_client is None or self.limiter is None:
            return
        wait = await self.limiter.take(client, [("solver", self.per_client)])
        if wait > 0:
            raise TooManySolves(wait)
        if self.waiting >= self.queue:
            raise SolverBusy

    async def _load(self, key: Rules) -> Tables | None:
        """The tables stored in PostgreSQL, or None (none stored, or the database away:
        the tables never need it)."""
        if self.pool is None:
            return None
        try:
            packed = await stored_tables.stored(self.pool, key)
        except (asyncpg.PostgresError, *UNAVAILABLE) as error:
            log.warning("stored tables unavailable", extra={"error": repr(error)})
            return None
        if packed is None:
            return None
        try:
            tables = stored_tables.unpack(key, packed)
        except (ValueError, zlib.error) as error:
            log.error("stored tables unreadable", extra={"error": repr(error)})
            return None
        self.loaded += 1
        return tables

    async def _solve(self, key: Rules) -> Tables:
        """Solve in a solver process, keep and store the tables."""
        loop = asyncio.get_running_loop()
        try:
            packed = await loop.run_in_executor(
                self._pool_of_processes(), self.solve_in_process, msgspec.to_builtins(key)
            )
        except BrokenProcessPool:
            log.error("a solver process died; starting new ones")
            self._executor = None
            raise SolverBusy from None
        self.solved += 1
        tables = LOADED.keep(stored_tables.unpack(key, packed))
        if self.pool is not None:
            try:
                await stored_tables.store(self.pool, key, packed, kept=self.stored)
            except (asyncpg.PostgresError, *UNAVAILABLE) as error:
                log.warning("could not store solved tables", extra={"error": repr(error)})
        return tables

    def _pool_of_processes(self) -> ProcessPoolExecutor:
        if self._executor is None:
            # Fresh interpreters: a fork of a server process would copy its threads' state.
            self._executor = ProcessPoolExecutor(
                max_workers=self.processes,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=functools.partial(os.setpriority, os.PRIO_PROCESS, 0, SOLVER_NICENESS),
            )
        return self._executor

    async def close(self) -> None:
        for task in (*self._loads.values(), *self._solves.values()):
            task.cancel()
        if self._executor is not None:
            # A solve under way is abandoned (nobody waits for it any more), and an idle
            # solver process is ended too: a worker exits only once its children have,
            # and a sentinel alone has been seen to leave one waiting for work forever.
            processes = list(self._executor._processes.values())
            self._executor.shutdown(wait=False, cancel_futures=True)
            for process in processes:
                process.terminate()
            self._executor = None


async def _shared(
    flights: dict[Rules, asyncio.Task[T]],
    key: Rules,
    start: Callable[[], Coroutine[Any, Any, T]],
) -> T:
    """The result of the flight for ``key``, started now if none is under way; a request
    that goes away leaves the flight to the others."""
    flight = flights.get(key)
    if flight is None:
        flight = flights[key] = asyncio.create_task(start())

        def land(done: asyncio.Task[T]) -> None:
            if flights.get(key) is done:
                del flights[key]
            if not done.cancelled():
                done.exception()  # retrieved: every request may have gone away

        flight.add_done_callback(land)
    return await asyncio.shield(flight)
