"""examples/files.py as a real HTTP server process, behind real authorization.

The example runs as a subprocess (``python examples/files.py``) on a free loopback port,
configured the way its docstring says: ``FILES_ROOT`` a temporary directory, ``FILES_URL``
its own URL, and either ``FILES_ISSUER`` naming the test authorization server
(``oauth_server.OAuthServer``, Authlib behind uvicorn, issuing JWT access tokens) or
``FILES_TOKENS`` with static tokens. It is ready once uvicorn says it listens.

toolwire's ``Client(url, auth=OAuth(...))`` gets its tokens through the whole OAuth flow
(discovery from the 401, registration, the browser step done by ``oauth_helpers.Browser``),
asking for ``files:read`` only or for both scopes; every message is checked against the
negotiated revision's schema (``wire.checked_client``), on 2025-11-25 and 2026-07-28. The
official SDK's client reaches the static-token server with a bearer header.

What the tools claim is checked against the directory itself.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from jsonschema import Draft202012Validator
from mcp import Client as SDKClient
from mcp import types
from mcp.client.session import ClientRequestContext
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.message import SessionMessage

from toolwire.client.oauth.flow import OAuth
from toolwire.errors import ServerError, Unauthorized

from mcp_spec import WireChecker
from oauth_helpers import BOTH_ERAS, LEGACY, MODERN, READ, WRITE, Browser
from oauth_server import OAuthServer, serve_oauth
from services import free_port
from wire import EXAMPLES, checked_client

SCRIPT = EXAMPLES / "files.py"
TEST_TIMEOUT = 15.0  # seconds for one test's conversation
READY_TIMEOUT = 15.0  # seconds the example gets to start listening
ALL_TOOLS = ["list_files", "read_file", "write_file", "delete_file"]
TOKENS = {"reader-token": [READ], "writer-token": [READ, WRITE]}
TODO = "notes/todo.txt"


# ---------------------------------------------------------------------------- the process


@dataclass
class FilesServer:
    """examples/files.py running on ``url``, serving ``root``; ``output`` is what it printed."""

    process: subprocess.Popen[bytes]
    url: str
    root: Path
    output: list[str] = field(default_factory=list)
    _changed: threading.Condition = field(default_factory=threading.Condition)
    _listening: bool = False
    _ended: bool = False

    def read_output(self) -> None:
        """Runs on a thread: keeps every line, so the pipe never fills."""
        assert self.process.stdout is not None
        for raw in self.process.stdout:
            line = raw.decode(errors="replace").rstrip()
            with self._changed:
                self.output.append(line)
                self._listening = self._listening or "Uvicorn running on" in line
                self._changed.notify_all()
        with self._changed:
            self._ended = True
            self._changed.notify_all()

    def wait_until_listening(self) -> bool:
        """True once uvicorn says it listens; False if the process ended or took too long."""
        with self._changed:
            self._changed.wait_for(lambda: self._listening or self._ended, READY_TIMEOUT)
            return self._listening


def environment(**settings: str) -> dict[str, str]:
    """This process's environment without any FILES_* setting, plus ``settings``."""
    kept = {k: v for k, v in os.environ.items() if not k.startswith("FILES_")}
    return {**kept, **settings}


def stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM (the example stops gracefully), then SIGKILL if it takes too long."""
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(10)


@contextmanager
def files_server(root: Path, attempts: int = 3, **settings: str) -> Iterator[FilesServer]:
    """Run the example on a port that was free a moment ago (tried again if it was taken).
    Its output must hold no traceback when it stops."""
    for _ in range(attempts):
        url = f"http://127.0.0.1:{free_port()}/mcp"
        process = subprocess.Popen(
            [sys.executable, str(SCRIPT)],
            env=environment(FILES_ROOT=str(root), FILES_URL=url, **settings),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        server = FilesServer(process, url, root)
        reader = threading.Thread(target=server.read_output, daemon=True)
        reader.start()
        listening = False
        try:
            listening = server.wait_until_listening()
            if listening:
                yield server
        finally:
            stop(process)
            reader.join(10)
        log = "\n".join(server.output)
        if listening:
            assert "Traceback" not in log, log
            return
        if "address already in use" not in log:
            raise AssertionError(f"examples/files.py did not start:\n{log}")
    raise AssertionError("no free port for examples/files.py")


@pytest.fixture(scope="module")
def shared_auth_server() -> Iterator[OAuthServer]:
    with serve_oauth(OAuthServer(scopes_supported=[READ, WRITE])) as server:
        yield server


@pytest.fixture
def auth_server(shared_auth_server: OAuthServer) -> OAuthServer:
    shared_auth_server.reset()
    return shared_auth_server


@pytest.fixture(scope="module")
def places(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The example's root and, beside it, a directory it must never reach."""
    base = tmp_path_factory.mktemp("files-example")
    (base / "root").mkdir()
    (base / "outside").mkdir()
    return base / "root", base / "outside"


@pytest.fixture(scope="module")
def oauth_files(
    shared_auth_server: OAuthServer, places: tuple[Path, Path]
) -> Iterator[FilesServer]:
    """The example trusting the test authorization server's JWT access tokens."""
    issuer = shared_auth_server.issuer
    jwks = f"{shared_auth_server.base}/jwks"
    with files_server(places[0], FILES_ISSUER=issuer, FILES_JWKS_URL=jwks) as server:
        yield server


@pytest.fixture
def files(oauth_files: FilesServer, places: tuple[Path, Path]) -> FilesServer:
    """The OAuth-protected example, with an empty root and an outside holding a secret."""
    for place in places:
        for child in place.iterdir():
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child)
            else:
                child.unlink()
    (places[1] / "secret.txt").write_text("outside the root")
    return oauth_files


# ---------------------------------------------------------------------------- clients


def oauth(*scopes: str) -> OAuth:
    """A client that registers itself and asks for ``scopes`` (the 401 names none)."""
    return OAuth(client_name="files example tests", scopes=scopes, authorize=Browser())


async def call(client: Any, root: Path, name: str, arguments: dict[str, Any]) -> Any:
    """Call a tool: a structured result fits the outputSchema; no text reveals the root."""
    result = await client.call_tool(name, arguments)
    assert str(root) not in result.text, result.text
    if result.structured is not None:
        tools = {tool["name"]: tool for tool in await client.list_tools()}
        Draft202012Validator(tools[name]["outputSchema"]).validate(result.structured)
    return result


def answering(
    reply: dict[str, Any], root: Path, asked: list[tuple[str, bool]]
) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """An elicitation handler: notes the question and whether the file was still there."""

    def on_elicit(params: dict[str, Any]) -> dict[str, Any]:
        asked.append((params["message"], (root / TODO).exists()))
        assert params["requestedSchema"] == {
            "type": "object",
            "properties": {
                "confirm": {"type": "boolean", "title": "Confirm", "description": "Yes, delete it"}
            },
            "required": ["confirm"],
            "title": "Confirm",
        }
        return reply

    return on_elicit


def put(root: Path, relative: str, text: str) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


# ---------------------------------------------------------------------------- starting


def test_example_is_documented_and_serves_http() -> None:
    source = SCRIPT.read_text()
    docstring = ast.get_docstring(ast.parse(source))
    assert docstring and "python examples/files.py" in docstring
    for setting in ("FILES_ROOT", "FILES_URL", "FILES_ISSUER", "FILES_JWKS_URL", "FILES_TOKENS"):
        assert setting in docstring
    assert 'mcp.run(\n        transport="http",' in source


REFUSALS = {
    "no authorization": ({}, "serves authenticated HTTP only"),
    "both": ({"FILES_ISSUER": "https://as.example", "FILES_TOKENS": "t=a"}, "not both"),
    "malformed tokens": (
        {"FILES_TOKENS": "good=files:read;s3cret-without-scopes"},
        "entry 2 is not",
    ),
}


