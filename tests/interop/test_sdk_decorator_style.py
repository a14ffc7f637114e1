"""A server written for the official SDK's decorator server behaves the same on toolwire.

``tests/servers/sdk2_decorator_style.py`` uses the SDK's ways of talking back to the client
(``ctx.session``, ``ctx.request_context``, ``@mcp.completion()``, URL elicitation,
``UrlElicitationRequiredError``, the SDK's result conventions, log messages without
``logging/setLevel``), and ``sdk1_decorator_style.py`` is the same server in the 1.x
spelling. Each runs as it is on its SDK (``mcp`` 2.x, the test environment's; ``mcp`` 1.x
in a virtualenv of its own), and on toolwire with only its import lines changed by ``toolwire migrate``
(:func:`migrated.migrated`), each as a real subprocess over stdio and over Streamable HTTP. The official client drives both the same
way, answering sampling, elicitation and roots with its callbacks, and what every call
returns is compared. Every message toolwire sends is checked against the schema of the
negotiated revision.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, MCPError, StdioServerParameters, stdio_client, types
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.message import SessionMessage

from interop import peers
from migrated import migrated

from mcp_spec import WireChecker

pytestmark = [
    pytest.mark.timeout(90),
    pytest.mark.peers("mcp-sdk-1"),
    # the client warns that resources/subscribe is gone from 2026-07-28; this is 2025-11-25
    pytest.mark.filterwarnings("ignore:resources/subscribe is removed"),
    pytest.mark.filterwarnings("ignore:The logging capability is deprecated"),
]

TESTS = Path(__file__).resolve().parents[1]
SRC = TESTS.parent / "src"
SERVERS = TESTS / "servers"
STYLES = {"sdk2": "sdk2_decorator_style.py", "sdk1": "sdk1_decorator_style.py"}
TIMEOUT = 60.0
REQUEST_TIMEOUT = 20.0
JSON = dict[str, Any]

# ---------------------------------------------------------------- running a side


def environment() -> dict[str, str]:
    python_path = [str(SRC), *filter(None, [os.environ.get("PYTHONPATH")])]
    return {"PYTHONPATH": os.pathsep.join(python_path), "PATH": os.environ.get("PATH", "")}


def sdk_python(style: str) -> str:
    """The interpreter that runs the file on its own SDK: the test environment's (``mcp``
    2.x), or a virtualenv with the SDK 1.x."""
    return sys.executable if style == "sdk2" else peers.python_sdk_1()


@pytest.fixture(scope="module", params=list(STYLES))
def sides(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> JSON:
    """The style's file on its SDK, and on toolwire with its imports changed:
    ``{side: (python, script)}``."""
    style = str(request.param)
    script = SERVERS / STYLES[style]
    toolwire_file = migrated(script, tmp_path_factory.mktemp(style))
    return {"sdk": (sdk_python(style), script), "toolwire": (sys.executable, toolwire_file)}


@contextmanager
def http_server(python: str, script: Path) -> Iterator[str]:
    process = subprocess.Popen(
        [python, str(SERVERS / "serve_app.py"), str(script)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, **environment()},
    )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:"), f"the server did not start: {url!r}"
        yield url
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)


class _Recorded:
    """A transport stream that hands each message to ``note`` as it passes."""

    def __init__(self, inner: Any, note: Callable[[JSON], None]) -> None:
        self._inner = inner
        self._note = note

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def _seen(self, item: Any) -> Any:
        if isinstance(item, SessionMessage):
            self._note(item.message.model_dump(by_alias=True, mode="json", exclude_unset=True))
        return item

    async def receive(self) -> Any:
        return self._seen(await self._inner.receive())

    async def send(self, item: Any, /) -> None:
        self._seen(item)
        await self._inner.send(item)

    def __aiter__(self) -> _Recorded:
        return self

    async def __anext__(self) -> Any:
        return self._seen(await self._inner.__anext__())

    async def __aenter__(self) -> _Recorded:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc_info: Any) -> Any:
        return await self._inner.__aexit__(*exc_info)


@asynccontextmanager
async def checked(transport: Any, checker: WireChecker | None) -> AsyncIterator[tuple[Any, Any]]:
    """``transport`` with every message checked against the schema (when ``checker``)."""
    async with transport as (read_stream, write_stream):
        if checker is None:
            yield read_stream, write_stream
        else:
            yield (
                _Recorded(read_stream, checker.server_sent),
                _Recorded(write_stream, checker.client_sent),
            )


# ---------------------------------------------------------------- the client's side


class Peer:
    """What the client's callbacks saw, and a way to wait for a notification."""

    def __init__(self) -> None:
        self.logs: list[tuple[str, Any, str | None]] = []
        self.notifications: list[JSON] = []
        self.questions: list[JSON] = []
        self.sampled: list[JSON] = []
        self._changed = anyio.Event()

    async def sample(self, context: Any, params: Any) -> types.CreateMessageResult:
        self.sampled.append(params.model_dump(by_alias=True, mode="json", exclude_none=True))
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text="a short summary"),
            model="test-model",
            stop_reason="endTurn",
        )

    async def elicit(self, context: Any, params: Any) -> types.ElicitResult:
        asked = params.model_dump(by_alias=True, mode="json", exclude_none=True)
        self.questions.append(asked)
        if asked.get("mode") == "url":
            return types.ElicitResult(action="accept")
        return types.ElicitResult(action="accept", content={"date": "2026-12-01", "guests": 2})

    async def roots(self, context: Any) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri="file:///srv/project", name="project")])

    async def log(self, params: types.LoggingMessageNotificationParams) -> None:
        self.logs.append((params.level, params.data, params.logger))
        self.poke()

    async def message(self, message: Any) -> None:
        if isinstance(message, Exception):
            return
        dumped = message.model_dump(by_alias=True, mode="json", exclude_none=True)
        if "method" in dumped:
            self.notifications.append(dumped)
            self.poke()

    def poke(self) -> None:
        """Something came in: wake :meth:`until`."""
        self._changed.set()

    async def until(self, seen: Callable[[], bool]) -> None:
        """Wait (within the test's deadline) until ``seen()`` holds."""
        while not seen():
            self._changed = anyio.Event()
            await self._changed.wait()

    def methods(self) -> set[str]:
        return {n["method"] for n in self.notifications}


