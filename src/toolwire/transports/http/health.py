"""Liveness and readiness endpoints of the HTTP app, for load balancers and orchestrators.

``GET /healthz`` (liveness) answers ``200`` while the process serves HTTP at all.
``GET /readyz`` (readiness) answers ``200`` when the app should be sent traffic, and ``503``
while it should not: once a shutdown started (``SIGTERM``: during ``drain_delay`` and the
drain that follows) and while the session store does not answer (a shared store, such as
Redis, is pinged at most every ``store_check_s`` seconds). Both answer JSON
(``{"status": "ok"}``, ``{"status": "draining"}``, ``{"status": "unavailable", "reason":
...}``), before the Host/Origin check and authentication, and are no MCP traffic: no
session, no stream, no limit and no telemetry counts them. ``HEAD`` works too.

``mcp.http_app(health=Health(live="/livez", ready="/ready"))`` moves them,
``health=False`` turns them off (their paths are then 404, as any other).
"""

from __future__ import annotations

import logging
import time
from typing import Any

import orjson

from ..asgi import Send

logger = logging.getLogger("toolwire")

STORE_CHECK_S = 0.0  # every readiness probe asks the store (probes come seconds apart)


class Health:
    """Where the liveness (``live``) and readiness (``ready``) endpoints are; ``None``
    turns one off. ``store_check_s``: how long a store check's outcome is reused, so
    frequent probes do not each cost a round trip to Redis."""

    def __init__(
        self,
        live: str | None = "/healthz",
        ready: str | None = "/readyz",
        *,
        store_check_s: float = STORE_CHECK_S,
    ) -> None:
        self.live = live
        self.ready = ready
        self.store_check_s = store_check_s
        self.paths = frozenset(p for p in (live, ready) if p)
        self._checked: tuple[float, str | None] | None = None  # (when, failure)

    @classmethod
    def of(cls, option: Any) -> Health | None:
        """The endpoints an ``http_app(health=...)`` option asks for."""
        if option is True:
            return cls()
        if option is False or option is None:
            return None
        if isinstance(option, Health):
            return option
        raise TypeError("health= takes True, False or a toolwire.transports.http.health.Health")

    async def answer(self, app: Any, path: str, method: str, send: Send) -> None:
        if method not in ("GET", "HEAD"):
            await _reply(send, 405, {"status": "method not allowed"}, method, b"GET, HEAD")
            return
        if path == self.live:
            await _reply(send, 200, {"status": "ok"}, method)
            return
        if app.closing or app.draining:
            await _reply(send, 503, {"status": "draining"}, method)
            return
        failure = await self._store_failure(app.store)
        if failure is not None:
            await _reply(send, 503, {"status": "unavailable", "reason": failure}, method)
            return
        await _reply(send, 200, {"status": "ok"}, method)

    async def _store_failure(self, store: Any) -> str | None:
        """Why the session store is not usable (None: it is), from a recent check."""
        ping = getattr(store, "ping", None)
        if ping is None:  # the memory store: always there
            return None
        now = time.monotonic()
        if self._checked is not None and now - self._checked[0] < self.store_check_s:
            return self._checked[1]
        try:
            await ping()
            failure = None
        except Exception as exc:
            failure = "the session store does not answer"
            if self._checked is None or self._checked[1] is None:
                logger.warning("Not ready: %s (%s)", failure, exc)
        self._checked = (time.monotonic(), failure)
        return failure


async def _reply(
    send: Send, status: int, body: dict[str, str], method: str, allow: bytes | None = None
) -> None:
    data = orjson.dumps(body)
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(data)).encode()),
        (b"cache-control", b"no-store"),
    ]
    if allow is not None:
        headers.append((b"allow", allow))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": b"" if method == "HEAD" else data})
