"""Era shaping: the one place that knows what each revision may see.

Handlers produce one internal shape (the newest); these functions cut it down to
what the negotiated revision defines, so a 2024-11-05 client never sees a ``title``,
an ``outputSchema`` or a ``resource_link``, and a 2026-07-28 client gets ``resultType``,
caching hints and ``serverInfo`` in ``_meta``.
"""

from __future__ import annotations

from typing import Any

from .. import jsonrpc
from .revisions import META_SERVER_INFO, Features

JSON = dict[str, Any]

_TOOL_ANNOTATION_KEYS = (
    "title",
    "readOnlyHint",
    "destructiveHint",
    "idempotentHint",
    "openWorldHint",
)


def _is_object_schema(schema: object) -> bool:
    return isinstance(schema, dict) and schema.get("type") == "object"


def tool(definition: JSON, features: Features) -> JSON:
    """A tool definition as the revision defines it."""
    shaped: JSON = {"name": definition["name"]}
    if features.titles and "title" in definition:
        shaped["title"] = definition["title"]
    if "description" in definition:
        shaped["description"] = definition["description"]
    shaped["inputSchema"] = definition["inputSchema"]
    if features.structured and "outputSchema" in definition:
        output_schema = definition["outputSchema"]
        # Before 2026-07-28 an outputSchema's root must be an object schema (TL-08).
        if features.any_structured or _is_object_schema(output_schema):
            shaped["outputSchema"] = output_schema
    annotations = definition.get("annotations")
    if features.tool_annotations and annotations:
        shaped["annotations"] = {
            k: annotations[k] for k in _TOOL_ANNOTATION_KEYS if k in annotations
        }
    if features.icons and "icons" in definition:
        shaped["icons"] = definition["icons"]
    if features.meta and "_meta" in definition:
        shaped["_meta"] = definition["_meta"]
    return shaped


def content_block(block: JSON, features: Features) -> JSON:
    """One content block; kinds the revision lacks become a text block that says what it was."""
    kind = block.get("type")
    if kind == "resource_link" and not features.resource_links:
        name = block.get("title") or block.get("name") or block["uri"]
        return {"type": "text", "text": f"Resource: {name} <{block['uri']}>"}
    if kind == "audio" and not features.audio:
        return {
            "type": "text",
            "text": f"[audio content ({block.get('mimeType', 'unknown type')})]",
        }
    if not features.meta and "_meta" in block:
        block = {k: v for k, v in block.items() if k != "_meta"}
    if not features.meta and kind == "resource":
        resource = block.get("resource")
        if isinstance(resource, dict) and "_meta" in resource:
            block = {**block, "resource": {k: v for k, v in resource.items() if k != "_meta"}}
    if not features.icons and kind == "resource_link" and "icons" in block:
        block = {k: v for k, v in block.items() if k != "icons"}
    annotations = block.get("annotations")
    if (
        not features.last_modified
        and isinstance(annotations, dict)
        and "lastModified" in annotations
    ):
        kept = {k: v for k, v in annotations.items() if k != "lastModified"}
        block = {k: v for k, v in block.items() if k != "annotations"}
        if kept:
            block["annotations"] = kept
    return block


def call_result(result: JSON, features: Features) -> JSON:
    """A ``tools/call`` result for the revision."""
    content = result.get("content", [])
    if not features.icons:  # every content feature is older than icons
        content = [content_block(block, features) for block in content]
    shaped: JSON = {"content": content}
    if "structuredContent" in result:
        structured = result["structuredContent"]
        # Before 2026-07-28 structuredContent must be an object (TL-20).
        if features.structured and (features.any_structured or isinstance(structured, dict)):
            shaped["structuredContent"] = structured
        elif not content:  # a client that cannot see it still gets the data (TL-21)
            shaped["content"] = [{"type": "text", "text": jsonrpc.dumps(structured).decode()}]
    if result.get("isError"):
        shaped["isError"] = True
    if features.meta and "_meta" in result:
        shaped["_meta"] = result["_meta"]
    return shaped


