"""A catalogue of 3,000 generated tools behind tool search (tests/test_tool_search.py):
``{system}_{verb}_{thing}`` for 15 systems, 10 verbs and 20 things, each described in
words, plus a mounted server's tools."""

from __future__ import annotations

import itertools
from typing import Any

from toolwire import Context, Server

VERBS = ["get", "create", "delete", "update", "list", "send", "archive", "export", "import", "sync"]
THINGS = [
    "invoice", "customer", "order", "email", "ticket", "report", "payment", "shipment",
    "user", "calendar_event", "document", "webhook", "product", "coupon", "subscription",
    "refund", "warehouse", "employee", "contract", "lead",
]  # fmt: skip
SYSTEMS = [f"crm{i}" for i in range(15)]

mcp = Server("catalogue")


def make(system: str, verb: str, thing: str) -> Any:
    def tool(id: str, note: str = "") -> dict[str, str]:
        return {"system": system, "action": f"{verb} {thing}", "id": id}

    return tool


for system, verb, thing in itertools.product(SYSTEMS, VERBS, THINGS):
    words = thing.replace("_", " ")
    mcp.add_tool(
        make(system, verb, thing),
        name=f"{system}_{verb}_{thing}",
        description=f"{verb.capitalize()} a {words} in the {system} system.",
    )

billing = Server("billing")


@billing.tool()
async def charge_card(amount: int, ctx: Context) -> str:
    """Charge a credit card, reporting progress."""
    await ctx.report_progress(1, 1, "charged")
    return f"charged {amount}"


mcp.mount(billing, prefix="billing")
mcp.enable_tool_search(max_results=5)

if __name__ == "__main__":
    mcp.run()
