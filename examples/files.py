"""A file server over authenticated HTTP: confined paths, per-tool scopes, a confirmed delete.

Shows:

* ``SafePath``: every path parameter is ``Root = SafePath.under(ROOT)``, so the tool gets
  a resolved ``pathlib.Path`` inside the root. ``../``, absolute paths elsewhere and
  symbolic links that lead out are refused before the tool runs.
* authorization (``toolwire.auth``): the server is an OAuth protected resource and every
  HTTP request needs a bearer token. It checks JWT access tokens from an authorization
  server, or fixed tokens.
* per-tool scopes: ``@mcp.tool(scopes=["files:write"])``. A caller whose token lacks a
  tool's scopes does not see that tool.
* elicitation (``delete_file``): the tool asks the user before it deletes. On 2026-07-28 a
  tool that asks a question runs again from the top once the client has the answer, so
  the checks and the question come before the deletion.

What a client sees:

* without a token, ``401`` with ``WWW-Authenticate: Bearer resource_metadata="..."``. The
  metadata names the authorization server and the scopes. The server needs no scope to
  connect, so the 401 names none and the client asks for the scopes it wants;
* with ``files:read``: ``list_files`` and ``read_file``. ``write_file`` and ``delete_file``
  also need ``files:write``; without it they are missing from ``tools/list`` and calling
  them gets an unknown-tool error;
* paths relative to the folder, never where the folder is. A path that leads out is an
  error result: ``path: Path is outside the allowed directory``;
* ``delete_file`` asks "Delete notes/todo.txt?" and deletes only if the user accepts. A
  client that cannot ask its user gets an error result (on 2026-07-28 the JSON-RPC error -32021) and
  nothing is deleted.

Configuration, from the environment:

* ``FILES_ROOT``: the folder the tools work in (default ``./files``, made if missing);
* ``FILES_URL``: the URL clients use, which tokens must be issued for (default
  ``http://127.0.0.1:8000/mcp``). The server listens on its host and port, or on
  ``FILES_HOST``/``FILES_PORT`` (behind a proxy, say);
* authorization, one of:

  - ``FILES_ISSUER``: an OAuth authorization server that issues JWT access tokens for
    ``FILES_URL`` (RFC 8707 ``resource``, RFC 9068 tokens). Its signing keys are read from
    ``FILES_JWKS_URL``, which defaults to ``<issuer>/.well-known/jwks.json`` (look for
    ``jwks_uri`` in the authorization server's metadata);
  - ``FILES_TOKENS``: fixed tokens and their scopes, for trying the server without an
    authorization server: ``"alice-token=files:read files:write;bob-token=files:read"``.

The server refuses to start without one of them. Run it::

    FILES_ISSUER=https://auth.example.com python examples/files.py
    FILES_TOKENS="dev-token=files:read files:write" python examples/files.py

and connect, e.g. with toolwire's client (``OAuth`` is ``toolwire.client.OAuth``)::

    Client("http://127.0.0.1:8000/mcp", auth="dev-token")
    Client("http://127.0.0.1:8000/mcp", auth=OAuth(scopes="files:read"))
"""

import os
import stat
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, Field

from toolwire import Context, SafePath, Server, ToolError
from toolwire.auth import JWTVerifier, ResourceServer, StaticTokens

ROOT = Path(os.environ.get("FILES_ROOT", "files")).resolve()
URL = os.environ.get("FILES_URL", "http://127.0.0.1:8000/mcp")
READ, WRITE = "files:read", "files:write"
MAX_READ = 1_000_000  # bytes: a model has no use for more in one answer

Root = SafePath.under(ROOT)

mcp = Server("Files", instructions="Files in one folder. Paths are relative to that folder.")


class Entry(BaseModel):
    path: str = Field(description="Relative to the files folder")
    kind: Literal["file", "folder", "link"]
    size: int = Field(description="In bytes (0 for a folder or a link)")


class Confirm(BaseModel):
    confirm: bool = Field(description="Yes, delete it")


def shown(path: Path) -> str:
    """How the model sees a path: relative to the root, never where the root is."""
    return path.relative_to(ROOT).as_posix()


def entry(path: Path) -> Entry:
    info = path.lstat()  # a symbolic link is described, not followed
    if stat.S_ISDIR(info.st_mode):
        return Entry(path=shown(path), kind="folder", size=0)
    if stat.S_ISLNK(info.st_mode):
        return Entry(path=shown(path), kind="link", size=0)
    return Entry(path=shown(path), kind="file", size=info.st_size)


