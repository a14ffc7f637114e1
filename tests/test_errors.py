"""What the model sees when a tool fails (DESIGN "Errors").

Expected failures from the tool's own code come back verbatim; anything else, and anything
raised deep inside a library, is masked behind a reference id whose traceback is in the
``toolwire`` log. Bad arguments are ``isError`` results; an unknown tool is a JSON-RPC error.
"""

from __future__ import annotations

import importlib
import json
import logging
import re
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, Field

import toolwire
from toolwire import Server, ServerError, ToolError
from toolwire.functions import inspection as functions

from wire import checked_client

LEGACY = "2025-06-18"
MODERN = "2026-07-28"
REVISIONS = ["2024-11-05", LEGACY, MODERN]
MASKED = re.compile(r"Tool '(\w+)' failed with an internal error \(reference ([0-9a-f]{8})\)")


def error_result(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": True}


def body(raw: dict[str, Any]) -> dict[str, Any]:
    """A result without the modern envelope (resultType, serverInfo)."""
    out = {k: v for k, v in raw.items() if k != "resultType"}
    meta = {k: v for k, v in (out.pop("_meta", None) or {}).items() if "serverInfo" not in k}
    if meta:
        out["_meta"] = meta
    return out


def build_server(**options: Any) -> Server:
    mcp = Server("errors", **options)

    @mcp.tool()
    def refuse(reason: str) -> str:
        """Always refuses."""
        raise ToolError(reason)

    @mcp.tool()
    def divide(a: float, b: float) -> float:
        """Divide a by b."""
        if b == 0:
            raise ValueError("Cannot divide by zero")
        return a / b

    @mcp.tool()
    async def adivide(a: float, b: float) -> float:
        if b == 0:
            raise ValueError("Cannot divide by zero")
        return a / b

    users = {"42": "Ada"}

    @mcp.tool()
    def user(user_id: str) -> str:
        if user_id not in users:
            raise KeyError(f"No user with id {user_id}")
        return users[user_id]

    @mcp.tool()
    def lookup(key: str) -> str:
        return users[key]

    @mcp.tool()
    def read(path: str) -> str:
        with open(path) as f:
            return f.read()

    @mcp.tool()
    def missing_file(name: str) -> str:
        raise FileNotFoundError(f"File not found: {name}")

    @mcp.tool()
    def parse(text: str) -> dict[str, Any]:
        return dict(json.loads(text))

    @mcp.tool()
    async def aparse(text: str) -> dict[str, Any]:
        return dict(json.loads(text))

    @mcp.tool()
    def crash() -> str:
        raise RuntimeError("connection to postgres://admin:hunter2@db failed")

    @mcp.tool()
    def get_weather(city: str) -> str:
        return f"Sunny in {city}"

    return mcp


@pytest.fixture(scope="module")
def mcp() -> Server:
    return build_server()


# ---------------------------------------------------------------- shown verbatim


@pytest.mark.parametrize("revision", REVISIONS)
async def test_tool_error_text_is_verbatim(mcp: Server, revision: str) -> None:
    text = "Quota exceeded: 3/3 calls used today.\nTry again tomorrow (UTC)."
    async with checked_client(mcp, revision) as client:
        result = await client.call_tool("refuse", {"reason": text})
    assert body(result.raw) == error_result(text)


@pytest.mark.parametrize("tool", ["divide", "adivide"])
async def test_value_error_from_the_tool_is_its_message(mcp: Server, tool: str) -> None:
    async with checked_client(mcp, LEGACY) as client:
        result = await client.call_tool(tool, {"a": 1, "b": 0})
        assert result.raw == error_result("Cannot divide by zero")
        assert (await client.call_tool(tool, {"a": 1, "b": 4})).structured == {"result": 0.25}


async def test_key_error_and_file_not_found_raised_by_the_tool_are_their_message(
    mcp: Server, tmp_path: Path
) -> None:
    async with checked_client(mcp, MODERN) as client:
        result = await client.call_tool("user", {"user_id": "7"})
        assert body(result.raw) == error_result("No user with id 7")
        result = await client.call_tool("missing_file", {"name": "notes.txt"})
        assert body(result.raw) == error_result("File not found: notes.txt")


async def test_what_builtins_raise_in_the_tools_own_frame_is_masked(
    mcp: Server, tmp_path: Path
) -> None:
    """A subscript or open() that fails in the tool's frame: Python wrote that message
    (a key, an absolute path), not the author, so it is masked like a library's."""
    async with checked_client(mcp, MODERN) as client:
        result = await client.call_tool("lookup", {"key": "nobody"})
        masked(result, "lookup")
        path = tmp_path / "absent.txt"
        result = await client.call_tool("read", {"path": str(path)})
        masked(result, "read")
        assert str(tmp_path) not in result.text


async def test_an_exception_from_a_helper_in_the_authors_own_module_is_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "my_helpers.py").write_text(
        textwrap.dedent(
            """
            def check_positive(x):
                if x <= 0:
                    raise ValueError(f"{x} is not positive")
                return x
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    helpers = importlib.import_module("my_helpers")
    mcp = Server("t")

    @mcp.tool()
    def sqrt(x: float) -> float:
        return float(helpers.check_positive(x)) ** 0.5

    async with checked_client(mcp, LEGACY) as client:
        result = await client.call_tool("sqrt", {"x": -4})
    assert result.raw == error_result("-4.0 is not positive")
    sys.modules.pop("my_helpers", None)


# ---------------------------------------------------------------- masked


def masked(result: Any, tool: str) -> str:
    """Assert a generic error result; return its reference id."""
    assert result.is_error
    match = MASKED.fullmatch(result.text)
    assert match, result.text
    assert match.group(1) == tool
    return match.group(2)


def logged(caplog: pytest.LogCaptureFixture, reference: str) -> logging.LogRecord:
    [record] = [r for r in caplog.records if reference in r.getMessage()]
    assert record.name == "toolwire"
    assert record.levelno == logging.ERROR
    assert record.exc_info is not None
    return record


@pytest.mark.parametrize("tool", ["parse", "aparse"])
async def test_an_error_raised_inside_a_library_is_masked_and_logged(
    mcp: Server, tool: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR, logger="toolwire")
    async with checked_client(mcp, LEGACY) as client:
        result = await client.call_tool(tool, {"text": "{"})
    assert set(result.raw) == {"content", "isError"} and len(result.content) == 1
    reference = masked(result, tool)
    assert "Expecting" not in result.text and "json" not in result.text.lower()
    record = logged(caplog, reference)
    assert record.exc_info is not None and isinstance(record.exc_info[1], json.JSONDecodeError)
    assert "json" in caplog.text and "decoder.py" in caplog.text  # the traceback is in the log


@pytest.fixture
def fake_site_packages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    site = tmp_path / "venv" / "lib" / "site-packages"
    site.mkdir(parents=True)
    (site / "fakedb.py").write_text(
        textwrap.dedent(
            """
            def connect(dsn):
                raise ValueError(f"could not connect to {dsn}")
            """
        )
    )
    monkeypatch.syspath_prepend(str(site))
    yield importlib.import_module("fakedb")
    sys.modules.pop("fakedb", None)


async def test_an_expected_error_from_an_installed_package_is_masked(
    fake_site_packages: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR, logger="toolwire")
    mcp = Server("t")

    @mcp.tool()
    def query(sql: str) -> str:
        fake_site_packages.connect("postgres://admin:hunter2@db")
        return sql

    async with checked_client(mcp, LEGACY) as client:
        result = await client.call_tool("query", {"sql": "select 1"})
    reference = masked(result, "query")
    assert "hunter2" not in result.text
    assert "hunter2" in logged(caplog, reference).exc_info[1].args[0]  # type: ignore[index]


async def test_an_error_in_a_third_party_package_is_masked(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.ERROR, logger="toolwire")
    from pydantic import TypeAdapter

    mcp = Server("t")

    @mcp.tool()
    def to_int(text: str) -> int:
        return int(TypeAdapter(int).validate_python(text))

    async with checked_client(mcp, LEGACY) as client:
        result = await client.call_tool("to_int", {"text": "abc"})
        assert "validation" not in result.text.lower()
        masked(result, "to_int")
        assert (await client.call_tool("to_int", {"text": "12"})).structured == {"result": 12}


async def test_runtime_error_from_own_code_is_masked(
    mcp: Server, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR, logger="toolwire")
    async with checked_client(mcp, MODERN) as client:
        result = await client.call_tool("crash")
    reference = masked(result, "crash")
    assert "hunter2" not in json.dumps(result.raw)
    record = logged(caplog, reference)
    assert "'crash'" in record.getMessage()
    assert "hunter2" in caplog.text


async def test_each_masked_failure_has_its_own_reference(
    mcp: Server, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR, logger="toolwire")
    async with checked_client(mcp, LEGACY) as client:
        first = masked(await client.call_tool("crash"), "crash")
        second = masked(await client.call_tool("crash"), "crash")
    assert first != second


async def test_mask_errors_false_shows_the_details(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR, logger="toolwire")
    mcp = build_server(mask_errors=False)
    async with checked_client(mcp, LEGACY) as client:
        result = await client.call_tool("crash")
        match = re.fullmatch(
            r"RuntimeError: connection to postgres://admin:hunter2@db failed "
            r"\(reference ([0-9a-f]{8})\)",
            result.text,
        )
        assert result.is_error and match, result.text
        logged(caplog, match.group(1))
        result = await client.call_tool("parse", {"text": "{"})
        assert result.is_error
        assert result.text.startswith("JSONDecodeError: Expecting property name")
        # expected errors look the same either way
        result = await client.call_tool("divide", {"a": 1, "b": 0})
        assert result.raw == error_result("Cannot divide by zero")


# ---------------------------------------------------------------- arguments


class Item(BaseModel):
    name: str
    quantity: int = Field(gt=0)


def argument_server() -> Server:
    mcp = Server("args")

    @mcp.tool()
    def order(customer: str, items: list[Item], express: bool = False) -> str:
        return f"{customer}: {len(items)} item(s), express={express}"

    @mcp.tool()
    def search_users(
        query: str,
        limit: int = 10,
        include_inactive: bool = False,
        department: str | None = None,
    ) -> str:
        return f"{query}|{limit}|{include_inactive}|{department}"

    @mcp.tool()
    def tags(names: list[str], weights: dict[str, float], note: Item | None = None) -> str:
        return f"{names}|{weights}|{note}"

    return mcp


@pytest.mark.parametrize("revision", [LEGACY, MODERN])
async def test_invalid_arguments_name_each_bad_and_missing_field(revision: str) -> None:
    async with checked_client(argument_server(), revision) as client:
        result = await client.call_tool(
            "order",
            {"items": [{"name": "pen", "quantity": 0}, {"quantity": "many"}], "express": "yes?"},
        )
    assert body(result.raw) == error_result(
        "Invalid arguments for tool 'order': "
        "customer: Field required; "
        "items.0.quantity: Input should be greater than 0; "
        "items.1.name: Field required; "
        "items.1.quantity: Input should be a valid integer, unable to parse string as an integer; "
        "express: Input should be a valid boolean, unable to interpret input"
    )


async def test_invalid_arguments_on_the_fast_path() -> None:
    async with checked_client(argument_server(), LEGACY) as client:
        result = await client.call_tool("search_users", {"limit": "ten"})
    assert result.raw == error_result(
        "Invalid arguments for tool 'search_users': query: Field required; "
        "limit: Input should be a valid integer, unable to parse string as an integer"
    )


async def test_no_arguments_at_all_lists_every_required_field() -> None:
    async with checked_client(argument_server(), LEGACY) as client:
        result = await client.call_tool("order")
    assert result.raw == error_result(
        "Invalid arguments for tool 'order': customer: Field required; items: Field required"
    )


async def test_json_strings_for_list_and_object_params_are_accepted() -> None:
    async with checked_client(argument_server(), LEGACY) as client:
        result = await client.call_tool(
            "tags",
            {
                "names": '["a", "b"]',
                "weights": '{"a": 0.5}',
                "note": '{"name": "n", "quantity": 2}',
            },
        )
        text = "['a', 'b']|{'a': 0.5}|name='n' quantity=2"
        assert result.raw == {
            "content": [{"type": "text", "text": text}],
            "structuredContent": {"result": text},
        }
        result = await client.call_tool(
            "order", {"customer": "Ada", "items": '[{"name": "pen", "quantity": 1}]'}
        )
        assert result.text == "Ada: 1 item(s), express=False"
        # a JSON string that still does not fit is reported like any bad value
        result = await client.call_tool("order", {"customer": "Ada", "items": '[{"name": 1}]'})
        assert result.is_error and "items" in result.text


async def test_null_for_an_optional_param_is_accepted() -> None:
    async with checked_client(argument_server(), MODERN) as client:
        result = await client.call_tool("search_users", {"query": "ada", "department": None})
        assert body(result.raw) == {
            "content": [{"type": "text", "text": "ada|10|False|None"}],
            "structuredContent": {"result": "ada|10|False|None"},
        }
        result = await client.call_tool("tags", {"names": [], "weights": {}, "note": None})
        assert result.text == "[]|{}|None"
        result = await client.call_tool(
            "search_users", {"query": "ada", "limit": 3, "department": "R&D"}
        )
        assert result.text == "ada|3|False|R&D"


# ---------------------------------------------------------------- protocol errors


@pytest.mark.parametrize("revision", REVISIONS)
async def test_unknown_tool_is_a_json_rpc_error_with_a_hint(mcp: Server, revision: str) -> None:
    async with checked_client(mcp, revision) as client:
        with pytest.raises(ServerError) as info:
            await client.call_tool("gett_weather", {"city": "Paris"})
        assert info.value.code == -32602
        assert info.value.message == "Unknown tool: 'gett_weather'. Did you mean 'get_weather'?"
        with pytest.raises(ServerError) as info:
            await client.call_tool("zzz")
        assert info.value.message == "Unknown tool: 'zzz'."
        # the session survives
        assert (await client.call_tool("get_weather", {"city": "Oslo"})).text == "Sunny in Oslo"


async def test_library_roots_cover_the_standard_library_and_all_of_toolwire() -> None:
    roots = functions._library_roots()
    assert any(Path(json.__file__).resolve().is_relative_to(root) for root in roots)
    # every module of toolwire, whichever subpackage holds it, is a library frame
    package = Path(toolwire.__file__).resolve().parent
    assert any(package.is_relative_to(root) for root in roots)
