"""A low-level server with resource, prompt and completion handlers written the way the
official SDK's low-level tutorials write them (served over stdio when run as a script)."""

from __future__ import annotations

from typing import Any

from toolwire import ResourceNotFound, types
from toolwire.lowlevel import Server

server = Server("lowlevel-primitives")

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 8
LANGUAGES = ["python", "perl", "rust"]
ICON = [{"src": "https://example.com/note.png", "mimeType": "image/png"}]
subscribed: list[str] = []


@server.list_tools()
async def handle_list_tools() -> list[types.Tool]:
    return [types.Tool(name="echo", inputSchema={"type": "object"})]


@server.call_tool()
async def handle_call_tool(name: str, arguments: dict[str, Any]) -> list[types.TextContent]:
    return [types.TextContent(text=f"{name}: {arguments}")]


@server.list_resources()
async def handle_list_resources() -> list[dict[str, Any]]:
    return [
        {
            "uri": "notes://readme",
            "name": "readme",
            "title": "Read me",
            "mimeType": "text/plain",
            "icons": ICON,
            "_meta": {"example.com/owner": "docs"},
        },
        {"uri": "notes://logo", "name": "logo", "mimeType": "image/png"},
    ]


@server.list_resource_templates()
def handle_list_templates() -> list[dict[str, Any]]:
    return [{"uriTemplate": "notes://{name}", "name": "note", "title": "A note"}]


@server.read_resource()
async def handle_read_resource(uri: str) -> Any:
    if uri == "notes://readme":
        return "Read the notes."
    if uri == "notes://logo":
        return PNG
    if uri == "notes://pair":
        return {
            "contents": [
                types.TextResourceContents(uri=uri, mimeType="text/markdown", text="# one"),
                {"uri": uri, "mimeType": "text/plain", "text": "two"},
            ]
        }
    if uri == "notes://broken":
        raise RuntimeError("postgres://admin:hunter2@db failed")
    if uri == "notes://missing-key":
        raise KeyError("No note called missing-key")
    raise ResourceNotFound(uri)


@server.subscribe_resource()
async def handle_subscribe(uri: str) -> None:
    subscribed.append(uri)


@server.list_prompts()
async def handle_list_prompts() -> list[dict[str, Any]]:
    return [
        {
            "name": "review",
            "title": "Code review",
            "description": "Ask for a code review",
            "arguments": [
                {"name": "code", "description": "The code", "required": True},
                {"name": "language", "title": "Language"},
            ],
        },
        {"name": "greet"},
    ]


@server.get_prompt()
async def handle_get_prompt(name: str, arguments: dict[str, str] | None) -> Any:
    arguments = arguments or {}
    if name == "review":
        language = arguments.get("language", "python")
        if language not in LANGUAGES:
            raise ValueError(f"Unsupported language: {language}")
        return {
            "description": "Ask for a code review",
            "messages": [
                {
                    "role": "user",
                    "content": {"type": "text", "text": f"Review this {language} code:"},
                },
                {"role": "user", "content": {"type": "text", "text": arguments["code"]}},
            ],
        }
    if name == "greet":
        return ["Hello!", {"role": "assistant", "content": "Hi, how can I help?"}]
    if name == "broken":
        raise RuntimeError("secret token abc123")
    raise KeyError(f"Unknown prompt: {name}")


@server.completion()
async def handle_completion(ref: Any, argument: Any, context: Any) -> Any:
    if ref.type == "ref/prompt" and argument.name == "language":
        return [lang for lang in LANGUAGES if lang.startswith(argument.value)]
    if ref.type == "ref/resource":
        earlier = context.arguments if context is not None else {}
        return {"values": [f"{argument.value}-{len(earlier)}"], "total": 7, "hasMore": True}
    return None


if __name__ == "__main__":
    server.run()
