"""Code written for the official SDK runs with only its import changed.

The servers in ``tests/servers/official_*.py`` are the SDK's quickstart (``mcp`` 2.x and
1.x) and its documented configurations, with ``from toolwire import Server as MCPServer``
(or ``as FastMCP``) in place of the SDK's import. Each runs as a real subprocess, as
``python server.py`` would run it (over HTTP on a free port of 127.0.0.1, or over stdio),
and toolwire's ``Client`` calls its tools with every message checked against the JSON
Schema of the negotiated revision. The option mapping itself
(:mod:`toolwire.server.compat.sdk_options`) is checked below against the SDK's own settings
classes (the ``mcp`` package is a test dependency).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import subprocess
import sys
import warnings
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from toolwire import Server, types
from toolwire.errors import ServerError
from toolwire.server.compat.sdk_options import http_options

from http_server import serve_http
from mcp_spec import WireChecker
from wire import MODERN, SERVERS, checked_client

pytestmark = pytest.mark.timeout(60)
LEGACY = "2025-06-18"
START = 20.0  # seconds for a subprocess to import toolwire and start listening


@contextlib.asynccontextmanager
async def official_http(script: str) -> AsyncIterator[str]:
    """Run ``script`` as ``__main__`` (its own ``mcp.run(...)``) on a free port; yields
    the MCP endpoint's URL once the server listens."""
    runner = [sys.executable, str(SERVERS / "run_official.py"), str(SERVERS / script)]
    async with listening(runner, rb"^listening (\d+)") as port:
        yield f"http://127.0.0.1:{port}/mcp"


@contextlib.asynccontextmanager
async def listening(command: list[str], announce: bytes) -> AsyncIterator[int]:
    """Run ``command``; yields the port of the first stderr line matching ``announce``."""
    process = await asyncio.create_subprocess_exec(
        *command,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stderr is not None
    try:

        async def port() -> int:
            seen = b""
            while True:
                line = await process.stderr.readline()  # type: ignore[union-attr]
                if not line:
                    raise AssertionError(f"{command} exited before listening: {seen.decode()}")
                found = re.search(announce, line)
                if found:
                    return int(found.group(1))
                seen += line

        yield await asyncio.wait_for(port(), START)
    finally:
        if process.returncode is not None:  # it stopped while in use: say how
            rest = await process.stderr.read()
            print(f"{command} exited with {process.returncode}:", rest.decode(errors="replace"))
        if process.returncode is None:
            process.terminate()
            try:
                await asyncio.wait_for(process.wait(), 10)
            except asyncio.TimeoutError:
                process.kill()
                await process.wait()


async def json_initialize(url: str) -> httpx.Response:
    """POST a legacy ``initialize`` (both messages checked); the answer is one JSON body."""
    checker = WireChecker(LEGACY)
    checker.client_sent(initialize())
    async with httpx.AsyncClient(timeout=10) as http:
        answer = await http.post(url, content=orjson.dumps(initialize()), headers=HEADERS)
    checker.server_sent(answer.content)
    assert answer.headers["content-type"].startswith("application/json")
    return answer


def initialize(revision: str = LEGACY) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": revision,
            "capabilities": {},
            "clientInfo": {"name": "tests", "version": "0"},
        },
    }


HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


# ------------------------------------------------------------ the quickstarts, over HTTP


@pytest.mark.parametrize("script", ["official_quickstart.py", "official_fastmcp_quickstart.py"])
async def test_quickstart_runs_over_http_with_only_the_import_changed(script: str) -> None:
    async with official_http(script) as url:
        for revision in (LEGACY, MODERN):
            async with checked_client(url, revision) as client:
                assert [tool["name"] for tool in await client.list_tools()] == ["add"]
                added = await client.call_tool("add", {"a": 1, "b": 2})
                assert not added.is_error and added.text == "3"
                greeting = await client.read_resource("greeting://Ada")
                assert greeting.text == "Hello, Ada!"
                prompt = await client.get_prompt("greet_user", {"name": "Ada", "style": "formal"})
                assert prompt.text == (
                    "Please write a formal, professional greeting for someone named Ada."
                )

        # json_response=True (in run() for 2.x, in the constructor for 1.x): one JSON body
        answer = await json_initialize(url)
        assert answer.status_code == 200
        assert answer.json()["result"]["serverInfo"]["name"] == "Demo"
        assert "mcp-session-id" in answer.headers  # stateful unless told otherwise


