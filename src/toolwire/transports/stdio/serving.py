"""Serving one client over stdin/stdout, one JSON-RPC message per line.

While serving, the real stdin and stdout belong to the protocol alone (SI-04, see
:mod:`.guard`): file descriptor 1 is pointed at stderr, so ``print()`` in a tool or a
library — even from C code — ends up on stderr, and descriptor 0 at the null device, so a
subprocess a tool starts cannot read the client's requests; the protocol uses private
duplicates of the original descriptors. Lines are split in ``data_received`` (no per-line await), and answers are
written in one go per event-loop pass.

Output is bounded: once more than ``max_pending_output_bytes`` of answers wait for a client
that does not read them (the writer's queue plus the pipe transport's buffer), no more
requests are read, not even the lines already buffered, until the output drains below a
quarter of that. And at most ``max_calls_in_flight`` calls run (or wait for a slot) at once:
further requests wait unread until one ends, so a burst read in one go cannot start more
calls than that, whose answers would pile up. Cancellations are read meanwhile (a
``notifications/cancelled`` line is handled ahead of the requests that wait, and one for a
request still waiting withdraws that request: it is never handled). What a paused
server holds is the output mark plus the answers of the calls in flight; the requests wait
in the pipe.

The server stops when stdin ends or on ``SIGTERM``/``SIGINT`` (see :mod:`.stopping`): calls
in flight get ``grace`` seconds to answer, the rest are cancelled and never answered. A
client that went away mid-call costs nothing more: answers to a closed pipe are dropped.

stdin is watched by the event loop when it can be (a pipe, a socket, a terminal). What the
loop cannot watch (a regular file, ``< requests.jsonl``; the null device, as under ``nohup``,
``docker run`` without ``-i`` or a systemd unit; a closed descriptor 0, which
:mod:`.guard` replaces with the null device) is read on a thread by
:class:`_ThreadReader`, into the same line protocol: the null device is simply the end of
input.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import selectors
import stat
import sys
import threading
from collections.abc import Callable, Coroutine
from typing import Any

from ... import jsonrpc
from ...errors import RPCError
from ..base import Connect, Connection
from . import writes
from .guard import held_stdio, waiting_hint
from .stopping import run_to_the_end, stop_signals

logger = logging.getLogger("toolwire")

MAX_MESSAGE_BYTES = 64 * 1024 * 1024
# The most one read of stdin takes (a longer line comes in several reads).
READ_SIZE = 64 * 1024
# Unsent output (answers a client has not read yet) above which requests are no longer
# read; reading resumes once it is below a quarter of it.
MAX_PENDING_OUTPUT_BYTES = 1024 * 1024
# Calls in flight past which no more requests are handled until one ends.
MAX_CALLS_IN_FLIGHT = 32
_CANCEL = b'"notifications/cancelled"'
# Lines read while calls are in flight, past which reading stops too until one ends.
MAX_WAITING_BYTES = 1024 * 1024


class _LineProtocol(asyncio.Protocol):
    """Splits the incoming byte stream into lines and feeds them to the connection.

    A line leaves the buffer before it is handled, so nothing a handler does can make it
    be handled twice. While the writer holds too much unsent output (:class:`_Writer`),
    lines already read wait here and reading stops; they are handled once it drains. While
    ``max_calls`` calls are in flight, lines wait here too (but cancellations), and are
    handled as calls end.
    """

    def __init__(
        self,
        connection: Connection,
        eof: asyncio.Future[None],
        max_bytes: int,
        gate: _Writer,
        max_calls: int,
    ) -> None:
        self.connection = connection
        self.eof = eof
        self.max_bytes = max_bytes
        self.gate = gate
        self.max_calls = max_calls
        self.buffer = bytearray()
        self.discarding = False
        self.busy = False  # lines wait for calls in flight to end
        self.stalled = False  # ...and so many of them that reading stopped
        connection.on_settled = self.settled

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        began = writes.hold()
        try:
            self.split()
        finally:
            if began:
                writes.release()

    def split(self, gated: bool = True) -> None:
        """Handle the complete lines in the buffer (until the writer is over its mark)."""
        buffer = self.buffer
        feed = self.connection.feed
        in_flight = self.connection.in_flight
        gate = self.gate
        start = 0
        held = False
        try:
            while True:
                if gated and (gate.paused or len(in_flight) >= self.max_calls):
                    held = True
                    self.busy = not gate.paused
                    break
                end = buffer.find(b"\n", start)
                if end < 0:
                    break
                first, start = start, end + 1  # consumed before it is handled
                if self.discarding:
                    self.discarding = False
                elif end - first > self.max_bytes:  # a whole over-long line came in one read
                    self._too_long()
                else:
                    line = bytes(buffer[first:end])
                    if line.strip():
                        try:
                            feed(line)
                        except Exception:  # feed answers errors itself; this is a bug
                            logger.exception("Failed to handle a message")
        finally:
            del buffer[:start]
        if held and self.busy:
            if _CANCEL in buffer:
                self._cancels_first()
            if len(buffer) > MAX_WAITING_BYTES and not self.stalled:
                self.stalled = True
                self._reading(False)
        if not held and len(buffer) > self.max_bytes:
            buffer.clear()
            if not self.discarding:
                self.discarding = True
                self._too_long()

    def _cancels_first(self) -> None:
        """Handle the waiting ``notifications/cancelled`` lines now: they end calls in
        flight, which is what the other lines wait for. One that names a request waiting
        before it withdraws that request instead: it is never handled."""
        lines = bytes(self.buffer).split(b"\n")
        kept: list[bytes | None] = []
        waiting: dict[Any, int] = {}  # id of a request waiting -> its place in kept
        for line in lines[:-1]:  # complete lines; the last piece may be partial
            message = _decoded(line) if _CANCEL in line or b'"id"' in line else None
            if _CANCEL not in line:
                if isinstance(message, dict) and "method" in message:
                    mid = jsonrpc.request_id(message)
                    if mid is not None:
                        waiting[mid] = len(kept)
                kept.append(line)
                continue
            params = message.get("params") if isinstance(message, dict) else None
            mid = params.get("requestId") if isinstance(params, dict) else None
            place = waiting.pop(mid, None) if isinstance(mid, (str, int)) else None
            if place is None:
                self.connection.feed(bytes(line))
            else:
                kept[place] = None
        self.buffer[:] = b"".join(line + b"\n" for line in kept if line is not None) + lines[-1]

    def settled(self) -> None:
        """A call ended: handle the lines that waited for it."""
        if self.busy and not self.gate.paused and not self.gate.stopping:
            self.busy = False
            self.split()
            if self.stalled and not self.busy and not self.gate.paused:
                self.stalled = False
                self._reading(True)

    def _reading(self, on: bool) -> None:
        transport = self.gate.read_transport
        if transport is not None:
            with contextlib.suppress(RuntimeError):  # already closed
                if on:
                    transport.resume_reading()
                else:
                    transport.pause_reading()

    def _too_long(self) -> None:
        error = RPCError(
            jsonrpc.INVALID_REQUEST,
            f"Invalid request: message larger than {self.max_bytes} bytes",
        )
        self.connection.send(jsonrpc.error_bytes(None, error))

    def eof_received(self) -> bool:
        self.split(gated=False)
        if self.buffer.strip() and not self.discarding:
            self.connection.feed(bytes(self.buffer))
        self.buffer.clear()
        if not self.eof.done():
            self.eof.set_result(None)
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.eof.done():
            self.eof.set_result(None)


class _Writer:
    """Collects outgoing lines and writes them together (at the end of the read being
    handled, or on the next loop pass: :mod:`~toolwire.transports.stdio.writes`), and keeps the
    unsent output bounded: above ``high`` bytes (its queue plus the pipe transport's buffer)
    it stops reading requests, and reads again once the output drains below ``low``."""

    def __init__(
        self, loop: asyncio.AbstractEventLoop, transport: Any, high: int, low: int
    ) -> None:
        self.loop = loop
        self.transport = transport
        self.pending: list[bytes] = []
        self.size = 0  # bytes in pending
        self.high = high
        self.low = low
        self.full = False  # the transport's buffer is above high (it said pause_writing)
        self.paused = False  # reading is paused for the output to drain
        self.stopping = False  # serving ends: reading never resumes
        self.reader: _LineProtocol | None = None
        self.read_transport: Any = None

    def send(self, data: bytes) -> None:
        pending = self.pending
        if not pending:
            writes.soon(self.loop, self.flush)
        pending.append(data)
        pending.append(b"\n")
        self.size += len(data) + 1
        if self.size > self.high and not self.paused:
            self._pause()

    def flush(self) -> None:
        if self.pending:
            data = b"".join(self.pending)
            self.pending.clear()
            self.size = 0
            if not self.transport.is_closing():
                self.transport.write(data)  # may call pause_writing
        if self.paused and not self.full:
            self._resume()

    def pause_writing(self) -> None:
        self.full = True
        if not self.paused:
            self._pause()

    def resume_writing(self) -> None:
        self.full = False
        if self.paused and self.size <= self.low:
            self._resume()

    def gone(self) -> None:
        """The reader of our output went away: nothing is held back for it any more."""
        self.pending.clear()
        self.size = 0
        self.full = False
        if self.paused:
            self._resume()

    def _pause(self) -> None:
        self.paused = True
        if self.read_transport is not None:
            self.read_transport.pause_reading()

    def _resume(self) -> None:
        self.paused = False
        if self.stopping:
            return
        if self.reader is not None:
            self.reader.split()  # the lines read before the pause
        if not self.paused and self.read_transport is not None:
            with contextlib.suppress(RuntimeError):  # already closed
                self.read_transport.resume_reading()


class _WriteProtocol(asyncio.Protocol):
    def __init__(self) -> None:
        self.closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.writer: _Writer | None = None

    def pause_writing(self) -> None:
        if self.writer is not None:
            self.writer.pause_writing()

    def resume_writing(self) -> None:
        if self.writer is not None:
            self.writer.resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        if self.writer is not None:
            self.writer.gone()
        if not self.closed.done():
            self.closed.set_result(None)


class _ThreadWriter:
    """Writer for an output that is not a pipe (a regular file, a terminal)."""

    def __init__(self, fd: int) -> None:
        self.file = os.fdopen(fd, "wb", buffering=0, closefd=False)

    def write(self, data: bytes) -> None:
        try:
            self.file.write(data)
        except OSError:  # the reader is gone (a closed terminal): nobody to answer any more
            self.file.close()

    def is_closing(self) -> bool:
        return self.file.closed

    def close(self) -> None:
        self.file.close()


def _watchable(fd: int) -> bool:
    """Whether the event loop can watch ``fd`` for reading: a pipe or a socket always, a
    character device if the loop's kind of selector takes it (epoll takes a terminal, not
    the null device); a regular file never."""
    mode = os.fstat(fd).st_mode
    if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        return True
    if not stat.S_ISCHR(mode):
        return False
    try:
        with selectors.DefaultSelector() as probe:
            probe.register(fd, selectors.EVENT_READ)
    except (OSError, ValueError):
        return False
    return True


class _ThreadReader:
    """The read transport for an input the event loop cannot watch (see :func:`_watchable`):
    a daemon thread reads it one chunk at a time, each asked for by the loop once the one
    before was handled, so pausing works as on a pipe; end of input ends the protocol as a
    pipe's would. The thread reads a duplicate of the descriptor and closes it when done."""

    def __init__(
        self, loop: asyncio.AbstractEventLoop, fd: int, protocol: asyncio.Protocol
    ) -> None:
        self.loop = loop
        self.protocol = protocol
        self.fd = os.dup(fd)
        self.wanted = threading.Event()  # the loop asks for the next chunk
        self.reading = False  # a chunk was asked for and has not arrived yet
        self.paused = False
        self.closing = False
        self.waiting: bytes | None = None  # a chunk that arrived while paused
        threading.Thread(target=self._run, name="toolwire-stdin", daemon=True).start()
        self._next()

    def _run(self) -> None:
        try:
            while True:
                self.wanted.wait()
                self.wanted.clear()
                if self.closing:
                    return
                try:
                    data = os.read(self.fd, READ_SIZE)
                except OSError as error:  # e.g. a directory: no requests will come
                    logger.warning("Cannot read stdin (%s): no more requests", error)
                    data = b""
                try:
                    self.loop.call_soon_threadsafe(self._arrived, data)
                except RuntimeError:  # the loop is closed
                    return
                if not data:
                    return
        finally:
            os.close(self.fd)

    def _next(self) -> None:
        self.reading = True
        self.wanted.set()

    def _arrived(self, data: bytes) -> None:
        self.reading = False
        if self.closing:
            return
        if self.paused:
            self.waiting = data
        else:
            self._deliver(data)

    def _deliver(self, data: bytes) -> None:
        if not data:
            self.closing = True
            self.protocol.eof_received()
            self.protocol.connection_lost(None)
            return
        self.protocol.data_received(data)
        if not self.paused and not self.closing:
            self._next()

    def pause_reading(self) -> None:
        self.paused = True

    def resume_reading(self) -> None:
        if self.paused and not self.closing:
            self.paused = False
            self.loop.call_soon(self._resumed)

    def _resumed(self) -> None:
        if self.paused or self.closing or self.reading:
            return
        data, self.waiting = self.waiting, None
        if data is None:
            self._next()
        else:
            self._deliver(data)

    def close(self) -> None:
        self.closing = True
        self.wanted.set()  # the thread ends (after the read it may be in)


