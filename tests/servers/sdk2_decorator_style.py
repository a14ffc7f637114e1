"""A server written for the official SDK 2.x's decorator server (``MCPServer``), using its
ways of talking back to the client: ``ctx.session``, ``ctx.request_context``,
``@mcp.completion()``, ``@mcp.resource(uri=...)``, URL elicitation by its SDK names,
``UrlElicitationRequiredError``, results as the SDK makes them (an ordinary annotated
class, a list, an empty list, an object with no JSON form,
``Annotated[CallToolResult, Model]``, ``Image.to_image_content()``) and log
messages to a client that chose no level.

tests/interop/test_sdk_decorator_style.py runs it as it is on the SDK, and on toolwire with
only its imports changed. ``python sdk2_decorator_style.py`` serves stdio.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Annotated, Any

from mcp.server.mcpserver import Context, Image, MCPServer
from mcp.server.session import ServerSession
from mcp.shared.exceptions import UrlElicitationRequiredError
from mcp.types import (
    CallToolResult,
    Completion,
    ElicitRequestURLParams,
    EmptyResult,
    SamplingMessage,
    SetLevelRequestParams,
    TextContent,
)
from pydantic import BaseModel

PIXEL = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000185d11a0a0000000049454e44ae426082"
)


@dataclass
class AppContext:
    greeting: str


@asynccontextmanager
async def lifespan(server: MCPServer) -> AsyncIterator[AppContext]:
    yield AppContext(greeting="hello from the lifespan")


mcp = MCPServer("SDK decorator style", lifespan=lifespan)


# ---------------------------------------------------------------- ctx.session


@mcp.tool()
async def summarize(text: str, ctx: Context[AppContext]) -> str:
    """Ask the client's model for a summary."""
    result = await ctx.session.create_message(
        messages=[SamplingMessage(role="user", content={"type": "text", "text": text})],
        max_tokens=50,
    )
    if result.content.type == "text":
        return f"{result.model}: {result.content.text}"
    return str(result.content)


@mcp.tool()
async def announce(ctx: Context) -> str:
    """Send log messages and tell the client every list changed."""
    session: ServerSession = ctx.session
    await session.send_log_message(level="info", data="announcing", logger="announcer")
    await ctx.info("an info from ctx.info")
    await ctx.session.send_resource_list_changed()
    await ctx.session.send_tool_list_changed()
    await ctx.session.send_prompt_list_changed()
    return "announced"


@mcp.tool()
async def count(n: int, ctx: Context) -> str:
    """Count to n, reporting progress to the token of the request."""
    token = ctx.request_context.meta.get("progress_token") if ctx.request_context.meta else None
    for i in range(1, n + 1):
        if token is not None:
            await ctx.session.send_progress_notification(
                progress_token=token, progress=i, total=n, message=f"step {i}"
            )
    return f"counted to {n}"


@mcp.tool()
async def who(ctx: Context) -> dict[str, Any]:
    """What the request context says of the caller."""
    params = ctx.session.client_params
    roots = await ctx.session.list_roots()
    return {
        "client": params.client_info.name if params else None,
        "has_request_id": ctx.request_context.request_id is not None,
        "greeting": ctx.request_context.lifespan_context.greeting,
        "roots": [str(root.uri) for root in roots.roots],
    }


@mcp.tool()
async def touch(uri: str, ctx: Context) -> str:
    """Say that a resource changed."""
    await ctx.session.send_resource_updated(uri)
    return f"touched {uri}"


# ---------------------------------------------------------------- elicitation


class Booking(BaseModel):
    date: str
    guests: int


@mcp.tool()
async def book(ctx: Context) -> str:
    """Ask for the booking's details."""
    answer = await ctx.elicit(message="When, and for how many?", schema=Booking)
    if answer.action == "accept" and answer.data is not None:
        return f"booked {answer.data.guests} on {answer.data.date}"
    return f"no booking ({answer.action})"


@mcp.tool()
async def pay(amount: float, ctx: Context) -> str:
    """Send the user to the payment page."""
    answer = await ctx.elicit_url(
        message=f"Confirm the payment of {amount:.2f}",
        url=f"https://pay.example.com/confirm?amount={amount}",
        elicitation_id="payment-1",
    )
    return f"payment {answer.action}"


