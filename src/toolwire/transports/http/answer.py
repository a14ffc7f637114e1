"""How the HTTP app answers a request: plain JSON when the answer is all there is, an SSE
stream as soon as something else must go out first (progress, a log line, a question), and
the stream carried, resumed or let go (``Context.close_sse_connection``, SEP-1699).

:class:`Answering` is the part of :class:`~toolwire.transports.http.app.HttpApp` that does it.
"""

from __future__ import annotations

import asyncio
import contextlib

from ..asgi import Receive, Send, json_answer
from ..store.contract import SessionStore
from . import limits
from .follow import Follower
from .resume import cut_answer
from .rules import status_of
from .session import Reply, Session
from .sse import Stream, frame, priming, retry


class Answering:
    """Answers requests on their response (JSON or SSE); mixed into the HTTP app."""

    stateless: bool
    closing: bool
    retry_ms: int
    streams: limits.Streams
    store: SessionStore

    async def _answer(
        self,
        stream: Stream,
        reply: Reply,
        receive: Receive,
        send: Send,
        wants_json: bool,
        wants_sse: bool,
        *,
        resumable: bool,
        session: Session | None = None,
    ) -> None:
        """JSON when the answer is all there is; SSE when other messages come first."""
        session_id = session.id if session is not None and not self.stateless else None
        if not wants_json and not (
            # refused at once (2026-07-28: -32600 400, -32601 404 ...): the status says it
            reply.answered and status_of(stream.events[-1][1], legacy=session is not None) != 200
        ):
            await self._stream(
                stream, receive, send, resumable=resumable, session_id=session_id, reply=reply
            )
            return
        if not reply.answered:
            # The call may let its connection go (Context.close_sse_connection): then SSE.
            release = stream.carried() if resumable and wants_sse else None
            follower = Follower(stream, receive, release)
            to_sse = False  # something comes before the answer, or the call let go
            try:
                while (event := await follower.next()) is not None:
                    seq, data = event
                    let_go = release is not None and release.done()  # even if answered now
                    if reply.answered and seq == stream.seq and not let_go:
                        break
                    if wants_sse and self.streams.refusal(session_id) is None:
                        to_sse = True  # stream it all
                        break
                    if session is not None:  # JSON only: the request's messages go to GET
                        session.standalone.push(data)
                else:
                    to_sse = release is not None and release.done() and not follower.gone
                    if not to_sse:
                        if not follower.gone:  # the stream ended unanswered: shutdown, DELETE
                            status, data = cut_answer(reply.mid, self.closing)
                            await json_answer(send, status, data, session_id)
                        return  # (or the client went away before the answer)
                if to_sse:
                    follower.close()  # (a let-go connection: primed, then it ends at once)
                    await self._stream(
                        stream,
                        receive,
                        send,
                        resumable=resumable,
                        session_id=session_id,
                        reply=reply,
                        release=release,
                    )
                    return
            finally:
                follower.close()
                if release is not None:
                    stream.dropped(release)
        data = stream.events[-1][1]
        # A legacy session's request was accepted: its JSON-RPC error travels with 200.
        await json_answer(send, status_of(data, legacy=session is not None), data, session_id)

    async def _stream(
        self,
        stream: Stream,
        receive: Receive,
        send: Send,
        *,
        resumable: bool,
        session_id: str | None,
        after: int = 0,
        reply: Reply | None = None,
        release: asyncio.Future[int | None] | None = None,
        resumed: bool = False,
    ) -> None:
        """Carry ``stream`` on an SSE response from event ``after`` on (``resumed``: no
        priming event again, even after the priming event itself), until it ends, the
        client leaves, another reader takes over or ``release`` fires."""
        # One reader per stream of a session: a resumption takes it over, this response ends.
        with self.streams.opened(session_id, stream.id if session_id else None) as mine:
            headers = [
                (b"content-type", b"text/event-stream"),
                (b"cache-control", b"no-cache"),
                (b"x-accel-buffering", b"no"),
            ]
            if session_id is not None:
                headers.append((b"mcp-session-id", session_id.encode()))
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            if resumable and after == 0 and not resumed:
                if self.store.shared and stream.sink is not None and session_id is not None:
                    self.store.open_stream(session_id, stream.id, stream.request_id)
                    await self.store.flush()  # its id resumes it through any worker
                primer = priming(stream.event_id(0), self.retry_ms)
                await send({"type": "http.response.body", "body": primer, "more_body": True})
            if release is None and resumable:
                release = stream.carried()
            follower = Follower(stream, receive, mine, release, after=after)
            try:
                while (event := await follower.next()) is not None:
                    seq, data = event
                    event_id = stream.event_id(seq) if resumable else None
                    if resumable and self.store.shared:  # stored before sent: none is lost
                        await self.store.flush()
                    await send(
                        {
                            "type": "http.response.body",
                            "body": frame(data, event_id),
                            "more_body": True,
                        }
                    )
                gone = follower.gone
                cut = reply is not None and not reply.answered and not gone
                if release is not None and release.done() and not gone:
                    # the call let this connection go; the stream goes on (HT-12)
                    delay = release.result()
                    body = retry(self.retry_ms if delay is None else delay)
                    await send({"type": "http.response.body", "body": body, "more_body": True})
                elif cut and self.closing and not resumable:  # nothing to resume: say why
                    assert reply is not None
                    _, data = cut_answer(reply.mid, True)
                    body = frame(data)
                    await send({"type": "http.response.body", "body": body, "more_body": True})
            finally:
                follower.close()
                if release is not None:
                    stream.dropped(release)
            with contextlib.suppress(Exception):
                await send({"type": "http.response.body", "body": b"", "more_body": False})
