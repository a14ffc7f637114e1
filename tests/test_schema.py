# Optional[X] is spelled out on purpose: it is one of the annotations under test.
# ruff: noqa: UP045
from __future__ import annotations

import asyncio
import dataclasses
import datetime
import enum
import functools
import itertools
import json
import os
import subprocess
import sys
import textwrap
import types
import typing
import uuid
from pathlib import Path
from typing import Annotated, Any, Literal, Optional, Union

import pytest
from jsonschema import Draft202012Validator
from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import TypedDict

from toolwire.schema import function as schema_module
from toolwire.schema.function import FunctionSchema, InvalidArguments, function_schema

SRC = Path(__file__).resolve().parents[1] / "src"


def build(fn: Any, **kwargs: Any) -> FunctionSchema:
    """function_schema plus a check that every schema it produced is valid 2020-12."""
    fs = function_schema(fn, **kwargs)
    Draft202012Validator.check_schema(fs.input_schema)
    if fs.output_schema is not None:
        Draft202012Validator.check_schema(fs.output_schema)
        assert fs.output_schema["type"] == "object"
    assert fs.input_schema["type"] == "object"
    return fs


def slow(fn: Any, **kwargs: Any) -> FunctionSchema:
    """The same, always through pydantic (the fast path disabled)."""
    return schema_module._function_schema(
        fn,
        kwargs.get("inject", ()),
        kwargs.get("profile", "portable"),
        kwargs.get("structured_output"),
        allow_fast=False,
        unknown_arguments=kwargs.get("unknown_arguments", "reject"),
    )


def assert_no_titles(node: Any, under_properties: bool = False) -> None:
    if isinstance(node, dict):
        if not under_properties:
            assert "title" not in node, node
        for key, value in node.items():
            if key in ("default", "enum", "const", "examples"):
                continue
            assert_no_titles(value, under_properties=key in ("properties", "$defs"))
    elif isinstance(node, list):
        for item in node:
            assert_no_titles(item)


# -- models used by the tests -----------------------------------------------------------------


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Address(BaseModel):
    """A postal address."""

    title: str
    street: str
    zip_code: Optional[str] = None


class Node(BaseModel):
    value: int
    children: list[Node] = []


class Aliased(BaseModel):
    model_config = ConfigDict(populate_by_name=True)
    user_name: str = Field(alias="userName")
    when: datetime.datetime


@dataclasses.dataclass
class Point:
    x: int
    y: int = 0


class Weather(TypedDict):
    temperature: float
    conditions: str


class ImageLike:
    __toolwire_content__ = True


class PngImage(ImageLike):
    pass


class Context:
    pass


class SubContext(Context):
    pass


# -- input schemas, portable profile ----------------------------------------------------------


def search_users(
    query: str, limit: int = 10, include_inactive: bool = False, department: Optional[str] = None
) -> str:
    """Search for users in the database.

    Args:
        query: Search term to match against user names or emails
        limit: Maximum number of results to return (default: 10)
        include_inactive: Whether to include inactive users
        department: Optional department filter

    Returns:
        A formatted list of users.
    """
    return query


SEARCH_USERS_SCHEMA = {
    "type": "object",
    "properties": {
        "query": {
            "type": "string",
            "description": "Search term to match against user names or emails",
        },
        "limit": {
            "type": "integer",
            "description": "Maximum number of results to return (default: 10)",
            "default": 10,
        },
        "include_inactive": {
            "type": "boolean",
            "description": "Whether to include inactive users",
            "default": False,
        },
        "department": {"type": "string", "description": "Optional department filter"},
    },
    "required": ["query"],
}


def test_design_example_search_users() -> None:
    fs = build(search_users)
    assert fs.description == "Search for users in the database."
    assert json.dumps(fs.input_schema) == json.dumps(SEARCH_USERS_SCHEMA)  # key order too
    assert fs.output_schema == {
        "type": "object",
        "properties": {"result": {"type": "string"}},
        "required": ["result"],
    }
    assert fs.wraps_result is True
    assert fs.injected == {}
    assert json.dumps(slow(search_users).input_schema) == json.dumps(SEARCH_USERS_SCHEMA)


def add(a: int, b: int) -> int:
    """Add two numbers together."""
    return a + b


def test_add() -> None:
    fs = build(add)
    assert fs.description == "Add two numbers together."
    assert fs.input_schema == {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"],
    }
    assert fs.output_schema == {
        "type": "object",
        "properties": {"result": {"type": "integer"}},
        "required": ["result"],
    }
    assert fs.wraps_result is True
    assert fs.validate({"a": 1, "b": "2"}) == {"a": 1, "b": 2}
    assert fs.dump_output(3) == 3


