"""A mounted proxy's upstream subscriptions follow the mounting server's subscribers: an
upstream URI is subscribed once however many sessions subscribe to it, and unsubscribed when
the last of them unsubscribes (``resources/unsubscribe``, or the end of a 2026-07-28 listen
stream) or closes.

Over real HTTP (uvicorn) on both sides, the mounting server's clients in both eras, every
message they exchange checked against the negotiated revision's schema; the upstream is a
toolwire server that records how it is subscribed and unsubscribed, in either era
(``resources/subscribe``/``unsubscribe``, or a listen stream opened and ended).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from toolwire import Server

from http_server import serve_http
from wire import MODERN, checked_client

pytestmark = pytest.mark.timeout(60)

ERAS = ["2025-11-25", MODERN]


class Upstream:
    """An upstream server that records the subscription requests it gets."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str]] = []
        self.unsubscribed = threading.Event()  # (its loop runs on the uvicorn thread)
        self.server = server = Server("notes")

        @server.resource("notes://first", mime_type="text/plain")
        def first() -> str:
            return "first note"

        @server.resource("notes://{name}/text")
        def note(name: str) -> str:
            return f"note {name}"

        @server.resource("notes://second", mime_type="text/plain")
        def second() -> str:
            return "second note"

        @server.tool()
        def touch(uri: str) -> str:
            server.resource_updated(uri)
            return "touched"

        @server.tool()
        def drop() -> str:
            """Remove ``notes://first`` and the template (one list change upstream)."""
            server.remove_resource("notes://first")
            server.remove_resource("notes://{name}/text")
            return "dropped"

        @server.tool()
        def restore() -> str:
            server.add_resource(first, "notes://first", mime_type="text/plain")
            return "restored"

        @server.add_middleware
        async def record(call: Any, call_next: Any) -> Any:
            if call.method == "subscriptions/listen":  # a 2026-07-28 proxy subscribes so
                wanted = call.params.get("notifications") or {}
                for uri in wanted.get("resourceSubscriptions") or ():
                    self.requests.append(("subscribe", uri))
            if call.method in ("resources/subscribe", "resources/unsubscribe"):
                self.requests.append((call.method.split("/")[1], call.params["uri"]))
                if call.method == "resources/unsubscribe":
                    result = await call_next(call)
                    self.unsubscribed.set()
                    return result
            return await call_next(call)

        # ... and unsubscribes by ending that listen stream, which the server's session
        # reports here (its subscriptions end)
        ended = server.unwatch_later

        def stream_ended(uris: Any) -> None:
            self.requests += [("unsubscribe", uri) for uri in uris]
            self.unsubscribed.set()
            ended(uris)

        server.unwatch_later = stream_ended  # type: ignore[method-assign]

    async def next_unsubscribe(self) -> None:
        assert await asyncio.to_thread(self.unsubscribed.wait, 15), "no upstream unsubscribe"
        self.unsubscribed.clear()

    async def unsubscribed_from(self, *uris: str) -> None:
        """Wait until the upstream was unsubscribed from each of ``uris``."""
        while not all(("unsubscribe", uri) in self.requests for uri in uris):
            await self.next_unsubscribe()


@contextlib.contextmanager
def mounted(upstream_revision: str) -> Iterator[tuple[Upstream, str]]:
    upstream = Upstream()
    with serve_http(upstream.server) as up_url:
        mcp = Server("main")
        mcp.mount(Server.proxy(up_url, protocol_version=upstream_revision), prefix="up")
        with serve_http(mcp) as url:
            yield upstream, url


async def updates(client: Any, uri: str) -> asyncio.Queue[dict[str, Any]]:
    seen: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    await client.subscribe_resource(uri, seen.put_nowait)
    return seen


@pytest.mark.parametrize("upstream_revision", ERAS)
@pytest.mark.parametrize("revision", ERAS)
async def test_the_last_unsubscriber_unsubscribes_upstream(
    revision: str, upstream_revision: str
) -> None:
    with mounted(upstream_revision) as (upstream, url):
        async with (
            checked_client(url, revision) as one,
            checked_client(url, revision) as two,
        ):
            await updates(one, "notes://up/first")
            seen_two = await updates(two, "notes://up/first")
            await updates(one, "notes://up/monday/text")  # served by a template
            # one upstream subscription for the two sessions
            assert upstream.requests == [
                ("subscribe", "notes://first"),
                ("subscribe", "notes://monday/text"),
            ]
            await one.unsubscribe_resource("notes://up/first")
            await one.unsubscribe_resource("notes://up/monday/text")
            await upstream.next_unsubscribe()  # the template's URI: nobody else had it
            assert upstream.requests[-1] == ("unsubscribe", "notes://monday/text")
            # the other session still hears about the URI they shared
            await one.call_tool("up_touch", {"uri": "notes://first"})
            assert (await asyncio.wait_for(seen_two.get(), 15))["uri"] == "notes://up/first"
            await two.unsubscribe_resource("notes://up/first")
            await upstream.next_unsubscribe()
            assert upstream.requests[2:] == [
                ("unsubscribe", "notes://monday/text"),
                ("unsubscribe", "notes://first"),
            ]
            # subscribing again subscribes upstream again
            seen_one = await updates(one, "notes://up/first")
            assert upstream.requests[-1] == ("subscribe", "notes://first")
            await two.call_tool("up_touch", {"uri": "notes://first"})
            assert (await asyncio.wait_for(seen_one.get(), 15))["uri"] == "notes://up/first"


