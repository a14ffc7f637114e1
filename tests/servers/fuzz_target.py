"""The target of the property-based fuzz tests (tests/fuzz): tools with every kind of argument.

Every tool is a coroutine that never awaits (or a sync tool marked ``blocking=False``), so a
call is answered within one pass of the event loop: after the answer to a later call has
arrived, every earlier call of the same connection has been answered (or cancelled), which
is how the fuzzer knows a case is over without sleeping.

``--max-bytes N`` caps stdio messages (small, so oversized lines are cheap to send).
``--http`` serves ``mcp.http_app()`` with uvicorn on 127.0.0.1 instead, on a port the OS
picks, and writes ``port <n>`` as the first line of stdout; ``--max-body N`` caps bodies. It
stops when its stdin closes, so it never outlives the test process that started it, however
that process ended.
"""

import argparse
import datetime
import enum
import socket
import sys
import threading
from typing import Any, Literal

from pydantic import BaseModel, Field

from toolwire import Server, ToolError

parser = argparse.ArgumentParser()
parser.add_argument("--max-bytes", type=int, default=64 * 1024)
parser.add_argument("--http", action="store_true")
parser.add_argument("--max-body", type=int, default=256 * 1024)
options = parser.parse_args()

mcp = Server("fuzz-target", version="1.0.0", instructions="Fuzz me.")


class Size(enum.Enum):
    SMALL = "small"
    LARGE = "large"


class Item(BaseModel):
    name: str
    tags: list[str] = []
    size: Size | None = None


@mcp.tool(annotations={"readOnlyHint": True})
async def add(a: int, b: int) -> int:
    """Add two integers (the fuzzer's liveness probe)."""
    return a + b


@mcp.tool()
async def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


@mcp.tool()
async def store(item: Item, when: datetime.datetime | None = None) -> Item:
    """Validate a nested model and hand it back."""
    return item


@mcp.tool()
async def pick(
    kind: Literal["first", "last"], values: list[float], count: int = Field(1, ge=1, le=10)
) -> list[float]:
    """Constrained and literal arguments."""
    chosen = values[:count] if kind == "first" else values[-count:]
    return chosen


@mcp.tool()
async def mirror(value: Any = None) -> dict[str, Any]:
    """Hand any JSON value back as structured content."""
    return {"value": value}


@mcp.tool()
async def divide(a: float, b: float) -> float:
    """Fail with the author's own message on a zero divisor."""
    if b == 0:
        raise ValueError("Cannot divide by zero")
    return a / b


@mcp.tool()
async def refuse(reason: str) -> str:
    """Always fail with a ToolError."""
    raise ToolError(reason)


@mcp.tool(blocking=False)
def count(items: list[Any], flag: bool = False) -> int:
    """A sync tool answered inline on the event loop."""
    return len(items) + int(flag)


if __name__ == "__main__":
    if options.http:
        import uvicorn

        # IPPROTO_TCP spelled out: asyncio turns Nagle off (TCP_NODELAY) only on sockets that
        # say they are TCP, and with Nagle on every answer waits ~40 ms for a delayed ACK.
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.bind(("127.0.0.1", 0))
        sock.listen(128)
        print(f"port {sock.getsockname()[1]}", flush=True)
        # The harness may pause longer than uvicorn's 5 s keep-alive between two requests
        # (shrinking, a busy machine): a connection closed under it is not the server's fault.
        config = uvicorn.Config(
            mcp.http_app(max_body_bytes=options.max_body),
            log_level="warning",
            lifespan="on",
            timeout_keep_alive=300,
        )
        server = uvicorn.Server(config)

        def stop_at_end_of_input() -> None:
            sys.stdin.buffer.read()  # returns at end of input: the test process is gone
            server.should_exit = True

        threading.Thread(target=stop_at_end_of_input, daemon=True).start()
        server.run(sockets=[sock])
    else:
        mcp.run(max_message_bytes=options.max_bytes)
