"""A corpus of tool signatures for the provider-profile checks (tests/test_providers_corpus.py).

Every type docs/tools.md shows, the hard cases of provider schemas (unions, ``Any``, tuples,
``Decimal``, recursive models, enums, ``Literal``, nested models, maps, sets, dates, UUIDs,
paths, bytes, ``Annotated`` constraints, defaults) and hand-written ``input_schema``s. The
tools of ``examples/`` and of the reference server ``server-everything`` join them in the test.

This module imports only the standard library and pydantic: the official SDK's and FastMCP's
virtualenvs import it too, to publish the same functions with their own schema generators.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from enum import Enum, IntEnum
from pathlib import Path
from typing import Annotated, Any, Literal, Optional, Union

from pydantic import BaseModel, Field
from typing_extensions import TypedDict


class Unit(Enum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


class Level(IntEnum):
    LOW = 1
    MID = 2
    HIGH = 3


class Place(BaseModel):
    city: str
    country: str = "FR"


class Address(BaseModel):
    street: str
    zip_code: Annotated[str, Field(pattern=r"^\d{5}$")]


class Person(BaseModel):
    name: str
    address: Address
    tags: list[str] = []


class TreeNode(BaseModel):
    value: int
    children: list[TreeNode] = []


class Cat(BaseModel):
    kind: Literal["cat"] = "cat"
    lives: int = 9


class Dog(BaseModel):
    kind: Literal["dog"] = "dog"
    good: bool = True


@dataclass
class Point:
    x: float
    y: float


class Movie(TypedDict):
    title: str
    year: int


SIGNATURES: list[Callable[..., Any]] = []


def tool(fn: Callable[..., Any]) -> Callable[..., Any]:
    SIGNATURES.append(fn)
    return fn


# --- the types of docs/tools.md -----------------------------------------------------------------


@tool
def forecast(
    place: Place,
    days: Annotated[int, Field(ge=1, le=7)] = 3,
    unit: Unit = Unit.CELSIUS,
    detail: Literal["brief", "full"] = "brief",
    note: Optional[str] = None,  # noqa: UP045 - the docs' spelling
) -> dict[str, float]:
    """Forecast the weather for a place."""
    return {}


@tool
def add_numbers(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
def scale(value: float, factor: float = 2.0) -> float:
    """Scale a number."""
    return value * factor


@tool
def greet(name: str, excited: bool = False) -> str:
    """Greet someone."""
    return name


@tool
def no_arguments() -> str:
    """Take nothing."""
    return ""


@tool
def optional_text(text: str | None = None) -> str:
    """An optional string."""
    return ""


@tool
def literal_choice(mode: Literal["fast", "slow"]) -> str:
    """A Literal."""
    return mode


@tool
def literal_int(level: Literal[1, 2, 3]) -> int:
    """A Literal of integers."""
    return level


@tool
def str_enum(unit: Unit) -> str:
    """A string Enum."""
    return ""


@tool
def int_enum(level: Level) -> int:
    """An IntEnum."""
    return 0


@tool
def nested_model(person: Person) -> str:
    """A model holding a model."""
    return ""


@tool
def dataclass_arg(point: Point) -> float:
    """A dataclass."""
    return 0.0


@tool
def typed_dict_arg(movie: Movie) -> str:
    """A TypedDict."""
    return ""


@tool
def field_default(days: int = Field(3, ge=1, description="How many days")) -> int:
    """A Field as the default."""
    return days


@tool
def string_constraints(code: Annotated[str, Field(min_length=2, max_length=8)]) -> str:
    """String lengths."""
    return code


@tool
def string_pattern(zip_code: Annotated[str, Field(pattern=r"^\d{5}$")]) -> str:
    """A pattern."""
    return zip_code


@tool
def exclusive_bounds(ratio: Annotated[float, Field(gt=0, lt=1)]) -> float:
    """Exclusive bounds."""
    return ratio


@tool
def multiple_of(step: Annotated[int, Field(multiple_of=5)]) -> int:
    """multipleOf."""
    return step


@tool
def list_bounds(items: Annotated[list[int], Field(min_length=1, max_length=5)]) -> int:
    """Array bounds."""
    return 0


# --- collections and maps -----------------------------------------------------------------------


@tool
def list_of_str(words: list[str]) -> int:
    """A list of strings."""
    return 0


@tool
def list_of_models(places: list[Place]) -> int:
    """A list of models."""
    return 0


@tool
def nested_lists(matrix: list[list[float]]) -> int:
    """A matrix."""
    return 0


@tool
def set_of_int(ids: set[int]) -> int:
    """A set (uniqueItems)."""
    return 0


@tool
def frozenset_of_str(tags: frozenset[str]) -> int:
    """A frozenset."""
    return 0


@tool
def dict_str_int(counts: dict[str, int]) -> int:
    """A map."""
    return 0


@tool
def dict_str_any(data: dict[str, Any]) -> int:
    """A free-form object."""
    return 0


@tool
def dict_of_models(places: dict[str, Place]) -> int:
    """A map of models."""
    return 0


@tool
def bare_dict(payload: dict) -> int:  # type: ignore[type-arg]
    """An unparametrized dict."""
    return 0


@tool
def bare_list(values: list) -> int:  # type: ignore[type-arg]
    """An unparametrized list."""
    return 0


@tool
def tuple_pair(pair: tuple[int, int]) -> int:
    """A fixed tuple."""
    return 0


@tool
def tuple_mixed(row: tuple[str, int, bool]) -> int:
    """A tuple of mixed types."""
    return 0


@tool
def tuple_variadic(values: tuple[float, ...]) -> int:
    """A variadic tuple."""
    return 0


# --- unions and Any -----------------------------------------------------------------------------


@tool
def union_scalar(value: int | str) -> str:
    """A union of scalars."""
    return ""


@tool
def union_optional_default(value: int | None = 5) -> int:
    """Optional with a non-null default."""
    return 0


@tool
def union_models(pet: Cat | Dog) -> str:
    """A union of models."""
    return ""


@tool
def discriminated(pet: Annotated[Union[Cat, Dog], Field(discriminator="kind")]) -> str:  # noqa: UP007
    """A discriminated union."""
    return ""


@tool
def union_list_or_str(value: list[str] | str) -> int:
    """A list or a string."""
    return 0


@tool
def any_value(value: Any) -> str:
    """Any value."""
    return ""


@tool
def optional_model(place: Place | None = None) -> str:
    """An optional model."""
    return ""


@tool
def optional_list(tags: list[str] | None = None) -> int:
    """An optional list."""
    return 0


@tool
def union_three(value: int | float | str) -> str:
    """Three alternatives."""
    return ""


# --- special scalars ----------------------------------------------------------------------------


@tool
def decimal_amount(amount: Decimal) -> str:
    """A Decimal."""
    return ""


@tool
def datetime_arg(when: dt.datetime) -> str:
    """A datetime."""
    return ""


@tool
def date_arg(day: dt.date) -> str:
    """A date."""
    return ""


@tool
def time_arg(at: dt.time) -> str:
    """A time."""
    return ""


@tool
def timedelta_arg(duration: dt.timedelta) -> str:
    """A duration."""
    return ""


@tool
def uuid_arg(ident: uuid.UUID) -> str:
    """A UUID."""
    return ""


@tool
def path_arg(path: Path) -> str:
    """A Path."""
    return ""


@tool
def bytes_arg(data: bytes) -> int:
    """Bytes."""
    return 0


@tool
def email_like(address: Annotated[str, Field(json_schema_extra={"format": "email"})]) -> str:
    """A string with an email format."""
    return address


@tool
def uri_like(url: Annotated[str, Field(json_schema_extra={"format": "uri"})]) -> str:
    """A string with a uri format."""
    return url


# --- recursion, depth, defaults, names ----------------------------------------------------------


@tool
def recursive_tree(tree: TreeNode) -> int:
    """A recursive model."""
    return 0


@tool
def deep_nesting(people: list[Person], owner: Person | None = None) -> int:
    """Models in lists, optional models."""
    return 0


@tool
def many_defaults(
    a: int = 1, b: str = "x", c: float = 0.5, d: bool = True, e: list[int] | None = None
) -> int:
    """Every parameter has a default."""
    return 0


@tool
def described_params(query: str, limit: int = 10) -> list[str]:
    """Search.

    Args:
        query: What to look for.
        limit: How many results at most.
    """
    return []


@tool
def enum_default(unit: Unit = Unit.FAHRENHEIT, level: Level = Level.MID) -> str:
    """Enums with defaults."""
    return ""


@tool
def const_field(kind: Literal["only"] = "only") -> str:
    """A one-value Literal (const)."""
    return kind


@tool
def model_with_extra_forbid(point: Point, label: str = "") -> str:
    """A dataclass and a default."""
    return label


# --- hand-written input schemas (toolwire's input_schema=) --------------------------------------

CONTACT = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {"address": {"type": "object", "properties": {"city": {"type": "string"}}}},
    "properties": {
        "name": {"type": "string"},
        "address": {"$ref": "#/$defs/address"},
        "phone": {"type": "string"},
        "email": {"type": "string"},
    },
    "required": ["name"],
    "anyOf": [{"required": ["phone"]}, {"required": ["email"]}],
    "additionalProperties": False,
}

HAND_WRITTEN: dict[str, dict[str, Any]] = {
    "contact": CONTACT,
    "strict_ready": {
        "type": "object",
        "properties": {"q": {"type": "string"}, "n": {"type": ["integer", "null"]}},
        "required": ["q", "n"],
        "additionalProperties": False,
    },
    "one_of_shapes": {
        "type": "object",
        "properties": {
            "shape": {
                "oneOf": [
                    {"type": "object", "properties": {"r": {"type": "number"}}, "required": ["r"]},
                    {"type": "object", "properties": {"w": {"type": "number"}}, "required": ["w"]},
                ]
            }
        },
        "required": ["shape"],
    },
    "conditional": {
        "type": "object",
        "properties": {"kind": {"type": "string"}, "size": {"type": "integer"}},
        "if": {"properties": {"kind": {"const": "big"}}},
        "then": {"required": ["size"]},
    },
    "pattern_props": {
        "type": "object",
        "properties": {
            "env": {"type": "object", "patternProperties": {"^[A-Z_]+$": {"type": "string"}}}
        },
    },
    "type_list": {
        "type": "object",
        "properties": {
            "value": {"type": ["string", "number"], "description": "A string or a number"}
        },
        "required": ["value"],
    },
    "const_and_examples": {
        "type": "object",
        "properties": {
            "version": {"const": 2},
            "name": {"type": "string", "examples": ["a", "b"], "deprecated": False},
        },
        "required": ["version"],
    },
    "dotted_keys": {
        "type": "object",
        "properties": {"user.name": {"type": "string"}, "max-count": {"type": "integer"}},
    },
}


def hand_written_function(**kwargs: Any) -> str:
    """A tool whose input schema is written by hand."""
    return ""
