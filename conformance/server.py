"""The server the official MCP conformance harness tests: every tool, resource and prompt its
server scenarios call, written on toolwire's public API the way a user would write them.

    python conformance/server.py [PORT]    # Streamable HTTP at http://127.0.0.1:PORT/mcp

Sections follow the harness's scenarios; the names are the ones the harness calls.
"""

from __future__ import annotations

import sys
from typing import Annotated

from pydantic import BaseModel, Field

from toolwire import Context, Server

mcp = Server("toolwire-conformance-server", version="1.0.0")


class Confirmation(BaseModel):
    go_on: bool = True


# --- tools: content, errors, progress, logging (tools-*) -----------------------------------

# --- questions for the client: sampling, elicitation, roots (legacy and 2026-07-28) -------

# --- resources and prompts ----------------------------------------------------------------

# --- HTTP: streams, headers, stateless 2026-07-28 ------------------------------------------


@mcp.tool()
async def test_reconnection(ctx: Context) -> str:
    """Ends its SSE connection before answering: the client resumes with Last-Event-ID
    and still gets this answer (SEP-1699 polling)."""
    ctx.close_sse_connection()
    return "Reconnection test completed: the answer arrived on the resumed stream"


@mcp.tool()
def test_custom_header(
    region: Annotated[
        str,
        Field(
            description="Mirrored as Mcp-Param-Region", json_schema_extra={"x-mcp-header": "Region"}
        ),
    ],
) -> str:
    """Echoes a parameter that travels in the Mcp-Param-Region header too (SEP-2243)."""
    return f"Region: {region}"


@mcp.tool()
async def test_streaming_elicitation(ctx: Context) -> str:
    """Reports progress, then asks the user a question (a 2026-07-28 client gets an
    InputRequiredResult, never a request of the server's own)."""
    await ctx.report_progress(50, total=100, message="half way")
    answer = await ctx.elicit("Go on?", Confirmation)
    return f"Streaming complete: {answer.action}"


@mcp.tool()
async def test_logging_tool(ctx: Context) -> str:
    """Logs a line: sent only to a client that asked for log messages."""
    await ctx.info("Diagnostic trace logging activated")
    return "Logging evaluated"


def _changed_tool() -> str:
    """Appears and disappears to change the tool list."""
    return "changed"


@mcp.tool()
def test_trigger_tool_change() -> str:
    """Changes the tool list (listen streams that asked are told)."""
    if mcp.get_tool("test_changed_tool") is None:
        mcp.add_tool(_changed_tool, name="test_changed_tool")
    else:
        mcp.remove_tool("test_changed_tool")
    return "Mutation triggered"


def _changed_prompt() -> str:
    """Appears and disappears to change the prompt list."""
    return "changed"


@mcp.tool()
def test_trigger_prompt_change() -> str:
    """Changes the prompt list (listen streams that asked are told)."""
    if any(prompt.name == "test_changed_prompt" for prompt in mcp.prompts):
        mcp.remove_prompt("test_changed_prompt")
    else:
        mcp.add_prompt(_changed_prompt, name="test_changed_prompt")
    return "Mutation triggered"


if __name__ == "__main__":
    mcp.run(
        transport="http", host="127.0.0.1", port=int(sys.argv[1]) if len(sys.argv) > 1 else 3000
    )
