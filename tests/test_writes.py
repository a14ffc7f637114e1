"""Lines written at the end of the read that brought them about (``transports.writes``):
held while a read is handled, written when it ends, in order, in the same loop pass; out of
a read, on the loop's next pass; per thread."""

from __future__ import annotations

import asyncio
import logging
import threading

import pytest

from toolwire.transports.stdio import writes

pytestmark = pytest.mark.timeout(10)


async def test_a_write_during_a_read_waits_for_its_end() -> None:
    loop = asyncio.get_running_loop()
    done: list[str] = []
    assert writes.hold()
    try:
        writes.soon(loop, lambda: done.append("first"))
        assert not writes.hold()  # a read handled within the read: the outer one releases
        writes.soon(loop, lambda: done.append("second"))
        assert done == []
    finally:
        writes.release()
    assert done == ["first", "second"]  # at once, not on a later pass
    await asyncio.sleep(0)
    assert done == ["first", "second"]  # and only once


async def test_out_of_a_read_a_write_waits_for_the_next_pass() -> None:
    done: list[str] = []
    writes.soon(asyncio.get_running_loop(), lambda: done.append("written"))
    assert done == []
    await asyncio.sleep(0)
    assert done == ["written"]


async def test_a_failing_write_is_logged_and_the_others_go_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    loop = asyncio.get_running_loop()
    done: list[str] = []

    def broken() -> None:
        raise OSError("gone")

    writes.hold()
    writes.soon(loop, broken)
    writes.soon(loop, lambda: done.append("next"))
    with caplog.at_level(logging.ERROR, logger="toolwire"):
        writes.release()
    assert done == ["next"]
    assert "Failed to write" in caplog.text and "gone" in caplog.text
    assert writes.hold()  # released: a new read holds again
    writes.release()


async def test_another_threads_writes_are_its_own() -> None:
    done: list[str] = []

    def elsewhere() -> None:
        async def write() -> None:
            writes.soon(asyncio.get_running_loop(), lambda: done.append("theirs"))
            await asyncio.sleep(0)

        asyncio.run(write())

    assert writes.hold()
    try:
        thread = threading.Thread(target=elsewhere)
        thread.start()
        await asyncio.to_thread(thread.join)
        assert done == ["theirs"]  # written by that thread's loop, not held by this read
    finally:
        writes.release()
