"""Just enough HTTP/1.1 for the inspector, on asyncio streams: GET and POST with a JSON body,
static files, and server-sent event streams.

The inspector is a page on 127.0.0.1 for one developer, so a web framework would only add to
the install (``pip install toolwire`` brings no web server) and to the start-up time. Requests
are read with hard limits (line, header and body sizes) and a bad request closes its
connection with a 400; nothing a browser sends can stop the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import orjson

from .._compat import within

logger = logging.getLogger("toolwire.inspector")

MAX_LINE = 8 * 1024
MAX_HEADERS = 100
MAX_BODY = 4 * 1024 * 1024
IDLE_TIMEOUT = 60.0  # a kept-alive connection with no next request is closed
KEEPALIVE_EVERY = 15.0  # an event stream writes a comment this often, to notice a closed tab

REASONS = {
    200: "OK",
    202: "Accepted",
    302: "Found",
    400: "Bad Request",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    409: "Conflict",
    413: "Content Too Large",
    415: "Unsupported Media Type",
    500: "Internal Server Error",
}


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]  # names in lower case
    body: bytes = b""

    def json(self) -> Any:
        return orjson.loads(self.body)


@dataclass
class Response:
    status: int = 200
    body: bytes = b""
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)

    @classmethod
    def json(cls, value: Any, status: int = 200) -> Response:
        return cls(status, orjson.dumps(value))

    @classmethod
    def error(cls, status: int, message: str) -> Response:
        return cls.json({"error": message}, status)


@dataclass
class EventStream:
    """A ``text/event-stream`` response: each ``(event, data)`` put on ``queue`` is sent as one
    event, ``None`` ends the stream, and ``on_close`` runs when it ends or the browser leaves."""

    queue: asyncio.Queue[tuple[str, Any] | None]
    on_close: Callable[[], None]


Handler = Callable[[Request], Awaitable["Response | EventStream"]]


class BadRequest(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class HttpServer:
    """Serves ``handler`` on ``host:port`` (0 picks a free port) until :meth:`close`, which
    also ends the connections still open (kept alive, or streaming events)."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.port = 0
        self._listener: asyncio.Server | None = None
        self._connections: dict[asyncio.Task[Any], asyncio.StreamWriter] = {}

    async def start(self, host: str, port: int) -> int:
        self._listener = await asyncio.start_server(self._connection, host, port, limit=MAX_LINE)
        self.port = self._listener.sockets[0].getsockname()[1]
        return self.port

    async def close(self) -> None:
        if self._listener is not None:
            self._listener.close()
        for writer in self._connections.values():
            writer.close()  # a read waiting on it ends at once
        if self._connections:
            await asyncio.wait(list(self._connections), timeout=5)

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections[task] = writer
        try:
            await _serve_connection(self.handler, reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.TimeoutError):
            pass
        finally:
            del self._connections[task]
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()


async def _serve_connection(
    handler: Handler, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
) -> None:
    while True:
        try:
            request = await within(_read_request(reader), IDLE_TIMEOUT)
        except BadRequest as bad:
            await _write(writer, Response.error(bad.status, str(bad)), keep_alive=False)
            return
        if request is None:
            return
        try:
            answer = await handler(request)
        except Exception:
            logger.exception("inspector request %s %s failed", request.method, request.path)
            answer = Response.error(500, "internal error (see the inspector's log)")
        if isinstance(answer, EventStream):
            await _stream(writer, answer)
            return
        keep_alive = request.headers.get("connection", "").lower() != "close"
        await _write(writer, answer, keep_alive)
        if not keep_alive:
            return


async def _read_request(reader: asyncio.StreamReader) -> Request | None:
    try:
        line = await reader.readline()
    except ValueError:  # longer than MAX_LINE
        raise BadRequest(400, "request line too long") from None
    if not line:
        return None
    parts = line.decode("latin-1").split()
    if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
        raise BadRequest(400, "malformed request line")
    method, target, _ = parts
    headers: dict[str, str] = {}
    for _ in range(MAX_HEADERS + 1):
        try:
            raw = await reader.readline()
        except ValueError:
            raise BadRequest(400, "header line too long") from None
        if raw in (b"\r\n", b"\n", b""):
            break
        name, colon, value = raw.decode("latin-1").partition(":")
        if not colon:
            raise BadRequest(400, "malformed header")
        headers[name.strip().lower()] = value.strip()
    else:
        raise BadRequest(400, "too many headers")
    if "transfer-encoding" in headers:
        raise BadRequest(400, "chunked request bodies are not accepted")
    try:
        length = int(headers.get("content-length", "0"))
    except ValueError:
        raise BadRequest(400, "bad Content-Length") from None
    if length < 0:
        raise BadRequest(400, "bad Content-Length")
    if length > MAX_BODY:
        raise BadRequest(413, f"body over {MAX_BODY} bytes")
    body = await reader.readexactly(length) if length else b""
    url = urlsplit(target)
    return Request(method.upper(), url.path, dict(parse_qsl(url.query)), headers, body)


def _head(status: int, headers: dict[str, str]) -> bytes:
    lines = [f"HTTP/1.1 {status} {REASONS.get(status, 'Unknown')}"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


async def _write(writer: asyncio.StreamWriter, response: Response, keep_alive: bool) -> None:
    headers = {
        "Content-Type": response.content_type,
        "Content-Length": str(len(response.body)),
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
        "Connection": "keep-alive" if keep_alive else "close",
        **response.headers,
    }
    writer.write(_head(response.status, headers) + response.body)
    await writer.drain()


async def _stream(writer: asyncio.StreamWriter, stream: EventStream) -> None:
    headers = {
        "Content-Type": "text/event-stream",
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
        "Connection": "close",
    }
    try:
        writer.write(_head(200, headers))
        await writer.drain()
        while True:
            try:
                item = await within(stream.queue.get(), KEEPALIVE_EVERY)
            except asyncio.TimeoutError:
                writer.write(b": keep-alive\n\n")
            else:
                if item is None:
                    return
                event, data = item
                writer.write(b"event: %s\ndata: %s\n\n" % (event.encode(), orjson.dumps(data)))
            await writer.drain()
    finally:
        stream.on_close()
