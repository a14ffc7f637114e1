"""The proxy's fast path (``toolwire.proxy.fast``): a plain ``tools/call`` of a legacy
session is forwarded without a task, and everything the slow path does still holds for it
(questions, log messages, errors, cancellation, the upstream client's timeout, a crashed
upstream, stdio's limit on calls in flight), while middleware on the proxy still runs.

Real processes throughout (a proxy served by uvicorn, or ``toolwire proxy`` over stdio, in
front of a stdio upstream); every message the proxy sends downstream is checked against
the JSON Schema of the negotiated revision.
"""

from __future__ import annotations

import asyncio
import importlib.util
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from toolwire import Client, Server
from toolwire.errors import ServerError
from toolwire.proxy import fast

from http_server import serve_http
from wire import MODERN, SERVERS, checked_client

pytestmark = pytest.mark.timeout(60)

UPSTREAM = [sys.executable, str(SERVERS / "proxy_upstream.py")]
LEGACY = ["2025-06-18", "2024-11-05"]


def person(params: dict[str, Any]) -> dict[str, Any]:
    return {"action": "accept", "content": {"name": "Ada"}}


def model(params: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m"}


@pytest.fixture
def fast_calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The names of the tools called on the fast path (in this process)."""
    names: list[str] = []
    start = fast.FastCall.__init__

    def spy(self: fast.FastCall, *args: Any) -> None:
        start(self, *args)
        names.append(self.params["name"])

    monkeypatch.setattr(fast.FastCall, "__init__", spy)
    yield names


@pytest.mark.parametrize("upstream_era", ["2025-11-25", MODERN])
@pytest.mark.parametrize("revision", LEGACY)
async def test_plain_calls_take_the_fast_path(
    revision: str, upstream_era: str, fast_calls: list[str]
) -> None:
    proxy = Server.proxy(UPSTREAM, protocol_version=upstream_era)
    logs: list[Any] = []
    with serve_http(proxy) as url:
        async with checked_client(
            url,
            revision,
            elicitation_handler=person,
            sampling_handler=model,
            log_handler=lambda params: logs.append(params["data"]),
            log_level="debug",
        ) as client:
            assert (await client.call_tool("add", {"a": 1, "b": 2})).text == "3"  # connects
            assert fast_calls == []
            result = await client.call_tool("add", {"a": 2, "b": 2})
            assert result.text == "4"
            # shaped for the downstream revision: 2024-11-05 has no structuredContent
            assert ("structuredContent" in result.raw) is (revision == "2025-06-18")
            assert (await client.call_tool("steps", {"count": 2})).text == "2 steps"
            assert logs == ["step 1", "step 2"]  # the upstream's log messages reach the caller
            if revision == "2025-06-18":
                assert (await client.call_tool("greet")).text == "Hello Ada"
            elif upstream_era == MODERN:  # 2024-11-05 has no elicitation: never asked
                with pytest.raises(ServerError, match="does not support elicitation"):
                    await client.call_tool("greet")
            else:  # (the legacy upstream's tool gets the refusal and answers isError)
                assert (await client.call_tool("greet")).is_error
            assert (await client.call_tool("think")).text == "model said: hi"
            failed = await client.call_tool("fail")
            assert failed.is_error and failed.text == "it failed"
            with pytest.raises(ServerError) as unknown:
                await client.call_tool("nope")
            assert unknown.value.code == -32602 and "Unknown tool: 'nope'" in unknown.value.message
            called = ["add", "steps", "greet", "think", "fail", "nope"]
            assert fast_calls == called
            progress: list[Any] = []
            await client.call_tool("steps", {"count": 1}, progress=lambda *v: progress.append(v))
            assert [values[:2] for values in progress] == [(1, 1)]
            assert fast_calls == called  # a progress token takes the slow path
    assert proxy.upstream_handshakes == 1


async def cancel_a_waiting_call(client: Client, started: asyncio.Event) -> None:
    """Call ``wait_logged`` and cancel it once it says it started (``started``); the
    upstream's tool saw the cancellation."""
    call = asyncio.ensure_future(client.call_tool("wait_logged"))
    await asyncio.wait_for(started.wait(), 15)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    assert (await client.call_tool("was_cancelled")).text == "true"


def in_memory_upstream() -> Server:
    """tests/servers/proxy_upstream.py's server, loaded into this process (a module of its
    own each time: its state is the test's)."""
    spec = importlib.util.spec_from_file_location("proxy_upstream", UPSTREAM[1])
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.mcp


async def test_an_in_memory_upstream_takes_the_fast_path(fast_calls: list[str]) -> None:
    proxy = Server.proxy(in_memory_upstream())
    logs: list[Any] = []
    started = asyncio.Event()

    def log(params: dict[str, Any]) -> None:
        logs.append(params["data"])
        if params["data"] == "started":
            started.set()

    async with checked_client(
        proxy,
        "2025-06-18",
        elicitation_handler=person,
        log_handler=log,
        log_level="info",
    ) as client:
        assert (await client.call_tool("add", {"a": 1, "b": 2})).text == "3"  # connects
        assert (await client.call_tool("add", {"a": 2, "b": 2})).text == "4"
        assert (await client.call_tool("steps", {"count": 2})).text == "2 steps"
        assert (await client.call_tool("greet")).text == "Hello Ada"
        await cancel_a_waiting_call(client, started)
    assert logs[:2] == ["step 1", "step 2"]
    assert fast_calls == ["add", "steps", "greet", "wait_logged", "was_cancelled"]


async def test_middleware_on_the_proxy_still_runs(fast_calls: list[str]) -> None:
    proxy = Server.proxy(UPSTREAM)
    seen: list[Any] = []

    @proxy.add_middleware
    async def watch(call: Any, call_next: Any) -> Any:
        if call.method == "tools/call":
            seen.append(call.tool_name)
            call.arguments["b"] = 10
        return await call_next(call)

    with serve_http(proxy) as url:
        async with checked_client(url, "2025-06-18") as client:
            for a in range(2):
                assert (await client.call_tool("add", {"a": a, "b": 1})).text == str(a + 10)
    assert seen == ["add", "add"] and fast_calls == []


@pytest.mark.parametrize("revision", LEGACY)
async def test_a_cancelled_fast_call_is_cancelled_upstream(
    revision: str, fast_calls: list[str]
) -> None:
    proxy = Server.proxy(UPSTREAM)
    started = asyncio.Event()
    with serve_http(proxy) as url:
        async with checked_client(
            url, revision, log_handler=lambda params: started.set(), log_level="info"
        ) as client:
            await client.call_tool("add", {"a": 1, "b": 1})
            await cancel_a_waiting_call(client, started)
    assert fast_calls == ["wait_logged", "was_cancelled"]


async def test_a_fast_call_times_out_as_the_upstream_client_says(fast_calls: list[str]) -> None:
    proxy = Server.proxy(UPSTREAM, timeout=1.0)
    with serve_http(proxy) as url:
        async with checked_client(url, "2025-06-18") as client:
            await client.call_tool("add", {"a": 1, "b": 1})
            with pytest.raises(ServerError) as late:
                await client.call_tool("wait_logged")
            assert late.value.code == -32603
            assert "tools/call timed out after 1 s" in late.value.message
            # ... and the upstream was told to stop
            assert (await client.call_tool("was_cancelled")).structured == {"result": True}
    assert fast_calls == ["wait_logged", "was_cancelled"]


async def test_fast_calls_time_out_one_after_another(fast_calls: list[str]) -> None:
    # One timer stands for every fast call of an upstream client: each call still expires,
    # the quick ones meanwhile are answered, and the timer starts again after it went idle.
    proxy = Server.proxy(UPSTREAM, timeout=1.0)
    with serve_http(proxy) as url:
        async with checked_client(url, "2025-06-18") as client:
            await client.call_tool("add", {"a": 1, "b": 1})  # connects
            waiting = [asyncio.ensure_future(client.call_tool("wait_logged")) for _ in range(2)]
            assert (await client.call_tool("add", {"a": 2, "b": 2})).text == "4"
            for failed in await asyncio.gather(*waiting, return_exceptions=True):
                assert isinstance(failed, ServerError)
                assert "tools/call timed out after 1 s" in failed.message
            with pytest.raises(ServerError, match="timed out after 1 s"):
                await client.call_tool("wait_logged")
            assert (await client.call_tool("add", {"a": 3, "b": 3})).text == "6"
    assert sorted(fast_calls) == ["add", "add", "wait_logged", "wait_logged", "wait_logged"]


async def test_an_upstream_crash_during_a_fast_call(fast_calls: list[str]) -> None:
    proxy = Server.proxy(UPSTREAM)
    with serve_http(proxy) as url:
        async with checked_client(url, "2025-06-18") as client:
            await client.call_tool("add", {"a": 1, "b": 1})
            with pytest.raises(ServerError) as crashed:
                await client.call_tool("crash")
            assert crashed.value.code == -32603
            assert "upstream server is unavailable" in crashed.value.message
            assert (await client.call_tool("add", {"a": 1, "b": 2})).text == "3"
    assert fast_calls == ["crash"]  # the next call connects again, on the slow path
    assert proxy.upstream_handshakes == 2


async def test_many_calls_in_flight_through_a_stdio_proxy() -> None:
    # More calls at once than a stdio server handles in flight (32): each one that ends
    # lets the next waiting line in, on the fast path as on the slow one.
    command = [sys.executable, "-m", "toolwire", "proxy", "--command", " ".join(UPSTREAM)]
    async with checked_client(command, "2025-06-18") as client:
        await client.call_tool("add", {"a": 0, "b": 0})
        results = await asyncio.gather(
            *(client.call_tool("add", {"a": a, "b": 1}) for a in range(200))
        )
        assert [result.text for result in results] == [str(a + 1) for a in range(200)]
