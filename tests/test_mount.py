"""``Server.mount``: another server's tools, resources and prompts served live, prefixed.

Over real transports (the mounting server as a stdio subprocess, and on uvicorn), in both
eras, every message checked against the negotiated revision's schema. The mounting server
(tests/servers/mount_outer.py) mounts a toolwire server and a proxy of a stdio toolwire
server (tests/servers/proxy_upstream.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator
from typing import Any

import pytest

from toolwire import Client, Server
from toolwire.client.host.naming import assign_names
from toolwire.composition.mount import prefixed_uri
from toolwire.errors import RegistrationError
from toolwire.protocol.naming import NAME_PATTERN, prefixed_name

from http_server import example_over, serve_http
from wire import MODERN, SERVERS, checked_client

pytestmark = pytest.mark.timeout(60)

SCRIPT = SERVERS / "mount_outer.py"
TRANSPORTS = ["stdio", "http"]
ERAS = ["2025-11-25", MODERN]


def answer(params: dict[str, Any]) -> dict[str, Any]:
    return {"action": "accept", "content": {"city": "Oslo", "name": "Ada"}}


@contextlib.asynccontextmanager
async def outer(transport: str, revision: str, **options: Any) -> AsyncIterator[Client]:
    with example_over(SCRIPT, transport) as target:
        async with checked_client(
            target, revision, elicitation_handler=answer, **options
        ) as client:
            yield client


def waiter(client: Client, method: str) -> asyncio.Event:
    """An event set each time ``client`` receives the notification ``method`` (cleared by
    the test before the next change)."""
    seen = asyncio.Event()
    receive = client._notification

    async def spy(message: dict[str, Any]) -> None:
        await receive(message)
        if message.get("method") == method:
            seen.set()

    client._notification = spy  # type: ignore[method-assign]
    return seen


async def tool_names(client: Client) -> list[str]:
    return [tool["name"] for tool in await client.list_tools()]


@pytest.mark.parametrize("revision", ERAS)
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_mounted_server_is_served_with_its_prefix(transport: str, revision: str) -> None:
    progress: list[tuple[Any, ...]] = []
    logs: list[dict[str, Any]] = []
    async with outer(transport, revision, log_handler=logs.append, log_level="info") as client:
        names = await tool_names(client)
        assert "weather_where" in names and "paris_forecast" in names
        assert "weather_secret" not in names  # the mounting server's visibility applies
        assert "weather_forecast" not in names  # replaced by its transform
        # progress and logs of the mounted tool reach this client
        result = await client.call_tool(
            "paris_forecast", {"n": 2}, progress=lambda *values: progress.append(values)
        )
        assert result.structured == {"city": "Paris", "days": 2, "sky": "clear"}
        assert progress == [(1, 2, "day 1"), (2, 2, "day 2")]
        assert [log["data"] for log in logs] == ["forecast for Paris"]
        # elicitation crosses the mount (a 2026-07-28 client answers an input_required round)
        assert (await client.call_tool("weather_where")).text == "Weather for Oslo"
        with pytest.raises(Exception, match="weather_secret"):
            await client.call_tool("weather_secret")
        # resources: scheme://prefix/rest
        resources = await client.list_resources()
        assert [r["uri"] for r in resources] == ["weather://weather/today", "notes://up/first"]
        read = await client.read_resource("weather://weather/today")
        assert read.text == "sunny" and read.contents[0]["uri"] == "weather://weather/today"
        templates = await client.list_resource_templates()
        assert [t["uriTemplate"] for t in templates] == [
            "weather://weather/{city}/week",
            "notes://up/{name}/text",
        ]
        assert (await client.read_resource("weather://weather/oslo/week")).text == (
            "a week of sun in oslo"
        )
        # prompts: prefix_name
        assert [p["name"] for p in await client.list_prompts()] == ["weather_plan", "up_summarize"]
        prompt = await client.get_prompt("weather_plan", {"city": "Rome"})
        assert prompt.messages[0]["content"]["text"] == "Plan a day out in Rome"
        # the mounting server's middleware saw the mounted tools' calls
        seen = (await client.call_tool("seen")).structured["result"]
        assert seen[:2] == ["paris_forecast", "weather_where"]


@pytest.mark.parametrize("revision", ERAS)
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_changes_in_the_mounted_server_show_up(transport: str, revision: str) -> None:
    async with outer(transport, revision) as client:
        changed = waiter(client, "notifications/tools/list_changed")
        if revision == MODERN:
            await client.listen(tools_list_changed=True)
        assert "weather_fresh" not in await tool_names(client)
        await client.call_tool("grow_weather", {"name": "fresh"})
        await asyncio.wait_for(changed.wait(), 15)
        assert "weather_fresh" in await tool_names(client)
        assert (await client.call_tool("weather_fresh")).text == "I am fresh"
        changed.clear()
        await client.call_tool("shrink_weather", {"name": "fresh"})
        await asyncio.wait_for(changed.wait(), 15)
        assert "weather_fresh" not in await tool_names(client)


@pytest.mark.parametrize("revision", ERAS)
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_mounted_proxy_of_a_stdio_server(transport: str, revision: str) -> None:
    progress: list[tuple[Any, ...]] = []
    logs: list[dict[str, Any]] = []
    async with outer(transport, revision, log_handler=logs.append, log_level="debug") as client:
        names = await tool_names(client)
        assert {"up_steps", "up_greet", "add_twice"} <= set(names) and "up_add" not in names
        result = await client.call_tool(
            "up_steps", {"count": 2}, progress=lambda *values: progress.append(values)
        )
        assert result.text == "2 steps"
        assert progress == [(1, 2, "step 1 of 2"), (2, 2, "step 2 of 2")]
        assert [log["data"] for log in logs] == ["step 1", "step 2"]
        assert (await client.call_tool("up_greet")).text == "Hello Ada"
        failed = await client.call_tool("up_fail")
        assert failed.is_error and failed.text == "it failed"
        # cancellation reaches the upstream
        started = asyncio.Event()
        call = asyncio.ensure_future(
            client.call_tool("up_wait_forever", progress=lambda *values: started.set())
        )
        await asyncio.wait_for(started.wait(), 15)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        assert (await client.call_tool("up_was_cancelled")).structured == {"result": True}
        # the upstream's list changes reach this client
        changed = waiter(client, "notifications/tools/list_changed")
        if revision == MODERN:
            await client.listen(tools_list_changed=True)
        await client.call_tool("up_grow")
        await asyncio.wait_for(changed.wait(), 15)
        assert "up_grown" in await tool_names(client)
        assert (await client.call_tool("up_grown")).text == "new"
        # the upstream's resources, templates and prompts, prefixed
        read = await client.read_resource("notes://up/first")
        assert read.text == "first note" and read.contents[0]["uri"] == "notes://up/first"
        read = await client.read_resource("notes://up/tuesday/text")
        assert read.text == "note tuesday" and read.contents[0]["uri"] == "notes://up/tuesday/text"
        (summarize,) = [p for p in await client.list_prompts() if p["name"] == "up_summarize"]
        assert summarize["arguments"] == [{"name": "text", "required": True}]
        prompt = await client.get_prompt("up_summarize", {"text": "x"})
        assert prompt.messages[0]["content"]["text"] == "Summarize: x"
        resources_changed = waiter(client, "notifications/resources/list_changed")
        if revision == MODERN:
            await client.listen(tools_list_changed=True, resources_list_changed=True)
        await client.call_tool("up_add_note", {"name": "extra"})
        await asyncio.wait_for(resources_changed.wait(), 15)
        uris = [r["uri"] for r in await client.list_resources()]
        assert "notes://up/extra" in uris
        assert (await client.read_resource("notes://up/extra")).text == "note extra"


async def updates(client: Client, uri: str) -> asyncio.Queue[dict[str, Any]]:
    """Subscribe ``client`` to ``uri``; the queue gets each update of it."""
    seen: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    await client.subscribe_resource(uri, seen.put_nowait)
    return seen


@pytest.mark.parametrize("revision", ERAS)
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_completions_and_subscriptions_cross_the_mount(transport: str, revision: str) -> None:
    async with outer(transport, revision) as client:
        assert "completions" in client.server_capabilities
        # completions: of a mounted server's prompt and template, and of a proxied upstream's
        found = await client.complete(prompt="weather_plan", argument="city", value="r")
        assert found.values == ["Rome"]
        found = await client.complete(
            resource_template="weather://weather/{city}/week", argument="city", value="o"
        )
        assert found.values == ["oslo"]
        found = await client.complete(prompt="up_summarize", argument="text", value="b")
        assert found.values == ["brief"]
        found = await client.complete(
            resource_template="notes://up/{name}/text", argument="name", value="t"
        )
        assert found.values == ["tuesday"]
        found = await client.complete(prompt="up_summarize", argument="nothing", value="")
        assert found.values == []

        # subscriptions: legacy resources/subscribe, or a 2026-07-28 listen stream
        local = await updates(client, "weather://weather/today")
        local_week = await updates(client, "weather://weather/oslo/week")
        upstream = await updates(client, "notes://up/first")
        upstream_note = await updates(client, "notes://up/tuesday/text")
        await client.call_tool("touch_weather", {"uri": "weather://today"})
        assert (await asyncio.wait_for(local.get(), 15))["uri"] == "weather://weather/today"
        await client.call_tool("touch_weather", {"uri": "weather://oslo/week"})
        update = await asyncio.wait_for(local_week.get(), 15)
        assert update["uri"] == "weather://weather/oslo/week"
        await client.call_tool("up_touch", {"uri": "notes://first"})
        assert (await asyncio.wait_for(upstream.get(), 15))["uri"] == "notes://up/first"
        await client.call_tool("up_touch", {"uri": "notes://tuesday/text"})
        update = await asyncio.wait_for(upstream_note.get(), 15)
        assert update["uri"] == "notes://up/tuesday/text"
        # updates of what nobody subscribed to reach nobody; the others were one each
        await client.call_tool("up_touch", {"uri": "notes://monday/text"})
        await client.call_tool("touch_weather", {"uri": "weather://rome/week"})
        await client.call_tool("up_touch", {"uri": "notes://first"})
        assert (await asyncio.wait_for(upstream.get(), 15))["uri"] == "notes://up/first"
        assert local.empty() and local_week.empty() and upstream_note.empty()


@pytest.mark.parametrize("revision", ERAS)
async def test_a_legacy_upstream_completes_and_subscribes_across_the_mount(revision: str) -> None:
    upstream = [sys.executable, str(SERVERS / "proxy_upstream.py")]
    mcp = Server("main")
    mcp.mount(Server.proxy(upstream, protocol_version="2025-11-25"), prefix="up")
    with serve_http(mcp) as url:
        async with checked_client(url, revision) as client:
            found = await client.complete(
                resource_template="notes://up/{name}/text", argument="name", value="w"
            )
            assert found.values == ["wednesday"]
            seen = await updates(client, "notes://up/wednesday/text")  # resources/subscribe
            await client.call_tool("up_touch", {"uri": "notes://wednesday/text"})
            update = await asyncio.wait_for(seen.get(), 15)
            assert update["uri"] == "notes://up/wednesday/text"
            with pytest.raises(Exception, match=r"Resource not found|does not offer updates"):
                await updates(client, "notes://up/nothing")  # nothing serves it here


@pytest.mark.parametrize("revision", ERAS)
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_mounted_proxy_whose_upstream_starts_late(
    transport: str, revision: str, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    flag = tmp_path / "upstream-may-start"
    monkeypatch.setenv("TOOLWIRE_LATE_FLAG", str(flag))
    with example_over(SERVERS / "mount_late.py", transport) as target:
        async with checked_client(target, revision) as client:
            changed = waiter(client, "notifications/tools/list_changed")
            if revision == MODERN:
                await client.listen(tools_list_changed=True)
            assert await tool_names(client) == ["status"]  # the upstream is not there
            flag.touch()  # now it starts: the mount lists it again, and this client is told
            await asyncio.wait_for(changed.wait(), 15)
            assert await tool_names(client) == ["status", "late_hello"]
            assert (await client.call_tool("late_hello", {"name": "Ada"})).text == "Hello Ada"


@pytest.mark.parametrize("revision", ERAS)
async def test_the_mounted_servers_own_visibility_and_middleware_apply(revision: str) -> None:
    seen_outer: list[str | None] = []
    seen_inner: list[str | None] = []
    inner = Server("inner", visibility=lambda tool, request: "staff" not in tool.tags)

    @inner.tool()
    def echo(text: str) -> str:
        return text

    @inner.tool(tags={"staff"})
    def payroll() -> str:
        return "salaries"

    @inner.add_middleware
    async def shout(call: Any, call_next: Any) -> Any:
        if call.tool_name is not None:  # (it sees the listings too)
            seen_inner.append(call.tool_name)
        if "text" in call.arguments:
            call.arguments["text"] = call.arguments["text"].upper()
        return await call_next(call)

    mcp = Server("outer")

    @mcp.add_middleware
    async def record(call: Any, call_next: Any) -> Any:
        if call.tool_name is not None:
            seen_outer.append(call.tool_name)
        return await call_next(call)

    @mcp.tool()
    async def open_payroll() -> str:
        """Drop the mounted server's visibility rule."""
        inner.visibility = None
        return "open"

    mcp.mount(inner, prefix="in")
    with serve_http(mcp) as url:
        async with checked_client(url, revision) as client:
            changed = waiter(client, "notifications/tools/list_changed")
            if revision == MODERN:
                await client.listen(tools_list_changed=True)
            assert await tool_names(client) == ["open_payroll", "in_echo"]
            with pytest.raises(Exception, match="in_payroll"):
                await client.call_tool("in_payroll")
            assert (await client.call_tool("in_echo", {"text": "hi"})).text == "HI"
            assert seen_outer == ["in_payroll", "in_echo"]  # the outer server's names
            assert seen_inner == ["echo"]  # its own name, and only calls it may see
            await client.call_tool("open_payroll")
            await asyncio.wait_for(changed.wait(), 15)
            assert await tool_names(client) == ["open_payroll", "in_echo", "in_payroll"]
            assert (await client.call_tool("in_payroll")).text == "salaries"
            assert seen_inner == ["echo", "payroll"]


