"""Resources, prompts and completion on the low-level server: the handlers of the official
SDK's low-level ``Server`` (``@server.list_resources()``, ``@server.read_resource()``,
``@server.list_prompts()``, ``@server.get_prompt()``, ``@server.completion()``, ...).

The protocol methods (:mod:`.resource_methods`, :mod:`.prompt_methods`) are the decorator
server's: they check each request and call the same small interface (``resources_page``,
``read_for``, ``prompts_page``, ``render_prompt``, ``complete_argument``), which
:class:`PrimitiveHandlers` answers from the handlers; shaping per revision is
:mod:`toolwire.protocol.shaping`'s, as for decorated resources and prompts.

A capability is declared exactly when its handlers are registered: a low-level server with
only tool handlers offers no resources, prompts or completions (their methods are -32601).

Handlers are called on the event loop (sync or async, like ``call_tool``) and return
everything at once: these lists are not paginated. A handler that raises gives -32603 with
the text a tool's ``isError`` result would carry (its own message for ``ToolError`` and the
expected exceptions its own code raises, else a masked one with a reference); a
``read_resource`` handler raising :class:`~toolwire.ResourceNotFound` (or a ``LookupError``
of its own) gives the revision's not-found error.
"""

from __future__ import annotations

import inspect
import logging
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from ... import jsonrpc
from ...completion import completion_result
from ...content import _Media
from ...errors import RPCError, ToolError
from ...functions.inspection import EXPECTED_ERRORS, error_message, own_code, raised_by
from ...prompts import to_messages
from ...protocol import shaping
from ...protocol.revisions import Features
from ...resources import ResourceNotFound
from ...resources.contents import to_contents
from ..components.prompts import unknown_prompt
from ..core import JSON, ServerCore
from ..dispatch.methods import METHODS
from ..dispatch.resource_methods import not_found
from ..request import Request
from ..session import ServerConnection

F = TypeVar("F", bound=Callable[..., Any])

logger = logging.getLogger("toolwire")

UPDATED = "notifications/resources/updated"


class FieldDict(dict[str, Any]):
    """A dict whose keys also read as attributes: ``ref.name`` and ``ref["name"]``, so
    completion handlers written for the official SDK's models keep working."""

    def __getattr__(self, key: str) -> Any:
        try:
            return self[key]
        except KeyError:
            raise AttributeError(key) from None


async def maybe_await(value: Any) -> Any:
    """What a sync or async handler gave: awaited if it is awaitable."""
    return await value if inspect.isawaitable(value) else value


def _wire(value: Any) -> Any:
    """A protocol object as its wire dict (toolwire ``types``, the official SDK's pydantic
    models, dicts); anything else as it is."""
    if isinstance(value, Mapping):
        return dict(value)
    if hasattr(value, "to_wire"):
        return value.to_wire()
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", by_alias=True, exclude_none=True)
    return value


def _items(value: Any, field: str) -> list[Any]:
    """The items a list handler returned: a sequence, or a result object holding ``field``."""
    wire = _wire(value) if not isinstance(value, (list, tuple)) else value
    if isinstance(wire, dict):
        wire = wire.get(field)
    if not isinstance(wire, (list, tuple)):
        raise TypeError(f"expected a list of {field}, got {type(value).__name__}")
    return list(wire)


def _definitions(value: Any, field: str, keys: tuple[str, str]) -> list[JSON]:
    definitions = [_wire(item) for item in _items(value, field)]
    for item in definitions:
        if not (isinstance(item, dict) and all(isinstance(item.get(k), str) for k in keys)):
            raise TypeError(f"each of {field} needs {keys[0]!r} and {keys[1]!r} strings")
    return definitions


def _one_content(item: Any, uri: str) -> JSON | None:
    """One ``resources/read`` content, or None if ``item`` is not one."""
    if isinstance(item, (str, bytes, bytearray, _Media)):
        return to_contents(item, uri)[0]
    if hasattr(item, "content") and hasattr(item, "mime_type"):  # the SDK's ReadResourceContents
        content = to_contents(item.content, uri, item.mime_type)[0]
        meta = getattr(item, "meta", None)
        if meta:
            content["_meta"] = meta
        return content
    wire = _wire(item)
    if isinstance(wire, dict) and ("text" in wire or "blob" in wire):
        wire.setdefault("uri", uri)
        return wire
    return None


def read_contents(value: Any, uri: str) -> list[JSON]:
    """The contents for what a ``read_resource`` handler returned: ``str``, ``bytes``,
    ``File``, a contents object or dict, a list of these, a ``ReadResourceResult``-like value
    (with ``contents``), or other data (sent as JSON text)."""
    wire = _wire(value) if not isinstance(value, (str, bytes, bytearray, list, tuple)) else None
    if isinstance(wire, dict) and isinstance(wire.get("contents"), list):
        value = wire["contents"]
    if isinstance(value, (list, tuple)):
        contents = [_one_content(item, uri) for item in value]
        found = [content for content in contents if content is not None]
        return found if len(found) == len(contents) else to_contents(value, uri)
    content = _one_content(value, uri)
    return [content] if content is not None else to_contents(value, uri)


