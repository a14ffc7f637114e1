"""A server mounted two levels down (``outer.mount(middle, prefix="m")`` where
``middle.mount(inner, prefix="i")``) answers through ``outer`` as a direct client of
``inner`` would see it: ``inner``'s middleware sees every request on its components (calls,
reads, prompts, completions, listings) under its own names and URIs, inside ``middle``'s,
inside ``outer``'s.

Over real HTTP (uvicorn), in both eras, every message checked against the negotiated
revision's schema; ``inner`` served directly is the reference.
"""

from __future__ import annotations

from typing import Any

import pytest

import test_mount_middleware as single
from mount_session import session
from toolwire import Server

from http_server import serve_http
from wire import MODERN

pytestmark = pytest.mark.timeout(60)

ERAS = ["2025-11-25", MODERN]


def recorder(seen: list[tuple[str, str, Any]], label: str) -> Any:
    async def record(call: Any, call_next: Any) -> Any:
        params = call.params
        key = params.get("name") or params.get("uri") or params.get("ref")
        if call.method != "server/discover":
            seen.append((label, call.method, key))
        return await call_next(call)

    return record


@pytest.mark.parametrize("middle_has_middleware", [True, False])
@pytest.mark.parametrize("revision", ERAS)
async def test_a_server_mounted_two_levels_down_answers_as_it_would_directly(
    revision: str, middle_has_middleware: bool
) -> None:
    direct_seen: list[tuple[str, Any]] = []
    inner_seen: list[tuple[str, Any]] = []
    order: list[tuple[str, str, Any]] = []
    with serve_http(single.weather(direct_seen)) as url:
        direct = await session(url, revision, "{}", "weather://{}")

    inner = single.weather(inner_seen)
    inner.add_middleware(recorder(order, "inner"))
    middle = Server("middle")
    if middle_has_middleware:
        middle.add_middleware(recorder(order, "middle"))
    middle.mount(inner, prefix="i")
    outer = Server("outer")

    @outer.tool()
    def status() -> str:
        return "ok"

    outer.add_middleware(recorder(order, "outer"))
    outer.mount(middle, prefix="m")
    with serve_http(outer) as url:
        nested = await session(url, revision, "m_i_{}", "weather://m/i/{}")

    # inner's middleware saw what a direct client asks, under its own names and URIs
    assert inner_seen == [seen for seen in direct_seen if seen[0] != "server/discover"]
    # what it changed shows through both mounts: `secret` hidden, descriptions rewritten
    assert direct["tools"] == ["forecast"]
    assert nested["tools"] == ["status", "m_i_forecast"]
    assert direct["prompts"] == [("plan", "checked")]
    assert nested["prompts"] == [("m_i_plan", "checked")]
    assert [c["text"] for c in direct["today"]] == ["SUNNY"]
    assert nested["today"] == [{**direct["today"][0], "uri": "weather://m/i/today"}]
    assert nested["resources"] == ["weather://m/i/today"]
    assert nested["templates"] == ["weather://m/i/{city}/week"]
    for key in ("week", "plan", "city", "week_city", "call"):
        assert nested[key] == direct[key], key

    # each level's middleware inside the one above, each under its own names
    def levels(method: str, *keys: Any) -> list[tuple[str, str, Any]]:
        return [entry for entry in order if entry[1] == method and entry[2] in keys]

    labels = ["outer", "middle", "inner"] if middle_has_middleware else ["outer", "inner"]
    read = levels("resources/read", "weather://m/i/today", "weather://i/today", "weather://today")
    want = {"outer": "weather://m/i/today", "middle": "weather://i/today"}
    assert read == [(x, "resources/read", want.get(x, "weather://today")) for x in labels]
    got = levels("prompts/get", "m_i_plan", "i_plan", "plan")
    names = {"outer": "m_i_plan", "middle": "i_plan", "inner": "plan"}
    assert got == [(x, "prompts/get", names[x]) for x in labels]
    listed = [entry[0] for entry in order if entry[1] == "tools/list"]
    assert listed == labels