@mcp.tool(annotations={"readOnlyHint": True}, scopes=[READ])
def list_files(folder: Root = ".") -> list[Entry]:
    """List a folder's files and folders.

    Args:
        folder: The folder to list (default: the top folder)
    """
    if not folder.is_dir():
        raise ToolError(f"{shown(folder)} is not a folder")
    return [entry(child) for child in sorted(folder.iterdir())]


@mcp.tool(annotations={"readOnlyHint": True}, scopes=[READ])
def read_file(path: Root) -> str:
    """Read a text file.

    Args:
        path: The file to read
    """
    if not path.is_file():
        raise ToolError(f"No file named {shown(path)}")
    if path.stat().st_size > MAX_READ:
        raise ToolError(f"{shown(path)} is larger than {MAX_READ} bytes")
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ToolError(f"{shown(path)} is not UTF-8 text") from None


@mcp.tool(annotations={"idempotentHint": True}, scopes=[WRITE])
def write_file(path: Root, content: str) -> Entry:
    """Write a text file, replacing it if it exists; missing folders are made.

    Args:
        path: The file to write
        content: The whole text of the file
    """
    if path == ROOT or path.is_dir():
        raise ToolError(f"{shown(path)} is a folder")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
    except OSError as exc:  # its message holds the absolute path: name the relative one
        raise ToolError(f"Cannot write {shown(path)}: {exc.strerror}") from None
    return entry(path)


@mcp.tool(annotations={"destructiveHint": True}, scopes=[WRITE])
async def delete_file(path: Root, ctx: Context) -> str:
    """Delete a file, after asking the user.

    Args:
        path: The file to delete
    """
    if not path.is_file():
        raise ToolError(f"No file named {shown(path)}")
    # The question comes before any change: on 2026-07-28 the tool runs again after it.
    answer = await ctx.elicit(f"Delete {shown(path)}?", Confirm)
    if answer.action == "cancel":
        return "Cancelled: nothing was deleted."
    if answer.action == "decline" or not answer.data.confirm:
        return f"Kept {shown(path)}."
    try:
        path.unlink()
    except OSError as exc:
        raise ToolError(f"Cannot delete {shown(path)}: {exc.strerror}") from None
    return f"Deleted {shown(path)}."


# ------------------------------------------------------------------ authorization


def static_tokens(setting: str) -> StaticTokens:
    """``FILES_TOKENS``: ``token=scope scope;token=scope``."""
    tokens: dict[str, list[str]] = {}
    for number, item in enumerate(filter(None, map(str.strip, setting.split(";"))), 1):
        token, equals, scopes = item.partition("=")
        if not equals or not token.strip():  # the message never repeats a token
            raise SystemExit(f"FILES_TOKENS: entry {number} is not 'token=scope scope'")
        tokens[token.strip()] = scopes.split()
    if not tokens:
        raise SystemExit("FILES_TOKENS holds no token")
    return StaticTokens(tokens)


def authorization() -> ResourceServer:
    """The resource server settings from ``FILES_ISSUER`` or ``FILES_TOKENS``."""
    issuer, tokens = os.environ.get("FILES_ISSUER"), os.environ.get("FILES_TOKENS")
    if issuer and tokens:
        raise SystemExit("Set FILES_ISSUER or FILES_TOKENS, not both.")
    if issuer:
        jwks = os.environ.get("FILES_JWKS_URL", f"{issuer.rstrip('/')}/.well-known/jwks.json")
        verifier = JWTVerifier(issuer=issuer, audience=URL, jwks_url=jwks)
        servers = [issuer]
    elif tokens:
        verifier = static_tokens(tokens)
        servers = []  # no OAuth: nothing to discover, no metadata published
    else:
        raise SystemExit(
            "examples/files.py serves authenticated HTTP only. Set FILES_ISSUER to an OAuth "
            "authorization server that issues JWT access tokens, or FILES_TOKENS to static "
            "tokens, e.g. FILES_TOKENS='dev-token=files:read files:write'."
        )
    return ResourceServer(
        URL, servers, verifier, scopes_supported=[READ, WRITE], resource_name="Files"
    )


if __name__ == "__main__":
    auth = authorization()
    ROOT.mkdir(parents=True, exist_ok=True)
    where = urlsplit(URL)
    mcp.run(
        transport="http",
        host=os.environ.get("FILES_HOST", where.hostname or "127.0.0.1"),
        port=int(os.environ.get("FILES_PORT", where.port or 8000)),
        path=where.path or "/mcp",
        auth=auth,
        log_level="info",  # "Uvicorn running on ..." once it listens
    )
