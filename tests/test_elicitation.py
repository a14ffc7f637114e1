"""Tools that ask the client (elicitation, sampling), in memory and over stdio, in both eras.

Legacy sessions (2025-06-18 and later for elicitation) get a server-to-client request the
client's handler answers; on 2026-07-28 the call ends with an ``InputRequiredResult`` and the
client retries with ``inputResponses`` and the echoed ``requestState`` (MRTR). The server is
``servers/live_inputs.py``. Every message is checked against the schema of the revision in use;
the raw 2026 round trip is compared with the spec's InputRequiredResult/InputResponses examples.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from types import SimpleNamespace
from typing import Any

import orjson
import pytest

from servers.live_peer import load, open_peer
from toolwire import Client, ClientError, Context, Server, ServerError
from toolwire.server import inputs
from toolwire.server.inputs import StateSigner

from mcp_spec import SPEC_DIR, examples, validate_definition
from wire import MODERN, SERVERS, checked_client, modern_meta

LEGACY = "2025-11-25"
TRANSPORTS = ["memory", "stdio"]
ERAS = [LEGACY, MODERN]
SECRET: bytes = load("live_inputs").SECRET
JSON = dict[str, Any]


# The spec's two-question example: the input requests and the answers to them.
ASKS = (
    "InputRequiredResult",
    "input-required-result-with-elicitation-and-sampling-and-request-state",
)
REPLIES = ("InputResponses", "elicitation-and-sampling-input-responses")


def spec_example(name: tuple[str, str]) -> Any:
    """One example of the spec, read when a test needs it (never at collection)."""
    type_name, stem = name
    found = [data for _, path, data in examples(type_name) if path.stem == stem]
    assert found, f"no example {type_name}/{stem}.json in {SPEC_DIR}"
    return found[0]


@contextlib.asynccontextmanager
async def live_client(transport: str, revision: str, **options: Any) -> AsyncIterator[Client]:
    target = (
        load("live_inputs").build() if transport == "memory" else str(SERVERS / "live_inputs.py")
    )
    async with checked_client(target, revision, **options) as client:
        yield client
        assert client.checker.client_issues == []  # type: ignore[attr-defined]


class Person:
    """A scripted user: answers each question with the next reply, and remembers the questions."""

    def __init__(self, *replies: JSON) -> None:
        self.replies = list(replies)
        self.asked: list[JSON] = []

    async def __call__(self, params: JSON) -> JSON:
        self.asked.append(params)
        return self.replies.pop(0)


def accept(**content: Any) -> JSON:
    return {"action": "accept", "content": content}


def model_reply(text: str) -> JSON:
    return {
        "role": "assistant",
        "content": {"type": "text", "text": text},
        "model": "test-model",
        "stopReason": "endTurn",
    }


# ---------------------------------------------------------------- elicitation, both eras


@pytest.mark.parametrize("revision", ERAS)
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_destructive_tool_acts_only_when_the_user_accepts(
    transport: str, revision: str
) -> None:
    """MP-01, TL-03, TL-32: "Delete 3 files?" is asked (a server request on a legacy session,
    an InputRequiredResult on 2026-07-28); decline, cancel and an unticked accept delete
    nothing and are told apart; only a confirmed accept deletes, exactly once."""
    person = Person(
        {"action": "decline"},
        {"action": "cancel"},
        accept(confirm=False),
        accept(confirm=True),
    )
    three = {"paths": ["a.txt", "b.txt", "c.txt"]}
    async with live_client(transport, revision, elicitation_handler=person) as client:
        outcomes = [(await client.call_tool("delete_files", three)).text for _ in range(3)]
        assert outcomes == [
            "Kept the files (decline)",
            "Kept the files (cancel)",
            "Kept the files (not confirmed)",
        ]
        assert (await client.call_tool("deleted_files")).text == ""
        assert (await client.call_tool("delete_files", three)).text == "Deleted 3 files"
        assert (await client.call_tool("deleted_files")).text == "a.txt,b.txt,c.txt"
        # A 2026-07-28 call runs the tool again after the answer: twice per call.
        assert (await client.call_tool("runs")).text == ("8" if revision == MODERN else "4")
    assert person.asked == 4 * [
        {
            "message": "Delete 3 files?",
            "requestedSchema": {
                "type": "object",
                "properties": {
                    "confirm": {
                        "type": "boolean",
                        "title": "Confirm",
                        "description": "Tick to go ahead",
                    }
                },
                "required": ["confirm"],
                "title": "Confirm",  # pydantic's titles: the form's labels
            },
        }
    ]


@pytest.mark.parametrize("revision", ERAS)
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_two_questions_in_one_tool(transport: str, revision: str) -> None:
    """MP-03, MP-08: a tool asks twice (elicitation then sampling; elicitation twice); on
    2026-07-28 each answer is carried forward in the signed requestState, so the second
    round has both and the tool finishes; a decline at the second question stops it."""
    person = Person(
        accept(name="octocat"),
        accept(account="savings"),
        accept(confirm=True),
        accept(account="savings"),
        {"action": "decline"},
    )
    model = Person(model_reply("The capital of France is Paris."))
    async with live_client(
        transport, revision, elicitation_handler=person, sampling_handler=model
    ) as client:
        onboard = await client.call_tool("onboard")
        assert onboard.text == "octocat: The capital of France is Paris."
        assert (await client.call_tool("transfer", {"amount": 5})).text == "Sent 5 to savings"
        declined = await client.call_tool("transfer", {"amount": 7})
        assert declined.text == "No transfer (decline at the confirmation)"
    assert [q["message"] for q in person.asked] == [
        "Please provide your GitHub username",
        "Which account?",
        "Send 5 to savings?",
        "Which account?",
        "Send 7 to savings?",
    ]
    assert model.asked == [spec_example(ASKS)["inputRequests"]["capital_of_france"]["params"]]


async def test_the_client_retries_with_a_new_id_and_the_state_unchanged() -> None:
    """MP-08, TL-37: each retry has a new id, carries only the answers to the questions just
    asked, and echoes the server's requestState byte for byte (none on the first call)."""
    sent: list[JSON] = []
    received: list[JSON] = []

    def tap(direction: str, data: bytes) -> None:
        message = orjson.loads(data)
        if direction == "send" and message.get("method") == "tools/call":
            sent.append(message)
        elif direction == "receive" and message.get("id") in {m["id"] for m in sent}:
            received.append(message)

    person = Person(accept(account="savings"), accept(confirm=True))
    server = load("live_inputs").build()
    async with Client(
        server, protocol_version=MODERN, elicitation_handler=person, tap=tap
    ) as client:
        assert (await client.call_tool("transfer", {"amount": 5})).text == "Sent 5 to savings"
    assert len({m["id"] for m in sent}) == len(sent) == 3
    assert [m["id"] for m in received] == [m["id"] for m in sent]
    assert "requestState" not in sent[0]["params"] and "inputResponses" not in sent[0]["params"]
    for retry, answered in zip(sent[1:], received[:2], strict=True):
        assert retry["params"]["requestState"] == answered["result"]["requestState"]
        assert set(retry["params"]["inputResponses"]) == set(answered["result"]["inputRequests"])
    assert [m["result"]["resultType"] for m in received] == [
        "input_required",
        "input_required",
        "complete",
    ]


