"""A host: many MCP servers behind one tool list, ready for an LLM API.

::

    async with Host(
        {"calc": "python calculator.py", "notes": [sys.executable, "notes.py"]},
        trusted={"calc"},
        confirm=ask_the_user,
    ) as host:
        tools = host.anthropic_tools()  # or host.openai_tools(strict=True), host.gemini_tools()
        result = await host.call_tool("add", {"a": 1, "b": 2})
        block = to_anthropic_content(result, tool_use_id)

Each server is a :class:`~toolwire.client.Client` target (a command, a server object) or a
``Client`` not yet connected (``Client(url, auth=OAuth(...))`` for a server of its own
authorization); all connect concurrently.

Tool names shown to the model fit the strictest LLM APIs, ``^[A-Za-z0-9_-]{1,64}$``:

* other characters become ``_``;
* a name offered by more than one server becomes ``{server}_{tool}``;
* a name still shared, or longer than 64 characters, is cut and ends with ``_`` and 8 hex
  digits of a hash of (server, tool).

Names depend only on the set of (server, tool) pairs, never on connection order, and
:meth:`Host.resolve` maps each back. Every call goes through an
:class:`~toolwire.client.host.approval.ApprovalPolicy`; a denied call returns an ``isError``
result and never reaches the server.

Resources and prompts are merged too (``host.list_resources()``, ``host.read_resource(uri)``,
``host.list_prompts()``, ``host.get_prompt(name, arguments)``): prompts get host-wide names
by the same rules, resources keep their URIs and say which server offers them. They need no
approval: the application and the user choose them, not the model.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Iterable, Mapping
from typing import Any

from ...errors import ClientError
from ..client import CallResult, Client
from .approval import ApprovalPolicy, Confirm
from .exports import (
    HostTool,
    export_tools,
    gemini_declaration,
    to_anthropic_content,
    to_gemini_content,
    to_openai_content,
)
from .naming import HASH_LENGTH, MAX_NAME, NAME_PATTERN, assign_names
from .primitives import HostPrimitives, HostPrompt, HostResource, UnknownPrimitiveError

__all__ = [
    "HASH_LENGTH",
    "MAX_NAME",
    "NAME_PATTERN",
    "Host",
    "HostPrompt",
    "HostResource",
    "HostTool",
    "UnknownPrimitiveError",
    "UnknownToolError",
    "assign_names",
    "denied",
    "to_anthropic_content",
    "to_gemini_content",
    "to_openai_content",
]

JSON = dict[str, Any]


class UnknownToolError(ClientError, KeyError):
    """No server of the host offers a tool by this name."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def for_the_model(tool: JSON) -> bool:
    """The model may see the tool: it is not for an MCP App's view alone (MCP Apps: a host
    must not offer the model a tool whose ``_meta.ui.visibility`` leaves out ``"model"``)."""
    meta = tool.get("_meta")
    ui = meta.get("ui") if isinstance(meta, dict) else None
    visibility = ui.get("visibility") if isinstance(ui, dict) else None
    return not isinstance(visibility, list) or "model" in visibility


