"""The small things people notice: model ids never wrap, serve says where it listens, violations log at info."""

from __future__ import annotations

import io
import subprocess
import sys
import time
import warnings

import pytest
from rich.console import Console
from structlog.testing import capture_logs

from postinit import render
from postinit.schema.loaders import list_catalog

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

from postinit.service import Settings, create_app


@pytest.mark.parametrize("width", [60, 80, 120, 200])
def test_models_table_never_wraps_an_id(width: int) -> None:
    """At any terminal width every catalog id is whole on one line (a wrapped id reads as another id)."""
    rows = [{"id": e.id, "architecture": e.architecture, "note": e.note} for e in list_catalog()]
    buf = io.StringIO()
    console = Console(file=buf, width=width, color_system=None)
    render.text_table(console, rows, ["id", "architecture", "note"], whole=("id",))
    lines = buf.getvalue().splitlines()
    for row in rows:
        assert any(row["id"] in line for line in lines), (width, row["id"])


def test_violations_are_logged_at_info_by_the_service() -> None:
    """A request whose config vLLM would refuse is answered 200 and logged at info, never at error."""
    body = {"model": "deepseek-ai/DeepSeek-V3", "platform": "h100",
            "argv": ["-tp", "8", "--enable-expert-parallel", "--enable-dbo", "--all2all-backend",
                     "allgather_reducescatter"]}
    with TestClient(create_app(Settings()), raise_server_exceptions=False) as http, capture_logs() as logs:
        r = http.post("/v1/resolve", json=body)
    assert r.status_code == 200 and r.json()["ok"] is False
    violations = [e for e in logs if e["event"] == "rule_violation"]  # the engine's and the service's
    assert violations and all(e["log_level"] == "info" for e in violations)
    assert {e["rule"] for e in violations} == {"parallel.dbo-requires-deepep"}
    assert not [e for e in logs if e.get("log_level") in ("error", "critical")]


def test_serve_prints_where_it_listens() -> None:
    """`postinit serve --port 0` prints one line on stderr with the address it bound, then serves."""
    proc = subprocess.Popen([sys.executable, "-m", "postinit.cli", "serve", "--port", "0"],
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    try:
        assert proc.stderr is not None
        deadline = time.monotonic() + 60
        line = ""
        while time.monotonic() < deadline and not line:
            line = proc.stderr.readline()
        assert line.startswith("postinit serve: listening on http://127.0.0.1:"), line
        port = int(line.split("127.0.0.1:", 1)[1].split(" ", 1)[0])
        assert 0 < port < 65536 and "/docs" in line
    finally:
        proc.terminate()
        proc.wait(10)
        if proc.stderr is not None:
            proc.stderr.close()
