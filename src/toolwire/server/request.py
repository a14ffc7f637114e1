"""The bottom of ``toolwire.server``: what one request is, shared by every other module.

Nothing here imports another module of the package, so every module may import it: the
modules of ``server/`` depend one way (docs/architecture.md gives their order, and
tests/test_architecture.py checks it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from ..protocol.revisions import Features

JSON = dict[str, Any]

LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
LOG_RANK = {level: rank for rank, level in enumerate(LOG_LEVELS)}

# One session rule (see toolwire.server.components.registry): (enable, names, tags, kinds or None).
Rule = tuple[bool, frozenset[str], frozenset[str], frozenset[str] | None]


class Request:
    """What one request said about itself, in either era."""

    __slots__ = (
        "cancelled",
        "capabilities",
        "client_info",
        "features",
        "id",
        "identity",
        "log_level",
        "meta",
        "method",
        "params",
        "rules",
    )

    def __init__(
        self,
        mid: str | int,
        method: str,
        params: JSON,
        features: Features,
        meta: JSON | None,
        capabilities: JSON | None,
        client_info: JSON | None,
        log_level: str | None,
    ) -> None:
        self.id = mid
        self.method = method
        self.params = params
        self.features = features
        self.meta = meta
        self.capabilities = capabilities
        self.client_info = client_info
        self.log_level = log_level
        self.identity: Any = None  # who is calling, once authentication says so
        self.cancelled = False  # the client cancelled it: nothing more is sent for it
        # Its session's component rules (ctx.enable_components/disable_components), if any.
        self.rules: tuple[Rule, ...] | None = None

    def with_params(self, params: JSON) -> Request:
        """This request with other ``params`` (a call passed on under another name), from
        the same caller, with the same session rules."""
        other = Request(
            self.id,
            self.method,
            params,
            self.features,
            self.meta,
            self.capabilities,
            self.client_info,
            self.log_level,
        )
        other.identity, other.rules = self.identity, self.rules
        return other

    @property
    def caller(self) -> str | None:
        """Who a ``requestState`` is bound to (MP-06): the authenticated identity, if any."""
        return None if self.identity is None else str(self.identity)


class Connection(Protocol):
    """What a request's context uses of its connection
    (:class:`toolwire.server.session.ServerConnection`, which sits above the context)."""

    server: Any  # the ServerCore serving it
    features: Features | None  # legacy: negotiated at initialize
    offered: JSON | None  # what initialize offered this session
    rules: tuple[Rule, ...] | None  # its own component rules
    close_sse: Callable[[str | int, int | None], bool] | None

    def notify(
        self, method: str, params: JSON | None = None, related: str | int | None = None
    ) -> None: ...

    async def request(self, method: str, params: JSON, related: str | int | None = None) -> Any: ...


class Host(Protocol):
    """What a connection and the core methods (:mod:`toolwire.server.dispatch.methods`) use of the
    server (:class:`toolwire.server.core.ServerCore`, which sits above them both)."""

    methods: dict[str, Callable[[Any, Request], Any]]
    middleware: list[Any]
    instructions: str | None
    discover_ttl_ms: int
    max_batch_size: int | None
    extension_notifications: dict[str, Any]
    _connections: set[Any]

    def capabilities(self, features: Features) -> JSON: ...

    def info_for(self, features: Features) -> JSON: ...

    def through_middleware(self, connection: Any, request: Request, handler: Any) -> Any: ...

    def roots_changed(self, connection: Any) -> None: ...

    def extension_notified(self, connection: Any, method: str, params: JSON) -> None: ...

    def tools_page(self, request: Request, cursor: str | None) -> Any: ...

    def invoke_tool(self, connection: Any, request: Request, name: str, arguments: JSON) -> Any: ...

    def accepted_notifications(self, wanted: JSON, request: Request | None = None) -> JSON: ...

    def confirm_listened(self, wanted: JSON, accepted: JSON, request: Request) -> Any: ...
