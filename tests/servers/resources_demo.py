"""A server with resources of every kind, for tests/test_resources.py (memory, stdio, HTTP).

Static resources (JSON, Markdown, binary, failing ones), URI templates (typed and reserved
variables) and tools that read, link, embed, update and add or remove resources.
"""

from __future__ import annotations

from toolwire import Context, Server, ToolError, types

mcp = Server("resources-demo", page_size=2)

LOGO = b"\x89PNG\r\n\x1a\n\x00\xff\xfe binary"
USERS = {1: "Ada", 2: "Grace"}
ICON = {"src": "https://example.com/icon.png", "mimeType": "image/png", "sizes": ["48x48"]}


@mcp.resource(
    "config://app",
    title="App configuration",
    mime_type="application/json",
    size=28,
    annotations={"audience": ["user"], "priority": 0.5, "lastModified": "2025-01-12T15:00:58Z"},
    icons=[ICON],
    meta={"example.com/owner": "ops"},
)
def config() -> dict[str, object]:
    """The application's settings."""
    return {"theme": "dark", "retries": 3}


@mcp.resource("notes://readme", mime_type="text/markdown")
def readme() -> str:
    return "# Readme\n"


@mcp.resource("images://logo")
def logo() -> bytes:
    return LOGO


@mcp.resource("broken://always")
def broken() -> str:
    raise RuntimeError("cannot reach postgres://admin:hunter2@db")


@mcp.resource("refused://always")
def refused() -> str:
    raise ToolError("Not today")


def user_ids(value: str) -> list[str]:
    return [str(i) for i in USERS if str(i).startswith(value)]


@mcp.resource(
    "users://{user_id}/profile",
    title="User profile",
    icons=[ICON],
    annotations={"lastModified": "2025-01-12T15:00:58Z"},
    complete={"user_id": user_ids},
)
async def profile(user_id: int, ctx: Context) -> str:
    """One user's profile."""
    if user_id not in USERS:
        raise KeyError(f"No user {user_id}")
    return f"{USERS[user_id]} (read on {ctx.protocol_version})"


@mcp.resource("files:///{+path}", mime_type="text/plain")
def file(path: str) -> str:
    """A file of the project."""
    return f"contents of {path}"


@mcp.tool()
def touch(uri: str) -> str:
    """Say a resource changed (a sync tool: it runs on a worker thread)."""
    mcp.resource_updated(uri)
    return "touched"


@mcp.tool()
def add_note(name: str) -> str:
    mcp.add_resource(f"note {name}", f"notes://{name}")
    return "added"


@mcp.tool()
def drop_note(name: str) -> str:
    mcp.remove_resource(f"notes://{name}")
    return "dropped"


@mcp.tool()
async def peek(uri: str, ctx: Context) -> str:
    """Read a resource from inside a tool."""
    contents = await ctx.read_resource(uri)
    return str(contents[0].get("text", "<binary>"))


@mcp.tool()
def link(user_id: int) -> list[object]:
    return [mcp.resource_link(f"users://{user_id}/profile"), "the profile"]


@mcp.tool()
async def embed(ctx: Context) -> types.EmbeddedResource:
    contents = await ctx.read_resource("config://app")
    return types.EmbeddedResource(resource=contents[0])


if __name__ == "__main__":
    mcp.run()
