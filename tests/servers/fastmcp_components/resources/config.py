"""Resources for FileSystemProvider (servers/fastmcp_examples_style.py)."""

from fastmcp.resources import resource


@resource("config://app", mime_type="application/json")
def app_config() -> str:
    """The app's configuration."""
    return '{"name": "demo"}'


@resource("config://env/{env}", mime_type="text/plain")
def env_config(env: str) -> str:
    """One environment's configuration."""
    return f"settings of {env}"
