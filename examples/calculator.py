"""A calculator server: the MCP tutorials' first example, on toolwire.

Shows plain typed functions as tools, docstrings as descriptions (``Args:`` become parameter
descriptions), read-only annotations, and errors the model can read: a tool raises
``ValueError("Cannot divide by zero")`` and the client gets exactly that text in an
``isError`` result.

Run it over stdio (what MCP hosts such as Claude Desktop start)::

    python examples/calculator.py

or try it from Python::

    from toolwire import Client
    async with Client("python examples/calculator.py") as client:
        print((await client.call_tool("divide", {"a": 1, "b": 0})).text)
"""

import math

from toolwire import Server

mcp = Server("Calculator")

READ_ONLY = {
    "readOnlyHint": True,
    "destructiveHint": False,
    "idempotentHint": True,
    "openWorldHint": False,
}


@mcp.tool(annotations={"title": "Add", **READ_ONLY})
def add(a: float, b: float) -> float:
    """Add two numbers together.

    Args:
        a: The first number
        b: The second number
    """
    return a + b


@mcp.tool(annotations={"title": "Subtract", **READ_ONLY})
def subtract(a: float, b: float) -> float:
    """Subtract b from a.

    Args:
        a: The number to subtract from
        b: The number to subtract
    """
    return a - b


@mcp.tool(annotations={"title": "Multiply", **READ_ONLY})
def multiply(a: float, b: float) -> float:
    """Multiply two numbers.

    Args:
        a: The first factor
        b: The second factor
    """
    return a * b


@mcp.tool(annotations={"title": "Divide", **READ_ONLY})
def divide(a: float, b: float) -> float:
    """Divide a by b.

    Args:
        a: The dividend
        b: The divisor (must not be zero)
    """
    if b == 0:
        raise ValueError("Cannot divide by zero")
    return a / b


@mcp.tool(annotations={"title": "Power", **READ_ONLY})
def power(base: float, exponent: float) -> float:
    """Raise base to the power of exponent.

    Args:
        base: The base
        exponent: The exponent
    """
    if base == 0 and exponent < 0:
        raise ValueError("Cannot raise zero to a negative power")
    if base < 0 and not float(exponent).is_integer():
        raise ValueError("A negative base needs a whole-number exponent")
    try:
        return math.pow(base, exponent)
    except OverflowError:
        raise ValueError(f"The result of {base:g} ** {exponent:g} is too large") from None


@mcp.tool(annotations={"title": "Square root", **READ_ONLY})
def sqrt(x: float) -> float:
    """Calculate the square root of a number.

    Args:
        x: A number that is zero or positive
    """
    if x < 0:
        raise ValueError(f"Cannot take the square root of a negative number ({x:g})")
    return math.sqrt(x)


if __name__ == "__main__":
    mcp.run()
