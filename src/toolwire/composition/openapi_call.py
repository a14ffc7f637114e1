"""The calls of OpenAPI tools (see :mod:`toolwire.composition.openapi`): a tool's arguments
become the operation's HTTP request, sent with the server's ``httpx.AsyncClient``, and its
answer the result (an ``isError`` one for a non-2xx status or a failed request)."""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import orjson

from ..errors import ToolError

if TYPE_CHECKING:
    import httpx

JSON = dict[str, Any]
MAX_ERROR_BODY = 2000  # characters of a failed answer's body shown to the model


@dataclass
class Param:
    """Where one argument of the tool goes in the HTTP request."""

    location: str  # path, query, header, cookie, body (a merged body property), or "" (body)
    name: str
    style: str = "form"
    explode: bool = True


@dataclass
class Operation:
    method: str
    path: str
    spec: JSON
    name: str = ""
    params: dict[str, Param] = field(default_factory=dict)
    shared: list[Any] = field(default_factory=list)  # the path item's parameters
    media: str | None = None  # the request body's media type
    body_required: bool = False
    merged_body: bool = False  # the body's properties are the tool's arguments
    wraps: bool = False  # the output schema wraps a non-object result under "result"
    nulls_absent: frozenset[str] = frozenset()


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    if isinstance(value, (dict, list)):
        return orjson.dumps(value).decode()
    return str(value)


def _query(param: Param, value: Any) -> list[tuple[str, str]]:
    """A query parameter serialised per its ``style`` and ``explode`` (OpenAPI 3)."""
    name = param.name
    if isinstance(value, dict):
        if param.style == "deepObject":
            return [(f"{name}[{key}]", _text(item)) for key, item in value.items()]
        if param.explode:
            return [(key, _text(item)) for key, item in value.items()]
        return [(name, ",".join(_text(part) for pair in value.items() for part in pair))]
    if isinstance(value, list):
        if param.explode and param.style == "form":
            return [(name, _text(item)) for item in value]
        joiner = {"spaceDelimited": " ", "pipeDelimited": "|"}.get(param.style, ",")
        return [(name, joiner.join(_text(item) for item in value))]
    return [(name, _text(value))]


def _simple(value: Any, explode: bool) -> str:
    """The ``simple`` style of path and header parameters."""
    if isinstance(value, list):
        return ",".join(_text(item) for item in value)
    if isinstance(value, dict):
        if explode:
            return ",".join(f"{key}={_text(item)}" for key, item in value.items())
        return ",".join(_text(part) for pair in value.items() for part in pair)
    return _text(value)


def _path_value(param: Param, value: Any) -> str:
    text = _simple(value, param.explode)
    if param.style == "label":
        return "." + quote(text, safe=",=")
    if param.style == "matrix":
        return f";{param.name}=" + quote(text, safe=",=")
    return quote(text, safe="")


class Caller:
    """Turns a tool's arguments into the operation's HTTP request, and its answer into a
    result."""

    # what the tool model reads, given at once (no annotations to evaluate per tool)
    __signature__ = inspect.Signature(
        [inspect.Parameter("arguments", inspect.Parameter.VAR_KEYWORD)]
    )

    def __init__(self, op: Operation, client: httpx.AsyncClient, structured: bool) -> None:
        self.op = op
        self.client = client
        self.structured = structured
        self.where = f"{op.method.upper()} {op.path}"

    async def __call__(self, **arguments: Any) -> Any:
        import httpx  # optional: httpx (the http extra)

        op = self.op
        path = op.path
        query: list[tuple[str, str]] = []
        headers: dict[str, str] = {}
        cookies: list[str] = []
        body: Any = None
        merged: JSON = {}
        for prop, value in arguments.items():
            param = op.params.get(prop)
            if param is None:
                continue
            if param.location == "path":
                path = path.replace("{" + param.name + "}", _path_value(param, value))
            elif param.location == "query":
                query.extend(_query(param, value))
            elif param.location == "header":
                headers[param.name] = _simple(value, param.explode)
            elif param.location == "cookie":
                cookies.append(f"{param.name}={quote(_simple(value, False), safe='')}")
            elif param.location == "body":
                merged[param.name] = value
            else:
                body = value
        if merged or (op.body_required and op.merged_body):  # a required body: {} at least
            body = merged
        if cookies:
            headers["Cookie"] = "; ".join(cookies)
        request: JSON = {"params": query, "headers": headers}
        if body is not None:
            media = op.media or "application/json"
            if media.startswith("application/x-www-form") and isinstance(body, dict):
                request["data"] = {k: _text(v) for k, v in body.items()}
            elif "json" in media:
                request["content"] = orjson.dumps(body)
                headers["Content-Type"] = media
            else:
                request["content"] = body if isinstance(body, (str, bytes)) else _text(body)
                headers["Content-Type"] = media
        try:
            answer = await self.client.request(op.method.upper(), path, **request)
        except httpx.TimeoutException as exc:
            raise ToolError(f"{self.where}: the API did not answer in time ({exc!r})") from None
        except httpx.HTTPError as exc:
            reason = str(exc) or type(exc).__name__
            raise ToolError(f"{self.where}: the request failed: {reason}") from None
        return self._result(answer)

    def _result(self, answer: httpx.Response) -> Any:
        if not 200 <= answer.status_code < 300:
            text = answer.text
            if len(text) > MAX_ERROR_BODY:
                text = text[:MAX_ERROR_BODY] + f"... ({len(text)} characters)"
            status = f"HTTP {answer.status_code} {answer.reason_phrase}".strip()
            raise ToolError(f"{self.where} answered {status}: {text}" if text else status)
        kind = answer.headers.get("content-type", "").split(";")[0].strip().lower()
        if answer.content and (kind == "application/json" or kind.endswith("+json")):
            try:
                data = answer.json()
            except ValueError:
                return answer.text
            if not self.structured or self.op.wraps or isinstance(data, dict):
                return data
            return _text_only(orjson.dumps(data).decode())  # off its schema: text alone
        if self.structured:
            shown = answer.text or f"HTTP {answer.status_code} {answer.reason_phrase}".strip()
            return shown if self.op.wraps and answer.text else _text_only(shown)
        return answer.text or None


def _text_only(text: str) -> Any:
    from .. import types  # lazy: the full MCP types, only for the SDK-style API

    return types.CallToolResult(content=[types.TextContent(type="text", text=text)])
