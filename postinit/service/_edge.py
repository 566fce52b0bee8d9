"""The service's edge: request ids, the body's size and time limits, metrics, access logs and the catch-all 500.

One pure-ASGI middleware, outermost in the app, so every response (errors
included) carries ``X-Request-ID``, is counted and is logged once; an exception
that escapes the app becomes a generic 500 with the request id and never a
traceback on the wire. The whole body is read here before the app runs: over
the size limit it is a ``413``, not complete within the time limit a ``408``
(a slow or half-sent body holds no worker), and a client that disconnects
before sending all of it is logged as such (``499`` in the metrics, nothing
sent, no traceback).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import time
import traceback
import uuid
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import structlog
from prometheus_client import CollectorRegistry, Counter, Histogram

__all__ = ["Edge", "Metrics", "error_body"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

_BOOT = uuid.uuid4().hex[:16]
"""This process's random prefix of request ids (one entropy read, not one per request: os.urandom is a
system call that costs ~0.4 ms in some sandboxes)."""
_SERIAL = itertools.count(1)
_REQUEST_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")
_log = structlog.get_logger("postinit.service")
MAX_ERROR_PATH = 200
"""Characters of an error's ``path`` on the wire (a 200,000-character env name came back whole)."""
CLIENT_CLOSED = 499
"""The status counted (never sent) for a request whose client went away before its body was complete."""


class _Disconnected(Exception):
    """The client closed the connection before its body was complete."""


class Metrics:
    """Prometheus metrics in a registry of their own (one per app, no global state)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.requests = Counter(
            "postinit_http_requests", "HTTP requests by endpoint, method and status.",
            ("endpoint", "method", "status"), registry=self.registry,
        )
        self.latency = Histogram(
            "postinit_http_request_duration_seconds", "HTTP request latency by endpoint.",
            ("endpoint",), registry=self.registry,
            buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0),
        )
        self.resolutions = Counter(
            "postinit_resolutions", "Resolutions run, by outcome (ok or violation).",
            ("outcome",), registry=self.registry,
        )
        self.violations = Counter(
            "postinit_violations", "Violations found, by rule.", ("rule",), registry=self.registry,
        )


def error_body(kind: str, message: str, request_id: str, *, path: str | None = None,
               rule: str | None = None, stage: str | None = None) -> dict[str, Any]:
    """The JSON of every error response (see :class:`~postinit.service._models.ErrorBody`)."""
    if path is not None and len(path) > MAX_ERROR_PATH:
        path = path[: MAX_ERROR_PATH - 1] + "…"
    return {"error": kind, "message": message, "request_id": request_id, "path": path, "rule": rule, "stage": stage}


async def _send_json(send: Send, status: int, body: dict[str, Any], request_id: str, *,
                     close: bool = False) -> None:
    data = json.dumps(body).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(data)).encode()),
        (b"x-request-id", request_id.encode()),
    ]
    if close:  # the rest of the request is never read: the connection cannot carry another one
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})


class Edge:
    """ASGI middleware: ``X-Request-ID``, body limits (413, 408), metrics, access log, catch-all 500."""

    def __init__(self, app: ASGIApp, *, metrics: Metrics, max_body_bytes: int, body_timeout_s: float = 10.0) -> None:
        self.app = app
        self.metrics = metrics
        self.max_body_bytes = max_body_bytes
        self.body_timeout_s = body_timeout_s

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        given = _header(scope, b"x-request-id")
        request_id = given if given and _REQUEST_ID.match(given) else f"{_BOOT}{next(_SERIAL):x}"
        scope.setdefault("state", {})["request_id"] = request_id
        status = 500
        started = False

        async def send_with_id(message: Message) -> None:
            nonlocal status, started
            if message["type"] == "http.response.start":
                status = int(message["status"])
                started = True
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], (b"x-request-id", request_id.encode())]
            await send(message)

        try:
            try:
                async with asyncio.timeout(self.body_timeout_s):
                    replay = await self._read_body(scope, receive)
            except TimeoutError:
                status = 408
                await _send_json(send, 408, error_body(
                    "request_timeout", f"the request body did not arrive within {self.body_timeout_s:g} s",
                    request_id,
                ), request_id, close=True)
                return
            except _Disconnected:
                status = CLIENT_CLOSED
                _log.info("client_disconnected", request_id=request_id, path=scope.get("path"))
                return
            if replay is None:
                status = 413
                await _send_json(send, 413, error_body(
                    "payload_too_large",
                    f"request body is larger than the limit of {self.max_body_bytes} bytes",
                    request_id,
                ), request_id, close=True)
            else:
                await self.app(scope, replay, send_with_id)
        except Exception as exc:  # the catch-all: log server-side, answer generically
            _log.error("unhandled_error", request_id=request_id, error=type(exc).__name__,
                       traceback="".join(traceback.format_exception(exc)))
            if not started:
                status = 500
                await _send_json(send, 500, error_body(
                    "internal", f"internal server error (request id {request_id})", request_id,
                ), request_id)
        finally:
            elapsed = time.perf_counter() - start
            route = scope.get("route")
            endpoint = getattr(route, "path", None) or ("unmatched" if status == 404 else "other")
            self.metrics.requests.labels(endpoint, scope.get("method", ""), str(status)).inc()
            self.metrics.latency.labels(endpoint).observe(elapsed)
            _log.info(
                "request", request_id=request_id, method=scope.get("method"), path=scope.get("path"),
                endpoint=endpoint, status=status, duration_ms=round(elapsed * 1000, 2),
                client=(scope.get("client") or ("", 0))[0],
            )

    async def _read_body(self, scope: Scope, receive: Receive) -> Receive | None:
        """Read the whole body (up to the limit) and return a ``receive`` replaying it, or None when too large."""
        declared = _header(scope, b"content-length")
        if declared is not None:
            try:
                if int(declared) > self.max_body_bytes:
                    return None
            except ValueError:
                pass
        chunks: list[bytes] = []
        pending: list[Message]
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # a disconnect before the body was complete
                raise _Disconnected
            chunk = bytes(message.get("body", b""))
            size += len(chunk)
            if size > self.max_body_bytes:
                return None
            chunks.append(chunk)
            if not message.get("more_body", False):
                pending = [{"type": "http.request", "body": b"".join(chunks), "more_body": False}]
                break

        async def replay() -> Message:
            if pending:
                return pending.pop(0)
            return await receive()

        return replay


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return None
