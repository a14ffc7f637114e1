"""Per-resource and per-prompt access (TL-29, MP-14): ``scopes=`` and ``auth=`` on
``@mcp.resource`` and ``@mcp.prompt`` decide who sees, reads, subscribes to, gets and
completes them, by the rule tools use (``toolwire.auth.tokens.may_use``).

In memory the caller comes from a middleware that trusts a ``_meta`` key (as in
test_tool_access.py); over HTTP from a real bearer token checked by a ``ResourceServer``.
Every message is checked against the schema of the revision in use.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from toolwire import Context, RegistrationError, Server, ServerError
from toolwire.auth import AccessToken
from toolwire.server.components import registry
from toolwire.server.dispatch.middleware import Call, CallNext

from http_server import serve_http
from wire import MODERN, checked_client

LEGACY = "2025-11-25"
REVISIONS = [LEGACY, MODERN]
TIMEOUT = 10.0
CALLER_KEY = "example.test/caller"
CALLERS = {
    "reader": AccessToken(subject="reader", scopes=frozenset({"files:read"})),
    "writer": AccessToken(subject="writer", scopes=frozenset({"files:read", "files:write"})),
    "owner": AccessToken(subject="owner", scopes=frozenset({"files"})),  # covers files:*
    "admin": AccessToken(subject="admin"),
}


def is_admin(caller: Any) -> bool:
    return caller is not None and caller.subject == "admin"


def build(*, page_size: int | None = None, auth: Any = None, guarded: bool = True) -> Server:
    """Open, scoped and predicate-guarded resources, templates and prompts (``guarded=False``:
    the same primitives with no rule at all)."""
    mcp = Server("primitive-access", page_size=page_size, auth=auth)

    def rules(**given: Any) -> dict[str, Any]:
        return given if guarded else {}

    @mcp.add_middleware
    async def caller_from_meta(call: Call, call_next: CallNext) -> dict[str, Any]:
        name = (call.params.get("_meta") or {}).get(CALLER_KEY)
        if name is not None:
            call.request.identity = CALLERS.get(name)
        return await call_next(call)

    mcp.add_resource("the readme", "docs://readme")
    mcp.add_resource("the plans", "docs://plans", **rules(scopes=["files:read"]))
    mcp.add_resource("the audit trail", "docs://audit", **rules(auth=is_admin))

    @mcp.resource("users://{user_id}/profile", complete={"user_id": lambda v: ["1", "2"]})
    def profile(user_id: str) -> str:
        return f"user {user_id}"

    @mcp.resource(
        "vault://{key}",
        complete={"key": lambda v: ["alpha", "beta"]},
        **rules(scopes="files:write"),
    )
    def vault(key: str) -> str:
        return f"secret {key}"

    @mcp.prompt
    def summarize(text: str) -> str:
        return f"Summarize: {text}"

    @mcp.prompt(complete={"topic": lambda v: ["budget", "roadmap"]}, **rules(scopes=["files:read"]))
    def review_plans(topic: str) -> str:
        return f"Review the plans for {topic}"

    @mcp.prompt(**rules(auth=is_admin))
    def audit_report() -> str:
        return "Report on the audit trail"

    @mcp.tool
    async def peek(uri: str, ctx: Context) -> str:
        """Read one of this server's resources for the model."""
        (content,) = await ctx.read_resource(uri)
        return str(content["text"])

    return mcp


def meta(caller: str | None) -> dict[str, Any]:
    return {"_meta": {} if caller is None else {CALLER_KEY: caller}}


async def ask(client: Any, method: str, params: dict[str, Any], caller: str | None) -> Any:
    return await asyncio.wait_for(client.request(method, {**params, **meta(caller)}), TIMEOUT)


async def refused(client: Any, method: str, params: dict[str, Any], caller: str | None) -> Any:
    with pytest.raises(ServerError) as caught:
        await ask(client, method, params, caller)
    return caught.value


async def listing(client: Any, method: str, field: str, key: str, caller: str | None) -> list[str]:
    """Every page of one listing, as ``caller`` sees it."""
    names: list[str] = []
    params: dict[str, Any] = {}
    while True:
        page = await ask(client, method, params, caller)
        names += [item[key] for item in page[field]]
        if "nextCursor" not in page:
            return names
        params = {"cursor": page["nextCursor"]}


