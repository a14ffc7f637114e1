"""toolwire's client lists and gets prompts and asks for completions, against a server built on
the official MCP SDK (tests/servers/sdk_primitives.py) over stdio; every message is checked
against the revision's JSON Schema."""

from __future__ import annotations

import pytest

from toolwire import ClientError, ServerError
from toolwire.client import Completion, PromptResult, SyncClient

from primitive_clients import SDK_SERVER, TIMEOUT, strict_client

pytestmark = pytest.mark.timeout(60)
REVISIONS = ["2025-11-25", "2026-07-28"]


@pytest.mark.parametrize("revision", REVISIONS)
async def test_lists_and_gets_the_official_servers_prompts(revision: str) -> None:
    async with strict_client(SDK_SERVER, revision) as (client, sent):
        prompts = {p["name"]: p for p in await client.list_prompts()}
        assert set(prompts) == {"greet", "review"}
        assert prompts["greet"]["arguments"] == [
            {"name": "name", "required": True},
            {"name": "language", "required": False},
        ]

        greeting = await client.get_prompt("greet", {"name": "Ada", "language": "french"})
        assert isinstance(greeting, PromptResult)
        assert greeting.description == "Greet someone in a language."
        assert greeting.text == "Say hello to Ada in french."
        assert [m["role"] for m in greeting.messages] == ["user"]

        review = await client.get_prompt("review", {"code": "x = 1"})
        assert [m["role"] for m in review.messages] == ["user", "assistant"]
        assert review.messages[0]["content"] == {"type": "text", "text": "Please review:\nx = 1"}

        with pytest.raises(ServerError):
            await client.get_prompt("no-such-prompt")

    gets = [m["params"] for m in sent if m.get("method") == "prompts/get"]
    assert gets[0]["name"] == "greet"
    assert gets[0]["arguments"] == {"name": "Ada", "language": "french"}
    assert "arguments" not in gets[2]  # none given: none sent


@pytest.mark.parametrize("revision", REVISIONS)
async def test_completes_prompt_arguments_and_template_variables(revision: str) -> None:
    async with strict_client(SDK_SERVER, revision) as (client, sent):
        languages = await client.complete(prompt="greet", argument="language", value="e")
        assert isinstance(languages, Completion)
        assert languages.values == ["english", "esperanto"]
        assert languages.total == 2 and languages.has_more is False

        # An earlier answer narrows the suggestions (context.arguments).
        names = await client.complete(
            prompt="greet", argument="name", value="A", context={"language": "esperanto"}
        )
        assert names.values == ["Ana", "Alba"]
        plain = await client.complete(prompt="greet", argument="name", value="A")
        assert plain.values == ["Al", "Alice"]

        users = await client.complete(
            resource_template="users://{user_id}/profile", argument="user_id"
        )
        assert users.values == ["1", "2", "3"] and users.total is None

    completes = [m["params"] for m in sent if m.get("method") == "completion/complete"]
    assert completes[0]["ref"] == {"type": "ref/prompt", "name": "greet"}
    assert completes[1]["context"] == {"arguments": {"language": "esperanto"}}
    assert completes[3]["ref"] == {"type": "ref/resource", "uri": "users://{user_id}/profile"}
    assert completes[3]["argument"] == {"name": "user_id", "value": ""}


async def test_context_is_left_out_where_the_revision_has_none() -> None:
    # completion/complete exists since 2025-03-26; context.arguments only since 2025-06-18.
    async with strict_client(SDK_SERVER, "2025-03-26") as (client, sent):
        names = await client.complete(
            prompt="greet", argument="name", value="A", context={"language": "esperanto"}
        )
        assert names.values == ["Al", "Alice"]
    (params,) = [m["params"] for m in sent if m.get("method") == "completion/complete"]
    assert "context" not in params


async def test_complete_checks_its_arguments_and_the_revision() -> None:
    async with strict_client(SDK_SERVER, "2024-11-05") as (client, _):
        with pytest.raises(ValueError, match="exactly one"):
            await client.complete(argument="x")
        with pytest.raises(ValueError, match="exactly one"):
            await client.complete(prompt="greet", resource_template="users://{id}", argument="x")
        with pytest.raises(ClientError, match="does not exist"):
            await client.complete(prompt="greet", argument="name")
        # Prompts themselves exist on the oldest revision.
        assert (await client.get_prompt("greet", {"name": "Bo"})).text.startswith("Say hello")


def test_the_sync_client_gets_prompts_and_completions() -> None:
    with SyncClient(SDK_SERVER, protocol_version="2025-11-25", timeout=TIMEOUT) as client:
        assert [p["name"] for p in client.list_prompts()] == ["greet", "review"]
        assert client.get_prompt("greet", {"name": "Al"}).text == "Say hello to Al in english."
        found = client.complete(prompt="greet", argument="language", value="g")
        assert found.values == ["german"]
