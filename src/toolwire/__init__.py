"""toolwire: Python functions as MCP tools, served fast and correctly on every MCP revision.

::

    from toolwire import Server

    mcp = Server("Calculator")

    @mcp.tool()
    def add(a: int, b: int) -> int:
        \"\"\"Add two numbers together.\"\"\"
        return a + b

    mcp.run()
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

import importlib

from .content import Audio, File, Image, ToolResult
from .errors import (
    ClientError,
    RegistrationError,
    RPCError,
    ServerError,
    ToolError,
    ToolwireError,
    Unauthorized,
)
from .functions.inspection import Depends
from .prompts import AssistantMessage, Message, Prompt, UserMessage
from .resources import ResourceNotFound
from .safety import CommandPolicy, SafePath, strip_control
from .server import Context, Server
from .server.features import wire
from .tools import Tool

# What Server's methods hand to the feature packages (toolwire.server.features), each
# module imported on first use.
wire(
    proxy="toolwire.proxy:proxy",
    mount="toolwire.composition.mount:mount",
    prefix_of="toolwire.composition.mount:prefix_of",
    transform_tool="toolwire.composition.transforms:transform_tool",
    enable_tool_search="toolwire.composition.tool_search:enable_tool_search",
    load_openapi="toolwire.composition.openapi:load_document",
    add_openapi="toolwire.composition.openapi:add_openapi",
    serve_tasks="toolwire.extensions.tasks:serve_tasks",
    start_task="toolwire.extensions.task_run:start_task",
    Handover="toolwire.extensions.task_handover:Handover",
    serve_skills="toolwire.extensions.skills:serve_skills",
    Apps="toolwire.extensions.apps:Apps",
    AuditLog="toolwire.admission.audit:AuditLog",
    CallGuard="toolwire.admission.guard:CallGuard",
    RateLimiter="toolwire.admission.limits:RateLimiter",
    RedisBuckets="toolwire.admission.limits_redis:RedisBuckets",
    check_audiences="toolwire.extensions.apps:check_audiences",
    tool_meta="toolwire.extensions.apps:tool_meta",
)

if TYPE_CHECKING:
    from . import types
    from .client import Client, Host
    from .composition.transforms import Arg
    from .server.compat.fastmcp_elicit import (
        AcceptedElicitation,
        CancelledElicitation,
        DeclinedElicitation,
    )
    from .server.compat.fastmcp_files import FileSystemProvider, prompt, resource, tool
    from .server.compat.fastmcp_server import FastMCP
    from .server.compat.fastmcp_skills import SkillsDirectoryProvider
    from .server.compat.fastmcp_tasks import Progress, TaskConfig, TasksExtension
    from .server.compat.fastmcp_transforms import PromptsAsTools, ResourcesAsTools
    from .server.dispatch.extensions import Extension

__all__ = [
    "AcceptedElicitation",
    "Arg",
    "AssistantMessage",
    "Audio",
    "CancelledElicitation",
    "Client",
    "ClientError",
    "CommandPolicy",
    "Context",
    "DeclinedElicitation",
    "Depends",
    "Extension",
    "FastMCP",
    "File",
    "FileSystemProvider",
    "Host",
    "Image",
    "Message",
    "Progress",
    "Prompt",
    "PromptsAsTools",
    "RPCError",
    "RegistrationError",
    "ResourceNotFound",
    "ResourcesAsTools",
    "SafePath",
    "Server",
    "ServerError",
    "SkillsDirectoryProvider",
    "TaskConfig",
    "TasksExtension",
    "Tool",
    "ToolError",
    "ToolResult",
    "ToolwireError",
    "Unauthorized",
    "UserMessage",
    "__version__",
    "prompt",
    "resource",
    "strip_control",
    "tool",
    "types",
]


_FASTMCP = {
    "FastMCP": ".server.compat.fastmcp_server",
    "AcceptedElicitation": ".server.compat.fastmcp_elicit",
    "DeclinedElicitation": ".server.compat.fastmcp_elicit",
    "CancelledElicitation": ".server.compat.fastmcp_elicit",
    "PromptsAsTools": ".server.compat.fastmcp_transforms",
    "ResourcesAsTools": ".server.compat.fastmcp_transforms",
    "FileSystemProvider": ".server.compat.fastmcp_files",
    "Progress": ".server.compat.fastmcp_tasks",
    "TaskConfig": ".server.compat.fastmcp_tasks",
    "TasksExtension": ".server.compat.fastmcp_tasks",
    "SkillsDirectoryProvider": ".server.compat.fastmcp_skills",
    "tool": ".server.compat.fastmcp_files",
    "resource": ".server.compat.fastmcp_files",
    "prompt": ".server.compat.fastmcp_files",
}


def __getattr__(name: str) -> Any:
    # The client and the pydantic models load on first use, keeping `import toolwire` light.
    if name == "Client":
        from .client import Client  # lazy: on first use of the name

        return Client
    if name == "Host":
        from .client import Host  # lazy: on first use of the name

        return Host
    if name == "Arg":  # tool transforms load on first use
        from .composition.transforms import Arg  # lazy: on first use of the name

        return Arg
    if name in _FASTMCP:  # FastMCP's names (docs/migrating.md), loaded on first use
        return getattr(importlib.import_module(_FASTMCP[name], __name__), name)
    if name == "Extension":
        from .server.dispatch.extensions import Extension  # lazy: on first use of the name

        return Extension
    if name == "types":
        return importlib.import_module(".types", __name__)
    raise AttributeError(f"module 'toolwire' has no attribute {name!r}")