@pytest.mark.parametrize("case", list(REFUSALS))
def test_refuses_to_start_without_authorization(case: str, tmp_path: Path) -> None:
    settings, message = REFUSALS[case]
    root = tmp_path / "root"
    done = subprocess.run(
        [sys.executable, str(SCRIPT)],
        env=environment(FILES_ROOT=str(root), FILES_URL="http://127.0.0.1:9/mcp", **settings),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=20,
    )
    error = done.stderr.decode()
    assert done.returncode == 1, error
    assert message in error and "Traceback" not in error
    assert "s3cret" not in error  # a token is never repeated back
    assert "Uvicorn" not in error + done.stdout.decode()
    assert not root.exists()  # refused before touching anything


# ---------------------------------------------------------------------------- no token


async def test_a_request_without_a_token_gets_401(
    files: FilesServer, auth_server: OAuthServer
) -> None:
    """AU-04, AU-18, AU-23: a 401 pointing at the resource metadata, which names the
    authorization server and the scopes; a token that is not one of the issuer's gets 401
    with ``invalid_token``. Nothing is served without a valid token."""
    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": LEGACY,
            "capabilities": {},
            "clientInfo": {"name": "curl", "version": "1"},
        },
    }
    headers = {"accept": "application/json, text/event-stream"}
    base = files.url.removesuffix("/mcp")
    async with httpx.AsyncClient(timeout=TEST_TIMEOUT) as http:
        bare = await http.post(files.url, json=request, headers=headers)
        forged = await http.post(
            files.url, json=request, headers={**headers, "authorization": "Bearer not.a.jwt"}
        )
        metadata = await http.get(f"{base}/.well-known/oauth-protected-resource/mcp")
    assert bare.status_code == 401
    assert bare.headers["www-authenticate"] == (
        f'Bearer resource_metadata="{base}/.well-known/oauth-protected-resource/mcp"'
    )  # no scope named: a client asks for the scopes it wants
    assert forged.status_code == 401
    assert 'error="invalid_token"' in forged.headers["www-authenticate"]
    assert "jsonrpc" not in bare.text + forged.text
    assert metadata.json() == {
        "resource": files.url,
        "authorization_servers": [auth_server.issuer],
        "bearer_methods_supported": ["header"],
        "scopes_supported": [READ, WRITE],
        "resource_name": "Files",
    }


# ---------------------------------------------------------------------------- scopes


@pytest.mark.parametrize("revision", BOTH_ERAS)
async def test_a_reader_sees_and_uses_only_the_read_tools(
    files: FilesServer, auth_server: OAuthServer, revision: str
) -> None:
    """A token with files:read: list and read; write and delete are neither listed nor
    callable (an unknown tool), and the file stays as it was."""
    put(files.root, TODO, "milk\neggs\n")
    with anyio.fail_after(TEST_TIMEOUT):
        async with checked_client(files.url, revision, auth=oauth(READ)) as client:
            assert client.protocol_version == revision
            tools = {tool["name"]: tool for tool in await client.list_tools()}
            assert list(tools) == ["list_files", "read_file"]
            assert tools["list_files"]["annotations"] == {"readOnlyHint": True}
            assert tools["read_file"]["annotations"] == {"readOnlyHint": True}

            top = await call(client, files.root, "list_files", {})
            assert top.structured == {"result": [{"path": "notes", "kind": "folder", "size": 0}]}
            notes = await call(client, files.root, "list_files", {"folder": "notes"})
            assert notes.structured == {"result": [{"path": TODO, "kind": "file", "size": 10}]}
            read = await call(client, files.root, "read_file", {"path": TODO})
            assert not read.is_error and read.text == "milk\neggs\n"

            for name, arguments in (
                ("write_file", {"path": TODO, "content": "gone"}),
                ("delete_file", {"path": TODO}),
            ):
                with pytest.raises(ServerError) as refused:
                    await client.call_tool(name, arguments)
                assert refused.value.code == -32602
                assert refused.value.message.startswith(f"Unknown tool: {name!r}")
                hidden = {"write_file", "delete_file"} - {name}
                assert hidden.pop() not in refused.value.message  # never offered as a hint
    assert (files.root / TODO).read_text() == "milk\neggs\n"
    (authorize,) = auth_server.requests_to("/authorize")
    assert authorize.params["scope"] == READ
    assert authorize.params["resource"] == files.url  # the token is for this server only


