"""A server with its own protocol extension (SEP-2133): ``com.example/counters``.

An extension adds methods beside the core ones, under an identifier the server advertises in
``capabilities.extensions``. Here a client that declares the extension can increment named
counters; any client can list them, and tell the server to reset them; a tool reads the same
counters, so the model sees what the client's extension calls did.

Run it over stdio::

    python examples/counters_extension.py

and talk to it from Python::

    from toolwire import Client
    async with Client("python examples/counters_extension.py",
                      extensions={"com.example/counters": {}}) as client:
        print(client.server_extensions)  # {'com.example/counters': {'maxCounters': 100}}
        print(await client.request("counters/increment", {"name": "visits"}))
"""

from typing import Any

from toolwire import Context, Extension, RPCError, Server

MAX_COUNTERS = 100
INVALID_PARAMS = -32602

counters = Extension("com.example/counters", {"maxCounters": MAX_COUNTERS})
values: dict[str, int] = {}


@counters.method("counters/increment", client_required=True)
def increment(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    """Add ``by`` (default 1) to the counter ``name``; only for clients that declared the
    extension (the others get the error -32021, naming it)."""
    name, by = params.get("name"), params.get("by", 1)
    if not isinstance(name, str) or not name:
        raise RPCError(INVALID_PARAMS, 'Invalid params: "name" must be a non-empty string')
    if not isinstance(by, int) or isinstance(by, bool):
        raise RPCError(INVALID_PARAMS, 'Invalid params: "by" must be an integer')
    if name not in values and len(values) >= MAX_COUNTERS:
        raise RPCError(INVALID_PARAMS, f"Invalid params: at most {MAX_COUNTERS} counters")
    values[name] = values.get(name, 0) + by
    return {"name": name, "value": values[name]}


@counters.method("counters/list")
def list_counters(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    """Every counter and its value."""
    return {"counters": dict(values)}


@counters.notification("notifications/counters/reset")
def reset(params: dict[str, Any]) -> None:
    """The client asks for a fresh start."""
    values.clear()


mcp = Server("Counters", extensions=[counters])


@mcp.tool(annotations={"readOnlyHint": True})
def read_counter(name: str) -> int:
    """The value of a counter (0 if it was never incremented).

    Args:
        name: The counter's name.
    """
    return values.get(name, 0)


if __name__ == "__main__":
    mcp.run()
