"""``@mcp.custom_route(path, methods)``: plain HTTP routes beside the MCP endpoint, as
FastMCP and the official SDK serve them (toolwire.transports.http.routes), on a real uvicorn.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse

from toolwire import FastMCP, Server
from toolwire.auth import ResourceServer, StaticTokens

from http_server import serve_http
from wire import checked_client

pytestmark = pytest.mark.timeout(60)
TIMEOUT = 15.0


def _server(cls: type[Server], **options: object) -> Server:
    mcp = cls("routes", **options)  # type: ignore[arg-type]

    @mcp.tool()
    def add(a: int, b: int) -> int:
        return a + b

    @mcp.custom_route("/health", methods=["GET"])
    async def health(request: Request) -> JSONResponse:
        return JSONResponse({"status": "ok", "tools": len(await mcp.list_tools())})

    @mcp.custom_route("/items/{item_id}", methods=["GET", "POST"], name="item")
    async def item(request: Request) -> PlainTextResponse:
        body = (await request.body()).decode()
        return PlainTextResponse(f"{request.method} {request.path_params['item_id']} {body}")

    return mcp


@pytest.mark.parametrize("cls", [Server, FastMCP])
async def test_routes_answer_beside_the_mcp_endpoint(cls: type[Server]) -> None:
    with serve_http(_server(cls)) as url:
        base = url.removesuffix("/mcp")
        async with httpx.AsyncClient(timeout=TIMEOUT) as http:
            health = await http.get(f"{base}/health")
            assert (health.status_code, health.json()) == (200, {"status": "ok", "tools": 1})
            got = await http.post(f"{base}/items/42", content=b"x")
            assert (got.status_code, got.text) == (200, "POST 42 x")
            assert (await http.delete(f"{base}/health")).status_code == 405
            assert (await http.get(f"{base}/nothing")).status_code == 404
            assert (await http.get(f"{base}/healthz")).json() == {"status": "ok"}  # toolwire's
        async with checked_client(url) as client:
            assert (await client.call_tool("add", {"a": 1, "b": 2})).structured == {"result": 3}


def test_routes_are_outside_the_servers_authentication() -> None:
    auth = ResourceServer("http://127.0.0.1/mcp", [], StaticTokens({"tok": ["mcp"]}))
    with serve_http(_server(Server, auth=auth)) as url:
        base = url.removesuffix("/mcp")
        assert httpx.get(f"{base}/health", timeout=TIMEOUT).status_code == 200
        assert httpx.post(url, json={}, timeout=TIMEOUT).status_code == 401  # MCP still asks


def test_a_route_is_registered_with_its_options() -> None:
    mcp = _server(Server)
    assert [(r.path, list(r.methods), r.name) for r in mcp.custom_routes] == [
        ("/health", ["GET"], None),
        ("/items/{item_id}", ["GET", "POST"], "item"),
    ]
    assert Server("other").custom_routes == ()


class Stamped:
    """A pure ASGI middleware that adds a header to every answer."""

    def __init__(self, app: Any, value: str) -> None:
        self.app = app
        self.value = value

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        async def stamped(message: Any) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message["headers"], (b"x-stamp", self.value.encode())]
            await send(message)

        await self.app(scope, receive, stamped)


def test_starlette_middleware_wraps_every_request() -> None:
    # FastMCP's http_app(middleware=[...]) / run_http_async(middleware=[...])
    from starlette.middleware import Middleware
    from starlette.middleware.cors import CORSMiddleware

    middleware = [
        Middleware(CORSMiddleware, allow_origins=["http://app.example"], allow_methods=["*"]),
        Middleware(Stamped, value="outer"),
    ]
    with serve_http(_server(Server), middleware=middleware) as url:
        base = url.removesuffix("/mcp")
        origin = {"Origin": "http://app.example"}
        with httpx.Client(timeout=TIMEOUT) as http:
            health = http.get(f"{base}/health", headers=origin)
            assert health.headers["x-stamp"] == "outer"
            assert health.headers["access-control-allow-origin"] == "http://app.example"
            listed = http.post(
                url,
                headers={**origin, "Accept": "application/json, text/event-stream"},
                json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
            )
            assert listed.headers["x-stamp"] == "outer"


def test_the_app_keeps_few_enough_attributes_for_compact_instance_dicts() -> None:
    # as for a tool (test_tools.py): a 30th attribute slows every lookup of every request;
    # routes and middleware are class defaults set only on an app that has some
    plain = Server("plain").http_app()
    assert len(vars(plain)) <= 28, sorted(vars(plain))  # room for the routes
    with_routes = _server(Server).http_app()
    assert len(vars(with_routes)) <= 29, sorted(vars(with_routes))
