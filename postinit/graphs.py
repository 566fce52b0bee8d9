"""Pictures of the rulebook: the rule/field dependency graph as DOT, Mermaid, SVG or PNG.

Everything is drawn from the compiled networkx graph (:attr:`Rulebook.graph`):
rules are boxes clustered by phase (in phase order), an edge ``a → b`` means
rule ``b`` reads a path that rule ``a`` writes and is labelled with those
paths (``after`` edges are dashed). ``around=RULE`` keeps the rule and its
direct neighbours; ``around=PATH`` draws the path as an ellipse between the
rules that write it and the rules that read it. SVG/PNG need the ``graphviz``
Python package (``pip install 'postinit[graph]'``) and Graphviz's ``dot``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from postinit.engine import Rulebook
from postinit.errors import InputError, did_you_mean

__all__ = ["GraphView", "RenderError", "render", "to_dot", "to_mermaid", "view"]

_KIND_COLOUR = {
    "default": "#e8e8e8",
    "derive": "#cfe2f3",
    "override": "#f9cb9c",
    "check": "#f4cccc",
}
_MAX_LABEL_PATHS = 2
_HUB_AT = 3
"""A path carried by this many rule-to-rule edges is drawn once, as a node, instead of on every edge."""


class RenderError(InputError):
    """SVG/PNG output is not possible here (no ``graphviz`` package or no ``dot`` binary)."""


@dataclass
class GraphView:
    """The nodes and edges to draw: ``rules`` by phase, optional ``paths``, labelled edges."""

    phases: dict[str, list[str]] = field(default_factory=dict)
    kinds: dict[str, str] = field(default_factory=dict)
    titles: dict[str, str] = field(default_factory=dict)
    paths: list[str] = field(default_factory=list)
    edges: list[tuple[str, str, str, str]] = field(default_factory=list)
    """(from, to, label, style) with style ``data``, ``after``, ``feedback``, ``read`` or ``write``."""
    focus: str | None = None
    phase_numbers: dict[str, int] = field(default_factory=dict)
    clusters: bool = True


def _label(paths: Iterable[str]) -> str:
    ps = sorted(paths)
    shown = ps[:_MAX_LABEL_PATHS]
    more = len(ps) - len(shown)
    return "\n".join(shown) + (f"\n+{more} more" if more > 0 else "")


def view(book: Rulebook, *, phase: str | None = None, around: str | None = None) -> GraphView:
    """Choose what to draw: the whole rulebook, one phase, or the neighbourhood of a rule or path."""
    if phase is not None and phase not in book.phases:
        raise InputError(
            f"unknown phase '{phase}'; phases: {', '.join(book.phases)}.{did_you_mean(phase, book.phases)}",
            path="phase", value=phase,
        )
    g = book.graph
    v = GraphView(focus=around)
    rules: set[str]
    if around is None:
        rules = {r for r in book.rules if phase is None or book.rules[r].phase == phase}
    elif around in book.rules:
        rules = {around, *g.predecessors(around), *g.successors(around)}
    elif around in book.paths:
        writers = {r.id for r in book.writers_of(around)}
        readers = {r.id for r in book.readers_of(around)} - writers
        rules = writers | readers
        if phase is not None:
            rules = {r for r in rules if book.rules[r].phase == phase}
        v.paths = [around]
        v.edges = [(w, around, "", "write") for w in sorted(writers & rules)]
        v.edges += [(around, r, "", "read") for r in sorted(readers & rules)]
    else:
        raise InputError(
            f"--around '{around}' is neither a rule id nor a field path."
            + did_you_mean(around, [*book.rules, *book.paths.paths]),
            path="around", value=around,
        )
    if around is not None and around in book.rules and phase is not None:
        rules = {r for r in rules if book.rules[r].phase == phase or r == around}
    for ph in book.phases:
        members = [r for r in book.order[ph] if r in rules]
        if members:
            v.phases[ph] = members
    for r in rules:
        v.kinds[r] = book.rules[r].kind.value
        v.titles[r] = book.rules[r].title
    if not v.paths:
        _rule_edges(g, rules, v)
    v.phase_numbers = {ph: i + 1 for i, ph in enumerate(book.phases)}
    v.clusters = not (around is not None and around in book.paths)
    return v


def _rule_edges(g: object, rules: set[str], v: GraphView) -> None:
    """Edges between the shown rules; a path carried by many edges becomes one hub node instead."""
    carried: dict[str, int] = {}
    kept = []
    for a, b, d in g.edges(data=True):  # type: ignore[attr-defined]
        if a in rules and b in rules:
            kept.append((a, b, d))
            for p in d.get("paths", ()):
                carried[p] = carried.get(p, 0) + 1
    hubs = {p for p, n in carried.items() if n >= _HUB_AT}
    hub_edges: set[tuple[str, str, str, str]] = set()
    for a, b, d in kept:
        paths = set(d.get("paths", ()))
        for p in paths & hubs:
            hub_edges.add((a, p, "", "hub-in"))
            hub_edges.add((p, b, "", "hub-out"))
        rest = paths - hubs
        if d.get("kind") == "feedback":
            v.edges.append((a, b, _label(rest), "feedback"))
        elif rest:
            v.edges.append((a, b, _label(rest), "data"))
        elif not paths:
            v.edges.append((a, b, "", "after"))
    v.paths = sorted(hubs)
    v.edges.extend(sorted(hub_edges))
    v.edges.sort()


# --------------------------------------------------------------------------- DOT


def _q(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def to_dot(v: GraphView, *, name: str = "rulebook") -> str:
    """Graphviz DOT text: phase clusters left to right, rules coloured by kind, edges labelled by path."""
    out = [
        f"digraph {_q(name)} {{",
        '  graph [rankdir=LR, fontname="Helvetica", fontsize=12, nodesep=0.25, ranksep=0.6, compound=true];',
        '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=10];',
        '  edge [fontname="Helvetica", fontsize=8, color="#555555", fontcolor="#333333"];',
    ]
    for i, (ph, members) in enumerate(v.phases.items()):
        number = v.phase_numbers.get(ph, i + 1)
        if v.clusters:
            out.append(f"  subgraph cluster_{i} {{")
            out.append(f'    label={_q(f"phase {number}: {ph}")}; style="rounded,dashed"; color="#999999";')
        for r in members:
            pen = ', penwidth=2.5, color="#cc0000"' if r == v.focus else ""
            label = f"{r}\n({v.kinds[r]})" if v.clusters else f"{r}\n({ph} · {v.kinds[r]})"
            out.append(
                f"    {_q(r)} [label={_q(label)}, fillcolor={_q(_KIND_COLOUR.get(v.kinds[r], 'white'))}, "
                f"tooltip={_q(v.titles.get(r, ''))}{pen}];"
            )
        if v.clusters:
            out.append("  }")
    for p in v.paths:
        width = 2 if p == v.focus else 1
        out.append(f'  {_q(p)} [shape=ellipse, style=filled, fillcolor="#fff2cc", penwidth={width}];')
    for a, b, label, style in v.edges:
        attrs = []
        if label:
            attrs.append(f"label={_q(label)}")
        if style == "after":
            attrs.append('style=dashed, label="after"')
        elif style == "feedback":
            attrs.append('style=dotted, color="#cc0000", constraint=false')
        elif style == "read":
            attrs.append('label="reads"')
        elif style == "write":
            attrs.append('label="writes", color="#1155cc"')
        elif style == "hub-in":
            attrs.append('color="#1155cc"')
        out.append(f"  {_q(a)} -> {_q(b)}" + (f" [{', '.join(attrs)}]" if attrs else "") + ";")
    out.append("}")
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------- Mermaid

_MERMAID_ID = re.compile(r"[^A-Za-z0-9_]")


def _mid(text: str) -> str:
    return "n_" + _MERMAID_ID.sub("_", text)


def _mtext(text: str) -> str:
    return text.replace('"', "#quot;").replace("\n", "<br/>")


def to_mermaid(v: GraphView) -> str:
    """A Mermaid ``flowchart`` (renders in GitHub issues and Markdown): one subgraph per phase."""
    out = ["flowchart LR"]
    for i, (ph, members) in enumerate(v.phases.items()):
        out.append(f'  subgraph phase_{i}["phase {v.phase_numbers.get(ph, i + 1)}: {_mtext(ph)}"]')
        for r in members:
            out.append(f'    {_mid(r)}["{_mtext(r)}<br/><i>{v.kinds[r]}</i>"]:::{v.kinds[r]}')
        out.append("  end")
    for p in v.paths:
        out.append(f'  {_mid(p)}(["{_mtext(p)}"]):::field')
    for a, b, label, style in v.edges:
        arrow = {"after": "-.->", "feedback": "-.->"}.get(style, "-->")
        text = {"after": "after", "read": "reads", "write": "writes"}.get(style, label)
        out.append(f"  {_mid(a)} {arrow}" + (f'|"{_mtext(text)}"|' if text else "") + f" {_mid(b)}")
    for kind, colour in _KIND_COLOUR.items():
        out.append(f"  classDef {kind} fill:{colour},stroke:#666")
    out.append("  classDef field fill:#fff2cc,stroke:#b45f06")
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------- SVG / PNG


def render(dot: str, fmt: str) -> bytes:
    """Render DOT text to ``svg`` or ``png`` with Graphviz; :class:`RenderError` when it cannot."""
    try:
        import graphviz
    except ImportError:
        raise RenderError(
            f"--format {fmt} needs the graphviz package: pip install 'postinit[graph]' (or use --format dot)"
        ) from None
    try:
        try:
            data: bytes = graphviz.Source(dot).pipe(format=fmt, quiet=True)
        except graphviz.CalledProcessError:
            # dot's classic ranking fails on some clustered graphs ("trouble in init_rank");
            # the newer ranking algorithm lays them out
            data = graphviz.Source(dot.replace("graph [", "graph [newrank=true, ", 1)).pipe(format=fmt)
    except graphviz.ExecutableNotFound:
        raise RenderError(
            f"--format {fmt} needs Graphviz's 'dot' program on PATH (e.g. apt-get install graphviz, "
            "brew install graphviz); --format dot or mermaid work without it"
        ) from None
    return data
