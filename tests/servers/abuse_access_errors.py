"""Tools whose failures carry secrets: exceptions that Python's builtins raise in the tool's
own frame (``int()`` of a secret, a missing environment variable, ``open()`` of a path,
also a ``SafePath`` one), next to the tutorials' own ``raise ValueError("...")``.

Run as a script it serves stdio. The secret comes from ``ABUSE_SECRET`` and the files root
from ``ABUSE_ROOT`` (both set by the test).
"""

from __future__ import annotations

import asyncio
import os

from toolwire import SafePath, Server, ToolError

ROOT = os.environ.get("ABUSE_ROOT", ".")
Docs = SafePath.under(ROOT)

mcp = Server("abuse-errors")


@mcp.tool()
def port_from_env() -> int:
    """Read a number from the environment (it holds a secret instead)."""
    return int(os.environ["ABUSE_SECRET"])


@mcp.tool()
async def port_from_env_async() -> int:
    """The same, as an async tool."""
    await asyncio.sleep(0)
    return int(os.environ["ABUSE_SECRET"])


@mcp.tool()
def missing_setting() -> str:
    """Read an environment variable that is not set."""
    return os.environ["ABUSE_NOT_SET_" + os.environ["ABUSE_SECRET"]]


@mcp.tool()
def open_report(name: str) -> str:
    """Open a report under the root by plain path."""
    with open(os.path.join(ROOT, name)) as report:
        return report.read()


@mcp.tool()
def open_doc(path: Docs) -> str:
    """Open a document given as a SafePath."""
    with open(path) as doc:
        return doc.read()


@mcp.tool()
def divide(a: float, b: float) -> float:
    """Divide a by b (the tutorials' tool)."""
    if b == 0:
        raise ValueError("Cannot divide by zero")
    return a / b


@mcp.tool()
async def divide_async(a: float, b: float) -> float:
    """Divide a by b, async."""
    if b == 0:
        raise ValueError("Cannot divide by zero")
    return a / b


@mcp.tool()
def parse_count(text: str) -> int:
    """Parse a count; the author lets Python's message through on purpose."""
    try:
        return int(text)
    except ValueError as exc:
        raise ValueError(str(exc)) from None


@mcp.tool()
def refuse(reason: str) -> str:
    """Always refuses, with a ToolError."""
    raise ToolError(f"Refused: {reason}")


@mcp.resource("config://port")
def port_resource() -> str:
    """The port, from the environment."""
    return str(int(os.environ["ABUSE_SECRET"]))


@mcp.prompt()
def port_prompt() -> str:
    """A prompt that needs the port."""
    return f"Connect to port {int(os.environ['ABUSE_SECRET'])}"


if __name__ == "__main__":
    mcp.run()
