"""Explanations in words: values and origins as a user writes them, and the why/why-not trees as text.

One renderer serves every face: ``str(node)`` is the plain text the CLI prints
(``postinit why`` without a terminal), ``node.__rich__()`` is the same text with
colour for a terminal, ``node._repr_html_()`` the same for a notebook. rich is
imported on first use.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from postinit.engine._trace import Provenance, Source, jsonable

if TYPE_CHECKING:
    from rich.console import RenderableType
    from rich.text import Text

    from postinit.engine._explain import WhyNode, WhyNot

__all__ = ["brief", "clip", "html", "origin", "plain", "show", "why_not_renderable", "why_renderable"]

WIDTH = 120
"""The width of plain text (``str()``): the CLI's width when stdout is not a terminal."""


def show(value: Any) -> str:
    """A value as a user writes it: enum names, JSON for lists/dicts, ``None``."""
    v = jsonable(value)
    if v is None:
        return "None"
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        return "true" if v else "false"
    return json.dumps(v) if isinstance(v, (list, dict)) else str(v)


def brief(value: Any, limit: int = 10) -> str:
    """Like :func:`show`, but a long list is shortened to its first and last items and its length."""
    v = jsonable(value)
    if isinstance(v, list) and len(v) > limit:
        head = ", ".join(json.dumps(x) for x in v[:6])
        tail = ", ".join(json.dumps(x) for x in v[-2:])
        return f"[{head}, …, {tail}] ({len(v)} items)"
    if v == "":
        return '""'
    return show(value)


def brief_at(path: str, value: Any) -> str:
    """:func:`brief` of the value at ``path``; a top-level boolean is a section's presence (an optional
    sub-graph, e.g. a sub-config that is built or not) and reads ``set`` / ``unset``."""
    if "." not in path and (value is None or isinstance(value, bool)):
        return "set" if value else "unset"
    return brief(value)


def origin(p: Provenance) -> str:
    """Where a value came from, in words: ``your --max-model-len``, ``rule x``, ``config.json:...``."""
    if p.source is Source.RULE:
        return f"rule {p.rule}"
    if p.source is Source.USER:
        return f"your {p.detail}" if p.detail and p.detail != "config" else "your config"
    if p.source is Source.DEFAULT:
        return "default"
    return p.detail or str(p.source)


# --------------------------------------------------------------------------- text plumbing


def plain(renderable: RenderableType, width: int = WIDTH) -> str:
    """A rich renderable as plain text (no colour, no trailing spaces), ``width`` columns wide."""
    import io

    from rich.console import Console

    buf = io.StringIO()
    Console(file=buf, width=width, color_system=None, force_terminal=False, highlight=False,
            soft_wrap=False).print(renderable)
    return "\n".join(line.rstrip() for line in buf.getvalue().splitlines())


def html(renderable: RenderableType, width: int = WIDTH) -> str:
    """A rich renderable as an HTML ``<pre>`` with inline colours (a notebook's ``_repr_html_``)."""
    import io

    from rich.console import Console

    console = Console(file=io.StringIO(), record=True, width=width, force_terminal=True,
                      color_system="truecolor", highlight=False)
    console.print(renderable)
    return console.export_html(
        inline_styles=True,
        code_format='<pre style="font-family:Menlo,Consolas,monospace;font-size:12px;line-height:1.35;'
                    'white-space:pre-wrap">{code}</pre>',
    )


def _text(*parts: tuple[str, str] | str) -> Text:
    from rich.text import Text

    out = Text()
    for part in parts:
        if isinstance(part, str):
            out.append(part)
        else:
            out.append(part[0], style=part[1])
    return out


def _source_style(p: Provenance) -> str:
    return {Source.RULE: "magenta", Source.USER: "green", Source.DEFAULT: "dim"}.get(p.source, "blue")


# --------------------------------------------------------------------------- why


def _decision(n: WhyNode) -> str:
    """The decision in words: the rule's title (its message when the rule has no title)."""
    return n.title or (n.message or "").split(". ")[0]


def _was(n: WhyNode) -> str:
    return "; ".join(f"{brief(s.value)} ({origin(s.provenance)})" for s in n.history)


def _phase(phase: str | None, owner: str | None) -> str:
    """`` (core)``, or `` (site · site rule of policies.py)`` for a rule the site added."""
    if owner:
        return f" ({phase} · site rule of {owner})" if phase not in (None, "site") else f" (site rule of {owner})"
    return f" ({phase})" if phase else ""


def _root_label(n: WhyNode, verbose: bool) -> RenderableType:
    from rich.console import Group
    from rich.padding import Padding

    p = n.provenance
    if p.source is not Source.RULE:
        return _text((n.path, "bold cyan"), " = ", (brief_at(n.path, n.value), "bold"), "  ← ",
                     (origin(p), _source_style(p)))
    first = _text((n.path, "bold cyan"), " = ", (brief_at(n.path, n.value), "bold"), " — ", (_decision(n), "bold"))
    second = _text((f"rule {p.rule}", "magenta"), (_phase(n.phase, n.owner), "dim"))
    if n.history:
        second.append(f" · was {_was(n)}", style="dim")
    lines: list[RenderableType] = [first, Padding(second, (0, 0, 0, 2), expand=False)]
    if n.message and n.message != n.title:
        lines.append(Padding(_text(("logs: ", "dim"), (n.message, "italic")), (0, 0, 0, 2), expand=False))
    return Group(*lines)


