"""A server whose lifespan prints, started by ``mcp.run()`` or, with ``async`` as the first
argument, by ``asyncio.run(mcp.run_stdio_async())`` (tests/test_stdio_hygiene.py)."""

import asyncio
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from toolwire import Server


@asynccontextmanager
async def lifespan(server: Server) -> AsyncIterator[dict[str, int]]:
    print("the lifespan starts")
    yield {"answer": 42}
    print("the lifespan ends")


mcp = Server("lifespan-prints", lifespan=lifespan)


@mcp.tool()
def echo(text: str) -> str:
    print("echo was called")
    return text


if __name__ == "__main__":
    if sys.argv[1:] == ["async"]:
        asyncio.run(mcp.run_stdio_async())
    else:
        mcp.run()
