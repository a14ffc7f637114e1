"""The client side: connect to any MCP server and use its tools."""

from .client import CallResult, Client
from .host import Host
from .sync import SyncClient

__all__ = ["CallResult", "Client", "Host", "SyncClient"]
