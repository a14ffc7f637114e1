"""Looking up the definition of the tool a ``tools/call`` names, for the middleware here."""

from __future__ import annotations

from typing import Any

JSON = dict[str, Any]


class Definitions:
    """The definitions a server shows a request, indexed by name (rebuilt when they change)."""

    def __init__(self) -> None:
        self._seen: Any = None
        self._index: dict[str, JSON] = {}

    def find(self, call: Any, name: str) -> JSON | None:
        _, definitions = call.connection.server.tool_definitions(call.request)
        if definitions is not self._seen:
            self._index = {d["name"]: d for d in definitions if isinstance(d, dict)}
            self._seen = definitions
        return self._index.get(name)
