"""Renderers for resolutions and explanations: text (rich), JSON, YAML and Markdown.

JSON and YAML print the objects' ``to_dict()`` (schemas in docs/trace-format.md);
text is for a terminal; Markdown is for pasting into a GitHub issue. Nothing
here computes anything: it only shows what :mod:`postinit` returned.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from postinit.engine import Fired, jsonable
from postinit.engine._show import brief, brief_at, origin, show

if TYPE_CHECKING:
    from collections.abc import Iterator

    from rich.console import Console, ConsoleOptions, RenderableType

    from postinit._api import Resolution
    from postinit.audit import CheckReport, ConfigDiff, WhatIf
    from postinit.engine import Change, WhyNode, WhyNot
# rich and yaml are imported where they are used: JSON output needs neither (start-up time)

__all__ = [
    "dump_json",
    "dump_yaml",
    "md_check",
    "md_diff",
    "md_resolution",
    "md_table",
    "md_why",
    "md_why_not",
    "show",
    "text_check",
    "text_diff",
    "text_resolution",
    "text_stopped",
    "text_table",
    "text_what_if",
    "text_why",
    "text_why_not",
]


def dump_json(data: Any) -> str:
    """Stable JSON: keys in the objects' own order, two-space indent, UTF-8 text."""
    return json.dumps(jsonable(data), indent=2, ensure_ascii=False) + "\n"


def dump_yaml(data: Any) -> str:
    import yaml

    return str(yaml.safe_dump(jsonable(data), sort_keys=False, allow_unicode=True, width=100))


def escape(markup: str) -> str:
    """:func:`rich.markup.escape`, importing rich on first use."""
    from rich.markup import escape as rich_escape

    return rich_escape(markup)


def _reason(r: Resolution, path: str) -> tuple[str, str, str]:
    """(rule id, phase, one-line reason) of the rule that set ``path`` last.

    The reason is the rule's ``reason`` (why vLLM decides so); the message it
    logged when there is no docstring.
    """
    prov = r.provenance(path)
    rid = prov.rule or "?"
    book = r.engine.rulebook
    phase = book.rules[rid].phase if rid in book.rules else "?"
    reason = book.rules[rid].reason if rid in book.rules else ""
    if prov.event is not None and (not reason or reason == book.rules[rid].title):
        ev = r.trace.events[prov.event]
        if isinstance(ev, Fired) and ev.message:
            reason = ev.message
    return rid, phase, reason


def _headline(r: Resolution) -> str:
    model = r.state.get("model_config.model")
    inp = r.inputs
    bits = [f"platform {str(inp.get('platform', '?')).removeprefix('platform ')}"]
    if inp.get("usage"):
        bits.append(f"usage {inp['usage']}")
    else:
        bits.append("config mode")
    if inp.get("semantics") and inp["semantics"] != "vllm":
        bits.append(f"semantics {inp['semantics']}")
    if r.rules:
        bits.append(f"site rules {', '.join(r.rules.sources)}")
    exact = "" if r.hash_exact else " (postinit's, not vLLM's)"
    return f"{model or '(no model)'} · {' · '.join(bits)} · hash {r.hash}{exact}"


def site_mark(r: Resolution, rule_id: str) -> str:
    """`` [site rule of policies.py]`` after a site rule's id (empty for vLLM's rules)."""
    rule = r.engine.rulebook.rules.get(rule_id)
    return f" [site rule of {rule.owner}]" if rule is not None and rule.owner else ""


def hash_note(r: Resolution) -> str | None:
    """What the hash is, when it is not simply vLLM's: why it is postinit's stand-in (and what to install),
    and, when site rules took part, that it hashes the resolved values but not the rules (None otherwise)."""
    parts = []
    if r.hash_reason is not None:
        parts.append(f"not vLLM's compute_hash() — {r.hash_reason}")
    if r.rules:
        parts.append("vLLM's VllmConfig.compute_hash() of the resolved values (the site rules' changes included "
                     "as values); the site rules themselves are not part of it")
    return "hash: " + "; ".join(parts) if parts else None


# --------------------------------------------------------------------------- resolve


def _by_phase(r: Resolution) -> dict[str, list[tuple[Change, str, str]]]:
    book = r.engine.rulebook
    groups: dict[str, list[tuple[Change, str, str]]] = {ph: [] for ph in book.phases}
    for c in r.changes:
        rid, phase, msg = _reason(r, c.path)
        groups.setdefault(phase, []).append((c, rid, msg))
    return {ph: items for ph, items in groups.items() if items}


