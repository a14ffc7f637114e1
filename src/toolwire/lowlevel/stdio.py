"""``toolwire.lowlevel.stdio``: the official SDK's ``mcp.server.stdio``.

::

    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())

serves one client on this process's stdin and stdout, as ``server.run()`` does.
"""

from ..server.compat.lowlevel_sdk import stdio_server

__all__ = ["stdio_server"]
