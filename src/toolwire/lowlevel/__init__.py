"""``from toolwire.lowlevel import Server``: handler-based servers for full control, in the
official SDK's two styles (``@server.call_tool()`` decorators, or ``Server(name,
on_call_tool=...)`` handlers given a :class:`ServerRequestContext`).

Also here under the SDK's names (``mcp.server.lowlevel``, ``mcp.server.models``,
``mcp.server``, ``mcp.server.lowlevel.helper_types``): :class:`NotificationOptions`,
:class:`InitializationOptions`, :class:`ReadResourceContents`; and
``toolwire.lowlevel.stdio.stdio_server`` for ``mcp.server.stdio``.
"""

from ..errors import ErrorData, McpError
from ..server.compat.lowlevel import Server
from ..server.compat.lowlevel_sdk import (
    InitializationOptions,
    NotificationOptions,
    ReadResourceContents,
    ServerRequestContext,
    StreamableHTTPSessionManager,
)

RequestContext = ServerRequestContext  # the SDK 1.x name (mcp.shared.context)

__all__ = [
    "ErrorData",
    "InitializationOptions",
    "McpError",
    "NotificationOptions",
    "ReadResourceContents",
    "RequestContext",
    "Server",
    "ServerRequestContext",
    "StreamableHTTPSessionManager",
]
