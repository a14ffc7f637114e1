"""The import paths users write keep working as the package's folders change: every public
name of ``toolwire``, ``toolwire.server``, ``toolwire.client``, ``toolwire.lowlevel`` and
``toolwire.types``, and the documented paths of names that moved to a feature package or a
subpackage (where they are the very objects the new path gives)."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

PUBLIC = ["toolwire", "toolwire.server", "toolwire.client", "toolwire.lowlevel", "toolwire.types"]

# (the path users wrote, where the name lives now)
MOVED = [
    ("toolwire.server", "RateLimiter", "toolwire.admission"),
    ("toolwire.server", "AuditLog", "toolwire.admission"),
    ("toolwire.server.limits_redis", "RedisBuckets", "toolwire.admission"),
    ("toolwire", "Arg", "toolwire.composition.transforms"),
    ("toolwire.transports.http_store", "RedisStore", "toolwire.transports.store"),
    ("toolwire.transports.http_store", "MemoryStore", "toolwire.transports.store"),
    ("toolwire.transports.http_health", "Health", "toolwire.transports.http.health"),
    ("toolwire.transports.http", "HttpApp", "toolwire.transports.http.app"),
    ("toolwire.client.oauth_storage", "TokenStorage", "toolwire.client.oauth.storage"),
    ("toolwire.client.oauth", "OAuth", "toolwire.client.oauth.flow"),
    ("toolwire.client.host", "Host", "toolwire.client.host.host"),
    ("toolwire.client.host", "to_anthropic_content", "toolwire.client.host.exports"),
    ("toolwire.client.host", "to_openai_content", "toolwire.client.host.exports"),
    ("toolwire.client.host", "to_gemini_content", "toolwire.client.host.exports"),
]


@pytest.mark.parametrize("module", PUBLIC)
def test_every_public_name_imports(module: str) -> None:
    # each in a fresh interpreter: nothing imported before helps a name resolve
    code = (
        f"import {module} as m\n"
        "missing = [n for n in m.__all__ if getattr(m, n, None) is None]\n"
        "assert not missing, missing\n"
        "print(len(m.__all__))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert int(result.stdout) > 0


@pytest.mark.parametrize(("old", "name", "new"), MOVED)
def test_a_moved_name_keeps_its_old_path(old: str, name: str, new: str) -> None:
    code = f"from {old} import {name} as a\nfrom {new} import {name} as b\nassert a is b\n"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr


def test_an_unknown_name_of_a_kept_path_is_an_attribute_error() -> None:
    kept = importlib.import_module("toolwire.server.limits_redis")
    with pytest.raises(AttributeError, match="RedisBucket"):
        kept.RedisBucket  # noqa: B018
