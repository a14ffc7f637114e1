"""A server for the inspector's browser tests (tests/test_inspector_browser.py).

Each tool exercises one part of the page: a form built from nested models, lists, a Literal,
optionals and bounds (``place_order`` echoes what it received); every content type
(``media``); progress, logs and cancellation (``wait_for_flag`` runs until a file the test
creates exists); a tool list that changes while the server runs (``add_tool``); annotation
badges; stderr output (``shout``); and hostile text that must be shown as text, never run as HTML (``hostile``).
"""

from __future__ import annotations

import asyncio
import base64
import io
import struct
import sys
import wave
import zlib
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from toolwire import Context, Server, types

mcp = Server(
    "Inspected",
    version="1.2.3",
    instructions="Tools that exercise every part of the inspector page.",
)


class Address(BaseModel):
    street: str
    city: str
    zip_code: str | None = Field(None, description="Postal code, if any")


class Customer(BaseModel):
    name: str = Field(description="Full name")
    vip: bool = False
    address: Address


class Item(BaseModel):
    sku: str
    quantity: int = Field(1, ge=1)


class Node(BaseModel):
    label: str
    children: list[Node] = []


@mcp.tool(annotations={"readOnlyHint": True, "idempotentHint": True})
def place_order(
    customer: Customer,
    items: list[Item],
    counts: list[int],
    priority: Literal["low", "normal", "high"],
    gift: bool,
    rating: Annotated[float, Field(ge=0, le=10)],
    discount: int | None = None,
    express: bool | None = None,
) -> dict[str, Any]:
    """Echo an order back exactly as it arrived.

    Args:
        customer: Who orders
        items: What they order
        counts: Some whole numbers
        priority: How urgent it is
        gift: Wrap it as a gift
        rating: A score from 0 to 10
        discount: Percent off
        express: Ship it express
    """
    received: dict[str, Any] = {
        "customer": customer.model_dump(exclude_unset=True),
        "items": [item.model_dump(exclude_unset=True) for item in items],
        "counts": counts,
        "priority": priority,
        "gift": gift,
        "rating": rating,
    }
    if discount is not None:
        received["discount"] = discount
    if express is not None:
        received["express"] = express
    return received


class Limits(BaseModel):
    low: int
    high: int


# One tool published with the verbatim pydantic schema: $defs/$ref for models (a recursive one
# among them) and Optional[X] as anyOf [X, null], the shapes the portable profile avoids.
mcp.schema_profile = "pydantic"


@mcp.tool()
def describe(
    root: Node,
    value: int | str,
    limits: Limits | None = None,
    tags: list[str] | None = None,
    limit: int | None = None,
) -> dict[str, Any]:
    """Echo a recursive tree, a union and some optional fields."""
    echoed = {"root": root.model_dump(), "value": value}
    extras = {"limits": limits.model_dump() if limits else None, "tags": tags, "limit": limit}
    return echoed | {key: item for key, item in extras.items() if item is not None}


mcp.schema_profile = "portable"


def tiny_png() -> bytes:
    """A valid 4x4 PNG: red on the left, blue on the right."""
    row = b"\x00" + (b"\xff\x00\x00" * 2) + (b"\x00\x00\xff" * 2)

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 4, 4, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(row * 4))
        + chunk(b"IEND", b"")
    )


def tiny_wav() -> bytes:
    """A valid WAV: 20 ms of silence, 8 kHz, 8-bit mono."""
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(1)
        out.setframerate(8000)
        out.writeframes(b"\x80" * 160)
    return buffer.getvalue()


@mcp.tool()
def media() -> types.CallToolResult:
    """Return one block of every content type, plus structured content."""
    png = base64.b64encode(tiny_png()).decode()
    wav = base64.b64encode(tiny_wav()).decode()
    return types.CallToolResult(
        content=[
            types.TextContent(
                text="Plain text\non two lines",
                annotations=types.Annotations(audience=["user"], priority=0.5),
            ),
            types.ImageContent(data=png, mimeType="image/png"),
            types.AudioContent(data=wav, mimeType="audio/wav"),
            types.ResourceLink(
                uri="file:///reports/q3.csv",
                name="q3.csv",
                title="Q3 report",
                description="Quarterly numbers",
                mimeType="text/csv",
                size=1234,
            ),
            types.EmbeddedResource(
                resource=types.TextResourceContents(
                    uri="memo://notes/1", mimeType="text/plain", text="An embedded note"
                )
            ),
            types.EmbeddedResource(
                resource=types.BlobResourceContents(
                    uri="memo://images/dot.png", mimeType="image/png", blob=png
                )
            ),
            types.EmbeddedResource(
                resource=types.BlobResourceContents(
                    uri="memo://files/data.bin",
                    mimeType="application/octet-stream",
                    blob=base64.b64encode(b"\x00\x01\x02").decode(),
                )
            ),
        ],
        structuredContent={"rows": 3, "ok": True},
    )


@mcp.tool()
async def wait_for_flag(flag: str, ctx: Context, total: int | None = None) -> str:
    """Report progress and log until the file ``flag`` exists, or until cancelled.

    Args:
        flag: A path; the call ends when a file appears there
        total: Report progress out of this total (else indeterminate)
    """
    step = 0
    while not Path(flag).exists():
        step += 1
        await ctx.report_progress(step, total=total, message=f"step {step}")
        if step % 5 == 1:
            await ctx.info(f"still waiting at step {step}")
        await asyncio.sleep(0.05)  # the tool's own pace, not a test synchronization
    return f"done after {step} steps"


@mcp.tool()
def add_tool(name: str) -> str:
    """Register a new tool called ``name`` while the server runs (tools/list_changed)."""

    def added() -> str:
        return f"hello from {name}"

    mcp.add_tool(added, name=name, description=f"Added at run time as {name}.")
    return f"added {name}"


@mcp.tool()
def shout(text: str) -> str:
    """Write ``text`` to stderr, which the inspector shows in its Logs view."""
    print(text, file=sys.stderr, flush=True)
    return "shouted"


@mcp.tool(annotations={"destructiveHint": True, "idempotentHint": True, "openWorldHint": True})
def wipe(target: str) -> str:
    """Pretend to delete everything in ``target``."""
    return f"wiped {target}"


@mcp.tool(annotations={"readOnlyHint": True, "destructiveHint": True})
def peek() -> str:
    """Read-only: its destructiveHint means nothing and shows no badge."""
    return "peeked"


@mcp.tool(
    title="<b>bold</b> title",
    description=(
        "Looks harmless <img src=x onerror=\"window.__xss='description'\"> "
        "<script>window.__xss='script'</script>"
    ),
)
def hostile(text: str = "<img src=x onerror=\"window.__xss='input'\">") -> str:
    """Hostile strings in the definition and in the result."""
    return f"<img src=x onerror=\"window.__xss='result'\"><b>not bold</b> {text}"


if __name__ == "__main__":
    mcp.run()
