"""A server that misbehaves on request: it crashes, floods its output with garbage, or both."""

import os
import sys

from toolwire import Server

mcp = Server("fragile")


@mcp.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@mcp.tool()
def crash(code: int) -> str:
    """End the process at once, without answering."""
    os._exit(code)


@mcp.tool()
def flood(lines: int) -> str:
    """Write garbage, half-messages and unknown notifications straight to the protocol stream
    (kept under the pipe's buffer size: the stream's descriptor is non-blocking)."""
    out = (
        os.fdopen(os.dup(int(os.environ.get("FRAGILE_FD", "-1"))), "wb")
        if "FRAGILE_FD" in os.environ
        else None
    )
    junk = [
        b"not json at all",
        b'{"jsonrpc":"2.0","method":"notifications/unknown"}',
        b"[1,2,3]",
        b'{"id":',
        b"\x00\xff",
    ]
    for i in range(lines):
        data = junk[i % len(junk)] + b"\n"
        if out is not None:
            out.write(data)
    if out is not None:
        out.flush()
    return f"flooded {lines}"


if __name__ == "__main__":
    # Keep a handle on the real stdout so `flood` can corrupt the protocol stream on purpose.
    os.environ["FRAGILE_FD"] = str(os.dup(sys.stdout.fileno()))
    mcp.run()
