"""MCP Apps: tools with an interactive HTML view that a host renders (the extension
``io.modelcontextprotocol/ui``).

::

    mcp.app("ui://weather/forecast", Path("forecast.html"), connect_domains=["https://api.example.com"])

    @mcp.tool(app="ui://weather/forecast")
    def forecast(city: str) -> Forecast: ...

    @mcp.tool(app="ui://weather/forecast", visible_to=["app"])  # only the view calls it
    def refresh(city: str) -> Forecast: ...

An app is a resource at a ``ui://`` URI whose content is one HTML document of type
``text/html;profile=mcp-app``; its ``_meta.ui`` says what the host's sandbox may allow (the
CSP domain lists, browser permissions, a border, a dedicated origin). A tool names its view in
``_meta.ui.resourceUri`` (and the older ``_meta["ui/resourceUri"]``, which hosts still read)
and who may call it in ``_meta.ui.visibility``: the model, the view, or both (the default).

The server advertises the extension once an app is registered. A client that did not declare
it (``capabilities.extensions["io.modelcontextprotocol/ui"].mimeTypes``, with the app type)
gets the plain tools: the tools only a view may call are not listed to it and are unknown
when it calls them.
"""

from __future__ import annotations

import inspect
import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ..errors import RegistrationError
from ..server.dispatch.extensions import Extension
from ..server.inputs import MIME_TYPE as MIME_TYPE
from ..server.inputs import UI as UI
from ..server.inputs import renders_apps as renders_apps

PERMISSIONS = ("camera", "microphone", "geolocation", "clipboardWrite")
AUDIENCES = ("model", "app")
LEGACY_KEY = "ui/resourceUri"
# A CSP source a view may name: an http(s) or ws(s) origin, a "*." subdomain wildcard, a port
# and a path; nothing that could end the directive or add another (";", ",", quotes, spaces).
CSP_SOURCE = re.compile(
    r"(?:https?|wss?)://(?:\*\.)?[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*(?::(?:[0-9]{1,5}|\*))?"
    r"(?:/[^\s;,'\"]*)?"
)
_CSP_KEYS = {
    "connect_domains": "connectDomains",
    "resource_domains": "resourceDomains",
    "frame_domains": "frameDomains",
    "base_uri_domains": "baseUriDomains",
}

JSON = dict[str, Any]
HtmlSource = str | os.PathLike[str] | Callable[[], Any]


class AppView:
    """A registered view: its URI, where its HTML comes from, and its ``_meta.ui``."""

    def __init__(self, uri: str, html: HtmlSource, ui: JSON) -> None:
        self.uri = uri
        self.html = html
        self.ui = ui

    def load(self) -> str:
        """The HTML of a view that is text, a file or a plain function."""
        source = self.html
        if isinstance(source, os.PathLike):
            return Path(source).read_text(encoding="utf-8")
        return source() if callable(source) else source

    def page(self, text: Any) -> _Page:
        if not isinstance(text, str):
            raise TypeError(f"The HTML of the app {self.uri!r} is {type(text).__name__}, not str")
        return _Page(self.uri, text, self.ui)


class _Page:
    """One ``resources/read`` content item: the HTML, typed and with its ``_meta.ui``."""

    def __init__(self, uri: str, text: str, ui: JSON) -> None:
        self.uri, self.text, self.ui = uri, text, ui

    def to_wire(self) -> JSON:
        item: JSON = {"uri": self.uri, "mimeType": MIME_TYPE, "text": self.text}
        if self.ui:
            item["_meta"] = {"ui": self.ui}
        return item


class Apps:
    """A server's views and which tools use them (``server.apps``)."""

    def __init__(self, server: Any) -> None:
        self.views: dict[str, AppView] = {}
        self.tools: dict[str, str] = {}  # tool name -> its view's URI
        self.app_only: set[str] = set()  # tools only a view may call
        server.add_extension(Extension(UI, {}))

    def add_view(self, server: Any, uri: str, html: HtmlSource, **options: Any) -> AppView:
        check_uri(uri, "An app's URI")
        if uri in self.views:
            raise RegistrationError(f"An app at {uri!r} is already registered")
        if isinstance(html, str) and "<" not in html:
            raise RegistrationError(
                f"The app {uri!r} got {html[:80]!r} as its HTML: pass the document itself, a "
                "pathlib.Path to read it from a file, or a function that returns it"
            )
        if isinstance(html, os.PathLike) and not Path(html).is_file():
            raise RegistrationError(f"The app {uri!r}: no HTML file at {os.fspath(html)}")
        if not isinstance(html, (str, os.PathLike)) and not callable(html):
            raise RegistrationError(
                f"The app {uri!r}: html must be a str, a path or a function, "
                f"not {type(html).__name__}"
            )
        resource = {k: options.pop(k) for k in ("name", "title", "description") if k in options}
        view = AppView(uri, html, ui_meta(uri, **options))
        read: Callable[[], Any]
        if inspect.iscoroutinefunction(html):

            async def read() -> _Page:
                return view.page(await html())

        else:

            def read() -> _Page:  # run on a worker thread, like any sync resource
                return view.page(view.load())

        if not resource.get("description") and callable(html):
            resource["description"] = inspect.getdoc(html)
        named = getattr(html, "__name__", None)
        resource.setdefault("name", named if named and named != "<lambda>" else uri)
        meta = {"ui": view.ui} if view.ui else None
        server.add_resource(read, uri, mime_type=MIME_TYPE, meta=meta, **resource)
        self.views[uri] = view
        return view

    def add_tool(self, name: str, uri: str, audiences: list[str] | None) -> None:
        self.tools[name] = uri
        if audiences == ["app"]:
            self.app_only.add(name)

    def forget_tool(self, name: str) -> None:
        self.tools.pop(name, None)
        self.app_only.discard(name)

    def check(self) -> None:
        """Every tool's view is registered (checked when the server starts serving, since the
        tool and its view may be registered in either order)."""
        for name, uri in self.tools.items():
            if uri not in self.views:
                known = ", ".join(sorted(self.views)) or "none"
                raise RegistrationError(
                    f"The tool {name!r} shows the app {uri!r}, but no app is registered at "
                    f"that URI (registered: {known}); add it with mcp.app({uri!r}, html)"
                )


