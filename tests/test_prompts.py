"""Prompts: ``@mcp.prompt()`` functions listed by ``prompts/list`` and rendered by ``prompts/get``.

The model is tested without a loop (arguments from the signature and docstring, string
arguments converted to the parameters' types, return values turned into messages); the
protocol end to end over memory, a stdio subprocess and HTTP (real uvicorn) on a legacy
revision and on 2026-07-28, every message checked against the revision's JSON Schema; and
each revision's shaping (title, icons, audio, resource links) by schema validation.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import runpy
import sys
from collections.abc import AsyncIterator
from datetime import date
from typing import Any, Literal

import httpx
import orjson
import pytest
from pydantic import BaseModel, Field

from toolwire import Client, Context, File, Image, RegistrationError, Server, ServerError
from toolwire.prompts import AssistantMessage, Message, Prompt, UserMessage, to_messages
from toolwire.protocol.revisions import REVISIONS

from http_server import serve_http
from mcp_spec import WireChecker, validate_definition
from wire import MODERN, SERVERS, checked_client, modern_meta, raw_server

pytestmark = pytest.mark.timeout(30)

LEGACY = "2025-11-25"
TIMEOUT = 10.0
SCRIPT = SERVERS / "prompts_demo.py"
TRANSPORTS = ("memory", "stdio", "http")
SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"


def demo() -> Server:
    server: Server = runpy.run_path(str(SCRIPT))["mcp"]
    return server


@contextlib.asynccontextmanager
async def connect(transport: str, revision: str) -> AsyncIterator[Client]:
    """A schema-checked client of the demo server over ``transport``."""
    if transport == "memory":
        async with checked_client(demo(), revision) as client:
            yield client
    elif transport == "stdio":
        async with checked_client([sys.executable, str(SCRIPT)], revision) as client:
            yield client
    else:
        with serve_http(demo()) as url:
            async with checked_client(url, revision) as client:
                yield client


async def error_of(client: Client, method: str, params: dict[str, Any]) -> ServerError:
    with pytest.raises(ServerError) as info:
        await client.request(method, params)
    return info.value


# ---------------------------------------------------------------- the model (no loop)


def test_arguments_come_from_the_signature_and_the_docstring() -> None:
    def plan(
        goal: str,
        days: int = 3,
        budget: float | None = None,
        note: str = Field("", description="Anything else to know"),
    ) -> str:
        """Plan a trip.

        Args:
            goal: Where to go
            days: How long to stay
        """
        return goal

    prompt = Prompt(plan, title="Trip planner")
    assert prompt.definition == {
        "name": "plan",
        "title": "Trip planner",
        "description": "Plan a trip.",
        "arguments": [
            {"name": "goal", "description": "Where to go", "required": True},
            {"name": "days", "description": "How long to stay", "required": False},
            {"name": "budget", "required": False},
            {"name": "note", "description": "Anything else to know", "required": False},
        ],
    }
    assert prompt.bind({"goal": "Oslo"}) == {"goal": "Oslo", "days": 3, "budget": None, "note": ""}


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


def test_string_arguments_become_the_parameters_types() -> None:
    def typed(
        n: int, x: float, flag: bool, mode: Literal["a", "b"], colour: Colour, day: date
    ) -> str:
        return ""

    prompt = Prompt(typed)
    kwargs = prompt.bind(
        {"n": " 42", "x": "2.5", "flag": "Yes", "mode": "b", "colour": "blue", "day": "2026-07-28"}
    )
    assert kwargs == {
        "n": 42,
        "x": 2.5,
        "flag": True,
        "mode": "b",
        "colour": Colour.BLUE,
        "day": date(2026, 7, 28),
    }


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ({"n": "1"}, "missing required argument 'flag'"),
        ({"n": "one", "flag": "true"}, "argument 'n' must be an integer, got 'one'"),
        ({"n": "1", "flag": "maybe"}, "argument 'flag' must be true or false, got 'maybe'"),
        ({"n": "1", "flag": "1", "mode": "c"}, "argument 'mode' must be one of 'a', 'b', got 'c'"),
        ({"n": 1, "flag": "true"}, "argument 'n' must be a string"),
        ({"n": "1", "flag": "true", "extra": "x"}, "unknown argument 'extra'"),
    ],
)
def test_bad_arguments_are_invalid_params_naming_the_argument(
    arguments: dict[str, Any], problem: str
) -> None:
    def typed(n: int, flag: bool, mode: Literal["a", "b"] = "a") -> str:
        return ""

    with pytest.raises(Exception) as info:
        Prompt(typed).bind(arguments)
    assert getattr(info.value, "code", None) == -32602
    assert f"Invalid arguments for prompt 'typed': {problem}" in str(info.value)


def test_return_values_become_messages() -> None:
    png = b"\x89PNG\r\n\x1a\n"
    assert to_messages("hi") == [{"role": "user", "content": {"type": "text", "text": "hi"}}]
    assert to_messages(None) == []
    messages = to_messages(
        [
            "first",
            AssistantMessage("second"),
            Message("user", Image(data=png)),
            {"role": "assistant", "content": "fourth"},
            {"type": "text", "text": "fifth"},
            UserMessage(File(data=b"x = 1\n", name="a.py", mime_type="text/x-python")),
        ]
    )
    assert [m["role"] for m in messages] == [
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
        "user",
    ]
    assert messages[2]["content"] == {
        "type": "image",
        "data": "iVBORw0KGgo=",
        "mimeType": "image/png",
    }
    assert messages[5]["content"]["resource"]["text"] == "x = 1\n"
    with pytest.raises(ValueError):
        Message("system", "no such role")
    with pytest.raises(ValueError):
        to_messages({"role": "system", "content": "no"})
    with pytest.raises(TypeError):
        to_messages([object()])


def test_registration_refuses_duplicates_and_completers_of_unknown_arguments() -> None:
    mcp = Server("t")

    @mcp.prompt
    def hello(name: str) -> str:
        return f"Hello {name}"

    with pytest.raises(RegistrationError, match="already registered"):
        mcp.add_prompt(hello)
    with pytest.raises(RegistrationError, match="no argument 'nme'"):
        mcp.add_prompt(hello, name="other", complete={"nme": lambda v: []})
    with pytest.raises(KeyError):
        mcp.remove_prompt("nobody")
    assert [p.name for p in mcp.prompts] == ["hello"]
    assert mcp.get_prompt("hello") is not None


# ---------------------------------------------------------------- end to end, every transport


@pytest.mark.parametrize("revision", [LEGACY, MODERN])
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_prompts_are_listed_page_by_page_and_rendered(transport: str, revision: str) -> None:
    async with connect(transport, revision) as client:
        assert client.server_capabilities["prompts"] == {"listChanged": True}
        names: list[str] = []
        pages = 0
        cursor: str | None = None
        while True:
            page = await client.request("prompts/list", {"cursor": cursor} if cursor else None)
            pages += 1
            assert len(page["prompts"]) <= 2
            names += [p["name"] for p in page["prompts"]]
            if revision == MODERN:
                assert page["ttlMs"] >= 0 and page["cacheScope"] == "public"
            cursor = page.get("nextCursor")
            if cursor is None:
                break
        assert names == ["review", "tone", "media", "picky", "broken"]
        assert pages == 3

        first = (await client.request("prompts/list"))["prompts"][0]
        assert first["title"] == "Code Review"
        assert first["icons"] == [
            {"src": "https://example.com/review.png", "mimeType": "image/png"}
        ]
        assert first["_meta"] == {"com.example/team": "tests"}
        assert first["arguments"][0] == {
            "name": "code",
            "description": "The code to review",
            "required": True,
        }

        got = await client.request(
            "prompts/get",
            {"name": "review", "arguments": {"code": "x=1", "max_issues": "5", "strict": "true"}},
        )
        assert got["description"] == "Ask for a review of some code."
        assert got["messages"] == [
            {
                "role": "user",
                "content": {
                    "type": "text",
                    "text": "Review this python code (strict, 5 issues max):\nx=1",
                },
            }
        ]
        toned = await client.request("prompts/get", {"name": "tone", "arguments": {"text": "hey"}})
        assert [m["role"] for m in toned["messages"]] == ["user", "assistant"]


@pytest.mark.parametrize("revision", [LEGACY, MODERN])
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_prompt_messages_carry_images_audio_and_resources(
    transport: str, revision: str
) -> None:
    async with connect(transport, revision) as client:
        got = await client.request("prompts/get", {"name": "media"})
        contents = [m["content"] for m in got["messages"]]
        assert [c["type"] for c in contents] == [
            "image",
            "audio",
            "resource",
            "resource_link",
            "text",
        ]
        assert contents[0]["mimeType"] == "image/png"
        assert contents[1]["mimeType"] == "audio/wav"
        assert contents[2]["resource"] == {
            "uri": "file:///notes.md",
            "mimeType": "text/markdown",
            "text": "# Notes\n",
        }
        assert contents[3]["uri"] == "docs://guide"
        assert got["messages"][-1]["role"] == "assistant"


@pytest.mark.parametrize("revision", [LEGACY, MODERN])
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_bad_prompt_requests_get_clear_errors(transport: str, revision: str) -> None:
    async with connect(transport, revision) as client:
        unknown = await error_of(client, "prompts/get", {"name": "reveiw"})
        assert (unknown.code, unknown.message) == (
            -32602,
            "Unknown prompt: 'reveiw'. Did you mean 'review'?",
        )
        missing = await error_of(client, "prompts/get", {"name": "review", "arguments": {}})
        assert missing.code == -32602
        assert "missing required argument 'code'" in missing.message
        invalid = await error_of(
            client,
            "prompts/get",
            {"name": "review", "arguments": {"code": "x", "max_issues": "many"}},
        )
        assert invalid.code == -32602 and "'max_issues' must be an integer" in invalid.message
        choice = await error_of(
            client, "prompts/get", {"name": "tone", "arguments": {"text": "t", "style": "rude"}}
        )
        assert "'style' must be one of 'formal', 'casual'" in choice.message
        picky = await error_of(
            client, "prompts/get", {"name": "picky", "arguments": {"topic": "taxes"}}
        )
        assert (picky.code, picky.message) == (-32603, "Taxes are not a topic for this prompt")
        broken = await error_of(client, "prompts/get", {"name": "broken"})
        assert broken.code == -32603
        assert broken.message.startswith(
            "Prompt 'broken' failed with an internal error (reference "
        )
        assert "postgres" not in broken.message
        bad_cursor = await error_of(client, "prompts/list", {"cursor": "bm9wZQ"})
        assert bad_cursor.code == -32602
        # The server is still serving.
        assert (
            await client.request("prompts/get", {"name": "picky", "arguments": {"topic": "owls"}})
        )["messages"][0]["content"]["text"] == "Tell me about owls"


async def test_malformed_prompts_get_params_over_raw_stdio() -> None:
    """Params the schema forbids (sent raw, past any client) get -32602, never a crash."""
    async with raw_server("prompts_demo.py", revision=LEGACY) as server:
        await server.initialize(LEGACY)
        for params in (
            {},
            {"name": 7},
            {"name": "review", "arguments": ["x"]},
            {"name": "review", "arguments": {"code": None}},
        ):
            mid = server.next_id()
            message = {"jsonrpc": "2.0", "id": mid, "method": "prompts/get", "params": params}
            await server.send_raw(orjson.dumps(message))  # not schema-valid on purpose
            answer = await server.response(mid)
            assert answer["error"]["code"] == -32602, answer
        listed = await server.request("prompts/list")
        assert len(listed["result"]["prompts"]) == 2


# ---------------------------------------------------------------- every revision's shaping


@pytest.mark.parametrize("revision", REVISIONS)
async def test_each_revision_sees_only_what_it_defines(revision: str) -> None:
    async with checked_client(demo(), revision) as client:
        listed = await client.request("prompts/list")
        validate_definition(listed, "ListPromptsResult", revision)
        review = listed["prompts"][0]
        assert ("title" in review) == (revision >= "2025-06-18")
        assert ("_meta" in review) == (revision >= "2025-06-18")
        assert ("icons" in review) == (revision >= "2025-11-25")
        got = await client.request("prompts/get", {"name": "media"})
        validate_definition(got, "GetPromptResult", revision)
        kinds = [m["content"]["type"] for m in got["messages"]]
        assert kinds[1] == ("audio" if revision >= "2025-03-26" else "text")
        assert kinds[3] == ("resource_link" if revision >= "2025-06-18" else "text")
        if revision < "2025-06-18":
            assert got["messages"][3]["content"]["text"] == "Resource: The Guide <docs://guide>"
        assert ("resultType" in got) == (revision == MODERN)


async def test_a_server_without_prompts_answers_as_before() -> None:
    mcp = Server("tools-only")

    @mcp.tool()
    def add(a: int, b: int) -> int:
        return a + b

    for revision in (LEGACY, MODERN):
        async with checked_client(mcp, revision) as client:
            assert client.server_capabilities == {"tools": {"listChanged": True}, "logging": {}}
            for method, params in (("prompts/list", {}), ("prompts/get", {"name": "x"})):
                error = await error_of(client, method, params)
                assert (error.code, error.message) == (-32601, f"Method not found: {method}")


# ---------------------------------------------------------------- list changes


def _prompt_changes(client: Client) -> list[dict[str, Any]]:
    return [n for n in client.notifications if n["method"] == "notifications/prompts/list_changed"]


async def test_a_session_offered_no_prompts_hears_no_prompt_list_changes() -> None:
    """A legacy session learns of list changes only for the lists its initialize offered."""
    mcp = Server("late prompts")

    @mcp.tool()
    def ping() -> str:
        return "pong"

    async with checked_client(mcp, LEGACY) as early:
        assert "prompts" not in early.server_capabilities
        mcp.add_prompt(lambda: "hi", name="hello")
        mcp.add_tool(lambda: "x", name="later")  # a list this session was offered
        await early.ping()  # the notifications are queued before the ping's answer
        methods = [n["method"] for n in early.notifications]
        assert methods == ["notifications/tools/list_changed"]
        async with checked_client(mcp, LEGACY) as late:
            assert late.server_capabilities["prompts"] == {"listChanged": True}
            mcp.remove_prompt("hello")
            await late.ping()
            assert _prompt_changes(late) == [
                {"jsonrpc": "2.0", "method": "notifications/prompts/list_changed"}
            ]
            await early.ping()
            assert _prompt_changes(early) == []


@pytest.mark.parametrize("transport", ("memory", "stdio"))
async def test_list_changed_reaches_a_legacy_session(transport: str) -> None:
    async with connect(transport, LEGACY) as client:
        await client.call_tool("add_prompt", {"name": "fresh"})  # a sync tool: a worker thread
        await client.ping()  # the notification is queued before the ping's answer
        assert _prompt_changes(client) == [
            {"jsonrpc": "2.0", "method": "notifications/prompts/list_changed"}
        ]
        got = await client.request("prompts/get", {"name": "fresh"})
        assert got["messages"][0]["content"]["text"] == "I am fresh"
        await client.call_tool("drop_prompt", {"name": "fresh"})
        await client.ping()
        assert len(_prompt_changes(client)) == 2
        assert (await error_of(client, "prompts/get", {"name": "fresh"})).code == -32602


async def test_list_changed_on_a_2026_listen_stream_over_stdio() -> None:
    async with raw_server("prompts_demo.py", revision=MODERN) as server:
        listen = server.next_id()
        await server.send(
            {
                "jsonrpc": "2.0",
                "id": listen,
                "method": "subscriptions/listen",
                "params": {
                    "notifications": {"promptsListChanged": True, "toolsListChanged": False},
                    "_meta": modern_meta(),
                },
            }
        )
        ack = await server.recv()
        assert ack["method"] == "notifications/subscriptions/acknowledged"
        assert ack["params"]["notifications"] == {"promptsListChanged": True}
        added = await server.request(
            "tools/call", {"name": "add_prompt", "arguments": {"name": "n"}}, modern=True
        )
        assert added["result"]["content"][0]["text"] == "added n"
        changed = server.notifications.pop() if server.notifications else await server.recv()
        assert changed["method"] == "notifications/prompts/list_changed"
        assert changed["params"]["_meta"][SUBSCRIPTION_ID] == listen


async def test_list_changed_on_a_2026_listen_stream_over_http() -> None:
    mcp = demo()
    checker = WireChecker(MODERN)
    with serve_http(mcp) as url:
        async with httpx.AsyncClient(timeout=TIMEOUT) as http:

            def headers(message: dict[str, Any]) -> dict[str, str]:
                found = {
                    "Accept": "application/json, text/event-stream",
                    "Content-Type": "application/json",
                    "MCP-Protocol-Version": MODERN,
                    "Mcp-Method": message["method"],
                }
                if message["method"] in ("tools/call", "prompts/get"):
                    found["Mcp-Name"] = message["params"]["name"]
                return found

            def request(mid: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
                message = {
                    "jsonrpc": "2.0",
                    "id": mid,
                    "method": method,
                    "params": {**params, "_meta": modern_meta()},
                }
                checker.client_sent(message)
                return message

            listen = request(
                1, "subscriptions/listen", {"notifications": {"promptsListChanged": True}}
            )
            async with http.stream(
                "POST", url, content=orjson.dumps(listen), headers=headers(listen)
            ) as stream:
                lines = stream.aiter_lines()

                async def next_message() -> dict[str, Any]:
                    while True:
                        line = await asyncio.wait_for(lines.__anext__(), TIMEOUT)
                        if line.startswith("data:"):
                            data = line[5:].strip()
                            checker.server_sent(data)
                            message: dict[str, Any] = orjson.loads(data)
                            return message

                ack = await next_message()
                assert ack["params"]["notifications"] == {"promptsListChanged": True}
                call = request(
                    2, "tools/call", {"name": "add_prompt", "arguments": {"name": "web"}}
                )
                answer = await http.post(url, content=orjson.dumps(call), headers=headers(call))
                checker.server_sent(answer.content)
                assert answer.json()["result"]["content"][0]["text"] == "added web"
                changed = await next_message()
                assert changed["method"] == "notifications/prompts/list_changed"
                assert changed["params"]["_meta"][SUBSCRIPTION_ID] == 1

            # prompts/get needs a matching Mcp-Name on 2026-07-28 (HT-29).
            get = request(3, "prompts/get", {"name": "web"})
            wrong = await http.post(
                url, content=orjson.dumps(get), headers={**headers(get), "Mcp-Name": "other"}
            )
            assert wrong.status_code == 400
            checker.server_sent(wrong.content)
            assert wrong.json()["error"]["code"] == -32020
            get = request(4, "prompts/get", {"name": "web"})
            right = await http.post(url, content=orjson.dumps(get), headers=headers(get))
            checker.server_sent(right.content)
            assert right.json()["result"]["messages"][0]["content"]["text"] == "I am web"
    assert checker.checked >= 6


async def test_prompts_see_their_context() -> None:
    """A parameter annotated Context is injected (never an argument) and can log."""
    mcp = Server("ctx")

    @mcp.prompt()
    async def who(topic: str, ctx: Context) -> str:
        await ctx.info(f"rendering {topic}")
        return topic

    async with checked_client(mcp, LEGACY, log_level="info") as client:
        listed = await client.request("prompts/list")
        assert [a["name"] for a in listed["prompts"][0]["arguments"]] == ["topic"]
        got = await client.request("prompts/get", {"name": "who", "arguments": {"topic": "owls"}})
        assert got["messages"][0]["content"]["text"] == "owls"
        logged = [n for n in client.notifications if n["method"] == "notifications/message"]
        assert [n["params"]["data"] for n in logged] == ["rendering owls"]


class Pick(BaseModel):
    colour: str


@pytest.mark.parametrize("revision", [LEGACY, MODERN])
async def test_a_prompt_can_ask_the_user(revision: str) -> None:
    """Legacy: an elicitation/create request mid-prompt; 2026-07-28: an InputRequiredResult
    (MP-02), then a retry carrying the answer and the signed requestState."""
    mcp = Server("ask")
    asked: list[str] = []

    @mcp.prompt(name="paint", title="Paint", description="Paint something.")
    async def painting(thing: str, ctx: Context) -> str:
        answer = await ctx.elicit(f"Which colour for the {thing}?", Pick)
        return f"Paint the {thing} {answer.data.colour}" if answer.action == "accept" else "No"

    def handler(params: dict[str, Any]) -> dict[str, Any]:
        asked.append(params["message"])
        return {"action": "accept", "content": {"colour": "red"}}

    async with checked_client(mcp, revision, elicitation_handler=handler) as client:
        (listed,) = (await client.request("prompts/list"))["prompts"]
        assert (listed["name"], listed["title"], listed["description"]) == (
            "paint",
            "Paint",
            "Paint something.",
        )
        got = await client.request("prompts/get", {"name": "paint", "arguments": {"thing": "door"}})
        assert got["messages"][0]["content"]["text"] == "Paint the door red"
        assert got["description"] == "Paint something."
    assert asked == ["Which colour for the door?"]


async def test_a_forged_request_state_is_refused() -> None:
    mcp = Server("ask")

    @mcp.prompt()
    async def paint(ctx: Context) -> str:
        answer = await ctx.elicit("Colour?", Pick)
        return answer.data.colour

    async with checked_client(mcp, MODERN) as client:
        error = await error_of(
            client, "prompts/get", {"name": "paint", "requestState": "bm9wZQ.bm9wZQ"}
        )
        assert (error.code, error.message) == (-32602, "Invalid requestState")
