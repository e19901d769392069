"""The batcher: concurrent calls travel together, each gets its own answer."""

from __future__ import annotations

import asyncio

import pytest

from service.store.batch import Batcher


class Refused(Exception):
    pass


async def test_a_lone_call_goes_straight_through() -> None:
    batches: list[list[int]] = []

    async def double(items: list[int]) -> list[int | Exception]:
        batches.append(items)
        return [2 * item for item in items]

    batcher = Batcher(double)
    assert await batcher(4) == 8
    assert await batcher(5) == 10
    assert batches == [[4], [5]]


async def test_concurrent_calls_share_batches_and_get_their_own_answers() -> None:
    batches: list[list[int]] = []

    async def answer(items: list[int]) -> list[int | Exception]:
        batches.append(items)
        await asyncio.sleep(0.01)  # a round trip: the calls made meanwhile queue up
        return [Refused(item) if item % 7 == 0 else item * item for item in items]

    batcher = Batcher(answer, max_batch=10)
    answers = await asyncio.gather(*(batcher(n) for n in range(1, 31)), return_exceptions=True)
    for n, got in zip(range(1, 31), answers, strict=True):
        if n % 7 == 0:
            assert isinstance(got, Refused) and got.args == (n,)
        else:
            assert got == n * n
    assert sorted(item for batch in batches for item in batch) == list(range(1, 31))
    assert len(batches) < 30 and max(map(len, batches)) == 10


async def test_a_failed_batch_fails_each_of_its_calls_and_the_next_batch_goes_on() -> None:
    calls = 0

    async def flaky(items: list[int]) -> list[int | Exception]:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise ConnectionError("the database went away")
        return items

    batcher = Batcher(flaky)
    first = await asyncio.gather(batcher(1), batcher(2), return_exceptions=True)
    assert all(isinstance(error, ConnectionError) for error in first)
    assert await batcher(3) == 3


async def test_a_handler_that_loses_an_answer_fails_the_batch() -> None:
    async def short(items: list[int]) -> list[int | Exception]:
        return items[:-1]

    batcher = Batcher(short)
    results = await asyncio.gather(batcher(1), batcher(2), return_exceptions=True)
    assert [str(r) for r in results] == ["1 answers to 2 items"] * 2


async def test_a_cancelled_caller_leaves_the_others_their_answers() -> None:
    release = asyncio.Event()

    async def slow(items: list[int]) -> list[int | Exception]:
        await release.wait()
        return items

    batcher = Batcher(slow)
    first = asyncio.create_task(batcher(1))
    await asyncio.sleep(0)
    second, third = asyncio.create_task(batcher(2)), asyncio.create_task(batcher(3))
    await asyncio.sleep(0)
    second.cancel()
    release.set()
    assert await first == 1
    assert await third == 3
    assert second.cancelled()


async def test_callers_of_a_stopped_batcher_fail_instead_of_waiting_and_it_starts_again() -> None:
    started = asyncio.Event()
    draining: list[asyncio.Task[object] | None] = []

    async def hang_once(items: list[int]) -> list[int | Exception]:
        if not draining:
            draining.append(asyncio.current_task())  # the batcher's task, handling
            started.set()
            await asyncio.Event().wait()
        return items

    batcher = Batcher(hang_once)
    in_flight = asyncio.create_task(batcher(1))
    await started.wait()
    queued = asyncio.create_task(batcher(2))
    await asyncio.sleep(0)
    [drain] = draining
    assert drain is not None and drain is not in_flight
    drain.cancel()  # as at shutdown
    for caller in (in_flight, queued):
        with pytest.raises(RuntimeError, match="the batcher stopped"):
            await caller
    assert await batcher(3) == 3


async def test_items_sent_wait_to_travel_together_or_with_the_next_call() -> None:
    """Items sent (their answers dropped) wait up to the time given, and go in one batch
    with those sent meanwhile, or at once with a call; ``handled`` sends them now."""
    batches: list[list[int]] = []

    async def keep(items: list[int]) -> list[int | Exception]:
        batches.append(items)
        return items

    batcher = Batcher(keep)
    for item in (1, 2, 3):
        batcher.send(item, within=3600)
    await asyncio.sleep(0)
    assert batches == []  # waiting
    assert await batcher(4) == 4
    assert batches == [[1, 2, 3, 4]]

    batcher.send(5, within=3600)
    batcher.send(6, within=3600)
    await batcher.handled()
    assert batches[1:] == [[5, 6]]

    batcher.send(7, within=0.01)
    for _ in range(500):  # its timer, however slow the machine
        if len(batches) == 3:
            break
        await asyncio.sleep(0.01)
    assert batches[2:] == [[7]]
