"""`postinit graph` is a map: an overview of phases and config areas, with ≤ 150 edges and a legend."""

from __future__ import annotations

import shutil
import time
import warnings
from pathlib import Path

import pytest
from typer.testing import CliRunner

from postinit import graphs
from postinit.cli import app as cli_app
from postinit.rules import rulebook

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

from postinit.service import Settings, create_app

runner = CliRunner()


def test_overview_groups_every_rule_once_by_phase_and_area() -> None:
    """Every rule sits in exactly one (phase, area) group; checks are their own group; edges go forward, ≤ 150."""
    book = rulebook()
    ov = graphs.overview(book)
    grouped = [rid for rules in ov.rules.values() for rid in rules]
    assert sorted(grouped) == sorted(book.rules)
    assert list(ov.phases) == list(book.phases)
    for nid, rules in ov.rules.items():
        phase, area = nid.split("/", 1)
        assert all(book.rules[r].phase == phase for r in rules)
        if area == "checks":
            assert all(not book.rules[r].writes for r in rules)
    step = {nid: i for i, nodes in enumerate(ov.phases.values()) for nid in nodes}
    assert 0 < len(ov.edges) <= 150 and all(step[a] < step[b] for a, b, _ in ov.edges)
    assert all(ov.areas[b] != "checks" for _, b, _ in ov.edges)
    assert graphs.overview(book, max_edges=10).hidden == len(ov.edges) - 10


def test_default_graph_is_the_overview_and_full_is_every_rule() -> None:
    """`postinit graph` prints the overview (phase clusters, a legend); `--full` every rule; `--around` is unchanged."""
    res = runner.invoke(cli_app, ["graph"])
    assert res.exit_code == 0
    assert res.output.startswith('digraph "rulebook overview"') and "cluster_legend" in res.output
    assert res.output.count(" -> ") <= 150 + 2
    full = runner.invoke(cli_app, ["graph", "--full"])
    assert full.exit_code == 0 and full.output.count("->") > 300
    assert all(r in full.output for r in rulebook().rules)
    around = runner.invoke(cli_app, ["graph", "--around", "compilation_config.cudagraph_mode"])
    assert around.output == graphs.to_dot(graphs.view(rulebook(), around="compilation_config.cudagraph_mode"),
                                          name="postinit compilation_config.cudagraph_mode")
    mermaid = runner.invoke(cli_app, ["graph", "--format", "mermaid"])
    assert mermaid.output.startswith("flowchart LR") and "checks" in mermaid.output


def test_http_graph_is_the_overview_unless_full() -> None:
    """GET /v1/graph gives the CLI's overview; full=true every rule."""
    with TestClient(create_app(Settings()), raise_server_exceptions=False) as http:
        assert http.get("/v1/graph").text == graphs.overview_dot(graphs.overview(rulebook()))
        assert http.get("/v1/graph", params={"full": "true"}).text.count("->") > 300


def test_slow_rendering_shows_progress_on_stderr(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A render that takes over a second says what it is doing on stderr, and how long it took."""
    def slow(dot: str, fmt: str) -> bytes:
        time.sleep(1.3)
        return b"\x89PNG fake"

    monkeypatch.setattr(graphs, "render", slow)
    out = tmp_path / "g.png"
    res = CliRunner().invoke(cli_app, ["graph", "--full", "--format", "png", "--output", str(out)])
    assert res.exit_code == 0, res.output
    assert f"rendering {len(rulebook())} rules with Graphviz dot…" in res.output and "done in 1." in res.output


@pytest.mark.skipif(shutil.which("dot") is None, reason="needs Graphviz's dot")
def test_overview_renders_quickly_to_svg() -> None:
    """The overview renders with dot in well under the full graph's ~25 s."""
    t = time.perf_counter()
    svg = graphs.render(graphs.overview_dot(graphs.overview(rulebook())), "svg")
    assert svg.lstrip().startswith(b"<?xml") and b"legend" in svg
    assert time.perf_counter() - t < 10


def _layout(dot_text: str) -> tuple[dict[str, tuple[float, float, float, float]], list[tuple[str, str, list[tuple[float, float]], tuple[float, float] | None]]]:
    """Graphviz's own layout (``dot -Tplain``): node boxes and each drawn edge's spline and label position."""
    import shlex
    import subprocess

    plain = subprocess.run(["dot", "-Tplain"], input=dot_text, capture_output=True, text=True, check=True).stdout
    boxes: dict[str, tuple[float, float, float, float]] = {}
    edges = []
    for line in plain.splitlines():
        if line.startswith("node "):
            name, x, y, w, h = line.split()[1:6]
            cx, cy, hw, hh = float(x), float(y), float(w) / 2, float(h) / 2
            boxes[name] = (cx - hw, cy - hh, cx + hw, cy + hh)
        elif line.startswith("edge "):
            words = shlex.split(line)
            tail, head, n = words[1], words[2], int(words[3])
            pts = [(float(words[4 + 2 * i]), float(words[5 + 2 * i])) for i in range(n)]
            rest = words[4 + 2 * n:]
            if rest[-2] == "invis":
                continue
            label = (float(rest[1]), float(rest[2])) if len(rest) == 5 else None
            edges.append((tail, head, pts, label))
    return boxes, edges


def _bezier(pts: list[tuple[float, float]], steps: int = 24) -> list[tuple[float, float]]:
    out = []
    for i in range(0, len(pts) - 3, 3):
        (x0, y0), (x1, y1), (x2, y2), (x3, y3) = pts[i:i + 4]
        for k in range(steps + 1):
            t = k / steps
            a, b, c, d = (1 - t) ** 3, 3 * t * (1 - t) ** 2, 3 * t * t * (1 - t), t ** 3
            out.append((a * x0 + b * x1 + c * x2 + d * x3, a * y0 + b * y1 + c * y2 + d * y3))
    return out


@pytest.mark.skipif(shutil.which("dot") is None, reason="needs Graphviz's dot")
@pytest.mark.parametrize("version", ["d7fb10c57", "0.11.1", "0.34.0"])
def test_overview_arrows_cross_no_label(version: str) -> None:
    """Laid out by dot, no arrow of the overview passes through a phase's table, and no arrow's number sits on one.

    Each phase is one node (its config areas are rows), so the router avoids every label; an arrow only
    touches its own two tables at their sides (0.15 in of slack there: a row's side lies inside the node's
    margin).
    """
    from postinit.rules import versions

    book = versions.get(version).rulebook
    boxes, edges = _layout(graphs.overview_dot(graphs.overview(book)))
    assert len(edges) > 20
    for tail, head, pts, label in edges:
        for name, (x0, y0, x1, y1) in boxes.items():
            slack = 0.15 if name in (tail, head) else 0.0
            inside = [(x, y) for x, y in _bezier(pts) if x0 + slack < x < x1 - slack and y0 + slack < y < y1 - slack]
            assert not inside, f"{tail} -> {head} crosses {name}'s table at {inside[0]}"
            if label is not None:
                lx, ly = label
                assert not (x0 < lx < x1 and y0 < ly < y1), f"the number on {tail} -> {head} sits on {name}"


def test_fast_rendering_says_nothing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A render under a second prints only the file it wrote."""
    monkeypatch.setattr(graphs, "render", lambda dot, fmt: b"<svg/>")
    res = CliRunner().invoke(cli_app, ["graph", "--format", "svg", "--output", str(tmp_path / "g.svg")])
    assert res.exit_code == 0 and "with Graphviz dot" not in res.output and "wrote" in res.output
