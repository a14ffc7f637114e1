"""A host for an LLM chat: two servers behind one tool list, in Anthropic and OpenAI formats.

Starts ``calculator.py`` and ``notes.py`` (next to this file, with this interpreter) as stdio
subprocesses, merges their tools and prints them as JSON, ready for the ``tools`` parameter
of either API. No LLM is called. The notes database lives in a temporary directory.

    python examples/host_chat.py
"""

import asyncio
import json
import sys
import tempfile
from pathlib import Path

from toolwire import Client
from toolwire.client.host import Host

HERE = Path(__file__).resolve().parent


async def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        notes = Client(
            [sys.executable, str(HERE / "notes.py")],
            env={"NOTES_DB": str(Path(folder) / "notes.db")},
        )
        servers = {"calc": [sys.executable, str(HERE / "calculator.py")], "notes": notes}
        async with Host(servers, trusted={"calc"}) as host:
            await host.list_tools()
            tools = {"anthropic": host.anthropic_tools(), "openai": host.openai_tools()}
    print(json.dumps(tools, indent=2))


if __name__ == "__main__":
    asyncio.run(main())