@pytest.mark.parametrize("revision", ERAS)
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_sampling_asks_the_clients_model(transport: str, revision: str) -> None:
    """MP-01: ctx.sample sends sampling/createMessage (legacy request or 2026 input request)
    with the messages, system prompt and token limit; the tool reads model, stop reason and
    text of the reply."""
    model = Person(model_reply("Short and sweet."))
    async with live_client(transport, revision, sampling_handler=model) as client:
        result = await client.call_tool("summarize", {"text": "a long story"})
        assert result.text == "test-model/endTurn: Short and sweet."
    assert model.asked == [
        {
            "messages": [
                {"role": "user", "content": {"type": "text", "text": "Summarize: a long story"}}
            ],
            "maxTokens": 50,
            "systemPrompt": "Answer in five words.",
        }
    ]


# ---------------------------------------------------------------- clients that cannot answer


@pytest.mark.parametrize(
    ("transport", "revision"),
    [
        ("memory", "2024-11-05"),
        ("memory", "2025-03-26"),
        ("stdio", "2025-03-26"),
    ],
)
async def test_revisions_before_elicitation_get_a_clear_tool_error(
    transport: str, revision: str
) -> None:
    """LC-10, MP-04: elicitation exists since 2025-06-18; an older session is never sent
    elicitation/create, even by a client with a handler, and the tool's call ends as an
    isError result saying why (the model reads it). Sampling works there (since 2024-11-05)."""
    person = Person()
    model = Person(model_reply("ok"))
    async with live_client(
        transport, revision, elicitation_handler=person, sampling_handler=model
    ) as client:
        result = await client.call_tool("delete_files", {"paths": ["a"]})
        assert result.is_error
        assert result.text == "The client cannot ask the user for input (no elicitation support)"
        assert (await client.call_tool("summarize", {"text": "x"})).text == "test-model/endTurn: ok"
        assert (await client.call_tool("deleted_files")).text == ""
    assert person.asked == []


