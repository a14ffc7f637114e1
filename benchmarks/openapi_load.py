"""How long ``Server.from_openapi`` takes to turn a large API description into tools.

Usage:  python benchmarks/openapi_load.py [DESCRIPTION.json ...] [--repeat N]

Without a file it loads the 5,000-operation description that tests/test_openapi.py
generates (50 shared component schemas with references between them, path, query and body
parameters). A real one: GitHub's REST API from the npm registry,

    npm pack @octokit/openapi@23.0.2 && tar xzf octokit-openapi-23.0.2.tgz
    python benchmarks/openapi_load.py package/generated/api.github.com.json

For each description it prints the operations, the tools made, and the median and the
least of ``--repeat`` loads in this process (the JSON already parsed: what is timed is the
mapping to tools, input and output schemas included), then a first ``tools/list`` and its
size (all of it, and its output schemas).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from toolwire import Client, Server

HERE = Path(__file__).resolve().parent
METHODS = {"get", "put", "post", "delete", "patch", "head", "options", "trace"}


def generated() -> dict[str, Any]:
    sys.path.insert(0, str(HERE.parent / "tests"))
    from test_openapi import big_document

    return big_document(5000)


def operations(document: dict[str, Any]) -> int:
    return sum(1 for item in document["paths"].values() for method in item if method in METHODS)


async def first_listing(server: Server) -> tuple[list[dict[str, Any]], float]:
    async with Client(server) as client:
        started = time.perf_counter()
        tools = await client.list_tools()
        return tools, time.perf_counter() - started


def size(value: Any) -> str:
    return f"{len(json.dumps(value, separators=(',', ':'))) / 1e6:.2f} MB"


def measure(name: str, document: dict[str, Any], repeat: int) -> None:
    client = httpx.AsyncClient(base_url="http://127.0.0.1:9")  # never called here
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        server = Server.from_openapi(document, client)
        times.append(time.perf_counter() - started)
    listed, listing = asyncio.run(first_listing(server))
    outputs = [tool["outputSchema"] for tool in listed if "outputSchema" in tool]
    print(
        f"{name}: {operations(document):,} operations -> {len(server.tools):,} tools; "
        f"load median {statistics.median(times) * 1000:,.0f} ms, least {min(times) * 1000:,.0f} ms; "
        f"first tools/list of {len(listed):,} in {listing * 1000:,.0f} ms, {size(listed)} "
        f"({size(outputs)} of output schemas)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path, help="OpenAPI descriptions (JSON)")
    parser.add_argument("--repeat", type=int, default=5, help="loads per description (5)")
    args = parser.parse_args()
    if not args.files:
        measure("generated", generated(), args.repeat)
    for path in args.files:
        measure(path.name, json.loads(path.read_bytes()), args.repeat)


if __name__ == "__main__":
    main()
