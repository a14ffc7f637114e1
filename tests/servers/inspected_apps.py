"""The inspector's MCP Apps tests: a view that probes its host. Its HTML, ``probe.html``, is
written beside this file by the test (the official ``App`` class of the npm package
``@modelcontextprotocol/ext-apps`` inlined, then the probe's own script)."""

from pathlib import Path

from toolwire import Server

VIEW = "ui://probe/view"

mcp = Server("Apps probe")
mcp.app(VIEW, Path(__file__).with_name("probe.html"), connect_domains=["https://api.example.com"])
bumps = 0


@mcp.tool(app=VIEW)
def probe(label: str) -> dict[str, str]:
    """Open the probe's view."""
    return {"label": label}


@mcp.tool(app=VIEW, visible_to=["app"])
def bump() -> dict[str, int]:
    """Count a click in the view."""
    global bumps
    bumps += 1
    return {"bumps": bumps}


@mcp.tool(app=VIEW, visible_to=["model"])
def model_only() -> str:
    """For the model alone: the view may not call it."""
    return "for the model"
