"""completion/complete: suggestions for prompt arguments and resource-template variables.

End to end over memory, a stdio subprocess and HTTP (real uvicorn) on a legacy revision and
on 2026-07-28 with every message schema-checked; the earlier answers of ``context.arguments``
reach the completers that ask for them; answers hold at most 100 values; every revision
defines the request (2024-11-05 included) but only 2025-03-26 on declares the capability.
The official SDK's client completes an argument over stdio too.
"""

from __future__ import annotations

import contextlib
import os
import runpy
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from toolwire import Client, Server, ServerError
from toolwire.completion import completion_result
from toolwire.protocol.revisions import REVISIONS

from http_server import serve_http
from mcp_spec import validate_definition
from wire import MODERN, SERVERS, checked_client

pytestmark = pytest.mark.timeout(30)

LEGACY = "2025-11-25"
SCRIPT = SERVERS / "prompts_complete.py"
TRANSPORTS = ("memory", "stdio", "http")
TEMPLATE = "users://{org}/{user_id}/profile"
SRC_DIR = Path(__file__).resolve().parents[1] / "src"


def server() -> Server:
    built: Server = runpy.run_path(str(SCRIPT))["mcp"]
    return built


@contextlib.asynccontextmanager
async def connect(transport: str, revision: str) -> AsyncIterator[Client]:
    if transport == "memory":
        async with checked_client(server(), revision) as client:
            yield client
    elif transport == "stdio":
        async with checked_client([sys.executable, str(SCRIPT)], revision) as client:
            yield client
    else:
        with serve_http(server()) as url:
            async with checked_client(url, revision) as client:
                yield client


async def complete(
    client: Client,
    ref: dict[str, Any],
    name: str,
    value: str,
    context: dict[str, str] | None = None,
) -> dict[str, Any]:
    params: dict[str, Any] = {"ref": ref, "argument": {"name": name, "value": value}}
    if context is not None:
        params["context"] = {"arguments": context}
    result = await client.request("completion/complete", params)
    completion: dict[str, Any] = result["completion"]
    return completion


def prompt(name: str) -> dict[str, str]:
    return {"type": "ref/prompt", "name": name}


def template(uri: str = TEMPLATE) -> dict[str, str]:
    return {"type": "ref/resource", "uri": uri}


# ---------------------------------------------------------------- what a completer returns


def test_completion_results_are_normalised_and_cut_at_100() -> None:
    assert completion_result(["a", "b"]) == {"values": ["a", "b"]}
    assert completion_result(None) == {"values": []}
    assert completion_result(i for i in range(3)) == {"values": ["0", "1", "2"]}
    many = completion_result([str(i) for i in range(150)])
    assert len(many["values"]) == 100 and many["total"] == 150 and many["hasMore"] is True
    assert completion_result({"values": ["x"], "total": 9, "hasMore": True}) == {
        "values": ["x"],
        "total": 9,
        "hasMore": True,
    }


# ---------------------------------------------------------------- end to end


@pytest.mark.parametrize("revision", [LEGACY, MODERN])
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_prompt_arguments_complete(transport: str, revision: str) -> None:
    async with connect(transport, revision) as client:
        assert client.server_capabilities["completions"] == {}
        assert await complete(client, prompt("greet"), "name", "al") == {
            "values": ["alice", "albert"]
        }
        # Literal arguments complete from their choices.
        assert await complete(client, prompt("greet"), "mood", "wa") == {"values": ["warm", "wary"]}
        # An argument without a completer has nothing to suggest.
        assert await complete(client, prompt("greet"), "note", "x") == {"values": []}
        # The earlier answers reach a completer that takes them.
        assert await complete(client, prompt("city"), "district", "g", {"city": "oslo"}) == {
            "values": ["gamle oslo", "grunerlokka"]
        }
        assert await complete(client, prompt("city"), "district", "", {}) == {"values": []}
        many = await complete(client, prompt("count"), "n", "")
        assert len(many["values"]) == 100
        assert (many["total"], many["hasMore"]) == (250, True)
        assert await complete(client, prompt("count"), "m", "") == {
            "values": ["1", "2"],
            "total": 40,
            "hasMore": True,
        }


@pytest.mark.parametrize("revision", [LEGACY, MODERN])
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_resource_template_variables_complete(transport: str, revision: str) -> None:
    async with connect(transport, revision) as client:
        assert await complete(client, template(), "org", "a") == {"values": ["acme"]}
        assert await complete(client, template(), "user_id", "a", {"org": "acme"}) == {
            "values": ["ada", "alan"]
        }
        assert await complete(client, template(), "user_id", "", {"org": "nowhere"}) == {
            "values": []
        }


@pytest.mark.parametrize("revision", [LEGACY, MODERN])
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_bad_completion_requests_get_clear_errors(transport: str, revision: str) -> None:
    async with connect(transport, revision) as client:
        cases = [
            (prompt("greeet"), "name", -32602, "Unknown prompt: 'greeet'. Did you mean 'greet'?"),
            (
                template("users://{org}"),
                "org",
                -32602,
                "Unknown resource template: 'users://{org}'",
            ),
        ]
        for ref, name, code, message in cases:
            with pytest.raises(ServerError) as info:
                await complete(client, ref, name, "")
            assert (info.value.code, info.value.message) == (code, message)
        with pytest.raises(ServerError) as info:
            await complete(client, prompt("fail"), "x", "")
        assert info.value.code == -32603
        assert "hunter2" not in info.value.message
        assert info.value.message.startswith(
            "Completion of argument 'x' of prompt 'fail' failed with an internal error (reference "
        )
        # Still serving.
        assert await complete(client, prompt("greet"), "name", "b") == {"values": ["bob"]}


