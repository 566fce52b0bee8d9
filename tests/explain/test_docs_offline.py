"""`/docs` and `/redoc` work offline: their pages name only the service's own assets, and Swagger UI renders
in headless Chromium with the network cut off (skipped where there is no Chromium)."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import threading
import time
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

from postinit.service import Settings, create_app

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def test_docs_pages_load_only_local_assets() -> None:
    """Every script, stylesheet and icon of /docs and /redoc is served by the service itself."""
    with TestClient(create_app(Settings()), raise_server_exceptions=False) as http:
        for page in ("/docs", "/redoc"):
            r = http.get(page)
            assert r.status_code == 200
            urls = re.findall(r'(?:src|href|url)\s*[=:]\s*["\']([^"\']+)["\']', r.text)
            assert urls and all(u.startswith("/") for u in urls), urls
            for u in urls:
                if u != "/openapi.json":
                    got = http.get(u)
                    assert got.status_code == 200 and len(got.content) > 1000, u
        assert http.get("/docs/assets/nothing.js").status_code == 404


@pytest.fixture
def server() -> Iterator[str]:
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    config = uvicorn.Config(create_app(Settings()), host="127.0.0.1", port=port, log_level="error", access_log=False)
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert srv.started
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(10)


@pytest.mark.skipif(CHROMIUM is None, reason="needs Chromium (apt-get install chromium)")
def test_swagger_ui_renders_offline_in_chromium(server: str, tmp_path: Path) -> None:
    """Chromium, with every host but the loopback unresolvable, renders /docs: no console error, no request
    leaves 127.0.0.1, and the rendered DOM holds the operations."""
    netlog = tmp_path / "net.json"
    cmd = [
        str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={tmp_path / 'p'}",
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1", "--enable-logging=stderr", "--v=0",
        f"--log-net-log={netlog}", "--virtual-time-budget=8000", "--dump-dom", f"{server}/docs",
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False,
                          env={**os.environ, "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr[-2000:]
    errors = [line for line in done.stderr.splitlines() if ":CONSOLE" in line and "rror" in line]
    assert errors == [], errors
    assert "/v1/resolve" in done.stdout and "opblock" in done.stdout  # Swagger UI drew the operations
    events = json.loads(netlog.read_text())["events"]
    asked = {e["params"]["url"] for e in events
             if "url" in e.get("params", {}) and e["params"].get("initiator") not in (None, "not an origin")}
    assert asked and all(u.startswith(server) for u in asked), asked


def test_docs_assets_missing_is_one_clear_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the fastapi-offline package the assets answer 501 naming the extra to install, not a 500."""
    import importlib.resources

    from postinit.service import _app

    def missing(_: str) -> None:
        raise ModuleNotFoundError("fastapi_offline")

    _app._docs_asset.cache_clear()
    monkeypatch.setattr(importlib.resources, "files", missing)
    try:
        with TestClient(create_app(Settings()), raise_server_exceptions=False) as http:
            r = http.get("/docs/assets/swagger-ui.css")
        assert r.status_code == 501 and "postinit[serve]" in r.json()["message"]
    finally:
        _app._docs_asset.cache_clear()
