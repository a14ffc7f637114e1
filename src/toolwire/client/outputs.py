"""Checking structured results against the output schemas a server declared (TL-23)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import ClientError

JSON = dict[str, Any]


class OutputChecks:
    """The output schemas of the last ``tools/list``, each compiled once with fastjsonschema."""

    def __init__(self) -> None:
        self.schemas: dict[str, JSON] = {}
        self.known: set[Any] | None = None  # the names in the last tools/list
        self._validators: dict[str, tuple[JSON, Callable[[Any], Any]]] = {}

    def learn(self, tools: list[JSON]) -> None:
        self.schemas = {
            tool["name"]: tool["outputSchema"]
            for tool in tools
            if isinstance(tool, dict)
            and isinstance(tool.get("name"), str)
            and isinstance(tool.get("outputSchema"), dict)
        }
        self.known = {tool.get("name") for tool in tools if isinstance(tool, dict)}

    def knows(self, name: str) -> bool:
        return self.known is not None and name in self.known

    def check(self, name: str, result: JSON) -> None:
        """Raise :class:`ClientError` if ``result`` does not keep its tool's schema."""
        schema = self.schemas.get(name)
        if schema is None or result.get("isError"):
            return
        structured = result.get("structuredContent")
        if structured is None:
            raise ClientError(
                f"Tool {name!r} declares an outputSchema but returned no structuredContent"
            )
        import fastjsonschema  # lazy: fastjsonschema, off the import path until a schema is checked

        try:
            self._validator(name, schema)(structured)
        except fastjsonschema.JsonSchemaException as exc:
            raise ClientError(
                f"Tool {name!r} returned structuredContent that does not match its "
                f"outputSchema: {exc}"
            ) from exc

    def _validator(self, name: str, schema: JSON) -> Callable[[Any], Any]:
        cached = self._validators.get(name)
        if cached is not None and cached[0] is schema:
            return cached[1]
        import fastjsonschema  # lazy: fastjsonschema, off the import path until a schema is checked

        try:
            check = fastjsonschema.compile(schema)
        except Exception as exc:  # a schema the validator cannot read: say so, do not guess
            raise ClientError(f"The outputSchema of tool {name!r} cannot be used: {exc}") from exc
        self._validators[name] = (schema, check)
        return check
