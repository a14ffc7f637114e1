"""Resources and prompts of many servers behind one :class:`~toolwire.client.Host`.

::

    async with Host({"docs": "python docs.py", "wiki": "python wiki.py"}) as host:
        listed = [(r.server, r.uri) for r in await host.list_resources()]
        page = await host.read_resource("docs://guide.md")           # the one server offering it
        same = await host.read_resource("file:///README.md", server="wiki")  # offered by both
        prompts = await host.list_prompts()                        # names like tools' names
        summary = await host.get_prompt("docs_summarize", {"uri": "docs://guide.md"})

Prompts get host-wide names the way tools do (:func:`~toolwire.client.host.naming.assign_names`:
plain when unique, ``{server}_{prompt}`` when two servers share one). Resources keep their
URI: two servers may offer the same URI, both are listed, each :class:`HostResource` says
which server it comes from, and ``read_resource(uri, server=...)`` picks one.

No approval is asked for any of this: resources are pulled in by the application and prompts
are picked by the user, so neither is a model acting on its own (tool calls are, and go
through the host's approval policy).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...errors import ClientError
from ..primitives import Completion, PromptResult, ResourceResult
from .naming import assign_names

if TYPE_CHECKING:
    from ..client import Client

JSON = dict[str, Any]


class UnknownPrimitiveError(ClientError, KeyError):
    """No server of the host offers a prompt by this name, or a resource by this URI."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


@dataclass(frozen=True)
class HostResource:
    """One resource (or, with ``template=True``, URI template) and the server offering it."""

    server: str
    uri: str
    definition: JSON
    template: bool = False

    @property
    def name(self) -> str:
        return str(self.definition.get("name") or self.uri)


@dataclass(frozen=True)
class HostPrompt:
    """One prompt as the host shows it: ``name`` (unique across servers), the ``server``
    offering it and the ``prompt``'s own name there."""

    name: str
    server: str
    prompt: str
    definition: JSON

    @property
    def arguments(self) -> list[JSON]:
        arguments = self.definition.get("arguments")
        return list(arguments) if isinstance(arguments, list) else []


def template_pattern(template: str) -> re.Pattern[str]:
    """A regular expression matching the URIs an RFC 6570 template expands to: a simple
    ``{var}`` matches text without ``/``, ``?`` or ``#``; other operators (``{+var}``,
    ``{/var}``, ``{?var}``, ...) match anything."""
    parts = re.split(r"(\{[^}]*\})", template)
    regex = "".join(
        (r"[^/?#]*" if part[1:2].isalnum() or part[1:2] == "_" else ".*")
        if part.startswith("{")
        else re.escape(part)
        for part in parts
    )
    return re.compile(rf"\A{regex}\Z")


