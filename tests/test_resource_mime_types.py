"""A resource or template is listed with the MIME type its reads answer with: the one
given, else the one its function's return annotation (or its value) settles at
registration; none when only the value read can tell; ``text/plain`` for a function with
no return annotation, as the official SDK and FastMCP list and read it. Every message is
checked against the schema of the negotiated revision."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

import anyio
import pytest
from pydantic import BaseModel

from toolwire import File, Server

from wire import checked_client

PNG = b"\x89PNG\r\n\x1a\n\x00\x00 pixels"


class Point(BaseModel):
    x: int


@dataclass
class Pair:
    left: int
    right: int


def library() -> Server:
    mcp = Server("types")

    @mcp.resource("text://plain")
    def plain() -> str:
        return "text"

    @mcp.resource("docs://guide.md")
    async def guide() -> str:
        return "# Guide"

    @mcp.resource("data://settings")
    def settings() -> dict[str, int]:
        return {"retries": 3}

    @mcp.resource("data://point")
    def point() -> Point:
        return Point(x=1)

    @mcp.resource("data://pair")
    def pair() -> Annotated[Pair, "a pair"]:
        return Pair(1, 2)

    @mcp.resource("data://numbers")
    def numbers() -> list[int]:
        return [1, 2]

    @mcp.resource("text://lines")
    def lines() -> list[str]:
        return ["one", "two"]

    @mcp.resource("images://logo.png")
    def logo() -> bytes:
        return PNG

    @mcp.resource("table://given", mime_type="text/csv")
    def given() -> str:
        return "a,b"

    # only the value read can tell: listed without a MIME type
    @mcp.resource("images://unnamed")
    def unnamed() -> bytes:
        return PNG

    @mcp.resource("data://loose")
    def loose():  # type: ignore[no-untyped-def]
        return {"a": 1}

    @mcp.resource("data://either")
    def either() -> str | bytes:
        return "text"

    @mcp.resource("data://some")
    def some() -> list:  # type: ignore[type-arg]
        return ["one", "two"]  # two text contents

    mcp.add_resource("static text", "static://text")
    mcp.add_resource(PNG, "static://image")
    mcp.add_resource(File(data=b"a,b", format="csv"), "static://table")

    @mcp.resource("notes://{name}")
    def note(name: str) -> str:
        return f"note {name}"

    @mcp.resource("pages://{name}.md")
    def page(name: str) -> str:
        return f"# {name}"

    @mcp.resource("records://{key}")
    def record(key: str) -> dict[str, str]:
        return {"key": key}

    @mcp.resource("blobs://{key}")
    def blob(key: str) -> bytes:
        return PNG

    return mcp


LISTED = {
    "text://plain": "text/plain",
    "docs://guide.md": "text/markdown",
    "data://settings": "application/json",
    "data://point": "application/json",
    "data://pair": "application/json",
    "data://numbers": "application/json",
    "text://lines": "text/plain",
    "images://logo.png": "image/png",
    "table://given": "text/csv",
    "images://unnamed": None,
    "data://loose": "text/plain",
    "data://either": None,
    "data://some": None,
    "static://text": "text/plain",
    "static://image": "image/png",
    "static://table": "text/csv",
}
TEMPLATES = {
    # a template's text is text/plain whatever the URI read ends in (notes://a.md too)
    "notes://{name}": ("text/plain", "notes://a.md"),
    "pages://{name}.md": ("text/markdown", "pages://intro.md"),
    "records://{key}": ("application/json", "records://k"),
    "blobs://{key}": (None, "blobs://k"),
}


@pytest.mark.parametrize("revision", ["2025-11-25", "2026-07-28"])
async def test_listing_names_the_type_every_read_answers_with(revision: str) -> None:
    with anyio.fail_after(30):
        async with checked_client(library(), revision) as client:
            listed = {r["uri"]: r.get("mimeType") for r in await client.list_resources()}
            assert listed == LISTED
            for uri, mime_type in listed.items():
                read = await client.read_resource(uri)
                types = {content["mimeType"] for content in read.contents}
                assert len(types) == 1, uri
                if mime_type is not None:
                    assert types == {mime_type}, uri
            assert {
                uri: read.contents[0]["mimeType"]
                for uri in ("images://unnamed", "data://loose", "data://either", "data://some")
                for read in [await client.read_resource(uri)]
            } == {
                "images://unnamed": "image/png",
                "data://loose": "text/plain",
                "data://either": "text/plain",
                "data://some": "text/plain",
            }
            templates = {
                t["uriTemplate"]: t.get("mimeType") for t in await client.list_resource_templates()
            }
            assert templates == {key: listed for key, (listed, _) in TEMPLATES.items()}
            for mime_type, uri in TEMPLATES.values():
                read = await client.read_resource(uri)
                assert read.contents[0]["mimeType"] == (mime_type or "image/png"), uri


async def test_a_proxy_lists_what_the_upstream_lists() -> None:
    """A proxied resource names the upstream's MIME type, or none when the upstream does."""
    with anyio.fail_after(30):
        async with checked_client(Server.proxy(library())) as client:
            listed = {r["uri"]: r.get("mimeType") for r in await client.list_resources()}
    assert listed == LISTED


def test_the_type_is_settled_at_registration() -> None:
    mcp = library()
    assert mcp.get_resource("data://settings").content_type == "application/json"  # type: ignore[union-attr]
    assert mcp.find_template("notes://{name}").content_type == "text/plain"  # type: ignore[union-attr]
    assert mcp.get_resource("data://loose").content_type == "text/plain"  # type: ignore[union-attr]
