"""A stdio test server: text, stray output, logging and slow tools.

Options (argv): ``--max-bytes N`` (``max_message_bytes``), ``--grace S``
(``shutdown_grace``), ``--log-to-stdout`` (the application points logging at
``sys.stdout`` before serving, as careless servers do) at ``--log-level`` (INFO).
"""

import argparse
import asyncio
import logging
import os
import subprocess
import sys

from toolwire import Server

parser = argparse.ArgumentParser()
parser.add_argument("--max-bytes", type=int, default=None)
parser.add_argument("--grace", type=float, default=2.0)
parser.add_argument("--log-to-stdout", action="store_true")
parser.add_argument("--log-level", default="INFO")
options = parser.parse_args()

if options.log_to_stdout:
    logging.basicConfig(
        stream=sys.stdout, level=options.log_level, format="LOG %(name)s %(message)s"
    )

mcp = Server("stdio-tools", version="0.0.1", shutdown_grace=options.grace)
app_log = logging.getLogger("stdio_tools.app")


@mcp.tool()
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


@mcp.tool()
def noisy(text: str) -> str:
    """Write to stdout in every way a tool or a library can, then return the text."""
    print(f"print:{text}")
    sys.stdout.write(f"write:{text}\n")
    sys.stdout.flush()
    sys.stdout.buffer.write(f"buffer:{text}\n".encode())
    sys.stdout.buffer.flush()
    os.write(1, f"fd1:{text}\n".encode())
    subprocess.run([sys.executable, "-c", f"print('child:{text}')"], check=True)
    return text


@mcp.tool()
async def noisy_async(text: str) -> str:
    """Like noisy, from a coroutine on the event loop."""
    print(f"async-print:{text}", flush=True)
    os.write(1, f"async-fd1:{text}\n".encode())
    return text


@mcp.tool()
def log(message: str) -> str:
    """Log through the application's logger and toolwire's."""
    app_log.warning("app-log:%s", message)
    logging.getLogger("toolwire").warning("toolwire-log:%s", message)
    return "logged"


@mcp.tool()
def crash(detail: str) -> str:
    """Fail with an unexpected exception (its detail must stay in the server log)."""
    raise RuntimeError(f"crash-detail:{detail}")


@mcp.tool()
async def sleep(seconds: float) -> str:
    """Sleep on the event loop, then answer."""
    await asyncio.sleep(seconds)
    return f"slept {seconds}"


if __name__ == "__main__":
    if options.max_bytes is None:
        mcp.run()
    else:
        mcp.run(max_message_bytes=options.max_bytes)
