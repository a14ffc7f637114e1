"""Tools that ask the client: elicitation and sampling. ``build()`` makes a fresh server; run
as a script it serves stdio.

``requestState`` is signed with :data:`SECRET`, so tests can forge an expired one.

* ``delete_files(paths)`` (destructive) asks "Delete N files?" and deletes only on accept;
  ``deleted_files()`` tells what was deleted, ``runs()`` how often delete_files started.
* ``onboard()`` asks two questions of two kinds, as in the spec's InputRequiredResult
  example: a GitHub username (elicitation), then the capital of France (sampling).
* ``transfer(amount)`` asks two elicitation questions: the account, then a confirmation.
* ``summarize(text)`` asks the client's model (sampling) with a system prompt.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from toolwire import Context, Server

SECRET = b"live-inputs: a fixed secret for tests only"

LOGIN_SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string"}},
    "required": ["name"],
}


class Confirm(BaseModel):
    confirm: bool = Field(description="Tick to go ahead")


class Account(BaseModel):
    account: str = Field(description="Account name")


def build() -> Server:
    mcp = Server("live-inputs", version="0.0.1", state_secret=SECRET)
    deleted: list[str] = []
    started: list[int] = []

    @mcp.tool(annotations={"destructiveHint": True, "readOnlyHint": False})
    async def delete_files(paths: list[str], ctx: Context) -> str:
        """Delete files, after the user confirms."""
        started.append(1)
        answer = await ctx.elicit(f"Delete {len(paths)} files?", Confirm)
        if answer.action == "accept" and answer.data.confirm:
            deleted.extend(paths)  # the side effect comes after the question
            return f"Deleted {len(paths)} files"
        if answer.action == "accept":
            return "Kept the files (not confirmed)"
        return f"Kept the files ({answer.action})"

    @mcp.tool()
    def deleted_files() -> str:
        """The files deleted so far, comma separated."""
        return ",".join(deleted)

    @mcp.tool()
    def runs() -> int:
        """How many times delete_files started (a 2026-07-28 retry starts it again)."""
        return len(started)

    @mcp.tool()
    async def onboard(ctx: Context) -> str:
        """Ask for a GitHub login, then ask the client's model a question."""
        login = await ctx.elicit("Please provide your GitHub username", LOGIN_SCHEMA)
        if login.action != "accept":
            return f"No login ({login.action})"
        capital = await ctx.sample("What is the capital of France?", max_tokens=100)
        return f"{login.data['name']}: {capital.text}"

    @mcp.tool()
    async def transfer(amount: int, ctx: Context) -> str:
        """Send money, asking where to and whether to go ahead."""
        account = await ctx.elicit("Which account?", Account)
        if account.action != "accept":
            return f"No transfer ({account.action} at the account)"
        confirm = await ctx.elicit(f"Send {amount} to {account.data.account}?", Confirm)
        if confirm.action != "accept" or not confirm.data.confirm:
            return f"No transfer ({confirm.action} at the confirmation)"
        return f"Sent {amount} to {account.data.account}"

    @mcp.tool()
    async def summarize(text: str, ctx: Context) -> str:
        """Summarize with the client's model."""
        reply = await ctx.sample(
            [{"role": "user", "content": {"type": "text", "text": f"Summarize: {text}"}}],
            system_prompt="Answer in five words.",
            max_tokens=50,
        )
        return f"{reply.model}/{reply.stop_reason}: {reply.text}"

    return mcp


if __name__ == "__main__":
    build().run()