def _warnings(r: Resolution) -> list[Fired]:
    return [e for e in r.trace.fired if e.message and e.level in ("warning", "error")]


def _notes(r: Resolution) -> list[Fired]:
    return [e for e in r.trace.fired if e.message and e.level == "info" and not e.changes]


def text_resolution(console: Console, r: Resolution, *, full: bool = False) -> None:
    """What changed from the input (grouped by phase, with rule and reason), warnings, stale reads, violations."""
    console.print(resolution_renderable(r, full=full))


#: The settings an operator reads first: a change of one of them is shown on the one-screen answer.
KEY_FIELDS = (
    "model_config.max_model_len", "model_config.dtype", "model_config.enforce_eager",
    "compilation_config.level", "compilation_config.mode", "compilation_config.cudagraph_mode",
    "compilation_config.max_cudagraph_capture_size", "scheduler_config.enable_chunked_prefill",
    "scheduler_config.max_num_batched_tokens", "scheduler_config.max_num_seqs",
    "scheduler_config.disable_hybrid_kv_cache_manager", "cache_config.enable_prefix_caching",
    "cache_config.cache_dtype", "attention_config.backend", "speculative_config.method",
    "speculative_config.num_speculative_tokens", "parallel_config.all2all_backend",
    "parallel_config.enable_dbo", "parallel_config.distributed_executor_backend",
)
#: The most rows, warnings and notes the one-screen answer lists before saying how many more there are.
SCREEN_ROWS, SCREEN_ITEMS = 14, 5


def _head(r: Resolution) -> list[RenderableType]:
    """The headline, the hash note and what vLLM would refuse (it comes first: it is the answer)."""
    from rich.rule import Rule

    status = "[green]resolved[/]" if r.ok else "[bold red]invalid[/]"
    out: list[RenderableType] = [f"[bold]{escape(_headline(r))}[/] — {status}"]
    note = hash_note(r)
    if note is not None:
        out.append(f"[dim]{escape(note)}[/]")
    if r.violations:
        out.append("")
        who = "your site's rules refuse" if site_mark(r, r.violations[0].rule) else "vLLM would refuse"
        out.append(Rule(f"[bold red]violations — {who} this config[/]", align="left", style="dim"))
        for v in r.violations:
            out.append(f"[red]✗[/] [magenta]{escape(v.rule)}[/]{escape(site_mark(r, v.rule))} ({escape(v.error)}): "
                       f"{escape(v.message)}")
            if v.hint:
                out.append(f"  [dim]hint:[/] {escape(v.hint)}")
    return out


def _is_quirk(e: Fired) -> bool:
    return e.rule.startswith("quirk.")


def _screen(r: Resolution) -> RenderableType:
    """The one-screen answer: what changed a value you set, the key settings vLLM decided, violations,
    warnings and notes about your input — each list cut with a count of the rest (``--full`` shows all)."""
    from rich.console import Group
    from rich.rule import Rule

    out = _head(r)
    changes = [item for items in _by_phase(r).values() for item in items]
    yours = [x for x in changes if x[0].overrides_user or site_mark(r, x[1])]
    key = [x for x in changes if x not in yours and x[0].path in KEY_FIELDS]
    key.sort(key=lambda x: KEY_FIELDS.index(x[0].path))
    shown = (yours + key)[:SCREEN_ROWS]
    out.append("")
    if not changes:
        out.append("No rule changed anything: the config is exactly your input plus defaults.")
    else:
        whose = [w for w, hit in (("values you set", any(x[0].overrides_user for x in yours)),
                                  ("values your site's rules decided", any(site_mark(r, x[1]) for x in yours))) if hit]
        what = ", ".join([*whose, "key settings"]) if whose else "key settings"
        out.append(f"{len(changes)} value(s) changed from your input by {len(r.trace.rules_fired())} rule "
                   f"firing(s); {what}:" if shown else
                   f"{len(changes)} value(s) changed from your input by {len(r.trace.rules_fired())} rule "
                   "firing(s), none of them a value you set or a key setting.")
    if shown:
        out.append(_ScreenTable(r, shown))
    said, infos = _warnings(r), _notes(r)
    warnings = [e for e in said if not _is_quirk(e)]
    quirks = [e for e in said + infos if _is_quirk(e)]
    if warnings:
        out.append("")
        out.append(Rule(f"[bold yellow]warnings ({len(warnings)})[/]", align="left", style="dim"))
        for e in warnings[:SCREEN_ITEMS]:
            out.append(f"[yellow]•[/] [magenta]{escape(e.rule)}[/]{escape(site_mark(r, e.rule))}: "
                       f"{escape(_first_line(e.message))}")
    if r.notes:
        out.append("")
        out.append(Rule("[bold]about your input[/]", align="left", style="dim"))
        for n in r.notes[:SCREEN_ITEMS]:
            out.append(f"• [dim]{escape(n.kind)}[/] {escape(n.subject)}: {escape(_first_line(n.message))}")
    rest = [f"{n} {what}" for n, what in (
        (len(changes) - len(shown), "more change(s) with their rules and reasons"),
        (max(0, len(warnings) - SCREEN_ITEMS), "more warning(s)"),
        (max(0, len(r.notes) - SCREEN_ITEMS), "more note(s) about your input"),
        (len(infos) - len([e for e in infos if _is_quirk(e)]), "info record(s) vLLM logs"),
        (len(quirks), f"quirk(s) of vLLM's code ({', '.join(sorted({e.rule for e in quirks}))})"),
        (len(r.stale_reads), "stale read(s) vLLM's statement order leaves"),
    ) if n]
    out.append("")
    if rest:
        out.append(f"[dim]--full shows {'; '.join(escape(x) for x in rest)}, and the whole resolved config. "
                   "postinit why PATH explains one value.[/]")
    else:
        out.append("[dim]--full also prints the whole resolved config; postinit why PATH explains one value.[/]")
    return Group(*out)