def test_no_parameters() -> None:
    def ping() -> None:
        """Ping."""

    assert build(ping).input_schema == {"type": "object", "properties": {}}
    assert slow(ping).input_schema == {"type": "object", "properties": {}}
    assert build(ping).validate({}) == {}
    for made in (build(ping), slow(ping)):
        with pytest.raises(InvalidArguments) as caught:
            made.validate({"unexpected": 1})
        assert caught.value.errors == [("unexpected", "Extra inputs are not permitted")]
    assert build(ping, unknown_arguments="ignore").validate({"unexpected": 1}) == {}
    assert slow(ping, unknown_arguments="ignore").validate({"unexpected": 1}) == {}


def test_field_defaults_and_annotated_constraints() -> None:
    def tool(
        count: int = Field(10, description="How many", ge=1, le=100),
        ratio: Annotated[float, Field(gt=0, lt=1, description="A ratio")] = 0.5,
        name: str = Field(..., min_length=2, max_length=8, pattern="^[a-z]+$"),
        tags: list[str] = Field(default_factory=list, max_length=3),  # noqa: B008
    ) -> None:
        """Tool.

        Args:
            count: docstring loses against Field
            name: The name.
        """

    fs = build(tool)
    assert fs.input_schema == {
        "type": "object",
        "properties": {
            "count": {
                "type": "integer",
                "maximum": 100,
                "minimum": 1,
                "description": "How many",
                "default": 10,
            },
            "ratio": {
                "type": "number",
                "exclusiveMaximum": 1,
                "exclusiveMinimum": 0,
                "description": "A ratio",
                "default": 0.5,
            },
            "name": {
                "type": "string",
                "maxLength": 8,
                "minLength": 2,
                "pattern": "^[a-z]+$",
                "description": "The name.",
            },
            "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
        },
        "required": ["name"],
    }
    assert fs.validate({"name": "abc"}) == {"count": 10, "ratio": 0.5, "name": "abc", "tags": []}
    with pytest.raises(InvalidArguments) as info:
        fs.validate({"count": 0, "ratio": 1.5, "name": "ABC"})
    assert [path for path, _ in info.value.errors] == ["count", "ratio", "name"]


def test_literal_enum_and_formats() -> None:
    def tool(
        color: Color,
        mode: Literal["fast", "slow"] = "fast",
        level: Literal[1, 2, 3] = 1,
        only: Literal["x"] = "x",
        when: Optional[datetime.datetime] = None,
        day: datetime.date | None = None,
        ident: uuid.UUID | None = None,
    ) -> None:
        """Tool.

        Args:
            color: Paint color.
        """

    fs = build(tool)
    assert fs.input_schema == {
        "type": "object",
        "properties": {
            "color": {"type": "string", "enum": ["red", "blue"], "description": "Paint color."},
            "mode": {"type": "string", "enum": ["fast", "slow"], "default": "fast"},
            "level": {"type": "integer", "enum": [1, 2, 3], "default": 1},
            "only": {"type": "string", "enum": ["x"], "default": "x"},
            "when": {"type": "string", "format": "date-time"},
            "day": {"type": "string", "format": "date"},
            "ident": {"type": "string", "format": "uuid"},
        },
        "required": ["color"],
    }
    kwargs = fs.validate({"color": "red", "when": "2024-01-02T03:04:05Z", "ident": None})
    assert kwargs["color"] is Color.RED
    assert kwargs["when"] == datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc)
    assert kwargs["ident"] is None
    with pytest.raises(InvalidArguments) as info:
        fs.validate({"color": "green", "mode": "medium"})
    assert (
        str(info.value)
        == "color: Input should be 'red' or 'blue'; mode: Input should be 'fast' or 'slow'"
    )