class Host(HostPrimitives):
    """``async with Host({"name": target, ...}) as host``: every server's tools in one list,
    and their resources and prompts (see :mod:`~toolwire.client.host.primitives`)."""

    def __init__(
        self,
        servers: Mapping[str, Any] | str | os.PathLike[str],
        *,
        trusted: Iterable[str] = (),
        confirm: Confirm | None = None,
        policy: ApprovalPolicy | None = None,
        **client_options: Any,
    ) -> None:
        from ..mcp_config import is_config  # lazy: only for an mcpServers configuration

        if is_config(servers):  # an mcpServers configuration (toolwire.client.mcp_config)
            from ..mcp_config import clients  # lazy: only for an mcpServers configuration

            servers = clients(servers, Client, {"cache_tools": True, **client_options})
        elif not isinstance(servers, Mapping):
            raise TypeError(
                "Host takes {name: target} or an mcpServers configuration (a dict, or the "
                f"path of a .json file), not {servers!r}"
            )
        for server in servers:
            if not isinstance(server, str) or not server:
                raise ValueError(f"A server's name must be a non-empty string, not {server!r}")
        self._targets = dict(servers)
        # Each client keeps its server's list until ttlMs runs out or list_changed arrives.
        client_options.setdefault("cache_tools", True)
        self._client_options = client_options
        self.clients: dict[str, Client] = {
            server: target if isinstance(target, Client) else Client(target, **client_options)
            for server, target in servers.items()
        }
        unknown = set(trusted) - set(self.clients)
        if unknown:
            raise ValueError(f"Trusted servers that the host does not have: {sorted(unknown)}")
        self.policy = policy if policy is not None else ApprovalPolicy(trusted, confirm)
        self._tools: list[HostTool] | None = None
        self._by_name: dict[str, HostTool] = {}
        self._connected: list[Client] = []
        # {provider: {tool name: reasons}}: the tools the last export for it left out.
        self.export_problems: dict[str, dict[str, list[str]]] = {}

    # ------------------------------------------------------------ connection

    async def __aenter__(self) -> Host:
        await self.connect()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def connect(self) -> None:
        """Connect every server concurrently; if one fails, close the others and raise."""
        names = list(self.clients)
        outcomes = await asyncio.gather(
            *(self.clients[name].connect() for name in names), return_exceptions=True
        )
        failures: list[tuple[str, BaseException]] = []
        for name, outcome in zip(names, outcomes, strict=True):
            if isinstance(outcome, BaseException):
                failures.append((name, outcome))
            else:
                self._connected.append(self.clients[name])
        if failures:
            await self.close()
            name, error = failures[0]
            if not isinstance(error, Exception):
                raise error
            raise ClientError(f"Could not connect to server {name!r}: {error}") from error

    async def restart(self, server: str) -> None:
        """Connect ``server`` again (after it crashed, say) and refresh the merged tool list."""
        old = self.clients[server]
        target = self._targets[server]
        options = dict(self._client_options)
        if isinstance(target, Client):  # keep the server's own authorization
            options.setdefault("auth", target.auth)
            target = target.target
        if old in self._connected:
            self._connected.remove(old)
        with contextlib.suppress(Exception):
            await old.close()
        fresh = Client(target, **options)
        await fresh.connect()
        self.clients[server] = fresh
        self._connected.append(fresh)
        self._tools = None
        self._host_resources = self._host_templates = self._host_prompts = None

    async def close(self) -> None:
        connected, self._connected = self._connected, []
        await asyncio.gather(*(client.close() for client in connected), return_exceptions=True)

    # ------------------------------------------------------------ tools

    async def list_tools(self, *, refresh: bool = False) -> list[HostTool]:
        """Every server's tools, merged. Each server's list comes from its client's cache
        (kept for the server's ``ttlMs`` and dropped on ``list_changed``); ``refresh=True``
        asks every server again. A tool that is for an MCP App's view alone
        (``_meta.ui.visibility`` without ``"model"``) is not offered to the model."""
        names = list(self.clients)
        listings = await asyncio.gather(
            *(self.clients[n].list_tools(refresh=refresh) for n in names)
        )
        definitions = {
            (server, str(tool["name"])): tool
            for server, tools in zip(names, listings, strict=True)
            for tool in tools
            if for_the_model(tool)
        }
        assigned = assign_names(definitions)
        self._tools = [
            HostTool(assigned[key], key[0], key[1], definition)
            for key, definition in definitions.items()
        ]
        self._by_name = {tool.name: tool for tool in self._tools}
        return list(self._tools)

    @property
    def tools(self) -> list[HostTool]:
        """The merged tools of the last :meth:`list_tools`."""
        if self._tools is None:
            raise ClientError("Call `await host.list_tools()` first")
        return list(self._tools)

    def resolve(self, name: str) -> tuple[str, str]:
        """(server, original tool name) for a name shown to the model."""
        tool = self._lookup(name)
        return tool.server, tool.tool

    def _lookup(self, name: str) -> HostTool:
        if self._tools is None:
            raise ClientError("Call `await host.list_tools()` first")
        try:
            return self._by_name[name]
        except KeyError:
            known = ", ".join(sorted(self._by_name)) or "none"
            raise UnknownToolError(f"Unknown tool {name!r}; the host's tools: {known}") from None

    async def call_tool(
        self, name: str, arguments: JSON | None = None, **options: Any
    ) -> CallResult:
        """Call a tool by the name shown to the model, after the approval policy allows it."""
        if self._tools is None:
            await self.list_tools()
        tool = self._lookup(name)
        # lazy: the providers' schema rules, only for a tool checked or exported for one
        from ...providers import null_means_absent

        # A strict export makes optional arguments nullable: their nulls mean "absent".
        arguments = null_means_absent(dict(arguments or {}), tool.input_schema)
        decision = await self.policy.decide(tool.server, tool.definition, arguments)
        if not decision.allowed:
            return denied(tool, decision.reason)
        return await self.clients[tool.server].call_tool(tool.tool, arguments, **options)

    # ------------------------------------------------------------ exports

    def openai_tools(self, strict: bool = False) -> list[JSON]:
        """The tools in the OpenAI Chat Completions ``tools`` format.

        ``strict=True``: strict function calling (every schema shaped by
        :func:`toolwire.providers.export`, ``"strict": true``); a tool strict mode cannot
        express is left out and reported in :attr:`export_problems` (see
        :mod:`~toolwire.client.host.exports`). ``strict=False``: the schemas as published.
        """
        if not strict:
            return [_openai_tool(tool, tool.input_schema) for tool in self.tools]
        exported = export_tools(self.tools, "openai", self.export_problems)
        return [{**_openai_tool(tool, schema), "strict": True} for tool, schema in exported]

    def gemini_tools(self) -> list[JSON]:
        """The tools as Gemini ``FunctionDeclaration`` objects (``parameters`` in Gemini's
        ``Schema`` subset); a tool it cannot express is left out and reported."""
        exported = export_tools(self.tools, "gemini", self.export_problems)
        return [gemini_declaration(tool, schema) for tool, schema in exported]

    def anthropic_tools(self) -> list[JSON]:
        """The tools in the Anthropic Messages ``tools`` format; a tool Anthropic refuses is
        left out and reported."""
        return [
            {"name": tool.name, "description": tool.description, "input_schema": schema}
            for tool, schema in export_tools(self.tools, "anthropic", self.export_problems)
        ]


def _openai_tool(tool: HostTool, parameters: JSON) -> JSON:
    function = {"name": tool.name, "description": tool.description, "parameters": parameters}
    return {"type": "function", "function": function}


def denied(tool: HostTool, reason: str) -> CallResult:
    """The ``isError`` result of a call the approval policy refused."""
    if reason.endswith("denied by the user"):
        message = f"The call to {tool.name!r} was denied by the user."
    else:
        message = f"The call to {tool.name!r} was denied by the user's approval policy ({reason})."
    content = [{"type": "text", "text": message}]
    return CallResult(content=content, is_error=True, raw={"content": content, "isError": True})
