"""A blocking facade over :class:`~toolwire.client.Client` for scripts and notebooks::

    with SyncClient("python calculator.py") as client:
        total = client.call_tool("add", {"a": 2, "b": 3}).text

The client runs on an event loop in a background thread; every method waits for its result.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Mapping
from typing import Any, TypeVar

from ..errors import ClientError
from .client import JSON, CallResult, Client
from .primitives import ChangeHandler, Completion, PromptResult, ResourceResult

T = TypeVar("T")


class SyncClient:
    """:class:`Client` without ``async``: an event loop runs on a background thread.

    ::

        with SyncClient("python calculator.py") as client:
            total = client.call_tool("add", {"a": 1, "b": 2}).text
    """

    def __init__(self, target: Any, **options: Any) -> None:
        self._target = target
        self._options = options
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._client: Client | None = None

    def __enter__(self) -> SyncClient:
        self.connect()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def client(self) -> Client:
        """The asynchronous client underneath (use it only through :meth:`run`)."""
        if self._client is None:
            raise ClientError("The client is not connected")
        return self._client

    def run(self, work: Awaitable[T], timeout: float | None = None) -> T:
        """Run a coroutine on the client's loop and wait for its result."""
        if self._loop is None:
            raise ClientError("The client is not connected")

        async def wrapped() -> T:
            return await work

        future = asyncio.run_coroutine_threadsafe(wrapped(), self._loop)
        return future.result(timeout)

    def connect(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        self._thread = threading.Thread(
            target=loop.run_forever, name="toolwire-sync-client", daemon=True
        )
        self._thread.start()

        async def start() -> Client:
            client = Client(self._target, **self._options)
            await client.connect()
            return client

        try:
            self._client = self.run(start())
        except BaseException:
            self._stop()
            raise

    def close(self) -> None:
        if self._client is not None and self._loop is not None:
            try:
                self.run(self._client.close())
            finally:
                self._client = None
        self._stop()

    def _stop(self) -> None:
        loop, thread = self._loop, self._thread
        self._loop = self._thread = None
        if loop is not None:
            loop.call_soon_threadsafe(loop.stop)
            if thread is not None:
                thread.join(10)
            loop.close()

    @property
    def protocol_version(self) -> str | None:
        return self.client.protocol_version

    def list_tools(self, *, refresh: bool = False) -> list[JSON]:
        return self.run(self.client.list_tools(refresh=refresh))

    def call_tool(
        self,
        name: str,
        arguments: JSON | None = None,
        *,
        timeout: float | None = None,
        idempotency_key: str | None = None,
    ) -> CallResult:
        return self.run(
            self.client.call_tool(name, arguments, timeout=timeout, idempotency_key=idempotency_key)
        )

    def request(
        self, method: str, params: JSON | None = None, *, timeout: float | None = None
    ) -> JSON:
        return self.run(self.client.request(method, params, timeout=timeout))

    def ping(self) -> None:
        self.run(self.client.ping())

    def list_resources(self) -> list[JSON]:
        return self.run(self.client.list_resources())

    def list_resource_templates(self) -> list[JSON]:
        return self.run(self.client.list_resource_templates())

    def read_resource(self, uri: str, *, timeout: float | None = None) -> ResourceResult:
        return self.run(self.client.read_resource(uri, timeout=timeout))

    def subscribe_resource(self, uri: str, handler: ChangeHandler | None = None) -> None:
        """As :meth:`Client.subscribe_resource`; ``handler`` runs on the client's thread."""
        self.run(self.client.subscribe_resource(uri, handler))

    def unsubscribe_resource(self, uri: str) -> None:
        self.run(self.client.unsubscribe_resource(uri))

    def list_prompts(self) -> list[JSON]:
        return self.run(self.client.list_prompts())

    def get_prompt(
        self,
        name: str,
        arguments: Mapping[str, str] | None = None,
        *,
        timeout: float | None = None,
    ) -> PromptResult:
        return self.run(self.client.get_prompt(name, arguments, timeout=timeout))

    def complete(
        self,
        *,
        argument: str,
        value: str = "",
        prompt: str | None = None,
        resource_template: str | None = None,
        context: Mapping[str, str] | None = None,
    ) -> Completion:
        return self.run(
            self.client.complete(
                argument=argument,
                value=value,
                prompt=prompt,
                resource_template=resource_template,
                context=context,
            )
        )
