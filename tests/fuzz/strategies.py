"""Hypothesis strategies for the JSON-RPC messages a broken or hostile MCP client sends.

Real method names and random ones, ids MCP allows and ids it forbids, params of the right
shape with wrong-typed values, arguments for each tool of tests/servers/fuzz_target.py
(right, one value wrong, or junk), and envelopes with one part missing or wrong. ``era``
decides what a well-formed request looks like: ``"legacy"`` (an initialized session) or
``"modern"`` (2026-07-28: every request carries its ``_meta``, and ``initialize`` does not
exist, so it is never sent). tests/fuzz/lines.py turns them into bytes, and adds the bytes
that are not messages at all.

Every strategy is built once (``functools.cache``): Hypothesis works out a strategy's
properties the first time it draws from it, and rebuilding them per draw doubles the cost.
"""

from __future__ import annotations

import functools
from typing import Any

from hypothesis import strategies as st

JSON = dict[str, Any]

MODERN = "2026-07-28"
SENTINEL = "fuzz-sentinel-"  # ids of the harness's own probes; generated ids never start so
TOOLS = ("add", "echo", "store", "pick", "mirror", "divide", "refuse", "count")
LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
REVISIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", MODERN)
# Every method name a client or server of any revision uses, and some near misses.
# subscriptions/listen is left out: its answer comes only when the stream ends, by design
# (tests/test_http_modern.py covers it).
METHODS = (
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "logging/setLevel",
    "server/discover",
    "resources/list",
    "resources/read",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "sampling/createMessage",
    "elicitation/create",
    "roots/list",
    "tasks/get",
    "notifications/initialized",
    "notifications/cancelled",
    "notifications/progress",
    "notifications/roots/list_changed",
    "notifications/message",
    "Tools/Call",
    "tools/call ",
    "tools//call",
    "tools/call\x00",
    "",
)
NOTIFICATIONS = tuple(m for m in METHODS if m.startswith("notifications/"))

# ---------------------------------------------------------------------------- JSON values

int64 = st.integers(min_value=-(2**63), max_value=2**63 - 1)
scalars = (
    st.none()
    | st.booleans()
    | int64
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)
objects = st.dictionaries(st.text(max_size=8), json_values, max_size=5)
not_objects = st.one_of(scalars, st.lists(json_values, max_size=3))


@functools.cache
def request_ids() -> st.SearchStrategy[Any]:
    """Mostly valid ids (integers, strings), sometimes ids MCP forbids (null, bool, float, ...)."""
    valid = int64 | st.text(max_size=12).filter(lambda s: not s.startswith(SENTINEL))
    invalid = st.none() | st.booleans() | st.floats(allow_nan=False) | st.lists(int64, max_size=2)
    return st.one_of(valid, valid, valid, invalid, st.dictionaries(st.text(max_size=3), int64))


@functools.cache
def modern_meta() -> st.SearchStrategy[JSON]:
    """A 2026-07-28 ``_meta``: usually right, sometimes missing or wrong in one field."""
    good: JSON = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "fuzz", "version": "0"},
    }

    @st.composite
    def mutated(draw: st.DrawFn) -> JSON:
        meta = dict(good)
        key = draw(st.sampled_from([*sorted(good), "io.modelcontextprotocol/logLevel"]))
        if draw(st.booleans()):
            meta.pop(key, None)
        else:
            meta[key] = draw(st.sampled_from([*REVISIONS, *LEVELS]) | json_values)
        return meta

    return st.one_of(st.just(good), st.just(good), mutated(), objects)


@functools.cache
def legacy_meta() -> st.SearchStrategy[Any]:
    return st.one_of(
        st.fixed_dictionaries({"progressToken": st.text(max_size=6) | int64}), objects, json_values
    )


# ---------------------------------------------------------------------------- arguments


@functools.cache
def right_arguments(tool: str) -> st.SearchStrategy[JSON]:
    """Arguments of the right shape for ``tool`` (values may still be out of range)."""
    text = st.text(max_size=30)
    floats = st.floats(allow_nan=False, allow_infinity=False)
    shapes: dict[str, st.SearchStrategy[JSON]] = {
        "add": st.fixed_dictionaries({"a": int64, "b": int64}),
        "echo": st.fixed_dictionaries({"text": text}),
        "store": st.fixed_dictionaries(
            {
                "item": st.fixed_dictionaries(
                    {"name": text},
                    optional={
                        "tags": st.lists(text, max_size=3),
                        "size": st.sampled_from(["small", "large", "medium"]),
                    },
                )
            },
            optional={"when": st.sampled_from(["2024-01-01T00:00:00Z", "yesterday", ""])},
        ),
        "pick": st.fixed_dictionaries(
            {"kind": st.sampled_from(["first", "last", "middle"]), "values": st.lists(floats)},
            optional={"count": st.integers(min_value=-2, max_value=12)},
        ),
        "mirror": st.fixed_dictionaries({}, optional={"value": json_values}),
        "divide": st.fixed_dictionaries({"a": floats, "b": floats | st.just(0)}),
        "refuse": st.fixed_dictionaries({"reason": text}),
        "count": st.fixed_dictionaries(
            {"items": st.lists(json_values, max_size=4)}, optional={"flag": st.booleans()}
        ),
    }
    return shapes[tool]


