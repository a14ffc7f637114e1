"""``from toolwire.lowlevel import Server``: handler-based servers for full control, in the
official SDK's two styles (``@server.call_tool()`` decorators, or ``Server(name,
on_call_tool=...)`` handlers given a :class:`ServerRequestContext`).

Also here under the SDK's names (``mcp.server.lowlevel``, ``mcp.server.models``,
``mcp.server``): :class:`NotificationOptions`, :class:`InitializationOptions`; and
``toolwire.lowlevel.stdio.stdio_server`` for ``mcp.server.stdio``.
"""

from ..errors import ErrorData, McpError
from ..server.lowlevel import Server
from ..server.lowlevel_sdk import (
    InitializationOptions,
    NotificationOptions,
    ServerRequestContext,
    StreamableHTTPSessionManager,
)

RequestContext = ServerRequestContext  # the SDK 1.x name (mcp.shared.context)

__all__ = [
    "ErrorData",
    "InitializationOptions",
    "McpError",
    "NotificationOptions",
    "RequestContext",
    "Server",
    "ServerRequestContext",
    "StreamableHTTPSessionManager",
]
