"""A server wrapped in three middleware layers; ``build()`` makes a fresh one, run as a script
it serves stdio.

* ``first`` (given to ``Server(middleware=[...])``) and ``second`` (added with
  ``add_middleware``) record ``first>method`` / ``first<method`` around every request;
  the tool ``trace`` returns (and clears) that record, one entry per line.
* ``policy`` (added last, innermost) acts on tools/call by tool name: ``echo`` gets ``!``
  appended to its text (new params), ``greet`` gets a default ``name`` (arguments changed in
  place), ``lookup`` is answered by the middleware (the tool must not run), ``delete_all`` is
  refused with a JSON-RPC error, ``broken`` hits a bug in the middleware, and ``stats`` gets
  ``structuredContent`` added to its result.
"""

from __future__ import annotations

from typing import Any

from toolwire import RPCError, Server
from toolwire.server.dispatch.middleware import Call, CallNext

JSON = dict[str, Any]
FORBIDDEN = -32000


def build() -> Server:
    seen: list[str] = []

    async def first(call: Call, call_next: CallNext) -> JSON:
        seen.append(f"first>{call.method}")
        result = await call_next(call)
        seen.append(f"first<{call.method}")
        return result

    mcp = Server("live-middleware", version="0.0.1", middleware=[first])

    @mcp.add_middleware
    async def second(call: Call, call_next: CallNext) -> JSON:
        seen.append(f"second>{call.method}")
        result = await call_next(call)
        seen.append(f"second<{call.method}")
        return result

    @mcp.add_middleware
    async def policy(call: Call, call_next: CallNext) -> JSON:
        name = call.tool_name
        if name == "echo":
            text = call.arguments.get("text", "")
            call.params = {**call.params, "arguments": {**call.arguments, "text": text + "!"}}
        elif name == "greet":
            call.arguments.setdefault("name", "middleware")
        elif name == "lookup":
            return {"content": [{"type": "text", "text": f"cached {call.arguments.get('key')}"}]}
        elif name == "delete_all":
            raise RPCError(FORBIDDEN, "Forbidden by policy: delete_all")
        elif name == "broken":
            raise RuntimeError("middleware bug; detail: postgres://admin:hunter2@db")
        result = await call_next(call)
        if name == "stats":
            result = {**result, "structuredContent": {"calls": 1}}
        return result

    # Text tools (structured_output=False): the middleware rewrites and answers their texts.
    @mcp.tool(structured_output=False)
    def trace() -> str:
        """What the recording middleware saw since the last trace, one entry per line."""
        lines = "\n".join(seen)
        seen.clear()
        return lines

    @mcp.tool(structured_output=False)
    def echo(text: str) -> str:
        """Return the text unchanged."""
        return text

    @mcp.tool(structured_output=False)
    def greet(name: str = "nobody") -> str:
        """Greet someone."""
        return f"Hello, {name}"

    @mcp.tool(structured_output=False)
    def lookup(key: str) -> str:
        """Look a key up (the middleware answers first)."""
        raise RuntimeError("the tool ran although the middleware answered")

    @mcp.tool(annotations={"destructiveHint": True}, structured_output=False)
    def delete_all() -> str:
        """Delete everything (the middleware refuses)."""
        return "deleted everything"

    @mcp.tool(structured_output=False)
    def broken() -> str:
        """Never reached: the middleware fails first."""
        return "ok"

    @mcp.tool(structured_output=False)
    def stats() -> str:
        """Usage statistics, as text; the middleware adds structured data."""
        return "1 call"

    return mcp


if __name__ == "__main__":
    build().run()
