"""FastMCP's ``Context`` methods on :class:`toolwire.Context`: per-session state,
``session_id``, and ``elicit(message, response_type=...)`` with its result classes.

::

    @mcp.tool()
    async def count(ctx: Context) -> int:
        seen = (await ctx.get_state("seen") or 0) + 1
        await ctx.set_state("seen", seen)           # kept for this MCP session
        return seen

    @mcp.tool()
    async def pick(ctx: Context) -> str:
        answer = await ctx.elicit("Which one?", response_type=["red", "blue"])
        if isinstance(answer, AcceptedElicitation):
            return answer.data                      # "red" or "blue"
        return answer.action                        # "decline" or "cancel"

State follows the MCP session: the ``Mcp-Session-Id`` of a legacy HTTP session, else the
connection (stdio, memory). Values are JSON and live a day in the session store (the HTTP
app's shared store when it has one, e.g. Redis, so every worker sees them; this process's
memory otherwise); ``set_state(key, value, serializable=False)`` keeps any object for the
current request only. A 2026-07-28 request over HTTP has no session: state raises a
``ToolError`` naming ``ctx.state`` (kept per authenticated user) as the alternative.

``response_type`` may be ``str``, ``int``, ``float``, ``bool``, a ``Literal`` or an
``Enum`` (asked as one field, ``data`` is the value), a list of choices (``["a", "b"]``;
``[["a", "b"]]`` to pick several), a dict of titled choices (``{"low": {"title": "Low"}}``),
a dataclass, ``TypedDict`` or pydantic model (``data`` is an instance), or ``None`` (a bare
confirmation, ``data`` is ``{}``). The answer is an :class:`AcceptedElicitation`,
:class:`DeclinedElicitation` or :class:`CancelledElicitation`, each also an
:class:`~toolwire.server.inputs.ElicitationResult` (``.action``, ``.data``, ``.content``).
"""

from __future__ import annotations

import enum
import hashlib
import os
import typing
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson

from ..errors import ToolError
from .inputs import ElicitationResult

if TYPE_CHECKING:
    from .request import Connection, Request

STATE_TTL = 86_400.0  # seconds, as FastMCP keeps session state
_connection_ids: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()
_request_values: weakref.WeakKeyDictionary[Any, dict[str, Any]] = weakref.WeakKeyDictionary()


@dataclass
class AcceptedElicitation(ElicitationResult):
    """The user answered: ``data`` holds the answer, as ``response_type`` describes it."""

    action: str = "accept"


@dataclass
class DeclinedElicitation(ElicitationResult):
    """The user said no."""

    action: str = "decline"


@dataclass
class CancelledElicitation(ElicitationResult):
    """The user dismissed the question."""

    action: str = "cancel"


# ------------------------------------------------------------ session id and state


def session_id(connection: Connection, request: Request) -> str:
    """The MCP session's id: the HTTP ``Mcp-Session-Id``, else one made for the
    connection. Raises a ``ToolError`` for a request that belongs to no session."""
    from ..transports.http_trace import current_request

    http = current_request.get()
    if http is None:
        found = _connection_ids.get(connection)
        if found is None:
            found = _connection_ids[connection] = os.urandom(16).hex()
        return found
    if http.session_id and not request.features.modern:
        return http.session_id
    raise ToolError(
        "This request belongs to no MCP session (it came over HTTP "
        + ("on revision 2026-07-28, which is stateless" if request.features.modern else "")
        + ("" if request.features.modern else "to a stateless app")
        + "), so there is no session id nor session state: keep per-user values in "
        "ctx.state (with authentication), or in the client's arguments"
    )


def _name(connection: Connection, request: Request, key: str) -> str:
    if not isinstance(key, str) or not key:
        raise TypeError("State keys are non-empty strings")
    session = hashlib.sha256(session_id(connection, request).encode()).hexdigest()[:32]
    return f"session-state:{session}:{key}"


async def set_state(ctx: Any, key: str, value: Any, serializable: bool) -> None:
    from .state import values_of

    name = _name(ctx._connection, ctx.request, key)
    local = _request_values.setdefault(ctx, {})
    if not serializable:
        local[name] = value
        return
    local.pop(name, None)
    try:
        data = orjson.dumps(value, default=_model_default)
    except TypeError as exc:
        raise TypeError(
            f"The value for state key {key!r} is not JSON-serializable ({exc}): pass "
            f"serializable=False to keep it for this request only"
        ) from None
    await values_of(ctx.server).set_value(name, data, STATE_TTL)