def test_nested_models_are_inlined_and_title_property_survives() -> None:
    def ship(
        title: str,
        to: Address,
        extra: Optional[Address] = None,
        copies: list[Address] = [],  # noqa: B006
    ) -> None:
        """Ship a parcel.

        Args:
            title: Parcel title.
            extra: Second address.
        """

    fs = build(ship)
    address = {
        "type": "object",
        "properties": {
            "title": {"type": "string"},
            "street": {"type": "string"},
            "zip_code": {"type": "string"},
        },
        "required": ["title", "street"],
        "description": "A postal address.",
    }
    assert fs.input_schema == {
        "type": "object",
        "properties": {
            "title": {"type": "string", "description": "Parcel title."},
            "to": address,
            "extra": {**address, "description": "Second address."},
            "copies": {"type": "array", "items": address, "default": []},
        },
        "required": ["title", "to"],
    }
    assert_no_titles(fs.input_schema)
    kwargs = fs.validate(
        {"title": "t", "to": {"title": "Home", "street": "Main", "zip_code": None}}
    )
    assert kwargs["to"] == Address(title="Home", street="Main")
    assert kwargs["extra"] is None


def test_recursive_model_keeps_defs() -> None:
    def walk(tree: Node, depth: int = 1) -> int:
        """Walk a tree."""
        return depth

    node = {
        "type": "object",
        "properties": {
            "value": {"type": "integer"},
            "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}, "default": []},
        },
        "required": ["value"],
    }
    fs = build(walk)
    assert fs.input_schema == {
        "type": "object",
        "properties": {
            "tree": {"$ref": "#/$defs/Node"},
            "depth": {"type": "integer", "default": 1},
        },
        "required": ["tree"],
        "$defs": {"Node": node},
    }
    kwargs = fs.validate({"tree": {"value": 1, "children": [{"value": 2}]}})
    assert kwargs["tree"] == Node(value=1, children=[Node(value=2)])
    # A recursive return type: the root is expanded, the recursion stays in $defs.
    fs_out = build(lambda: None)
    assert fs_out.output_schema is None

    def root() -> Node:
        return Node(value=1)

    assert build(root).output_schema == {**node, "$defs": {"Node": node}}
    assert build(root).wraps_result is False


def test_docstring_styles_give_descriptions() -> None:
    def numpy_style(a: int, b: str = "x") -> None:
        """Numpy.

        Parameters
        ----------
        a : int
            The a.
        b : str
            The b.
        """

    def rest_style(a: int, b: str = "x") -> None:
        """Rest.

        :param a: The a.
        :param str b: The b.
        :returns: nothing.
        """

    expected = {
        "type": "object",
        "properties": {
            "a": {"type": "integer", "description": "The a."},
            "b": {"type": "string", "description": "The b.", "default": "x"},
        },
        "required": ["a"],
    }
    assert build(numpy_style).input_schema == expected
    assert build(rest_style).input_schema == expected
    assert build(numpy_style).description == "Numpy."
    assert build(rest_style).description == "Rest."


def test_unannotated_and_any_parameters() -> None:
    def tool(a, b: Any = None, c: dict[str, Any] | None = None):  # type: ignore[no-untyped-def]
        """Tool."""

    fs = build(tool)
    assert fs.input_schema == {
        "type": "object",
        "properties": {"a": {}, "b": {}, "c": {"type": "object", "additionalProperties": True}},
        "required": ["a"],
    }
    assert fs.output_schema is None
    assert fs.validate({"a": [1], "c": '{"k": 1}'}) == {"a": [1], "b": None, "c": {"k": 1}}


def test_reserved_parameter_names() -> None:
    def tool(json: str, _private: int = 0, model_config: str = "", copy: bool = False) -> None:
        """Names pydantic models treat specially."""

    fs = build(tool)
    assert fs.input_schema == {
        "type": "object",
        "properties": {
            "json": {"type": "string"},
            "_private": {"type": "integer", "default": 0},
            "model_config": {"type": "string", "default": ""},
            "copy": {"type": "boolean", "default": False},
        },
        "required": ["json"],
    }
    assert fs.validate({"json": "j", "_private": "3", "copy": True}) == {
        "json": "j",
        "_private": 3,
        "model_config": "",
        "copy": True,
    }
    assert slow(tool).input_schema == fs.input_schema
    assert slow(tool).validate({"json": "j", "_private": "3"}) == {
        "json": "j",
        "_private": 3,
        "model_config": "",
        "copy": False,
    }


class Opaque:
    pass


def test_unschemable_parameter_raises_type_error() -> None:
    def tool(thing: Opaque) -> None:
        pass

    with pytest.raises(TypeError, match="'tool': cannot build an input schema"):
        function_schema(tool)


def test_positional_only_parameter_raises_type_error() -> None:
    def tool(a: int, /, b: int) -> None:
        pass

    with pytest.raises(TypeError, match="positional-only"):
        function_schema(tool)


def test_unknown_profile() -> None:
    with pytest.raises(ValueError, match="profile"):
        function_schema(add, profile="openai")  # type: ignore[arg-type]


