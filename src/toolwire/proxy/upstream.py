"""The proxy's connection to the server it fronts: a :class:`~toolwire.client.Client`
opened at the first request of a downstream session (or once, shared), its listings cached
until the upstream says they changed, and the downstream calls in flight on it, so that
the upstream's progress, log messages and questions reach the call they belong to.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
from collections.abc import Callable
from typing import Any

from .. import jsonrpc
from ..client import Client
from ..errors import ClientError, RPCError, ServerError
from ..server.inputs import InputRequired, MissingClientCapability

logger = logging.getLogger("toolwire.proxy")

JSON = dict[str, Any]

#: The downstream call whose upstream request runs in this task (2026-07-28 upstreams
#: ask their questions inside the request, in the caller's task).
current_call: contextvars.ContextVar[Call | None] = contextvars.ContextVar(
    "toolwire_proxy_call", default=None
)

CHANGES = {
    "notifications/tools/list_changed": "tools",
    "notifications/resources/list_changed": "resources",
    "notifications/prompts/list_changed": "prompts",
}


class Call:
    """One downstream request forwarded upstream: its session, its
    :class:`~toolwire.Context` (made when first needed, by ``make_context``), the task
    waiting for the upstream's answer, and the input a 2026-07-28 downstream must give
    before it can go on."""

    __slots__ = ("_context", "_make_context", "needed", "session", "task")

    def __init__(
        self,
        session: Any,
        context: Any = None,
        task: asyncio.Task[Any] | None = None,
        make_context: Callable[[], Any] | None = None,
    ) -> None:
        self.session = session
        self._context = context
        self._make_context = make_context
        self.task = task
        self.needed: BaseException | None = None

    @property
    def context(self) -> Any:
        context = self._context
        if context is None:
            context = self._context = self._make_context()  # type: ignore[misc]
        return context

    def finish(self) -> None:
        """The call ended: so does its context, if it was made."""
        if self._context is not None:
            self._context._finish()


class UpstreamClient(Client):
    """A :class:`Client` that tells its proxy about every notification it receives."""

    on_notification: Callable[[JSON], None] | None = None
    fast_deadlines: Any = None  # when its fast-path calls time out (proxy.fast.Deadlines)

    async def _notification(self, message: JSON) -> None:
        await super()._notification(message)
        if self.on_notification is not None:
            self.on_notification(message)


def upstream_error(exc: Exception) -> RPCError:
    """The JSON-RPC error a downstream caller gets for a failed upstream request: the
    upstream's own code and message, or -32603 saying the upstream is unreachable."""
    if isinstance(exc, ServerError):
        return RPCError(exc.code, exc.message, exc.data)
    if isinstance(exc, RPCError):
        return exc
    return RPCError(jsonrpc.INTERNAL_ERROR, f"The upstream server is unavailable: {exc}")


