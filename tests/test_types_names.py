"""``toolwire.types`` has the names of the official SDK's ``mcp.types`` (2.x here, 1.x in the
virtualenv the 1.x interop tests use), its generated modules match the schemas, and it stays
off the import path of ``import toolwire``."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import mcp.types
import pytest

import toolwire.types
from interop import peers

ROOT = Path(__file__).resolve().parents[1]

# Public names of mcp.types that are not protocol types, each with the reason.
NOT_PROTOCOL_TYPES = {
    # 2.x: pydantic TypeAdapters the SDK's session layer parses with; toolwire works on
    # dicts (pydantic.TypeAdapter(toolwire.types.ClientRequest) is the same thing).
    "client_notification_adapter": "a TypeAdapter of the SDK's session layer",
    "client_request_adapter": "a TypeAdapter of the SDK's session layer",
    "client_result_adapter": "a TypeAdapter of the SDK's session layer",
    "server_notification_adapter": "a TypeAdapter of the SDK's session layer",
    "server_request_adapter": "a TypeAdapter of the SDK's session layer",
    "server_result_adapter": "a TypeAdapter of the SDK's session layer",
    "jsonrpc_message_adapter": "a TypeAdapter of the SDK's session layer",
    # 1.x: typing helpers of the module itself.
    "AnyFunction": "an alias of Callable[..., Any]",
    "MethodT": "a TypeVar of the SDK's generic Request and Notification",
    "RequestParamsT": "a TypeVar of the SDK's generic Request",
    "NotificationParamsT": "a TypeVar of the SDK's generic Notification",
}

# The names 1.x's mcp/types.py defines at its top level (classes, aliases, constants),
# not the ones it imports.
LIST_1X_NAMES = """
import ast, inspect, mcp.types
names = set()
for node in ast.parse(inspect.getsource(mcp.types)).body:
    if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
        names.add(node.name)
    elif isinstance(node, ast.Assign):
        names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        names.add(node.target.id)
print(" ".join(sorted(n for n in names if not n.startswith("_"))))
"""


def _missing(names: list[str]) -> list[str]:
    return sorted(
        n for n in names if n not in NOT_PROTOCOL_TYPES and n not in toolwire.types.__all__
    )


def test_every_name_of_the_sdk_2_is_here() -> None:
    assert mcp.types.__all__, "mcp.types lists its names"
    assert _missing(list(mcp.types.__all__)) == []


@pytest.mark.peers("mcp-sdk-1")
def test_every_name_of_the_sdk_1_is_here() -> None:
    python = peers.python_sdk_1()
    listed = subprocess.run(
        [python, "-c", LIST_1X_NAMES], capture_output=True, text=True, timeout=120, check=True
    )
    names = listed.stdout.split()
    assert {"CallToolResult", "Content", "TASK_REQUIRED", "ServerResultType"} <= set(names)
    assert _missing(names) == []


def test_the_allow_list_holds_no_protocol_type() -> None:
    schema_names = {n for n in toolwire.types.__all__ if n[0].isupper()}
    assert not set(NOT_PROTOCOL_TYPES) & schema_names


def test_the_names_the_issue_lists_are_models() -> None:
    for name in (
        "CompletionArgument",
        "CompletionContext",
        "PromptReference",
        "ResourceTemplateReference",
        "SamplingMessage",
        "ElicitRequestURLParams",
        "PaginatedRequestParams",
        "ListResourcesRequest",
        "ErrorData",
    ):
        assert issubclass(getattr(toolwire.types, name), toolwire.types.MCPModel), name
    assert toolwire.types.INVALID_PARAMS == mcp.types.INVALID_PARAMS == -32602
    assert toolwire.types.PARSE_ERROR == mcp.types.PARSE_ERROR == -32700
    error = toolwire.types.ErrorData(code=toolwire.types.INVALID_PARAMS, message="bad")
    assert error.to_wire() == {"code": -32602, "message": "bad"}


def test_the_constants_equal_the_sdks() -> None:
    for name in mcp.types.__all__:
        ours, theirs = getattr(toolwire.types, name, None), getattr(mcp.types, name)
        if isinstance(theirs, (int, str, frozenset)) and name != "LATEST_PROTOCOL_VERSION":
            assert ours == theirs, name


def _generator() -> object:
    spec = importlib.util.spec_from_file_location(
        "generate_types", ROOT / "scripts" / "generate_types.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_generated_modules_match_the_schemas() -> None:
    """Regenerating from tests/spec gives the committed modules, byte for byte."""
    generator = _generator()
    files = generator.Generator().render()  # type: ignore[attr-defined]
    files["__init__.py"] = generator.index(files)  # type: ignore[attr-defined]
    folder = ROOT / "src" / "toolwire" / "types"
    stale = [name for name, text in files.items() if (folder / name).read_text() != text]
    assert not stale, f"run scripts/generate_types.py: {stale} differ"
    generated = {p.name for p in folder.glob("*.py") if not p.name.startswith("_")}
    assert generated == set(files) - {"__init__.py"}


def test_the_generator_is_clean_code_too() -> None:
    for args in (["check"], ["format", "--check"]):
        done = subprocess.run(
            [sys.executable, "-m", "ruff", *args, "scripts"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stdout + done.stderr


def test_no_types_module_is_a_god_file() -> None:
    for path in (ROOT / "src" / "toolwire" / "types").glob("*.py"):
        assert len(path.read_text().splitlines()) < 600, path.name


def test_import_toolwire_does_not_load_the_models() -> None:
    code = "import sys, toolwire; print('toolwire.types' in sys.modules, 'pydantic' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert out.stdout.split() == ["False", "False"]