# -- pydantic profile -------------------------------------------------------------------------


def test_pydantic_profile_is_verbatim() -> None:
    def tool(a: int, b: Optional[str] = None, to: Address | None = None) -> int:
        """Tool.

        Args:
            a: The a.
        """
        return a

    fs = build(tool, profile="pydantic")
    assert fs.input_schema == {
        "$defs": {
            "Address": {
                "description": "A postal address.",
                "properties": {
                    "title": {"title": "Title", "type": "string"},
                    "street": {"title": "Street", "type": "string"},
                    "zip_code": {
                        "anyOf": [{"type": "string"}, {"type": "null"}],
                        "default": None,
                        "title": "Zip Code",
                    },
                },
                "required": ["title", "street"],
                "title": "Address",
                "type": "object",
            }
        },
        "properties": {
            "a": {"description": "The a.", "title": "A", "type": "integer"},
            "b": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None, "title": "B"},
            "to": {"anyOf": [{"$ref": "#/$defs/Address"}, {"type": "null"}], "default": None},
        },
        "required": ["a"],
        "title": "toolArguments",
        "type": "object",
    }
    assert fs.validate({"a": "1"}) == {"a": 1, "b": None, "to": None}

    def simple(a: int, b: Optional[str] = None) -> None:
        pass

    assert build(simple, profile="pydantic").input_schema == {
        "properties": {
            "a": {"title": "A", "type": "integer"},
            "b": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None, "title": "B"},
        },
        "required": ["a"],
        "title": "simpleArguments",
        "type": "object",
    }


# -- kinds of callables -----------------------------------------------------------------------


class Calculator:
    """Multiply things.

    Args:
        x: The x.
    """

    def __init__(self, factor: int) -> None:
        self.factor = factor

    def __call__(self, x: int, ctx: Context) -> int:
        return x * self.factor

    def scale(self, value: float, ctx: Optional[SubContext] = None) -> float:
        """Scale a value.

        Args:
            value: The value to scale.
        """
        return value * self.factor

    @classmethod
    def make(cls, factor: int) -> None:
        """Make one."""


def test_bound_method_has_no_self() -> None:
    fs = build(Calculator(2).scale, inject=(Context,))
    assert fs.description == "Scale a value."
    assert fs.input_schema == {
        "type": "object",
        "properties": {"value": {"type": "number", "description": "The value to scale."}},
        "required": ["value"],
    }
    assert fs.injected == {"ctx": SubContext}
    with pytest.raises(InvalidArguments):  # not a parameter a client may pass
        fs.validate({"value": 2, "ctx": "ignored"})
    ignoring = build(Calculator(2).scale, inject=(Context,), unknown_arguments="ignore")
    assert ignoring.validate({"value": 2, "ctx": "ignored"}) == {"value": 2.0}
    assert build(Calculator.make).input_schema == {
        "type": "object",
        "properties": {"factor": {"type": "integer"}},
        "required": ["factor"],
    }


def test_callable_object() -> None:
    fs = build(Calculator(3), inject=(Context,))
    assert fs.description == "Multiply things."
    assert fs.input_schema == {
        "type": "object",
        "properties": {"x": {"type": "integer", "description": "The x."}},
        "required": ["x"],
    }
    assert fs.injected == {"ctx": Context}


def test_partial() -> None:
    def power(base: int, exp: int, mod: Optional[int] = None) -> int:
        """Power.

        Args:
            exp: The exponent.
        """
        return base**exp

    fs = build(functools.partial(power, 2))
    assert fs.description == "Power."
    assert fs.input_schema == {
        "type": "object",
        "properties": {
            "exp": {"type": "integer", "description": "The exponent."},
            "mod": {"type": "integer"},
        },
        "required": ["exp"],
    }
    assert build(functools.partial(power, mod=7)).input_schema["properties"]["mod"] == {
        "type": "integer",
        "default": 7,
    }


def test_async_function_and_injected_context() -> None:
    async def fetch(url: str, ctx: Context, retries: int = 3) -> list[str]:
        """Fetch a page."""
        return [url]

    fs = build(fetch, inject=(Context,))
    assert fs.input_schema == {
        "type": "object",
        "properties": {"url": {"type": "string"}, "retries": {"type": "integer", "default": 3}},
        "required": ["url"],
    }
    assert fs.injected == {"ctx": Context}
    assert fs.output_schema == {
        "type": "object",
        "properties": {"result": {"type": "array", "items": {"type": "string"}}},
        "required": ["result"],
    }
    assert fs.validate({"url": "u"}) == {"url": "u", "retries": 3}
    assert asyncio.run(fetch(**fs.validate({"url": "u"}), ctx=Context())) == ["u"]