@functools.cache
@st.composite
def arguments(draw: st.DrawFn, tool: str) -> Any:
    """Right arguments, right arguments with one value of the wrong type, or junk."""
    choice = draw(st.integers(min_value=0, max_value=5))
    if choice <= 2 and tool in TOOLS:
        return draw(right_arguments(tool))
    if choice == 3 and tool in TOOLS:
        args = draw(right_arguments(tool))
        key = draw(st.sampled_from(sorted(args) or ["x"]))
        args[key] = draw(json_values)
        return args
    if choice == 4:
        return draw(objects)
    return draw(not_objects)  # "arguments" that are not an object at all


# ---------------------------------------------------------------------------- messages


@functools.cache
@st.composite
def params_for(draw: st.DrawFn, method: str, era: str) -> Any:
    """The params of ``method``: right, wrong-typed or missing, with the era's ``_meta``."""
    if draw(st.integers(min_value=0, max_value=9)) == 0:
        return draw(not_objects)  # params that are not an object
    params: JSON
    if method == "tools/call":
        name = draw(st.sampled_from(TOOLS) | st.text(max_size=10) | json_values)
        params = {"name": name}
        if draw(st.integers(min_value=0, max_value=4)):
            params["arguments"] = draw(arguments(name if name in TOOLS else ""))
    elif method == "tools/list":
        params = draw(
            st.fixed_dictionaries({}, optional={"cursor": st.text(max_size=12) | json_values})
        )
    elif method == "initialize":
        params = draw(
            st.fixed_dictionaries(
                {},
                optional={
                    "protocolVersion": st.sampled_from(REVISIONS) | json_values,
                    "capabilities": objects | json_values,
                    "clientInfo": st.just({"name": "fuzz", "version": "0"}) | json_values,
                },
            )
        )
    elif method == "logging/setLevel":
        params = {"level": draw(st.sampled_from(LEVELS) | json_values)}
    elif method == "notifications/cancelled":
        params = {"requestId": draw(request_ids())}
        if draw(st.booleans()):
            params["reason"] = draw(st.text(max_size=10))
    elif method == "notifications/progress":
        params = {"progressToken": draw(request_ids()), "progress": draw(json_values)}
    else:
        params = draw(objects)
    if era == "modern" and method not in ("initialize", *NOTIFICATIONS):
        if draw(st.integers(min_value=0, max_value=7)):
            params["_meta"] = draw(modern_meta())
    elif draw(st.integers(min_value=0, max_value=3)) == 0:
        params["_meta"] = draw(legacy_meta())
    return params


@functools.cache
def method_names(era: str) -> st.SearchStrategy[str]:
    names = st.sampled_from(METHODS) | st.text(max_size=24)
    if era == "modern":  # a 2026-07-28 client never initializes (the harness relies on it)
        names = names.filter(lambda name: name != "initialize")
    return names


@functools.cache
@st.composite
def messages(draw: st.DrawFn, era: str) -> JSON:
    """One JSON-RPC message (as a dict), well-formed or with one part of the envelope wrong."""
    method = draw(method_names(era))
    message: JSON = {"jsonrpc": "2.0"}
    # notifications sometimes with an id, requests sometimes without one (a notification)
    if draw(st.integers(min_value=0, max_value=9)) >= (5 if method in NOTIFICATIONS else 1):
        message["id"] = draw(request_ids())
    message["method"] = method
    if draw(st.integers(min_value=0, max_value=5)):
        message["params"] = draw(params_for(method, era))
    flaw = draw(st.integers(min_value=0, max_value=12))
    if flaw == 0:
        message["jsonrpc"] = draw(st.sampled_from(["1.0", "2", 2.0, None]) | json_values)
    elif flaw == 1:
        del message["jsonrpc"]
    elif flaw == 2:
        message["method"] = draw(not_objects | objects)
    elif flaw == 3:
        del message["method"]
    elif flaw == 4:  # parts of a response mixed in
        message.update(
            draw(st.dictionaries(st.sampled_from(["result", "error", "id"]), json_values))
        )
    elif flaw == 5:
        message[draw(st.text(max_size=6))] = draw(json_values)
    return message


@functools.cache
@st.composite
def client_responses(draw: st.DrawFn) -> JSON:
    """What a client sends back (to a server request that never was): dropped, never answered."""
    message: JSON = {"jsonrpc": "2.0", "id": draw(request_ids())}
    if draw(st.booleans()):
        message["result"] = draw(objects)
    else:
        message["error"] = {"code": draw(int64), "message": draw(st.text(max_size=10))}
    return message
