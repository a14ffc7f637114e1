"""A server facing OpenAI (``Server(provider=...)``, the provider from argv[1]), over stdio."""

import sys

from pydantic import BaseModel

from toolwire import Server

mcp = Server("facing", provider=sys.argv[1] if len(sys.argv) > 1 else "openai")


class Place(BaseModel):
    city: str
    country: str = "FR"


@mcp.tool
def where(place: Place, days: int = 3, note: str | None = None) -> str:
    """Say what was received."""
    return f"{place.city},{place.country},{days},{note}"


if __name__ == "__main__":
    mcp.run()
