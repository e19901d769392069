"""Micro-batching: concurrent calls share one round trip to PostgreSQL or Redis.

A call joins a queue; one task per batcher drains it, handing every call waiting at
that moment to the handler at once. Alone, a call goes straight through (no timer,
no added latency); under load, the calls that arrive while a batch is in flight
travel together in the next one, so the round trips and commits per request fall as
the load rises.

``SharedFlight`` is the same for a call that takes no item: the calls that arrive while
one is under way share its answer (one readiness check, one rendering of the metrics,
for a crowd).
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import Any, Generic, TypeVar

from service.support import tracing

In = TypeVar("In")
Out = TypeVar("Out")


class Batcher(Generic[In, Out]):
    """``await batcher(item)``: the handler's answer for ``item``, handled in a batch.

    The handler takes up to ``max_batch`` items and returns one answer per item, in
    order: a value, or an exception to raise in that item's caller. An exception the
    handler raises goes to every caller of the batch. ``batcher.send(item, within)``:
    the same without waiting, the answer dropped (the handler's work is the point),
    handled within ``within`` seconds: the items sent meanwhile travel together (or
    sooner, with the next call).
    """

    def __init__(
        self,
        handle: Callable[[list[In]], Awaitable[Sequence[Out | Exception]]],
        max_batch: int = 100,
    ) -> None:
        self._handle = handle
        self.max_batch = max_batch
        self._queue: list[tuple[In, asyncio.Future[Out] | None]] = []
        # With traces on, the context of each item's caller, so that a batch's statements
        # are the children of the request that opened it (the batch's first), not of
        # the one whose call started the draining task.
        self._contexts: list[contextvars.Context] = []
        self._drain_task: asyncio.Task[None] | None = None
        self._timer: asyncio.TimerHandle | None = None

    async def __call__(self, item: In) -> Out:
        future: asyncio.Future[Out] = asyncio.get_running_loop().create_future()
        self._queue.append((item, future))
        if tracing.installed:
            self._contexts.append(contextvars.copy_context())
        self._drain_soon()
        return await future

    def send(self, item: In, within: float = 0.0) -> None:
        """``item`` handled within ``within`` seconds, its answer dropped."""
        self._queue.append((item, None))
        if tracing.installed:
            self._contexts.append(contextvars.copy_context())
        if within <= 0:
            self._drain_soon()
        elif self._timer is None and (self._drain_task is None or self._drain_task.done()):
            self._timer = asyncio.get_running_loop().call_later(within, self._drain_soon)

    async def handled(self) -> None:
        """Once every item queued so far is handled (those sent to wait, now)."""
        if self._queue:
            self._drain_soon()
        while self._drain_task is not None and not self._drain_task.done():
            await asyncio.wait([self._drain_task])

    def _drain_soon(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._drain_task is None or self._drain_task.done():
            self._drain_task = asyncio.create_task(self._drain())

    async def _drain(self) -> None:
        batch: list[tuple[In, asyncio.Future[Out] | None]] = []
        try:
            while self._queue:
                batch = self._queue[: self.max_batch]
                del self._queue[: self.max_batch]
                items = [item for item, _ in batch]
                context = self._contexts[0] if self._contexts else None
                del self._contexts[: self.max_batch]
                try:
                    if context is None:
                        answers = list(await self._handle(items))
                    else:
                        answers = list(
                            await asyncio.create_task(self._handle_all(items), context=context)
                        )
                    if len(answers) != len(batch):
                        raise RuntimeError(f"{len(answers)} answers to {len(batch)} items")
                except Exception as error:
                    answers = [error] * len(batch)
                for (_, future), answer in zip(batch, answers):
                    if future is None or future.done():  # sent, or its caller is gone
                        continue
                    if isinstance(answer, Exception):
                        future.set_exception(answer)
                    else:
                        future.set_result(answer)
        finally:
            self._drain_task = None
            # Cancelled (at shutdown) mid-batch or with calls queued: fail them rather
            # than leave them waiting.
            for _, future in [*batch, *self._queue]:
                if future is not None and not future.done():
                    future.set_exception(RuntimeError("the batcher stopped"))
            self._queue.clear()
            self._contexts.clear()

    async def _handle_all(self, items: list[In]) -> Sequence[Out | Exception]:
        return await self._handle(items)


class SharedFlight(Generic[Out]):
    """``await flight(start)``: the answer of the call under way, or of ``start()`` begun
    now if none is: at most one call in flight, whoever waits for it. A caller that goes
    away leaves the call to the others; one that comes after it has landed starts anew
    (nothing is kept: an answer is never older than the call that asked for it)."""

    def __init__(self) -> None:
        self._flight: asyncio.Task[Out] | None = None

    async def __call__(self, start: Callable[[], Coroutine[Any, Any, Out]]) -> Out:
        flight = self._flight
        if flight is None or flight.get_loop() is not asyncio.get_running_loop():
            flight = self._flight = asyncio.create_task(start())
            flight.add_done_callback(self._land)
        return await asyncio.shield(flight)

    def _land(self, done: asyncio.Task[Out]) -> None:
        if self._flight is done:
            self._flight = None
        if not done.cancelled():
            done.exception()  # retrieved: every caller may have gone away
