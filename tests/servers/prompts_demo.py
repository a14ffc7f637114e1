"""A server with prompts and completers (prompt and completion tests, every transport).

``review`` has typed arguments, a title, icons and ``_meta``; ``framework`` completes from
the language answered earlier (``context.arguments``); ``media`` returns messages carrying
an image, audio, an embedded resource and a resource link; ``picky`` and ``broken`` fail;
the ``add_prompt`` / ``drop_prompt`` tools change the prompt list (a sync tool, on a worker
thread: the change crosses to the event loop). Prompts are listed two per page.
"""

from typing import Literal

import toolwire.types as types
from toolwire import Audio, Context, File, Image, Server
from toolwire.prompts import AssistantMessage, UserMessage

mcp = Server("prompts-demo", version="1.0.0", page_size=2)

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 8
WAV = b"RIFF\x24\x00\x00\x00WAVEfmt "
LANGUAGES = ["go", "haskell", "javascript", "python", "rust"]
FRAMEWORKS = {"python": ["django", "fastapi", "flask"], "javascript": ["express", "next"]}


def languages(value: str) -> list[str]:
    return [language for language in LANGUAGES if language.startswith(value)]


async def frameworks(value: str, arguments: dict[str, str]) -> list[str]:
    known = FRAMEWORKS.get(arguments.get("language", ""), [])
    return [name for name in known if name.startswith(value)]


@mcp.prompt(
    title="Code Review",
    icons=[{"src": "https://example.com/review.png", "mimeType": "image/png"}],
    meta={"com.example/team": "tests"},
    complete={"language": languages, "framework": frameworks},
)
def review(
    code: str,
    language: str = "python",
    framework: str = "",
    max_issues: int = 3,
    strict: bool = False,
) -> str:
    """Ask for a review of some code.

    Args:
        code: The code to review
        language: Its programming language
        framework: The framework it uses, if any
        max_issues: How many issues to list at most
    """
    mode = "strict" if strict else "friendly"
    return f"Review this {language}{'/' + framework if framework else ''} code ({mode}, {max_issues} issues max):\n{code}"


@mcp.prompt()
def tone(text: str, style: Literal["formal", "casual"] = "formal") -> list[object]:
    """Rewrite a text in a given tone."""
    return [
        UserMessage(f"Rewrite in a {style} tone: {text}"),
        AssistantMessage("Here is the rewrite:"),
    ]


@mcp.prompt()
async def media(ctx: Context) -> list[object]:
    """Messages with an image, audio, an embedded resource and a resource link."""
    await ctx.info("building the media prompt")
    return [
        UserMessage(Image(data=PNG)),
        {"role": "user", "content": Audio(data=WAV, format="wav")},
        UserMessage(File(data=b"# Notes\n", name="notes.md", mime_type="text/markdown")),
        UserMessage(types.ResourceLink(uri="docs://guide", name="guide", title="The Guide")),
        {"role": "assistant", "content": {"type": "text", "text": "Looked at all of them."}},
    ]


@mcp.prompt()
def picky(topic: str) -> str:
    """Refuses some topics, saying why."""
    if topic == "taxes":
        raise ValueError("Taxes are not a topic for this prompt")
    return f"Tell me about {topic}"


@mcp.prompt()
def broken() -> str:
    """Fails with an unexpected error."""
    raise RuntimeError("secret connection string postgres://u:p@db")


@mcp.tool()
def add_prompt(name: str) -> str:
    """Register a new prompt."""
    mcp.add_prompt(lambda: f"I am {name}", name=name)
    return f"added {name}"


@mcp.tool()
def drop_prompt(name: str) -> str:
    """Remove a prompt."""
    mcp.remove_prompt(name)
    return f"dropped {name}"


if __name__ == "__main__":
    mcp.run()
