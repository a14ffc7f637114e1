"""Idempotency keys: a ``tools/call`` whose ``_meta`` carries ``io.toolwire/idempotency-key``
runs once however often it is sent with that key.

The first call with a key claims it (in the HTTP app's shared store, so on every worker, else
in this process) and runs; its answer, a result or a JSON-RPC error, is kept for
:data:`KEEP_S` seconds, and a call sent again with the key gets that answer without running
the tool, once it is known (a repeat that arrives while the first still runs waits for it,
up to :data:`WAIT_S` seconds). The key must name the same call: another tool or other
arguments with it are refused (-32602). A first call cut short (its worker stopped or died)
leaves no answer: a repeat is told that its outcome is unknown. Keys are per caller when
the server authenticates its callers (one caller cannot read another's answers), else
shared: make them random (a UUID).

toolwire's :class:`~toolwire.Client` sends one with ``call_tool(..., idempotency_key=...)``
and then sends such a call again, once, when its connection failed before the answer.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import inspect
from typing import Any

import orjson

from ... import jsonrpc
from ...errors import RPCError
from ...protocol.revisions import META_IDEMPOTENCY_KEY as IDEMPOTENCY_KEY
from ..request import JSON, Request
from ..state import values_of

KEEP_S = 86_400.0  # how long a key and its call's answer are kept
WAIT_S = 300.0  # how long a repeat waits for the first call's answer
POLL_S = 0.1  # how often it looks
SETTLE_S = 2.0  # a claimed key's first answer (none yet) is written right after the claim
MAX_KEY = 255


def keyed_call(server: Any, connection: Any, request: Request, name: str, arguments: JSON) -> Any:
    """``tools/call`` with an idempotency key: run once, answered alike after; a call that
    brings the answers to its questions (``requestState``) runs as usual."""
    params = request.params
    if "requestState" in params or "inputResponses" in params:
        return server.invoke_tool(connection, request, name, arguments)
    key = (request.meta or {}).get(IDEMPOTENCY_KEY)
    run = functools.partial(server.invoke_tool, connection, request, name, arguments)
    return once(server, key, request, name, arguments, run)


async def once(
    server: Any, key: Any, request: Request, name: str, arguments: JSON, run: Any
) -> Any:
    """The answer to a call with an idempotency key: ``run()``'s (a result or a coroutine of
    one) the first time, the kept answer after."""
    if not isinstance(key, str) or not 0 < len(key) <= MAX_KEY:
        raise RPCError(
            jsonrpc.INVALID_PARAMS,
            f"Invalid params: _meta[{IDEMPOTENCY_KEY!r}] must be a string of 1 to {MAX_KEY} "
            "characters",
        )
    store = values_of(server)
    scope = hashlib.sha256(orjson.dumps([request.caller, key])).hexdigest()[:40]
    call = hashlib.sha256(orjson.dumps([name, arguments], option=orjson.OPT_SORT_KEYS)).hexdigest()
    answer_key = f"idempotency:{scope}"
    if await store.claim(f"idempotency:{scope}", KEEP_S):
        await store.set_value(answer_key, orjson.dumps({"call": call}), KEEP_S)
        try:
            result = run()
            if inspect.isawaitable(result):
                result = await result
        except RPCError as exc:
            await store.set_value(answer_key, _kept(call, error=exc.to_error()), KEEP_S)
            raise
        except BaseException:  # cut short (cancelled), or failed in a way no answer tells
            await asyncio.shield(store.set_value(answer_key, _kept(call, cut=True), KEEP_S))
            raise
        await store.set_value(answer_key, _kept(call, result=result), KEEP_S)
        return result
    return await _repeat(store, answer_key, call)


def _kept(call: str, **answer: Any) -> bytes:
    return orjson.dumps({"call": call, **answer})


async def _repeat(store: Any, answer_key: str, call: str) -> JSON:
    """The first call's answer, once known."""
    loop = asyncio.get_running_loop()
    started = loop.time()
    deadline = started + WAIT_S
    while True:
        raw = await store.get_value(answer_key)
        kept: JSON = orjson.loads(raw) if raw is not None else {"call": call}
        if kept["call"] != call:
            raise RPCError(
                jsonrpc.INVALID_PARAMS,
                "Invalid params: this idempotency key was sent with another call "
                "(another tool or other arguments)",
            )
        if "result" in kept:
            result: JSON = kept["result"]
            return result
        if "error" in kept:
            error: JSON = kept["error"]
            raise RPCError(error["code"], error["message"], error.get("data"))
        now = loop.time()
        if kept.get("cut") or now >= deadline or (raw is None and now - started > SETTLE_S):
            raise RPCError(
                jsonrpc.INTERNAL_ERROR,
                "A call with this idempotency key was sent before and its outcome is unknown "
                "(it was cut short, or is still running); check before sending it with a new key",
            )
        await asyncio.sleep(POLL_S)
