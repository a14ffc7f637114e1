"""Resources, prompts and completion served by toolwire, the same set as the official SDK's
``sdk_primitives.py`` offers, for toolwire's client over memory, stdio and HTTP.

One item per page (``page_size=1``) so the client has to follow ``nextCursor``.
"""

from __future__ import annotations

from typing import Any

from toolwire import Server

PIXEL = bytes([0x89, 0x50, 0x4E, 0x47, 0x00, 0xFF])
USERS = {"1": "Ada", "2": "Alan", "3": "Grace"}
LANGUAGES = ["english", "esperanto", "french", "german"]

mcp = Server("tw-primitives", page_size=1)


@mcp.resource("config://app", title="App config", mime_type="text/plain")
def config() -> str:
    """The application's configuration."""
    return "debug = true"


@mcp.resource("images://pixel", mime_type="image/png")
def pixel() -> bytes:
    """A tiny binary resource."""
    return PIXEL


def user_ids(value: str) -> list[str]:
    return [uid for uid in USERS if uid.startswith(value)]


@mcp.resource("users://{user_id}/profile", mime_type="text/plain", complete={"user_id": user_ids})
def profile(user_id: str) -> str:
    """A user's profile."""
    return f"name: {USERS.get(user_id, 'unknown')}"


def languages(value: str) -> list[str]:
    return [lang for lang in LANGUAGES if lang.startswith(value)]


def names(value: str, arguments: dict[str, str]) -> list[str]:
    # The earlier answer narrows the choice: names for the chosen language.
    choices = (
        ["Ana", "Alba"] if arguments.get("language") == "esperanto" else ["Al", "Alice", "Bob"]
    )
    return [name for name in choices if name.startswith(value)]


@mcp.prompt(title="Greeting", complete={"language": languages, "name": names})
def greet(name: str, language: str = "english") -> str:
    """Greet someone in a language.

    Args:
        name: Who to greet
        language: The language to greet in
    """
    return f"Say hello to {name} in {language}."


@mcp.prompt()
def review(code: str) -> list[Any]:
    """Review some code."""
    return [
        {"role": "user", "content": f"Please review:\n{code}"},
        {"role": "assistant", "content": "Sure, looking at it now."},
    ]


@mcp.tool()
def touch(uri: str) -> str:
    """Say that a resource changed, and that the resource and prompt lists changed."""
    mcp.resource_updated(uri)
    mcp.resources_changed()
    mcp.prompts_changed()
    return "touched"


if __name__ == "__main__":
    mcp.run()
