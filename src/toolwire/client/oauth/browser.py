"""The default way a person authorizes: the system browser, and a one-shot loopback listener.

:class:`BrowserAuthorization` opens the authorization URL with :mod:`webbrowser` (which
starts the browser as a program, never through a shell) after checking that the URL is
http(s) (SB-07), then waits on ``redirect_uri``'s loopback address for the one redirect
that ends the authorization, and hands back the URL the browser was sent to.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import webbrowser
from collections.abc import Awaitable, Callable
from urllib.parse import urlsplit

from ...errors import ClientError
from .discovery import is_loopback

logger = logging.getLogger("toolwire.client")

READ_TIMEOUT = 10.0
PAGE = (
    b"<!doctype html><meta charset=utf-8><title>Authorized</title>"
    b"<p>The authorization is complete. You can close this window.</p>"
)


def check_authorization_url(url: str) -> str:
    """``url`` if a browser may be pointed at it: http or https, with a host (SB-07)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        raise ClientError(f"Refusing to open {url[:200]!r}: not a valid URL") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ClientError(f"Refusing to open {url[:200]!r}: only http(s) URLs are opened")
    return url


async def open_in_browser(url: str) -> None:
    """Open ``url`` in the system browser; if there is none, ask the person to open it."""
    check_authorization_url(url)
    opened = await asyncio.to_thread(webbrowser.open, url)
    if not opened:
        logger.warning("Open this URL in a browser to authorize: %s", url)


class BrowserAuthorization:
    """``await BrowserAuthorization(redirect_uri)(url)``: the callback URL, once the person
    approved (or refused) in the browser.

    ``redirect_uri`` must be an http URL on a loopback address; ``open_url`` is how the URL
    reaches a browser; ``timeout`` is how long the person has.
    """

    def __init__(
        self,
        redirect_uri: str,
        *,
        open_url: Callable[[str], Awaitable[None]] = open_in_browser,
        timeout: float = 300.0,
    ) -> None:
        parts = urlsplit(redirect_uri)
        if parts.scheme != "http" or not is_loopback(parts.hostname):
            raise ClientError(
                f"The redirect URI {redirect_uri!r} must be an http URL on a loopback address "
                "to be received here; pass authorize= to receive it another way"
            )
        self.redirect_uri = redirect_uri
        self.origin = f"http://{parts.netloc}"
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 80
        self.path = parts.path or "/"
        self.open_url = open_url
        self.timeout = timeout

    async def __call__(self, url: str) -> str:
        check_authorization_url(url)
        received: asyncio.Future[str] = asyncio.get_running_loop().create_future()

        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                await self._answer(reader, writer, received)
            except (OSError, ValueError, asyncio.TimeoutError):
                logger.debug("A broken request on the authorization listener", exc_info=True)
            finally:
                writer.close()

        try:
            listener = await asyncio.start_server(handle, self.host, self.port)
        except OSError as exc:
            raise ClientError(
                f"Cannot listen for the redirect on {self.redirect_uri}: {exc}"
            ) from exc
        try:
            await self.open_url(url)
            return await asyncio.wait_for(received, self.timeout)
        except asyncio.TimeoutError:
            raise ClientError(
                f"No authorization response reached {self.redirect_uri} within {self.timeout:g} s"
            ) from None
        finally:
            listener.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(listener.wait_closed(), READ_TIMEOUT)

    async def _answer(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        received: asyncio.Future[str],
    ) -> None:
        line = await asyncio.wait_for(reader.readline(), READ_TIMEOUT)
        while (await asyncio.wait_for(reader.readline(), READ_TIMEOUT)) not in (
            b"\r\n",
            b"\n",
            b"",
        ):
            pass  # the headers say nothing we need
        method, target, _version = line.decode("latin-1").split(" ", 2)
        path = target.partition("?")[0]
        if method == "GET" and path == self.path and not received.done():
            received.set_result(self.origin + target)
            status, body = "200 OK", PAGE
        else:
            status, body = "404 Not Found", b"Not found"
        head = (
            f"HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\n"
            f"Content-Length: {len(body)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n"
        )
        writer.write(head.encode() + body)
        await writer.drain()