class _ScreenTable:
    """One line per change: the field in full, the values and the rule cut to the console's width (decided when
    rich renders it, so a narrow terminal gets narrower cells, never a collapsed column)."""

    def __init__(self, r: Resolution, shown: list[tuple[Change, str, str]]) -> None:
        self.r, self.shown = r, shown

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[RenderableType]:
        from rich.table import Table
        from rich.text import Text

        r, shown = self.r, self.shown
        width = max(len(c.path) for c, _, _ in shown)
        values = [Text.assemble(brief_at(c.path, c.old), " → ", (brief_at(c.path, c.new), "bold"))
                  for c, _, _ in shown]
        rules = [Text.assemble((rid, "magenta"), site_mark(r, rid)) for _, rid, _ in shown]
        avail = options.max_width - width - 4  # two gaps of two columns
        vwidth = max(12, min(44, max(v.cell_len for v in values), avail - min(24, max(w.cell_len for w in rules))))
        rest = max(12, avail - vwidth)
        table = Table(show_header=True, header_style="dim", box=None, pad_edge=False, expand=False)
        table.add_column("field", style="cyan", no_wrap=True, min_width=width)
        table.add_column("input → resolved", no_wrap=True, min_width=vwidth, max_width=vwidth)
        table.add_column("rule", no_wrap=True)
        for (c, _rid, _msg), value, who in zip(shown, values, rules, strict=True):
            value.truncate(vwidth, overflow="ellipsis")
            who.truncate(rest, overflow="ellipsis")
            if c.overrides_user:
                note = Text(f"! overrides {_overridden(r, c)}", "bold red")
                note.truncate(rest, overflow="ellipsis")
                who.append("\n").append_text(note)
            table.add_row(c.path, value, who)
        yield table


def _overridden(r: Resolution, c: Change) -> str:
    """Where the value a rule overrode came from, in the user's words (``your --max-num-seqs 128``)."""
    detail = r.engine.initial_provenance.get(c.path)
    return origin(detail) if detail else "your value"


def _first_line(text: str, limit: int = 300) -> str:
    return _cut(text.strip().splitlines()[0] if text.strip() else "", limit)