def test_injected_through_annotated_and_optional() -> None:
    def tool(a: int, c1: Annotated[Context, "meta"], c2: SubContext | None = None) -> None:
        pass

    fs = build(tool, inject=(Context,))
    assert fs.injected == {"c1": Context, "c2": SubContext}
    assert list(fs.input_schema["properties"]) == ["a"]


STRING_ANNOTATIONS_SOURCE = '''
from __future__ import annotations
from typing import Optional
from pydantic import BaseModel

class Item(BaseModel):
    name: str
    tags: list[Tag] = []

class Tag(BaseModel):
    label: str

def simple(a: int, b: Optional[str] = None) -> float:
    """Simple.

    Args:
        a: The a.
    """
    return 1.0

def complex_(items: list[Item], note: str | None = None) -> Item:
    """Complex."""
    return items[0]

class Service:
    def method(self, n: int) -> bool:
        return True
'''


def test_string_annotations() -> None:
    module = types.ModuleType("tw_string_annotations")
    exec(compile(STRING_ANNOTATIONS_SOURCE, "<string-annotations>", "exec"), module.__dict__)
    sys.modules[module.__name__] = module
    try:
        fs = build(module.simple)
        assert fs.input_schema == {
            "type": "object",
            "properties": {
                "a": {"type": "integer", "description": "The a."},
                "b": {"type": "string"},
            },
            "required": ["a"],
        }
        assert fs.wraps_result is True
        item = {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "tags": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"label": {"type": "string"}},
                        "required": ["label"],
                    },
                    "default": [],
                },
            },
            "required": ["name"],
        }
        fs = build(module.complex_)
        assert fs.input_schema == {
            "type": "object",
            "properties": {"items": {"type": "array", "items": item}, "note": {"type": "string"}},
            "required": ["items"],
        }
        assert fs.output_schema == item
        kwargs = fs.validate({"items": [{"name": "n", "tags": [{"label": "l"}]}]})
        assert kwargs["items"][0] == module.Item(name="n", tags=[module.Tag(label="l")])
        assert build(module.Service().method).input_schema["properties"] == {
            "n": {"type": "integer"}
        }
    finally:
        del sys.modules[module.__name__]


# -- output schemas ---------------------------------------------------------------------------

WRAPPED_INT = {
    "type": "object",
    "properties": {"result": {"type": "integer"}},
    "required": ["result"],
}


def test_output_schema_for_object_types() -> None:
    def point() -> Point:
        return Point(1, 2)

    def weather() -> Weather:
        return {"temperature": 20.5, "conditions": "sunny"}

    def counts() -> dict[str, int]:
        return {"a": 1}

    def address() -> Address:
        return Address(title="t", street="s")

    fs = build(point)
    assert fs.output_schema == {
        "type": "object",
        "properties": {"x": {"type": "integer"}, "y": {"type": "integer", "default": 0}},
        "required": ["x"],
    }
    assert fs.wraps_result is False
    assert fs.dump_output(Point(1, 2)) == {"x": 1, "y": 2}

    fs = build(weather)
    assert fs.output_schema == {
        "type": "object",
        "properties": {"temperature": {"type": "number"}, "conditions": {"type": "string"}},
        "required": ["temperature", "conditions"],
    }
    assert fs.dump_output({"temperature": 20.5, "conditions": "sunny"}) == {
        "temperature": 20.5,
        "conditions": "sunny",
    }

    assert build(counts).output_schema == {
        "type": "object",
        "additionalProperties": {"type": "integer"},
    }
    assert build(counts).wraps_result is False

    # Outputs keep their nullability: a client checks results against them.
    assert build(address).output_schema == {
        "type": "object",
        "properties": {
            "title": {"type": "string"},
            "street": {"type": "string"},
            "zip_code": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
        },
        "required": ["title", "street"],
        "description": "A postal address.",
    }


