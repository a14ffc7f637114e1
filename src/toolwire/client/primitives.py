"""Resources, prompts and completion on :class:`~toolwire.client.Client`.

::

    async with Client("python docs_server.py") as client:
        uris = [resource["uri"] for resource in await client.list_resources()]
        page = await client.read_resource("docs://guide.md")
        text = page.text                      # text contents joined; page.data: decoded blobs
        prompt = await client.get_prompt("summarize", {"uri": "docs://guide.md"})
        messages = prompt.messages
        found = await client.complete(prompt="summarize", argument="uri", value="docs://g")
        suggestions = found.values

Every call goes through :meth:`Client.request`, so the 2026-07-28 ``_meta`` and
input-required rounds apply as for tools. Listings follow ``nextCursor`` through all pages.

Change notifications: :meth:`~ClientPrimitives.subscribe_resource` takes a handler for its
URI's ``notifications/resources/updated``; :attr:`~ClientPrimitives.change_handler` (like
``log_handler``, sync or async) sees every ``notifications/resources/updated``,
``notifications/resources/list_changed`` and ``notifications/prompts/list_changed``.
On a legacy revision they arrive on the session; on 2026-07-28 only on a
``subscriptions/listen`` stream (:meth:`Client.listen` with ``resources_list_changed`` /
``prompts_list_changed``; ``subscribe_resource`` opens one per URI).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import inspect
import logging
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .. import jsonrpc
from ..errors import ClientError, ClientTimeout
from ..protocol.revisions import META_SUBSCRIPTION_ID
from .answers import objects, result_of

logger = logging.getLogger("toolwire.client")

JSON = dict[str, Any]
ChangeHandler = Callable[[JSON], Awaitable[None] | None]

#: The notifications :meth:`ClientPrimitives._primitive_notification` handles.
PRIMITIVE_NOTIFICATIONS = frozenset(
    {
        "notifications/resources/updated",
        "notifications/resources/list_changed",
        "notifications/prompts/list_changed",
    }
)
MAX_PAGES = 10_000


async def walk_pages(
    request: Callable[..., Awaitable[JSON]], method: str, key: str
) -> tuple[list[JSON], float | None]:
    """Every item of a paginated list (following ``nextCursor``), and the shortest ``ttlMs``
    of its pages (2026-07-28 caching), or None when no page gave one."""
    items: list[JSON] = []
    ttl: float | None = None
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        result = await request(method, {"cursor": cursor} if cursor is not None else None)
        items.extend(objects(method, key, result.get(key)))
        if isinstance(result.get("ttlMs"), (int, float)):
            ttl = float(result["ttlMs"]) if ttl is None else min(ttl, float(result["ttlMs"]))
        cursor = result.get("nextCursor")
        if cursor is None:
            return items, ttl
        if not isinstance(cursor, str):
            raise ClientError(f"{method} answered with a nextCursor that is not a string")
    raise ClientError(f"{method} did not end after {MAX_PAGES:,} pages")


@dataclass
class ResourceResult:
    """What ``resources/read`` returned: ``contents`` as the server sent them (dicts with
    ``uri``, ``mimeType`` and ``text`` or base64 ``blob``)."""

    contents: list[JSON]
    raw: JSON = field(default_factory=dict)

    @property
    def text(self) -> str:
        """The text contents joined with newlines (binary contents are left out)."""
        return "\n".join(
            item["text"] for item in self.contents if isinstance(item.get("text"), str)
        )

    @property
    def data(self) -> bytes:
        """The binary (``blob``) contents decoded from base64 and joined."""
        chunks = []
        for item in self.contents:
            blob = item.get("blob")
            if isinstance(blob, str):
                try:
                    chunks.append(base64.b64decode(blob, validate=True))
                except (binascii.Error, ValueError) as exc:
                    raise ClientError(
                        f"The server sent a blob for {item.get('uri')!r} that is not base64"
                    ) from exc
        return b"".join(chunks)

    @property
    def mime_type(self) -> str | None:
        """The MIME type of the first content, when the server gave one."""
        for item in self.contents:
            if isinstance(item.get("mimeType"), str):
                return str(item["mimeType"])
        return None


@dataclass
class PromptResult:
    """What ``prompts/get`` returned: ``messages`` (dicts with ``role`` and ``content``)
    ready for an LLM conversation, and the prompt's ``description``."""

    messages: list[JSON]
    description: str | None = None
    raw: JSON = field(default_factory=dict)

    @property
    def text(self) -> str:
        """The text of the messages' text contents, joined with newlines."""
        return "\n".join(
            str(content["text"])
            for message in self.messages
            if isinstance(content := message.get("content"), dict) and content.get("type") == "text"
        )


