"""A server whose tool fails inside a helper, on a builtin operation (an error toolwire masks
behind a reference id), for the inspector's traceback view."""

from toolwire import Server

mcp = Server("inspected-crash", version="1.0.0")


def lookup() -> dict[str, int]:
    return {}["x"]  # a KeyError raised by the subscript, not by a raise: masked


@mcp.tool()
def crash() -> dict[str, int]:
    """Look something up that is not there."""
    return lookup()
