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

import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from postinit.engine import Rulebook
from postinit.errors import InputError, did_you_mean

__all__ = [
    "GraphView", "Overview", "RenderError", "field_svg", "overview", "overview_dot", "overview_mermaid", "render",
    "to_dot", "to_mermaid", "view",
]

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


# --------------------------------------------------------------------------- the overview (a map)

_MAX_OVERVIEW_EDGES = 150


@dataclass
class Overview:
    """The rulebook at a glance: per phase, one node per config area its rules decide, and the flow between them."""

    phases: dict[str, list[str]] = field(default_factory=dict)
    """phase → node ids (``phase/area``) in area order."""
    areas: dict[str, str] = field(default_factory=dict)
    """node id → config area (``checks`` for the rules that write nothing)."""
    rules: dict[str, list[str]] = field(default_factory=dict)
    """node id → the rule ids grouped there."""
    kinds: dict[str, dict[str, int]] = field(default_factory=dict)
    edges: list[tuple[str, str, int]] = field(default_factory=list)
    """(from node, to node, number of fields that flow), heaviest first when cut."""
    hidden: int = 0
    """Edges left out to keep the map readable (at most 150 are drawn)."""
    inside: int = 0
    """Rule-to-rule data edges between two areas of one phase (not drawn: ``--phase P`` shows them)."""
    backward: int = 0
    """Rule-to-rule data edges from a later phase to an earlier one (stale-read candidates; not drawn)."""
    rule_count: int = 0


def _area(writes: tuple[str, ...]) -> str:
    if not writes:
        return "checks"
    counts: dict[str, int] = {}
    for p in writes:
        top = p.split(".", 1)[0]
        counts[top] = counts.get(top, 0) + 1
    return min(counts, key=lambda a: (-counts[a], a))


