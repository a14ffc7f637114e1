"""Protocol extensions (SEP-2133): a server advertises them, serves their methods and
notifications from its method table, and refuses a request whose client did not declare a
required one; a client declares its own and calls theirs. Over a real stdio subprocess (the
example ``examples/counters_extension.py``) and real HTTP on 127.0.0.1, on a legacy revision
and on 2026-07-28, with every message checked against the revision's schema."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest

from toolwire import Client, Context, Extension, RegistrationError, Server, ServerError

from http_server import example_over
from wire import EXAMPLES, checked_client

pytestmark = pytest.mark.timeout(60)

LEGACY, MODERN = "2025-11-25", "2026-07-28"
ID = "com.example/counters"
COUNTER_METHODS = ["counters/increment", "counters/list", "notifications/counters/reset"]
EXAMPLE = EXAMPLES / "counters_extension.py"


@contextlib.asynccontextmanager
async def counters_client(target: Any, revision: str, **options: Any) -> AsyncIterator[Client]:
    async with checked_client(
        target, revision, extension_methods=COUNTER_METHODS, **options
    ) as client:
        yield client


# ---------------------------------------------------------------------------- over the wire


@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.parametrize("revision", [LEGACY, MODERN])
async def test_a_declaring_client_uses_the_extension(transport: str, revision: str) -> None:
    declared = {ID: {}}
    with example_over(EXAMPLE, transport) as target:
        async with counters_client(target, revision, extensions=declared) as client:
            assert client.server_extensions == {ID: {"maxCounters": 100}}
            first = await client.request("counters/increment", {"name": "visits"})
            second = await client.request("counters/increment", {"name": "visits", "by": 41})
            assert (first["value"], second["value"]) == (1, 42)
            listed = await client.request("counters/list")
            assert listed["counters"] == {"visits": 42}
            assert (await client.call_tool("read_counter", {"name": "visits"})).text == "42"
            with pytest.raises(ServerError) as refused:  # the handler's own RPCError
                await client.request("counters/increment", {"name": "visits", "by": "one"})
            assert refused.value.code == -32602
            await client.notify("notifications/counters/reset")
            assert (await client.request("counters/list"))["counters"] == {}
            if revision == MODERN:
                assert listed["resultType"] == "complete"


@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.parametrize("revision", [LEGACY, MODERN])
async def test_a_client_without_the_extension_is_told_what_to_declare(
    transport: str, revision: str
) -> None:
    with example_over(EXAMPLE, transport) as target:
        async with counters_client(target, revision) as client:
            with pytest.raises(ServerError) as refused:
                await client.request("counters/increment", {"name": "visits"})
            assert refused.value.code == -32021
            assert refused.value.data == {"requiredCapabilities": {"extensions": {ID: {}}}}
            assert ID in refused.value.message
            assert (await client.request("counters/list"))["counters"] == {}  # not required


# ---------------------------------------------------------------------------- in memory


def echo_server(**extension_options: Any) -> tuple[Server, Extension]:
    echo = Extension("com.example/echo", {"v": 1}, **extension_options)

    @echo.method("echo/say")
    async def say(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
        settings = echo.client_settings(ctx)
        return {"text": params.get("text"), "clientSettings": settings}

    @echo.method("echo/broken")
    def broken(params: dict[str, Any], ctx: Context) -> Any:
        return ["not", "a", "result"]

    return Server("Echo", extensions=[echo]), echo


@pytest.mark.parametrize("revision", [LEGACY, MODERN])
async def test_handlers_see_the_clients_settings_and_bad_results_are_internal_errors(
    revision: str,
) -> None:
    server, _ = echo_server()
    options = {"extension_methods": ["echo/say", "echo/broken"]}
    declared = {"com.example/echo": {"loud": True}}
    async with checked_client(server, revision, extensions=declared, **options) as client:
        said = await client.request("echo/say", {"text": "hi"})
        assert (said["text"], said["clientSettings"]) == ("hi", {"loud": True})
        with pytest.raises(ServerError) as failed:
            await client.request("echo/broken")
        assert failed.value.code == -32603
    async with checked_client(server, revision, **options) as client:
        assert (await client.request("echo/say", {"text": "hi"}))["clientSettings"] is None


async def test_an_extension_for_some_revisions_is_absent_from_the_others() -> None:
    server, _ = echo_server(revisions=[MODERN])
    async with checked_client(server, LEGACY, extension_methods=["echo/say"]) as client:
        assert client.server_extensions == {}
        with pytest.raises(ServerError) as missing:
            await client.request("echo/say", {"text": "hi"})
        assert missing.value.code == -32601
    async with checked_client(server, MODERN, extension_methods=["echo/say"]) as client:
        assert client.server_extensions == {"com.example/echo": {"v": 1}}
        assert (await client.request("echo/say", {"text": "hi"}))["text"] == "hi"


@pytest.mark.parametrize(
    "identifier",
    ["counters", "/counters", "com.example/", "example.com./x", "1com.example/x", "com.example/-x"],
)
def test_identifiers_need_a_prefix_and_a_name(identifier: str) -> None:
    with pytest.raises(RegistrationError, match="not an extension identifier"):
        Extension(identifier)


def test_valid_identifiers() -> None:
    for identifier in ("com.example/x", "io.modelcontextprotocol/tasks", "a-b.c/d_e.f-1"):
        assert Extension(identifier).identifier == identifier


def test_names_are_checked_when_registered_and_when_served() -> None:
    server, echo = echo_server()
    with pytest.raises(RegistrationError, match="already served"):
        echo.method("echo/late")(lambda params, ctx: {})
    with pytest.raises(RegistrationError, match="already served"):
        server.add_extension(echo)
    shadow = Extension("com.example/shadow")
    shadow.method("tools/call")(lambda params, ctx: {})
    with pytest.raises(RegistrationError, match="'tools/call', already defined"):
        server.add_extension(shadow)
    twice = Extension("com.example/twice")
    twice.method("twice/a")(lambda params, ctx: {})
    with pytest.raises(RegistrationError, match="already defined by"):
        twice.notification("twice/a")(lambda params: None)
    with pytest.raises(RegistrationError, match="may define"):
        twice.method("rpc.discover")(lambda params, ctx: {})
    initialize = Extension("com.example/initialize")
    initialize.notification("notifications/initialized")(lambda params: None)
    with pytest.raises(RegistrationError, match="already defined here"):
        Server("S", extensions=[initialize])
    with pytest.raises(TypeError, match=r"takes toolwire\.Extension objects"):
        Server("S", extensions=["com.example/x"])  # type: ignore[list-item]