def check_uri(uri: Any, what: str) -> str:
    if not isinstance(uri, str) or not uri.startswith("ui://") or len(uri) <= len("ui://"):
        raise RegistrationError(f"{what} must be a ui:// URI, got {uri!r}")
    return uri


def ui_meta(
    uri: str,
    *,
    connect_domains: Iterable[str] = (),
    resource_domains: Iterable[str] = (),
    frame_domains: Iterable[str] = (),
    base_uri_domains: Iterable[str] = (),
    permissions: Iterable[str] = (),
    prefers_border: bool | None = None,
    domain: str | None = None,
) -> JSON:
    """A view's ``_meta.ui``, checked: the CSP lists, permissions, border and origin."""
    lists = {
        "connect_domains": connect_domains,
        "resource_domains": resource_domains,
        "frame_domains": frame_domains,
        "base_uri_domains": base_uri_domains,
    }
    csp: JSON = {}
    for option, sources in lists.items():
        if isinstance(sources, str):
            raise RegistrationError(f"The app {uri!r}: {option} is a list of origins, not a str")
        checked = [_source(uri, option, source) for source in sources]
        if checked:
            csp[_CSP_KEYS[option]] = checked
    if isinstance(permissions, str):
        permissions = [permissions]
    wanted = list(permissions)
    unknown = [p for p in wanted if p not in PERMISSIONS]
    if unknown:
        raise RegistrationError(
            f"The app {uri!r}: unknown permissions {unknown}; use {', '.join(PERMISSIONS)}"
        )
    ui: JSON = {}
    if csp:
        ui["csp"] = csp
    if wanted:
        ui["permissions"] = {p: {} for p in wanted}
    if prefers_border is not None:
        if not isinstance(prefers_border, bool):
            raise RegistrationError(f"The app {uri!r}: prefers_border must be True or False")
        ui["prefersBorder"] = prefers_border
    if domain is not None:
        if not isinstance(domain, str) or not domain or any(c.isspace() for c in domain):
            raise RegistrationError(f"The app {uri!r}: domain must be a host name")
        ui["domain"] = domain
    return ui


def _source(uri: str, option: str, source: Any) -> str:
    if not isinstance(source, str) or not CSP_SOURCE.fullmatch(source):
        raise RegistrationError(
            f"The app {uri!r}: {source!r} in {option} is not an origin such as "
            "'https://api.example.com' or 'https://*.example.com' (http, https, ws or wss; "
            "no spaces, quotes, ';' or ',')"
        )
    return source


def check_audiences(name: str, visible_to: str | Iterable[str]) -> list[str]:
    """``visible_to`` as a list: ``"model"``, ``"app"`` or both, once each."""
    audiences = [visible_to] if isinstance(visible_to, str) else list(visible_to)
    if (
        not audiences
        or len(set(audiences)) != len(audiences)
        or not set(audiences) <= set(AUDIENCES)
    ):
        raise RegistrationError(
            f"The tool {name!r}: visible_to must name 'model', 'app' or both, once each; "
            f"got {visible_to!r}"
        )
    return audiences


def tool_meta(name: str, uri: Any, audiences: list[str] | None, meta: JSON | None) -> JSON:
    """A tool's ``_meta`` with its view (``ui.resourceUri``, and the older flat key that
    hosts still read) and who may call it (``ui.visibility``, left out for the default)."""
    check_uri(uri, f"The tool {name!r}: app=")
    taken = [key for key in ("ui", LEGACY_KEY) if meta and key in meta]
    if taken:
        raise RegistrationError(
            f"The tool {name!r} sets _meta {taken[0]!r} itself: app= and visible_to= write it"
        )
    ui: JSON = {"resourceUri": uri}
    if audiences is not None and set(audiences) != set(AUDIENCES):
        ui["visibility"] = audiences
    return {**(meta or {}), "ui": ui, LEGACY_KEY: uri}
