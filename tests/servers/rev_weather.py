"""The spec's example weather server (2026-07-28 examples), for golden tests."""

from pydantic import Field

from toolwire import Server

mcp = Server(
    "ExampleServer",
    version="1.0.0",
    instructions=(
        "This server provides weather and resource utilities. "
        "Prefer `get_weather` for forecast lookups."
    ),
    list_ttl_ms=3_600_000,
)

WEATHER_TEXT = "Current weather in New York:\nTemperature: 72°F\nConditions: Partly cloudy"


@mcp.tool(
    title="Weather Information Provider",
    icons=[
        {"src": "https://example.com/weather-icon.png", "mimeType": "image/png", "sizes": ["48x48"]}
    ],
    output_schema=False,
)
def get_weather(location: str = Field(description="City name or zip code")) -> str:
    """Get current weather information for a location"""
    if location == "New York":
        return WEATHER_TEXT
    return f"Current weather in {location}:\nTemperature: unknown"


if __name__ == "__main__":
    mcp.run()
