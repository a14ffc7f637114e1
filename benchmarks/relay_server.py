"""The least a stdio proxy can cost: bytes copied both ways between the client and an upstream
server over stdio, nothing parsed, nothing buffered past what one read returns. Beside
proxy_server.py it tells the process hop's share of a proxied call from the proxy's own.

Usage:  python relay_server.py stdio
Environment: BENCH_UPSTREAM names the upstream, as for proxy_server.py.
"""

import os
import selectors
import subprocess
import sys

from _harness import upstream_command


def relay(upstream: subprocess.Popen[bytes]) -> None:
    assert upstream.stdin is not None and upstream.stdout is not None
    client_in, client_out = sys.stdin.fileno(), sys.stdout.fileno()
    server_in, server_out = upstream.stdin.fileno(), upstream.stdout.fileno()
    to = {client_in: server_in, server_out: client_out}
    selector = selectors.DefaultSelector()
    for source in to:
        selector.register(source, selectors.EVENT_READ)
    while True:
        for key, _ in selector.select():
            data = os.read(key.fd, 1 << 16)
            target = to[key.fd]
            if not data:
                if key.fd == server_out:
                    return
                selector.unregister(client_in)  # the client is done: so is the upstream
                upstream.stdin.close()
                continue
            while data:
                data = data[os.write(target, data) :]


if __name__ == "__main__":
    if (sys.argv[1] if len(sys.argv) > 1 else "stdio") != "stdio":
        raise SystemExit("relay_server.py serves stdio only")
    command = upstream_command(sys.executable)
    with subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE) as upstream:
        relay(upstream)
