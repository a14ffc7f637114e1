"""The client side: connect to any MCP server and use its tools."""

from .client import CallResult, Client

__all__ = ["CallResult", "Client"]