# ---------------------------------------------------------------------------- writing


@pytest.mark.parametrize("revision", BOTH_ERAS)
async def test_a_writer_writes_reads_back_and_deletes_after_confirming(
    files: FilesServer, revision: str
) -> None:
    asked: list[tuple[str, bool]] = []
    accept = answering({"action": "accept", "content": {"confirm": True}}, files.root, asked)
    auth = oauth(READ, WRITE)
    with anyio.fail_after(TEST_TIMEOUT):
        async with checked_client(
            files.url, revision, auth=auth, elicitation_handler=accept
        ) as client:
            tools = {tool["name"]: tool for tool in await client.list_tools()}
            assert list(tools) == ALL_TOOLS
            assert tools["write_file"]["annotations"] == {"idempotentHint": True}
            assert tools["delete_file"]["annotations"] == {"destructiveHint": True}
            path = tools["delete_file"]["inputSchema"]["properties"]["path"]
            assert path["type"] == "string" and "cannot lead outside" in path["description"]

            arguments = {"path": TODO, "content": "milk\neggs\n"}
            written = await call(client, files.root, "write_file", arguments)
            assert written.structured == {"path": TODO, "kind": "file", "size": 10}
            again = await call(client, files.root, "write_file", arguments)  # idempotent
            assert again.structured == written.structured
            assert (files.root / TODO).read_text() == "milk\neggs\n"
            read = await call(client, files.root, "read_file", {"path": TODO})
            assert read.text == "milk\neggs\n"
            # An absolute path inside the root is fine; the answer is relative all the same.
            absolute = {"path": str(files.root / "notes" / "other.txt"), "content": "x"}
            inside = await call(client, files.root, "write_file", absolute)
            assert inside.structured == {"path": "notes/other.txt", "kind": "file", "size": 1}

            deleted = await call(client, files.root, "delete_file", {"path": TODO})
            assert not deleted.is_error and deleted.text == f"Deleted {TODO}."
            missing = await call(client, files.root, "delete_file", {"path": TODO})
            assert missing.is_error and missing.text == f"No file named {TODO}"
    # Asked once (on 2026-07-28 too, where the tool runs again with the answer), with the
    # file still there: nothing changes before the user answers.
    assert asked == [(f"Delete {TODO}?", True)]
    assert not (files.root / TODO).exists()
    assert sorted(p.name for p in (files.root / "notes").iterdir()) == ["other.txt"]


ANSWERS = {
    "decline": ({"action": "decline"}, f"Kept {TODO}."),
    "cancel": ({"action": "cancel"}, "Cancelled: nothing was deleted."),
    "unchecked": ({"action": "accept", "content": {"confirm": False}}, f"Kept {TODO}."),
}


@pytest.mark.parametrize(
    ("revision", "answer"),
    [(LEGACY, "decline"), (MODERN, "decline"), (MODERN, "cancel"), (LEGACY, "unchecked")],
)
async def test_a_delete_the_user_does_not_confirm_keeps_the_file(
    files: FilesServer, revision: str, answer: str
) -> None:
    reply, expected = ANSWERS[answer]
    put(files.root, TODO, "milk\n")
    asked: list[tuple[str, bool]] = []
    handler = answering(reply, files.root, asked)
    with anyio.fail_after(TEST_TIMEOUT):
        async with checked_client(
            files.url, revision, auth=oauth(READ, WRITE), elicitation_handler=handler
        ) as client:
            result = await call(client, files.root, "delete_file", {"path": TODO})
    assert not result.is_error and result.text == expected
    assert asked == [(f"Delete {TODO}?", True)]
    assert (files.root / TODO).read_text() == "milk\n"


