"""A long-running tool: a bulk import that reports progress, asks before it overwrites, and
can be cancelled, run as a Task (the Tasks extension, SEP-2663) for clients that declare it.

``task="optional"``: a 2026-07-28 client that declares ``io.modelcontextprotocol/tasks`` is
answered at once with a task and polls it (``tasks/get``); the question about overwriting
waits in the task until the client answers it (``tasks/update``); the progress shows as the
task's status message; ``tasks/cancel`` stops the import between two records. Any other
client gets an ordinary call, with progress notifications.

    python examples/bulk_import.py

From Python, toolwire's client waits for the task behind ``call_tool``::

    from toolwire import Client
    from toolwire.client import TASKS

    async with Client("python examples/bulk_import.py", extensions={TASKS: {}},
                      elicitation_handler=lambda params: {"action": "accept",
                                                          "content": {"overwrite": True}}) as c:
        print((await c.call_tool("import_records", {"count": 20})).text)
"""

import asyncio

from pydantic import BaseModel

from toolwire import Context, Server

mcp = Server("Bulk import")
imported: dict[int, str] = {}  # record id -> the batch that wrote it


class Overwrite(BaseModel):
    overwrite: bool


@mcp.tool(task="optional")
async def import_records(
    count: int, ctx: Context, batch: str = "batch", delay: float = 0.01
) -> str:
    """Import records, one after the other; asks before overwriting records an earlier
    batch imported.

    Args:
        count: How many records to import (ids 1..count).
        batch: The name the imported records are marked with.
        delay: Seconds spent on each record.
    """
    existing = [record for record in range(1, count + 1) if record in imported]
    if existing:
        answer = await ctx.elicit(
            f"{len(existing)} of the records exist already. Overwrite them?",
            Overwrite,
            key="overwrite",
        )
        if answer.action != "accept" or not answer.data.overwrite:
            return f"Nothing imported: {len(existing)} records exist already"
    for record in range(1, count + 1):
        await asyncio.sleep(delay)  # a cancelled task stops here, between two records
        imported[record] = batch
        ctx.report_progress(record, count, f"record {record}")
    return f"Imported {count} records ({batch})"


@mcp.tool(annotations={"readOnlyHint": True})
def count_imported() -> int:
    """How many records are imported."""
    return len(imported)


if __name__ == "__main__":
    mcp.run()