def test_prefixed_names_follow_the_hosts_rule() -> None:
    # the Host's name for a name two servers share is the mount's prefixed name
    shared = assign_names([("weather", "forecast"), ("other", "forecast")])
    assert shared[("weather", "forecast")] == prefixed_name("weather", "forecast")
    assert prefixed_name("weather", "forecast") == "weather_forecast"
    long = prefixed_name("a" * 40, "b" * 40)
    assert len(long) <= 64 and NAME_PATTERN.fullmatch(long)
    assert long == assign_names([("a" * 40, "b" * 40), ("c", "b" * 40)])[("a" * 40, "b" * 40)]
    assert prefixed_uri("w", "data://today") == "data://w/today"
    assert prefixed_uri("w", "file:///etc/x") == "file://w//etc/x"
    assert prefixed_uri("w", "urn:isbn:1") == "urn:w/isbn:1"


def test_clashes_and_bad_prefixes_are_registration_errors() -> None:
    inner = Server("inner")
    inner.add_tool(lambda: "w", name="alpha")
    inner.add_tool(lambda: "x", name="ping")
    inner.add_prompt(lambda: "p", name="hello")
    mcp = Server("outer")
    mcp.add_tool(lambda: "y", name="ping")
    with pytest.raises(RegistrationError, match="'ping' is already registered"):
        mcp.mount(inner)
    assert [t.name for t in mcp.tools] == ["ping"]  # nothing of it stays behind
    with pytest.raises(RegistrationError, match="Invalid mount prefix"):
        mcp.mount(inner, prefix="has space")
    with pytest.raises(RegistrationError, match="on itself"):
        mcp.mount(mcp)
    mcp.mount(inner, prefix="in")
    assert {t.name for t in mcp.tools} == {"ping", "in_alpha", "in_ping"}
    assert [p.name for p in mcp.prompts] == ["in_hello"]
    with pytest.raises(RegistrationError, match="already mounted"):
        mcp.mount(inner, prefix="again")
    other = Server("other")
    other.add_tool(lambda: "z", name="in_ping")
    with pytest.raises(RegistrationError, match="'in_ping' is already registered"):
        mcp.mount(other)


async def test_namespace_is_fastmcps_name_for_the_prefix() -> None:
    inner = Server("inner")
    inner.add_tool(lambda: "w", name="forecast")
    inner.add_resource(lambda: "sunny", uri="weather://today")
    mcp = Server("outer")
    with pytest.raises(RegistrationError, match=r"prefix=.a. and namespace=.b.*give one"):
        mcp.mount(inner, "a", namespace="b")
    mcp.mount(server=inner, namespace="weather")
    assert [t.name for t in await mcp.list_tools()] == ["weather_forecast"]
    assert [str(r.uri) for r in await mcp.list_resources()] == ["weather://weather/today"]
    assert await mcp.list_prompts() == [] and await mcp.list_resource_templates() == []