@pytest.mark.parametrize("revision", BOTH_ERAS)
async def test_a_client_that_cannot_ask_its_user_deletes_nothing(
    files: FilesServer, revision: str
) -> None:
    put(files.root, TODO, "milk\n")
    with anyio.fail_after(TEST_TIMEOUT):
        async with checked_client(files.url, revision, auth=oauth(READ, WRITE)) as client:
            assert "elicitation" not in client.capabilities
            if revision == "2026-07-28":  # a request needing it is refused (JR-37)
                with pytest.raises(ServerError) as refused:
                    await call(client, files.root, "delete_file", {"path": TODO})
                assert refused.value.code == -32021
                assert refused.value.data == {"requiredCapabilities": {"elicitation": {}}}
            else:
                result = await call(client, files.root, "delete_file", {"path": TODO})
                assert result.is_error and "elicitation" in result.text
    assert (files.root / TODO).read_text() == "milk\n"


# ---------------------------------------------------------------------------- confinement


@pytest.mark.parametrize("revision", BOTH_ERAS)
async def test_paths_leading_outside_the_root_are_refused(
    files: FilesServer, places: tuple[Path, Path], revision: str
) -> None:
    """``../``, absolute paths elsewhere and symbolic links out of the root are refused as
    error results before the tool runs: nothing outside is read, written, listed or asked
    about, and no answer says where the root is."""
    root, outside = places
    secret = outside / "secret.txt"
    (root / "escape.txt").symlink_to(secret)
    (root / "elsewhere").symlink_to(outside, target_is_directory=True)
    put(root, "notes/todo.txt", "milk\n")
    attempts = [
        ("read_file", {"path": "../outside/secret.txt"}),
        ("read_file", {"path": "notes/../../outside/secret.txt"}),
        ("read_file", {"path": str(secret)}),
        ("read_file", {"path": "escape.txt"}),
        ("read_file", {"path": "elsewhere/secret.txt"}),
        ("list_files", {"folder": ".."}),
        ("list_files", {"folder": "elsewhere"}),
        ("list_files", {"folder": "/"}),
        ("write_file", {"path": "../outside/new.txt", "content": "x"}),
        ("write_file", {"path": "escape.txt", "content": "overwritten"}),
        ("write_file", {"path": "elsewhere/new.txt", "content": "x"}),
        ("delete_file", {"path": "escape.txt"}),
        ("delete_file", {"path": str(secret)}),
    ]
    asked: list[tuple[str, bool]] = []
    accept = answering({"action": "accept", "content": {"confirm": True}}, root, asked)
    with anyio.fail_after(TEST_TIMEOUT):
        async with checked_client(
            files.url, revision, auth=oauth(READ, WRITE), elicitation_handler=accept
        ) as client:
            for name, arguments in attempts:
                result = await call(client, root, name, arguments)
                assert result.is_error, (name, arguments, result.text)
                assert "outside the allowed directory" in result.text, result.text
                assert str(outside) not in result.text
            # Inside, links are listed as links, not followed.
            top = await call(client, root, "list_files", {})
    assert asked == []
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
    assert secret.read_text() == "outside the root"
    assert top.structured == {
        "result": [
            {"path": "elsewhere", "kind": "link", "size": 0},
            {"path": "escape.txt", "kind": "link", "size": 0},
            {"path": "notes", "kind": "folder", "size": 0},
        ]
    }


# ---------------------------------------------------------------------------- static tokens


@pytest.fixture(scope="module")
def token_files(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FilesServer]:
    """The example with ``FILES_TOKENS``: no authorization server at all."""
    setting = ";".join(f"{token}={' '.join(scopes)}" for token, scopes in TOKENS.items())
    root = tmp_path_factory.mktemp("files-tokens") / "root"  # made by the example
    with files_server(root, FILES_TOKENS=setting) as server:
        yield server


