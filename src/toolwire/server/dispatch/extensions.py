"""Protocol extensions (SEP-2133): an identifier, the settings a server advertises under it,
and the methods and notifications it adds, served from the same method table as the core's.

::

    notes = Extension("com.example/notes", {"maxLength": 200})

    @notes.method("notes/add", client_required=True)
    def add(params: dict, ctx: Context) -> dict:
        ...
        return {"count": 3}

    mcp = Server("demo", extensions=[notes])     # or mcp.add_extension(notes)

The server advertises ``capabilities.extensions["com.example/notes"]`` on the revisions the
extension is for (``initialize`` on legacy sessions, ``server/discover`` on 2026-07-28). A
method handler takes the request's ``params`` and the request's :class:`Context`, sync or
async, and returns the result object; a method answers ``-32601`` on a revision the
extension is not for, and ``-32021`` (``data.requiredCapabilities.extensions``) when
``client_required`` and the client did not declare the extension on that request (2026-07-28)
or in its ``initialize`` (legacy revisions).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from ... import jsonrpc
from ...errors import RegistrationError, RPCError
from ...protocol.revisions import REVISIONS
from ..context import Context
from ..inputs import MissingClientCapability
from ..request import JSON, Request
from ..session import ServerConnection

logger = logging.getLogger("toolwire")
_F = TypeVar("_F", bound=Callable[..., Any])
_running: set[asyncio.Future[Any]] = set()  # async notification handlers, held until done

# What the core protocol defines besides the method table's entries: never an extension's.
CORE_NAMES = frozenset(
    {
        "initialize",
        "notifications/initialized",
        "notifications/cancelled",
        "notifications/progress",
        "notifications/roots/list_changed",
    }
)

# `_meta` key grammar with a mandatory prefix (SEP-2133): dot-separated labels, then a name.
_LABEL = r"[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
_NAME = r"(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)"
IDENTIFIER = re.compile(rf"(?:{_LABEL})(?:\.{_LABEL})*/{_NAME}")


def check_identifier(identifier: str) -> str:
    """``identifier`` if it is a valid extension identifier (``com.example/name``)."""
    if not isinstance(identifier, str) or not IDENTIFIER.fullmatch(identifier):
        raise RegistrationError(
            f"{identifier!r} is not an extension identifier: write it as a reverse-DNS "
            "prefix and a name, e.g. 'com.example/notes'"
        )
    return identifier


@dataclass
class ExtensionMethod:
    handler: Callable[[JSON, Context], Any]
    client_required: bool


class Extension:
    """An extension: ``identifier`` (``com.example/name``), the ``settings`` advertised under
    it (``{}``: supported, nothing to say), and the protocol ``revisions`` it is for (all by
    default)."""

    def __init__(
        self,
        identifier: str,
        settings: JSON | None = None,
        *,
        revisions: Iterable[str] | None = None,
    ) -> None:
        self.identifier = check_identifier(identifier)
        self.settings: JSON = dict(settings or {})
        self.revisions = frozenset(REVISIONS if revisions is None else revisions)
        unknown = self.revisions - set(REVISIONS)
        if unknown:
            raise RegistrationError(f"Unknown protocol revisions: {sorted(unknown)}")
        self.methods: dict[str, ExtensionMethod] = {}
        self.notifications: dict[str, Callable[[JSON], Any]] = {}
        self.served = False  # its methods are in a server's table: none may be added now

    def __repr__(self) -> str:
        return f"Extension({self.identifier!r})"

    def method(self, name: str, *, client_required: bool = False) -> Callable[[_F], _F]:
        """Register ``handler(params, ctx)`` for the request method ``name``; with
        ``client_required`` the client must declare this extension to call it."""

        def register(handler: _F) -> _F:
            self._check_name(name)
            self.methods[name] = ExtensionMethod(handler, client_required)
            return handler

        return register

    def notification(self, name: str) -> Callable[[_F], _F]:
        """Register ``handler(params)`` for the notification ``name`` from the client."""

        def register(handler: _F) -> _F:
            self._check_name(name)
            self.notifications[name] = handler
            return handler

        return register

    def _check_name(self, name: str) -> None:
        if self.served:
            raise RegistrationError(
                f"{self!r} is already served: define its methods before adding it to a server"
            )
        if not isinstance(name, str) or not name or name.startswith("rpc."):
            raise RegistrationError(f"{name!r} is not a method name an extension may define")
        if name in self.methods or name in self.notifications:
            raise RegistrationError(f"{name!r} is already defined by {self!r}")

    def client_settings(self, ctx: Context) -> JSON | None:
        """What the calling client declared for this extension (``{}`` at least), or None
        when it did not declare it."""
        declared = ctx.client_capabilities.get("extensions")
        settings = declared.get(self.identifier) if isinstance(declared, dict) else None
        return settings if isinstance(settings, dict) else None

    def require_client(self, ctx: Context, message: str | None = None) -> JSON:
        """The client's settings for this extension; raises the ``-32021`` error when the
        client did not declare it."""
        settings = self.client_settings(ctx)
        if settings is None:
            raise MissingClientCapability.extension(
                self.identifier,
                message or f"This request needs the client extension {self.identifier!r}",
            )
        return settings


def install(server: Any, extension: Extension) -> None:
    """Add ``extension`` to ``server`` (a :class:`~toolwire.server.core.ServerCore`): its
    methods to the method table, its notifications beside them. An object with an
    ``install_on(server)`` method (an extension toolwire serves itself, such as FastMCP's
    ``TasksExtension``) installs itself instead."""
    install_on = getattr(extension, "install_on", None)
    if install_on is not None and not isinstance(extension, Extension):
        install_on(server)
        return
    if not isinstance(extension, Extension):
        raise TypeError(
            "Server(extensions=[...]) takes toolwire.Extension objects, not "
            f"{type(extension).__name__}: Extension('com.example/name', settings) with "
            "@ext.method(name) handlers (docs/extensions.md)"
        )
    if extension.identifier in server.extensions:
        raise RegistrationError(f"The extension {extension.identifier!r} is already served")
    taken = [
        name
        for name in (*extension.methods, *extension.notifications)
        if name in server.methods or name in CORE_NAMES or name in server.extension_notifications
    ]
    if taken:
        raise RegistrationError(
            f"{extension!r} defines {', '.join(map(repr, taken))}, already defined here"
        )
    server.extensions[extension.identifier] = extension
    extension.served = True
    added = {name: method_handler(extension, name) for name in extension.methods}
    server.methods = {**server.methods, **added}
    for name, handler in extension.notifications.items():
        server.extension_notifications[name] = (extension, handler)


def method_handler(extension: Extension, name: str) -> Callable[[ServerConnection, Request], Any]:
    """The method table's entry for ``extension``'s method ``name``."""
    registered = extension.methods[name]

    def handle(connection: ServerConnection, request: Request) -> Any:
        if request.features.revision not in extension.revisions:
            raise RPCError(jsonrpc.METHOD_NOT_FOUND, f"Method not found: {name}")
        ctx = Context(connection, request)
        if registered.client_required:
            extension.require_client(ctx)
        outcome = registered.handler(request.params, ctx)
        if inspect.isawaitable(outcome):
            return _checked_later(name, outcome)
        return _checked(name, outcome)

    return handle


async def _checked_later(name: str, outcome: Any) -> JSON:
    return _checked(name, await outcome)


def _checked(name: str, result: Any) -> JSON:
    if not isinstance(result, dict):
        raise TypeError(f"The handler of {name} returned {type(result).__name__}, not a dict")
    return dict(result)  # shaped for the revision: the handler's own object stays as it is


def notified(
    connection: ServerConnection, extension: Extension, handler: Callable[[JSON], Any], params: JSON
) -> None:
    """Run an extension's notification handler; what it raises is logged, never answered."""
    revision = connection.features.revision if connection.features is not None else None
    if revision is not None and revision not in extension.revisions:
        return
    try:
        outcome = handler(params)
    except Exception:
        logger.exception("The %s notification handler of %r failed", extension.identifier, handler)
        return
    if inspect.isawaitable(outcome):
        task = asyncio.ensure_future(outcome)
        _running.add(task)
        task.add_done_callback(_finished)


def _finished(task: asyncio.Future[Any]) -> None:
    _running.discard(task)
    if not task.cancelled() and task.exception() is not None:
        logger.error("An extension's notification handler failed", exc_info=task.exception())
