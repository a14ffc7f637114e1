"""A stdio test server for the safety helpers: argument limits, SafePath, CommandPolicy and
control-sequence stripping.

Usage: ``safety_tools.py ROOT [--max-bytes N]``. ROOT is the directory ``read`` and ``list``
are confined to. The server is built with small limits (depth 8, strings of 1000
characters) so over-limit requests stay small; ``Server(max_message_bytes=N)`` bounds lines.
"""

import argparse
import subprocess
from typing import Any

from toolwire import CommandPolicy, SafePath, Server

parser = argparse.ArgumentParser()
parser.add_argument("root")
parser.add_argument("--max-bytes", type=int, default=None)
options = parser.parse_args()

Docs = SafePath.under(options.root)
NewDoc = SafePath.under(options.root, exists=False)
POLICY = CommandPolicy(allow={"ls": None}, max_args=8)

mcp = Server(
    "safety-tools",
    version="0.0.1",
    max_argument_depth=8,
    max_string_length=1000,
    max_message_bytes=options.max_bytes,
)


@mcp.tool()
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


@mcp.tool()
def depth(value: dict[str, Any]) -> int:
    """How deeply ``value`` is nested."""
    level, layer = 0, [value]
    while layer:
        level += 1
        layer = [v for item in layer for v in (item.values() if isinstance(item, dict) else item)]
        layer = [v for v in layer if isinstance(v, (dict, list))]
    return level


@mcp.tool()
def read(path: Docs) -> str:
    """Read a text file.

    Args:
        path: The file to read
    """
    return path.read_text()


@mcp.tool()
def create(path: NewDoc, text: str) -> str:
    """Create a new text file."""
    path.write_text(text)
    return f"created {path.name}"


@mcp.tool(blocking=True)
def run(command: str) -> str:
    """Run an allowed command (ls) in the root directory, without a shell."""
    argv = POLICY.check(command)
    done = subprocess.run(
        argv, shell=False, cwd=options.root, capture_output=True, text=True, timeout=10
    )
    return done.stdout


@mcp.tool(strip_control_sequences=True)
def banner(text: str) -> dict[str, str]:
    """Echo ``text`` framed by terminal escape sequences, which the tool option strips."""
    return {"banner": f"\x1b]0;owned\x07\x1b[1;31m{text}\x1b[0m"}


if __name__ == "__main__":
    mcp.run()