@pytest.mark.parametrize("upstream_revision", ERAS)
@pytest.mark.parametrize("revision", ERAS)
async def test_a_closed_session_unsubscribes_upstream(
    revision: str, upstream_revision: str
) -> None:
    with mounted(upstream_revision) as (upstream, url):
        async with checked_client(url, revision) as staying:
            async with checked_client(url, revision) as leaving:
                await updates(leaving, "notes://up/first")
                await updates(leaving, "notes://up/tuesday/text")
                seen = await updates(staying, "notes://up/first")
            # the session ended: what only it subscribed to is unsubscribed upstream
            await upstream.next_unsubscribe()
            assert upstream.requests[-1] == ("unsubscribe", "notes://tuesday/text")
            assert ("unsubscribe", "notes://first") not in upstream.requests
            await staying.call_tool("up_touch", {"uri": "notes://first"})
            assert (await asyncio.wait_for(seen.get(), 15))["uri"] == "notes://up/first"
        await upstream.next_unsubscribe()
        assert upstream.requests[-1] == ("unsubscribe", "notes://first")


def updated_uris(client: Any) -> asyncio.Queue[str]:
    """Each ``notifications/resources/updated`` ``client`` gets, whichever subscription
    (or listen stream) it comes from, in order."""
    seen: asyncio.Queue[str] = asyncio.Queue()
    receive = client._notification

    async def spy(message: dict[str, Any]) -> None:
        await receive(message)
        if message.get("method") == "notifications/resources/updated":
            seen.put_nowait(message["params"]["uri"])

    client._notification = spy
    return seen


def list_changes(client: Any) -> asyncio.Event:
    changed = asyncio.Event()
    receive = client._notification

    async def spy(message: dict[str, Any]) -> None:
        await receive(message)
        if message.get("method") == "notifications/resources/list_changed":
            changed.set()

    client._notification = spy
    return changed


@pytest.mark.parametrize("upstream_revision", ERAS)
@pytest.mark.parametrize("revision", ERAS)
async def test_a_resource_the_upstream_drops_is_unsubscribed(
    revision: str, upstream_revision: str
) -> None:
    first, templated, second = "notes://up/first", "notes://up/monday/text", "notes://up/second"
    with mounted(upstream_revision) as (upstream, url):
        async with checked_client(url, revision) as one:
            seen_one = updated_uris(one)
            if revision == MODERN:  # one stream: its notifications come in order
                await one.listen(
                    tools_list_changed=False, resource_subscriptions=[first, templated, second]
                )
            else:
                for uri in (first, templated, second):
                    await one.subscribe_resource(uri)
            assert sorted(upstream.requests) == [
                ("subscribe", "notes://first"),
                ("subscribe", "notes://monday/text"),
                ("subscribe", "notes://second"),
            ]
            # the upstream no longer lists `first` nor the template: the mounting server
            # forgets who subscribed to what they served, and unsubscribes upstream
            await one.call_tool("up_drop")
            await upstream.unsubscribed_from("notes://first", "notes://monday/text")
            assert ("unsubscribe", "notes://second") not in upstream.requests
            assert first not in [r["uri"] for r in await one.list_resources()]

            async with checked_client(url, revision) as two:
                changed = list_changes(two)
                if revision == MODERN:
                    await two.listen(tools_list_changed=False, resources_list_changed=True)
                await two.call_tool("up_restore")
                await asyncio.wait_for(changed.wait(), 15)  # `first` is served again
                seen_two = updated_uris(two)
                await two.subscribe_resource(first)  # subscribes upstream anew
                assert upstream.requests[-1] == ("subscribe", "notes://first")
                await two.call_tool("up_touch", {"uri": "notes://first"})
                assert await asyncio.wait_for(seen_two.get(), 15) == first
                # the first session's subscription of `first` ended with the resource: it
                # hears only about `second`, which it still subscribes to
                await two.call_tool("up_touch", {"uri": "notes://second"})
                assert await asyncio.wait_for(seen_one.get(), 15) == second
                # a legacy client may still unsubscribe: nothing to stop, no error
                if revision != MODERN:
                    await one.unsubscribe_resource(first)


@pytest.mark.parametrize("upstream_revision", ERAS)
@pytest.mark.parametrize("revision", ERAS)
async def test_a_proxy_mounted_two_levels_down(revision: str, upstream_revision: str) -> None:
    """``mcp`` mounts ``middle``, which mounts the proxy: reads, subscriptions, updates and
    their end (unsubscribed, or dropped upstream) under ``mcp``'s URIs."""
    upstream = Upstream()
    with serve_http(upstream.server) as up_url:
        middle = Server("middle")
        middle.mount(Server.proxy(up_url, protocol_version=upstream_revision), prefix="up")
        mcp = Server("main")
        mcp.mount(middle, prefix="m")
        first, templated = "notes://m/up/first", "notes://m/up/friday/text"
        with serve_http(mcp) as url:
            async with checked_client(url, revision) as client:
                read = await client.read_resource(templated)
                assert read.text == "note friday" and read.contents[0]["uri"] == templated
                seen = await updates(client, first)
                seen_templated = await updates(client, templated)
                assert upstream.requests == [
                    ("subscribe", "notes://first"),
                    ("subscribe", "notes://friday/text"),
                ]
                await client.call_tool("m_up_touch", {"uri": "notes://first"})
                assert (await asyncio.wait_for(seen.get(), 15))["uri"] == first
                await client.call_tool("m_up_touch", {"uri": "notes://friday/text"})
                assert (await asyncio.wait_for(seen_templated.get(), 15))["uri"] == templated
                await client.unsubscribe_resource(templated)
                await upstream.unsubscribed_from("notes://friday/text")
                # the upstream drops `first`: the subscription to it ends, upstream too
                await client.call_tool("m_up_drop")
                await upstream.unsubscribed_from("notes://first")
