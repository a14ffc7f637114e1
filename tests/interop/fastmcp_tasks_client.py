"""FastMCP's client with the ``fastmcp-tasks`` add-on (SEP-2663) against a toolwire server;
run by the interpreter of the ``fastmcp-tasks`` virtualenv.

    python fastmcp_tasks_client.py http://127.0.0.1:PORT/mcp

Importing ``fastmcp_tasks`` gives every FastMCP ``Client`` the tasks extension: ``call_tool``
waits for a task and answers its questions with the client's ``elicitation_handler``;
``call_tool_task`` returns a ``ToolTask`` handle (``status``, ``cancel``, ``wait``,
``result``). Prints one JSON object (what each step saw) on its last line of stdout.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import fastmcp_tasks
from fastmcp import Client
from fastmcp.client.elicitation import ElicitResult
from fastmcp.exceptions import ToolError
from fastmcp_tasks import call_tool_task

questions: list[dict[str, Any]] = []


async def confirm(message: str, response_type: Any, params: Any, context: Any) -> Any:
    questions.append({"message": message, "schema": params.requested_schema})
    return ElicitResult(action="accept", content={"confirm": True})


def text(result: Any) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


async def main(url: str) -> dict[str, Any]:
    report: dict[str, Any] = {"fastmcp_tasks": fastmcp_tasks.__version__}
    async with Client(url, elicitation_handler=confirm, timeout=30) as client:
        report["protocolVersion"] = client.protocol_version
        report["tools"] = sorted(tool.name for tool in await client.list_tools())

        done = await client.call_tool("slow", {"seconds": 0.2, "label": "report"})
        report["slow"] = {"text": text(done), "isError": done.is_error}

        asked = await client.call_tool("delete", {"filename": "a.txt"})
        report["delete"] = {"text": text(asked), "isError": asked.is_error}
        report["questions"] = questions

        job = await call_tool_task(client, "slow", {"seconds": 60, "label": "long"})
        report["created"] = job.create_result.model_dump(mode="json", by_alias=True)
        report["working"] = (await job.status()).status
        await job.cancel()
        final = await job.wait(timeout=20)
        report["cancelled"] = final.model_dump(mode="json", by_alias=True, exclude_none=True)
        try:
            await job.result()
            report["cancelledResult"] = "no error"
        except ToolError as exc:
            report["cancelledResult"] = str(exc)
    return report


if __name__ == "__main__":
    try:
        outcome = asyncio.run(asyncio.wait_for(main(sys.argv[1]), 90))
    except Exception as exc:  # reported to the test, which fails with it
        outcome = {"fatal": f"{type(exc).__name__}: {exc}"}
    print(json.dumps(outcome, default=str))