def _model_default(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    raise TypeError(f"{type(value).__name__} is not JSON")


async def get_state(ctx: Any, key: str) -> Any:
    from .state import values_of

    name = _name(ctx._connection, ctx.request, key)
    local = _request_values.get(ctx)
    if local is not None and name in local:
        return local[name]
    raw = await values_of(ctx.server).get_value(name)
    return None if raw is None else orjson.loads(raw)


async def delete_state(ctx: Any, key: str) -> None:
    from .state import values_of

    name = _name(ctx._connection, ctx.request, key)
    local = _request_values.get(ctx)
    if local is not None:
        local.pop(name, None)
    await values_of(ctx.server).delete_value(name)


# ------------------------------------------------------------ elicit(response_type=...)

Reader = Callable[[Any], Any]


def form(
    response_type: Any, title: str | None = None, description: str | None = None
) -> tuple[dict[str, Any], Reader]:
    """The requested schema for ``response_type``, and how to read an accepted answer's
    content into ``data``."""
    if response_type is None:
        if title is not None or description is not None:
            raise TypeError("response_title/response_description need a field to label")
        return {"type": "object", "properties": {}}, lambda content: {}
    if isinstance(response_type, dict):
        value = _titled(response_type, multiple=False)
        return _wrapped(value, title, description), _value(None)
    if isinstance(response_type, list):
        if len(response_type) == 1 and isinstance(response_type[0], (list, dict)):
            inner = response_type[0]
            if isinstance(inner, dict):
                value = _titled(inner, multiple=True)
            else:
                value = {"type": "array", "items": {"type": "string", "enum": _choices(inner)}}
            return _wrapped(value, title, description), _value(None)
        value = {"type": "string", "enum": _choices(response_type)}
        return _wrapped(value, title, description), _value(None)
    if _scalar(response_type) or typing.get_origin(response_type) is list:
        adapter = _adapter(response_type)
        value = _schema(adapter)
        return _wrapped(value, title, description), _value(adapter)
    if title is not None or description is not None:
        raise TypeError(
            "response_title/response_description label the one field of a scalar or choice "
            "answer; for a dataclass or model, use Field(title=..., description=...) on its "
            "fields"
        )
    adapter = _adapter(response_type)
    schema = _schema(adapter)
    if schema.get("type") != "object":
        raise TypeError(
            f"ctx.elicit cannot ask for a {response_type!r}: use str, int, float, bool, a "
            "Literal or Enum, a list of choices, a dataclass or a pydantic model"
        )
    properties = schema.get("properties", {})
    for field, prop in properties.items():
        if not (prop.get("type") in ("string", "number", "integer", "boolean") or "enum" in prop):
            raise TypeError(
                f"Elicitation fields are strings, numbers, booleans or choices; {field!r} of "
                f"{getattr(response_type, '__name__', response_type)} is not"
            )
    flat: dict[str, Any] = {"type": "object", "properties": properties}
    if schema.get("required"):
        flat["required"] = schema["required"]
    return flat, lambda content: adapter.validate_python(content or {})


def _choices(values: list[Any]) -> list[str]:
    if not values or not all(isinstance(value, str) for value in values):
        raise TypeError('A list of choices is a non-empty list of strings: ["a", "b"]')
    return list(values)


def _titled(choices: dict[str, Any], multiple: bool) -> dict[str, Any]:
    if not choices:
        raise ValueError('A dict of choices names at least one: {"low": {"title": "Low"}}')
    options = [
        {"const": key, "title": (spec or {}).get("title", key) if isinstance(spec, dict) else key}
        for key, spec in choices.items()
    ]
    if multiple:
        return {"type": "array", "items": {"anyOf": options}}
    return {"type": "string", "oneOf": options}


def _scalar(response_type: Any) -> bool:
    return (
        response_type in (bool, int, float, str)
        or typing.get_origin(response_type) is typing.Literal
        or (isinstance(response_type, type) and issubclass(response_type, enum.Enum))
    )


def _adapter(response_type: Any) -> Any:
    from pydantic import TypeAdapter

    from .._compat import pydantic_ready

    return TypeAdapter(pydantic_ready(response_type))


def _schema(adapter: Any) -> dict[str, Any]:
    from .._schema_clean import clean_schema

    return dict(clean_schema(adapter.json_schema(), for_input=True))


def _wrapped(value: dict[str, Any], title: str | None, description: str | None) -> dict[str, Any]:
    value = dict(value)
    value.pop("title", None)
    if title is not None:
        value["title"] = title
    if description is not None:
        value["description"] = description
    return {"type": "object", "properties": {"value": value}, "required": ["value"]}


def _value(adapter: Any) -> Reader:
    def read(content: Any) -> Any:
        if not isinstance(content, dict) or "value" not in content:
            raise ToolError('The answer does not fit the requested form: no "value"')
        value = content["value"]
        return value if adapter is None else adapter.validate_python(value)

    return read


def result(answer: Any, read: Reader) -> ElicitationResult:
    """The FastMCP-shaped result of an ``elicitation/create`` answer."""
    if not isinstance(answer, dict) or answer.get("action") not in ("accept", "decline", "cancel"):
        raise ToolError("The client's answer to the question was not understood")
    action = answer["action"]
    if action == "decline":
        return DeclinedElicitation()
    if action == "cancel":
        return CancelledElicitation()
    content = answer.get("content")
    try:
        data = read(content)
    except ValueError as exc:
        raise ToolError(f"The answer does not fit the requested form: {exc}") from None
    return AcceptedElicitation(data=data, content=content)


class FastMCPContext:
    """The FastMCP methods of :class:`toolwire.Context` (a base class of it)."""

    @property
    def session_id(self) -> str:
        """This MCP session's id (see :mod:`toolwire.server.fastmcp_context`)."""
        ctx: Any = self
        return session_id(ctx._connection, ctx.request)

    async def set_state(self, key: str, value: Any, *, serializable: bool = True) -> None:
        """Keep ``value`` (JSON) under ``key`` for this MCP session (a day);
        ``serializable=False``: any object, for this request only."""
        await set_state(self, key, value, serializable)

    async def get_state(self, key: str) -> Any:
        """The value kept under ``key`` for this session, or None."""
        return await get_state(self, key)

    async def delete_state(self, key: str) -> None:
        """Forget ``key`` for this session."""
        await delete_state(self, key)
