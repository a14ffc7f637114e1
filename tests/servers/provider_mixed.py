"""Tools some providers can take and some cannot (a free map), over stdio."""

from toolwire import Server

mcp = Server("mixed")


@mcp.tool
def count(words: dict[str, int]) -> int:
    """Count words."""
    return sum(words.values())


@mcp.tool(annotations={"readOnlyHint": True})
def echo(text: str, times: int = 1) -> str:
    """Echo text."""
    return text * times


@mcp.tool
def nothing() -> str:
    """Do nothing."""
    return "ok"


if __name__ == "__main__":
    mcp.run()