def call_outcome(result: types.CallToolResult) -> JSON:
    return {
        "is_error": result.is_error,
        "content": [
            block.model_dump(by_alias=True, mode="json", exclude_none=True)
            for block in result.content
        ],
        "structured": result.structured_content,
    }


def untitled(schema: Any) -> Any:
    """``schema`` without the ``title`` keys pydantic writes (toolwire's schemas are portable
    by default: no titles, docs/migrating.md); everything else as it is."""
    if isinstance(schema, dict):
        return {
            k: untitled(v) for k, v in schema.items() if not (k == "title" and isinstance(v, str))
        }
    if isinstance(schema, list):
        return [untitled(item) for item in schema]
    return schema


async def scenario(client: Client, peer: Peer) -> JSON:
    """Every construct, called once; what each call gave."""
    seen: JSON = {}
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    seen["tools"] = sorted(tools)
    for name in ("profile", "echo", "summarize", "cities"):
        seen[f"{name} schema"] = untitled(tools[name].output_schema)
    seen["lookup schema"] = tools["lookup"].input_schema

    seen["summarize"] = call_outcome(await client.call_tool("summarize", {"text": "MCP"}))
    seen["sampled"] = peer.sampled

    seen["announce"] = call_outcome(await client.call_tool("announce", {}))
    changes = {f"notifications/{kind}/list_changed" for kind in ("tools", "resources", "prompts")}
    await peer.until(lambda: changes <= peer.methods() and len(peer.logs) >= 2)
    seen["logs"] = sorted(peer.logs, key=repr)

    progress: list[Any] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total, message))

    seen["count"] = call_outcome(
        await client.call_tool("count", {"n": 3}, progress_callback=on_progress)
    )
    # The SDK sends progress after its result at times, when the client no longer listens
    # (on a loaded machine, all of it): what came in is compared as steps of the count
    # (toolwire's are checked below: all three, in order).
    steps = [(float(i), 3.0, f"step {i}") for i in (1, 2, 3)]
    seen["progress are steps"] = all(step in steps for step in progress)
    seen["_progress"] = progress

    seen["who"] = (await client.call_tool("who", {})).structured_content

    # The SDK's MCPServer does not serve resources/subscribe (it sends the update to the
    # caller regardless); toolwire does, and sends updates to subscribers.
    with contextlib.suppress(MCPError):
        await client.subscribe_resource("config://settings")
    seen["touch"] = call_outcome(await client.call_tool("touch", {"uri": "config://settings"}))
    await peer.until(lambda: "notifications/resources/updated" in peer.methods())
    seen["updated"] = [
        n["params"] for n in peer.notifications if n["method"] == "notifications/resources/updated"
    ]

    seen["book"] = call_outcome(await client.call_tool("book", {}))
    seen["pay"] = call_outcome(await client.call_tool("pay", {"amount": 12.5}))
    seen["questions"] = peer.questions  # the forms whole, pydantic's titles (labels) too
    with pytest.raises(MCPError) as refused:
        await client.call_tool("connect_service", {"service": "github"})
    seen["connect_service"] = (
        refused.value.error.code,
        refused.value.error.message,
        refused.value.error.data,
    )

    seen["profile"] = call_outcome(await client.call_tool("profile", {"name": "Ada"}))
    seen["echo"] = call_outcome(await client.call_tool("echo", {"text": "hi"}))
    for name in ("cities", "no_alerts", "config"):
        seen[name] = call_outcome(await client.call_tool(name, {}))
    seen["pixel"] = call_outcome(await client.call_tool("pixel", {}))

    resources = (await client.list_resources()).resources
    seen["resources"] = [(str(r.uri), r.name, r.mime_type) for r in resources]
    templates = (await client.list_resource_templates()).resource_templates
    seen["templates"] = [(t.uri_template, t.mime_type) for t in templates]
    for uri in ("config://settings", "notes://today", "github://repos/octo/hello"):
        read = await client.read_resource(uri)
        seen[f"read {uri}"] = [c.model_dump(by_alias=True, mode="json") for c in read.contents]
    prompt = await client.get_prompt("review_code", {"language": "go", "code": "x := 1"})
    seen["prompt"] = [m.model_dump(by_alias=True, mode="json") for m in prompt.messages]

    language = await client.complete(
        types.PromptReference(type="ref/prompt", name="review_code"),
        {"name": "language", "value": "ty"},
    )
    seen["complete language"] = language.completion.values
    repo = await client.complete(
        types.ResourceTemplateReference(type="ref/resource", uri="github://repos/{owner}/{repo}"),
        {"name": "repo", "value": ""},
        context_arguments={"owner": "modelcontextprotocol"},
    )
    seen["complete repo"] = repo.completion.values
    other = await client.complete(
        types.ResourceTemplateReference(type="ref/resource", uri="github://repos/{owner}/{repo}"),
        {"name": "owner", "value": "m"},
    )
    seen["complete other"] = other.completion.values

    # the SDK's private objects: a schema set by hand, a handler of logging/setLevel
    seen["lookup"] = call_outcome(await client.call_tool("lookup", {"city": "Paris"}))
    await client.set_logging_level("warning")
    seen["chosen_levels"] = call_outcome(await client.call_tool("chosen_levels", {}))
    return seen