def resolution_renderable(r: Resolution, *, full: bool = False) -> RenderableType:
    """:func:`text_resolution`'s content as one renderable (``Resolution.__rich__``): the one-screen
    answer, or with ``full`` every change with its rule and reason, every record and the whole config."""
    from rich.console import Group
    from rich.rule import Rule
    from rich.table import Table

    if not full:
        return _screen(r)
    out = _head(r)
    groups = _by_phase(r)
    n_changes = sum(len(v) for v in groups.values())
    if r.violations:
        out.append("")
    if not groups:
        out.append("No rule changed anything: the config is exactly your input plus defaults.")
    else:
        out.append(f"{n_changes} value(s) changed from your input by {len(r.trace.rules_fired())} rule firing(s):")
    for phase, items in groups.items():
        out.append("")
        out.append(Rule(f"[bold]{phase}[/]", align="left", style="dim"))
        table = Table(show_header=True, header_style="dim", box=None, pad_edge=False, expand=False)
        table.add_column("field", style="cyan", no_wrap=True)
        table.add_column("input → resolved", overflow="fold", max_width=40)
        table.add_column("rule · reason", overflow="fold", ratio=1)
        last = ""
        for c, rid, msg in items:
            values = f"{escape(brief_at(c.path, c.old))} → [bold]{escape(brief_at(c.path, c.new))}[/]"
            why = f"[magenta]{escape(rid)}[/]{escape(site_mark(r, rid))}"
            if msg and rid != last:
                why += f" [dim]{escape(msg)}[/]"
            last = rid
            if c.overrides_user:
                why += f"\n[bold red]! overrides {escape(_overridden(r, c))}[/]"
            table.add_row(escape(c.path), values, why)
        out.append(table)
    warnings = _warnings(r)
    if warnings:
        out.append("")
        out.append(Rule("[bold yellow]warnings[/]", align="left", style="dim"))
        for e in warnings:
            out.append(f"[yellow]•[/] [magenta]{escape(e.rule)}[/]{escape(site_mark(r, e.rule))}: "
                       f"{escape(e.message)}")
    notes = _notes(r)
    if notes:
        out.append("")
        out.append(Rule("[bold]notes[/]", align="left", style="dim"))
        for e in notes:
            out.append(f"• [magenta]{escape(e.rule)}[/]{escape(site_mark(r, e.rule))}: {escape(e.message)}")
    if r.notes:
        out.append("")
        out.append(Rule("[bold]about your input[/]", align="left", style="dim"))
        for n in r.notes:
            out.append(f"• [dim]{escape(n.kind)}[/] {escape(n.subject)}: {escape(n.message)}")
    if r.stale_reads:
        out.append("")
        out.append(Rule("[bold yellow]stale reads (vLLM's statement order leaves these inconsistent)[/]",
                        align="left", style="dim"))
        for s in r.stale_reads:
            out.append(f"[yellow]•[/] {escape(s.message)}")
    out.append("")
    out.append(Rule("[bold]resolved config[/]", align="left", style="dim"))
    out.append(escape(dump_yaml(r.to_dict()["config"]).rstrip("\n")))
    return Group(*out)


def md_resolution(r: Resolution, *, full: bool = False) -> str:
    """The resolve report as GitHub-flavoured Markdown."""
    out = [f"### postinit: {'resolved' if r.ok else 'invalid'} — `{_headline(r)}`", ""]
    groups = _by_phase(r)
    if not groups:
        out += ["No rule changed anything.", ""]
    for phase, items in groups.items():
        out += [f"**{phase}**", "", "| field | input | resolved | rule | reason |", "|---|---|---|---|---|"]
        for c, rid, msg in items:
            mark = " ⚠ overrides user value" if c.overrides_user else ""
            out.append(f"| `{c.path}` | `{_md(brief(c.old))}` | `{_md(brief(c.new))}` | `{rid}` | {_md(msg)}{mark} |")
        out.append("")
    if _warnings(r):
        out += ["**Warnings**", ""] + [f"- `{e.rule}`: {_md(e.message)}" for e in _warnings(r)] + [""]
    if r.stale_reads:
        out += ["**Stale reads**", ""] + [f"- {_md(s.message)}" for s in r.stale_reads] + [""]
    if r.violations:
        out += ["**Violations**", ""]
        out += [f"- `{v.rule}` ({v.error}): {_md(v.message)}" + (f" — hint: {_md(v.hint)}" if v.hint else "")
                for v in r.violations]
        out.append("")
    if full:
        out += ["<details><summary>resolved config</summary>", "", "```yaml",
                dump_yaml(r.to_dict()["config"]).rstrip(), "```", "</details>", ""]
    return "\n".join(out)


def _md(text: str | None) -> str:
    return (text or "").replace("|", "\\|").replace("\n", " ")


# --------------------------------------------------------------------------- why / why-not


def text_why(console: Console, node: WhyNode) -> None:
    """The causal tree (``str(node)`` is the same text without colour)."""
    console.print(node)


