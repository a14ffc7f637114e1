"""The client side: connect to any MCP server and use its tools."""

from .client import CallResult, Client, SyncClient
from .host import Host

__all__ = ["CallResult", "Client", "Host", "SyncClient"]