@mcp.tool()
async def connect_service(service: str) -> str:
    """A service that needs the user to sign in first."""
    raise UrlElicitationRequiredError(
        [
            ElicitRequestURLParams(
                mode="url",
                message=f"Sign in to {service}",
                url=f"https://{service}.example.com/authorize",
                elicitation_id=f"{service}-sign-in",
            )
        ]
    )


# ---------------------------------------------------------------- results


class UserProfile:
    name: str
    age: int
    email: str | None = None

    def __init__(self, name: str, age: int, email: str | None = None) -> None:
        self.name = name
        self.age = age
        self.email = email

    def __repr__(self) -> str:
        return f"UserProfile({self.name!r}, {self.age})"


@mcp.tool()
def profile(name: str) -> UserProfile:
    """An ordinary class with annotated attributes."""
    return UserProfile(name=name, age=30)


@mcp.tool()
def cities() -> list[str]:
    """A list: one text block per item."""
    return ["London", "Paris", "Tokyo"]


@mcp.tool()
def no_alerts() -> list[dict[str, str]]:
    """An empty list: no content."""
    return []


class UntypedConfig:
    def __init__(self, theme):  # type: ignore[no-untyped-def]
        self.theme = theme

    def __repr__(self) -> str:
        return f"UntypedConfig(theme={self.theme!r})"


@mcp.tool()
def config() -> UntypedConfig:
    """An object with no JSON form: its str()."""
    return UntypedConfig("dark")


class EchoResponse(BaseModel):
    text: str


@mcp.tool()
def echo(text: str) -> Annotated[CallToolResult, EchoResponse]:
    """A result built by hand, with the output schema of EchoResponse."""
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structuredContent={"text": text},
    )


@mcp.tool()
def pixel() -> CallToolResult:
    """An image made with Image.to_image_content()."""
    return CallToolResult(content=[Image(data=PIXEL, format="png").to_image_content()])


# ---------------------------------------------------------------- the SDK's private objects
# (what its everything-server does where the SDK has no public way)


@mcp.tool()
def lookup() -> str:
    """A tool whose published input schema is set by hand below."""
    return "looked up"


mcp._tool_manager._tools["lookup"].parameters = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "units": {"enum": ["metric", "imperial"]}},
    "additionalProperties": False,
}

levels: list[str] = []


async def set_level(ctx: Any, params: SetLevelRequestParams) -> EmptyResult:
    levels.append(params.level)
    return EmptyResult()


mcp._lowlevel_server.add_request_handler("logging/setLevel", SetLevelRequestParams, set_level)


@mcp.tool()
def chosen_levels() -> list[str]:
    """The log levels the client chose, as the handler above kept them."""
    return levels


# ---------------------------------------------------------------- resources, prompts, completion


@mcp.resource(uri="config://settings", mime_type="application/json")
def settings() -> str:
    """The settings."""
    return '{"theme": "dark"}'


@mcp.resource("notes://today")
def today() -> str:
    """Listed as text/plain, the type its read answers with (no mime_type given)."""
    return "Nothing planned"


@mcp.resource("github://repos/{owner}/{repo}")
def repository(owner: str, repo: str) -> str:
    """A repository."""
    return f"Repository: {owner}/{repo}"


@mcp.prompt()
def review_code(language: str, code: str) -> str:
    """Review some code."""
    return f"Review this {language} code:\n{code}"


@mcp.completion()
async def complete(ref: Any, argument: Any, context: Any) -> Completion | None:
    if ref.type == "ref/prompt" and argument.name == "language":
        languages = ["python", "javascript", "typescript", "go"]
        return Completion(values=[lang for lang in languages if lang.startswith(argument.value)])
    if ref.type == "ref/resource" and argument.name == "repo":
        owner = context.arguments.get("owner") if context and context.arguments else None
        if owner == "modelcontextprotocol":
            return Completion(values=["python-sdk", "typescript-sdk"])
    return None


if __name__ == "__main__":
    mcp.run()