@pytest.mark.parametrize("revision", ERAS)
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_client_without_the_capability_is_never_asked(
    transport: str, revision: str
) -> None:
    """MP-04, LC-10, JR-37: a client that declared neither elicitation nor sampling gets no
    elicitation/create, sampling/createMessage nor InputRequiredResult. On legacy revisions
    the calls end as isError results that say what is missing; on 2026-07-28 a request that
    needs an undeclared capability is refused with -32021 naming it."""
    async with live_client(transport, revision) as client:
        for tool, arguments, capability, text in (
            (
                "delete_files",
                {"paths": ["a"]},
                "elicitation",
                "The client cannot ask the user for input (no elicitation support)",
            ),
            (
                "summarize",
                {"text": "x"},
                "sampling",
                "The client offers no model to ask (no sampling support)",
            ),
        ):
            if revision == MODERN:
                with pytest.raises(ServerError) as refused:
                    await client.call_tool(tool, arguments)
                assert (refused.value.code, refused.value.message) == (-32021, text)
                assert refused.value.data == {"requiredCapabilities": {capability: {}}}
                continue
            result = await client.call_tool(tool, arguments)
            assert (result.is_error, result.text) == (True, text)
            assert result.raw.get("resultType", "complete") == "complete"  # no InputRequiredResult


@pytest.mark.parametrize("revision", ERAS)
async def test_a_failing_handler_ends_the_call_without_side_effects(revision: str) -> None:
    """A legacy client whose handler fails answers elicitation/create with a JSON-RPC error
    and the call ends as an isError result naming the method; a 2026-07-28 client has nothing
    to retry with (MP-08) and raises ClientError. Nothing is deleted either way."""

    def broken(params: JSON) -> JSON:
        raise RuntimeError("the dialog crashed")

    async with live_client("memory", revision, elicitation_handler=broken) as client:
        if revision == MODERN:
            with pytest.raises(ClientError) as info:
                await client.call_tool("delete_files", {"paths": ["a"]})
            assert not isinstance(info.value, ServerError)
            assert str(info.value) == (
                "tools/call needs input the client could not give: "
                "the elicitation/create handler failed"
            )
        else:
            result = await client.call_tool("delete_files", {"paths": ["a"]})
            assert (result.is_error, result.text) == (
                True,
                "The client could not answer elicitation/create: "
                "the elicitation/create handler failed",
            )
        assert (await client.call_tool("deleted_files")).text == ""


# ---------------------------------------------------------------- raw 2026-07-28 round trip


def _call(mid: Any, name: str, arguments: JSON, **extra: Any) -> JSON:
    meta = modern_meta(
        **{
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}, "sampling": {}},
        }
    )
    return {
        "jsonrpc": "2.0",
        "id": mid,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments, "_meta": meta, **extra},
    }


