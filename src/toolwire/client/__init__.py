"""The client side: connect to any MCP server and use its tools."""

from .client import CallResult, Client
from .host import Host
from .oauth import OAuth
from .sync import SyncClient

__all__ = ["CallResult", "Client", "Host", "OAuth", "SyncClient"]
