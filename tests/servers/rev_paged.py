"""Five tools served two per page, registered out of alphabetical order (pagination tests)."""

from toolwire import Server

mcp = Server("rev-paged", version="1.0.0", page_size=2)

NAMES = ["delta", "alpha", "echo", "bravo", "charlie"]


def _make(name: str):
    def tool(x: int = 0) -> str:
        return f"{name}:{x}"

    tool.__name__ = name
    tool.__doc__ = f"The {name} tool."
    return tool


for _name in NAMES:
    mcp.add_tool(_make(_name))


if __name__ == "__main__":
    mcp.run()
