"""What ``install`` checks before it writes: would the host see the server's tools?

A host starts a local entry over stdio, where no caller carries a token: tools that need
scopes (or pass an ``auth`` predicate only for some callers) are missing from its
``tools/list``. A remote entry is probed once, for the server's name and to warn when
nothing answers at that URL.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ...auth.tokens import may_use
from ...client import Client
from ...errors import Unauthorized

TIMEOUT = 10.0


def stdio_warning(server: Any) -> str | None:
    """Why a stdio host will not see some (or all) of the server's tools, or None.

    Decided from the tools' own rules, as ``tools/list`` applies them to a caller without a
    token, without starting the server (its lifespan may open files or connections)."""
    tools = [tool for tool in getattr(server, "tools", ()) if tool.enabled]
    hierarchy = getattr(server, "scope_hierarchy", None)
    hidden = [
        tool
        for tool in tools
        if (tool.scopes or tool.auth is not None) and not may_use(None, tool, hierarchy)
    ]
    if not hidden:
        return None
    visible = len(tools) - len(hidden)
    scopes = sorted({scope for tool in hidden for scope in tool.scopes})
    need = f"scopes ({', '.join(scopes)})" if scopes else "an authorized caller"
    if not visible:
        head = f"the host will list 0 tools: all {len(hidden)} tools of {server.name!r} need {need}"
    else:
        head = (
            f"the host will list {visible} of {len(tools)} tools: "
            f"{', '.join(tool.name for tool in hidden)} need {need}"
        )
    return (
        f"{head}, and a server started over stdio has no caller with a token. Serve it over "
        "HTTP with authorization and install its URL instead (--url URL, or give the URL "
        "as the target)."
    )


def probe(url: str, headers: dict[str, str]) -> tuple[str | None, str | None]:
    """(the server's name, None), or (None, a warning that says why it is unknown)."""
    try:
        return asyncio.run(_server_name(url, headers)), None
    except Unauthorized as refused:
        return None, (
            f"{url} asks for authorization (HTTP {refused.status}): a host that supports "
            "OAuth signs in when it connects; otherwise add --header 'Authorization: Bearer "
            "TOKEN'"
        )
    except Exception as error:  # any failure is reported, none stops the install
        reason = str(error) or type(error).__name__
    return None, (
        f"could not reach {url} as an MCP server ({reason}); start it before the host connects"
    )


async def _server_name(url: str, headers: dict[str, str]) -> str | None:
    async with Client(url, headers=headers, timeout=TIMEOUT) as client:
        name = client.server_info.get("name")
        return name if isinstance(name, str) and name else None
