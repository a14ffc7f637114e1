"""A server file that misbehaves with the standard streams, as real ones do.

It prints at import time (Python and C level), and its tools start a subprocess that reads
stdin (``cat``), read ``sys.stdin`` themselves, and print. Served with ``toolwire run`` (or
``python stdio_hygiene.py``), none of it may reach the protocol stream or eat a request.
"""

from __future__ import annotations

import os
import subprocess
import sys

from toolwire import Server

if __name__ != "__main__":  # run as a script, it prints before mcp.run() can hold stdout
    print("loading the hygiene server")  # a module-level print, as many servers have
    sys.stdout.write("more at import\n")
    os.write(1, b"straight to descriptor 1\n")

mcp = Server("hygiene")


@mcp.tool()
def run_cat() -> str:
    """Start a subprocess that reads its inherited stdin until end-of-file."""
    out = subprocess.run(["cat"], stdout=subprocess.PIPE, timeout=5, check=True)
    return f"cat read {len(out.stdout)} bytes"


@mcp.tool()
def read_stdin() -> str:
    """Read a line from sys.stdin, as a careless tool might."""
    return f"read {sys.stdin.readline()!r}"


@mcp.tool()
def echo(text: str) -> str:
    print("echo was called")
    return text


if __name__ == "__main__":
    mcp.run()