async def test_fastmcp_quickstart_under_toolwire_run_keeps_its_constructor_settings() -> None:
    toolwire = str(Path(sys.executable).with_name("toolwire"))
    command = [toolwire, "run", str(SERVERS / "official_fastmcp_quickstart.py")]
    command += ["--transport", "http", "--port", "0", "--log-level", "info"]
    async with listening(command, rb"Uvicorn running on http://127\.0\.0\.1:(\d+)") as port:
        url = f"http://127.0.0.1:{port}/mcp"
        async with checked_client(url, LEGACY) as client:
            assert (await client.call_tool("add", {"a": 2, "b": 3})).text == "5"
        # FastMCP("Demo", json_response=True): the CLI serves it with JSON responses too
        await json_initialize(url)


async def test_stateless_json_configuration_over_http() -> None:
    async with official_http("official_stateless.py") as url:
        checker = WireChecker(LEGACY)
        async with httpx.AsyncClient(timeout=10) as http:
            checker.client_sent(initialize())
            answer = await http.post(url, content=orjson.dumps(initialize()), headers=HEADERS)
            checker.server_sent(answer.content)
            assert answer.headers["content-type"].startswith("application/json")
            assert "mcp-session-id" not in answer.headers  # stateless_http=True
            call = {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "greet", "arguments": {"name": "Ada"}},
            }
            checker.client_sent(call)
            headers = {**HEADERS, "mcp-protocol-version": LEGACY}
            called = await http.post(url, content=orjson.dumps(call), headers=headers)
            checker.server_sent(called.content)
        assert called.json()["result"]["content"] == [{"type": "text", "text": "Hello, Ada!"}]
        async with checked_client(url, MODERN) as client:
            assert (await client.call_tool("greet", {})).text == "Hello, World!"


async def test_mounted_in_starlette_with_the_session_manager() -> None:
    command = [sys.executable, "-m", "uvicorn", "official_mounted:app", "--app-dir"]
    command += [str(SERVERS), "--host", "127.0.0.1", "--port", "0"]
    async with listening(command, rb"Uvicorn running on http://127\.0\.0\.1:(\d+)") as port:
        url = f"http://127.0.0.1:{port}/mcp"
        async with checked_client(url, LEGACY) as client:
            assert (await client.call_tool("hello", {})).text == "Hello from MCP!"
        async with checked_client(url, MODERN) as client:
            assert (await client.call_tool("hello", {})).text == "Hello from MCP!"
        await json_initialize(url)


def test_session_manager_needs_the_app_first() -> None:
    with pytest.raises(RuntimeError, match="streamable_http_app"):
        Server("Demo").session_manager  # noqa: B018


# ------------------------------------------------------------ constructor settings, over stdio


@pytest.mark.parametrize("debug", [False, True])
async def test_documented_settings_over_stdio(debug: bool) -> None:
    env = {**os.environ, "MCP_DEBUG": "true" if debug else "false"}
    command = [sys.executable, str(SERVERS / "official_settings.py")]
    async with checked_client(command, "2025-11-25", env=env) as client:
        assert client.instructions == "Search the catalog before recommending a book."
        assert client.server_info["icons"] == [
            {"src": "https://example.com/logo.png", "mimeType": "image/png", "sizes": ["48x48"]}
        ]
        counted = await client.call_tool("count_books", {"genre": "sf"})
        assert counted.text == "3 books in 'sf'."
        broken = await client.call_tool("broken", {})
        assert broken.is_error
        # debug=True shows an unexpected error's details, as the SDK's debug mode does
        assert ("postgres://secret" in broken.text) is debug


def test_constructor_keeps_the_sdk_settings() -> None:
    mcp = Server("Demo", json_response=True, port=9000, log_level="WARNING", dependencies=["x"])
    assert mcp.settings.json_response is True and mcp.settings.port == 9000
    assert mcp.dependencies == ["x"]
    assert mcp.mask_errors is True  # debug=False keeps errors masked
    mcp.settings.stateless_http = True  # set before run(), as 1.x code does
    assert mcp.settings.run_defaults() == {
        "json_response": True,
        "port": 9000,
        "stateless_http": True,
        "log_level": "warning",
    }
    app = mcp.http_app()
    assert app.json_response is True and app.stateless is True


@pytest.mark.parametrize(
    ("setup", "level"),
    [("", "DEBUG"), ("import logging; logging.basicConfig(level='ERROR'); ", "ERROR")],
)
def test_log_level_configures_logging_as_the_sdk_does(setup: str, level: str) -> None:
    # the root logger at log_level, unless the program configured logging first
    code = setup + (
        "import logging; from toolwire import Server; Server('x', log_level='DEBUG'); "
        "print(logging.getLevelName(logging.getLogger().level))"
    )
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=30)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.decode().strip() == level


