"""The official SDK's stateless Streamable HTTP configuration with only the import changed:
``mcp.run(transport="streamable-http", stateless_http=True, json_response=True)``."""

from toolwire import Server as MCPServer

mcp = MCPServer("StatelessServer")


@mcp.tool()
def greet(name: str = "World") -> str:
    """Greet someone by name."""
    return f"Hello, {name}!"


if __name__ == "__main__":
    mcp.run(transport="streamable-http", stateless_http=True, json_response=True)
