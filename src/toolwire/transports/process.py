"""The client end of stdio: a server started as a subprocess, one message per line.

A line longer than ``max_message_bytes`` is never held whole: it is read in pieces and
dropped, and the request it answers fails with a :class:`~toolwire.ClientError` (its id is
read from the start of the line, where servers put it); when no id can be read there, the
connection ends with that reason. Lines wait for the client in a queue bounded by size
(:class:`~.base.QueueReceiver`), so a server that floods the client is slowed down.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import sys
from collections.abc import Mapping, Sequence
from typing import IO, Any

import orjson

from .base import MAX_MESSAGE_BYTES, QueueReceiver
from .stdio import writes

#: The most one read of the server's stdout takes. asyncio's 256 KiB is above malloc's mmap
#: threshold, so each read of an answer would map, remap and unmap fresh memory.
READ_SIZE = 64 * 1024
#: The id of a response whose ``id`` comes first (or right after ``"jsonrpc"``).
LEADING_ID = re.compile(
    rb'\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d+|"[^"\\]*")\s*,'
)


class _Stdout(asyncio.Protocol):
    """The subprocess's stdout, read straight from its pipe: what arrives goes to
    :class:`SubprocessTransport` in the same pass of the loop (asyncio's subprocess protocol
    would hand it over one pass later)."""

    def __init__(self, owner: SubprocessTransport) -> None:
        self.owner = owner

    def data_received(self, data: bytes) -> None:
        began = writes.hold()  # a proxy's answers to its own client go out together
        try:
            self.owner._received(data)
        finally:
            if began:
                writes.release()

    def eof_received(self) -> bool:
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        lost = self.owner._stdout_lost
        if lost is not None and not lost.done():
            lost.set_result(None)


class SubprocessTransport(QueueReceiver):
    """Starts ``command`` and speaks to it over its stdin/stdout.

    The server's stderr is passed through to ours by default, or to ``stderr`` (a file).
    Closing follows the spec's order (LC-14): close stdin, wait, terminate, kill. Lines
    are split as the pipe delivers them, and each is handed to the client at once (an
    answer it waits for resolves its request without a pass of a reader task); while
    ``max_queued_bytes`` wait for the client, the pipe is not read.
    """

    def __init__(
        self,
        command: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        stderr: IO[Any] | int | None = None,
        max_message_bytes: int = MAX_MESSAGE_BYTES,
    ) -> None:
        super().__init__()
        self.command = list(command)
        self.env = {**os.environ, **env} if env is not None else None
        self.cwd = cwd
        self.stderr = stderr
        self.max_message_bytes = max_message_bytes
        self.process: asyncio.subprocess.Process | None = None
        self.ended_reason: str | None = None
        self._reader: asyncio.Task[None] | None = None
        self._buffer = bytearray()
        self._scanned = 0  # bytes of the buffer known to hold no newline
        self._dropping: bytes | None = None  # the start of an over-long line being dropped
        self._stopped = False  # no more lines are read (the conversation cannot go on)
        self._paused = False
        self._pipes: asyncio.SubprocessTransport | None = None
        self._stdout: asyncio.ReadTransport | None = None
        self._stdout_lost: asyncio.Future[None] | None = None

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._stdout_lost = loop.create_future()
        read_end, write_end = os.pipe()
        try:
            self._pipes, protocol = await loop.subprocess_exec(
                lambda: asyncio.subprocess.SubprocessStreamProtocol(2**16, loop),  # stdin only
                *self.command,
                stdin=asyncio.subprocess.PIPE,
                stdout=write_end,
                stderr=self.stderr if self.stderr is not None else sys.stderr,
                env=self.env,
                cwd=self.cwd,
            )
        except BaseException:
            os.close(read_end)
            raise
        finally:
            os.close(write_end)  # the child holds it now: its exit ends our reading
        self.process = asyncio.subprocess.Process(self._pipes, protocol, loop)
        pipe = os.fdopen(read_end, "rb", buffering=0)
        self._stdout, _ = await loop.connect_read_pipe(lambda: _Stdout(self), pipe)
        if hasattr(self._stdout, "max_size"):
            self._stdout.max_size = READ_SIZE
        self._reader = asyncio.create_task(self._read())

    def _received(self, data: bytes) -> None:
        """Hand over the complete lines of what the pipe delivered."""
        if self._stopped:
            return
        buffer = self._buffer
        buffer += data
        start = 0
        while True:
            end = buffer.find(b"\n", max(start, self._scanned))
            if end < 0:
                break
            line, start = bytes(buffer[start : end + 1]), end + 1
            self._scanned = start
            if self._dropping is not None:  # the end of an over-long line
                dropped, self._dropping = self._dropping, None
                if not self._too_long(dropped):
                    return
            elif len(line) > self.max_message_bytes:  # a whole over-long line in one read
                if not self._too_long(line[:256]):
                    return
            elif line.strip():
                self.deliver(line)
        del buffer[:start]
        self._scanned = len(buffer)
        if len(buffer) > self.max_message_bytes:  # a line too long to hold: dropped
            if self._dropping is None:
                self._dropping = bytes(buffer[:256])
            buffer.clear()
            self._scanned = 0
        if self._queued_bytes >= self.max_queued_bytes and not self.ended:
            self._reading(False)

    def _reading(self, on: bool) -> None:
        """Read the server's stdout or not (while the client has too much to read)."""
        pipe = self._stdout
        if pipe is None or on != self._paused:
            return
        self._paused = not on
        with contextlib.suppress(RuntimeError):  # already closed
            if on:
                pipe.resume_reading()
            else:
                pipe.pause_reading()

    async def receive(self) -> bytes | None:
        data = await super().receive()
        if self._paused and self._queued_bytes < self.max_queued_bytes:
            self._reading(True)
        return data

    async def _read(self) -> None:
        """Wait for the end of the server's stdout, then end the stream (saying why)."""
        try:
            assert self._stdout_lost is not None
            await self._stdout_lost
            rest = self._buffer
            last = not self._stopped and self._dropping is None and rest.strip()
            if last and len(rest) <= self.max_message_bytes:
                self.deliver(bytes(rest))  # a last line without its newline
            rest.clear()
        finally:
            if self.ended_reason is None:
                await self._note_exit()
            self.end()

    def _too_long(self, start: bytes) -> bool:
        """A line longer than ``max_message_bytes`` was dropped: fail the request it
        answers (its id is read from ``start``); False when no id can be read there, and
        the conversation cannot go on."""
        text = f"The server sent a message larger than {self.max_message_bytes} bytes"
        match = LEADING_ID.match(start)
        if match is None:  # nobody to fail: the conversation cannot go on
            self.ended_reason = (
                f"the server sent a message larger than {self.max_message_bytes} bytes"
            )
            self._stopped = True
            self._buffer.clear()
            self.end()
            return False
        mid = orjson.loads(match.group(1))
        self.fail(mid, f"{text} (max_message_bytes); it was dropped")
        return True

    async def _note_exit(self) -> None:
        """Say why the stream ended: the process's exit code, if it exited."""
        assert self.process is not None
        try:
            code = await asyncio.wait_for(self.process.wait(), 1.0)
        except (asyncio.TimeoutError, asyncio.CancelledError):
            return
        self.ended_reason = f"the server process exited with code {code}"

    async def send(self, data: bytes) -> None:
        assert self.process is not None and self.process.stdin is not None
        if self.process.stdin.is_closing():
            raise ConnectionError("the server process has exited")
        self.process.stdin.write(data + b"\n")
        await self.process.stdin.drain()

    def send_now(self, data: bytes) -> bool:
        """Write ``data`` at once if nothing is waiting to be written before it (no
        backpressure to wait for); False: nothing was written, use :meth:`send`."""
        process = self.process
        stdin = process.stdin if process is not None else None
        if stdin is None or stdin.is_closing() or stdin.transport.get_write_buffer_size():
            return False
        stdin.write(data + b"\n")
        return True

    async def close(self, timeout: float = 2.0) -> None:
        process = self.process
        if process is None:
            return
        if process.stdin is not None and not process.stdin.is_closing():
            process.stdin.close()
        for stop in (None, process.terminate, process.kill):
            if stop is not None:
                with contextlib.suppress(ProcessLookupError):
                    stop()
            try:
                await asyncio.wait_for(process.wait(), timeout)
                break
            except asyncio.TimeoutError:
                continue
        if self._reader is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
        self.end()
