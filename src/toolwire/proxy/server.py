"""The proxy server: a toolwire server whose tools, resources, resource templates, prompts
and completions are another MCP server's (see :func:`toolwire.proxy.proxy`).

Downstream sessions share one upstream connection, except a legacy session the upstream
may ask something (its client declared sampling, elicitation or roots): that one gets its
own, opened at its first request that can lead to a question and closed with it, up to
``max_upstreams`` at once. ``shared=True`` shares one for everything, ``shared=False`` gives
every legacy session its own. Listings come from the upstream, all its pages,
cached per upstream connection until it announces a change, which is passed on downstream.
Results are the upstream's, shaped for the downstream's revision; upstream JSON-RPC errors
keep their code and message.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import Callable
from typing import Any, ClassVar

from .. import jsonrpc
from ..errors import ClientError, RPCError
from ..protocol import shaping
from ..protocol.header_params import header_params
from ..protocol.let_go import declared
from ..protocol.revisions import META_CLIENT_CAPABILITIES, META_LOG_LEVEL, Features
from ..server.core import LIST_CHANGES, ServerCore, unknown_tool
from ..server.dispatch.methods import METHODS
from ..server.inputs import InputRequired, InvalidAnswer, MissingClientCapability
from ..server.session import Request, ServerConnection
from .fast import ProxyConnection
from .upstream import JSON, Call, Upstream, current_call, upstream_error

logger = logging.getLogger("toolwire.proxy")

_tokens = itertools.count(1)

RESUMABLE = "2025-11-25"  # the first revision whose HTTP streams a client resumes

LISTS = {  # downstream method: (cache key, upstream method, result key, name key, shape)
    "tools/list": ("tools", "tools/list", "tools", "name", shaping.tool),
    "resources/list": ("resources", "resources/list", "resources", "uri", shaping.resource),
    "resources/templates/list": (
        "templates",
        "resources/templates/list",
        "resourceTemplates",
        "uriTemplate",
        shaping.resource,
    ),
    "prompts/list": ("prompts", "prompts/list", "prompts", "name", shaping.prompt),
}
# What a downstream client declares when the upstream may ask it something of its own.
ASKABLE = ("sampling", "elicitation", "roots")
MAX_UPSTREAMS = 32  # sessions with an upstream connection of their own, at once

# The upstream capability each cached list needs (a list it does not offer is empty here).
CAPABILITY = {
    "tools": "tools",
    "resources": "resources",
    "templates": "resources",
    "prompts": "prompts",
}


def _forwarded(params: JSON, keep_rounds: bool = False) -> JSON:
    """A request's params as sent upstream: without the downstream's protocol ``_meta``
    (the upstream client adds its own) and, unless ``keep_rounds``, 2026-07-28 input rounds."""
    dropped = ("_meta",) if keep_rounds else ("_meta", "inputResponses", "requestState")
    kept = {k: v for k, v in params.items() if k not in dropped}
    meta = {
        k: v
        for k, v in (params.get("_meta") or {}).items()
        if not k.startswith("io.modelcontextprotocol/") and k != "progressToken"
    }
    if meta:
        kept["_meta"] = meta
    return kept


def _plain(result: JSON, keep_type: bool = False) -> JSON:
    """An upstream result without what its own revision added (2026-07-28 markers); with
    ``keep_type``, a result passed on as it is (an input_required round, a task, an
    extension's result) keeps them all but the upstream's ``serverInfo``."""
    dropped = () if keep_type else ("resultType", "ttlMs", "cacheScope")
    plain = {k: v for k, v in result.items() if k not in dropped}
    meta = plain.pop("_meta", None)
    if isinstance(meta, dict):
        meta = {k: v for k, v in meta.items() if not k.startswith("io.modelcontextprotocol/")}
        if meta:
            plain["_meta"] = meta
    return plain


class Methods(dict[str, Any]):
    """The proxy's method table: a method it does not know (an extension's, say) goes
    upstream as it is, and the upstream answers it, or says it does not know it either."""

    def __init__(self, table: dict[str, Any], forward: Any) -> None:
        super().__init__(table)
        self.forward = forward

    def get(self, key: str, default: Any = None) -> Any:
        found = super().get(key)
        return found if found is not None else self.forward


class ProxyServer(ServerCore):
    """A server serving what an upstream MCP server offers."""

    #: What a server mounting this proxy needs of it (:mod:`toolwire.proxy.mounted`, set
    #: by the package): :mod:`toolwire.composition.mount` asks the mounted server for it.
    mounting: ClassVar[Any] = None

    def __init__(
        self,
        make_client: Callable[..., Any],
        name: str,
        *,
        shared: bool | None = None,
        max_upstreams: int = MAX_UPSTREAMS,
        **options: Any,
    ) -> None:
        super().__init__(name, **options)
        #: None: sessions share one upstream connection unless the upstream may ask them
        #: something; True: all share it; False: every legacy session has its own.
        self.shared = shared
        self.max_upstreams = max_upstreams
        self._make_client = make_client
        self._shared: Upstream | None = None
        self._upstreams: set[Upstream] = set()  # sessions' own, closed when serving ends
        self.closing: set[asyncio.Task[None]] = set()  # sessions' upstreams being closed
        #: Upstream connections opened (each one handshake), for tests and monitoring.
        self.upstream_handshakes = 0
        handlers = {method: self._list for method in LISTS}
        handlers.update(
            {
                "resources/read": self._forward,
                "prompts/get": self._forward,
                "completion/complete": self._forward,
                "resources/subscribe": self._subscribe,
                "resources/unsubscribe": self._subscribe,
                "server/discover": self._discover,
            }
        )
        # tools/call goes through invoke_tool (and any call guard); the rest is forwarded.
        self.methods = Methods({**self.methods, **handlers}, self._pass)

    # ------------------------------------------------------------ what is offered

    def capabilities(self, features: Features) -> JSON:
        capabilities = super().capabilities(features)
        resources: JSON = {"listChanged": True}
        if not features.modern:
            resources["subscribe"] = True
        capabilities["resources"] = resources
        capabilities["prompts"] = {"listChanged": True}
        if features.revision >= "2025-03-26":
            capabilities["completions"] = {}
        upstream = self.upstream_capabilities() if features.modern else None
        if upstream and isinstance(upstream.get("extensions"), dict):
            capabilities["extensions"] = {
                **upstream["extensions"],
                **capabilities.get("extensions", {}),
            }
        return capabilities

    def upstream_capabilities(self) -> JSON | None:
        """What the shared upstream connection offers, once it is open, if it speaks
        2026-07-28 (whose capabilities hold per request, as the proxy's do)."""
        shared = self._shared
        client = shared._client if shared is not None else None
        if client is None or not client.modern:
            return None
        return client.server_capabilities

    def _discover(self, connection: ServerConnection, request: Request) -> Any:
        return self._discovered(connection, request)

    async def _discovered(self, connection: ServerConnection, request: Request) -> JSON:
        """``server/discover``: the upstream is asked first, so that the extensions it
        offers are offered here too."""

        with contextlib.suppress(RPCError):  # an unreachable upstream: its calls will say so
            await self.upstream_for(connection).client()
        return METHODS["server/discover"](connection, request)  # type: ignore[no-any-return]

    def accepted_notifications(self, wanted: JSON, request: Request | None = None) -> JSON:
        accepted = super().accepted_notifications(wanted, request)
        for key in ("resourcesListChanged", "promptsListChanged"):
            if wanted.get(key) is True:
                accepted[key] = True
        return accepted

    # ------------------------------------------------------------ upstream connections

    def connect(self, send: Callable[[bytes], None]) -> ServerConnection:
        return ProxyConnection(self, send)

    def upstream_for(self, connection: ServerConnection, asking: bool = True) -> Upstream:
        """The upstream connection serving ``connection``: its own if it has one, or gets
        one now (``asking``: the request may lead the upstream to ask the client something),
        else the shared one."""
        upstream: Upstream | None = connection.upstream  # type: ignore[attr-defined]
        if upstream is not None:
            return upstream
        if (
            connection.features is not None
            and not connection.shares  # type: ignore[attr-defined]
            and self._needs_own(connection, asking)
        ):
            upstream = self._new_upstream(connection)
            self._upstreams.add(upstream)
            connection.upstream = upstream  # type: ignore[attr-defined]
            return upstream
        shared = self._shared
        return shared if shared is not None and not shared.closed else self.shared_upstream()

    def shared_upstream(self) -> Upstream:
        """The upstream connection sessions share (opened at its first request)."""
        if self._shared is None or self._shared.closed:
            self._shared = self._new_upstream(None)
        return self._shared

    def _needs_own(self, connection: ServerConnection, asking: bool) -> bool:
        """Whether a legacy session gets an upstream connection of its own now (a session
        that never will is marked ``shares``)."""
        if self.shared is None:  # only questions need one: the upstream's go by connection
            capabilities = connection.client_capabilities or {}
            if not any(capabilities.get(name) is not None for name in ASKABLE):
                connection.shares = True  # type: ignore[attr-defined]
                return False
            if not asking and self._shared is not None:
                return False  # (a listing opens one only in place of the shared one)
        elif self.shared:
            connection.shares = True  # type: ignore[attr-defined]
            return False
        if len(self._upstreams) >= self.max_upstreams:
            logger.warning(
                "%d upstream connections are open (max_upstreams): a session shares one",
                len(self._upstreams),
            )
            connection.shares = True  # type: ignore[attr-defined]
            return False
        return True

    def later(self, loop: asyncio.AbstractEventLoop, closing: Any) -> None:
        """Run ``closing`` (an upstream's close or unsubscribe) without waiting for it; a
        stop waits for it."""
        task = loop.create_task(closing)
        self.closing.add(task)
        task.add_done_callback(self.closing.discard)

    def roots_changed(self, connection: ServerConnection) -> None:
        super().roots_changed(connection)
        upstream: Upstream | None = connection.upstream  # type: ignore[attr-defined]
        if upstream is not None:  # (only a session's own upstream asks for its roots)
            self.later(asyncio.get_running_loop(), upstream.roots_changed())

    def _new_upstream(self, connection: ServerConnection | None) -> Upstream:
        def changed(kind: str) -> None:
            if connection is None:
                self.list_changed(kind)
            else:
                filter_key, method = LIST_CHANGES[kind]
                connection.notify(method)
                connection.tell_listeners(filter_key, method)

        def updated(uri: str) -> None:
            targets = [connection] if connection is not None else list(self._connections)
            for target in targets:
                if target.features is not None and uri in target.subscriptions:
                    target.notify("notifications/resources/updated", {"uri": uri})

        def connected() -> None:
            self.upstream_handshakes += 1

        roots = None
        if connection is not None and (connection.client_capabilities or {}).get("roots"):

            async def roots(params: JSON) -> Any:
                return await connection.request("roots/list", params)

        # The upstream relays its calls' let-go where a downstream stream may be let go: a
        # 2025-11-25 HTTP session's, or that of a client which relays it in turn (the
        # shared one always: each call's downstream decides whether it lets go).
        relay = connection is None or (
            connection.features is not None
            and (
                (connection.close_sse is not None and connection.features.revision >= RESUMABLE)
                or declared(connection.client_capabilities)
            )
        )
        return Upstream(
            self._make_client, changed, updated, connected, relay_let_go=relay, roots=roots
        )

    def forget(self, upstream: Upstream) -> None:
        self._upstreams.discard(upstream)

    async def stop(self) -> None:
        await super().stop()
        if self._users == 0:
            upstreams, self._upstreams = self._upstreams, set()
            if self._shared is not None:
                upstreams.add(self._shared)
                self._shared = None
            await asyncio.gather(*(upstream.close() for upstream in upstreams), *self.closing)

    def header_params(self, tool: str) -> dict[str, str]:
        """The ``Mcp-Param-*`` headers of ``tool`` (2026-07-28 HTTP), from the upstream's
        listing once it was fetched (modern requests use the shared upstream)."""
        shared = self._shared
        tools = shared.listings.get("tools") if shared is not None else None
        for definition in tools or ():
            if definition.get("name") == tool:
                mirrored, problem = header_params(definition.get("inputSchema"))
                return mirrored if problem is None else {}
        return {}

    # ------------------------------------------------------------ listings

    def _list(self, connection: ServerConnection, request: Request) -> Any:
        cursor = request.params.get("cursor")
        if cursor is not None and not isinstance(cursor, str):
            raise RPCError(jsonrpc.INVALID_PARAMS, "Invalid cursor")
        return self._page(connection, request, cursor)

    async def _page(
        self, connection: ServerConnection, request: Request, cursor: str | None
    ) -> JSON:
        kind, method, key, name, shape = LISTS[request.method]
        upstream = self.upstream_for(connection, asking=False)
        await upstream.client()
        items: list[JSON] = []
        if upstream.offers(CAPABILITY[kind]):
            items = await upstream.listing(kind, method, key)
        items = [item for item in items if isinstance(item.get(name), str)]
        start, end, after = self.page_bounds([item[name] for item in items], cursor)
        features = request.features
        result: JSON = {key: [shape(item, features) for item in items[start:end]]}
        if after is not None:
            result["nextCursor"] = after
        return shaping.cacheable(result, features, self.list_ttl_ms, "private")

    # ------------------------------------------------------------ calls

    def invoke_tool(
        self, connection: ServerConnection, request: Request, name: str, arguments: JSON
    ) -> Any:
        return self._invoke(connection, request, name, arguments)

    async def _invoke(
        self, connection: ServerConnection, request: Request, name: str, arguments: JSON
    ) -> JSON:
        params = request.params
        upstream = self.upstream_for(connection)
        direct = await self._direct(upstream, request)
        resumed = not direct and ("requestState" in params or "inputResponses" in params)
        answers = self.signer.answers(params, name, arguments, request.caller) if resumed else None
        context = connection.context_for(request, answers)
        try:
            result = await self._forward_call(upstream, context, request, direct)
        except InputRequired as needed:  # the downstream client answers, then calls again
            state = self.signer.seal(
                name, arguments, request.caller, needed.sealed_answers(), needed.questions
            )
            return {
                "resultType": "input_required",
                "inputRequests": needed.requests,
                "requestState": state,
            }
        except InvalidAnswer as exc:
            raise RPCError(jsonrpc.INVALID_PARAMS, f"Invalid inputResponses: {exc}") from None
        finally:
            context._finish()
        if result.get("resultType") not in (None, "complete"):  # input_required, a task ...
            return _plain(result, keep_type=True)
        return self.call_result(name, result, request.features)

    @staticmethod
    def call_result(name: str, result: JSON, features: Features) -> JSON:
        """An upstream's complete ``tools/call`` result, shaped for the downstream revision."""
        if not isinstance(result.get("content"), list):
            raise unknown_tool(name, [])
        shaped = shaping.call_result(result, features)  # (which keeps only what it knows)
        meta = shaped.get("_meta")
        if isinstance(meta, dict):  # without the upstream's protocol _meta
            meta = {k: v for k, v in meta.items() if not k.startswith("io.modelcontextprotocol/")}
            if meta:
                shaped["_meta"] = meta
            else:
                del shaped["_meta"]
        return shaped

    @staticmethod
    async def _direct(upstream: Upstream, request: Request) -> bool:
        """Whether the request goes upstream as it came: both sides speak 2026-07-28, so the
        upstream's input_required rounds pass through with their keys and requestState, and
        the downstream client's capabilities and log level are the upstream's to see."""
        if not request.features.modern:
            return False
        return (await upstream.client()).modern

    async def _forward_call(
        self, upstream: Upstream, context: Any, request: Request, direct: bool
    ) -> JSON:
        client = await upstream.client()
        params = _forwarded(request.params, keep_rounds=direct)
        call = Call(context._connection, context, asyncio.current_task())
        token: str | None = None
        if context.progress_token is not None:
            token = f"proxy-{next(_tokens)}"

            def progress(value: float, total: float | None, message: str | None) -> None:
                context.report_progress(value, total, message)

            client._progress[token] = progress
            params = {**params, "_meta": {**(params.get("_meta") or {}), "progressToken": token}}
        upstream.calls.append(call)
        marker = current_call.set(call)
        try:
            if not direct:  # (a legacy downstream's stream is let go when the upstream's is)
                let_go = None
                if not request.features.modern or declared(request.capabilities):
                    let_go = context.close_sse_connection
                return await client.request(request.method, params, on_let_go=let_go)
            wire = client._modern_params(params)
            meta = wire["_meta"]
            meta[META_CLIENT_CAPABILITIES] = request.capabilities or {}
            meta.pop(META_LOG_LEVEL, None)
            if request.log_level is not None:
                meta[META_LOG_LEVEL] = request.log_level
            if declared(request.capabilities):  # the upstream sees it: a relay in front
                on_let_go = context.close_sse_connection
                return await client._request(request.method, wire, on_let_go=on_let_go)
            return await client._request(request.method, wire)
        except asyncio.CancelledError:
            if call.needed is not None and not context.cancelled:
                raise call.needed from None
            raise
        except (ClientError, RPCError) as exc:
            if call.needed is not None:
                raise call.needed from None
            raise upstream_error(exc) from None
        finally:
            current_call.reset(marker)
            upstream.calls.remove(call)
            if token is not None:
                client._progress.pop(token, None)

    def _pass(self, connection: ServerConnection, request: Request) -> Any:
        """Any other request (an extension's): the upstream's result as it is."""
        return self._upstream_result(connection, request)

    async def _upstream_result(self, connection: ServerConnection, request: Request) -> JSON:
        upstream = self.upstream_for(connection)
        direct = await self._direct(upstream, request)
        context = connection.context_for(request)
        try:
            result = await self._forward_call(upstream, context, request, direct)
        except (InputRequired, MissingClientCapability) as exc:
            raise RPCError(
                jsonrpc.INTERNAL_ERROR, f"{request.method} needs input from the client: {exc}"
            ) from None
        finally:
            context._finish()
        return _plain(result, keep_type=True)

    def _forward(self, connection: ServerConnection, request: Request) -> Any:
        return self._forwarded(connection, request)

    async def _forwarded(self, connection: ServerConnection, request: Request) -> JSON:
        """``resources/read``, ``prompts/get``, ``completion/complete``: the upstream's result,
        shaped for the downstream's revision (an ``input_required`` round as it is)."""
        result = await self._upstream_result(connection, request)
        if result.get("resultType") == "input_required":
            return result
        result = _plain(result)
        features = request.features
        if request.method == "resources/read":
            contents = result.get("contents") or []
            result["contents"] = shaping.resource_contents(contents, features)
            return shaping.cacheable(result, features, 0, "private")
        if request.method == "prompts/get":
            return shaping.prompt_result(result, features)
        return result

    def _subscribe(self, connection: ServerConnection, request: Request) -> Any:
        uri = request.params.get("uri")
        if not isinstance(uri, str) or not uri:
            raise RPCError(
                jsonrpc.INVALID_PARAMS, f'Invalid params: {request.method} needs a "uri" string'
            )
        return self._subscription(connection, request, uri)

    async def _subscription(self, connection: ServerConnection, request: Request, uri: str) -> JSON:
        subscribe = request.method == "resources/subscribe"
        if subscribe:
            await self.upstream_for(connection, asking=False).subscribe(uri, connection)
        else:  # wherever it was made (the session may have got its own upstream since)
            for upstream in (connection.upstream, self._shared):  # type: ignore[attr-defined]
                if upstream is not None:
                    await upstream.unsubscribe(uri, connection)
        if subscribe:
            connection.subscriptions.add(uri)
        else:
            connection.subscriptions.discard(uri)
        return {}