@pytest.mark.parametrize("revision", BOTH_ERAS)
async def test_static_tokens(token_files: FilesServer, revision: str) -> None:
    root = token_files.root
    assert root.is_dir()
    with anyio.fail_after(TEST_TIMEOUT):
        async with checked_client(token_files.url, revision, auth="reader-token") as client:
            assert [tool["name"] for tool in await client.list_tools()] == ALL_TOOLS[:2]
        async with checked_client(token_files.url, revision, auth="writer-token") as client:
            assert [tool["name"] for tool in await client.list_tools()] == ALL_TOOLS
            arguments = {"path": f"{revision}.txt", "content": "static"}
            written = await call(client, root, "write_file", arguments)
            assert not written.is_error, written.text
        with pytest.raises(Unauthorized, match="HTTP 401"):
            async with checked_client(token_files.url, revision, auth="unknown-token"):
                pass
    assert (root / f"{revision}.txt").read_text() == "static"


async def test_static_tokens_publish_no_oauth_metadata(token_files: FilesServer) -> None:
    """No authorization server, so nothing to discover: no metadata, a bare challenge."""
    base = token_files.url.removesuffix("/mcp")
    with anyio.fail_after(TEST_TIMEOUT):
        async with httpx.AsyncClient() as http:
            metadata = await http.get(f"{base}/.well-known/oauth-protected-resource/mcp")
            refused = await http.post(token_files.url, json={})
    assert metadata.status_code == 404
    assert refused.status_code == 401
    assert refused.headers["www-authenticate"] == "Bearer"


class Tapped:
    """One of the official SDK transport's streams, showing every message to ``see``."""

    def __init__(self, inner: Any, see: Callable[[dict[str, Any]], None]) -> None:
        self._inner = inner
        self._see = see

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def _note(self, item: Any) -> Any:
        if isinstance(item, SessionMessage):
            self._see(item.message.model_dump(by_alias=True, mode="json", exclude_unset=True))
        return item

    async def __aenter__(self) -> Tapped:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc_info: Any) -> Any:
        return await self._inner.__aexit__(*exc_info)

    def __aiter__(self) -> Tapped:
        return self

    async def __anext__(self) -> Any:
        return self._note(await self._inner.__anext__())

    async def receive(self) -> Any:
        return self._note(await self._inner.receive())

    async def send(self, item: Any) -> None:
        await self._inner.send(self._note(item))


@asynccontextmanager
async def sdk_transport(
    url: str, token: str, checker: WireChecker
) -> AsyncIterator[tuple[Tapped, Tapped]]:
    """The SDK's Streamable HTTP transport, sending ``Authorization: Bearer <token>``."""
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=TEST_TIMEOUT) as http,
        streamable_http_client(url, http_client=http) as (read, write),
    ):
        yield Tapped(read, checker.server_sent), Tapped(write, checker.client_sent)


@pytest.mark.parametrize(("mode", "revision"), [("legacy", LEGACY), ("auto", MODERN)])
async def test_the_official_client_with_a_static_token(
    token_files: FilesServer, mode: str, revision: str
) -> None:
    root = token_files.root
    put(root, "sdk.txt", "from the SDK")
    checker = WireChecker(revision)
    questions: list[str] = []

    async def confirm(
        context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        questions.append(params.message)
        assert (root / "sdk.txt").exists()
        return types.ElicitResult(action="accept", content={"confirm": True})

    transport = sdk_transport(token_files.url, "writer-token", checker)
    with anyio.fail_after(TEST_TIMEOUT):
        async with SDKClient(transport, mode=mode, elicitation_callback=confirm) as client:
            assert client.protocol_version == revision
            listing = await client.list_tools()
            assert [tool.name for tool in listing.tools] == ALL_TOOLS
            read = await client.call_tool("read_file", {"path": "sdk.txt"})
            assert not read.is_error
            (block,) = read.content
            assert isinstance(block, types.TextContent) and block.text == "from the SDK"
            deleted = await client.call_tool("delete_file", {"path": "sdk.txt"})
            assert not deleted.is_error, deleted
    assert questions == ["Delete sdk.txt?"]
    assert not (root / "sdk.txt").exists()
    assert checker.checked >= 4
