"""The official SDK's ``ctx.session`` and ``ctx.request_context``, the decorator server's
``@mcp.completion()`` and ``@mcp.resource(uri=...)``, ``UrlElicitationRequiredError``, the
SDK's result conventions and log messages without ``logging/setLevel``, in toolwire's own
client (in memory) on both eras, every message checked against the schema. The same
constructs run against the SDK itself in tests/interop/test_sdk_decorator_style.py."""

from __future__ import annotations

from typing import Annotated, Any

import anyio
import pytest
from pydantic import BaseModel

from toolwire import Audio, Context, Image, Server
from toolwire.errors import ServerError, UrlElicitationRequiredError
from toolwire.server import RequestContext, ServerSession
from toolwire.types import AudioContent, CallToolResult, Completion, ImageContent, TextContent

from wire import MODERN, checked_client

pytestmark = pytest.mark.timeout(30)
LEGACY = "2025-11-25"
ERAS = [pytest.param(LEGACY, id="legacy"), pytest.param(MODERN, id="modern")]
TIMEOUT = 20.0


def sampled(params: dict[str, Any]) -> dict[str, Any]:
    text = params["messages"][0]["content"]["text"]
    return {
        "role": "assistant",
        "content": {"type": "text", "text": f"echo {text}"},
        "model": "m1",
        "stopReason": "endTurn",
    }


def build(**options: Any) -> Server:
    mcp = Server("sdk-session", **options)

    @mcp.tool()
    async def ask_model(text: str, ctx: Context[ServerSession, None]) -> str:
        result = await ctx.session.create_message(
            messages=[{"role": "user", "content": {"type": "text", "text": text}}],
            max_tokens=10,
        )
        return f"{result.model}/{result.stop_reason}/{result.content.type}: {result.content.text}"

    @mcp.tool()
    async def context(ctx: Context) -> dict[str, Any]:
        request = ctx.request_context
        session = ctx.session
        return {
            "types": [type(request).__name__, type(session).__name__],
            "same id": request.request_id == ctx.request_id,
            "token": [request.meta.progressToken, request.meta.get("progress_token")],
            "http": request.request is None,
            "through": request.client_info == ctx.client_info,
            "client": [
                session.client_params.client_info.name,
                session.client_params.clientInfo.name,
            ],
            "version": session.protocol_version,
            "sampling": session.check_client_capability({"sampling": {}}),
            "sampling tools": session.check_client_capability({"sampling": {"tools": {}}}),
            "roots": session.check_client_capability({"roots": {}}),
        }

    @mcp.tool()
    async def speak(ctx: Context) -> str:
        await ctx.session.send_log_message("debug", "a debug")
        await ctx.session.send_log_message("warning", {"n": 1}, logger="sdk")
        return "spoke"

    @mcp.tool()
    async def ping_client(ctx: Context) -> str:
        await ctx.session.send_ping()
        return "pinged"

    @mcp.tool()
    async def touch(uri: str, ctx: Context) -> str:
        await ctx.session.send_resource_updated(uri)
        return "touched"

    @mcp.tool()
    def connect(service: str) -> str:
        raise UrlElicitationRequiredError(
            [
                {
                    "message": "Sign in",
                    "url": f"https://{service}.example.com/",
                    "elicitationId": "e1",
                }
            ]
        )

    @mcp.tool()
    async def pay(ctx: Context) -> str:
        answer = await ctx.elicit_url(
            message="Pay", url="https://pay.example.com/", elicitation_id="payment-7"
        )
        return answer.action

    @mcp.resource(uri="config://settings")
    def settings() -> str:
        return "{}"

    @mcp.resource("users://{name}", complete={"name": lambda value: ["ada", "alan"]})
    def user(name: str) -> str:
        return name

    @mcp.prompt()
    def review(language: str) -> str:
        return f"review {language}"

    @mcp.completion()
    def complete(ref: Any, argument: Any, context: Any) -> Completion | None:
        if ref.type == "ref/prompt":
            return Completion(values=[f"{argument.value}-{ref.name}"])
        if argument.value == "boom":
            raise ValueError("no completion for boom")
        return None

    return mcp


async def test_the_context_annotated_the_sdk_1x_way_is_injected() -> None:
    mcp = build()
    async with checked_client(mcp, LEGACY) as client:
        tools = {tool["name"]: tool for tool in await client.list_tools()}
    assert tools["ask_model"]["inputSchema"]["properties"] == {"text": {"type": "string"}}


@pytest.mark.parametrize("revision", ERAS)
async def test_create_message_asks_the_clients_model(revision: str) -> None:
    """Legacy: a sampling/createMessage request; 2026-07-28: an InputRequiredResult round."""
    with anyio.fail_after(TIMEOUT):
        async with checked_client(build(), revision, sampling_handler=sampled) as client:
            result = await client.call_tool("ask_model", {"text": "hi"})
    assert result.text == "m1/endTurn/text: echo hi"


