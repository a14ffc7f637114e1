"""The client end of stdio: a server started as a subprocess, one message per line."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import Mapping, Sequence
from typing import IO, Any

from .base import QueueReceiver


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
        max_line_bytes: int = 64 * 1024 * 1024,
    ) -> None:
        super().__init__()
        self.command = list(command)
        self.env = {**os.environ, **env} if env is not None else None
        self.cwd = cwd
        self.stderr = stderr
        self.max_line_bytes = max_line_bytes
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
            limit=self.max_line_bytes,
        )
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        stdout = self.process.stdout
        try:
            while True:
                line = await stdout.readline()
                if not line:
                    break
                if line.strip():
                    self.deliver(line)
        except (ValueError, ConnectionError):  # an over-long line or a broken pipe ends the stream
            pass
        finally:
            await self._note_exit()
            self.end()

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