def prompt_messages(value: Any) -> JSON:
    """The ``GetPromptResult`` (newest shape) for what a ``get_prompt`` handler returned: a
    result-like value with ``messages`` (and ``description``), or a list of messages."""
    result: JSON = {}
    wire = _wire(value) if not isinstance(value, (str, list, tuple)) else None
    if isinstance(wire, dict) and isinstance(wire.get("messages"), list):
        result = {k: wire[k] for k in ("description", "_meta") if wire.get(k) is not None}
        value = wire["messages"]
    items = value if isinstance(value, (list, tuple)) else [value]
    messages = [item if isinstance(item, str) else _wire(item) for item in items]
    return {"messages": to_messages(messages), **result}


def handler_failure(
    exc: BaseException,
    handler: Any,
    what: str,
    mask_errors: bool,
    data: JSON | None = None,
    lookup: Callable[[str], RPCError] | None = None,
) -> RPCError:
    """-32603 for a handler that raised, by the rules of tool errors (DESIGN "Errors");
    ``lookup`` makes the not-found error for ``ResourceNotFound`` and for a ``LookupError``
    of the handler's own code (``KeyError`` on a dict of prompts, say)."""
    if isinstance(exc, RPCError):
        return exc
    handler = getattr(handler, "__wrapped__", handler)  # a 2.x handler in a 1.x slot
    source = getattr(getattr(handler, "__code__", None), "co_filename", None)
    if isinstance(exc, ResourceNotFound) and lookup is not None:
        return lookup(error_message(exc))
    if lookup is not None and isinstance(exc, LookupError) and own_code(exc, source):
        # A subscript that failed in the handler's own code is a lookup too, but its
        # message is Python's (the key): only a raised one is shown.
        return lookup(error_message(exc) if raised_by(exc, source) else f"{what} not found")
    if isinstance(exc, ToolError) or (isinstance(exc, EXPECTED_ERRORS) and raised_by(exc, source)):
        return RPCError(jsonrpc.INTERNAL_ERROR, error_message(exc), data)
    reference = os.urandom(4).hex()
    logger.error("%s failed (reference %s)", what, reference, exc_info=exc)
    if not mask_errors:
        text = f"{type(exc).__name__}: {exc} (reference {reference})"
    else:
        text = f"{what} failed with an internal error (reference {reference})"
    return RPCError(jsonrpc.INTERNAL_ERROR, text, data)


def _no_cursor(cursor: str | None) -> None:
    if cursor:  # these lists are never split, so no cursor was ever handed out
        raise RPCError(jsonrpc.INVALID_PARAMS, "Invalid cursor")


def _no_handler(request: Request) -> RPCError:
    """A method of a declared capability with no handler registered: -32601, as the
    official SDK's low-level server answers it (the server does not implement it)."""
    return RPCError(jsonrpc.METHOD_NOT_FOUND, f"Method not found: {request.method}")


