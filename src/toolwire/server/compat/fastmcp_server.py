"""``toolwire.FastMCP``: what ``toolwire migrate`` writes for FastMCP's ``FastMCP`` class.

::

    from toolwire import FastMCP  # was: from fastmcp import FastMCP

    mcp = FastMCP("Demo")

It is :class:`toolwire.Server` with FastMCP's defaults: every tool without a title is
listed with one made from its name, because some clients drop or hide untitled tools, and
a tool returning a list gives one JSON text. The official SDK's ``FastMCP`` and
``MCPServer`` become :class:`toolwire.Server` itself, which lists only the titles given and
gives a list one content block per item.
"""

from __future__ import annotations

from typing import Any

from ..server import Server


class FastMCP(Server):
    """:class:`toolwire.Server` with ``titles_from_names=True`` and ``split_lists=False``
    unless told otherwise."""

    def __init__(
        self,
        *args: Any,
        titles_from_names: bool = True,
        split_lists: bool = False,
        **options: Any,
    ) -> None:
        super().__init__(
            *args, titles_from_names=titles_from_names, split_lists=split_lists, **options
        )
