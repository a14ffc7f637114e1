"""A documentation server: a folder of Markdown files as MCP resources, a search tool that
answers with links to them, and a "summarize" prompt.

Shows resources next to tools and prompts: every page is listed in ``resources/list`` as
``docs://<path>`` (``text/markdown``, titled by its first heading), a ``docs://{+path}``
template reads pages added after start-up, ``search_docs`` returns ``resource_link`` blocks a
host can open with ``resources/read``, and the ``summarize`` prompt embeds a page in its
message. Page paths complete as the user types (``completion/complete``), and no path can
leave the folder (``SafePath``).

The folder is ``DOCS_ROOT``, else the ``docs/`` folder of this repository. Run it over stdio::

    DOCS_ROOT=path/to/markdown python examples/docs_server.py

or look around in the browser with ``toolwire dev examples/docs_server.py``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Literal

from toolwire import ResourceNotFound, Server, UserMessage
from toolwire.safety import PathNotAllowed, SafePath

ROOT = Path(os.environ.get("DOCS_ROOT") or Path(__file__).resolve().parent.parent / "docs")
INSIDE = SafePath(ROOT)
MAX_HITS = 20

mcp = Server(
    "Docs",
    instructions="Search the documentation with search_docs, then read the pages it links.",
)


def pages() -> list[str]:
    """The Markdown pages under the root, as paths relative to it."""
    return sorted(path.relative_to(ROOT).as_posix() for path in ROOT.rglob("*.md"))


def read_page(path: str) -> str:
    try:
        file = INSIDE.resolve(path)
    except PathNotAllowed as refused:
        raise ResourceNotFound(f"No page {path!r}: {refused}") from None
    if file.suffix != ".md" or not file.is_file():
        raise ResourceNotFound(f"No page {path!r}")
    return file.read_text(encoding="utf-8")


def title_of(text: str, fallback: str) -> str:
    heading = re.search(r"^#\s+(.+)$", text, re.MULTILINE)
    return heading.group(1).strip() if heading else fallback


def complete_path(value: str) -> list[str]:
    return [page for page in pages() if page.startswith(value)]


@mcp.resource(
    "docs://{+path}",
    name="page",
    title="Documentation page",
    mime_type="text/markdown",
    complete={"path": complete_path},
)
def page(path: str) -> str:
    """A Markdown page of the documentation, by its path under the folder."""
    return read_page(path)


def list_pages() -> None:
    """Each page as a resource of its own, so hosts can show them in a list."""
    for path in pages():
        text = (ROOT / path).read_text(encoding="utf-8")
        mcp.add_resource(
            lambda path=path: read_page(path),
            f"docs://{path}",
            name=path,
            title=title_of(text, path),
            mime_type="text/markdown",
            size=len(text.encode("utf-8")),
        )


@mcp.tool(annotations={"readOnlyHint": True, "openWorldHint": False}, structured_output=False)
def search_docs(query: str, limit: int = 5) -> str | list[object]:
    """Find the pages that mention every word of the query, best first.

    Args:
        query: Words to look for (case does not matter)
        limit: How many pages to return at most (1-20)
    """
    words = [word.lower() for word in query.split()]
    if not words:
        raise ValueError("Give at least one word to search for")
    hits = []
    for path in pages():
        text = read_page(path)
        lowered = text.lower()
        if all(word in lowered for word in words):
            score = sum(lowered.count(word) for word in words)
            hits.append((score, path, _snippet(text, words[0])))
    hits.sort(key=lambda hit: (-hit[0], hit[1]))
    hits = hits[: max(1, min(limit, MAX_HITS))]
    if not hits:
        return f"No page mentions {query!r}."
    return [f"{len(hits)} page(s) mention {query!r}:"] + [
        mcp.resource_link(f"docs://{path}", description=snippet) for _, path, snippet in hits
    ]


def _snippet(text: str, word: str, width: int = 80) -> str:
    at = text.lower().find(word)
    start = max(0, at - width // 2)
    return " ".join(text[start : start + width].split())


@mcp.prompt(title="Summarize a page", complete={"path": complete_path})
def summarize(path: str, audience: Literal["beginner", "expert"] = "beginner") -> list[UserMessage]:
    """Ask for a summary of one documentation page.

    Args:
        path: The page, e.g. index.md
        audience: Who the summary is for
    """
    read = read_page(path)
    return [
        UserMessage(
            {
                "type": "resource",
                "resource": {"uri": f"docs://{path}", "mimeType": "text/markdown", "text": read},
            }
        ),
        UserMessage(
            f"Summarize the page above in five bullet points for a {audience}, "
            "keeping its code names exactly as written."
        ),
    ]


list_pages()

if __name__ == "__main__":
    mcp.run()