async def everything(client: Any, caller: str | None) -> tuple[list[str], ...]:
    return (
        await listing(client, "resources/list", "resources", "uri", caller),
        await listing(
            client, "resources/templates/list", "resourceTemplates", "uriTemplate", caller
        ),
        await listing(client, "prompts/list", "prompts", "name", caller),
    )


OPEN = (["docs://readme"], ["users://{user_id}/profile"], ["summarize"])
SEEN = {
    None: OPEN,
    "reader": (
        ["docs://readme", "docs://plans"],
        ["users://{user_id}/profile"],
        ["summarize", "review_plans"],
    ),
    "writer": (
        ["docs://readme", "docs://plans"],
        ["users://{user_id}/profile", "vault://{key}"],
        ["summarize", "review_plans"],
    ),
    "owner": (
        ["docs://readme", "docs://plans"],
        ["users://{user_id}/profile", "vault://{key}"],
        ["summarize", "review_plans"],
    ),
    "admin": (
        ["docs://readme", "docs://audit"],
        ["users://{user_id}/profile"],
        ["summarize", "audit_report"],
    ),
}


@pytest.mark.parametrize("revision", REVISIONS)
@pytest.mark.parametrize("caller", list(SEEN))
async def test_a_caller_lists_the_resources_and_prompts_it_may_use(
    revision: str, caller: str | None
) -> None:
    async with checked_client(build(), revision) as client:
        assert await everything(client, caller) == SEEN[caller]


@pytest.mark.parametrize("revision", REVISIONS)
async def test_pages_of_different_callers_stay_apart_and_cursors_name_visible_items(
    revision: str,
) -> None:
    async with checked_client(build(page_size=1), revision) as client:
        for _ in range(2):
            for caller in ("writer", None, "admin", "reader"):
                assert await everything(client, caller) == SEEN[caller]
        first = await ask(client, "resources/templates/list", {}, "writer")
        # The writer's cursor names vault://{key}: no position in the reader's listing.
        error = await refused(
            client, "resources/templates/list", {"cursor": first["nextCursor"]}, "reader"
        )
        assert (error.code, error.message) == (-32602, "Invalid cursor")


@pytest.mark.parametrize("revision", REVISIONS)
async def test_a_hidden_resource_reads_as_one_that_does_not_exist(revision: str) -> None:
    code = -32602 if revision == MODERN else -32002
    async with checked_client(build(), revision) as client:
        absent = await refused(client, "resources/read", {"uri": "docs://nothing"}, "reader")
        for uri, caller in [
            ("docs://audit", "reader"),  # auth= predicate
            ("docs://plans", None),  # scopes=
            ("vault://alpha", "reader"),  # a template's scopes=
        ]:
            error = await refused(client, "resources/read", {"uri": uri}, caller)
            assert (error.code, error.message, error.data) == (code, absent.message, {"uri": uri})
        for uri, caller, text in [
            ("docs://audit", "admin", "the audit trail"),
            ("docs://plans", "reader", "the plans"),
            ("vault://alpha", "writer", "secret alpha"),
            ("vault://beta", "owner", "secret beta"),
        ]:
            read = await ask(client, "resources/read", {"uri": uri}, caller)
            assert read["contents"][0]["text"] == text


async def test_a_hidden_resource_cannot_be_subscribed() -> None:
    async with checked_client(build(), LEGACY) as client:
        for uri, caller in [
            ("docs://plans", None),
            ("vault://k", "reader"),
            ("docs://audit", "owner"),
        ]:
            error = await refused(client, "resources/subscribe", {"uri": uri}, caller)
            assert (error.code, error.data) == (-32002, {"uri": uri})
        for uri, caller in [
            ("docs://plans", "reader"),
            ("vault://k", "owner"),
            ("docs://audit", "admin"),
        ]:
            assert await ask(client, "resources/subscribe", {"uri": uri}, caller) == {}