def test_constructor_registers_tools_given_as_functions() -> None:
    def add(a: int, b: int) -> int:
        return a + b

    assert [tool.name for tool in Server("Demo", tools=[add]).tools] == ["add"]
    with pytest.raises(TypeError, match="takes functions"):
        Server("Demo", tools=["add"])


def test_sdk_extension_objects_are_refused_naming_toolwires() -> None:
    with pytest.raises(
        TypeError, match=r"Server\(extensions=\[\.\.\.\]\) takes toolwire\.Extension"
    ):
        Server("Demo", extensions=[object()])


@pytest.mark.parametrize(
    ("option", "alternative"),
    [
        ("auth_server_provider", "resource server"),
        ("cache_hints", "list_ttl_ms="),
        ("resources", "@mcp.resource"),
        ("subscriptions", "always served"),
        ("resource_security", "SafePath"),
    ],
)
def test_options_without_an_equivalent_name_the_alternative(option: str, alternative: str) -> None:
    with pytest.raises(TypeError, match=f"does not take {option}=") as raised:
        Server("Demo", **{option: object()})
    assert alternative in str(raised.value)


def test_the_sdks_request_state_security_is_taken_with_a_warning_naming_state_secret() -> None:
    from mcp.server.mcpserver import RequestStateSecurity

    security = RequestStateSecurity(keys=[b"k" * 32])
    with pytest.warns(UserWarning, match=r"state_secret=<bytes>"):
        mcp = Server("Demo", request_state_security=security)
    assert mcp.signer.secret != b"k" * 32  # a key of this process
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the key given the toolwire way: nothing to say
        shared = Server("Demo", request_state_security=security, state_secret=b"s" * 32)
    assert shared.signer.secret == b"s" * 32


def test_sse_transport_is_refused_with_the_alternative() -> None:
    with pytest.raises(ValueError, match="transport='streamable-http'"):
        Server("Demo").run(transport="sse")


# ------------------------------------------------------------ run() / streamable_http_app()


def test_run_options_are_translated() -> None:
    from mcp.server.transport_security import TransportSecuritySettings

    security = TransportSecuritySettings(
        allowed_hosts=["127.0.0.1:*", "[::1]:*", "api.example.com"],
        allowed_origins=["http://localhost:*"],
    )
    assert http_options(
        {},
        {
            "streamable_http_path": "/",
            "stateless_http": True,
            "json_response": True,
            "max_request_body_size": 1024,
            "retry_interval": 500,
            "session_idle_timeout": None,
            "max_sessions": 10,
            "transport_security": security,
        },
    ) == {
        "path": "/",
        "stateless": True,
        "json_response": True,
        "max_body_bytes": 1024,
        "retry_ms": 500,
        "session_idle": float("inf"),
        "max_sessions": 10,
        "allowed_hosts": ["127.0.0.1", "::1", "api.example.com"],
        "allowed_origins": ["http://localhost:*"],
    }
    off = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    assert http_options({}, {"transport_security": off}) == {
        "allowed_hosts": ["*"],
        "allowed_origins": ["*"],
    }
    with pytest.warns(UserWarning, match="event_store is not used"):
        http_options({}, {"event_store": object()})


async def test_streamable_http_app_with_the_sdk_options_serves_them() -> None:
    from mcp.server.transport_security import TransportSecuritySettings

    mcp = Server("My Server")

    @mcp.tool()
    def process_data(data: str) -> str:
        return f"Processed: {data}"

    security = TransportSecuritySettings(
        allowed_hosts=["127.0.0.1:*"], allowed_origins=["http://localhost:*"]
    )
    app = mcp.streamable_http_app(
        json_response=True,
        streamable_http_path="/",
        transport_security=security,
        debug=True,  # Starlette's traceback page, which the SDK's examples turn on
    )
    assert app.path == "/" and app.json_response is True

    class Prebuilt:  # serve_http calls server.http_app(path): hand it the app built above
        def http_app(self, path: str) -> Any:
            return app

    with serve_http(Prebuilt(), path="/") as url:
        checker = WireChecker(LEGACY)
        async with httpx.AsyncClient(timeout=10) as http:
            for origin, status in (("http://localhost:5173", 200), ("http://evil.example", 403)):
                checker.client_sent(initialize())
                answer = await http.post(
                    url, content=orjson.dumps(initialize()), headers={**HEADERS, "origin": origin}
                )
                assert answer.status_code == status, origin
                checker.server_sent(answer.content)


# ------------------------------------------------------------ auth settings