def _child_label(n: WhyNode, verbose: bool) -> Text:
    p = n.provenance
    label = _text((n.path, "cyan"), " = ", (brief_at(n.path, n.value), "bold"), "  ← ", (_where(p), _source_style(p)))
    if p.source is Source.RULE:
        if n.ref:
            label.append(" (shown above)", style="dim")
            return label
        if n.phase:
            label.append(_phase(n.phase, n.owner), style="dim")
        if n.title:
            label.append(f": {n.title}")
        if verbose and n.message and n.message != n.title:
            label.append_text(_text("\n", ("logs: ", "dim"), (n.message, "italic")))
        if n.history and (verbose or any(s.provenance.source is not Source.DEFAULT for s in n.history)):
            label.append(f"\nwas {_was(n)}", style="dim")
        if n.truncated:
            label.append("  (… deeper with a larger --depth)", style="dim")
    return label


def _folded(nodes: Iterable[WhyNode]) -> Text | None:
    """One line for the defaults a rule consulted (a sub-config's presence, implied by a value shown, is left out)."""
    defaults = [f"{n.path}={brief(n.value)}" for n in nodes if n.provenance.source is Source.DEFAULT]
    if not defaults:
        return None
    return _text(("also read (defaults): " + ", ".join(defaults), "dim"))


def _where(p: Provenance, *, which: bool = False) -> str:
    """:func:`origin`, with a catalog model's config.json named briefly (``config.json``; ``which`` adds the model)."""
    if p.source is Source.LOADER and p.detail and p.detail.startswith("catalog/"):
        file = p.detail.split(":", 1)[0].removeprefix("catalog/").removesuffix(".json")
        return f"config.json of {file.replace('--', '/')}" if which else "config.json"
    return origin(p)


def _rests_on(node: WhyNode) -> list[str]:
    """Where the leaves' values came from, each once, in the order the tree shows them."""
    seen: dict[str, None] = {}
    for n in node.walk(folded=False):
        if n is node or n.children or n.ref or n.provenance.source in (Source.RULE, Source.DEFAULT):
            continue
        p = n.provenance
        key = _where(p, which=True)
        if p.source is Source.LOADER and p.detail and key == origin(p):
            key = p.detail.split(":", 1)[0]
        seen.setdefault(key, None)
    return list(seen)


def why_renderable(node: WhyNode) -> RenderableType:
    """The causal tree: the decision in words, then what the rule consulted, down to your inputs."""
    from rich.console import Group
    from rich.tree import Tree

    verbose = node.verbose
    tree = Tree(_root_label(node, verbose), guide_style="dim")

    def add(parent: Tree, n: WhyNode) -> None:
        for c in n.children:
            add(parent.add(_child_label(c, verbose)), c)
        folded = _folded(n.defaults)
        if folded is not None:
            parent.add(folded)

    add(tree, node)
    parts: list[RenderableType] = [tree]
    nested = any(c.children or c.ref or c.truncated for c in node.children)
    sources = _rests_on(node)
    if nested and sources:
        parts.append(_text(("rests on: " + ", ".join(sources), "dim")))
    for note in node.notes:
        style = "yellow" if note.level == "warning" else "dim"
        parts.append(_text((f"• {note.rule}", style), f" (about {note.path}): {note.message}"))
    return Group(*parts)


# --------------------------------------------------------------------------- why-not

_STATUS_STYLE = {
    "produced": "green", "overridden": "yellow", "other-value": "blue", "not-fired": "dim", "not-reached": "red",
}


def why_not_renderable(w: WhyNot) -> RenderableType:
    """Whether the value holds and the input it started from, then each rule that may write it and what it did."""
    from rich.console import Group
    from rich.table import Table

    head = (_text((w.path, "bold cyan"), " is ", (show(w.value), "bold"), ".") if w.holds else
            _text((w.path, "bold cyan"), " is ", (show(w.final), "bold"), f", not {show(w.value)}."))
    head.append(f" Input value: {clip(show(w.input_value))} ({origin(w.input_provenance)}).")
    if not w.candidates:
        return Group(head, _text("No rule writes this field: only your input (or its default) decides it."))
    table = Table(box=None, show_header=False, pad_edge=False, padding=(0, 1, 0, 0))
    table.add_column("status", no_wrap=True)
    table.add_column("rule: what happened", overflow="fold", ratio=1)
    for c in w.candidates:
        table.add_row(_text((c.status, _STATUS_STYLE.get(c.status, ""))),
                      _text((c.rule, "magenta"), (_phase(c.phase, c.owner), "dim"), ": ", c.detail))
    return Group(head, _text(("rules that may write it, in the order they run:", "dim")), table)


def clip(text: str, limit: int = 60) -> str:
    """``text`` cut to ``limit`` characters with an ellipsis."""
    return text if len(text) <= limit else text[: limit - 1] + "…"
