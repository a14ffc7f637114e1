"""The base of every model in :mod:`toolwire.types`: two spellings in, the wire's out, no
unknown field."""

import difflib
from typing import Any, ClassVar

from pydantic import AnyUrl, BaseModel, ConfigDict, ValidationInfo, model_validator
from pydantic_core import Url

# URL objects (1.x code writes ``uri=FileUrl("file:///a.txt")``) stand for their text.
_URLS = (AnyUrl, Url)

# The validation context key that marks a message received from a peer (see ``from_wire``).
PEER = "toolwire.peer"


def _no_arguments() -> dict[str, Any]:
    return {"type": "object", "properties": {}}


class MCPModel(BaseModel):
    """A protocol object: fields by their wire name (``mimeType``, ``_meta``) or their
    snake_case name (``mime_type``, ``meta``), dumped by the wire name, unknown ones refused."""

    model_config = ConfigDict(
        extra="allow",  # only ever filled by ``from_wire``; the validator refuses the rest
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        protected_namespaces=(),
        defer_build=True,
    )
    # Protocol objects, not tool data: a tool returning one gets no output schema.
    __toolwire_mcp_type__: ClassVar[bool] = True
    # The schema lets this object carry fields it does not name (``Result``).
    __toolwire_open__: ClassVar[bool] = False
    # Every accepted spelling -> the field's Python name; and the wire name of each field.
    __toolwire_names__: ClassVar[dict[str, str]] = {}
    __toolwire_wire__: ClassVar[dict[str, str]] = {}

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        names: dict[str, str] = {}
        wire: dict[str, str] = {}
        for name, info in cls.model_fields.items():
            names[name] = name
            wire[name] = info.alias or name
            names[wire[name]] = name
        cls.__toolwire_names__ = names
        cls.__toolwire_wire__ = wire

    @model_validator(mode="before")
    @classmethod
    def _toolwire_known_fields(cls, data: Any, info: ValidationInfo) -> Any:
        if not isinstance(data, dict):
            return data
        if not cls.__toolwire_open__:
            unknown = [key for key in data if key not in cls.__toolwire_names__]
            if unknown and not (info.context and info.context.get(PEER)):
                raise ValueError(cls._toolwire_unknown(unknown[0]))
        if any(isinstance(value, _URLS) for value in data.values()):
            data = {k: str(v) if isinstance(v, _URLS) else v for k, v in data.items()}
        return data

    @classmethod
    def _toolwire_unknown(cls, key: object) -> str:
        spellings = list(cls.__toolwire_names__)
        close = difflib.get_close_matches(str(key), spellings, n=1, cutoff=0.6)
        if not close:  # "mimetype" for "mimeType": compare without case and underscores
            folded = {s.replace("_", "").lower(): s for s in spellings}
            match = folded.get(str(key).replace("_", "").lower())
            close = [match] if match else []
        known = ", ".join(repr(w) for w in cls.__toolwire_wire__.values()) or "none"
        hint = (
            f"did you mean {cls.__toolwire_wire__[cls.__toolwire_names__[close[0]]]!r}? "
            if close
            else ""
        )
        return f"{cls.__name__} has no field {key!r}: {hint}its fields are {known}"

    @classmethod
    def from_wire(cls, data: Any) -> Any:
        """A model of a message received from a peer. Unlike the constructor it keeps
        fields this model does not know (a newer revision's), and ``to_wire`` gives them
        back unchanged, so reading and forwarding a message loses nothing."""
        return cls.model_validate(data, context={PEER: True})

    def __getattr__(self, name: str) -> Any:
        field = type(self).__toolwire_names__.get(name)
        if field is not None and field != name:
            return getattr(self, field)
        return super().__getattr__(name)  # type: ignore[misc]

    def __setattr__(self, name: str, value: Any) -> None:
        cls = type(self)
        field = cls.__toolwire_names__.get(name)
        if field is None and not name.startswith("_") and not cls.__toolwire_open__:
            raise AttributeError(cls._toolwire_unknown(name))
        super().__setattr__(field or name, value)

    def to_wire(self) -> dict[str, Any]:
        """The wire shape: wire names, unset optional fields left out."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


def dump(model: MCPModel | dict[str, Any]) -> dict[str, Any]:
    """The wire shape of a model (dicts pass through)."""
    return model if isinstance(model, dict) else model.to_wire()