def text_stopped(console: Console, r: Resolution) -> None:
    """Say that resolution stopped at a violation, so values after it were never decided."""
    for v in r.violations:
        console.print(f"[bold red]resolution stopped:[/] [magenta]{escape(v.rule)}[/] ({escape(v.error)}): "
                      f"{escape(v.message)}")
        if v.hint:
            console.print(f"  [dim]hint:[/] {escape(v.hint)}")


def md_why(node: WhyNode) -> str:
    """The causal tree as a nested Markdown list (folded defaults on one line, repeats referenced)."""
    head = f" — {_md(node.title)}" if node.title else ""
    lines = [f"### why `{node.path}` = `{_md(show(node.value))}`{head}", ""]

    def walk(n: WhyNode, depth: int) -> None:
        src = origin(n.provenance)
        more = " (shown above)" if n.ref else (f": {_md(n.title)}" if n.title else "")
        if n.truncated:
            more += " (…)"
        lines.append(f"{'  ' * depth}- `{n.path}` = `{_md(brief(n.value))}` ← {src}{more}")
        for c in n.children:
            walk(c, depth + 1)
        if n.defaults:
            folded = ", ".join(f"`{d.path}={_md(brief(d.value))}`" for d in n.defaults)
            lines.append(f"{'  ' * (depth + 1)}- also read: {folded}")

    walk(node, 0)
    if node.message and node.message != node.title:
        lines += ["", f"> {_md(node.message)}"]
    for note in node.notes:
        lines.append(f"- **{note.rule}** (about `{note.path}`): {_md(note.message)}")
    return "\n".join(lines) + "\n"


def text_why_not(console: Console, w: WhyNot) -> None:
    """Each rule that may write the path and what stopped it (``str(w)`` is the same text without colour)."""
    console.print(w)


def md_why_not(w: WhyNot) -> str:
    head = (f"`{w.path}` is `{show(w.value)}`" if w.holds
            else f"`{w.path}` is `{show(w.final)}`, not `{show(w.value)}`")
    out = [f"### why not: {head}", "", "| rule | phase | status | what happened |", "|---|---|---|---|"]
    out += [f"| `{c.rule}` | {c.phase} | {c.status} | {_md(c.detail)} |" for c in w.candidates]
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------- what-if / diff


def text_diff(console: Console, d: ConfigDiff) -> None:
    """Both sides, then every field that differs with the rule that set b's value (``str(d)`` without colour)."""
    console.print(diff_renderable(d))


def diff_renderable(d: ConfigDiff) -> RenderableType:
    from rich.console import Group
    from rich.table import Table

    out: list[RenderableType] = [
        f"[bold]a[/] = {escape(d.a_label)}  [dim]({'ok' if d.a_ok else 'invalid'}, hash {d.a_hash}"
        f"{'' if d.sides[0].hash_exact else ': postinit' + chr(39) + 's, not vLLM' + chr(39) + 's'})[/]",
        f"[bold]b[/] = {escape(d.b_label)}  [dim]({'ok' if d.b_ok else 'invalid'}, hash {d.b_hash}"
        f"{'' if d.sides[1].hash_exact else ': postinit' + chr(39) + 's, not vLLM' + chr(39) + 's'})[/]",
    ]
    if d.same:
        out.append("No difference in the resolved configs.")
    if d.fields:
        table = Table(box=None, header_style="dim")
        table.add_column("field", style="cyan", no_wrap=True)
        table.add_column("a", overflow="fold")
        table.add_column("b", overflow="fold")
        table.add_column("b set by", style="magenta", overflow="fold")
        side_b = d.sides[1]
        for f in d.fields:
            mark = site_mark(side_b, f.b_provenance.rule) if f.b_provenance.rule else ""
            table.add_row(escape(f.path), escape(brief(f.a)), f"[bold]{escape(brief(f.b))}[/]",
                          escape(origin(f.b_provenance) + mark))
        out.append(table)
    if d.started:
        out.append("[green]rules firing only in b:[/] " + escape(", ".join(
            rid + site_mark(d.sides[1], rid) for rid in d.started)))
    if d.stopped:
        out.append("[yellow]rules firing only in a:[/] " + escape(", ".join(
            rid + site_mark(d.sides[0], rid) for rid in d.stopped)))
    for label, vs in (("a", d.a_violations), ("b", d.b_violations)):
        for v in vs:
            out.append(f"[red]✗ {label}:[/] {escape(v)}")
    return Group(*out)


def text_what_if(console: Console, w: WhatIf) -> None:
    console.print(what_if_renderable(w))