@pytest.mark.parametrize("revision", REVISIONS)
async def test_a_tool_reads_resources_as_its_caller(revision: str) -> None:
    async with checked_client(build(), revision) as client:
        call = {"name": "peek", "arguments": {"uri": "docs://plans"}}
        allowed = await ask(client, "tools/call", call, "reader")
        assert allowed["content"][0]["text"] == "the plans"
        hidden = await ask(client, "tools/call", call, "admin")
        assert hidden["isError"] is True
        assert hidden["content"][0]["text"] == "Resource not found: docs://plans"


@pytest.mark.parametrize("revision", REVISIONS)
async def test_a_hidden_prompt_is_unknown_and_no_hint_names_it(revision: str) -> None:
    async with checked_client(build(), revision) as client:
        got = await ask(client, "prompts/get", {"name": "audit_report"}, "admin")
        assert got["messages"][0]["content"]["text"] == "Report on the audit trail"
        error = await refused(client, "prompts/get", {"name": "audit_report"}, "writer")
        assert (error.code, error.message) == (-32602, "Unknown prompt: 'audit_report'.")
        for caller, typo, hint in [
            ("admin", "audit_repor", "audit_report"),
            ("reader", "review_plan", "review_plans"),
        ]:
            error = await refused(client, "prompts/get", {"name": typo}, caller)
            assert f"Did you mean {hint!r}?" in error.message  # the hint works ...
        for caller, typo in [("reader", "audit_repor"), (None, "review_plan")]:
            error = await refused(client, "prompts/get", {"name": typo}, caller)
            assert error.message == f"Unknown prompt: {typo!r}."  # ... and names no hidden one
        got = await ask(
            client, "prompts/get", {"name": "review_plans", "arguments": {"topic": "x"}}, "owner"
        )
        assert got["messages"][0]["content"]["text"] == "Review the plans for x"


@pytest.mark.parametrize("revision", REVISIONS)
async def test_completion_offers_only_what_the_caller_may_use(revision: str) -> None:
    def completion(ref: dict[str, Any], argument: str) -> dict[str, Any]:
        return {"ref": ref, "argument": {"name": argument, "value": ""}}

    vault = completion({"type": "ref/resource", "uri": "vault://{key}"}, "key")
    review = completion({"type": "ref/prompt", "name": "review_plans"}, "topic")
    async with checked_client(build(), revision) as client:
        done = await ask(client, "completion/complete", vault, "writer")
        assert done["completion"]["values"] == ["alpha", "beta"]
        done = await ask(client, "completion/complete", review, "reader")
        assert done["completion"]["values"] == ["budget", "roadmap"]

        absent = completion({"type": "ref/resource", "uri": "vault://{other}"}, "key")
        unknown = await refused(client, "completion/complete", absent, "reader")
        error = await refused(client, "completion/complete", vault, "reader")
        assert (error.code, error.message) == (
            -32602,
            unknown.message.replace("vault://{other}", "vault://{key}"),
        )
        error = await refused(client, "completion/complete", review, None)
        assert (error.code, error.message) == (-32602, "Unknown prompt: 'review_plans'.")


@pytest.mark.parametrize("revision", REVISIONS)
async def test_a_uri_a_hidden_resource_serves_stays_hidden_behind_an_open_template(
    revision: str,
) -> None:
    mcp = build()
    mcp.add_resource(lambda name: f"note {name}", "docs://{name}")  # also matches docs://plans
    async with checked_client(mcp, revision) as client:
        read = await ask(client, "resources/read", {"uri": "docs://todo"}, None)
        assert read["contents"][0]["text"] == "note todo"
        error = await refused(client, "resources/read", {"uri": "docs://plans"}, None)
        assert error.data == {"uri": "docs://plans"}


async def test_a_list_that_depends_on_the_caller_is_not_for_shared_caches() -> None:
    for guarded, scope in [(True, "private"), (False, "public")]:
        async with checked_client(build(guarded=guarded), MODERN) as client:
            for method in ("resources/list", "resources/templates/list", "prompts/list"):
                result = await ask(client, method, {}, "reader")
                assert result["cacheScope"] == scope, (method, guarded)