async def _exchange(peer: Any, message: JSON) -> JSON:
    await peer.send(message)
    response = await peer.recv()  # nothing else may come first: no server requests in 2026
    assert response["id"] == message["id"], response
    return response  # type: ignore[no-any-return]


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_raw_2026_round_trip_matches_the_spec_examples(transport: str) -> None:
    """MP-01, MP-03, MP-08, TL-37, JR-39: the spec's two-question example, message by message.
    Round 1 ends with an InputRequiredResult whose input request is the spec example's
    github_login request; the retry (new id, the spec's github_login response, requestState
    echoed) ends with the capital_of_france request; the last retry completes the call."""
    asks, replies = spec_example(ASKS), spec_example(REPLIES)
    async with open_peer(transport, "live_inputs", revision=MODERN) as peer:
        first = (await _exchange(peer, _call(1, "onboard", {})))["result"]
        assert set(first) == {"resultType", "inputRequests", "requestState", "_meta"}
        validate_definition(
            {k: v for k, v in first.items() if k != "_meta"}, "InputRequiredResult", MODERN
        )
        assert first["resultType"] == asks["resultType"] == "input_required"
        assert first["inputRequests"] == {"elicit-1": asks["inputRequests"]["github_login"]}
        assert isinstance(first["requestState"], str) and first["requestState"]

        answers = {"elicit-1": replies["github_login"]}
        validate_definition(answers, "InputResponses", MODERN)
        retry = _call(2, "onboard", {}, inputResponses=answers, requestState=first["requestState"])
        second = (await _exchange(peer, retry))["result"]
        assert second["resultType"] == "input_required"
        assert second["inputRequests"] == {"sample-2": asks["inputRequests"]["capital_of_france"]}
        assert second["requestState"] != first["requestState"]  # now carries the login

        answers = {"sample-2": replies["capital_of_france"]}
        validate_definition(answers, "InputResponses", MODERN)
        retry = _call(3, "onboard", {}, inputResponses=answers, requestState=second["requestState"])
        third = (await _exchange(peer, retry))["result"]
        assert third["resultType"] == "complete"
        assert third["content"] == [
            {"type": "text", "text": "octocat: The capital of France is Paris."}
        ]
        assert "isError" not in third


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_missing_answers_are_asked_again_and_unknown_ones_ignored(transport: str) -> None:
    """MP-07, MP-09: a retry that brings the state but no answer gets the same question
    again; answers nobody asked for are ignored; a client that never retries leaves no
    side effect behind."""
    async with open_peer(transport, "live_inputs", revision=MODERN) as peer:
        args = {"paths": ["a", "b", "c"]}
        first = (await _exchange(peer, _call(1, "delete_files", args)))["result"]
        again = _call(2, "delete_files", args, requestState=first["requestState"])
        second = (await _exchange(peer, again))["result"]
        assert second["resultType"] == "input_required"
        assert second["inputRequests"] == first["inputRequests"]

        stray = {"elicit-9": {"action": "accept", "content": {}}, "sample-7": model_reply("hi")}
        noisy = _call(
            3, "delete_files", args, inputResponses=stray, requestState=first["requestState"]
        )
        third = (await _exchange(peer, noisy))["result"]
        assert third["inputRequests"] == first["inputRequests"]
        listed = (await _exchange(peer, _call(4, "deleted_files", {})))["result"]
        assert listed["content"] == [{"type": "text", "text": ""}]


async def test_an_answer_that_is_not_an_elicit_result_is_invalid_params() -> None:
    """TL-25, MP-09: an answer for a question that was asked, in a shape the schema rejects."""
    async with open_peer("memory", "live_inputs", revision=MODERN) as peer:
        args = {"paths": ["a"]}
        first = (await _exchange(peer, _call(1, "delete_files", args)))["result"]
        bad = {"elicit-1": {"action": "maybe"}}
        retry = _call(
            2, "delete_files", args, inputResponses=bad, requestState=first["requestState"]
        )
        await peer.send(retry)
        try:
            response = await peer.recv()
        except AssertionError:  # the schema checker saw the isError *result*
            response = {}
        assert response.get("error", {}).get("code") == -32602, response


# ---------------------------------------------------------------- requestState is checked


def _forged(arguments: JSON, question: JSON, *, tool: str = "delete_files", at: float) -> str:
    """A state signed with the server's secret, carrying an accept for ``question``, sealed as
    if the clock said ``at``."""
    clock = inputs.time
    inputs.time = SimpleNamespace(time=lambda: at)  # type: ignore[assignment]
    asked = inputs.fingerprint(question["method"], question["params"])
    try:
        return StateSigner(SECRET).seal(
            tool, arguments, None, {"elicit-1": [asked, accept(confirm=True)]}, {}
        )
    finally:
        inputs.time = clock


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_request_state_that_fails_verification_is_invalid_params(transport: str) -> None:
    """MP-05, MP-06: requestState is integrity-protected and bound to the tool, its arguments
    and a short expiry: an altered, expired, other-tool, other-arguments or malformed state
    is -32602 and the tool does not run; the genuine one works."""
    args = {"paths": ["a", "b", "c"]}
    yes = {"elicit-1": accept(confirm=True)}
    async with open_peer(transport, "live_inputs", revision=MODERN) as peer:
        first = (await _exchange(peer, _call(1, "delete_files", args)))["result"]
        state, question = first["requestState"], first["inputRequests"]["elicit-1"]
        body, mac = state.split(".")
        flip = {"A": "B"}.get(body[5], "A")
        expired_but_signed = _forged(args, question, at=0.0)  # sealed in 1970: long expired
        carried = _forged(args, question, at=time.time())  # the answer travels in the state
        attempts: list[tuple[str, JSON, Any]] = [
            ("altered body", args, body[:5] + flip + body[6:] + "." + mac),
            ("altered mac", args, body + "." + mac[:-2] + ("AA" if mac[-2:] != "AA" else "BB")),
            ("no mac", args, body),
            ("expired", args, expired_but_signed),
            ("other arguments", {"paths": ["a"]}, state),
            ("not a string", args, 12345),
            ("garbage", args, "not.base64!"),
        ]
        mid = 1
        for label, arguments, token in attempts:
            mid += 1
            response = await _exchange(
                peer, _call(mid, "delete_files", arguments, inputResponses=yes, requestState=token)
            )
            assert response.get("error", {}).get("code") == -32602, (label, response)
            assert response["error"]["message"] == "Invalid requestState", label

        mid += 1
        other_tool = _call(mid, "transfer", {"amount": 1}, inputResponses=yes, requestState=state)
        assert (await _exchange(peer, other_tool))["error"]["code"] == -32602
        mid += 1
        not_an_object = _call(mid, "delete_files", args, inputResponses=[yes], requestState=state)
        assert (await _exchange(peer, not_an_object))["error"]["code"] == -32602

        mid += 1
        listed = (await _exchange(peer, _call(mid, "deleted_files", {})))["result"]
        assert listed["content"] == [{"type": "text", "text": ""}]  # nothing ran

        # A state the server signed is honoured, answers it carries included.
        mid += 1
        ok = _call(mid, "delete_files", args, requestState=carried)
        assert (await _exchange(peer, ok))["result"]["content"] == [
            {"type": "text", "text": "Deleted 3 files"}
        ]
        mid += 1
        genuine = _call(mid, "delete_files", args, inputResponses=yes, requestState=state)
        assert (await _exchange(peer, genuine))["result"]["content"] == [
            {"type": "text", "text": "Deleted 3 files"}
        ]


