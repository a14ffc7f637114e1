"""Tools for FileSystemProvider (servers/fastmcp_examples_style.py)."""

from fastmcp.tools import tool


@tool(name="shout-text", description="Shout a text.", tags={"text"})
def shout(text: str) -> str:
    return text.upper()


@tool
def whisper(text: str) -> str:
    """Whisper a text."""
    return text.lower()


def _helper(text: str) -> str:  # not decorated: not a tool
    return text