@pytest.mark.parametrize("revision", REVISIONS)
async def test_a_server_without_rules_answers_as_before_and_checks_nothing(
    revision: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def never(*args: Any) -> bool:
        raise AssertionError("a server without access rules checked a caller")

    monkeypatch.setattr(registry, "may_use", never)  # the one access check of every kind
    everyone = (
        ["docs://readme", "docs://plans", "docs://audit"],
        ["users://{user_id}/profile", "vault://{key}"],
        ["summarize", "review_plans", "audit_report"],
    )
    async with checked_client(build(guarded=False), revision) as client:
        for caller in (None, "reader"):
            assert await everything(client, caller) == everyone
            read = await ask(client, "resources/read", {"uri": "vault://k"}, caller)
            assert read["contents"][0]["text"] == "secret k"
            got = await ask(client, "prompts/get", {"name": "audit_report"}, caller)
            assert got["messages"]
            error = await refused(client, "prompts/get", {"name": "audit_repor"}, caller)
            assert "Did you mean 'audit_report'?" in error.message


def test_access_rules_are_checked_at_registration() -> None:
    mcp = Server("rules")
    for bad in ({"scopes": [""]}, {"scopes": [3]}, {"auth": "admin"}):
        with pytest.raises(RegistrationError):
            mcp.add_resource("x", "docs://x", **bad)
        with pytest.raises(RegistrationError):
            mcp.add_resource(lambda key: key, "docs://{key}", **bad)
        with pytest.raises(RegistrationError):
            mcp.add_prompt(lambda: "x", name="x", **bad)
    assert mcp.add_resource("x", "docs://x", scopes="files:read").scopes == ("files:read",)


# ---------------------------------------------------------------- over authenticated HTTP

TOKENS = {
    "reader-token": AccessToken(subject="rita", scopes=frozenset({"files:read"})),
    "boss-token": AccessToken(subject="admin", scopes=frozenset({"boss"})),
}


@pytest.mark.parametrize("revision", REVISIONS)
async def test_bearer_tokens_decide_over_http_with_the_scope_hierarchy(revision: str) -> None:
    from toolwire.auth import ResourceServer, StaticTokens

    auth = ResourceServer(
        "http://127.0.0.1/mcp",
        ["http://127.0.0.1/issuer"],
        StaticTokens(TOKENS),
        scope_hierarchy={"boss": ["files"]},  # boss covers files:read and files:write
    )
    uris = ["docs://plans", "vault://k", "docs://audit"]
    with serve_http(build(auth=auth)) as url:
        async with checked_client(url, revision, auth="reader-token") as client:
            assert await everything(client, None) == SEEN["reader"]
            error = await refused(client, "resources/read", {"uri": "vault://k"}, None)
            assert error.data == {"uri": "vault://k"}
            if revision == MODERN:
                acknowledged = await listen(client, uris)
                assert acknowledged["resourceSubscriptions"] == ["docs://plans"]
            else:
                await refused(client, "resources/subscribe", {"uri": "vault://k"}, None)
        async with checked_client(url, revision, auth="boss-token") as client:
            resources, templates, prompts = await everything(client, None)
            assert resources == ["docs://readme", "docs://plans", "docs://audit"]
            assert templates == ["users://{user_id}/profile", "vault://{key}"]
            assert prompts == ["summarize", "review_plans", "audit_report"]
            read = await ask(client, "resources/read", {"uri": "vault://k"}, None)
            assert read["contents"][0]["text"] == "secret k"
            if revision == MODERN:
                acknowledged = await listen(client, uris)
                assert acknowledged["resourceSubscriptions"] == uris
            else:
                assert await ask(client, "resources/subscribe", {"uri": "vault://k"}, None) == {}


async def listen(client: Any, uris: list[str]) -> dict[str, Any]:
    """Open a listen stream for ``uris``; what the server's acknowledgement accepted."""
    sid = await asyncio.wait_for(client.listen(resource_subscriptions=uris), TIMEOUT)
    (ack,) = [
        n
        for n in client.notifications
        if n["method"] == "notifications/subscriptions/acknowledged"
        and n["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == sid
    ]
    await client.stop_listening(sid)
    notifications: dict[str, Any] = ack["params"]["notifications"]
    return notifications