class HostPrimitives:
    """The resource and prompt half of :class:`~toolwire.client.Host` (a mixin)."""

    if TYPE_CHECKING:  # provided by Host
        clients: dict[str, Client]

    _host_resources: list[HostResource] | None = None
    _host_templates: list[HostResource] | None = None
    _host_prompts: dict[str, HostPrompt] | None = None

    def _offering(self, capability: str) -> list[str]:
        """The servers that declared ``capability`` (others would answer -32601)."""
        return [
            name
            for name, client in self.clients.items()
            if isinstance(client.server_capabilities.get(capability), dict)
        ]

    # ------------------------------------------------------------ resources

    async def list_resources(self) -> list[HostResource]:
        """Every server's resources, each tagged with its server; a URI two servers offer
        appears twice."""
        servers = self._offering("resources")
        listings = await asyncio.gather(*(self.clients[s].list_resources() for s in servers))
        self._host_resources = [
            HostResource(server, str(item["uri"]), item)
            for server, items in zip(servers, listings, strict=True)
            for item in items
        ]
        return list(self._host_resources)

    async def list_resource_templates(self) -> list[HostResource]:
        """Every server's URI templates (``uri`` is the template), tagged with the server."""
        servers = self._offering("resources")
        listings = await asyncio.gather(
            *(self.clients[s].list_resource_templates() for s in servers)
        )
        self._host_templates = [
            HostResource(server, str(item["uriTemplate"]), item, template=True)
            for server, items in zip(servers, listings, strict=True)
            for item in items
        ]
        return list(self._host_templates)

    async def servers_for(self, uri: str) -> list[str]:
        """The servers that list ``uri``, else those with a template it matches."""
        if self._host_resources is None:
            await self.list_resources()
        assert self._host_resources is not None
        listed = [r.server for r in self._host_resources if r.uri == uri]
        if listed:
            return sorted(set(listed))
        if self._host_templates is None:
            await self.list_resource_templates()
        assert self._host_templates is not None
        return sorted(
            {t.server for t in self._host_templates if template_pattern(t.uri).match(uri)}
        )

    async def read_resource(
        self, uri: str, *, server: str | None = None, **options: Any
    ) -> ResourceResult:
        """Read ``uri`` from the server offering it (listed, or matching one of its
        templates). When several servers offer it, ``server=`` says which one. No approval is
        asked: reading is the application's choice, not the model's."""
        if server is None:
            candidates = await self.servers_for(uri)
            if not candidates:  # perhaps new since the last listing: look once more
                self._host_resources = self._host_templates = None
                candidates = await self.servers_for(uri)
            if not candidates:
                raise UnknownPrimitiveError(f"No server of the host offers resource {uri!r}")
            if len(candidates) > 1:
                raise ClientError(
                    f"Resource {uri!r} is offered by several servers ({', '.join(candidates)}):"
                    " pass server= to pick one"
                )
            server = candidates[0]
        return await self._client(server).read_resource(uri, **options)

    # ------------------------------------------------------------ prompts

    async def list_prompts(self) -> list[HostPrompt]:
        """Every server's prompts under host-wide names (``{server}_{prompt}`` where two
        servers share a name)."""
        servers = self._offering("prompts")
        listings = await asyncio.gather(*(self.clients[s].list_prompts() for s in servers))
        definitions = {
            (server, str(item["name"])): item
            for server, items in zip(servers, listings, strict=True)
            for item in items
        }
        names = assign_names(definitions)
        self._host_prompts = {
            names[key]: HostPrompt(names[key], key[0], key[1], definition)
            for key, definition in definitions.items()
        }
        return list(self._host_prompts.values())

    async def resolve_prompt(self, name: str) -> HostPrompt:
        """The prompt behind a host-wide prompt name."""
        if self._host_prompts is None or name not in self._host_prompts:
            await self.list_prompts()  # first use, or a prompt new since the last listing
        assert self._host_prompts is not None
        try:
            return self._host_prompts[name]
        except KeyError:
            known = ", ".join(sorted(self._host_prompts)) or "none"
            raise UnknownPrimitiveError(
                f"Unknown prompt {name!r}; the host's prompts: {known}"
            ) from None

    async def get_prompt(
        self, name: str, arguments: Mapping[str, str] | None = None, **options: Any
    ) -> PromptResult:
        """Get a prompt by its host-wide name from its server. No approval is asked: the
        user picked the prompt."""
        prompt = await self.resolve_prompt(name)
        return await self._client(prompt.server).get_prompt(prompt.prompt, arguments, **options)

    async def complete(
        self,
        *,
        argument: str,
        value: str = "",
        prompt: str | None = None,
        resource_template: str | None = None,
        server: str | None = None,
        context: Mapping[str, str] | None = None,
    ) -> Completion:
        """Suggestions for a prompt argument (``prompt`` is the host-wide name) or a template
        variable (``resource_template`` as listed; ``server=`` when several offer it)."""
        if prompt is not None:
            found = await self.resolve_prompt(prompt)
            server, prompt = found.server, found.prompt
        elif server is None and resource_template is not None:
            if self._host_templates is None:
                await self.list_resource_templates()
            assert self._host_templates is not None
            offering = sorted(
                {t.server for t in self._host_templates if t.uri == resource_template}
            )
            if len(offering) != 1:
                raise ClientError(
                    f"Template {resource_template!r} is offered by "
                    f"{', '.join(offering) or 'no server'}: pass server= to pick one"
                )
            server = offering[0]
        if server is None:
            raise ValueError("Pass exactly one of prompt= or resource_template=")
        return await self._client(server).complete(
            argument=argument,
            value=value,
            prompt=prompt,
            resource_template=resource_template,
            context=context,
        )

    def _client(self, server: str) -> Client:
        try:
            return self.clients[server]
        except KeyError:
            raise UnknownPrimitiveError(
                f"The host has no server {server!r}; it has: {', '.join(sorted(self.clients))}"
            ) from None
