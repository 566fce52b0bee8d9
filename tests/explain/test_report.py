"""The audit report: one self-contained HTML page, checked for structure and, where Chromium exists, in a browser.

The structure test always runs. The browser test loads the page in headless
Chromium (Debian's ``chromium``) with the network cut off — every host resolves to
nothing and every request goes to a closed local port — and asserts that the page
logs nothing to the console, requests nothing, and renders a full-size screenshot.
It is skipped where there is no Chromium (CI on a fresh machine).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
import subprocess
import warnings
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest
from typer.testing import CliRunner

import postinit
from postinit.cli import app as cli_app
from postinit.report import html_report

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

from postinit.service import Settings, create_app

runner = CliRunner()
DBO = ["-tp", "8", "--enable-expert-parallel", "--enable-dbo", "--all2all-backend", "allgather_reducescatter",
       "--no-enable-chunked-prefill"]
SECTIONS = ["inputs", "violations", "warnings", "quirks", "stale", "notes", "changes"]


class _Page(HTMLParser):
    """What the structure test needs from a page: section ids, tags, and every URL-bearing attribute."""

    def __init__(self) -> None:
        super().__init__()
        self.sections: list[str] = []
        self.tags: dict[str, int] = {}
        self.urls: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags[tag] = self.tags.get(tag, 0) + 1
        a = dict(attrs)
        if tag == "section" and a.get("id"):
            self.sections.append(str(a["id"]))
        for name in ("src", "href", "xlink:href", "action", "poster", "data"):
            if a.get(name):
                self.urls.append(str(a[name]))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _parse(page: str) -> _Page:
    p = _Page()
    p.feed(page)
    return p


@pytest.fixture(scope="module")
def dbo() -> postinit.Resolution:
    return postinit.resolve(model="deepseek-ai/DeepSeek-V3", platform="h100", argv=DBO,
                            env={"VLLM_FOO": "1"})


def test_report_holds_every_section_and_nothing_from_outside(dbo: postinit.Resolution) -> None:
    """Sections in order; one inline SVG per changed field; the violation's hint, the quirk, the override, the
    input note; no script and no URL but in-page anchors and a data: icon; the same bytes every time."""
    page = html_report(dbo)
    p = _parse(page)
    assert p.sections == SECTIONS
    assert p.tags.get("script", 0) == 0 and p.tags.get("iframe", 0) == 0 and p.tags.get("img", 0) == 0
    assert all(u.startswith("#") or u.startswith("data:") for u in p.urls), p.urls
    assert "@import" not in page and "url(" not in page.replace("url(#arrow-", "")
    assert p.tags["svg"] == len(dbo.changes) == page.count("<details")  - page.count("<details><summary>the nested")
    text = " ".join(p.text)
    v = dbo.violations[0]
    assert v.rule in text and v.hint is not None and f"hint: {v.hint}" in text
    assert "quirk.chunked-prefill-flag-ignored" in text
    assert "overrides your value" in text and "your --no-enable-chunked-prefill" in text
    assert "VLLM_FOO" in text and dbo.notes[0].message in text
    for c in dbo.changes:
        assert c.path in text
    assert f"{len(dbo.changes)} value(s) changed" in text and dbo.hash in text
    assert html_report(postinit.resolve(model="deepseek-ai/DeepSeek-V3", platform="h100", argv=DBO,
                                        env={"VLLM_FOO": "1"})) == page


def test_each_picture_marks_the_rule_that_set_the_value(dbo: postinit.Resolution) -> None:
    """The picture of a changed field draws its writers and readers; the rule that set the value is the red box."""
    page = html_report(dbo)
    path = "scheduler_config.enable_chunked_prefill"
    row = page[page.index(f"rules that write and read {path}"):]
    svg = row[: row.index("</svg>")]
    setter = dbo.provenance(path).rule
    assert setter is not None
    assert re.search(rf'<title>{re.escape(setter)}: [^<]*</title><rect [^>]*stroke="#cc0000"', svg)
    assert f"writes it ({len(postinit.rulebook().writers_of(path))})" in svg


def test_every_face_gives_the_same_page(dbo: postinit.Resolution) -> None:
    """`postinit resolve --format html`, `POST /v1/report` and `GET /v1/report` give the library's page."""
    page = html_report(dbo)
    res = runner.invoke(cli_app, ["resolve", "--model", "deepseek-ai/DeepSeek-V3", "--platform", "h100", *DBO,
                                  "--env", "VLLM_FOO=1", "--format", "html"])
    assert res.exit_code == 1  # the config is invalid: the report is still written
    assert res.output == page
    with TestClient(create_app(Settings()), raise_server_exceptions=False) as http:
        body = {"model": "deepseek-ai/DeepSeek-V3", "platform": "h100", "argv": DBO, "env": {"VLLM_FOO": "1"}}
        got = http.post("/v1/report", json=body)
        assert got.status_code == 200 and got.headers["content-type"].startswith("text/html")
        assert got.text == page
        query = {"model": "deepseek-ai/DeepSeek-V3", "platform": "h100", "argv": " ".join(DBO), "env": "VLLM_FOO=1"}
        got = http.get("/v1/report", params=query)
        assert got.status_code == 200 and got.text == page
        bad = http.get("/v1/report", params={"platform": "h1000"})
        assert bad.status_code == 422 and "h1000" in bad.json()["message"]
        bad = http.get("/v1/report", params={"env": "NOEQUALS"})
        assert bad.status_code == 422 and "NAME=VALUE" in bad.json()["message"]


# --------------------------------------------------------------------------- in a real browser

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def _png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    w, h = struct.unpack(">II", head[16:24])
    return int(w), int(h)


@pytest.fixture
def report_file(tmp_path: Path, dbo: postinit.Resolution) -> Iterator[Path]:
    path = tmp_path / "report.html"
    path.write_text(html_report(dbo), encoding="utf-8")
    yield path


@pytest.mark.skipif(CHROMIUM is None, reason="needs Chromium (apt-get install chromium)")
def test_report_loads_in_headless_chromium_offline(report_file: Path, tmp_path: Path) -> None:
    """Headless Chromium with no network loads the page, logs nothing to its console, makes no request of its own,
    and takes a 1280-px-wide screenshot (kept next to the page for a person to look at)."""
    shot, netlog = tmp_path / "report.png", tmp_path / "net.json"
    profile = tmp_path / "profile"
    cmd = [
        str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={profile}",
        "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=http://127.0.0.1:9",
        "--enable-logging=stderr", "--v=0", f"--log-net-log={netlog}",
        "--window-size=1280,2400", "--hide-scrollbars", f"--screenshot={shot}", report_file.as_uri(),
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False,
                          env={**os.environ, "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr[-2000:]
    console = [line for line in done.stderr.splitlines() if ":CONSOLE" in line]
    assert console == [], console
    assert _png_size(shot) == (1280, 2400)
    assert shot.stat().st_size > 50_000  # text, tables and colour, not a blank page
    events = json.loads(netlog.read_text())["events"]
    # requests the page made: the browser's own background requests have no origin
    asked = {e["params"]["url"] for e in events
             if "url" in e.get("params", {}) and e["params"].get("initiator") not in (None, "not an origin")}
    assert asked == set(), asked
    if os.environ.get("POSTINIT_KEEP_SCREENSHOT"):
        shutil.copy(shot, os.environ["POSTINIT_KEEP_SCREENSHOT"])
