"""A server in FastMCP 4's style whose tools have no title of their own, a title, an
annotations' title, a hyphenated name and a mounted namespace: FastMCP 4 lists every tool
with a title, made from its name where none is given (tests/interop/test_fastmcp_titles.py
compares it with toolwire's ``FastMCP``)."""

from fastmcp import FastMCP

mcp = FastMCP("Titles")


@mcp.tool
def get_forecast(city: str) -> str:
    """Tomorrow's weather."""
    return f"Sunny in {city}"


@mcp.tool(name="shout-text")
def shout(text: str) -> str:
    """The text in capitals."""
    return text.upper()


@mcp.tool(title="A Given Title")
def given() -> str:
    """A tool with its own title."""
    return "given"


@mcp.tool(annotations={"title": "From Annotations", "readOnlyHint": True})
def annotated() -> str:
    """A tool titled by its annotations."""
    return "annotated"


news = FastMCP("News")


@news.tool
def top_headlines() -> str:
    """Today's headlines."""
    return "all quiet"


mcp.mount(news, namespace="news")

if __name__ == "__main__":
    mcp.run()
