"""``from toolwire.lowlevel import Server``: handler-based servers for full control."""

from .server.lowlevel import Server

__all__ = ["Server"]
