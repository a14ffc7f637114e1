"""Which sync functions may run inline on the event loop: those that provably never block.

Nothing can interrupt a sync function running on the event loop's thread, so toolwire runs
a sync tool there only when its own code shows that it cannot block or run long: a plain
function whose parameters are ``int``, ``float``, ``bool`` or ``str`` (or ``None``), whose
body is straight-line code — no call of any kind, no loop, no global or attribute lookup,
no closure — doing a few arithmetic, comparison or f-string steps on them::

    def add(a: int, b: int) -> int:
        return a + b

Such code only runs CPython's own operations on builtin values, and only those whose time
and result grow at most linearly with their operands: ``+``, ``-``, ``/``, bitwise ``&``,
``|``, ``^``, ``>>`` and comparisons. ``*``, ``//`` and ``%`` are allowed only when no
argument is an ``int`` or a ``str`` (on big integers they take quadratic time; a numeric
string of 4,300 digits is a valid ``int`` argument), ``**`` and ``<<`` never (their result
grows with an argument's value). With a ``str`` argument at most ``MAX_STRING_STEPS`` steps
(concatenations and plain f-string fields, without a conversion or format spec) are
allowed, so a result is at most a few times the size of the arguments (which the message limits bound). So a call's time is bounded by the size of
its arguments, a few milliseconds at the largest message. Anything else runs on worker
threads unless the tool is declared ``blocking=False``. The check reads the bytecode once, on
the tool's first call; an instruction it does not know says no.
"""

from __future__ import annotations

import dis
import inspect
import types
import typing
from typing import Any

MAX_OPERATIONS = 8  # arithmetic steps on numbers (each adds at most a bit or so)
MAX_STRING_STEPS = 2  # concatenations and f-string fields once a string is involved

_PRIMITIVE = (int, float, bool, str, type(None))
_FLOW = frozenset(
    {
        "RESUME",
        "NOP",
        "CACHE",
        "EXTENDED_ARG",
        "LOAD_FAST",
        "LOAD_FAST_CHECK",
        "LOAD_FAST_LOAD_FAST",
        "STORE_FAST",
        "STORE_FAST_LOAD_FAST",
        "STORE_FAST_STORE_FAST",
        "LOAD_CONST",
        "RETURN_VALUE",
        "RETURN_CONST",
        "POP_TOP",
        "COPY",
        "SWAP",
        "DUP_TOP",
        "ROT_TWO",
        "COMPARE_OP",
        "IS_OP",
        "UNARY_NEGATIVE",
        "UNARY_NOT",
        "UNARY_INVERT",
        "UNARY_POSITIVE",
        "TO_BOOL",
        "BUILD_STRING",
        "POP_JUMP_IF_FALSE",
        "POP_JUMP_IF_TRUE",
        "POP_JUMP_IF_NONE",
        "POP_JUMP_IF_NOT_NONE",
        "POP_JUMP_FORWARD_IF_FALSE",
        "POP_JUMP_FORWARD_IF_TRUE",
        "POP_JUMP_FORWARD_IF_NONE",
        "POP_JUMP_FORWARD_IF_NOT_NONE",
        "JUMP_FORWARD",
        "JUMP_IF_FALSE_OR_POP",
        "JUMP_IF_TRUE_OR_POP",
    }
)
# Binary operators by symbol (3.11+: BINARY_OP's argrepr) and by opcode name (3.10).
_LINEAR_OPS = frozenset(
    {"+", "-", "/", "&", "|", "^", ">>", "+=", "-=", "/=", "&=", "|=", "^=", ">>="}
)
# Quadratic on big integers, and unbounded output next to a string: for floats only.
_FLOAT_OPS = frozenset({"*", "%", "//", "*=", "%=", "//="})
_OLD_OPS = {
    "ADD": "+",
    "SUBTRACT": "-",
    "TRUE_DIVIDE": "/",
    "FLOOR_DIVIDE": "//",
    "AND": "&",
    "OR": "|",
    "XOR": "^",
    "RSHIFT": ">>",
    "MULTIPLY": "*",
    "MODULO": "%",
}
_UNSAFE_FLAGS = (
    inspect.CO_GENERATOR
    | inspect.CO_COROUTINE
    | inspect.CO_ASYNC_GENERATOR
    | inspect.CO_ITERABLE_COROUTINE
    | inspect.CO_VARARGS
    | inspect.CO_VARKEYWORDS
)


def _primitive_hint(hint: Any) -> bool:
    if hint in _PRIMITIVE:
        return True
    args = typing.get_args(hint)
    return (
        bool(args)
        and typing.get_origin(hint) in (typing.Union, types.UnionType)
        and all(a in _PRIMITIVE for a in args)
    )


def _primitive_default(default: Any) -> bool:
    if default is inspect.Parameter.empty or isinstance(default, _PRIMITIVE):
        return True
    # a pydantic Field(...): its default, never a factory
    if getattr(default, "default_factory", None) is not None:
        return False
    return isinstance(getattr(default, "default", None), _PRIMITIVE) or (
        type(getattr(default, "default", None)).__name__ == "PydanticUndefinedType"
    )


def never_blocks(fn: Any) -> bool:
    """True if ``fn`` provably cannot block (see the module docs); False when unsure."""
    try:
        return _never_blocks(fn)
    except Exception:  # unresolvable hints, odd callables: not proven
        return False


def _never_blocks(fn: Any) -> bool:
    if type(fn) is not types.FunctionType:  # a method, partial or wrapper may do anything
        return False
    code = fn.__code__
    if code.co_flags & _UNSAFE_FLAGS or code.co_freevars or code.co_cellvars:
        return False
    hints = typing.get_type_hints(fn)
    hints.pop("return", None)
    parameters = inspect.signature(fn).parameters.values()
    if not all(
        p.name in hints and _primitive_hint(hints[p.name]) and _primitive_default(p.default)
        for p in parameters
    ):
        return False
    strings = any(str in (h, *typing.get_args(h)) for h in hints.values())
    integers = any(int in (h, *typing.get_args(h)) for h in hints.values())

    operations = 0
    string_steps = 0
    for instruction in dis.get_instructions(code):
        name = instruction.opname
        if instruction.opcode in dis.hasjrel or instruction.opcode in dis.hasjabs:
            if name not in _FLOW or not instruction.argval > instruction.offset:
                return False  # a loop (or an unknown jump)
            continue
        if name == "LOAD_CONST":
            if not isinstance(instruction.argval, _PRIMITIVE):
                return False
            strings = strings or isinstance(instruction.argval, str)
            continue
        if name == "FORMAT_VALUE":  # an f-string field: plain only (a format spec's width
            if (instruction.arg or 0) & 0x07:  # could be huge; !a and !r escape each
                return False  # character into up to ten)
            string_steps += 1
            continue
        if name == "FORMAT_SIMPLE":  # 3.13's plain f-string field (CONVERT_VALUE is refused)
            string_steps += 1
            continue
        symbol = instruction.argrepr if name == "BINARY_OP" else None
        if symbol is None and name.startswith(("BINARY_", "INPLACE_")):
            symbol = _OLD_OPS.get(name.partition("_")[2])
            if symbol is None:
                return False
        if symbol is not None:
            operations += 1
            string_steps += strings
            if symbol not in _LINEAR_OPS and not (
                symbol in _FLOAT_OPS and not strings and not integers
            ):
                return False
            continue
        if name not in _FLOW:
            return False
    return operations <= MAX_OPERATIONS and (not strings or string_steps <= MAX_STRING_STEPS)
