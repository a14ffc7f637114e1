"""examples/docs_server.py: a folder of Markdown pages as resources, a search tool answering
with resource links, and a "summarize" prompt, over memory, stdio and HTTP on 2025-11-25 and
2026-07-28 (every message checked against the revision's schema both ways), and in the
official SDK's client.

The pages are a small folder the test writes (``DOCS_ROOT``), so what is found is known.
"""

from __future__ import annotations

import contextlib
import os
import runpy
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client as SdkClient
from mcp import StdioServerParameters

from toolwire import Client, ServerError

from http_server import serve_http
from primitive_clients import strict_client
from wire import EXAMPLES

pytestmark = pytest.mark.timeout(60)

SCRIPT = EXAMPLES / "docs_server.py"
REVISIONS = ["2025-11-25", "2026-07-28"]
TRANSPORTS = ["memory", "stdio", "http"]
PAGES = {
    "index.md": "# Welcome\n\nStart with the guide. Tools answer questions.\n",
    "guide/tools.md": "# Writing tools\n\nA tool is a function. Tools tools tools.\n",
    "guide/errors.md": "# Errors\n\nA tool raises ValueError and the model reads it.\n",
}


@pytest.fixture(scope="module")
def docs_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("docs")
    for name, text in PAGES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    (root.parent / "secret.md").write_text("# Secret\n", encoding="utf-8")  # outside the root
    return root


@contextlib.contextmanager
def docs_env(root: Path) -> Iterator[None]:
    before = os.environ.get("DOCS_ROOT")
    os.environ["DOCS_ROOT"] = str(root)
    try:
        yield
    finally:
        if before is None:
            del os.environ["DOCS_ROOT"]
        else:
            os.environ["DOCS_ROOT"] = before


@contextlib.asynccontextmanager
async def connected(transport: str, revision: str, root: Path) -> AsyncIterator[Client]:
    with docs_env(root):
        if transport == "stdio":
            async with strict_client([sys.executable, str(SCRIPT)], revision) as (client, _):
                yield client
            return
        server = runpy.run_path(str(SCRIPT))["mcp"]
    if transport == "memory":
        async with strict_client(server, revision) as (client, _):
            yield client
        return
    with serve_http(server) as url:
        async with strict_client(url, revision) as (client, _):
            yield client


@pytest.mark.parametrize("revision", REVISIONS)
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_pages_search_and_summarize(transport: str, revision: str, docs_root: Path) -> None:
    async with connected(transport, revision, docs_root) as client:
        listed = {r["uri"]: r for r in await client.list_resources()}
        assert sorted(listed) == [
            "docs://guide/errors.md",
            "docs://guide/tools.md",
            "docs://index.md",
        ]
        assert listed["docs://guide/tools.md"]["title"] == "Writing tools"
        assert listed["docs://index.md"]["mimeType"] == "text/markdown"
        (template,) = await client.list_resource_templates()
        assert template["uriTemplate"] == "docs://{+path}"

        page = await client.read_resource("docs://guide/errors.md")
        assert page.text == PAGES["guide/errors.md"] and page.mime_type == "text/markdown"

        found = await client.call_tool("search_docs", {"query": "tools"})
        assert not found.is_error
        links = [block for block in found.content if block["type"] == "resource_link"]
        assert [link["uri"] for link in links] == ["docs://guide/tools.md", "docs://index.md"]
        assert "function" in links[0]["description"]  # the snippet around the first hit
        for link in links:  # every link opens with resources/read
            assert (await client.read_resource(link["uri"])).text == PAGES[link["name"]]
        missing = await client.call_tool("search_docs", {"query": "nowhere"})
        assert missing.text == "No page mentions 'nowhere'."

        prompt = await client.get_prompt("summarize", {"path": "index.md", "audience": "expert"})
        embedded, ask = prompt.messages
        assert embedded["content"]["resource"]["text"] == PAGES["index.md"]
        assert "for a expert" in ask["content"]["text"]

        paths = await client.complete(prompt="summarize", argument="path", value="guide/")
        assert paths.values == ["guide/errors.md", "guide/tools.md"]
        from_template = await client.complete(
            resource_template="docs://{+path}", argument="path", value="in"
        )
        assert from_template.values == ["index.md"]


@pytest.mark.parametrize("revision", REVISIONS)
async def test_no_page_outside_the_folder(revision: str, docs_root: Path) -> None:
    async with connected("memory", revision, docs_root) as client:
        for uri in ("docs://../secret.md", "docs:///etc/passwd", "docs://nothing.md"):
            with pytest.raises(ServerError) as refused:
                await client.read_resource(uri)
            assert refused.value.code == (-32602 if revision == "2026-07-28" else -32002)
            assert "# Secret" not in str(refused.value)  # never the file itself
        with pytest.raises(ServerError):
            await client.get_prompt("summarize", {"path": "../secret.md"})


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_the_official_client_reads_pages_and_gets_the_prompt(
    mode: str, docs_root: Path
) -> None:
    env = {
        "PYTHONPATH": str(EXAMPLES.parent / "src"),
        "PATH": os.environ.get("PATH", ""),
        "DOCS_ROOT": str(docs_root),
    }
    parameters = StdioServerParameters(command=sys.executable, args=[str(SCRIPT)], env=env)
    with anyio.fail_after(45):
        async with SdkClient(parameters, mode=mode) as client:
            listing = await client.list_resources()
            uris = sorted(str(resource.uri) for resource in listing.resources)
            assert uris == ["docs://guide/errors.md", "docs://guide/tools.md", "docs://index.md"]
            read: Any = await client.read_resource("docs://guide/tools.md")
            assert read.contents[0].text == PAGES["guide/tools.md"]
            prompts = await client.list_prompts()
            assert [prompt.name for prompt in prompts.prompts] == ["summarize"]
            got = await client.get_prompt("summarize", {"path": "guide/errors.md"})
            assert got.messages[0].content.resource.text == PAGES["guide/errors.md"]
            assert got.messages[1].role == "user"