def what_if_renderable(w: WhatIf) -> RenderableType:
    from rich.console import Group

    head = "[bold]what if[/] " + escape(", ".join(f"{k}={show(v)}" for k, v in w.set.items()))
    return Group(head, diff_renderable(w.diff))


def md_diff(d: ConfigDiff) -> str:
    out = [f"### diff: a = {d.a_label} / b = {d.b_label}", "",
           "| field | a | b | b set by |", "|---|---|---|---|"]
    out += [f"| `{f.path}` | `{_md(brief(f.a))}` | `{_md(brief(f.b))}` | {origin(f.b_provenance)} |" for f in d.fields]
    out.append("")
    if d.started:
        out.append("Rules firing only in b: " + ", ".join(f"`{r}`" for r in d.started))
    if d.stopped:
        out.append("Rules firing only in a: " + ", ".join(f"`{r}`" for r in d.stopped))
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------- tables


def text_table(console: Console, rows: Sequence[Mapping[str, Any]], columns: Sequence[str], *,
               title: str | None = None, wrap: Iterable[str] = (), whole: Iterable[str] = (),
               one_line: bool = False) -> None:
    """A plain rich table of ``rows`` (lists are shown one item per line).

    Columns in ``whole`` are never wrapped or cut (ids: a wrapped id reads as another id);
    the other columns give way. With ``one_line`` each row is one line: lists are joined with
    commas, other columns are cut at 28 characters and the last one at the console's width.
    """
    from rich import box
    from rich.table import Table

    keep = set(whole)
    cells = [[_cell(row.get(c), one_line) for c in columns] for row in rows]
    if one_line:
        widths = [max([len(c), *(len(r[k]) for r in cells)]) for k, c in enumerate(columns)]
        widths[:-1] = [w if c in keep else min(28, w) for c, w in zip(columns, widths[:-1], strict=False)]
        widths[-1] = max(12, min(widths[-1], console.width - sum(widths[:-1]) - 3 * len(columns) - 2))
        cells = [[_cut(text, w) for text, w in zip(r, widths, strict=True)] for r in cells]
    table = Table(title=title, title_justify="left", header_style="bold", show_lines=bool(wrap) and not one_line,
                  box=box.SIMPLE_HEAD if one_line else box.HEAVY_HEAD, pad_edge=not one_line)
    for k, c in enumerate(columns):
        if c in keep:
            width = max([len(c), *(len(r[k]) for r in cells)])
            table.add_column(c, no_wrap=True, min_width=width)
        else:
            table.add_column(c, no_wrap=one_line, overflow="ellipsis" if one_line else "fold")
    for r in cells:
        table.add_row(*(escape(text) for text in r))
    console.print(table)


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


def _cell(v: Any, one_line: bool = False) -> str:
    if isinstance(v, (list, tuple)):
        return (", " if one_line else "\n").join(show(x) for x in v)
    return "" if v is None else show(v)


def md_table(rows: Sequence[Mapping[str, Any]], columns: Sequence[str]) -> str:
    out = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for row in rows:
        cells = []
        for c in columns:
            v = row.get(c)
            cells.append("<br>".join(f"`{show(x)}`" for x in v) if isinstance(v, (list, tuple)) else _md(_cell(v)))
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def text_check(console: Console, report: CheckReport) -> None:
    style = {"error": "bold red", "warning": "yellow", "info": "dim"}
    if not report.findings:
        console.print("[green]No findings.[/]")
    for f in report.findings:
        console.print(f"[{style.get(f.level, '')}]{f.level}[/] [{escape(f.kind)}] {escape(f.message)}")
    rows = [{"phase": ph, **counts} for ph, counts in report.phases.items()]
    rows.append({"phase": "total", **{k: sum(r.get(k, 0) for r in report.phases.values())
                                      for k in ("rules", "default", "derive", "override", "check")}})
    text_table(console, rows, ["phase", "rules", "default", "derive", "override", "check"], title="rules per phase")
    verdict = "[green]rulebook compiles[/]" if report.ok else "[bold red]rulebook does not compile[/]"
    console.print(verdict)


def md_check(report: CheckReport) -> str:
    out = ["### postinit check", ""]
    out += [f"- **{f.level}** [{f.kind}] {_md(f.message)}" for f in report.findings] or ["No findings."]
    out.append("")
    rows = [{"phase": ph, **counts} for ph, counts in report.phases.items()]
    out.append(md_table(rows, ["phase", "rules", "default", "derive", "override", "check"]))
    return "\n".join(out)
