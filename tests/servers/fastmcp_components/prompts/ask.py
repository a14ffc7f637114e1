"""Prompts for FileSystemProvider (servers/fastmcp_examples_style.py)."""

from fastmcp.prompts import prompt


@prompt(name="explain-concept", description="Explain a concept.")
def explain(topic: str, audience: str = "developer") -> str:
    return f"Explain {topic} to a {audience}."
