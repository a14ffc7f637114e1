"""What a client sees of the weather server that the mount tests serve, directly or mounted."""

from __future__ import annotations

from typing import Any

from wire import checked_client


async def session(url: str, revision: str, name: str, uri: str) -> dict[str, Any]:
    """What a client sees of the weather server, its names made with ``name`` and its URIs
    with ``uri`` (format strings)."""
    async with checked_client(url, revision) as client:
        return {
            "tools": [t["name"] for t in await client.list_tools()],
            "prompts": [(p["name"], p.get("description")) for p in await client.list_prompts()],
            "resources": [r["uri"] for r in await client.list_resources()],
            "templates": [t["uriTemplate"] for t in await client.list_resource_templates()],
            "today": (await client.read_resource(uri.format("today"))).contents,
            "week": (await client.read_resource(uri.format("oslo/week"))).text,
            "plan": (await client.get_prompt(name.format("plan"), {"city": "Oslo"})).messages,
            "city": (
                await client.complete(prompt=name.format("plan"), argument="city", value="O")
            ).values,
            "week_city": (
                await client.complete(
                    resource_template=uri.format("{city}/week"), argument="city", value="o"
                )
            ).values,
            "call": (await client.call_tool(name.format("forecast"), {"city": "Oslo"})).text,
        }
