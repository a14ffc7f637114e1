"""How a client agrees on a revision with a server: ``server/discover`` (2026-07-28), asked
again once in a revision both speak after -32022, else the legacy ``initialize`` handshake.

:class:`ClientHandshake` is that part of :class:`~toolwire.client.Client` (state set up by
its ``__init__``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import ClientError, ServerError
from ..protocol.revisions import LATEST, LATEST_LEGACY, LEGACY_REVISIONS, MODERN_REVISIONS
from .answers import agreed_version

JSON = dict[str, Any]


class ClientHandshake:
    """The start of a session: which revision, and what the server told about itself."""

    if TYPE_CHECKING:  # provided by Client
        requested_version: str | None
        protocol_version: str | None
        capabilities: JSON
        client_info: JSON
        log_level: str | None
        server_info: JSON
        server_capabilities: JSON
        instructions: str | None
        timeout: float | None
        connect_timeout: float | None

        def _modern_params(self, params: JSON, version: str | None = None) -> JSON: ...

        async def _request(
            self, method: str, params: JSON | None = None, timeout: float | None = None
        ) -> JSON: ...

        async def _notify(
            self, method: str, params: JSON | None = None, timeout: float | None = None
        ) -> None: ...

    async def _handshake(self) -> None:
        seconds = self.connect_timeout  # each request's deadline; None: the client's timeout
        wanted = self.requested_version
        legacy = wanted or LATEST_LEGACY
        if wanted is None or wanted in MODERN_REVISIONS:
            version = wanted or LATEST
            retried = False
            while True:
                try:
                    result = await self._request(
                        "server/discover", self._modern_params({}, version), seconds
                    )
                except ServerError as exc:
                    agreed = None if retried else agreed_version(exc, wanted)
                    if agreed is None:
                        if wanted is not None:
                            raise
                        break  # a legacy server: initialize below
                    retried = True  # -32022: ask again, once, in a revision both speak
                    if agreed in MODERN_REVISIONS:
                        version = agreed
                        continue
                    legacy = agreed  # the best the server speaks is a legacy revision
                    break
                supported = result.get("supportedVersions")
                if not isinstance(supported, list):
                    raise ClientError("server/discover answered without a supportedVersions list")
                if version in supported:
                    self.protocol_version = version
                    self._learn(result)
                    return
                if wanted is not None:
                    raise ClientError(
                        f"The server does not support {version}; it supports {supported}"
                    )
                break
        result = await self._request(
            "initialize",
            {
                "protocolVersion": legacy,
                "capabilities": self.capabilities,
                "clientInfo": self.client_info,
            },
            seconds,
        )
        version = str(result.get("protocolVersion"))
        if version not in LEGACY_REVISIONS or (wanted is not None and version != wanted):
            raise ClientError(f"The server answered initialize with protocol version {version!r}")
        self.protocol_version = version
        self.server_info = _object(result.get("serverInfo"))
        self.server_capabilities = _object(result.get("capabilities"))
        self.instructions = _text(result.get("instructions"))
        await self._notify("notifications/initialized", None, seconds)
        if self.log_level is not None and "logging" in self.server_capabilities:
            await self._request("logging/setLevel", {"level": self.log_level}, seconds)

    def _learn(self, discover: JSON) -> None:
        self.server_capabilities = _object(discover.get("capabilities"))
        self.instructions = _text(discover.get("instructions"))
        self.server_info = _object(
            _object(discover.get("_meta")).get("io.modelcontextprotocol/serverInfo")
        )


def _object(value: Any) -> JSON:
    return value if isinstance(value, dict) else {}


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None
