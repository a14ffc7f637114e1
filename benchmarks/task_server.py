"""The server of ``task_roundtrip.py``: ``add`` as an ordinary tool and ``add_task``, the same
function run as a task (Tasks extension) for clients that declare it; stdio."""

from toolwire import Server

mcp = Server("task-bench")


@mcp.tool()
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@mcp.tool(task="optional")
def add_task(a: int, b: int) -> int:
    """Add two numbers, as a task."""
    return a + b


if __name__ == "__main__":
    mcp.run()