class PrimitiveHandlers(ServerCore):
    """The resource, prompt and completion handlers of :class:`toolwire.lowlevel.Server`."""

    def __init__(self, *args: Any, **options: Any) -> None:
        super().__init__(*args, **options)
        self._handlers: dict[str, Callable[..., Any]] = {}
        self.methods = {**self.methods, "logging/setLevel": self.set_level_for}

    def _register(self, kind: str) -> Callable[[F], F]:
        def register(fn: F) -> F:
            self._handlers[kind] = fn
            return fn

        return register

    # ------------------------------------------------------------ decorators

    def list_resources(self) -> Callable[[F], F]:
        """Decorate ``handler()`` returning every resource (``Resource``-like objects or dicts
        with ``uri`` and ``name``); no pagination: the list is sent whole."""
        return self._register("list_resources")

    def list_resource_templates(self) -> Callable[[F], F]:
        """Decorate ``handler()`` returning every resource template (``uriTemplate``, ``name``)."""
        return self._register("list_resource_templates")

    def read_resource(self) -> Callable[[F], F]:
        """Decorate ``handler(uri)`` (``uri`` a ``str``) returning ``str``, ``bytes``, a list
        of contents or a ``ReadResourceResult``-like value; it raises ``ResourceNotFound`` for
        a URI it does not serve."""
        return self._register("read_resource")

    def subscribe_resource(self) -> Callable[[F], F]:
        """Decorate ``handler(uri)`` called on ``resources/subscribe`` (legacy revisions);
        then :meth:`resource_updated` reaches the subscribed sessions."""
        return self._register("subscribe_resource")

    def unsubscribe_resource(self) -> Callable[[F], F]:
        """Decorate ``handler(uri)`` called on ``resources/unsubscribe`` (legacy revisions)."""
        return self._register("unsubscribe_resource")

    def list_prompts(self) -> Callable[[F], F]:
        """Decorate ``handler()`` returning every prompt (``Prompt``-like objects or dicts);
        no pagination: the list is sent whole."""
        return self._register("list_prompts")

    def get_prompt(self) -> Callable[[F], F]:
        """Decorate ``handler(name, arguments)`` (``arguments`` a dict of strings, or None when
        the client sent none) returning a ``GetPromptResult``-like value or a list of messages."""
        return self._register("get_prompt")

    def set_logging_level(self) -> Callable[[F], F]:
        """Decorate ``handler(level)`` called on ``logging/setLevel`` (legacy revisions) with
        the level the client chose (``"debug"`` ... ``"emergency"``), once toolwire has
        checked it and keeps to it for that client's log messages."""
        return self._register("set_logging_level")

    def completion(self) -> Callable[[F], F]:
        """Decorate ``handler(ref, argument, context)`` for ``completion/complete``: ``ref``
        (``type`` and ``name`` or ``uri``), ``argument`` (``name``, ``value``) and ``context``
        (``arguments``, or None) read as dicts or attributes. It returns a list of values, a
        ``Completion``-like value or dict (``values``, ``total``, ``hasMore``), or None."""
        return self._register("completion")

    # ------------------------------------------------------------ what is offered

    @property
    def offers_resources(self) -> bool:
        return any(
            kind in self._handlers
            for kind in ("list_resources", "list_resource_templates", "read_resource")
        )

    @property
    def offers_prompts(self) -> bool:
        return "list_prompts" in self._handlers or "get_prompt" in self._handlers

    def offers_completions(self) -> bool:
        return "completion" in self._handlers

    def capabilities(self, features: Features) -> JSON:
        capabilities = super().capabilities(features)
        if self.offers_resources:
            resources: JSON = {"listChanged": True}
            if "subscribe_resource" in self._handlers and not features.modern:
                resources["subscribe"] = True
            capabilities["resources"] = resources
        if self.offers_prompts:
            capabilities["prompts"] = {"listChanged": True}
        if features.revision >= "2025-03-26" and self.offers_completions():
            capabilities["completions"] = {}  # ServerCapabilities.completions since 2025-03-26
        return capabilities

    def accepted_notifications(self, wanted: JSON, request: Request | None = None) -> JSON:
        accepted = super().accepted_notifications(wanted, request)
        if self.offers_resources and wanted.get("resourcesListChanged") is True:
            accepted["resourcesListChanged"] = True
        if self.offers_prompts and wanted.get("promptsListChanged") is True:
            accepted["promptsListChanged"] = True
        return accepted

    # ------------------------------------------------------------ notifications

    def resources_changed(self) -> None:
        """Tell connected clients the resource list changed."""
        self.list_changed("resources")

    def prompts_changed(self) -> None:
        """Tell connected clients the prompt list changed."""
        self.list_changed("prompts")

    def resource_updated(self, uri: str) -> None:
        """Send ``notifications/resources/updated`` to the sessions subscribed to ``uri``
        (call it from the event loop)."""
        self.announce_resource_updated(uri)
        self.tell_other_workers({"updated": uri})

    def announce_resource_updated(self, uri: str) -> None:
        for connection in list(self._connections):
            if connection.features is not None and uri in connection.subscriptions:
                connection.notify(UPDATED, {"uri": uri})

    # ------------------------------------------------------------ protocol side

    async def _call(
        self,
        kind: str,
        what: str,
        *args: Any,
        data: JSON | None = None,
        lookup: Callable[[str], RPCError] | None = None,
    ) -> Any:
        handler = self._handlers[kind]
        try:
            return await maybe_await(handler(*args))
        except Exception as exc:
            raise handler_failure(exc, handler, what, self.mask_errors, data, lookup) from None

    def resources_page(self, request: Request, cursor: str | None, templates: bool) -> Any:
        _no_cursor(cursor)
        return self._resource_list(request, templates)

    async def _resource_list(self, request: Request, templates: bool) -> JSON:
        kind, field, key = (
            ("list_resource_templates", "resourceTemplates", "uriTemplate")
            if templates
            else ("list_resources", "resources", "uri")
        )
        if kind not in self._handlers:
            raise _no_handler(request)
        value = await self._call(kind, f"Listing {field}")
        try:
            definitions = _definitions(value, field, (key, "name"))
        except TypeError as exc:
            raise handler_failure(exc, None, f"Listing {field}", self.mask_errors) from None
        features = request.features
        result: JSON = {field: [shaping.resource(d, features) for d in definitions]}
        return shaping.cacheable(result, features, self.list_ttl_ms, "public")

    async def read_for(self, connection: ServerConnection, request: Request, uri: str) -> JSON:
        if "read_resource" not in self._handlers:
            raise not_found(uri, request.features)
        what = f"Reading {uri!r}"
        value = await self._call(
            "read_resource",
            what,
            uri,
            data={"uri": uri},
            lookup=lambda message: not_found(uri, request.features, message),
        )
        try:
            contents = read_contents(value, uri)
        except Exception as exc:
            raise handler_failure(exc, None, what, self.mask_errors, {"uri": uri}) from None
        result: JSON = {"contents": shaping.resource_contents(contents, request.features)}
        return shaping.cacheable(result, request.features, 0, "private")

    def subscribe_uri(
        self, connection: ServerConnection, request: Request, uri: str, subscribe: bool
    ) -> Any:
        """``resources/subscribe`` (-32601 without a handler) and ``resources/unsubscribe``:
        the handler's say, then the session hears of updates to ``uri``, or no more."""
        if subscribe and "subscribe_resource" not in self._handlers:
            raise _no_handler(request)
        return self._subscription(connection, uri, subscribe)

    async def _subscription(self, connection: ServerConnection, uri: str, subscribe: bool) -> JSON:
        kind = "subscribe_resource" if subscribe else "unsubscribe_resource"
        what = f"Subscribing to {uri!r}" if subscribe else f"Unsubscribing from {uri!r}"
        if kind in self._handlers:
            await self._call(kind, what, uri, data={"uri": uri})
        if subscribe:
            connection.subscriptions.add(uri)
        else:
            connection.subscriptions.discard(uri)
        return {}

    def set_level_for(self, connection: ServerConnection, request: Request) -> Any:
        """``logging/setLevel``: the session keeps the level (toolwire's own answer, which
        checks it), then the ``set_logging_level`` handler hears of it."""
        result = METHODS["logging/setLevel"](connection, request)
        if "set_logging_level" not in self._handlers:
            return result
        return self._set_level(request.params["level"])

    async def _set_level(self, level: str) -> JSON:
        await self._call("set_logging_level", f"Setting the log level to {level!r}", level)
        return {}

    def prompts_page(self, request: Request, cursor: str | None) -> Any:
        _no_cursor(cursor)
        return self._prompt_list(request)

    async def _prompt_list(self, request: Request) -> JSON:
        if "list_prompts" not in self._handlers:
            raise _no_handler(request)
        value = await self._call("list_prompts", "Listing prompts")
        try:
            definitions = _definitions(value, "prompts", ("name", "name"))
        except TypeError as exc:
            raise handler_failure(exc, None, "Listing prompts", self.mask_errors) from None
        features = request.features
        result: JSON = {"prompts": [shaping.prompt(d, features) for d in definitions]}
        return shaping.cacheable(result, features, self.list_ttl_ms, "public")

    def render_prompt(
        self, connection: ServerConnection, request: Request, name: str, arguments: JSON
    ) -> Any:
        if "get_prompt" not in self._handlers:
            raise unknown_prompt(name, [])
        return self._render(request, name, request.params.get("arguments"))

    async def _render(self, request: Request, name: str, arguments: JSON | None) -> JSON:
        what = f"Prompt {name!r}"
        value = await self._call(
            "get_prompt",
            what,
            name,
            arguments,
            lookup=lambda message: RPCError(jsonrpc.INVALID_PARAMS, message),
        )
        try:
            result = prompt_messages(value)
        except (TypeError, ValueError) as exc:
            raise handler_failure(exc, None, what, self.mask_errors) from None
        return shaping.prompt_result(result, request.features)

    def complete_argument(
        self, request: Request, ref: JSON, name: str, value: str, context: dict[str, str]
    ) -> Any:
        key = {"ref/prompt": "name", "ref/resource": "uri"}.get(str(ref.get("type")))
        if key is None:
            raise RPCError(
                jsonrpc.INVALID_PARAMS,
                'Invalid params: "ref.type" must be "ref/prompt" or "ref/resource"',
            )
        if not isinstance(ref.get(key), str):
            raise RPCError(jsonrpc.INVALID_PARAMS, f'Invalid params: "ref.{key}" must be a string')
        given = request.params.get("context")
        arguments = (
            FieldDict(ref),
            FieldDict(name=name, value=value),
            FieldDict(arguments=context) if isinstance(given, dict) else None,
        )
        return self._complete(arguments, f"Completion of argument {name!r}")

    async def _complete(self, arguments: Sequence[Any], what: str) -> JSON:
        found = await self._call("completion", what, *arguments)
        if not isinstance(found, (list, tuple, str)) and found is not None:
            wire = _wire(found)
            found = wire.get("completion", wire) if isinstance(wire, dict) else found
        return {"completion": completion_result(found)}
