"""A server for ``ctx.state``, ``ctx.http`` and the ready-made middleware tests.

Run without arguments: stdio, no authentication. Run as ``prod_state.py --fd N --redis URL``:
an HTTP worker on the already-listening socket N sharing a :class:`RedisStore`, with
bearer tokens ``token-alice`` and ``token-bob`` (subjects ``alice`` and ``bob``), for the
scale-out tests (several such workers behind nginx).

* ``remember(key, value, ttl=None)`` / ``recall(key)`` / ``forget(key)`` — ``ctx.state``;
  each answer says which worker (process id) served it.
* ``lookup(q)`` — read-only and idempotent, cached by :class:`ResultCache`; answers the
  process id of the worker that really ran it.
* ``request_info()`` — what ``ctx.http`` shows (None on stdio).
* ``session_set(key, value)`` / ``session_get(key)`` — FastMCP's per-session state
  (``ctx.set_state``/``ctx.get_state``), with the session id and the worker.
"""

from __future__ import annotations

import argparse
import os
import uuid
from typing import Any

from toolwire import Context, Server
from toolwire.auth import AccessToken, ResourceServer, StaticTokens
from toolwire.middleware import Metrics, ResultCache, ResultSizeCap

TOKENS = {
    "token-alice": AccessToken(subject="alice", client_id="app", scopes=frozenset({"mcp"})),
    "token-bob": AccessToken(subject="bob", client_id="app", scopes=frozenset({"mcp"})),
}


def build() -> Server:
    mcp = Server("prod-state", version="0.0.1")
    mcp.add_middleware(Metrics())
    mcp.add_middleware(ResultSizeCap(4_000))
    mcp.add_middleware(ResultCache(ttl=30))

    @mcp.tool()
    async def remember(key: str, value: Any, ctx: Context, ttl: float | None = None) -> dict:
        """Keep ``value`` under ``key`` for the caller."""
        await ctx.state.set(key, value, ttl=ttl)
        return {"worker": os.getpid()}

    @mcp.tool()
    async def recall(key: str, ctx: Context) -> dict:
        """The caller's value under ``key`` (null if none)."""
        return {"worker": os.getpid(), "value": await ctx.state.get(key)}

    @mcp.tool()
    async def forget(key: str, ctx: Context) -> dict:
        """Forget the caller's ``key``."""
        await ctx.state.delete(key)
        return {"worker": os.getpid()}

    @mcp.tool(annotations={"readOnlyHint": True, "idempotentHint": True})
    def lookup(q: str) -> dict:
        """Look ``q`` up (cached per caller); ``run`` tells each real run apart."""
        return {"q": q, "worker": os.getpid(), "run": uuid.uuid4().hex}

    @mcp.tool()
    async def session_set(key: str, value: Any, ctx: Context) -> dict:
        """Keep ``value`` under ``key`` for this MCP session (FastMCP's ctx.set_state)."""
        await ctx.set_state(key, value)
        return {"worker": os.getpid(), "session": ctx.session_id}

    @mcp.tool()
    async def session_get(key: str, ctx: Context) -> dict:
        """This session's value under ``key`` (FastMCP's ctx.get_state)."""
        value = await ctx.get_state(key)
        return {"worker": os.getpid(), "session": ctx.session_id, "value": value}

    @mcp.tool()
    def request_info(ctx: Context) -> dict:
        """What the HTTP request that carried this call said."""
        http = ctx.http
        if http is None:
            return {"http": None}
        token = http.access_token
        return {
            "http": True,
            "user": http.headers.get("X-User-Id"),
            "subject": token.subject if token is not None else None,
            "method": http.method,
        }

    return mcp


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--fd", type=int, help="a listening socket to serve on (HTTP)")
    parser.add_argument("--redis", help="redis://127.0.0.1:PORT/0")
    options = parser.parse_args()
    if options.fd is None:
        build().run()
        return
    import uvicorn

    from toolwire.transports.store.stores import RedisStore

    auth = ResourceServer("http://127.0.0.1/mcp", ["https://as.invalid"], StaticTokens(TOKENS))
    app = build().http_app(store=RedisStore(options.redis), auth=auth)
    uvicorn.run(app, fd=options.fd, log_level="warning", lifespan="on")


if __name__ == "__main__":
    main()
