"""FastMCP's tasks add-on (PyPI ``fastmcp-tasks``) for the interop tests, in a virtualenv of
its own (``.venv/fastmcp-tasks``): it pins its own ``mcp`` and pulls pydocket and redis, none
of which toolwire or its test extra depends on."""

from __future__ import annotations

from interop.pip_venv import pip_venv

VERSION = "4.1.4"


def fastmcp_tasks_python() -> str:
    """The interpreter of a virtualenv with ``fastmcp-tasks==VERSION`` installed."""
    check = "import fastmcp_tasks; print(fastmcp_tasks.__version__)"
    return pip_venv("fastmcp-tasks", {"fastmcp-tasks": VERSION}, check, "the FastMCP interop tests")