async def test_sdk_auth_settings_and_token_verifier_protect_the_endpoint() -> None:
    from mcp.server.auth.provider import AccessToken
    from mcp.server.auth.settings import AuthSettings

    class Verifier:
        async def verify_token(self, token: str) -> AccessToken | None:
            if token != "good":
                return None
            return AccessToken(token=token, client_id="app", scopes=["user"], subject="ada")

    mcp = Server(
        "Weather",
        token_verifier=Verifier(),
        auth=AuthSettings(
            issuer_url="https://auth.example.com",  # type: ignore[arg-type]
            resource_server_url="http://127.0.0.1/mcp",  # type: ignore[arg-type]
            required_scopes=["user"],
            validate_token_resource=False,
        ),
    )

    @mcp.tool()
    def whoami() -> str:
        return "ok"

    with serve_http(mcp) as url:
        async with httpx.AsyncClient(timeout=10) as http:
            refused = await http.post(url, content=orjson.dumps(initialize()), headers=HEADERS)
            assert refused.status_code == 401
            assert "resource_metadata=" in refused.headers["www-authenticate"]
        async with checked_client(url, LEGACY, headers={"authorization": "Bearer good"}) as c:
            assert (await c.call_tool("whoami", {})).text == "ok"


def test_sdk_auth_settings_need_a_verifier() -> None:
    from mcp.server.auth.settings import AuthSettings

    settings = AuthSettings(
        issuer_url="https://auth.example.com",  # type: ignore[arg-type]
        resource_server_url="http://127.0.0.1/mcp",  # type: ignore[arg-type]
        validate_token_resource=False,
    )
    with pytest.raises(ValueError, match="token_verifier"):
        Server("Weather", auth=settings)


@pytest.mark.parametrize(
    ("name", "alternative"),
    [
        ("_resource_manager", "mcp.get_resource(uri)"),
        ("_prompt_manager", "mcp.get_prompt(name)"),
    ],
)
def test_the_sdks_private_objects_are_refused_naming_the_public_way(
    name: str, alternative: str
) -> None:
    mcp = Server("Demo")
    with pytest.raises(AttributeError, match=f"Server has no {name} ") as raised:
        getattr(mcp, name)
    assert alternative in str(raised.value)
    # any other missing name is the ordinary error, and hasattr() still answers
    assert not hasattr(mcp, "_no_such_thing")
    with pytest.raises(AttributeError, match="has no attribute '_no_such_thing'"):
        mcp._no_such_thing  # type: ignore[attr-defined]  # noqa: B018


@pytest.mark.timeout(30)
async def test_the_sdks_tool_manager_and_request_handlers_work_as_its_examples_use_them() -> None:
    """What the SDK's everything-server writes where the SDK has no public way: a tool's
    published schema set by hand, and handlers of methods toolwire answers itself."""
    mcp = Server("Demo")

    @mcp.tool()
    def add(a: int, b: int = 2) -> int:
        return a + b

    manager = mcp._tool_manager  # type: ignore[attr-defined]
    assert manager.get_tool("add").parameters["required"] == ["a"]
    assert [tool.name for tool in manager.list_tools()] == ["add"]
    published = {"type": "object", "properties": {"a": {"type": "integer"}, "note": {}}}
    manager._tools["add"].parameters = published
    with pytest.raises(TypeError, match="must be a JSON Schema dict"):
        manager._tools["add"].parameters = {"type": "array"}

    levels: list[str] = []
    uris: list[str] = []

    async def set_level(ctx: Any, params: types.SetLevelRequestParams) -> types.EmptyResult:
        levels.append(params.level)
        assert ctx.request_id is not None
        return types.EmptyResult()

    mcp._lowlevel_server.add_request_handler(  # type: ignore[attr-defined]
        "logging/setLevel", types.SetLevelRequestParams, set_level
    )
    mcp._mcp_server.subscribe_resource()(uris.append)  # type: ignore[attr-defined]

    async with checked_client(mcp, LEGACY) as client:
        (tool,) = await client.list_tools()
        assert tool["inputSchema"] == published
        # the function's own arguments are checked; a name it does not take is dropped
        assert (await client.call_tool("add", {"a": 1, "note": "x"})).structured == {"result": 3}
        refused = await client.call_tool("add", {"a": "one"})
        assert refused.is_error and "a:" in refused.text
        assert await client.request("logging/setLevel", {"level": "info"}) == {}
        assert await client.request("resources/subscribe", {"uri": "notes://a"}) == {}
        for method, params, word in [
            ("logging/setLevel", {"level": 3}, "level"),
            ("resources/subscribe", {}, "uri"),
        ]:
            with pytest.raises(ServerError, match=word) as bad:
                await client.request(method, params)
            assert bad.value.code == -32602
    assert levels == ["info"] and uris == ["notes://a"]
