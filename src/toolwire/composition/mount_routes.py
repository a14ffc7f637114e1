"""A mounted server's middleware around everything asked of its components, not only calls.

A server mounting another (``mcp.mount(weather, prefix="weather")``) answers for the mounted
server's components itself (toolwire.composition.mount registers them in its own registries).
The mounted server's own middleware sees what a direct client of it would: each of its tool
calls (toolwire.composition.mount runs those through it), and here the other requests on its
components, under their own names and URIs:

* ``resources/read`` of one of its resources, or of a URI one of its templates serves
  (``call.params["uri"]`` is the URI without the mount's prefix);
* ``prompts/get`` of one of its prompts (``call.params["name"]`` is the prompt's own name);
* ``completion/complete`` for one of its prompts' arguments or templates' variables
  (``call.params["ref"]`` names the prompt or template as the mounted server does);
* ``tools/list``, ``resources/list``, ``resources/templates/list`` and ``prompts/list``: the
  mounted server's middleware sees its own listing (every page) and what it returns decides
  which of its components the mounting server lists, and how (a layer that hides a tool, or
  rewrites a description, does so under the mount too).

What the middleware returns goes back to the mounting server's client under the mounted
names and URIs. A server mounted deeper (``outer`` mounts ``middle``, which mounts
``inner``) is reached the same way, level by level: ``middle``'s middleware around
``inner``'s, each under its own names, inside ``outer``'s. The mounting server installs
these method handlers once a server is mounted (:func:`route`); its ``tools/call`` keeps its
own handler, and a server that mounts nothing keeps every handler as it was.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import orjson

from ..server.request import JSON, Request

Handler = Callable[[Any, Request], Any]

# Each listing: (its kind in Mount.registered, the result's field, the key of an entry).
LISTINGS = {
    "tools/list": ("tools", "tools", "name"),
    "resources/list": ("resources", "resources", "uri"),
    "resources/templates/list": ("templates", "resourceTemplates", "uriTemplate"),
    "prompts/list": ("prompts", "prompts", "name"),
}


def route(outer: Any) -> None:
    """Have ``outer`` pass requests for its mounted servers' components through their
    middleware (installed once, when the first server is mounted)."""
    if getattr(outer, "_mount_routed", False):
        return
    methods = dict(outer.methods)
    for method, routed in (
        ("resources/read", _read),
        ("prompts/get", _get_prompt),
        ("completion/complete", _complete),
    ):
        if method in methods:
            methods[method] = _bind(routed, methods[method])
    for method in LISTINGS:
        if method in methods:
            methods[method] = _bind(_listing, methods[method])
    outer.methods = methods
    outer._mount_routed = True


def _bind(routed: Any, base: Handler) -> Handler:
    def handler(connection: Any, request: Request) -> Any:
        return routed(base, connection, request)

    return handler


def mounted_from(item: Any) -> tuple[Any, str] | None:
    """The mount that registered ``item`` (a resource, template or prompt of a mounted
    toolwire server) and its key there, while that server, or one it mounts in turn, has
    middleware; else None."""
    origin = getattr(item, "mounted_from", None)
    if origin is None or not layered(origin[0].inner):
        return None
    return origin  # type: ignore[no-any-return]


def layered(server: Any, depth: int = 0) -> bool:
    """``server`` has middleware, or mounts (at any depth) a toolwire server that has."""
    if getattr(server, "middleware", None):
        return True
    return depth < 32 and any(
        layered(m.inner, depth + 1) for m in getattr(server, "_mounts", ()) if not m.proxied
    )


def _direct(params: JSON) -> JSON:
    return params


def _through(
    mount: Any,
    base: Handler,
    connection: Any,
    request: Request,
    inner: JSON,
    outer: Any,
    back: Any,
    routed: Any,
) -> Any:
    """``base`` (the mounting server's own handler) run inside the mounted server's
    middleware, which sees ``inner`` as the params; ``outer(params)`` maps the params it
    passes on back to the names of the server that mounts it, ``back`` those to the first
    mounting server's. Inside, ``routed`` does the same for the server it mounts in turn
    (a server mounted two levels down: each level's middleware inside the one above)."""

    def handler(conn: Any, passed: Request) -> Any:
        return routed(mount.inner, base, conn, passed, lambda p: back(outer(p)))

    return mount.inner.through_middleware(connection, request.with_params(inner), handler)


def _leaf(base: Handler, connection: Any, request: Request, back: Any) -> Any:
    if back is _direct:
        return base(connection, request)
    return base(connection, request.with_params(back(request.params)))


def _read(base: Handler, connection: Any, request: Request) -> Any:
    return _read_at(connection.server, base, connection, request, _direct)


def _read_at(server: Any, base: Handler, connection: Any, request: Request, back: Any) -> Any:
    uri = request.params.get("uri")
    locate = getattr(server, "_locate", None)
    found = locate(uri) if isinstance(uri, str) and locate is not None else None
    origin = mounted_from(found[0]) if found is not None else None
    if origin is None:
        return _leaf(base, connection, request, back)
    mount = origin[0]
    inner_uri = unprefixed_uri(mount.prefix, uri)  # type: ignore[arg-type]

    def outer(params: JSON) -> JSON:
        given = params.get("uri")
        return {**params, "uri": mount.uri(given) if isinstance(given, str) else given}

    inner = {**request.params, "uri": inner_uri}
    return _through(mount, base, connection, request, inner, outer, back, _read_at)


def _get_prompt(base: Handler, connection: Any, request: Request) -> Any:
    return _get_prompt_at(connection.server, base, connection, request, _direct)


def _get_prompt_at(server: Any, base: Handler, connection: Any, request: Request, back: Any) -> Any:
    name = request.params.get("name")
    get = getattr(server, "get_prompt", None)
    origin = mounted_from(get(name)) if isinstance(name, str) and get is not None else None
    if origin is None:
        return _leaf(base, connection, request, back)
    mount, key = origin

    def outer(params: JSON) -> JSON:
        given = params.get("name")
        return {**params, "name": mount.name(given) if isinstance(given, str) else given}

    inner = {**request.params, "name": key}
    return _through(mount, base, connection, request, inner, outer, back, _get_prompt_at)


def _complete(base: Handler, connection: Any, request: Request) -> Any:
    return _complete_at(connection.server, base, connection, request, _direct)


def _complete_at(server: Any, base: Handler, connection: Any, request: Request, back: Any) -> Any:
    ref = request.params.get("ref")
    item, field = None, ""
    if isinstance(ref, dict):
        if ref.get("type") == "ref/prompt" and isinstance(ref.get("name"), str):
            item, field = getattr(server, "get_prompt", lambda _: None)(ref["name"]), "name"
        elif ref.get("type") == "ref/resource" and isinstance(ref.get("uri"), str):
            item, field = getattr(server, "find_template", lambda _: None)(ref["uri"]), "uri"
    origin = mounted_from(item) if item is not None else None
    if origin is None:
        return _leaf(base, connection, request, back)
    mount, key = origin
    rename = mount.name if field == "name" else mount.uri

    def outer(params: JSON) -> JSON:
        given = params.get("ref")
        if isinstance(given, dict) and isinstance(given.get(field), str):
            params = {**params, "ref": {**given, field: rename(given[field])}}
        return params

    inner = {**request.params, "ref": {**ref, field: key}}  # type: ignore[dict-item]
    return _through(mount, base, connection, request, inner, outer, back, _complete_at)


def _listing(base: Handler, connection: Any, request: Request) -> Any:
    return _listing_at(connection.server, base, connection, request)


def _listing_at(server: Any, base: Handler, connection: Any, request: Request) -> Any:
    """``server``'s listing (``base``), with what each server it mounts lists through its
    own middleware (and, inside, what those mount in turn through theirs)."""
    mounts = [m for m in getattr(server, "_mounts", ()) if not m.proxied and layered(m.inner)]
    if not mounts:
        return base(connection, request)
    return _filtered_listing(mounts, base, connection, request)


async def _filtered_listing(
    mounts: list[Any], base: Handler, connection: Any, request: Request
) -> JSON:
    kind, field, ident = LISTINGS[request.method]
    # The mounting server's entry of each mounted component -> what the mounted server's
    # middleware listed for it (None: left out).
    listed: dict[str, JSON | None] = {}
    for mount in mounts:
        seen = await _inner_listing(mount, connection, request, field, ident)
        rename = mount.name if kind in ("tools", "prompts") else mount.uri
        for key, (_, registered) in mount.registered[kind].items():
            entry = seen.get(key)
            listed[registered] = None if entry is None else {**entry, ident: rename(key)}
    result = await _resolved(base(connection, request))
    entries = []
    for entry in result.get(field) or ():
        key = entry.get(ident) if isinstance(entry, dict) else None
        if key in listed:
            entry = listed[key]
            if entry is None:
                continue
        entries.append(entry)
    result = {**result, field: entries}
    if "cacheScope" in result:  # it depends on what the middleware said to this caller
        result["cacheScope"] = "private"
    return result


async def _inner_listing(
    mount: Any, connection: Any, request: Request, field: str, ident: str
) -> dict[str, JSON]:
    """The mounted server's own listing (every page), each page through its middleware."""
    inner = mount.inner

    def own_page(connection: Any, req: Request) -> Any:
        cursor = req.params.get("cursor")
        if field == "tools":
            return inner.tools_page(req, cursor)
        if field == "prompts":
            return inner.prompts_page(req, cursor)
        return inner.resources_page(req, cursor, field == "resourceTemplates")

    def page(connection: Any, req: Request) -> Any:  # what it mounts, through their layers
        return _listing_at(inner, own_page, connection, req)

    asked = request.with_params({})
    asked.rules = None  # the session's rules name the mounting server's components
    seen: dict[str, JSON] = {}
    while True:
        result = await _resolved(inner.through_middleware(connection, asked, page))
        for entry in result.get(field) or ():
            if isinstance(entry, dict) and isinstance(entry.get(ident), str):
                seen[entry[ident]] = entry
        cursor = result.get("nextCursor")
        if not isinstance(cursor, str):
            return seen
        asked = request.with_params({"cursor": cursor})
        asked.rules = None


async def _resolved(outcome: Any) -> JSON:
    if isinstance(outcome, bytes):
        return orjson.loads(outcome)  # type: ignore[no-any-return]
    if inspect.isawaitable(outcome):
        outcome = await outcome
    return outcome if isinstance(outcome, dict) else {}


def unprefixed_uri(prefix: str | None, uri: str) -> str:
    """The mounted server's own URI for ``uri`` (:func:`toolwire.composition.mount.prefixed_uri`
    undone)."""
    if prefix is None:
        return uri
    scheme, sep, rest = uri.partition("://")
    if sep and rest.startswith(prefix + "/"):
        return f"{scheme}://{rest[len(prefix) + 1 :]}"
    scheme, sep, rest = uri.partition(":")
    if sep and rest.startswith(prefix + "/"):
        return f"{scheme}:{rest[len(prefix) + 1 :]}"
    return uri[len(prefix) + 1 :] if uri.startswith(prefix + "/") else uri