def _quiet_logging_default() -> None:
    """Make sure toolwire's own records reach stderr if the application set up nothing."""
    if not logging.getLogger().handlers and not logger.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False


def run_stdio(serve: Callable[..., Coroutine[Any, Any, None]], **options: Any) -> None:
    """Run ``serve(protocol_fd=..., protocol_in_fd=..., **options)`` (which ends up in
    :func:`serve_stdio`) in a new event loop, with the standard streams held for the
    protocol (:mod:`.guard`) before the loop exists."""
    _quiet_logging_default()
    with held_stdio() as (protocol_in, protocol_out):
        run_to_the_end(serve(protocol_fd=protocol_out, protocol_in_fd=protocol_in, **options))


async def serve_stdio(
    connect: Connect,
    *,
    grace: float = 2.0,
    max_message_bytes: int = MAX_MESSAGE_BYTES,
    max_pending_output_bytes: int = MAX_PENDING_OUTPUT_BYTES,
    max_calls_in_flight: int = MAX_CALLS_IN_FLIGHT,
    protocol_fd: int | None = None,
    protocol_in_fd: int | None = None,
    name: str | None = None,
) -> None:
    """Serve one connection on this process's stdin/stdout until stdin closes or a
    ``SIGTERM``/``SIGINT`` arrives.

    ``connect(send)`` opens the server side of the connection; calls still running when
    serving ends get ``grace`` seconds to answer (a second signal cuts that short).
    ``protocol_fd`` and ``protocol_in_fd`` are the descriptors for protocol output and input
    when the caller already holds the standard streams (see :func:`run_stdio`); otherwise
    they are held while serving (:mod:`.guard`). When stdin is a terminal, a line on
    stderr says the server (``name``) waits for a client. Once more than ``max_pending_output_bytes``
    of answers wait for the client to read them, no more requests are read until they
    drain below a quarter of that (see :class:`_Writer`); while ``max_calls_in_flight``
    calls are in flight, further requests wait until one ends (see :class:`_LineProtocol`).
    """
    limits = (max_message_bytes, max_pending_output_bytes, max(max_calls_in_flight, 1))
    if protocol_fd is None or protocol_in_fd is None:
        _quiet_logging_default()
        with held_stdio() as (in_fd, out_fd):
            waiting_hint(in_fd, name)
            await _serve(connect, in_fd, out_fd, grace, *limits)
    else:
        waiting_hint(protocol_in_fd, name)
        await _serve(connect, protocol_in_fd, protocol_fd, grace, *limits)


