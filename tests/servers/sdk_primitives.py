"""Resources, prompts and completion served by the official MCP Python SDK (test-only), for
toolwire's client to read, get and complete against.

Offers a static text resource, a binary one, a URI template, two prompts (one with
arguments), completions for a prompt argument and a template variable (using the earlier
answers of ``context.arguments``), legacy ``resources/subscribe`` (the SDK's ``MCPServer``
has no handler of its own: one is added on its low-level server) and a ``touch`` tool that
announces a resource update and list changes on both eras' channels.
"""

from __future__ import annotations

import sys
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.prompts.base import AssistantMessage, UserMessage
from mcp_types import (
    Completion,
    CompletionArgument,
    CompletionContext,
    EmptyResult,
    PromptReference,
    ResourceTemplateReference,
    SubscribeRequestParams,
    UnsubscribeRequestParams,
)

PIXEL = bytes([0x89, 0x50, 0x4E, 0x47, 0x00, 0xFF])
USERS = {"1": "Ada", "2": "Alan", "3": "Grace"}
LANGUAGES = ["english", "esperanto", "french", "german"]

server = MCPServer("sdk-primitives")
subscribed: set[str] = set()


@server.resource("config://app", title="App config", mime_type="text/plain")
def config() -> str:
    """The application's configuration."""
    return "debug = true"


@server.resource("images://pixel", mime_type="image/png")
def pixel() -> bytes:
    """A tiny binary resource."""
    return PIXEL


@server.resource("users://{user_id}/profile", mime_type="text/plain")
def profile(user_id: str) -> str:
    """A user's profile."""
    return f"name: {USERS.get(user_id, 'unknown')}"


@server.prompt(title="Greeting")
def greet(name: str, language: str = "english") -> str:
    """Greet someone in a language."""
    return f"Say hello to {name} in {language}."


@server.prompt()
def review(code: str) -> list[Any]:
    """Review some code."""
    return [
        UserMessage(f"Please review:\n{code}"),
        AssistantMessage("Sure, looking at it now."),
    ]


@server.completion()
async def complete(
    ref: PromptReference | ResourceTemplateReference,
    argument: CompletionArgument,
    context: CompletionContext | None,
) -> Completion | None:
    if isinstance(ref, PromptReference) and ref.name == "greet" and argument.name == "language":
        values = [lang for lang in LANGUAGES if lang.startswith(argument.value)]
        return Completion(values=values, total=len(values), has_more=False)
    if isinstance(ref, PromptReference) and ref.name == "greet" and argument.name == "name":
        # The earlier answer narrows the choice: names for the chosen language.
        language = (context.arguments or {}).get("language") if context else None
        names = ["Ana", "Alba"] if language == "esperanto" else ["Al", "Alice", "Bob"]
        return Completion(values=[n for n in names if n.startswith(argument.value)])
    if isinstance(ref, ResourceTemplateReference) and argument.name == "user_id":
        return Completion(values=[uid for uid in USERS if uid.startswith(argument.value)])
    return None


async def _subscribe(ctx: Any, params: SubscribeRequestParams) -> EmptyResult:
    subscribed.add(str(params.uri))
    return EmptyResult()


async def _unsubscribe(ctx: Any, params: UnsubscribeRequestParams) -> EmptyResult:
    subscribed.discard(str(params.uri))
    return EmptyResult()


lowlevel = server._lowlevel_server
lowlevel.add_request_handler("resources/subscribe", SubscribeRequestParams, _subscribe)
lowlevel.add_request_handler("resources/unsubscribe", UnsubscribeRequestParams, _unsubscribe)


@server.tool()
async def touch(uri: str, ctx: Context) -> str:
    """Say that a resource changed, and that the resource and prompt lists changed."""
    await ctx.notify_resource_updated(uri)  # 2026-07-28 listen streams
    await ctx.notify_resources_changed()
    await ctx.notify_prompts_changed()
    if uri in subscribed:  # a legacy session that subscribed
        await ctx.session.send_resource_updated(uri)
    return "touched"


if __name__ == "__main__":
    server.run(sys.argv[1] if len(sys.argv) > 1 else "stdio")
