"""A server in FastMCP 4's style with its task add-on (``fastmcp-tasks``): ``TasksExtension``,
``task=True`` and ``task=TaskConfig(...)``, the ``Progress`` dependency, a tool that asks by
returning an ``InputRequiredResult`` (the guard pattern of SEP-2663) and reads the answers in
``ctx.input_responses``, ``mcp_types`` models, and parameters described with
``Annotated[T, "text"]``.

tests/interop/test_fastmcp4_style.py runs it as it is on FastMCP (the ``fastmcp-tasks`` peer
of tests/interop/peers.py) and on toolwire with only its imports changed by
``toolwire migrate``. ``python fastmcp4_tasks_style.py`` serves stdio.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated

import mcp_types
from fastmcp import Context, FastMCP
from fastmcp.dependencies import Progress
from fastmcp.utilities.tasks import TaskConfig
from fastmcp_tasks import TasksExtension

mcp = FastMCP("fastmcp4-tasks-style")
mcp.add_extension(TasksExtension())


@mcp.tool(task=TaskConfig(poll_interval=timedelta(milliseconds=200)))
async def count(
    label: Annotated[str, "A name for this run"],
    steps: Annotated[int, "How many steps to count"],
    progress: Progress = Progress(),
) -> str:
    """Counts steps, reporting each one."""
    await progress.set_total(steps)
    for step in range(1, steps + 1):
        await progress.increment()
        await progress.set_message(f"{label}: {step}/{steps}")
    return f"{label} counted {steps}"


@mcp.tool(task=True)
async def double(n: int) -> int:
    """Doubles a number."""
    return 2 * n


def _ask(question: str, key: str) -> mcp_types.InputRequiredResult:
    request = mcp_types.ElicitRequest(
        params=mcp_types.ElicitRequestFormParams(
            message=question,
            requested_schema={
                "type": "object",
                "properties": {"cuisine": {"type": "string"}, "vegetarian": {"type": "boolean"}},
                "required": ["cuisine", "vegetarian"],
            },
        )
    )
    return mcp_types.InputRequiredResult(
        result_type="input_required", input_requests={key: request}
    )


@mcp.tool()
async def plan_dinner(ctx: Context) -> str | mcp_types.InputRequiredResult:
    """Plans a dinner, asking what the user is in the mood for."""
    responses = ctx.input_responses
    if responses is None:
        return _ask("What kind of dinner?", "prefs")
    answer = responses["prefs"]
    assert isinstance(answer, mcp_types.ElicitResult)
    if answer.action != "accept" or answer.content is None:
        return f"no dinner ({answer.action})"
    vegetarian = "vegetarian " if answer.content["vegetarian"] else ""
    return f"a {vegetarian}{answer.content['cuisine']} dinner"


if __name__ == "__main__":
    mcp.run()
