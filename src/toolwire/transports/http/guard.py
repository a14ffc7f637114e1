"""What every HTTP request is checked against before it reaches MCP: Host and Origin.

A local server is reachable from any web page the user opens; DNS rebinding points a
page's own host name at 127.0.0.1. So by default only loopback ``Host`` values are
served and a present ``Origin`` must be a loopback origin (HT-02, HT-03); a public
deployment names its hosts and origins (or ``"*"``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

from ... import jsonrpc
from ..._compat import within
from ...errors import RPCError

Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]

LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})


class Rejection(Exception):
    """An HTTP error answer; raised anywhere while handling a request."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        headers: list[tuple[bytes, bytes]] | None = None,
        body: bytes | None = None,
        content_type: bytes = b"text/plain",
    ) -> None:
        super().__init__(message)
        self.status = status
        self.headers = headers or []
        self.body = body if body is not None else message.encode()
        self.content_type = content_type

    @classmethod
    def rpc(cls, status: int, error: RPCError, mid: str | int | None = None) -> Rejection:
        """An HTTP error whose body is a JSON-RPC error (without an id when none applies)."""
        return cls(
            status,
            error.message,
            body=jsonrpc.error_bytes(mid, error),
            content_type=b"application/json",
        )

    async def send(self, send: Send) -> None:
        headers = [(b"content-type", self.content_type), *self.headers]
        await send({"type": "http.response.start", "status": self.status, "headers": headers})
        await send({"type": "http.response.body", "body": self.body})


def _host_name(value: str) -> str:
    """``example.com`` from ``example.com:8000``; ``::1`` from ``[::1]:8000``."""
    if value.startswith("["):
        return value[1 : value.find("]")] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


class Guard:
    """Checks ``Host`` and ``Origin`` (names without ports; ``"*"`` allows any)."""

    def __init__(
        self, allowed_hosts: Iterable[str] | None, allowed_origins: Iterable[str] | None
    ) -> None:
        self.hosts = (
            frozenset(h.lower() for h in allowed_hosts) if allowed_hosts is not None else LOOPBACK
        )
        self.origins = (
            frozenset(o.lower().rstrip("/") for o in allowed_origins)
            if allowed_origins is not None
            else None
        )

    def check(self, headers: dict[str, str]) -> None:
        host = _host_name(headers.get("host", "").lower())
        if "*" not in self.hosts and host not in self.hosts:
            raise Rejection.rpc(
                403, RPCError(jsonrpc.INVALID_REQUEST, "Forbidden: unexpected Host header")
            )
        origin = headers.get("origin")
        if origin is not None and not self._origin_ok(origin.lower().rstrip("/")):
            raise Rejection.rpc(
                403, RPCError(jsonrpc.INVALID_REQUEST, "Forbidden: origin not allowed")
            )

    def _origin_ok(self, origin: str) -> bool:
        if self.origins is not None:
            if "*" in self.origins or origin in self.origins:
                return True
            # "http://localhost:*" names that origin on any port
            scheme, _, rest = origin.partition("://")
            name = _host_name(rest)
            name = f"[{name}]" if ":" in name else name
            return f"{scheme}://{name}:*" in self.origins
        # Default: a loopback origin, or the same host the request was sent to.
        name = urlsplit(origin).hostname or ""
        return name in LOOPBACK or (name in self.hosts and "*" not in self.hosts)


async def read_body(receive: Callable[[], Awaitable[Any]], max_bytes: int, timeout: float) -> bytes:
    """A request's whole body: 413 past ``max_bytes``, 408 when it takes longer than
    ``timeout`` seconds to arrive, 400 when the client goes away first."""

    async def read() -> bytes:
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                raise Rejection(400, "The client went away")
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > max_bytes:
                raise Rejection(413, f"The body is larger than {max_bytes} bytes")
            chunks.append(chunk)
            if not message.get("more_body"):
                return b"".join(chunks)

    try:
        return await within(read(), timeout)
    except asyncio.TimeoutError:
        raise Rejection(408, "The body took too long to arrive") from None