async def _serve(
    connect: Connect,
    in_fd: int,
    out_fd: int,
    grace: float,
    max_message_bytes: int,
    max_pending: int,
    max_calls: int,
) -> None:
    loop = asyncio.get_running_loop()
    # the descriptors stay open: they belong to whoever holds the streams (.guard)
    out_file = os.fdopen(out_fd, "wb", buffering=0, closefd=False)
    write_protocol: _WriteProtocol | None = None
    write_transport: Any
    try:
        write_transport, write_protocol = await loop.connect_write_pipe(_WriteProtocol, out_file)
    except ValueError:  # not a pipe: write synchronously
        write_transport = _ThreadWriter(out_fd)
    high = max(max_pending, 1)
    writer = _Writer(loop, write_transport, high, high // 4)
    if write_protocol is not None:
        write_protocol.writer = writer
        write_transport.set_write_buffer_limits(high=high, low=high // 4)
    connection = connect(writer.send)
    connection.transport = "stdio"
    eof: asyncio.Future[None] = loop.create_future()
    reader = _LineProtocol(connection, eof, max_message_bytes, writer, max_calls)
    read_transport: Any
    if _watchable(in_fd):
        in_file = os.fdopen(in_fd, "rb", buffering=0, closefd=False)
        read_transport, _ = await loop.connect_read_pipe(lambda: reader, in_file)
        if hasattr(read_transport, "max_size"):  # asyncio's 256 KiB is above malloc's mmap
            read_transport.max_size = READ_SIZE  # threshold: each read would map memory
    else:
        read_transport = _ThreadReader(loop, in_fd, reader)
    writer.reader, writer.read_transport = reader, read_transport
    signalled: asyncio.Future[str] = loop.create_future()

    def on_signal(name: str) -> None:
        if not writer.stopping:
            if not signalled.done():
                signalled.set_result(name)
            return
        logger.warning("%s while stopping: cancelling the calls still running", name)
        for mid in list(connection.in_flight):
            connection.cancel(mid)

    with stop_signals(loop, on_signal):  # until the last answer is out
        try:
            await asyncio.wait((eof, signalled), return_when=asyncio.FIRST_COMPLETED)
            writer.stopping = True
            if signalled.done():
                if not writer.paused:
                    read_transport.pause_reading()
                logger.info(
                    "%s: reading no more requests; calls in flight get %g s to answer",
                    signalled.result(),
                    grace,
                )
            await connection.drain(grace)
        finally:
            writer.stopping = True
            writer.flush()
            read_transport.close()
            write_transport.close()
            if write_protocol is not None:  # let the last answers leave before exiting
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(asyncio.shield(write_protocol.closed), 5.0)


def _decoded(line: bytes) -> Any:
    try:
        return jsonrpc.loads(line)
    except RPCError:
        return None
