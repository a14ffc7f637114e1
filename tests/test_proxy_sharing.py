"""Who shares the proxy's upstream connection: by default every downstream session, except
a legacy session the upstream may ask something (its client declared sampling, elicitation
or roots), which gets its own when it first makes a request that can lead to a question, up
to ``max_upstreams`` at once; ``shared=True`` and ``shared=False`` force one way.

Real processes: the proxy served by uvicorn (or run by ``toolwire proxy``), a stdio upstream (tests/servers/proxy_upstream.py)
spoken to in a legacy revision (its questions come on the connection, not inside a request,
so the connection is what routes them); every message the proxy sends downstream is checked
against the negotiated revision's JSON Schema.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from asyncio.subprocess import DEVNULL, PIPE
from pathlib import Path
from typing import Any

import pytest

from toolwire import Server

from http_server import serve_http
from wire import MODERN, SERVERS, checked_client

pytestmark = pytest.mark.timeout(60)

UPSTREAM = [sys.executable, str(SERVERS / "proxy_upstream.py")]
LEGACY = "2025-11-25"  # how the proxy speaks to its upstream here


def named(name: str) -> Any:
    """An elicitation handler that gives ``name``, and remembers it was asked."""

    def answer(params: dict[str, Any]) -> dict[str, Any]:
        answer.asked += 1  # type: ignore[attr-defined]
        return {"action": "accept", "content": {"name": name}}

    answer.asked = 0  # type: ignore[attr-defined]
    return answer


def started(seen: asyncio.Event) -> Any:
    return lambda *progress: seen.set()


@pytest.mark.parametrize("revision", ["2025-06-18", LEGACY])
async def test_sessions_share_one_upstream_unless_it_may_ask_them(revision: str) -> None:
    proxy = Server.proxy(UPSTREAM, protocol_version=LEGACY)
    with serve_http(proxy) as url:
        for _ in range(2):
            async with checked_client(url, revision) as client:
                assert "greet" in [tool["name"] for tool in await client.list_tools()]
                assert (await client.call_tool("add", {"a": 1, "b": 2})).text == "3"
        async with checked_client(url, MODERN) as client:
            assert (await client.call_tool("add", {"a": 2, "b": 2})).text == "4"
        assert proxy.upstream_handshakes == 1
        async with checked_client(url, revision, elicitation_handler=named("Ada")) as asked:
            await asked.list_tools()  # a listing asks nothing: still the shared connection
            assert proxy.upstream_handshakes == 1
            assert (await asked.call_tool("greet")).text == "Hello Ada"
            assert proxy.upstream_handshakes == 2  # its own, opened for the call
            assert (await asked.call_tool("add", {"a": 1, "b": 1})).text == "2"
        async with checked_client(url, revision, roots=["file:///work"]) as rooted:
            assert (await rooted.call_tool("roots")).structured == {"result": ["file:///work"]}
            await rooted.set_roots(["file:///elsewhere"])
            changed = await rooted.call_tool("changed_roots")
            assert changed.structured == {"result": ["file:///elsewhere"]}
        assert proxy.upstream_handshakes == 3


async def test_a_single_session_that_may_be_asked_opens_one_upstream() -> None:
    """As over stdio, where a host (which offers roots, say) is the one session: its first
    listing opens its own connection rather than a shared one it would leave."""
    proxy = Server.proxy(UPSTREAM, protocol_version=LEGACY)
    async with checked_client(proxy, LEGACY, roots=["file:///work"]) as client:
        assert "roots" in [tool["name"] for tool in await client.list_tools()]
        assert (await client.call_tool("roots")).structured == {"result": ["file:///work"]}
    assert proxy.upstream_handshakes == 1


async def test_shared_and_per_session_force_one_way() -> None:
    for shared, handshakes in ((True, 1), (False, 3)):
        proxy = Server.proxy(UPSTREAM, shared=shared, protocol_version=LEGACY)
        with serve_http(proxy) as url:
            for _ in range(2):
                async with checked_client(url, LEGACY) as client:
                    assert (await client.call_tool("add", {"a": 1, "b": 2})).text == "3"
            async with checked_client(url, LEGACY, elicitation_handler=named("Ada")) as client:
                assert (await client.call_tool("greet")).text == "Hello Ada"
        assert proxy.upstream_handshakes == handshakes, shared


async def test_sessions_past_max_upstreams_share(caplog: pytest.LogCaptureFixture) -> None:
    proxy = Server.proxy(UPSTREAM, max_upstreams=1, protocol_version=LEGACY)
    with serve_http(proxy) as url:
        async with (
            checked_client(url, LEGACY, elicitation_handler=named("Ada")) as first,
            checked_client(url, LEGACY, elicitation_handler=named("Bea")) as second,
        ):
            with caplog.at_level(logging.WARNING, logger="toolwire.proxy"):
                assert (await first.call_tool("greet")).text == "Hello Ada"
                assert (await second.call_tool("greet")).text == "Hello Bea"
                assert (await second.call_tool("greet")).text == "Hello Bea"
            assert proxy.upstream_handshakes == 2  # the first's own, and the shared one
    assert caplog.text.count("1 upstream connections are open (max_upstreams)") == 1


@pytest.mark.parametrize("shared", [None, True])
async def test_a_question_never_goes_to_another_sessions_call(shared: bool | None) -> None:
    """Bea's call asks once Ann's call is the latest in flight: on a connection of its own
    (the default) it reaches Bea; on one connection for both (``shared=True``) the proxy
    cannot tell whose it is, and asks nobody rather than Ann."""
    proxy = Server.proxy(UPSTREAM, shared=shared, protocol_version=LEGACY)
    ann, bea = named("Ann"), named("Bea")
    with serve_http(proxy) as url:
        async with (
            checked_client(url, LEGACY, elicitation_handler=ann) as first,
            checked_client(url, LEGACY, elicitation_handler=bea) as second,
        ):
            waiting, waited = asyncio.Event(), asyncio.Event()
            asking = asyncio.ensure_future(
                second.call_tool("greet_when_released", progress=started(waiting))
            )
            await asyncio.wait_for(waiting.wait(), 15)
            held = asyncio.ensure_future(first.call_tool("wait_forever", progress=started(waited)))
            await asyncio.wait_for(waited.wait(), 15)
            assert (await second.call_tool("release")).text == "released"
            result = await asyncio.wait_for(asking, 15)
            held.cancel()
            with pytest.raises(asyncio.CancelledError):
                await held
    assert ann.asked == 0
    if shared is None:
        assert result.text == "Hello Bea" and bea.asked == 1
    else:
        assert result.is_error and bea.asked == 0


async def test_a_shared_subscription_lasts_while_a_session_holds_it() -> None:
    proxy = Server.proxy(UPSTREAM, protocol_version=LEGACY)
    uri = "notes://first"
    with serve_http(proxy) as url:
        async with checked_client(url, LEGACY) as first, checked_client(url, LEGACY) as second:
            updates: list[str] = []
            heard = asyncio.Event()

            def update(params: dict[str, Any]) -> None:
                updates.append(params["uri"])
                heard.set()

            await first.subscribe_resource(uri)
            await second.subscribe_resource(uri, update)
            await first.unsubscribe_resource(uri)  # the second still follows it
            await first.call_tool("touch", {"uri": uri})
            await asyncio.wait_for(heard.wait(), 15)
            assert updates == [uri]
    assert proxy.upstream_handshakes == 1


@pytest.mark.parametrize(("flag", "processes"), [(None, 2), ("--per-session", 3), ("--shared", 1)])
async def test_the_cli_shares_as_told(flag: str | None, processes: int) -> None:
    """``toolwire proxy --transport http``: two sessions that can be asked nothing and one
    that can, each having called a tool; the upstream processes the proxy started."""
    command = [sys.executable, "-m", "toolwire", "proxy", "--command", " ".join(UPSTREAM)]
    command += ["--transport", "http", "--port", "0", "--protocol-version", LEGACY]
    proxy = await asyncio.create_subprocess_exec(
        *command, *([flag] if flag else []), stdin=DEVNULL, stderr=PIPE
    )
    try:
        assert proxy.stderr is not None
        line = await asyncio.wait_for(proxy.stderr.readline(), 30)
        url = line.decode().split(" at ")[-1].strip()
        async with (
            checked_client(url, LEGACY) as first,
            checked_client(url, LEGACY) as second,
            checked_client(url, LEGACY, elicitation_handler=named("Ada")) as asked,
        ):
            assert (await first.call_tool("add", {"a": 1, "b": 1})).text == "2"
            assert (await second.call_tool("add", {"a": 1, "b": 2})).text == "3"
            assert (await asked.call_tool("greet")).text == "Hello Ada"
            children = Path(f"/proc/{proxy.pid}/task/{proxy.pid}/children").read_text()
            assert len(children.split()) == processes
    finally:
        proxy.terminate()
        await asyncio.wait_for(proxy.wait(), 15)
