"""A FastMCP server with task tools (the ``fastmcp-tasks`` add-on, SEP-2663) for the interop
test with toolwire's client; run by the interpreter of the ``fastmcp-tasks`` virtualenv.

    python fastmcp_tasks_server.py --fd N --redis redis://127.0.0.1:PORT/0

It serves Streamable HTTP at ``/mcp`` on the already-listening socket N, its tasks kept in
that Redis (through pydocket). ``slow`` works for ``seconds``; ``confirm_delete`` asks one
question (an ``InputRequiredResult``, the add-on's way for a task to ask) and finishes once
``tasks/update`` brings the answer.
"""

from __future__ import annotations

import argparse
import asyncio
from datetime import timedelta

import mcp_types
import uvicorn
from fastmcp import Context, FastMCP
from fastmcp.utilities.tasks import TaskConfig
from fastmcp_tasks import TasksExtension

# a short poll interval, so that a client honouring it sees a quick task end quickly
AS_TASK = TaskConfig(mode="optional", poll_interval=timedelta(milliseconds=100))


def build(redis_url: str) -> FastMCP:
    mcp = FastMCP("fastmcp-tasks-interop")
    mcp.add_extension(
        TasksExtension(
            url=redis_url,
            name="toolwire-interop",
            minimum_check_interval=timedelta(milliseconds=50),
        )
    )

    @mcp.tool(task=AS_TASK)
    async def slow(seconds: float, label: str = "job") -> str:
        """Works for a while."""
        await asyncio.sleep(seconds)
        return f"{label} done"

    @mcp.tool(task=AS_TASK)
    async def confirm_delete(filename: str, ctx: Context) -> str | mcp_types.InputRequiredResult:
        """Asks before it deletes."""
        answers = ctx.input_responses or {}
        answer = answers.get("confirm")
        if answer is None:
            question = mcp_types.ElicitRequest(
                params=mcp_types.ElicitRequestFormParams(
                    message=f"Delete {filename}?",
                    requested_schema={
                        "type": "object",
                        "properties": {"confirm": {"type": "boolean"}},
                        "required": ["confirm"],
                    },
                )
            )
            return mcp_types.InputRequiredResult(input_requests={"confirm": question})
        data = answer.model_dump(mode="json") if hasattr(answer, "model_dump") else answer
        accepted = data.get("action") == "accept" and (data.get("content") or {}).get("confirm")
        return "deleted" if accepted else "kept"

    return mcp


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fd", type=int, required=True)
    parser.add_argument("--redis", required=True)
    args = parser.parse_args()
    app = build(args.redis).http_app(path="/mcp")
    uvicorn.run(app, fd=args.fd, log_level="warning", timeout_graceful_shutdown=2)


if __name__ == "__main__":
    main()
