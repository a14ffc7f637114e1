"""The ``mcpServers`` configuration Claude Desktop, Cursor and FastMCP use, for
:class:`~toolwire.client.Client` and :class:`~toolwire.client.Host`.

::

    config = {
        "mcpServers": {
            "weather": {"command": "python", "args": ["weather.py"], "env": {"KEY": "..."}},
            "docs": {"url": "https://docs.example.com/mcp", "headers": {"X-Team": "a"}},
        }
    }
    async with Host(config) as host: ...              # every server's tools
    async with Client("servers.json") as client: ...  # a file with one server

A configuration is the dict, or the path of a JSON file holding it. A local server has
``command`` (and ``args``, ``env``, ``cwd``): it is started and spoken to over stdio, with
``env`` added to this process's environment. A remote one has ``url`` (and ``headers``):
Streamable HTTP. ``Client`` takes a configuration with one server; ``Host`` takes any
number, each under its name.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

Entry = tuple[Any, dict[str, Any]]  # (the Client target, its options)


def is_config(target: Any) -> bool:
    """``target`` is an ``mcpServers`` configuration: a dict holding that key, or the path
    of a ``.json`` file."""
    if isinstance(target, Mapping):
        return "mcpServers" in target
    return isinstance(target, (str, os.PathLike)) and str(target).lower().endswith(".json")


def entries(config: Any) -> dict[str, Entry]:
    """Each server of ``config`` by name, as a target and the Client options it needs."""
    if not isinstance(config, Mapping):
        path = Path(config)
        try:
            config = json.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise ValueError(f"Cannot read the MCP configuration {str(path)!r}: {exc}") from None
        except ValueError as exc:
            raise ValueError(f"The MCP configuration {str(path)!r} is not JSON: {exc}") from None
    servers = config.get("mcpServers") if isinstance(config, Mapping) else None
    if not isinstance(servers, Mapping) or not servers:
        raise ValueError(
            'An MCP configuration is {"mcpServers": {"name": {"command": ..., "args": [...]} '
            'or {"url": ...}}} with at least one server'
        )
    return {str(name): _entry(str(name), spec) for name, spec in servers.items()}


def _entry(name: str, spec: Any) -> Entry:
    if not isinstance(spec, Mapping):
        raise ValueError(f"Server {name!r} of the MCP configuration must be an object")
    kind = spec.get("type") or spec.get("transport")
    if kind == "sse":
        raise ValueError(
            f"Server {name!r} uses the deprecated HTTP+SSE transport: give its Streamable "
            'HTTP endpoint instead ({"url": "https://host/mcp"})'
        )
    if "command" in spec:
        command = spec["command"]
        args = spec.get("args", [])
        if not isinstance(command, str) or not isinstance(args, list):
            raise ValueError(f'Server {name!r}: "command" is a string and "args" a list')
        options: dict[str, Any] = {}
        if spec.get("env"):
            options["env"] = {str(key): str(value) for key, value in spec["env"].items()}
        if spec.get("cwd"):
            options["cwd"] = str(spec["cwd"])
        return [command, *map(str, args)], options
    if "url" in spec:
        url = spec["url"]
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise ValueError(f'Server {name!r}: "url" is an http(s) URL, not {url!r}')
        headers = spec.get("headers")
        return url, ({"headers": dict(headers)} if headers else {})
    raise ValueError(
        f'Server {name!r} of the MCP configuration needs "command" (a local server) or '
        '"url" (a remote one)'
    )


def single(config: Any, options: dict[str, Any]) -> Any:
    """The target of a configuration with one server; its options go into ``options``
    (those given to the Client win)."""
    found = entries(config)
    if len(found) != 1:
        raise ValueError(
            f"This MCP configuration has {len(found)} servers ({', '.join(found)}); a Client "
            "speaks to one: use Host(config), which serves every server's tools, resources "
            "and prompts together"
        )
    ((target, extra),) = found.values()
    for key, value in extra.items():
        if options.get(key) is None:
            options[key] = value
    return target


def clients(config: Any, client: Any, options: dict[str, Any]) -> dict[str, Any]:
    """A ``client(target, **options)`` for each server of ``config``, by name."""
    made = {}
    for name, (target, extra) in entries(config).items():
        made[name] = client(target, **{**options, **extra})
    return made