async def run(target: Any, checker: WireChecker | None, stderr: Any) -> JSON:
    peer = Peer()
    if isinstance(target, str):
        transport = streamable_http_client(target)
    else:
        transport = stdio_client(target, errlog=stderr)
    async with Client(
        checked(transport, checker),
        mode="legacy",
        read_timeout_seconds=REQUEST_TIMEOUT,
        sampling_callback=peer.sample,
        elicitation_callback=peer.elicit,
        list_roots_callback=peer.roots,
        logging_callback=peer.log,
        message_handler=peer.message,
    ) as client:
        return await scenario(client, peer)


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_the_sdk_server_runs_the_same_on_toolwire(
    sides: JSON, transport: str, tmp_path: Path
) -> None:
    outcomes: dict[str, JSON] = {}
    checker = WireChecker()
    for side, (python, script) in sides.items():
        with open(tmp_path / f"{side}.err", "w") as stderr:
            check = checker if side == "toolwire" else None
            with anyio.fail_after(TIMEOUT):
                if transport == "http":
                    with http_server(python, script) as url:
                        outcomes[side] = await run(url, check, stderr)
                else:
                    parameters = StdioServerParameters(
                        command=python, args=[str(script)], env=environment()
                    )
                    outcomes[side] = await run(parameters, check, stderr)
    checker.close()
    assert checker.revision == "2025-11-25" and checker.checked > 40
    sdk, tw = outcomes["sdk"], outcomes["toolwire"]
    different = {
        key: (sdk[key], tw.get(key))
        for key in sdk
        if not key.startswith("_") and sdk[key] != tw.get(key)
    }
    for key, (on_sdk, on_toolwire) in different.items():
        print(f"{key}:\n  sdk:      {on_sdk!r}\n  toolwire: {on_toolwire!r}")
    assert different == {}
    # and what both gave is what the server means
    assert tw["_progress"] == [(float(i), 3.0, f"step {i}") for i in (1, 2, 3)]
    assert sdk["summarize"]["content"][0]["text"] == "test-model: a short summary"
    assert ("info", "announcing", "announcer") in sdk["logs"]
    assert sdk["connect_service"][0] == -32042
    assert sdk["profile"] == {
        "is_error": False,
        "content": [{"type": "text", "text": "\"UserProfile('Ada', 30)\""}],
        "structured": {"name": "Ada", "age": 30, "email": None},
    }
    assert [block["text"] for block in sdk["cities"]["content"]] == ["London", "Paris", "Tokyo"]
    assert sdk["no_alerts"]["content"] == []
    assert sdk["config"]["content"] == [{"type": "text", "text": "\"UntypedConfig(theme='dark')\""}]
    assert sdk["complete repo"] == ["python-sdk", "typescript-sdk"]
    assert sdk["summarize"]["structured"] == {"result": "test-model: a short summary"}
    assert sdk["summarize schema"]["properties"] == {"result": {"type": "string"}}
    assert sdk["lookup schema"]["properties"]["units"] == {"enum": ["metric", "imperial"]}
    assert sdk["lookup"]["content"] == [{"type": "text", "text": "looked up"}]
    assert sdk["chosen_levels"]["structured"] == {"result": ["warning"]}
    # a function resource or template is listed with the MIME type of its reads
    assert ("notes://today", "today", "text/plain") in sdk["resources"]
    assert sdk["templates"] == [("github://repos/{owner}/{repo}", "text/plain")]
    assert sdk["read notes://today"][0]["mimeType"] == "text/plain"