@pytest.mark.parametrize("revision", ERAS)
async def test_the_request_context_and_the_session_read_as_in_the_sdk(revision: str) -> None:
    with anyio.fail_after(TIMEOUT):
        async with checked_client(build(), revision, sampling_handler=sampled) as client:
            result = await client.call_tool("context", {})
    assert result.structured == {
        "types": ["RequestContext", "ServerSession"],
        "same id": True,
        "token": [None, None],
        "http": True,
        "through": True,
        "client": ["toolwire", "toolwire"],
        "version": revision,
        "sampling": True,
        "sampling tools": False,
        "roots": False,
    }
    assert (
        RequestContext.__module__
        == ServerSession.__module__
        == "toolwire.server.compat.sdk_session"
    )


async def test_log_messages_reach_a_legacy_client_that_chose_no_level() -> None:
    seen: list[dict[str, Any]] = []
    with anyio.fail_after(TIMEOUT):
        async with checked_client(build(), LEGACY, log_handler=seen.append) as client:
            assert (await client.call_tool("speak", {})).text == "spoke"
    assert seen == [
        {"level": "debug", "data": "a debug"},
        {"level": "warning", "data": {"n": 1}, "logger": "sdk"},
    ]


@pytest.mark.parametrize(
    ("level", "expected"), [("warning", ["warning"]), (None, [])], ids=["warning", "none"]
)
async def test_client_log_level_sets_what_such_a_client_gets(
    level: str | None, expected: list[str]
) -> None:
    seen: list[dict[str, Any]] = []
    with anyio.fail_after(TIMEOUT):
        async with checked_client(
            build(client_log_level=level), LEGACY, log_handler=seen.append
        ) as client:
            assert (await client.call_tool("speak", {})).text == "spoke"
            await client.request("logging/setLevel", {"level": "debug"})  # the client chose
            assert (await client.call_tool("speak", {})).text == "spoke"
    assert [m["level"] for m in seen] == [*expected, "debug", "warning"]


async def test_a_modern_request_without_a_level_gets_no_log_messages() -> None:
    seen: list[dict[str, Any]] = []
    with anyio.fail_after(TIMEOUT):
        async with checked_client(build(), MODERN, log_handler=seen.append) as client:
            assert (await client.call_tool("speak", {})).text == "spoke"
    assert seen == []


def test_client_log_level_must_be_a_level() -> None:
    with pytest.raises(
        ValueError, match="client_log_level='loud' is no log level: use one of debug"
    ):
        Server("x", client_log_level="loud")


@pytest.mark.parametrize(("revision", "answer"), [(LEGACY, "pinged"), (MODERN, "no requests")])
async def test_send_ping(revision: str, answer: str) -> None:
    with anyio.fail_after(TIMEOUT):
        async with checked_client(build(), revision) as client:
            result = await client.call_tool("ping_client", {})
    assert answer in result.text
    assert result.is_error == (revision == MODERN)


async def test_resource_updates_reach_the_subscribers() -> None:
    updated: list[Any] = []
    mcp = build()
    with anyio.fail_after(TIMEOUT):
        async with checked_client(mcp, LEGACY) as subscriber, checked_client(mcp, LEGACY) as caller:
            assert subscriber.server_capabilities["resources"]["subscribe"] is True
            await subscriber.subscribe_resource(
                "config://settings", lambda uri: updated.append(uri)
            )
            assert (await caller.call_tool("touch", {"uri": "config://settings"})).text == "touched"
            assert (await caller.call_tool("touch", {"uri": "other://x"})).text == "touched"
            await subscriber.list_tools()  # the update went out before this answer
            assert caller.notifications == []
    assert updated == [{"uri": "config://settings"}]


@pytest.mark.parametrize("revision", ERAS)
async def test_url_elicitation_required_is_the_32042_error(revision: str) -> None:
    with anyio.fail_after(TIMEOUT):
        async with checked_client(build(), revision) as client:
            with pytest.raises(ServerError) as refused:
                await client.call_tool("connect", {"service": "github"})
    assert refused.value.code == -32042
    assert refused.value.message == "URL elicitation required"
    assert refused.value.data == {
        "elicitations": [
            {
                "mode": "url",
                "message": "Sign in",
                "url": "https://github.example.com/",
                "elicitationId": "e1",
            }
        ]
    }