async def test_malformed_completion_params_are_invalid_params() -> None:
    """Shapes no schema allows (sent past the checker) get -32602, never a crash."""
    connection = server().connect(lambda data: None)
    from toolwire.protocol.revisions import FEATURES
    from toolwire.server.dispatch.prompt_methods import PROMPT_METHODS
    from toolwire.server.session import Request

    handler = PROMPT_METHODS["completion/complete"]
    good = {"ref": prompt("greet"), "argument": {"name": "name", "value": "a"}}
    for params in (
        {},
        {**good, "ref": "greet"},
        {**good, "ref": {"type": "ref/tool", "name": "x"}},
        {**good, "ref": {"type": "ref/prompt"}},
        {**good, "argument": {"name": "name"}},
        {**good, "argument": {"name": "name", "value": 3}},
        {**good, "context": {"arguments": {"city": 1}}},
    ):
        request = Request(1, "completion/complete", params, FEATURES[LEGACY], None, {}, None, None)
        with pytest.raises(Exception) as info:
            handler(connection, request)
        assert getattr(info.value, "code", None) == -32602, params
    connection.close()


# ---------------------------------------------------------------- revisions and capabilities


@pytest.mark.parametrize("revision", REVISIONS)
async def test_every_revision_answers_completion_and_declares_it_when_defined(
    revision: str,
) -> None:
    async with checked_client(server(), revision) as client:
        assert ("completions" in client.server_capabilities) == (revision >= "2025-03-26")
        result = await client.request(
            "completion/complete",
            {"ref": prompt("greet"), "argument": {"name": "name", "value": "c"}},
        )
        validate_definition(result, "CompleteResult", revision)
        assert result["completion"] == {"values": ["carol"]}


async def test_a_server_without_completers_does_not_offer_completion() -> None:
    mcp = Server("plain")

    @mcp.prompt()
    def hello(name: str) -> str:
        return f"Hello {name}"

    for revision in (LEGACY, MODERN):
        async with checked_client(mcp, revision) as client:
            assert "completions" not in client.server_capabilities
            assert client.server_capabilities["prompts"] == {"listChanged": True}
            with pytest.raises(ServerError) as info:
                await complete(client, prompt("hello"), "name", "")
            assert info.value.code == -32601


async def test_async_and_sync_completers_both_work() -> None:
    mcp = Server("kinds")

    async def later(value: str) -> list[str]:
        return [value + "!"]

    @mcp.prompt(complete={"a": later, "b": lambda value, arguments: [arguments.get("a", "-")]})
    def both(a: str, b: str) -> str:
        return a + b

    async with checked_client(mcp, MODERN) as client:
        assert await complete(client, prompt("both"), "a", "hi") == {"values": ["hi!"]}
        assert await complete(client, prompt("both"), "b", "", {"a": "x"}) == {"values": ["x"]}


# ---------------------------------------------------------------- the official SDK's client


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_the_official_client_lists_gets_and_completes(mode: str) -> None:
    from mcp import Client as SdkClient
    from mcp import StdioServerParameters, types

    env = {"PYTHONPATH": str(SRC_DIR), "PATH": os.environ.get("PATH", "")}
    parameters = StdioServerParameters(
        command=sys.executable, args=[str(SERVERS / "prompts_demo.py")], env=env
    )
    with anyio.fail_after(45):
        async with SdkClient(parameters, mode=mode) as sdk:
            names: list[str] = []
            cursor: str | None = None
            while True:
                page = await sdk.session.list_prompts(
                    params=types.PaginatedRequestParams(cursor=cursor) if cursor else None
                )
                names += [p.name for p in page.prompts]
                cursor = page.next_cursor
                if cursor is None:
                    break
            assert names == ["review", "tone", "media", "picky", "broken"]
            got = await sdk.get_prompt("review", {"code": "print(1)", "language": "python"})
            assert got.description == "Ask for a review of some code."
            assert got.messages[0].content.text.endswith("print(1)")
            media = await sdk.get_prompt("media")
            assert [m.content.type for m in media.messages][:3] == ["image", "audio", "resource"]
            done = await sdk.complete(
                types.PromptReference(type="ref/prompt", name="review"),
                {"name": "language", "value": "py"},
            )
            assert done.completion.values == ["python"]
            framework = await sdk.complete(
                types.PromptReference(type="ref/prompt", name="review"),
                {"name": "framework", "value": "f"},
                context_arguments={"language": "python"},
            )
            assert framework.completion.values == ["fastapi", "flask"]


async def test_a_resource_template_alone_offers_completion() -> None:
    mcp = Server("templates-only")

    @mcp.resource("notes://{topic}", complete={"topic": lambda value: ["owls", "otters"]})
    def note(topic: str) -> str:
        return topic

    async with checked_client(mcp, LEGACY) as client:
        assert client.server_capabilities["completions"] == {}
        assert "prompts" not in client.server_capabilities
        assert await complete(client, template("notes://{topic}"), "topic", "o") == {
            "values": ["owls", "otters"]
        }
        with pytest.raises(ServerError) as info:
            await client.request("prompts/list")
        assert info.value.code == -32601
