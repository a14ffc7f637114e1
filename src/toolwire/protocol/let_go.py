"""Relaying a call's let-go (SEP-1699 polling) across a hop that has no stream to end.

Over legacy Streamable HTTP a tool may end the connection carrying its call's SSE stream
(``Context.close_sse_connection``): the client reconnects with ``Last-Event-ID`` and the
call goes on. A proxy in front of such a server lets go of its own client's stream at that
moment. Where the hop between them has no stream to end (stdio, memory, a 2026-07-28 POST,
whose closing would cancel the call), the server says it instead, to a client that
declared it relays let-gos, with an ordinary message every revision defines:

* the client declares ``capabilities.experimental["io.toolwire/letGo"] = {}``
  (in ``initialize``, or in each 2026-07-28 request's client capabilities);
* the server sends, on the call's stream and before anything that follows it, a
  ``notifications/message`` at level ``debug`` whose ``_meta["io.toolwire/letGo"]`` is
  ``{"requestId": <the call's id>, "retryMs": <reconnect delay, optional>}``.

A notification rather than a request: 2026-07-28 servers send no requests, and a
notification needs no answer. It travels only to clients that declared the capability
(and, on 2026-07-28, only for requests that carry a log level: LG-07).
"""

from __future__ import annotations

from typing import Any

#: The experimental capability a client declares, and the ``_meta`` key of the notice.
LET_GO = "io.toolwire/letGo"
#: The notice's method: a log message every revision defines, carrying the let-go in ``_meta``.
METHOD = "notifications/message"


def declared(capabilities: Any) -> bool:
    """Whether client ``capabilities`` say the client relays let-gos."""
    if not isinstance(capabilities, dict):
        return False
    experimental = capabilities.get("experimental")
    return isinstance(experimental, dict) and isinstance(experimental.get(LET_GO), dict)


def declare(capabilities: dict[str, Any]) -> dict[str, Any]:
    """``capabilities`` with the let-go relay declared."""
    experimental = capabilities.get("experimental")
    experimental = dict(experimental) if isinstance(experimental, dict) else {}
    experimental[LET_GO] = {}
    return {**capabilities, "experimental": experimental}


def notice(request_id: str | int, retry_ms: int | None) -> dict[str, Any]:
    """The params of the notification saying request ``request_id`` let its stream go."""
    told: dict[str, Any] = {"requestId": request_id}
    if retry_ms is not None:
        told["retryMs"] = retry_ms
    return {
        "level": "debug",
        "logger": LET_GO,
        "data": f"request {request_id!r} lets its response stream go (SEP-1699)",
        "_meta": {LET_GO: told},
    }


def read(params: Any) -> tuple[str | int, int | None] | None:
    """``(request id, retry ms or None)`` if ``params`` (of a ``notifications/message``)
    are a let-go notice, else None."""
    meta = params.get("_meta") if isinstance(params, dict) else None
    told = meta.get(LET_GO) if isinstance(meta, dict) else None
    if not isinstance(told, dict):
        return None
    rid = told.get("requestId")
    if not isinstance(rid, (str, int)) or isinstance(rid, bool):
        return None
    retry = told.get("retryMs")
    if not isinstance(retry, int) or isinstance(retry, bool) or retry < 0:
        retry = None
    return rid, retry
