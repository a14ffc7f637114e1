"""A mounted server's own middleware sees every request on its components, under its own
names and URIs, as it would for a direct client: ``resources/read``, ``prompts/get``,
``completion/complete`` and the listings, not only ``tools/call``.

Over real HTTP (uvicorn), in both eras, every message checked against the negotiated
revision's schema; the same server served directly is the reference.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

from mount_session import session
from toolwire import Context, Server
from toolwire.server.context import current_context

from http_server import serve_http
from wire import MODERN, checked_client

pytestmark = pytest.mark.timeout(60)

ERAS = ["2025-11-25", MODERN]


def weather(seen: list[tuple[str, Any]]) -> Server:
    """The mounted server; its middleware records what it sees, hides ``secret`` from
    listings, rewrites ``today``'s text and a prompt's description."""
    server = Server("weather")

    @server.tool()
    def forecast(city: str) -> str:
        """The forecast."""
        return f"sun in {city}"

    @server.tool()
    def secret() -> str:
        return "secret"

    @server.resource("weather://today", mime_type="text/plain")
    def today() -> str:
        return "sunny"

    @server.resource("weather://{city}/week", complete={"city": lambda v: ["oslo", "rome"]})
    def week(city: str) -> str:
        return f"a week of sun in {city}"

    @server.prompt(complete={"city": lambda v: ["Oslo"]})
    def plan(city: str) -> str:
        """Plan a day out."""
        return f"Plan a day out in {city}"

    @server.add_middleware
    async def watch(call: Any, call_next: Any) -> Any:
        params = call.params
        key = params.get("name") or params.get("uri") or params.get("ref")
        seen.append((call.method, key))
        result = await call_next(call)
        if call.method == "tools/list":
            result["tools"] = [t for t in result["tools"] if t["name"] != "secret"]
        elif call.method == "prompts/list":
            result["prompts"] = [{**p, "description": "checked"} for p in result["prompts"]]
        elif call.method == "resources/read":
            for content in result["contents"]:
                content["text"] = content["text"].upper()
        return result

    return server


@pytest.mark.parametrize("revision", ERAS)
async def test_a_mounted_servers_middleware_sees_what_a_direct_client_asks(revision: str) -> None:
    direct_seen: list[tuple[str, Any]] = []
    mounted_seen: list[tuple[str, Any]] = []
    outer_seen: list[tuple[str, Any]] = []
    mcp = Server("main")

    @mcp.tool()
    def status() -> str:
        return "ok"

    @mcp.add_middleware
    async def outer(call: Any, call_next: Any) -> Any:
        params = call.params
        outer_seen.append((call.method, params.get("name") or params.get("uri")))
        return await call_next(call)

    mcp.mount(weather(mounted_seen), prefix="w")
    with serve_http(weather(direct_seen)) as url:
        direct = await session(url, revision, "{}", "weather://{}")
    with serve_http(mcp) as url:
        mounted = await session(url, revision, "w_{}", "weather://w/{}")

    # the mounted server's middleware saw the same requests, under the same names and URIs
    # (server/discover is about the server answering: the mounting one)
    assert mounted_seen == [seen for seen in direct_seen if seen[0] != "server/discover"]
    assert ("resources/read", "weather://today") in mounted_seen
    assert ("resources/read", "weather://oslo/week") in mounted_seen
    assert ("prompts/get", "plan") in mounted_seen
    assert ("completion/complete", {"type": "ref/prompt", "name": "plan"}) in mounted_seen
    assert ("tools/list", None) in mounted_seen
    # the mounting server's middleware saw its own names, outside
    assert ("resources/read", "weather://w/today") in outer_seen
    assert ("prompts/get", "w_plan") in outer_seen

    # what the middleware changed shows through the mount, under the mounted names
    assert direct["tools"] == ["forecast"]
    assert mounted["tools"] == ["status", "w_forecast"]
    assert direct["prompts"] == [("plan", "checked")]
    assert mounted["prompts"] == [("w_plan", "checked")]
    assert direct["today"] == [
        {"uri": "weather://today", "mimeType": "text/plain", "text": "SUNNY"}
    ]
    assert mounted["today"] == [
        {"uri": "weather://w/today", "mimeType": "text/plain", "text": "SUNNY"}
    ]
    assert direct["week"] == mounted["week"] == "A WEEK OF SUN IN OSLO"
    assert mounted["resources"] == ["weather://w/today"]
    assert mounted["templates"] == ["weather://w/{city}/week"]
    for key in ("plan", "city", "week_city", "call"):
        assert mounted[key] == direct[key], key


@pytest.mark.parametrize("revision", ERAS)
async def test_a_mounted_servers_middleware_can_refuse_a_read(revision: str) -> None:
    inner = Server("vault")

    @inner.resource("vault://key")
    def key() -> str:
        return "hunter2"

    @inner.add_middleware
    async def deny(call: Any, call_next: Any) -> Any:
        if call.method == "resources/read":
            from toolwire.errors import RPCError

            raise RPCError(-32600, f"reading {call.params['uri']} is not allowed")
        return await call_next(call)

    mcp = Server("main")
    mcp.mount(inner, prefix="v")
    with serve_http(mcp) as url:
        async with checked_client(url, revision) as client:
            with pytest.raises(Exception, match=r"reading vault://key is not allowed"):
                await client.read_resource("vault://v/key")


def runs_where() -> Server:
    """Tools that say whether a Context was built for them and where they ran."""
    server = Server("where")

    @server.tool()
    async def loop_thread() -> int:
        return threading.get_ident()

    @server.tool(blocking=False)
    def quick() -> dict[str, Any]:
        return {"context": current_context() is not None, "thread": threading.get_ident()}

    @server.tool()
    def slow() -> dict[str, Any]:
        return {"context": current_context() is not None, "thread": threading.get_ident()}

    @server.tool()
    def with_ctx(ctx: Context) -> bool:
        return ctx is current_context()

    return server


async def run_where(url: str, revision: str, prefix: str) -> dict[str, Any]:
    async with checked_client(url, revision) as client:
        loop = (await client.call_tool(prefix + "loop_thread")).structured["result"]
        quick = (await client.call_tool(prefix + "quick")).structured
        slow = (await client.call_tool(prefix + "slow")).structured
        return {
            "quick": (quick["context"], quick["thread"] == loop),
            "slow": (slow["context"], slow["thread"] == loop),
            "with_ctx": (await client.call_tool(prefix + "with_ctx")).structured["result"],
        }


@pytest.mark.parametrize("revision", ERAS)
async def test_a_mounted_tool_runs_as_a_direct_call_runs_it(revision: str) -> None:
    with serve_http(runs_where()) as url:
        direct = await run_where(url, revision, "")
    inner = runs_where()
    mcp = Server("main")
    mcp.mount(inner, prefix="in")
    with serve_http(mcp) as url:
        mounted = await run_where(url, revision, "in_")
        # no Context for a tool that takes none; on the event loop when it never blocks
        assert (
            direct
            == mounted
            == {
                "quick": (False, True),
                "slow": (False, False),
                "with_ctx": True,
            }
        )
        # middleware added to the mounted server later still sees its calls
        seen: list[str | None] = []

        @inner.add_middleware
        async def record(call: Any, call_next: Any) -> Any:
            seen.append(call.tool_name)
            return await call_next(call)

        async with checked_client(url, revision) as client:
            await client.call_tool("in_quick")
        assert [name for name in seen if name is not None] == ["quick"]
