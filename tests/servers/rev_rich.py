"""A server whose tools use every field some revision lacks (revision-shaping tests).

``rich`` has a title, annotations, icons, ``_meta`` and an output schema, and its result
carries structuredContent, a resource_link and audio; each revision must see only the
parts it defines.
"""

import toolwire.types as types
from toolwire import Audio, Server

mcp = Server("rev-rich", version="3.1.4", instructions="Rich tools for revision tests.")

AUDIO = "UklGRiQAAABXQVZFZm10IBAAAAABAAEARKwAAIhYAQACABAAZGF0YQAAAAA="
OUTPUT_SCHEMA = {
    "type": "object",
    "properties": {"n": {"type": "integer"}, "square": {"type": "integer"}},
    "required": ["n", "square"],
}


@mcp.tool(
    title="Rich Tool",
    annotations={"title": "Rich (annotation)", "readOnlyHint": True, "openWorldHint": False},
    icons=[{"src": "https://example.com/rich.png", "mimeType": "image/png", "sizes": ["48x48"]}],
    meta={"com.example/owner": "tests"},
    output_schema=OUTPUT_SCHEMA,
)
def rich(n: int) -> types.CallToolResult:
    """Square a number and attach a file link and a sound."""
    return types.CallToolResult(
        content=[
            types.TextContent(text=f'{{"n":{n},"square":{n * n}}}'),
            types.ResourceLink(
                uri="file:///data/report.txt",
                name="report.txt",
                title="The Report",
                mimeType="text/plain",
            ),
            types.AudioContent(data=AUDIO, mimeType="audio/wav"),
        ],
        structuredContent={"n": n, "square": n * n},
    )


@mcp.tool()
def media():
    """A list of content objects: a resource link, a sound and a string."""
    return [
        types.ResourceLink(uri="https://example.com/a.csv", name="a.csv"),
        Audio(data=b"RIFF", format="wav"),
        "done",
    ]


@mcp.tool()
def echo(text: str) -> str:
    """Say it back."""
    return text


if __name__ == "__main__":
    mcp.run()
