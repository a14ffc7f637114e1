"""The shared harness's targets for measuring proxies, as a ``--config`` JSON list on stdout:
the harness's own servers (``limit``, ``mcp``, ``fastmcp``), toolwire's ``bench_server.py``,
and each proxy in front of two upstreams over stdio, toolwire's server and the official SDK's::

    python benchmarks/proxy_targets.py [--telemetry] [--old CHECKOUT] > proxy.json
    $H bench_mcp.py suite --config proxy.json --skip cold,many --compare mcp,toolwire-proxy-mcp ...

Targets: ``toolwire-proxy``, ``toolwire-proxy-per-session`` (each HTTP session its own
upstream; over stdio, one session, the same as the default), ``fastmcp-proxy`` and ``relay`` (of toolwire's server, over stdio),
``toolwire-proxy-in-process`` (of toolwire's server in the proxy's own process),
``toolwire-proxy-mcp``, ``toolwire-proxy-mcp-per-session``, ``fastmcp-proxy-mcp`` and
``relay-mcp`` (of the ``mcp`` server); the relay, stdio only, is the process hop alone
(relay_server.py). toolwire runs with this
repository's ``.venv``; FastMCP with the harness's venv (BENCH_VENVS, default
~/.cache/mcp-bench). ``--telemetry`` adds ``toolwire-telemetry`` (``BENCH_TELEMETRY=1``) and
``toolwire-telemetry-1pct`` (1% of traces sampled); ``--old CHECKOUT`` adds ``toolwire-old``,
another checkout's ``bench_server.py`` run with its own ``.venv``. The harness module is found
through BENCH_DIR's parent, as the servers find ``_toolgen``.
"""

import argparse
import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SERVERS = Path(os.environ.get("BENCH_DIR", str(HERE.parents[1] / "shared" / "bench" / "servers")))
sys.path.insert(0, str(SERVERS.parent))

import bench_mcp  # noqa: E402


def target(name: str, python: str, script: Path, upstream: str | None = None, **env: str) -> dict:
    entry: dict = {
        "name": name,
        "label": f"{name} ({script.name}{f', upstream {upstream}' if upstream else ''})",
        "stdio": [python, str(script), "stdio"],
        "http": [python, str(script), "http", "{port}"],
        "probe": [python, "-c", bench_mcp._PROBE, *bench_mcp._PKGS],
    }
    if upstream is not None:
        entry["env"] = {"BENCH_UPSTREAM": upstream, **env}
    return entry


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--telemetry", action="store_true", help="add toolwire with telemetry on, and at 1%%"
    )
    parser.add_argument(
        "--old", type=Path, help="add toolwire-old: bench_server.py of this checkout, its .venv"
    )
    options = parser.parse_args()
    toolwire = str(HERE.parent / ".venv" / "bin" / "python")
    fastmcp = "{venvs}/venv-fastmcp/bin/python"
    server = HERE / "bench_server.py"
    targets = [*bench_mcp.DEFAULT_TARGETS, target("toolwire", toolwire, server)]
    if options.telemetry:
        on = target("toolwire-telemetry", toolwire, server)
        on["env"] = {"BENCH_TELEMETRY": "1"}
        sampled = target("toolwire-telemetry-1pct", toolwire, server)
        sampled["env"] = {"BENCH_TELEMETRY": "1", "BENCH_SAMPLING": "0.01"}
        targets += [on, sampled]
    if options.old is not None:
        old = options.old.resolve()
        python = str(old / ".venv" / "bin" / "python")
        targets.append(target("toolwire-old", python, old / "benchmarks" / "bench_server.py"))
    for upstream, suffix in (("toolwire", ""), ("mcp", "-mcp")):
        script = HERE / "proxy_server.py"
        targets.append(target(f"toolwire-proxy{suffix}", toolwire, script, upstream))
        per_session = target(
            f"toolwire-proxy{suffix}-per-session",
            toolwire,
            script,
            upstream,
            BENCH_PROXY_SHARING="per-session",
        )
        targets.append(per_session)
        script = HERE / "fastmcp_proxy_server.py"
        targets.append(target(f"fastmcp-proxy{suffix}", fastmcp, script, upstream))
        relay = target(f"relay{suffix}", toolwire, HERE / "relay_server.py", upstream)
        del relay["http"]  # stdio only
        targets.append(relay)
    in_process = "toolwire-proxy-in-process"
    targets.append(target(in_process, toolwire, HERE / "proxy_server.py", "in-process"))
    json.dump(targets, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
