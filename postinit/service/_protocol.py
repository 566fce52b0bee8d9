"""The HTTP connection's own bounds: how large a request's head may be and how long it may take to arrive.

uvicorn bounds neither with httptools (its default parser when installed, as the
``serve`` extra installs it): a 64 MB header line cost 4 s of CPU (httptools joins
a header's pieces as they arrive), and a client sending its head one byte at a
time held a connection for ever. The protocol here is uvicorn's own with two
bounds added, so every connection costs at most :data:`MAX_HEAD_BYTES` and
:data:`HEAD_TIMEOUT_S` before its request reaches the app:

* a request line plus headers over :data:`MAX_HEAD_BYTES` is answered ``431``
  and the connection closed;
* a head not complete within :data:`HEAD_TIMEOUT_S` of its first byte (or of the
  connection, when nothing arrives) is answered ``408`` and the connection closed.

The body's own time bound is the service edge's (:mod:`postinit.service._edge`).
Without httptools uvicorn's h11 parser is used, bounded by
``h11_max_incomplete_event_size`` (the same size); its head has no time bound.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

__all__ = ["HEAD_TIMEOUT_S", "MAX_HEAD_BYTES", "uvicorn_options"]

MAX_HEAD_BYTES = 64 * 1024
"""A request line and its headers together (browsers and curl send a few hundred bytes)."""
HEAD_TIMEOUT_S = 10.0
"""Seconds from a request's first byte (or from the connection) to the end of its headers."""


def _answer(status: int, reason: str, message: str) -> bytes:
    body = json.dumps({"error": reason, "message": message, "request_id": None, "path": None, "rule": None,
                       "stage": None}).encode("ascii")
    return (f"HTTP/1.1 {status} {reason.replace('_', ' ').title()}\r\n"
            f"content-type: application/json\r\ncontent-length: {len(body)}\r\nconnection: close\r\n\r\n"
            ).encode("ascii") + body


TOO_LARGE = _answer(431, "request_header_fields_too_large",
                    f"the request line and headers are over {MAX_HEAD_BYTES} bytes")
TOO_SLOW = _answer(408, "request_timeout", f"the request's headers did not arrive within {HEAD_TIMEOUT_S:g} s")


try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as _Base
except ImportError:  # without httptools uvicorn's h11 parser is used (see uvicorn_options)
    _Base = None  # type: ignore[assignment,misc]


if _Base is not None:

    class BoundedHttpToolsProtocol(_Base):
        """uvicorn's httptools protocol; a request head is bounded in size and time."""

        max_head_bytes = MAX_HEAD_BYTES
        head_timeout_s = HEAD_TIMEOUT_S
        _head_bytes: int | None = 0
        """Bytes of the current request head so far; None while a body (or nothing) is expected."""
        _head_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._head_bytes = 0
            self._start_head_timer()

        def connection_lost(self, exc: Exception | None) -> None:
            self._stop_head_timer()
            super().connection_lost(exc)

        _head_tail: bytes = b""
        """The last bytes of the head so far (its end, ``CRLF CRLF``, may span two reads)."""

        def data_received(self, data: bytes) -> None:
            if self._head_bytes is not None:
                # only the head counts: a read often holds the head and the start of the body
                seen = self._head_tail + data
                end = seen.find(b"\r\n\r\n")
                self._head_bytes += len(data) if end < 0 else end + 4 - len(self._head_tail)
                self._head_tail = seen[-3:]
                if self._head_bytes > self.max_head_bytes:
                    self._refuse(TOO_LARGE)
                    return
                self._start_head_timer()
            super().data_received(data)

        def on_headers_complete(self) -> None:
            self._head_bytes = None
            self._head_tail = b""
            self._stop_head_timer()
            super().on_headers_complete()

        def on_message_complete(self) -> None:
            super().on_message_complete()
            self._head_bytes = 0  # what arrives next is the next request's head
            self._head_tail = b""

        def _start_head_timer(self) -> None:
            if self._head_timer is None:
                self._head_timer = self.loop.call_later(self.head_timeout_s, self._head_timed_out)

        def _stop_head_timer(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def _head_timed_out(self) -> None:
            self._head_timer = None
            if self._head_bytes is not None:
                self._refuse(TOO_SLOW)

        def _refuse(self, answer: bytes) -> None:
            self._stop_head_timer()
            self._head_bytes = None
            if not self.transport.is_closing():
                self.transport.write(answer)
                self.transport.close()


def uvicorn_options() -> dict[str, Any]:
    """The keyword arguments of ``uvicorn.Config`` / ``uvicorn.run`` that bound every connection."""
    if _Base is None:
        return {"http": "h11", "h11_max_incomplete_event_size": MAX_HEAD_BYTES}
    return {"http": BoundedHttpToolsProtocol, "h11_max_incomplete_event_size": MAX_HEAD_BYTES}

