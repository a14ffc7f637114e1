"""A stdio server configured from the environment: rate limits from ``TOOLWIRE_RATE_LIMIT_*``
(``RateLimiter.from_env()``) and, when ``AUDIT_FILE`` is set, an audit log in that file.

A bad ``TOOLWIRE_RATE_LIMIT_*`` value stops it at start-up with a ValueError naming the
variable, before it reads a single message.
"""

from __future__ import annotations

import os

from toolwire import Server
from toolwire.admission.audit import AuditLog
from toolwire.admission.limits import RateLimiter


def build() -> Server:
    audit_file = os.environ.get("AUDIT_FILE")
    mcp = Server(
        "rate-limited",
        version="0.0.1",
        rate_limits=RateLimiter.from_env(),
        audit=AuditLog(file=audit_file) if audit_file else None,
    )

    @mcp.tool()
    def search(query: str) -> str:
        """Search for something."""
        return f"results for {query}"

    @mcp.tool()
    def echo(text: str) -> str:
        """Return the text unchanged."""
        return text

    @mcp.tool(sensitive=["pin"])
    def unlock(door: str, pin: str) -> str:
        """Unlock a door with its pin."""
        return f"{door} unlocked"

    return mcp


if __name__ == "__main__":
    build().run()
