"""The connection's bounds on a real uvicorn server: header size, head and body time, a client that goes away.

The server runs in this process (a thread) with ``postinit serve``'s own HTTP protocol and
edge, their time limits shortened so the test is quick; requests are raw bytes on a socket,
as a hostile client sends them.
"""

from __future__ import annotations

import contextlib
import re
import socket
import threading
import time
from collections.abc import Iterator

import pytest

pytest.importorskip("httptools")

from postinit.service import Settings, create_app
from postinit.service._protocol import MAX_HEAD_BYTES, BoundedHttpToolsProtocol, uvicorn_options

LIMIT_S = 0.6
"""The head and body time limits of the server under test (the service's default is 10 s)."""


class QuickProtocol(BoundedHttpToolsProtocol):  # type: ignore[misc,valid-type]
    head_timeout_s = LIMIT_S


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[int, list[dict[str, object]]]]:
    import structlog
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    options = {**uvicorn_options(), "http": QuickProtocol}
    app = create_app(Settings(body_timeout_s=LIMIT_S))
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error", access_log=False, **options)
    srv = uvicorn.Server(config)
    with structlog.testing.capture_logs() as logs:
        thread = threading.Thread(target=srv.run, daemon=True)
        thread.start()
        deadline = time.monotonic() + 30
        while not srv.started and time.monotonic() < deadline:
            time.sleep(0.05)
        assert srv.started
        yield port, logs
        srv.should_exit = True
        thread.join(10)


def _connect(port: int) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    return s


def _read_all(s: socket.socket) -> bytes:
    out = b""
    try:
        while chunk := s.recv(65536):
            out += chunk
    except (ConnectionResetError, TimeoutError):
        pass
    return out


def _status(answer: bytes) -> int:
    found = re.match(rb"HTTP/1\.1 (\d{3})", answer)
    assert found, answer[:200]
    return int(found.group(1))


def _healthz(port: int) -> float:
    start = time.perf_counter()
    with _connect(port) as s:
        s.sendall(b"GET /healthz HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n")
        assert _status(_read_all(s)) == 200
    return time.perf_counter() - start


def test_the_default_protocol_is_the_bounded_one() -> None:
    """postinit serve runs uvicorn with the bounded protocol and h11's event size at the same bound."""
    options = uvicorn_options()
    assert options["http"] is BoundedHttpToolsProtocol
    assert options["h11_max_incomplete_event_size"] == MAX_HEAD_BYTES == 64 * 1024


@pytest.mark.parametrize("where", ["header", "url"])
def test_a_huge_head_is_431_at_once(server: tuple[int, list[dict[str, object]]], where: str) -> None:
    """A 4 MB header line (or URL) is refused with 431 as soon as 64 KiB arrived; /healthz stays fast."""
    port, _ = server
    big = b"a" * (4 << 20)
    head = (b"GET /healthz?" + big + b" HTTP/1.1\r\nhost: x\r\n\r\n" if where == "url"
            else b"GET /healthz HTTP/1.1\r\nhost: x\r\nx-big: " + big + b"\r\n\r\n")
    start = time.perf_counter()
    with _connect(port) as s:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            s.sendall(head)  # the server may close the connection after its answer, before all is sent
        answer = _read_all(s)
    assert _status(answer) == 431, answer[:200]
    assert b"64" in answer or str(MAX_HEAD_BYTES).encode() in answer
    assert time.perf_counter() - start < 2.0
    assert _healthz(port) < 1.0


@pytest.mark.parametrize("split", [None, 10, 1])
def test_a_large_body_sent_with_its_head_is_not_a_large_head(server: tuple[int, list[dict[str, object]]],
                                                             split: int | None) -> None:
    """Only the head counts toward 64 KiB: a 300 kB body arriving in the same reads as its head (and the head's
    end split across two reads) is answered by the app (found by benchmarks.dos: every body over 64 KiB was 431),
    and a second request on the same connection is too."""
    port, _ = server
    body = b'{"model": "meta-llama/Llama-3.1-8B-Instruct", "env": {"X": "' + b"a" * 300_000 + b'"}}'
    head = (b"POST /v1/resolve HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
            b"content-length: " + str(len(body)).encode() + b"\r\n\r\n")
    with _connect(port) as s:
        for last in (False, True):
            data = head.replace(b"host: x", b"host: x\r\nconnection: close") if last else head
            if split is None:
                s.sendall(data + body)
            else:  # the head's end CRLF CRLF split between two writes
                cut = len(data) - split
                s.sendall(data[:cut])
                time.sleep(0.05)
                s.sendall(data[cut:] + body)
            answer = _read_all(s) if last else s.recv(65536)
            assert _status(answer) in (200, 422), answer[:300]


def test_a_head_sent_slowly_is_408(server: tuple[int, list[dict[str, object]]]) -> None:
    """A request head still incomplete after the time limit is answered 408 and the connection closed."""
    port, _ = server
    start = time.perf_counter()
    with _connect(port) as s:
        s.sendall(b"GET /healthz HTTP/1.1\r\nhost: x\r\n")  # never ends its head
        answer = _read_all(s)
    elapsed = time.perf_counter() - start
    assert _status(answer) == 408
    assert LIMIT_S * 0.8 < elapsed < LIMIT_S + 2.0


def test_a_connection_that_sends_nothing_is_closed(server: tuple[int, list[dict[str, object]]]) -> None:
    """An idle new connection does not hold the server: it is closed after the head time limit."""
    port, _ = server
    with _connect(port) as s:
        answer = _read_all(s)
    assert answer == b"" or _status(answer) == 408


def test_a_body_sent_slowly_is_408(server: tuple[int, list[dict[str, object]]]) -> None:
    """A body announced as 100 bytes of which 10 arrive: 408 after the body time limit, JSON, connection closed."""
    port, _ = server
    with _connect(port) as s:
        s.sendall(b"POST /v1/resolve HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
                  b"content-length: 100\r\n\r\n{\"model\": ")
        answer = _read_all(s)
    assert _status(answer) == 408
    assert b'"error": "request_timeout"' in answer and b"connection: close" in answer.lower()
    assert _healthz(port) < 1.0


def test_a_client_leaving_mid_body_is_no_server_error(server: tuple[int, list[dict[str, object]]]) -> None:
    """A client that disconnects before its body is complete: logged as such, counted 499, no traceback, no 500."""
    port, logs = server
    with _connect(port) as s:
        s.sendall(b"POST /v1/resolve HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
                  b"content-length: 1000\r\n\r\n{\"model\": ")
        time.sleep(0.1)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and not any(e.get("event") == "client_disconnected" for e in logs):
        time.sleep(0.05)
    assert any(e.get("event") == "client_disconnected" for e in logs)
    assert not any(e.get("event") == "unhandled_error" for e in logs)
    with _connect(port) as s:
        s.sendall(b"GET /metrics HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n")
        metrics = _read_all(s).decode()
    assert 'status="499"' in metrics
    assert 'status="500"' not in metrics
