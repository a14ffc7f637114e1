"""The workarounds for older Pythons (toolwire._compat) that are not about annotations."""

from __future__ import annotations

import asyncio

import pytest

from toolwire._compat import cancelled, within


async def test_a_cancellation_that_arrives_as_the_awaited_call_ends_is_kept() -> None:
    # Before Python 3.12, asyncio.wait_for returns the result here and the cancel is lost:
    # a loop of Redis commands stopped with cancel() ran on and its worker never exited.
    answer: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    waiting = asyncio.ensure_future(within(answer, 5.0))
    await asyncio.sleep(0)  # (waiting on the answer)
    answer.set_result(1)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting


async def test_an_answer_in_time_is_returned_and_a_late_one_times_out() -> None:
    assert await within(asyncio.sleep(0, result="ok"), 5.0) == "ok"
    never: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    with pytest.raises(asyncio.TimeoutError):
        await within(never, 0.01)


async def test_a_task_that_ran_on_after_its_cancel_is_cancelled_again() -> None:
    swallowed = asyncio.Event()

    async def stubborn() -> None:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            swallowed.set()  # (as redis-py's wait_for does before Python 3.12)
        await asyncio.Event().wait()

    async def failing() -> None:
        raise ValueError("not raised by cancelled()")

    tasks = [asyncio.ensure_future(stubborn()), asyncio.ensure_future(failing())]
    await asyncio.sleep(0)
    await cancelled(tasks)
    assert swallowed.is_set()
    assert tasks[0].cancelled()
    assert isinstance(tasks[1].exception(), ValueError)
