"""An MCP App: a checklist whose tools answer with text for any client and, in a host that
renders apps (the extension ``io.modelcontextprotocol/ui``), with an interactive view.

``mcp.app(uri, Path("checklist_app.html"))`` serves the view (one HTML document, read again
on each read); ``@mcp.tool(app=uri)`` makes a tool's result show in it. ``toggle_item`` is
for the view alone (``visible_to=["app"]``): the host does not offer it to its model, and a
client that does not render apps does not see it at all.

    python examples/checklist_app.py          # stdio
    toolwire dev examples/checklist_app.py    # the inspector renders the view
"""

from pathlib import Path

from pydantic import BaseModel

from toolwire import Server

VIEW = "ui://checklist/view"

mcp = Server("Checklist")
mcp.app(VIEW, Path(__file__).with_suffix(".html"), prefers_border=True)


class Item(BaseModel):
    text: str
    done: bool = False


class Checklist(BaseModel):
    items: list[Item]
    remaining: int


items: list[Item] = [Item(text="Write the release notes"), Item(text="Tag the release")]


def checklist() -> Checklist:
    return Checklist(items=list(items), remaining=sum(not item.done for item in items))


@mcp.tool(app=VIEW)
def show_checklist() -> Checklist:
    """Show the checklist."""
    return checklist()


@mcp.tool(app=VIEW)
def add_item(text: str) -> Checklist:
    """Add an item to the checklist.

    Args:
        text: What the item says.
    """
    items.append(Item(text=text))
    return checklist()


@mcp.tool(app=VIEW, visible_to=["app"])
def toggle_item(index: int) -> Checklist:
    """Tick or untick an item (the view's checkboxes call this)."""
    if not 0 <= index < len(items):
        raise ValueError(f"No item {index}: the checklist has {len(items)} items")
    items[index].done = not items[index].done
    return checklist()


if __name__ == "__main__":
    mcp.run()
