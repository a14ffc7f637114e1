"""The server side: the decorator API, the request context and connections."""

from .context import Context
from .core import ServerCore
from .server import Server

__all__ = ["Context", "Server", "ServerCore"]
