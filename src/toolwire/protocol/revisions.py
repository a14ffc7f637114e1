"""The MCP revisions toolwire speaks, and what each one allows on the wire.

Revision strings are dates, so they order correctly as strings.
"""

from __future__ import annotations

from dataclasses import dataclass

LEGACY_REVISIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
MODERN_REVISIONS = ("2026-07-28",)
REVISIONS = LEGACY_REVISIONS + MODERN_REVISIONS
LATEST = MODERN_REVISIONS[-1]
LATEST_LEGACY = LEGACY_REVISIONS[-1]
# What an error about an unsupported version lists: newest first.
SUPPORTED_NEWEST_FIRST = tuple(reversed(REVISIONS))

# Reserved ``_meta`` keys of the modern era.
META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"
META_LOG_LEVEL = "io.modelcontextprotocol/logLevel"
META_SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
# toolwire's own: a tools/call sent with this key runs once (toolwire.server.dispatch.idempotency)
META_IDEMPOTENCY_KEY = "io.toolwire/idempotency-key"


@dataclass(frozen=True)
class Features:
    """What one revision defines; the shaping code asks these instead of comparing dates."""

    revision: str
    modern: bool  # stateless era: no handshake, resultType, caching hints
    batches: bool  # JSON-RPC batch arrays accepted (2025-03-26 only)
    audio: bool  # AudioContent
    tool_annotations: bool
    structured: bool  # Tool.outputSchema and CallToolResult.structuredContent
    any_structured: bool  # outputSchema may be any schema, structuredContent any JSON value
    titles: bool  # BaseMetadata.title
    resource_links: bool  # ResourceLink content blocks
    meta: bool  # _meta on tools, content blocks and resource contents
    last_modified: bool  # Annotations.lastModified
    icons: bool  # icons, Implementation.description / websiteUrl


def _features(revision: str) -> Features:
    return Features(
        revision=revision,
        modern=revision in MODERN_REVISIONS,
        batches=revision == "2025-03-26",
        audio=revision >= "2025-03-26",
        tool_annotations=revision >= "2025-03-26",
        structured=revision >= "2025-06-18",
        any_structured=revision >= "2026-07-28",
        titles=revision >= "2025-06-18",
        resource_links=revision >= "2025-06-18",
        meta=revision >= "2025-06-18",
        last_modified=revision >= "2025-06-18",
        icons=revision >= "2025-11-25",
    )


FEATURES = {revision: _features(revision) for revision in REVISIONS}


def is_modern_initialize(params: object) -> bool:
    """An ``initialize`` without the handshake's ``protocolVersion`` whose ``_meta`` names a
    revision after the legacy ones is a request of that revision, which has no
    ``initialize`` (-32601; -32022 for an unknown one). With ``protocolVersion`` it opens
    a legacy session, whatever else it carries."""
    if not isinstance(params, dict) or isinstance(params.get("protocolVersion"), str):
        return False
    meta = params.get("_meta")
    if not isinstance(meta, dict) or META_PROTOCOL_VERSION not in meta:
        return False
    return meta[META_PROTOCOL_VERSION] not in LEGACY_REVISIONS


def negotiate_legacy(requested: object) -> str:
    """The revision to answer an ``initialize`` with (LC-08).

    The requested one if it is a legacy revision toolwire speaks, else the latest legacy
    revision; the client decides whether it can live with that.
    """
    if isinstance(requested, str) and requested in LEGACY_REVISIONS:
        return requested
    return LATEST_LEGACY
