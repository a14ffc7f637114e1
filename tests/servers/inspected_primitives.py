"""A server for the inspector page's Resources and Prompts tabs
(tests/test_inspector_primitives_browser.py).

Static resources of every kind the page renders (text, JSON, a PNG image, a binary blob, one
whose title is hostile markup), two URI templates whose variables complete (a simple
``{user_id}`` and a reserved ``{+path}``), prompts with required and optional arguments and
completers (``city.district`` completes from the city given earlier, through
``context.arguments``), a prompt whose messages carry an image and an embedded resource, and
tools that add and remove a resource while the server runs (the page's lists follow).
"""

from __future__ import annotations

import struct
import zlib

from toolwire import Image, Server
from toolwire.prompts import AssistantMessage, UserMessage

mcp = Server("Inspected primitives", version="0.1.0")

USERS = {"1": "Ada Lovelace", "2": "Grace Hopper", "12": "Alan Turing"}
FILES = ["docs/guide.md", "docs/api.md", "src/main.py"]
DISTRICTS = {"oslo": ["frogner", "gamle oslo", "grunerlokka"], "paris": ["marais", "montmartre"]}
LANGUAGES = ["go", "haskell", "python", "rust"]
BLOB = bytes(range(256)) * 2


def tiny_png() -> bytes:
    """A valid 4x4 PNG: green on the left, blue on the right."""
    row = b"\x00" + (b"\x00\xa0\x00" * 2) + (b"\x00\x00\xff" * 2)

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


# ---------------------------------------------------------------------------- resources


@mcp.resource("notes://welcome", title="Welcome note", mime_type="text/plain")
def welcome() -> str:
    """A short text for newcomers."""
    return "Welcome to the inspector.\nResources are read here."


@mcp.resource("config://app", title="App configuration", mime_type="application/json")
def config() -> dict[str, object]:
    """The application's settings, as JSON."""
    return {"theme": "dark", "retries": 3, "features": ["a", "b"]}


@mcp.resource("images://dot.png", mime_type="image/png", size=len(tiny_png()))
def dot() -> bytes:
    """A 4x4 picture."""
    return tiny_png()


@mcp.resource("data://sample.bin", mime_type="application/octet-stream", size=len(BLOB))
def sample() -> bytes:
    """Some binary bytes."""
    return BLOB


@mcp.resource(
    "notes://hostile",
    title="<b>bold</b> note",
    description="<img src=x onerror=\"window.__xss='resource'\">",
)
def hostile() -> str:
    return "<script>window.__xss='contents'</script>"


def user_ids(value: str) -> list[str]:
    return [user for user in USERS if user.startswith(value)]


@mcp.resource(
    "users://{user_id}/profile",
    title="User profile",
    mime_type="text/plain",
    complete={"user_id": user_ids},
)
def profile(user_id: str) -> str:
    """One user's profile."""
    if user_id not in USERS:
        raise KeyError(f"No user {user_id}")
    return f"Profile of {USERS[user_id]}"


@mcp.resource(
    "files:///{+path}",
    mime_type="text/plain",
    complete={"path": lambda value: [f for f in FILES if f.startswith(value)]},
)
def project_file(path: str) -> str:
    """A file of the project."""
    return f"contents of {path}"


@mcp.tool()
def add_note(name: str) -> str:
    """Add the resource ``notes://NAME`` while the server runs (resources/list_changed)."""
    mcp.add_resource(f"note {name}", f"notes://{name}", name=name, mime_type="text/plain")
    return f"added notes://{name}"


@mcp.tool()
def drop_note(name: str) -> str:
    """Remove the resource ``notes://NAME`` again."""
    mcp.remove_resource(f"notes://{name}")
    return f"dropped notes://{name}"


# ---------------------------------------------------------------------------- prompts


@mcp.prompt(
    title="Code review",
    complete={"language": lambda value: [x for x in LANGUAGES if x.startswith(value)]},
)
def review(code: str, language: str = "python", focus: str = "") -> list[object]:
    """Ask for a review of some code.

    Args:
        code: The code to review
        language: Its programming language
        focus: What to look at first, if anything
    """
    ask = f"Review this {language} code" + (f", focusing on {focus}" if focus else "")
    return [UserMessage(f"{ask}:\n{code}"), AssistantMessage("Sure, here is my review.")]


def districts(value: str, arguments: dict[str, str]) -> list[str]:
    return [d for d in DISTRICTS.get(arguments.get("city", ""), []) if d.startswith(value)]


@mcp.prompt(complete={"city": lambda value: sorted(DISTRICTS), "district": districts})
def walk(city: str, district: str) -> str:
    """Plan a walk.

    Args:
        city: The city to walk in
        district: A district of that city
    """
    return f"Plan a walk in {district}, {city}."


@mcp.prompt()
def show_picture() -> list[object]:
    """Messages with an image and an embedded resource."""
    return [
        UserMessage(Image(data=tiny_png(), format="png")),
        {
            "role": "user",
            "content": {
                "type": "resource",
                "resource": {"uri": "notes://welcome", "mimeType": "text/plain", "text": "hi"},
            },
        },
        AssistantMessage("A tiny picture and a note."),
    ]


if __name__ == "__main__":
    mcp.run()