def test_output_schema_wraps_non_objects() -> None:
    def maybe() -> Optional[int]:
        return None

    def pair() -> tuple[int, str]:
        return 1, "a"

    def addresses() -> list[Address]:
        return []

    def flag() -> bool:
        return True

    assert build(maybe).output_schema == {
        "type": "object",
        "properties": {"result": {"anyOf": [{"type": "integer"}, {"type": "null"}]}},
        "required": ["result"],
    }
    assert build(pair).output_schema == {
        "type": "object",
        "properties": {
            "result": {
                "type": "array",
                "maxItems": 2,
                "minItems": 2,
                "prefixItems": [{"type": "integer"}, {"type": "string"}],
            }
        },
        "required": ["result"],
    }
    assert build(pair).dump_output((1, "a")) == [1, "a"]
    fs = build(addresses)
    assert fs.wraps_result is True
    assert fs.output_schema is not None
    assert fs.output_schema["properties"]["result"]["items"]["properties"]["title"] == {
        "type": "string"
    }
    assert build(flag).output_schema == {
        "type": "object",
        "properties": {"result": {"type": "boolean"}},
        "required": ["result"],
    }


def test_no_output_schema() -> None:
    def text() -> str:
        return ""

    def nothing() -> None:
        pass

    def anything() -> Any:
        pass

    def unannotated():  # type: ignore[no-untyped-def]
        pass

    def image() -> PngImage:
        return PngImage()

    def images() -> list[ImageLike | str]:
        return []

    def opaque() -> Context:
        return Context()

    for fn in (nothing, anything, unannotated, image, images, opaque):
        fs = build(fn)
        assert fs.output_schema is None, fn
        assert fs.wraps_result is False
    assert build(add, structured_output=False).output_schema is None
    assert build(text, structured_output=False).output_schema is None
    assert build(search_users, structured_output=False).output_schema is None


def test_structured_output_true() -> None:
    def text() -> str:
        return ""

    assert build(text, structured_output=True).output_schema == {
        "type": "object",
        "properties": {"result": {"type": "string"}},
        "required": ["result"],
    }

    def nothing() -> None:
        pass

    def image() -> PngImage:
        return PngImage()

    def opaque() -> Context:
        return Context()

    def unannotated():  # type: ignore[no-untyped-def]
        pass

    for fn in (nothing, image, opaque, unannotated):
        with pytest.raises(TypeError, match="structured_output=True"):
            function_schema(fn, structured_output=True)


def test_dump_output() -> None:
    def aliased() -> Aliased:
        raise NotImplementedError

    fs = build(aliased)
    assert fs.output_schema is not None
    assert list(fs.output_schema["properties"]) == ["userName", "when"]
    value = Aliased(user_name="bob", when=datetime.datetime(2024, 1, 2, 3, 4, 5))
    assert fs.dump_output(value) == {"userName": "bob", "when": "2024-01-02T03:04:05"}
    # Without an output schema values are still made JSON-able.
    untyped = build(lambda: None)
    assert untyped.dump_output(value) == {"userName": "bob", "when": "2024-01-02T03:04:05"}
    assert untyped.dump_output(uuid.UUID(int=1)) == "00000000-0000-0000-0000-000000000001"
    assert untyped.dump_output("text") == "text"
    assert untyped.dump_output(Point(1, 2)) == {"x": 1, "y": 2}


# -- validation -------------------------------------------------------------------------------


def test_validation_errors_name_every_field() -> None:
    fs = build(add)
    with pytest.raises(InvalidArguments) as info:
        fs.validate({"b": "x"})
    assert info.value.errors == [
        ("a", "Field required"),
        ("b", "Input should be a valid integer, unable to parse string as an integer"),
    ]
    assert (
        str(info.value)
        == "a: Field required; b: Input should be a valid integer, unable to parse string as an integer"
    )

    def divide(a: float, b: float) -> float:
        return a / b

    with pytest.raises(InvalidArguments) as info:
        build(divide).validate({"b": "x"})
    assert (
        str(info.value)
        == "a: Field required; b: Input should be a valid number, unable to parse string as a number"
    )


def test_validation_errors_nested_paths_and_no_internals() -> None:
    def ship(to: list[Address], count: int) -> None:
        pass

    huge = "x" * 5000
    with pytest.raises(InvalidArguments) as info:
        build(ship).validate({"to": [{"title": "t"}], "count": huge})
    assert info.value.errors == [
        ("to.0.street", "Field required"),
        ("count", "Input should be a valid integer, unable to parse string as an integer"),
    ]
    text = str(info.value)
    assert "errors.pydantic.dev" not in text
    assert huge not in text
    assert "Traceback" not in text
    assert len(text) < 300