@dataclass
class Completion:
    """What ``completion/complete`` returned: suggested ``values`` (at most 100), and the
    ``total`` number of matches and whether there are more (``has_more``) when the server
    said so."""

    values: list[str]
    total: int | None = None
    has_more: bool = False
    raw: JSON = field(default_factory=dict)


class ClientPrimitives:
    """The resource, prompt and completion half of :class:`~toolwire.client.Client`.

    Reading resources and getting prompts are the application's and the user's choices, so
    none of them goes through an approval step (only tool calls do, in the host).
    """

    #: Called (sync or async) with every resources/updated and resources or prompts
    #: list_changed notification; set it on the client before the changes arrive.
    change_handler: ChangeHandler | None = None

    if TYPE_CHECKING:  # provided by Client
        protocol_version: str | None
        server_capabilities: JSON
        timeout: float | None
        notifications: list[JSON]
        _pending: dict[str | int, asyncio.Future[JSON]]
        _ids: Iterator[int]
        _acknowledgements: dict[str | int, asyncio.Future[None]]

        @property
        def modern(self) -> bool: ...

        async def request(
            self, method: str, params: JSON | None = None, *, timeout: float | None = None
        ) -> JSON: ...

        def _modern_params(self, params: JSON, version: str | None = None) -> JSON: ...

        async def _send_within(
            self, data: bytes, what: str, timeout: float | None = None
        ) -> None: ...

        async def _notify(self, method: str, params: JSON | None = None) -> None: ...

    # ------------------------------------------------------------ listings

    async def _all_pages(self, method: str, key: str) -> list[JSON]:
        items, _ = await walk_pages(self.request, method, key)
        return items

    async def list_resources(self) -> list[JSON]:
        """Every resource the server offers (``uri``, ``name``, ``mimeType``, ...), following
        ``nextCursor`` through all pages."""
        return await self._all_pages("resources/list", "resources")

    async def list_resource_templates(self) -> list[JSON]:
        """Every URI template the server offers (``uriTemplate``, ``name``, ...), all pages."""
        return await self._all_pages("resources/templates/list", "resourceTemplates")

    async def list_prompts(self) -> list[JSON]:
        """Every prompt the server offers (``name``, ``description``, ``arguments``), all
        pages."""
        return await self._all_pages("prompts/list", "prompts")

    # ------------------------------------------------------------ reading

    async def read_resource(self, uri: str, *, timeout: float | None = None) -> ResourceResult:
        """Read a resource (a listed URI or one made from a template). An unknown URI raises
        :class:`~toolwire.ServerError` (code -32002 up to 2025-11-25, -32602 on 2026-07-28)."""
        result = await self.request("resources/read", {"uri": uri}, timeout=timeout)
        contents = objects("resources/read", "contents", result.get("contents"))
        return ResourceResult(contents=contents, raw=result)

    async def get_prompt(
        self,
        name: str,
        arguments: Mapping[str, str] | None = None,
        *,
        timeout: float | None = None,
    ) -> PromptResult:
        """The messages of prompt ``name`` filled in with ``arguments`` (strings)."""
        params: JSON = {"name": name}
        if arguments:
            params["arguments"] = dict(arguments)
        result = await self.request("prompts/get", params, timeout=timeout)
        messages = objects("prompts/get", "messages", result.get("messages"))
        description = result.get("description")
        return PromptResult(
            messages=messages,
            description=description if isinstance(description, str) else None,
            raw=result,
        )

    async def complete(
        self,
        *,
        argument: str,
        value: str = "",
        prompt: str | None = None,
        resource_template: str | None = None,
        context: Mapping[str, str] | None = None,
    ) -> Completion:
        """Suggestions for ``argument`` of a prompt (``prompt="greet"``) or a variable of a
        URI template (``resource_template="users://{id}"``) while a user types ``value``.

        ``context`` holds earlier answers (``{"language": "french"}``); revisions before
        2025-06-18 cannot carry it, so it is left out there.
        """
        if (prompt is None) == (resource_template is None):
            raise ValueError("Pass exactly one of prompt= or resource_template=")
        revision = self.protocol_version or ""
        if revision < "2025-03-26":
            raise ClientError(f"completion/complete does not exist in {revision}")
        ref = (
            {"type": "ref/prompt", "name": prompt}
            if prompt is not None
            else {"type": "ref/resource", "uri": resource_template}
        )
        params: JSON = {"ref": ref, "argument": {"name": argument, "value": value}}
        if context and revision >= "2025-06-18":
            params["context"] = {"arguments": dict(context)}
        result = await self.request("completion/complete", params)
        completion = result.get("completion")
        if not isinstance(completion, dict) or not isinstance(completion.get("values"), list):
            raise ClientError("completion/complete answered without completion values")
        total = completion.get("total")
        return Completion(
            values=[str(v) for v in completion["values"]],
            total=total if isinstance(total, int) else None,
            has_more=bool(completion.get("hasMore")),
            raw=result,
        )

    # ------------------------------------------------------------ subscriptions

    @property
    def _resource_handlers(self) -> dict[str, list[ChangeHandler]]:
        handlers: dict[str, list[ChangeHandler]] | None = self.__dict__.get("_uri_handlers")
        if handlers is None:
            handlers = self.__dict__["_uri_handlers"] = {}
        return handlers

    @property
    def _resource_streams(self) -> dict[str, str | int]:
        streams: dict[str, str | int] | None = self.__dict__.get("_uri_streams")
        if streams is None:
            streams = self.__dict__["_uri_streams"] = {}
        return streams

    async def subscribe_resource(self, uri: str, handler: ChangeHandler | None = None) -> None:
        """Ask to hear when ``uri`` changes; ``handler(params)`` (sync or async) then gets each
        ``notifications/resources/updated`` for it (so does :attr:`change_handler`).

        Legacy revisions send ``resources/subscribe``; 2026-07-28 opens a
        ``subscriptions/listen`` stream with ``resourceSubscriptions: [uri]``. Needs a server
        that declares ``resources.subscribe``.
        """
        if not (self.server_capabilities.get("resources") or {}).get("subscribe"):
            raise ClientError("The server does not offer resource subscriptions")
        if uri not in self._resource_streams and uri not in self._resource_handlers:
            if self.modern:
                stream = await self.listen(tools_list_changed=False, resource_subscriptions=[uri])
                if not self._honoured(stream, uri):
                    await self.stop_listening(stream)
                    raise ClientError(f"The server does not offer updates of {uri!r}")
                self._resource_streams[uri] = stream
            else:
                await self.request("resources/subscribe", {"uri": uri})
        handlers = self._resource_handlers.setdefault(uri, [])
        if handler is not None:
            handlers.append(handler)

    def _honoured(self, stream: str | int, uri: str) -> bool:
        """Whether the acknowledgement of listen ``stream`` kept ``uri`` (a server says
        which parts of the filter it honours, MP-10; one that says nothing is trusted)."""
        for message in reversed(self.notifications):
            params = message.get("params") or {}
            if (
                message.get("method") == "notifications/subscriptions/acknowledged"
                and (params.get("_meta") or {}).get(META_SUBSCRIPTION_ID) == stream
            ):
                honoured = params.get("notifications")
                if not isinstance(honoured, dict):
                    return True
                return uri in (honoured.get("resourceSubscriptions") or ())
        return True

    async def unsubscribe_resource(self, uri: str) -> None:
        """Stop hearing about ``uri``: ``resources/unsubscribe`` on a legacy revision; on
        2026-07-28 the URI's listen stream is cancelled (CN-11)."""
        self._resource_handlers.pop(uri, None)
        stream = self._resource_streams.pop(uri, None)
        if stream is not None:
            await self.stop_listening(stream)
        elif not self.modern:
            await self.request("resources/unsubscribe", {"uri": uri})

    async def listen(
        self,
        *,
        tools_list_changed: bool = True,
        resources_list_changed: bool = False,
        prompts_list_changed: bool = False,
        resource_subscriptions: Iterable[str] = (),
        task_ids: Iterable[str] = (),
    ) -> str | int:
        """Open a 2026-07-28 ``subscriptions/listen`` stream; notifications on it arrive in
        :attr:`notifications` (resource and prompt ones also go to :attr:`change_handler`).
        ``resource_subscriptions`` lists URIs whose ``notifications/resources/updated`` to
        receive; ``task_ids``, tasks whose ``notifications/tasks`` to receive (Tasks
        extension). Returns the subscription id once the server acknowledged it;
        :meth:`stop_listening` ends the stream."""
        if not self.modern:
            raise ClientError("subscriptions/listen needs protocol version 2026-07-28")
        mid = next(self._ids)
        acknowledged = asyncio.get_running_loop().create_future()
        self._acknowledgements[mid] = acknowledged
        ended = self._pending[mid] = asyncio.get_running_loop().create_future()
        ended.add_done_callback(_settle)  # answered when the stream ends; nobody awaits it
        wanted: JSON = {"toolsListChanged": tools_list_changed}
        if resources_list_changed:
            wanted["resourcesListChanged"] = True
        if prompts_list_changed:
            wanted["promptsListChanged"] = True
        tasks = list(task_ids)
        if tasks:  # SEP-2663: notifications/tasks with each task's state as it changes
            wanted["taskIds"] = tasks
        uris = list(resource_subscriptions)
        if uris:
            wanted["resourceSubscriptions"] = uris
        params = self._modern_params({"notifications": wanted})
        await self._send_within(
            jsonrpc.request_bytes(mid, "subscriptions/listen", params), "subscriptions/listen"
        )
        # Acknowledged, or answered at once (refused: an error; nothing to listen to).
        await asyncio.wait(
            {acknowledged, ended}, timeout=self.timeout, return_when=asyncio.FIRST_COMPLETED
        )
        if acknowledged.done():
            return mid
        self._acknowledgements.pop(mid, None)
        if ended.done():
            result_of("subscriptions/listen", ended.result())  # raises the server's error
            raise ClientError("subscriptions/listen ended before it was acknowledged")
        raise ClientTimeout(f"subscriptions/listen was not acknowledged within {self.timeout:g} s")

    async def stop_listening(self, subscription: str | int) -> None:
        """End a ``subscriptions/listen`` stream :meth:`Client.listen` opened: on stdio a
        ``notifications/cancelled`` goes to the server, over HTTP the stream is closed."""
        ended = self._pending.pop(subscription, None)
        if ended is not None and not ended.done():
            ended.cancel()
        with contextlib.suppress(Exception):  # a server already gone has nothing to stop
            await self._notify(
                "notifications/cancelled",
                {"requestId": subscription, "reason": "the client stopped listening"},
            )

    async def _primitive_notification(self, message: JSON) -> None:
        """Hand a resource or prompt change to whoever asked for it."""
        params = message.get("params") or {}
        if message["method"] == "notifications/resources/updated":
            uri = params.get("uri")
            for subscribed, handlers in list(self._resource_handlers.items()):
                if isinstance(uri, str) and _covers(subscribed, uri):
                    for handler in list(handlers):
                        await _call(handler, params)
        if self.change_handler is not None:
            await _call(self.change_handler, message)


async def _call(handler: ChangeHandler, argument: JSON) -> None:
    try:
        outcome = handler(argument)
        if inspect.isawaitable(outcome):
            await outcome
    except Exception:  # the application's handler must not break the connection
        logger.exception("A resource or prompt change handler failed")


def _covers(subscribed: str, uri: str) -> bool:
    """Whether an update of ``uri`` concerns a subscription to ``subscribed``: the same URI,
    or a sub-resource of it (the spec lets servers report those)."""
    return uri == subscribed or uri.startswith(subscribed.rstrip("/") + "/")


def _settle(future: asyncio.Future[JSON]) -> None:
    if not future.cancelled():
        future.exception()
