"""A server whose admin components are hidden until a session unlocks them for itself.

``unlock`` (async) shows everything tagged ``admin`` to the calling session alone;
``hide_echo`` (sync, on a worker thread) hides ``echo`` from it; ``reset`` forgets the
session's rules; ``publish`` enables the admin resource and prompt for everyone. Served over stdio when run, imported for memory and HTTP tests.
"""

from toolwire import Context, Server

mcp = Server("session-components")


@mcp.tool()
def echo(text: str) -> str:
    return text


@mcp.tool(tags={"admin"})
def drop_table(name: str) -> str:
    return f"dropped {name}"


@mcp.resource("admin://audit", tags={"admin"})
def audit() -> str:
    return "audit log"


@mcp.resource("docs://readme")
def readme() -> str:
    return "read me"


@mcp.prompt(tags={"admin"})
def incident(summary: str) -> str:
    return f"Write an incident report: {summary}"


@mcp.tool()
async def unlock(ctx: Context) -> str:
    await ctx.enable_components(tags={"admin"})
    return "unlocked"


@mcp.tool()
def hide_echo(ctx: Context) -> str:
    ctx.disable_components("echo", kinds="tools")
    return "hidden"


@mcp.tool()
async def reset(ctx: Context) -> str:
    await ctx.reset_components()
    return "reset"


@mcp.tool()
async def publish(ctx: Context) -> str:
    ctx.server.enable_resource("admin://audit")  # for everyone: every session is told
    ctx.server.enable_prompt("incident")
    return "published"


mcp.disable_tool("drop_table")
mcp.disable_resource("admin://audit")
mcp.disable_prompt("incident")

if __name__ == "__main__":
    mcp.run()