def test_validation_lax_mode_and_extras() -> None:
    def tool(n: int, x: float, flag: bool, s: str = "d") -> None:
        pass

    for fs in (build(tool), slow(tool)):
        with pytest.raises(InvalidArguments) as caught:
            fs.validate({"n": "5", "x": "1.5", "flag": "true", "other": 1})
        assert caught.value.errors == [("other", "Extra inputs are not permitted")]
    for fs in (build(tool, unknown_arguments="ignore"), slow(tool, unknown_arguments="ignore")):
        assert fs.validate({"n": "5", "x": "1.5", "flag": "true", "other": 1}) == {
            "n": 5,
            "x": 1.5,
            "flag": True,
            "s": "d",
        }
        with pytest.raises(InvalidArguments):
            fs.validate({"n": 1, "x": 1, "flag": True, "s": 5})  # no int -> str coercion


def test_null_accepted_for_optional() -> None:
    def tool(a: Optional[int] = None, b: str | None = "x", to: Optional[Address] = None) -> None:
        pass

    fs = build(tool)
    assert fs.input_schema["properties"]["a"] == {"type": "integer"}
    assert fs.input_schema["properties"]["b"] == {"type": "string", "default": "x"}
    assert fs.validate({"a": None, "b": None, "to": None}) == {"a": None, "b": None, "to": None}

    def fast(a: Optional[int] = None, b: str | None = "x") -> None:
        pass

    assert build(fast).validate({"a": None, "b": None}) == {"a": None, "b": None}
    assert build(fast).validate({}) == {"a": None, "b": "x"}


def test_json_encoded_arguments() -> None:
    def tool(
        numbers: list[int],
        to: Address,
        mapping: dict[str, int] | None = None,
        text: list[str] | str = "",
    ) -> None:
        pass

    fs = build(tool)
    kwargs = fs.validate(
        {
            "numbers": "[1, 2, 3]",
            "to": '{"title": "t", "street": "s"}',
            "mapping": ' {"a": 1}',
            "text": '["kept as a string"]',
        }
    )
    assert kwargs == {
        "numbers": [1, 2, 3],
        "to": Address(title="t", street="s"),
        "mapping": {"a": 1},
        "text": '["kept as a string"]',
    }
    with pytest.raises(InvalidArguments) as info:
        fs.validate({"numbers": "[1, 2", "to": '{"title": "t"}'})
    assert [path for path, _ in info.value.errors] == ["numbers", "to.street"]


def test_validator_is_built_lazily_and_cached() -> None:
    fs = build(add)
    assert fs._validator is None
    fs.validate({"a": 1, "b": 2})
    validator = fs._validator
    assert validator is not None
    fs.validate({"a": 1, "b": 2})
    assert fs._validator is validator


def test_invalid_arguments_without_path() -> None:
    error = InvalidArguments([("", "Input should be a valid dictionary"), ("a", "Field required")])
    assert str(error) == "Input should be a valid dictionary; a: Field required"
    with pytest.raises(InvalidArguments, match="valid dictionary"):
        build(add).validate([1, 2])  # type: ignore[arg-type]


# -- fast path == pydantic path ---------------------------------------------------------------

_TYPES = [
    "int",
    "float",
    "str",
    "bool",
    "Optional[int]",
    "float | None",
    "Union[str, None]",
    "None | bool",
]
_DEFAULTS = {
    "int": ["", "= 0", "= -7", "= None", "= True"],
    "float": ["", "= 1.5", "= 2", "= None"],
    "str": ["", "= ''", "= 'x y'", "= None"],
    "bool": ["", "= False", "= True"],
}
_RETURNS = ["", " -> int", " -> float", " -> bool", " -> str", " -> None"]
_DOCS = [
    '"""Summary."""',
    '"""Summary.\n\n    Args:\n        p0: First.\n        p2: Third.\n    """',
    "",
]


def _signatures() -> list[str]:
    sources = []
    combos = itertools.product(_TYPES, _TYPES, _TYPES)
    for index, (t0, t1, t2) in enumerate(combos):
        params = []
        for position, annotation in enumerate((t0, t1, t2)):
            base = next(k for k in _DEFAULTS if k in annotation)
            defaults = [
                d for d in _DEFAULTS[base] if d != "= None" or "None" in annotation or base == "int"
            ]
            params.append(
                f"p{position}: {annotation} {defaults[(index + position) % len(defaults)]}"
            )
        # Parameters with defaults may not precede required ones: keep the order valid.
        params.sort(key=lambda p: "=" in p)
        ret = _RETURNS[index % len(_RETURNS)]
        doc = _DOCS[index % len(_DOCS)] or "pass"
        sources.append(f"def tool_{index}({', '.join(params)}){ret}:\n    {doc}\n")
    sources.append("def no_params() -> int:\n    return 1\n")
    return sources


