"""The policy the inspector's sandbox proxy puts an app view under, and what it takes from a
server's view resource: the spec's construction (MCP Apps, "Security"), only well-formed
origins, only known permissions; no list means no network at all."""

from __future__ import annotations

import pytest

from toolwire.extensions.apps import MIME_TYPE
from toolwire.inspector.sandbox import ViewRefused, content_security_policy, open_view

PAGES = ["http://127.0.0.1:6274", "http://localhost:6274"]


def read(content: dict) -> dict:
    return {"contents": [{"uri": "ui://v", "mimeType": MIME_TYPE, "text": "<p>", **content}]}


def test_a_view_without_a_policy_may_reach_nothing() -> None:
    assert content_security_policy({}, PAGES) == (
        "default-src 'none'; script-src 'self' 'unsafe-inline'; "
        "style-src 'self' 'unsafe-inline'; connect-src 'none'; img-src 'self' data:; "
        "font-src 'self'; media-src 'self' data:; frame-src 'none'; object-src 'none'; "
        "base-uri 'self'; frame-ancestors http://127.0.0.1:6274 http://localhost:6274"
    )


def test_declared_domains_go_to_their_directives() -> None:
    policy = content_security_policy(
        {
            "connectDomains": ["https://api.example.com", "wss://live.example.com"],
            "resourceDomains": ["https://*.cdn.example.com"],
            "frameDomains": ["https://www.youtube.com"],
            "baseUriDomains": ["https://cdn.example.com"],
        },
        PAGES,
    )
    directives = dict(part.split(" ", 1) for part in policy.split("; "))
    assert directives["connect-src"] == "https://api.example.com wss://live.example.com"
    for name in ("script-src", "style-src", "img-src", "font-src", "media-src"):
        assert directives[name].endswith(" https://*.cdn.example.com"), name
    assert directives["frame-src"] == "https://www.youtube.com"
    assert directives["base-uri"] == "https://cdn.example.com"


def test_what_a_server_declares_is_filtered_before_it_reaches_a_policy() -> None:
    view = open_view(
        "ui://v",
        read(
            {
                "_meta": {
                    "ui": {
                        "csp": {
                            "connectDomains": [
                                "https://a.example; script-src *",
                                "https://b.example",
                            ],
                            "resourceDomains": "https://not-a-list.example",
                            "frameDomains": ["*", "'unsafe-eval'", 7],
                        },
                        "permissions": {"camera": {}, "usb": {}},
                        "prefersBorder": False,
                    }
                }
            }
        ),
    )
    assert view["csp"] == {"connectDomains": ["https://b.example"], "frameDomains": []}
    assert view["permissions"] == {"camera": {}}
    assert view["prefersBorder"] is False and view["html"] == "<p>"


@pytest.mark.parametrize(
    ("result", "reason"),
    [
        ({"contents": []}, "exactly one content"),
        ({"contents": [{"uri": "ui://v", "mimeType": "text/html", "text": "<p>"}]}, "not an app"),
        (read({"text": None}), "no HTML text"),
        ({"contents": "nope"}, "exactly one content"),
    ],
)
def test_a_resource_that_is_not_a_view_is_refused_with_the_reason(
    result: dict, reason: str
) -> None:
    with pytest.raises(ViewRefused, match=reason):
        open_view("ui://v", result)
