"""A server whose prompt arguments and resource-template variables have completers.

``greet.name`` completes from a fixed list, ``city.district`` from the city answered
earlier (``context.arguments``), ``count.n`` has 250 suggestions (more than one answer
holds), ``fail.x`` raises; ``users://{org}/{user_id}/profile`` completes ``org`` (sync)
and ``user_id`` within the org answered earlier (async).
"""

from typing import Literal

from toolwire import Server

mcp = Server("prompts-complete", version="1.0.0")

NAMES = ["alice", "albert", "bob", "carol"]
DISTRICTS = {"oslo": ["frogner", "gamle oslo", "grunerlokka"], "paris": ["marais", "montmartre"]}
USERS = {"acme": ["ada", "alan"], "initech": ["peter", "milton"]}


@mcp.prompt(complete={"name": lambda value: [n for n in NAMES if n.startswith(value)]})
def greet(name: str, mood: Literal["warm", "wary", "cold"] = "warm", note: str = "") -> str:
    """Greet someone."""
    return f"Greet {name} ({mood})"


def districts(value: str, arguments: dict[str, str]) -> list[str]:
    return [d for d in DISTRICTS.get(arguments.get("city", ""), []) if d.startswith(value)]


@mcp.prompt(complete={"city": lambda value: sorted(DISTRICTS), "district": districts})
def city(city: str, district: str) -> str:
    """Plan a walk."""
    return f"Walk in {district}, {city}"


class Found:
    """A completer's answer with its own total and hasMore."""

    def __init__(self, values: list[str], total: int, has_more: bool) -> None:
        self.values = values
        self.total = total
        self.has_more = has_more


@mcp.prompt(
    complete={
        "n": lambda value: [str(i) for i in range(250) if str(i).startswith(value)],
        "m": lambda value: Found(["1", "2"], total=40, has_more=True),
    }
)
def count(n: str, m: str = "") -> str:
    """Count."""
    return n


def failing(value: str) -> list[str]:
    raise RuntimeError("database password hunter2")


@mcp.prompt(complete={"x": failing})
def fail(x: str) -> str:
    """Its completer fails."""
    return x


async def user_ids(value: str, arguments: dict[str, str]) -> list[str]:
    return [u for u in USERS.get(arguments.get("org", ""), []) if u.startswith(value)]


@mcp.resource(
    "users://{org}/{user_id}/profile",
    complete={"org": lambda value: [o for o in USERS if o.startswith(value)], "user_id": user_ids},
)
def profile(org: str, user_id: str) -> str:
    """A user's profile."""
    return f"{user_id} of {org}"


if __name__ == "__main__":
    mcp.run()
