"""A weather server with structured output and made-up, deterministic data (no network).

Shows:

* a ``BaseModel`` result (``get_forecast``) and a ``TypedDict`` result
  (``current_conditions``): each becomes the tool's ``outputSchema``, and each call returns
  ``structuredContent`` that matches it plus the same JSON as text;
* ``Optional`` parameters with defaults (``units``, ``country``): plain, non-required
  properties in the schema, and an explicit ``null`` is accepted;
* an expected failure (an unknown city) told to the model with ``ToolError``.

Run it over stdio::

    python examples/weather.py
"""

from typing import Literal

from pydantic import BaseModel, Field
from typing_extensions import TypedDict

from toolwire import Server, ToolError

mcp = Server("Weather")

# city -> (latitude, mean temperature in Celsius, humidity %)
CITIES = {
    "london": (51.5, 11.0, 78),
    "oslo": (59.9, 6.0, 72),
    "paris": (48.9, 13.0, 70),
    "tokyo": (35.7, 16.0, 65),
}
CONDITIONS = ["sunny", "partly cloudy", "cloudy", "rain", "showers"]


class DayForecast(BaseModel):
    day: int = Field(description="Days from today (0 is today)")
    high: float = Field(description="Highest temperature")
    low: float = Field(description="Lowest temperature")
    condition: str


class Forecast(BaseModel):
    city: str
    units: Literal["celsius", "fahrenheit"]
    days: list[DayForecast]


class Conditions(TypedDict):
    city: str
    temperature: float
    humidity: int
    condition: str


def _lookup(city: str) -> tuple[str, float, float, int]:
    key = city.strip().lower()
    if key not in CITIES:
        known = ", ".join(name.title() for name in CITIES)
        raise ToolError(f"Unknown city: {city!r}. Known cities: {known}")
    latitude, mean, humidity = CITIES[key]
    return key.title(), latitude, mean, humidity


def _convert(celsius: float, units: str) -> float:
    return round(celsius * 9 / 5 + 32, 1) if units == "fahrenheit" else round(celsius, 1)


@mcp.tool(annotations={"readOnlyHint": True, "openWorldHint": False})
def get_forecast(
    city: str = Field(description="City name, e.g. London"),
    days: int = Field(3, ge=1, le=7, description="Number of days, 1 to 7"),
    units: Literal["celsius", "fahrenheit"] | None = Field(
        None, description="Temperature units (default: celsius)"
    ),
) -> Forecast:
    """Get the weather forecast for a city (made-up data)."""
    name, latitude, mean, _ = _lookup(city)
    units = units or "celsius"
    forecast = []
    for day in range(days):
        swing = (day * 7 + int(latitude)) % 5
        forecast.append(
            DayForecast(
                day=day,
                high=_convert(mean + swing, units),
                low=_convert(mean + swing - 8, units),
                condition=CONDITIONS[(day + int(latitude)) % len(CONDITIONS)],
            )
        )
    return Forecast(city=name, units=units, days=forecast)


@mcp.tool(annotations={"readOnlyHint": True, "openWorldHint": False})
def current_conditions(city: str, country: str | None = None) -> Conditions:
    """Get the current weather in a city (made-up data).

    Args:
        city: City name, e.g. Paris
        country: Optional country, to tell cities with the same name apart
    """
    name, latitude, mean, humidity = _lookup(city)
    return Conditions(
        city=name if country is None else f"{name}, {country}",
        temperature=mean,
        humidity=humidity,
        condition=CONDITIONS[int(latitude) % len(CONDITIONS)],
    )


if __name__ == "__main__":
    mcp.run()