# ---------------------------------------------------------------- raw legacy round trip


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_raw_legacy_elicitation_is_a_server_request(transport: str) -> None:
    """MP-01 (legacy), LC-10, JR-*: on 2025-06-18 a client that declared elicitation gets an
    elicitation/create request (its own id, the form schema) while the call waits; its answer
    resumes the tool; an error answer ends the call as an isError result."""
    revision = "2025-06-18"
    async with open_peer(transport, "live_inputs", revision=revision) as peer:
        init = {
            "protocolVersion": revision,
            "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "tests", "version": "0"},
        }
        assert (await peer.request("initialize", init))["result"]["protocolVersion"] == revision
        await peer.notify("notifications/initialized")

        for mid, reply, expected in [
            (1, {"result": {"action": "decline"}}, "Kept the files (decline)"),
            (2, {"result": accept(confirm=True)}, "Deleted 2 files"),
            (3, {"error": {"code": -32603, "message": "dialog crashed"}}, None),
        ]:
            await peer.send(
                {
                    "jsonrpc": "2.0",
                    "id": 1000 + mid,
                    "method": "tools/call",
                    "params": {"name": "delete_files", "arguments": {"paths": ["x", "y"]}},
                }
            )
            question = await peer.recv()
            assert question["method"] == "elicitation/create"
            assert isinstance(question["id"], (str, int)) and question["id"] != 1000 + mid
            assert question["params"]["message"] == "Delete 2 files?"
            assert question["params"]["requestedSchema"]["required"] == ["confirm"]
            await peer.send({"jsonrpc": "2.0", "id": question["id"], **reply})
            response = await peer.recv()
            assert response["id"] == 1000 + mid
            result = response["result"]
            if expected is None:
                assert result["isError"] is True
                assert result["content"][0]["text"] == (
                    "The client could not answer elicitation/create: dialog crashed"
                )
            else:
                assert result["content"] == [{"type": "text", "text": expected}]


@pytest.mark.timeout(30)
async def test_a_cancelled_call_withdraws_its_question() -> None:
    """Legacy: the tool's call is cancelled while the user is being asked; the server tells
    the client (notifications/cancelled for its own request, CN-01) and the client stops
    asking, sending no answer (CN-04)."""
    mcp = Server("asks")

    @mcp.tool()
    async def ask(ctx: Context) -> str:
        """Ask for a name, forever."""
        await ctx.elicit("Name?", {"type": "object", "properties": {"n": {"type": "string"}}})
        return "never"

    asked, withdrawn = asyncio.Event(), asyncio.Event()

    async def person(params: dict[str, Any]) -> dict[str, Any]:
        asked.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            withdrawn.set()
            raise
        return {"action": "cancel"}

    async with checked_client(mcp, LEGACY, elicitation_handler=person) as client:
        call = asyncio.create_task(client.call_tool("ask"))
        await asyncio.wait_for(asked.wait(), 10)
        call.cancel()
        await asyncio.wait_for(withdrawn.wait(), 10)
        cancelled = [n for n in client.notifications if n["method"] == "notifications/cancelled"]
        assert [n["params"]["requestId"] for n in cancelled] == ["toolwire-1"]
        await asyncio.wait_for(client.ping(), 10)  # the session goes on
