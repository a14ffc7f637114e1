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

STREAM_LIMIT = 1024 * 1024  # the pipe reader's buffer: lines past it are read in pieces
#: The id of a response whose ``id`` comes first (or right after ``"jsonrpc"``).
LEADING_ID = re.compile(
    rb'\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d+|"[^"\\]*")\s*,'
)


class SubprocessTransport(QueueReceiver):
    """Starts ``command`` and speaks to it over its stdin/stdout.

    The server's stderr is passed through to ours by default, or to ``stderr`` (a file).
    Closing follows the spec's order (LC-14): close stdin, wait, terminate, kill.
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

    async def start(self) -> None:
        self.process = await asyncio.create_subprocess_exec(
            *self.command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=self.stderr if self.stderr is not None else sys.stderr,
            env=self.env,
            cwd=self.cwd,
            limit=min(self.max_message_bytes + 1, STREAM_LIMIT),
        )
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        stdout = self.process.stdout
        try:
            while True:
                try:
                    line = await stdout.readuntil(b"\n")
                except asyncio.IncompleteReadError as exc:  # the end, maybe after a last line
                    if exc.partial.strip() and len(exc.partial) <= self.max_message_bytes:
                        await self.put(exc.partial)
                    break
                except asyncio.LimitOverrunError as exc:
                    if not await self._long_line(stdout, await stdout.readexactly(exc.consumed)):
                        break
                    continue
                if line.strip():
                    await self.put(line)
        except (asyncio.IncompleteReadError, ConnectionError):  # a broken pipe ends the stream
            pass
        finally:
            if self.ended_reason is None:
                await self._note_exit()
            self.end()

    async def _long_line(self, stdout: asyncio.StreamReader, start: bytes) -> bool:
        """Read a line longer than the pipe reader's buffer, beginning with ``start``; it is
        delivered if it fits ``max_message_bytes``, else dropped. False: the stream ended."""
        parts, size = [start], len(start)
        while True:
            try:
                piece = await stdout.readuntil(b"\n")
                done = True
            except asyncio.LimitOverrunError as exc:
                piece, done = await stdout.readexactly(exc.consumed), False
            size += len(piece)
            if size > self.max_message_bytes:
                return await self._too_long(stdout, parts[0], done)
            parts.append(piece)
            if done:
                await self.put(b"".join(parts))
                return True

    async def _too_long(self, stdout: asyncio.StreamReader, start: bytes, done: bool) -> bool:
        """Drop the rest of an over-long line and fail the request it answers."""
        while not done:
            try:
                await stdout.readuntil(b"\n")
                done = True
            except asyncio.LimitOverrunError as exc:
                await stdout.readexactly(exc.consumed)
        text = f"The server sent a message larger than {self.max_message_bytes} bytes"
        match = LEADING_ID.match(start)
        if match is None:  # nobody to fail: the conversation cannot go on
            self.ended_reason = (
                f"the server sent a message larger than {self.max_message_bytes} bytes"
            )
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
