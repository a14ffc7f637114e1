"""A mounting server whose mounted proxy's upstream (tests/servers/late_upstream.py) starts
late: it serves once the file named by the ``TOOLWIRE_LATE_FLAG`` environment variable
exists (tests/test_mount.py)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from toolwire import Server

UPSTREAM = [
    sys.executable,
    str(Path(__file__).with_name("late_upstream.py")),
    os.environ.get("TOOLWIRE_LATE_FLAG", ""),
]

mcp = Server("main")


@mcp.tool()
def status() -> str:
    """Say the mounting server is up."""
    return "up"


mcp.mount(Server.proxy(UPSTREAM), prefix="late")

if __name__ == "__main__":
    mcp.run()
