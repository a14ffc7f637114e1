"""Calculator server used by the interoperability tests.

Written the way the MCP tutorials write servers, against toolwire's public API only.
``python calc_server.py`` serves it over stdio.
"""

import asyncio
import math
from typing import Optional

from pydantic import BaseModel, Field

from toolwire import Server, ToolError

mcp = Server("Calculator")


class Stats(BaseModel):
    """Summary statistics of a list of numbers."""

    count: int
    mean: float
    minimum: float
    maximum: float


@mcp.tool(annotations={"readOnlyHint": True})
def add(a: int, b: int) -> int:
    """Add two numbers together."""
    return a + b


@mcp.tool()
def divide(a: float, b: float) -> float:
    """Divide a by b."""
    if b == 0:
        raise ValueError("Cannot divide by zero")
    return a / b


@mcp.tool()
def describe(numbers: list[float]) -> Stats:
    """Compute summary statistics for a list of numbers."""
    return Stats(
        count=len(numbers),
        mean=sum(numbers) / len(numbers),
        minimum=min(numbers),
        maximum=max(numbers),
    )


@mcp.tool()
def square_root(x: float) -> float:
    """Return the square root of x."""
    if x < 0:
        raise ToolError("Negative numbers have no real square root")
    return math.sqrt(x)


@mcp.tool()
async def format_total(amounts: list[float], currency: str = "EUR") -> str:
    """Add up amounts and format the total with a currency code."""
    total = await asyncio.to_thread(math.fsum, amounts)
    return f"{total:.2f} {currency}"


@mcp.tool()
def format_number(
    value: float = Field(description="The number to format"),
    precision: int = Field(default=2, description="Digits after the decimal point"),
    unit: Optional[str] = None,  # noqa: UP045 - the spelling the tutorials use
) -> str:
    """Format a number with a fixed precision and an optional unit."""
    text = f"{value:.{precision}f}"
    return f"{text} {unit}" if unit else text


if __name__ == "__main__":
    mcp.run()
