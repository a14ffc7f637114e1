"""A server file as many tutorials end it: a bare ``mcp.run()``, no ``__main__`` guard.

It prints at import (Python and C level) and in its tool. Under ``toolwire run``,
``inspect``, ``call``, ... the ``run()`` call does not serve: the import ends there and the
command does what it was asked; the prints land on stderr.
"""

from __future__ import annotations

import os

from toolwire import Server

mcp = Server("bare")
print("printed at import")
os.write(1, b"written to descriptor 1 at import\n")


@mcp.tool()
def add(a: int, b: int) -> int:
    """Add two numbers."""
    print("printed by add")
    os.write(1, b"written to descriptor 1 by add\n")
    return a + b


mcp.run()
print("after run")  # under toolwire the import ends at run(): never printed
