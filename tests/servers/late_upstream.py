"""An upstream that is not there yet: exits at once (status 1) until the file named by its
first argument exists, then serves one tool over stdio (tests/test_mount.py)."""

from __future__ import annotations

import os
import sys

if not os.path.exists(sys.argv[1]):
    sys.exit(1)

from toolwire import Server

mcp = Server("late")


@mcp.tool()
def hello(name: str) -> str:
    """Greet someone."""
    return f"Hello {name}"


if __name__ == "__main__":
    mcp.run()
