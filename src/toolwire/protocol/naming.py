"""Names that fit the strictest LLM APIs, ``^[A-Za-z0-9_-]{1,64}$``, for what many servers
offer under one host (tools, and prompts too): plain when unique, ``{server}_{name}`` when
shared, cut and hashed when still shared or too long. Deterministic: they depend only on the
set of (server, name) pairs, never on connection order. A server mounted with a prefix
(``Server.mount``) gets the shared form, :func:`prefixed_name`, for every name."""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable

MAX_NAME = 64
HASH_LENGTH = 8
NAME_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_INVALID = re.compile(r"[^A-Za-z0-9_-]")


def _sanitize(name: str) -> str:
    return _INVALID.sub("_", name) or "_"


def _hashed(base: str, server: str, tool: str, length: int = HASH_LENGTH) -> str:
    digest = hashlib.sha256(f"{server}\x00{tool}".encode()).hexdigest()[:length]
    return f"{base[: MAX_NAME - length - 1]}_{digest}"


def prefixed_name(prefix: str, name: str) -> str:
    """``{prefix}_{name}`` as the Host names a shared name: cut and hashed past 64 characters."""
    joined = f"{_sanitize(prefix)}_{_sanitize(name)}"
    return joined if len(joined) <= MAX_NAME else _hashed(joined, prefix, name)


def assign_names(pairs: Iterable[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """Model-facing names for (server, tool) pairs: valid, unique and deterministic."""
    keys = sorted(set(pairs))
    plain = {key: _sanitize(key[1]) for key in keys}
    shared = Counter(plain.values())
    names = {
        key: plain[key] if shared[plain[key]] == 1 else f"{_sanitize(key[0])}_{plain[key]}"
        for key in keys
    }
    taken = Counter(names.values())
    for key in keys:
        name = names[key]
        if taken[name] > 1 or len(name) > MAX_NAME:
            names[key] = _hashed(name, *key)
    length = HASH_LENGTH
    while True:  # a hash that lands on another name (next to impossible): lengthen them
        taken = Counter(names.values())
        clashes = [key for key in keys if taken[names[key]] > 1]
        if not clashes:
            return names
        length += 8
        for key in clashes:
            names[key] = _hashed(_sanitize(f"{key[0]}_{key[1]}"), *key, length=length)