class Upstream:
    """One connection to the upstream server, opened on first use and reopened after the
    upstream went away."""

    def __init__(
        self,
        make_client: Callable[..., Client],
        changed: Callable[[str], None],
        updated: Callable[[str], None],
        connected: Callable[[], None] | None = None,
        *,
        relay_let_go: bool = False,
        roots: Callable[[JSON], Any] | None = None,
    ) -> None:
        self._make_client = make_client
        self._roots = roots  # asks the downstream session for its roots
        self._relay_let_go = relay_let_go
        self._changed = changed
        self._updated = updated
        self._connected = connected
        self._client: Client | None = None
        self._lock = asyncio.Lock()
        self.handshakes = 0
        self.calls: list[Call] = []
        self.listings: dict[str, list[JSON]] = {}
        self.subscribers: dict[str, set[Any]] = {}  # URI -> the downstream sessions
        self.closed = False

    async def client(self) -> Client:
        """The connected client (connecting now if needed)."""
        client = self._client
        if client is not None and client.ended is None:
            return client
        async with self._lock:
            if self._client is not None and self._client.ended is None:
                return self._client
            if self._client is not None:  # the upstream went away: start again
                old, self._client = self._client, None
                self.listings.clear()
                with contextlib.suppress(Exception):
                    await old.close()
            client = self._make_client(
                elicitation_handler=self._asker("elicitation/create"),
                sampling_handler=self._asker("sampling/createMessage"),
                log_handler=self._log,
                log_level="debug",
                relay_let_go=self._relay_let_go,
            )
            assert isinstance(client, UpstreamClient)
            client.on_notification = self._notified
            if self._roots is not None:  # the downstream session's roots, asked each time
                client.capabilities["roots"] = {"listChanged": True}
                client._answerers["roots/list"] = self._roots
            try:
                await client.connect()
            except Exception as exc:
                raise upstream_error(exc) from None
            self.handshakes += 1
            if self._connected is not None:
                self._connected()
            if client.modern:  # list changes come on a listen stream
                with contextlib.suppress(Exception):
                    await client.listen(resources_list_changed=True, prompts_list_changed=True)
            self._client = client
            return client

    async def request(self, method: str, params: JSON | None = None) -> JSON:
        client = await self.client()
        try:
            return await client.request(method, params)
        except (ClientError, RPCError) as exc:
            raise upstream_error(exc) from None

    async def listing(self, kind: str, method: str, key: str) -> list[JSON]:
        """Every item of an upstream list (all its pages), cached until it changes."""
        cached = self.listings.get(kind)
        if cached is not None:
            return cached
        client = await self.client()
        items: list[JSON] = []
        cursor: str | None = None
        try:
            while True:
                page = await client.request(method, {"cursor": cursor} if cursor else None)
                items.extend(item for item in page.get(key) or [] if isinstance(item, dict))
                cursor = page.get("nextCursor")
                if not isinstance(cursor, str):
                    break
        except (ClientError, RPCError) as exc:
            raise upstream_error(exc) from None
        self.listings[kind] = items
        return items

    async def subscribe(self, uri: str, session: Any) -> None:
        """Subscribe ``session`` to ``uri``: upstream for its first subscriber only."""
        holders = self.subscribers.setdefault(uri, set())
        first = not holders
        holders.add(session)
        if first:
            try:
                await (await self.client()).subscribe_resource(uri)
            except (ClientError, RPCError) as exc:
                await self.unsubscribe(uri, session, upstream=False)
                raise upstream_error(exc) from None

    async def unsubscribe(self, uri: str, session: Any, upstream: bool = True) -> None:
        """``session`` no longer follows ``uri``; nor does the upstream connection once no
        session does."""
        holders = self.subscribers.get(uri)
        if holders is None or session not in holders:
            return
        holders.discard(session)
        if not holders:
            del self.subscribers[uri]
            client = self._client
            if upstream and client is not None and client.ended is None:
                try:
                    await client.unsubscribe_resource(uri)
                except (ClientError, RPCError) as exc:
                    raise upstream_error(exc) from None

    async def roots_changed(self) -> None:
        """The downstream session's roots changed: so did this connection's."""
        client = self._client
        if client is not None and client.ended is None and not client.modern:
            with contextlib.suppress(ClientError, RPCError):
                await client._notify("notifications/roots/list_changed")

    def offers(self, capability: str) -> bool:
        client = self._client
        return client is not None and capability in client.server_capabilities

    # ------------------------------------------------------------ from the upstream

    def _notified(self, message: JSON) -> None:
        method = message.get("method")
        kind = CHANGES.get(method) if isinstance(method, str) else None
        if kind is not None:
            self.listings.pop(kind, None)
            if kind == "resources":
                self.listings.pop("templates", None)
            self._changed(kind)
        elif method == "notifications/resources/updated":
            uri = (message.get("params") or {}).get("uri")
            if isinstance(uri, str):
                self._updated(uri)

    def caller(self) -> Call | None:
        """The downstream call an upstream message belongs to: the one whose request is
        running in this task, else the latest call in flight, if every call in flight is
        one session's (otherwise none: a message is never guessed to another client)."""
        call = current_call.get()
        if call is not None:
            return call
        calls = self.calls
        if not calls:
            return None
        latest = calls[-1]
        if len(calls) > 1:
            session = latest.session
            if session.features is None or any(other.session is not session for other in calls):
                return None
        return latest

    def _log(self, params: JSON) -> None:
        call = self.caller()
        level = params.get("level")
        if call is None or not isinstance(level, str):
            return
        with contextlib.suppress(ValueError):
            call.context.log(level, params.get("data"), logger_name=params.get("logger"))

    def _asker(self, method: str) -> Callable[[JSON], Any]:
        kind, capability, since = (
            ("elicit", "elicitation", "2025-06-18")
            if method == "elicitation/create"
            else ("sample", "sampling", "2024-11-05")
        )

        async def ask(params: JSON) -> Any:
            call = self.caller()
            if call is None:
                raise RPCError(jsonrpc.METHOD_NOT_FOUND, f"No downstream call to ask {method}")
            context = call.context
            if not context._features.modern:
                declared = context.client_capabilities.get(capability)
                if declared is None or context.protocol_version < since:  # not in its revision
                    raise RPCError(
                        jsonrpc.METHOD_NOT_FOUND,
                        f"The downstream client does not support {capability}",
                    )
                return await context._connection.request(method, params, related=context.request_id)
            try:
                context._require(capability, "2024-11-05", f"The client has no {capability}")
                return await context._ask(kind, method, params, None)
            except (InputRequired, MissingClientCapability) as needed:
                # The downstream client answers in a new round: this upstream request
                # ends here and is made again with the answer once the client has it.
                call.needed = needed
                if call.task is not None and call.task is not asyncio.current_task():
                    call.task.cancel()
                raise RPCError(jsonrpc.INTERNAL_ERROR, "The question goes to the client") from None

        return ask

    async def close(self) -> None:
        self.closed = True
        client, self._client = self._client, None
        if client is not None:
            with contextlib.suppress(Exception):
                await client.close()


async def quietly(step: Any) -> None:
    """``step``, whose failure (an upstream gone, say) nobody is waiting to hear of."""
    with contextlib.suppress(RPCError):
        await step
