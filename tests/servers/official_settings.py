"""The official SDK's server settings with only the imports changed: ``log_level`` and
``debug`` in the constructor, ``instructions``, server ``icons``, a lifespan whose context
a tool reads through ``Context[AppContext]``; served with ``mcp.run()`` (stdio)."""

import logging
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from toolwire import Context
from toolwire import Server as MCPServer
from toolwire.types import Icon

logger = logging.getLogger("bookshop")
LOGO = Icon(src="https://example.com/logo.png", mimeType="image/png", sizes=["48x48"])


class Database:
    @classmethod
    async def connect(cls) -> "Database":
        return cls()

    async def disconnect(self) -> None: ...

    def query(self) -> int:
        return 3


@dataclass
class AppContext:
    db: Database


@asynccontextmanager
async def app_lifespan(server: MCPServer) -> AsyncIterator[AppContext]:
    db = await Database.connect()
    try:
        yield AppContext(db=db)
    finally:
        await db.disconnect()


mcp = MCPServer(
    "Bookshop",
    instructions="Search the catalog before recommending a book.",
    icons=[LOGO],
    lifespan=app_lifespan,
    log_level="DEBUG",
    debug=os.environ.get("MCP_DEBUG") == "true",
    dependencies=["pandas"],
)


@mcp.tool()
def count_books(genre: str, ctx: Context[AppContext]) -> str:
    """Count the books in a genre."""
    logger.debug("counting %s", genre)
    db = ctx.request_context.lifespan_context.db
    return f"{db.query()} books in {genre!r}."


@mcp.tool()
def broken() -> str:
    """Fails with an unexpected error."""
    raise RuntimeError("connection string postgres://secret")


if __name__ == "__main__":
    mcp.run()