def test_url_elicitation_required_refuses_what_is_no_url_elicitation() -> None:
    with pytest.raises(ValueError, match="at least one"):
        UrlElicitationRequiredError([])
    with pytest.raises(ValueError, match=r"needs elicitationId \(given: \['message', 'url'\]\)"):
        UrlElicitationRequiredError([{"message": "m", "url": "https://x.example/"}])
    with pytest.raises(TypeError, match="takes ElicitRequestURLParams or dicts"):
        UrlElicitationRequiredError(["https://x.example/"])


async def test_elicit_url_takes_the_sdks_elicitation_id() -> None:
    asked: list[dict[str, Any]] = []

    def answer(params: dict[str, Any]) -> dict[str, Any]:
        asked.append(params)
        return {"action": "accept"}

    with anyio.fail_after(TIMEOUT):
        async with checked_client(
            build(), LEGACY, elicitation_handler=answer, capabilities={"elicitation": {"url": {}}}
        ) as client:
            assert (await client.call_tool("pay", {})).text == "accept"
    assert asked[0]["elicitationId"] == "payment-7"


async def test_the_completion_handler_and_the_completers() -> None:
    with anyio.fail_after(TIMEOUT):
        async with checked_client(build(), LEGACY) as client:
            assert "completions" in client.server_capabilities
            prompt = await client.complete(prompt="review", argument="language", value="py")
            assert prompt.values == ["py-review"]
            # the handler answers None: the template variable's own completer answers
            user = await client.complete(resource_template="users://{name}", argument="name")
            assert user.values == ["ada", "alan"]
            with pytest.raises(ServerError) as failed:
                await client.complete(
                    resource_template="users://{name}", argument="name", value="boom"
                )
    assert failed.value.code == -32603


async def test_a_completion_handler_alone_offers_completions() -> None:
    mcp = Server("only-handler")

    @mcp.prompt()
    def greet(name: str) -> str:
        return f"hello {name}"

    @mcp.completion()
    async def complete(ref: Any, argument: Any, context: Any) -> list[str]:
        return [f"{argument.value}{suffix}" for suffix in ("a", "b")]

    with anyio.fail_after(TIMEOUT):
        async with checked_client(mcp, MODERN) as client:
            assert (await client.complete(prompt="greet", argument="name", value="x")).values == [
                "xa",
                "xb",
            ]


def test_resource_takes_its_uri_by_keyword() -> None:
    mcp = Server("kw")

    @mcp.resource(uri="data://one", mime_type="text/plain")
    def one() -> str:
        return "1"

    @mcp.resource("data://two")
    def two() -> str:
        return "2"

    assert [str(r.uri) for r in mcp.resources] == ["data://one", "data://two"]


# ---------------------------------------------------------------- results


class Plain:
    name: str
    size: int = 0
    _hidden: str = "x"

    def __init__(self, name: str, size: int) -> None:
        self.name = name
        self.size = size
        self._hidden = "y"


class Unannotated:
    def __init__(self) -> None:
        self.value = 1


class Reply(BaseModel):
    text: str


def results_server() -> Server:
    mcp = Server("results")

    @mcp.tool()
    def plain() -> Plain:
        return Plain("a", 2)

    @mcp.tool()
    def made() -> Annotated[CallToolResult, Reply]:
        return CallToolResult(content=[TextContent(text="hi")], structuredContent={"text": "hi"})

    @mcp.tool()
    def media() -> CallToolResult:
        image = Image(data=b"\x89PNG", format="png").to_image_content()
        audio = Audio(data=b"RIFF", format="wav").to_audio_content()
        assert isinstance(image, ImageContent) and isinstance(audio, AudioContent)
        return CallToolResult(content=[image, audio])

    return mcp


async def test_the_sdks_result_conventions() -> None:
    with anyio.fail_after(TIMEOUT):
        async with checked_client(results_server(), LEGACY) as client:
            tools = {tool["name"]: tool for tool in await client.list_tools()}
            assert tools["plain"]["outputSchema"] == {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "size": {"type": "integer", "default": 0},
                },
                "required": ["name"],
            }
            assert tools["made"]["outputSchema"]["properties"] == {"text": {"type": "string"}}
            assert "outputSchema" not in tools["media"]
            plain = await client.call_tool("plain", {})
            assert plain.structured == {"name": "a", "size": 2}
            made = await client.call_tool("made", {})
            assert (made.text, made.structured) == ("hi", {"text": "hi"})
            media = await client.call_tool("media", {})
            assert [(b["type"], b["mimeType"]) for b in media.content] == [
                ("image", "image/png"),
                ("audio", "audio/wav"),
            ]


def test_a_class_without_annotations_has_no_output_schema() -> None:
    mcp = Server("x")

    @mcp.tool()
    def odd() -> Unannotated:
        return Unannotated()

    assert mcp.get_tool("odd").schema.output_schema is None  # type: ignore[union-attr]