def overview(book: Rulebook, *, max_edges: int = _MAX_OVERVIEW_EDGES) -> Overview:
    """Group the rules by phase and by the config area they write; count the fields flowing between groups.

    Checks (rules that write nothing) are one node per phase with no incoming edges drawn:
    they read many values and decide none. Edges are the data dependencies between groups
    (a rule of one group reads a field a rule of another writes), labelled with the number
    of distinct fields; when there are more than ``max_edges`` the lightest are left out
    and counted in ``hidden``.
    """
    ov = Overview(rule_count=len(book.rules))
    node_of: dict[str, str] = {}
    for ph in book.phases:
        members: dict[str, list[str]] = {}
        for rid in book.order[ph]:
            area = _area(book.rules[rid].writes)
            members.setdefault(area, []).append(rid)
        order = sorted(members, key=lambda a: (a == "checks", a))
        ov.phases[ph] = [f"{ph}/{a}" for a in order]
        for a in order:
            nid = f"{ph}/{a}"
            ov.areas[nid] = a
            ov.rules[nid] = members[a]
            kinds: dict[str, int] = {}
            for rid in members[a]:
                k = book.rules[rid].kind.value
                kinds[k] = kinds.get(k, 0) + 1
            ov.kinds[nid] = kinds
            for rid in members[a]:
                node_of[rid] = nid
    flows: dict[tuple[str, str], set[str]] = {}
    step = {ph: i for i, ph in enumerate(book.phases)}
    for a, b, d in book.graph.edges(data=True):
        if d.get("kind") != "data":
            continue
        na, nb = node_of[a], node_of[b]
        if ov.areas[nb] == "checks" or na == nb:
            continue
        if step[book.rules[b].phase] == step[book.rules[a].phase]:
            ov.inside += 1
            continue
        if step[book.rules[b].phase] < step[book.rules[a].phase]:
            ov.backward += 1
            continue
        flows.setdefault((na, nb), set()).update(d.get("paths", ()))
    ranked = sorted(flows.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    kept = ranked[:max_edges]
    ov.hidden = len(ranked) - len(kept)
    ov.edges = sorted((a, b, len(ps)) for (a, b), ps in kept)
    return ov


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def overview_dot(ov: Overview, *, name: str = "rulebook overview") -> str:
    """The overview as DOT: one table per phase, left to right, a row (a port) per config area, and a legend.

    Each phase is a single node whose rows are its config areas, so Graphviz's spline
    router treats every label as an obstacle: an arrow enters and leaves an area's row at
    its side (``:e`` → ``:w``) and is routed around the phases it passes, never across a
    label. Arrows run only forward (later phases read what earlier ones wrote).
    """
    out = [
        f"digraph {_q(name)} {{",
        '  graph [rankdir=LR, fontname="Helvetica", fontsize=13, nodesep=0.35, ranksep=1.25, newrank=true];',
        '  node [shape=plaintext, fontname="Helvetica", fontsize=11];',
        '  edge [fontname="Helvetica", fontsize=9, color="#7a7a7a", fontcolor="#444444", arrowsize=0.6];',
    ]
    port: dict[str, tuple[str, str]] = {}
    phase_ids: list[str] = []
    for i, (ph, nodes) in enumerate(ov.phases.items()):
        pid = f"phase_{i + 1}"
        phase_ids.append(pid)
        n_rules = sum(len(ov.rules[n]) for n in nodes)
        rows = [f'<TR><TD BGCOLOR="#eeeeee"><B>phase {i + 1}: {_html(ph)}</B><BR/>{n_rules} rules</TD></TR>']
        for j, nid in enumerate(nodes):
            area, kinds = ov.areas[nid], ov.kinds[nid]
            count = len(ov.rules[nid])
            detail = " · ".join(f"{kinds[k]} {k}" for k in ("default", "derive", "override", "check") if k in kinds)
            colour = "#f4cccc" if area == "checks" else "#cfe2f3"
            tip = ", ".join(ov.rules[nid][:12]) + (" …" if count > 12 else "")
            rows.append(f'<TR><TD PORT="a{j}" BGCOLOR="{colour}" TITLE="{_html(tip)}" HREF="#">{_html(area)}<BR/>'
                        f'<FONT POINT-SIZE="9">{count} rule{"s" if count != 1 else ""}: {_html(detail)}</FONT>'
                        "</TD></TR>")
            port[nid] = (pid, f"a{j}")
        table = '<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" CELLPADDING="5" STYLE="ROUNDED">'
        out.append(f"  {pid} [label=<{table}{''.join(rows)}</TABLE>>];")
    for a, b in itertools.pairwise(phase_ids):
        out.append(f"  {a} -> {b} [style=invis, weight=20];")
    for a, b, n in ov.edges:
        (pa, qa), (pb, qb) = port[a], port[b]
        if pa == pb:
            continue
        width = 1.0 + min(n, 16) / 4
        out.append(f"  {pa}:{qa}:e -> {pb}:{qb}:w [label={_q(str(n))}, penwidth={width:.2f}, "
                   f"tooltip={_q(f'{n} field(s): {ov.areas[a]} → {ov.areas[b]}')}];")
    hidden = f"\n{ov.hidden} lighter links not drawn" if ov.hidden else ""
    hidden += (f"\nnot drawn: {ov.inside} rule links inside a phase (--phase P), "
               f"{ov.backward} back to an earlier phase")
    out += [
        "  subgraph cluster_legend {",
        '    label="legend"; style="rounded"; color="#bbbbbb"; fontsize=12;',
        '    legend_area [shape=box, style="rounded,filled", fillcolor="#cfe2f3", '
        'label="config area\nrules of one phase that write it"];',
        '    legend_checks [shape=box, style="rounded,filled", fillcolor="#f4cccc", '
        'label="checks\nrules that only validate or warn"];',
        f'    legend_help [shape=note, style=filled, fillcolor="#fff8dc", label="an arrow carries N fields '
        f'that one group writes and the other reads{hidden}\n{ov.rule_count} rules in all\n'
        'postinit graph --full: every rule\npostinit graph --around RULE|FIELD: one neighbourhood"];',
        "    legend_area -> legend_checks [style=invis];",
        "  }",
        "}",
    ]
    return "\n".join(out) + "\n"


def overview_mermaid(ov: Overview) -> str:
    """The overview as a Mermaid flowchart (one subgraph per phase)."""
    out = ["flowchart LR"]
    for i, (ph, nodes) in enumerate(ov.phases.items()):
        out.append(f'  subgraph phase_{i}["phase {i + 1}: {_mtext(ph)}"]')
        for nid in nodes:
            count = len(ov.rules[nid])
            cls = "check" if ov.areas[nid] == "checks" else "derive"
            out.append(f'    {_mid(nid)}["{_mtext(ov.areas[nid])}<br/>{count} rules"]:::{cls}')
        out.append("  end")
    for a, b, n in ov.edges:
        out.append(f'  {_mid(a)} -->|"{n}"| {_mid(b)}')
    out.append(f"  classDef derive fill:{_KIND_COLOUR['derive']},stroke:#666")
    out.append(f"  classDef check fill:{_KIND_COLOUR['check']},stroke:#666")
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


# --------------------------------------------------------------------------- a field's neighbourhood, as SVG

_FIELD_STYLE = {
    # state → (fill, stroke, stroke width, dash, text colour)
    "set": ("#f9cb9c", "#cc0000", 2.0, "", "#000000"),
    "fired": ("#cfe2f3", "#3d6fa8", 1.0, "", "#000000"),
    "idle": ("#f3f3f3", "#aaaaaa", 1.0, "3,2", "#777777"),
}
_FIELD_MAX = 12
"""Rules drawn per side; the rest are counted in a last box."""


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def field_svg(path: str, value: str, writers: list[tuple[str, str, str]], readers: list[tuple[str, str, str]],
              *, uid: str = "f") -> str:
    """A small self-contained SVG: the rules that write ``path`` (left), the field, the rules that read it (right).

    Each rule is ``(id, title, state)`` with state ``set`` (its value is the final one),
    ``fired`` (it fired in this resolution) or ``idle``; the title is the box's tooltip.
    Drawn without Graphviz (a fixed two-column layout), so it works everywhere; ``uid``
    keeps the arrow marker's id unique when several pictures share a page.
    """
    box_w, box_h, gap, col_l, col_r, mid_w = 270, 22, 8, 8, 570, 270
    width = col_r + box_w + 8

    def clip(side: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
        order = {"set": 0, "fired": 1, "idle": 2}
        ranked = sorted(side, key=lambda r: (order.get(r[2], 3), r[0]))
        if len(ranked) <= _FIELD_MAX:
            return ranked
        rest = len(ranked) - (_FIELD_MAX - 1)
        return [*ranked[: _FIELD_MAX - 1], (f"+{rest} more (postinit graph --around)", "", "more")]

    left, right = clip(writers), clip(readers)
    rows = max(len(left), len(right), 1)
    body = max(rows * (box_h + gap) - gap, 48)
    height = 26 + body + 6
    mid_y = 26 + body / 2
    mid_x = (col_l + box_w + col_r) / 2
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height:.0f}" '
        f'viewBox="0 0 {width} {height:.0f}" font-family="Helvetica,Arial,sans-serif" font-size="11" '
        f'role="img" aria-label="{_esc(f"rules around {path}")}">',
        f'<defs><marker id="arrow-{uid}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" '
        'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#555555"/></marker></defs>',
        f'<text x="{col_l}" y="14" fill="#555555">writes it ({len(writers)})</text>',
        f'<text x="{col_r}" y="14" fill="#555555">reads it ({len(readers)})</text>',
    ]

    def box(x: float, y: float, rule: tuple[str, str, str]) -> str:
        rid, title, state = rule
        fill, stroke, sw, dash, ink = _FIELD_STYLE.get(state, ("#ffffff", "#ffffff", 0.0, "", "#555555"))
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        label = rid if len(rid) <= 44 else rid[:43] + "…"
        tip = f"<title>{_esc(rid + (': ' + title if title else ''))}</title>"
        return (f'<g>{tip}<rect x="{x}" y="{y:.0f}" width="{box_w}" height="{box_h}" rx="4" fill="{fill}" '
                f'stroke="{stroke}" stroke-width="{sw}"{dash_attr}/>'
                f'<text x="{x + 6}" y="{y + 15:.0f}" fill="{ink}">{_esc(label)}</text></g>')

    for i, rule in enumerate(left):
        y = 26 + i * (box_h + gap)
        out.append(box(col_l, y, rule))
        if rule[2] != "more":
            out.append(f'<path d="M{col_l + box_w},{y + box_h / 2:.0f} C{mid_x - 60:.0f},{y + box_h / 2:.0f} '
                       f'{mid_x - 140:.0f},{mid_y:.0f} {mid_x - mid_w / 2:.0f},{mid_y:.0f}" fill="none" '
                       f'stroke="{"#cc0000" if rule[2] == "set" else "#999999"}" marker-end="url(#arrow-{uid})"/>')
    for i, rule in enumerate(right):
        y = 26 + i * (box_h + gap)
        out.append(box(col_r, y, rule))
        if rule[2] != "more":
            out.append(f'<path d="M{mid_x + mid_w / 2:.0f},{mid_y:.0f} C{mid_x + 140:.0f},{mid_y:.0f} '
                       f'{mid_x + 60:.0f},{y + box_h / 2:.0f} {col_r},{y + box_h / 2:.0f}" fill="none" '
                       f'stroke="#999999" marker-end="url(#arrow-{uid})"/>')
    name = path if len(path) <= 44 else "…" + path[-43:]
    shown = value if len(value) <= 40 else value[:39] + "…"
    out.append(f'<g><title>{_esc(path)} = {_esc(value)}</title>'
               f'<ellipse cx="{mid_x:.0f}" cy="{mid_y:.0f}" rx="{mid_w / 2:.0f}" ry="22" fill="#fff2cc" '
               f'stroke="#b45f06"/>'
               f'<text x="{mid_x:.0f}" y="{mid_y - 3:.0f}" text-anchor="middle">{_esc(name)}</text>'
               f'<text x="{mid_x:.0f}" y="{mid_y + 11:.0f}" text-anchor="middle" font-weight="bold">'
               f'{_esc(shown)}</text></g>')
    out.append("</svg>")
    return "".join(out)
