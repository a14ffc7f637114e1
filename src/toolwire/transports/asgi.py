"""Small ASGI helpers: headers in, plain and JSON answers out, watching for a client that leaves."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


def request_headers(scope: Scope) -> dict[str, str]:
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}


def settle(future: asyncio.Future[bytes]) -> Callable[[bytes], None]:
    def settle(data: bytes) -> None:
        if not future.done():
            future.set_result(data)

    return settle


async def disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


def closing_connection(send: Send) -> Send:
    """``send`` whose answer carries ``Connection: close``: the server closes the connection
    once the answer is written, so the client sends its next request on a new one (while a
    worker drains, a new one reaches another worker)."""

    async def closing(message: MutableMapping[str, Any]) -> None:
        if message["type"] == "http.response.start":
            headers = [*message.get("headers", ()), (b"connection", b"close")]
            message = {**message, "headers": headers}
        await send(message)

    return closing


async def plain(send: Send, status: int, body: bytes) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"text/plain")],
        }
    )
    await send({"type": "http.response.body", "body": body})


async def json_answer(send: Send, status: int, body: bytes, session_id: str | None) -> None:
    headers = [(b"content-type", b"application/json")]
    if session_id is not None:
        headers.append((b"mcp-session-id", session_id.encode()))
    if status == 429:  # a caller's calls waiting are at their bound: retry shortly
        headers.append((b"retry-after", b"1"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
