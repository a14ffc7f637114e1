"""toolwire's exceptions, in one tree.

ToolwireError                 base of everything toolwire raises on purpose
├── RPCError                  a JSON-RPC error: becomes an error response (code, message, data)
│   └── McpError              the official SDK's name: ``McpError(ErrorData(code=, message=))``
│                             (1.x) or ``MCPError(code, message, data)`` (2.x)
├── ToolError                 raised by a tool: its text becomes an ``isError`` result, verbatim
│   ├── PathNotAllowed        a path outside a SafePath's directory (toolwire.safety)
│   └── CommandNotAllowed     a command a CommandPolicy refuses (toolwire.safety)
├── InvalidToken / VerifierUnavailable / AuthFailure
│                             a bearer token refused, not checkable, or an HTTP 401/403/503
│                             to send (toolwire.auth)
├── RegistrationError         a tool definition is unusable (bad name, duplicate, bad schema);
│                             raised at decoration time, never at call time
├── ListenError               ``run(transport="http")`` cannot listen on its host and port (in
│                             use, not this machine's address, unknown name); an ``OSError``
└── ClientError               the client side: a server answered with an error, or went away
    ├── ServerError           a JSON-RPC error response received by the client (``code``, ``data``)
    ├── Unauthorized          the server refused the request with HTTP 401 or 403 (``status``,
    │                         ``www_authenticate``)
    └── ClientTimeout         a request, or a message the client writes, passed its deadline
                              (also a ``TimeoutError``)

``UrlElicitationRequiredError`` (an ``RPCError``, the official SDK's name) is raised by a tool
whose user must first visit URLs: the -32042 error.
"""

from __future__ import annotations

from typing import Any


class ToolwireError(Exception):
    """Base class of the exceptions toolwire raises."""


class RPCError(ToolwireError):
    """A protocol failure that becomes a JSON-RPC error response."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def to_error(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


class McpError(RPCError):
    """The official SDK's ``McpError`` (1.x: ``McpError(ErrorData(code=..., message=...))``)
    and ``MCPError`` (2.x: ``MCPError(code=..., message=..., data=None)``, or positional): raised in a handler, it
    becomes that JSON-RPC error. ``error`` is the ``ErrorData`` given (or one made of the
    three values): ``exc.error.code``, ``exc.error.message``, ``exc.error.data``."""

    def __init__(
        self,
        error: Any = None,
        message: str | None = None,
        data: Any = None,
        *,
        code: int | None = None,
    ) -> None:
        if code is not None and error is None:
            error = code
        if isinstance(error, int) and not isinstance(error, bool):
            if message is None:
                raise TypeError("MCPError(code, message, data=None) needs a message")
            error = ErrorData(error, message, data)
        elif isinstance(error, dict):
            error = ErrorData(error.get("code"), error.get("message"), error.get("data"))  # type: ignore[arg-type]
        found: Any = getattr(error, "code", None)
        if not isinstance(found, int) or not isinstance(getattr(error, "message", None), str):
            raise TypeError(
                "McpError takes an ErrorData (McpError(ErrorData(code=-32602, message=...))) "
                f"or a code and a message (McpError(-32602, '...')), not {error!r}"
            )
        super().__init__(found, error.message, getattr(error, "data", None))
        self.error = error

    def __str__(self) -> str:
        return self.message


class ErrorData:
    """A JSON-RPC error's ``code``, ``message`` and ``data``: the SDK's ``ErrorData``, as
    :class:`McpError` takes it (``McpError(ErrorData(code=-32602, message="..."))``)."""

    __slots__ = ("code", "data", "message")

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        self.code, self.message, self.data = code, message, data

    def __repr__(self) -> str:
        return f"ErrorData(code={self.code!r}, message={self.message!r}, data={self.data!r})"


MCPError = McpError


class ToolError(ToolwireError):
    """Raise inside a tool to tell the model what went wrong; the text reaches it unchanged."""


class RegistrationError(ToolwireError, ValueError):
    """A tool cannot be registered as given."""


class ClientError(ToolwireError):
    """Something went wrong on the client side of a connection."""


class ServerError(ClientError):
    """The server answered a request with a JSON-RPC error."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(f"{message} (code {code})")
        self.code = code
        self.message = message
        self.data = data


class Unauthorized(ClientError):
    """The server refused the request over HTTP: 401 (no token, or one it does not accept) or
    403 (the token lacks a scope). ``www_authenticate`` is the challenge it sent, if any: it
    names the server's ``resource_metadata`` (where to sign in) and the ``scope`` it wants."""

    def __init__(self, status: int, message: str, www_authenticate: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.www_authenticate = www_authenticate


class ClientTimeout(ClientError, TimeoutError):
    """A request was not answered, or a message could not be written, within the client's
    deadline (``Client(timeout=...)`` or a call's ``timeout=``)."""


class ListenError(ToolwireError, OSError):
    """The HTTP server cannot listen on ``host``:``port``: the port is in use, the host is
    not an address of this machine, or its name is unknown. ``errno`` is the system's
    (``EADDRINUSE``, ``EADDRNOTAVAIL``, ...); the exception it comes from is its cause."""

    def __init__(self, host: str, port: int, reason: str, errno: int | None) -> None:
        super().__init__(f"Cannot listen on {host}:{port}: {reason}")
        self.host = host
        self.port = port
        self.errno = errno


class UrlElicitationRequiredError(RPCError):
    """Raise in a tool that cannot go on before the user completes URL elicitations (a
    sign-in, a payment): the call is answered with the -32042 error of 2025-11-25, whose
    ``data.elicitations`` lists them, as the official SDK's exception of the same name.

    ``elicitations`` are ``ElicitRequestURLParams`` (the SDK's models or toolwire's) or
    dicts with ``message``, ``url`` and ``elicitationId``. To ask within the call instead,
    use ``await ctx.elicit_url(message, url)``.
    """

    CODE = -32042

    def __init__(self, elicitations: list[Any], message: str | None = None) -> None:
        listed = [_url_params(item) for item in elicitations]
        if not listed:
            raise ValueError("UrlElicitationRequiredError needs at least one elicitation")
        if message is None:
            message = f"URL elicitation{'s' if len(listed) > 1 else ''} required"
        super().__init__(self.CODE, message, {"elicitations": listed})
        self.elicitations = list(elicitations)


def _url_params(item: Any) -> dict[str, Any]:
    if hasattr(item, "to_wire"):
        item = item.to_wire()
    elif hasattr(item, "model_dump"):
        item = item.model_dump(mode="json", by_alias=True, exclude_none=True)
    if not isinstance(item, dict):
        raise TypeError(
            "UrlElicitationRequiredError takes ElicitRequestURLParams or dicts with "
            f"message, url and elicitationId, not {type(item).__name__}"
        )
    missing = [key for key in ("message", "url", "elicitationId") if key not in item]
    if missing:
        raise ValueError(f"A URL elicitation needs {', '.join(missing)} (given: {sorted(item)})")
    return {"mode": "url", **item}