def prompt(definition: JSON, features: Features) -> JSON:
    """A prompt definition as the revision defines it (no ``title`` before 2025-06-18, no
    ``icons`` before 2025-11-25)."""
    shaped: JSON = {"name": definition["name"]}
    if features.titles and "title" in definition:
        shaped["title"] = definition["title"]
    if "description" in definition:
        shaped["description"] = definition["description"]
    if "arguments" in definition:
        arguments = definition["arguments"]
        if not features.titles:
            arguments = [{k: v for k, v in a.items() if k != "title"} for a in arguments]
        shaped["arguments"] = arguments
    if features.icons and "icons" in definition:
        shaped["icons"] = definition["icons"]
    if features.meta and "_meta" in definition:
        shaped["_meta"] = definition["_meta"]
    return shaped


def prompt_result(result: JSON, features: Features) -> JSON:
    """A ``prompts/get`` result: each message's content block as the revision allows it."""
    messages = result["messages"]
    if not features.icons:  # every content feature is older than icons
        messages = [
            {"role": m["role"], "content": content_block(m["content"], features)} for m in messages
        ]
    shaped: JSON = {"messages": messages}
    if "description" in result:
        shaped["description"] = result["description"]
    if features.meta and "_meta" in result:
        shaped["_meta"] = result["_meta"]
    return shaped


def implementation(info: JSON, features: Features) -> JSON:
    """``serverInfo`` / ``clientInfo`` for the revision."""
    shaped: JSON = {"name": info["name"], "version": info["version"]}
    if features.titles and "title" in info:
        shaped["title"] = info["title"]
    if features.icons:
        for key in ("description", "icons", "websiteUrl"):
            if key in info:
                shaped[key] = info[key]
    return shaped


def complete(result: JSON, features: Features, server_info: JSON) -> JSON:
    """Mark a result of the modern era: ``resultType`` and ``serverInfo`` in ``_meta``."""
    if not features.modern:
        return result
    result.setdefault("resultType", "complete")  # an InputRequiredResult keeps its own
    meta = result.get("_meta")
    result["_meta"] = (
        {**meta, META_SERVER_INFO: server_info} if meta else {META_SERVER_INFO: server_info}
    )
    return result


def cacheable(result: JSON, features: Features, ttl_ms: int, scope: str) -> JSON:
    """Add the caching hints a modern list result must carry (TL-36, PG-07)."""
    if features.modern:
        result["ttlMs"] = ttl_ms
        result["cacheScope"] = scope
    return result


def result_fragment(result: JSON) -> bytes:
    """A result serialized once, to splice into many responses (never raises)."""
    return jsonrpc.dumps(result)


def resource(definition: JSON, features: Features) -> JSON:
    """A resource or resource template as the revision defines it: no ``title`` before
    2025-06-18, no ``icons`` before 2025-11-25, no ``_meta`` nor ``annotations.lastModified``
    before 2025-06-18 (``annotations`` and ``size`` exist in every revision)."""
    key = "uri" if "uri" in definition else "uriTemplate"
    shaped: JSON = {key: definition[key], "name": definition["name"]}
    if features.titles and "title" in definition:
        shaped["title"] = definition["title"]
    for field in ("description", "mimeType", "size"):
        if field in definition:
            shaped[field] = definition[field]
    annotations = definition.get("annotations")
    if annotations and not features.last_modified:
        annotations = {k: v for k, v in annotations.items() if k != "lastModified"}
    if annotations:
        shaped["annotations"] = annotations
    if features.icons and "icons" in definition:
        shaped["icons"] = definition["icons"]
    if features.meta and "_meta" in definition:
        shaped["_meta"] = definition["_meta"]
    return shaped


def resource_contents(contents: list[JSON], features: Features) -> list[JSON]:
    """``resources/read`` contents for the revision (``_meta`` exists since 2025-06-18)."""
    if features.meta:
        return contents
    return [{k: v for k, v in item.items() if k != "_meta"} for item in contents]