_SAMPLES: list[dict[str, Any]] = [
    {},
    {"p0": 1, "p1": 2, "p2": 3},
    {"p0": "1", "p1": "2.5", "p2": "true"},
    {"p0": None, "p1": None, "p2": None},
    {"p0": "x", "p1": [], "p2": {}},
    {"p0": True, "p1": 1.0, "p2": "yes", "extra": 1},
    {"p0": 2**70, "p1": float("inf"), "p2": "off"},
]


def _outcome(fs: FunctionSchema, arguments: dict[str, Any]) -> Any:
    try:
        return ("ok", fs.validate(arguments))
    except InvalidArguments as exc:
        return ("error", exc.errors)


def test_fast_path_equals_pydantic_path() -> None:
    namespace: dict[str, Any] = {"Optional": Optional, "Union": Union}
    sources = _signatures()
    exec(compile("\n".join(sources), "<signatures>", "exec", dont_inherit=True), namespace)
    functions = [v for k, v in namespace.items() if k.startswith(("tool_", "no_params"))]
    assert len(functions) == len(sources) > 500
    for fn in functions:
        assert schema_module._fast_fields(_params(fn)) is not None, fn.__name__
        fast, reference = build(fn), slow(fn)
        assert json.dumps(fast.input_schema) == json.dumps(reference.input_schema), fn.__name__
        assert json.dumps(fast.output_schema) == json.dumps(reference.output_schema), fn.__name__
        assert (fast.description, fast.wraps_result) == (
            reference.description,
            reference.wraps_result,
        )
        for sample in _SAMPLES:
            assert repr(_outcome(fast, sample)) == repr(_outcome(reference, sample)), (
                fn.__name__,
                sample,
            )


def _params(fn: Any) -> list[tuple[str, Any, Any]]:
    import inspect

    return [
        (p.name, p.annotation, p.default)
        for p in inspect.signature(fn, eval_str=True).parameters.values()
    ]


@pytest.mark.parametrize(
    "source",
    [
        "def f(a: int = Field(1)) -> int: ...",
        "def f(a: Annotated[int, 'x']) -> int: ...",
        "def f(a: list[int]) -> int: ...",
        "def f(a: int = float('nan')) -> int: ...",
        "def f(a: int = (1,)) -> int: ...",
        "def f(a: Optional[Union[int, str]]) -> int: ...",
        "def f(a: Color) -> int: ...",
    ],
)
def test_fast_path_is_not_taken_for_other_signatures(source: str) -> None:
    namespace: dict[str, Any] = {
        "Field": Field,
        "Annotated": Annotated,
        "Optional": Optional,
        "Union": Union,
        "Color": Color,
    }
    exec(source, namespace)
    assert schema_module._fast_fields(_params(namespace["f"])) is None


# -- import budget ----------------------------------------------------------------------------


def test_import_and_fast_path_do_not_load_pydantic() -> None:
    code = textwrap.dedent(
        """
        import sys
        import toolwire.schema.function
        assert "pydantic" not in sys.modules, "import"

        def add(a: int, b: int) -> int:
            '''Add two integers.'''
            return a + b

        fs = toolwire.schema.function.function_schema(add)
        assert fs.validate({"a": 1, "b": "2"}) == {"a": 1, "b": 2}
        assert fs.dump_output(3) == 3
        assert "pydantic" not in sys.modules, "fast path"
        print("ok")
        """
    )
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]),
    }
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


class PlainLocation(typing.TypedDict):
    """A place."""

    city: str
    zip: int


def test_typing_typed_dict_parameters_work_on_every_python() -> None:
    """pydantic needs typing_extensions.TypedDict before 3.12; plain typing.TypedDict still works."""

    def where(loc: PlainLocation, others: list[PlainLocation] | None = None) -> PlainLocation:
        return loc

    fs = function_schema(where)
    place = {
        "type": "object",
        "description": "A place.",
        "properties": {"city": {"type": "string"}, "zip": {"type": "integer"}},
        "required": ["city", "zip"],
    }
    assert fs.input_schema["properties"]["loc"] == place
    assert fs.input_schema["properties"]["others"] == {"type": "array", "items": place}
    assert fs.validate({"loc": {"city": "A", "zip": "5"}}) == {
        "loc": {"city": "A", "zip": 5},
        "others": None,
    }
    assert fs.output_schema == place
