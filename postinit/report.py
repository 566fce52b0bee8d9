"""An audit report of one resolution: a single self-contained HTML page to attach to a ticket.

>>> import postinit
>>> from postinit.report import html_report
>>> page = html_report(postinit.resolve(argv=["--enforce-eager"]))   # doctest: +SKIP

The page needs nothing else: no script, no font, no stylesheet or image from
anywhere (the CSS is inline, each picture an inline SVG drawn by
:func:`postinit.graphs.field_svg`), so it works offline and as an attachment.
It holds the inputs, every changed field grouped by phase with the rule, the
reason and where the input value came from, the violations with their hints,
the warnings, quirks and stale reads, the notes about the input, and for each
changed field a picture of the rules that write and read it. The same input
gives the same bytes (no timestamp).
"""

from __future__ import annotations

import json
import shlex
from html import escape
from typing import TYPE_CHECKING, Any

import postinit
from postinit.engine import Fired, Source
from postinit.engine._show import brief, origin, show
from postinit.graphs import field_svg

if TYPE_CHECKING:
    from postinit._api import Resolution

__all__ = ["html_report"]

_CSS = """
:root { --ink:#1f2328; --dim:#656d76; --line:#d0d7de; --bg:#f6f8fa; --red:#cf222e; --amber:#9a6700; --green:#1a7f37; }
* { box-sizing: border-box; }
body { font: 14px/1.45 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: var(--ink); margin: 0;
       padding: 24px 32px 64px; max-width: 1280px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 32px 0 8px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
h3 { font-size: 15px; margin: 20px 0 6px; }
code, .mono { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12.5px; }
.dim { color: var(--dim); }
.hash-inexact { color: #b35900; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px; font-weight: 600;
         color: #fff; vertical-align: middle; }
.ok { background: var(--green); } .invalid { background: var(--red); }
nav { margin: 12px 0 0; font-size: 13px; } nav a { margin-right: 14px; color: #0969da; text-decoration: none; }
table { border-collapse: collapse; width: 100%; margin: 4px 0 8px; }
th, td { text-align: left; vertical-align: top; padding: 5px 8px; border-bottom: 1px solid var(--line); }
th { background: var(--bg); font-weight: 600; font-size: 12.5px; }
table.changes { table-layout: fixed; } table.changes td { overflow-wrap: anywhere; }
tr.change td { border-bottom: none; padding-bottom: 0; } tr.pic td { padding-top: 0; }
.override { color: var(--red); font-weight: 600; }
ul.events { padding-left: 20px; } ul.events li { margin: 4px 0; }
.violation { border-left: 4px solid var(--red); background: #ffebe9; padding: 8px 12px; margin: 8px 0; }
.hint { color: var(--dim); margin-top: 4px; }
details { margin: 2px 0 4px; } summary { cursor: pointer; color: #0969da; font-size: 12.5px; }
details svg { display: block; margin: 6px 0; max-width: 100%; height: auto; }
pre { background: var(--bg); padding: 10px; overflow-x: auto; }
.empty { color: var(--dim); font-style: italic; }
"""


def _code(text: str) -> str:
    return f"<code>{escape(text)}</code>"


def _value(v: Any) -> str:
    return _code(brief(v))


def _section(anchor: str, title: str, count: int | None, body: str) -> str:
    n = f' <span class="dim">({count})</span>' if count is not None else ""
    return f'<section id="{anchor}"><h2>{escape(title)}{n}</h2>\n{body}\n</section>'


def _inputs(r: Resolution) -> str:
    req = r.request
    rows: list[tuple[str, str]] = [
        ("model", _code(str(r.inputs.get("model") or "(none)"))),
        ("platform", escape(str(r.inputs.get("platform", "?")).removeprefix("platform "))),
        ("usage", escape(str(r.inputs.get("usage") or "config mode (VllmConfig built directly)"))),
        ("semantics", escape(str(r.inputs.get("semantics", "vllm")))),
    ]
    if req is not None:
        if req.argv:
            rows.append(("vllm serve flags", _code(shlex.join(req.argv))))
        if req.env:
            rows.append(("environment", "<br>".join(_code(f"{k}={v}") for k, v in sorted(req.env.items()))))
        if req.config:
            rows.append(("config", "<details><summary>the nested config you gave</summary><pre>"
                         + escape(json.dumps(req.config, indent=2, sort_keys=True, default=str)) + "</pre></details>"))
        if req.overrides:
            rows.append(("set", "<br>".join(_code(f"{k}={show(v)}") for k, v in req.overrides.items())))
        if req.config_json is not None:
            rows.append(("config.json", "given inline (config_json)"))
    if r.rules:
        rows.append(("site rules", "<br>".join(_code(src) for src in r.rules.sources)
                     + f' <span class="dim">({len(r.rules.rules)} rules, resolved with vLLM\'s)</span>'))
    body = "".join(f"<tr><th>{escape(k)}</th><td>{v}</td></tr>" for k, v in rows)
    return f'<table class="inputs">{body}</table>'


def _site(r: Resolution, rule_id: str) -> str:
    from postinit.render import site_mark

    mark = site_mark(r, rule_id).strip()
    return f' <span class="dim">{escape(mark)}</span>' if mark else ""


def _rules_around(r: Resolution, path: str, index: int) -> str:
    book = r.engine.rulebook
    fired = set(r.trace.rules_fired())
    setter = r.provenance(path).rule
    writers = [(w.id, w.title, "set" if w.id == setter else "fired" if w.id in fired else "idle")
               for w in book.writers_of(path)]
    writer_ids = {w.id for w in book.writers_of(path)}
    readers = [(x.id, x.title, "fired" if x.id in fired else "idle")
               for x in book.readers_of(path) if x.id not in writer_ids]
    return field_svg(path, brief(r.state[path]), writers, readers, uid=f"c{index}")


def _changes(r: Resolution) -> tuple[str, int]:
    from postinit.render import _by_phase

    groups = _by_phase(r)
    parts: list[str] = []
    index = 0
    for phase, items in groups.items():
        rows = []
        for c, rid, reason in items:
            index += 1
            initial = r.engine.initial_provenance.get(c.path)
            came = origin(initial) if initial is not None else "default"
            flag = ' <span class="override">overrides your value</span>' if c.overrides_user else ""
            opened = " open" if c.overrides_user else ""
            pic = (f'<tr class="pic"><td colspan="5"><details{opened}><summary>rules that write and read '
                   f"{escape(c.path)}</summary>{_rules_around(r, c.path, index)}</details></td></tr>")
            rows.append(
                f'<tr id="change-{index}" class="change"><td>{_code(c.path)}</td>'
                f'<td class="val">{_value(c.old)} <span class="dim">({escape(came)})</span></td>'
                f'<td class="val"><b>{_value(c.new)}</b></td>'
                f"<td>{_code(rid)}{_site(r, rid)}{flag}</td><td>{escape(reason)}</td></tr>{pic}"
            )
        parts.append(f"<h3>phase {escape(phase)} <span class=\"dim\">({len(items)})</span></h3>"
                     '<table class="changes"><colgroup><col style="width:30%"><col style="width:14%">'
                     '<col style="width:14%"><col style="width:18%"><col style="width:24%"></colgroup>'
                     "<tr><th>field</th><th>input (from)</th><th>resolved</th><th>rule</th>"
                     f"<th>reason</th></tr>{''.join(rows)}</table>")
    if not parts:
        return '<p class="empty">No rule changed anything: the config is your input plus defaults.</p>', 0
    return "\n".join(parts), index


def _events(items: list[str], empty: str) -> str:
    if not items:
        return f'<p class="empty">{escape(empty)}</p>'
    return '<ul class="events">' + "".join(f"<li>{i}</li>" for i in items) + "</ul>"


def html_report(r: Resolution) -> str:
    """The audit report of ``r`` as one self-contained HTML page (no script, no external resource)."""
    status = '<span class="badge ok">resolved</span>' if r.ok else '<span class="badge invalid">invalid</span>'
    model = str(r.inputs.get("model") or "(no model)")
    platform = str(r.inputs.get("platform", "?")).removeprefix("platform ")
    changes, n_changes = _changes(r)
    violations = [
        f'<div class="violation"><b>{escape(v.rule)}</b>{_site(r, v.rule)} <span class="dim">({escape(v.error)})</span>: '
        f"{escape(v.message)}" + (f'<div class="hint">hint: {escape(v.hint)}</div>' if v.hint else "") + "</div>"
        for v in r.violations
    ]
    fired_msgs = [e for e in r.trace.fired if e.message and e.level != "debug"]
    quirks = [e for e in fired_msgs if e.rule.startswith("quirk.")]
    warnings = [e for e in fired_msgs if not e.rule.startswith("quirk.") and e.level in ("warning", "error")]
    info = [e for e in fired_msgs if not e.rule.startswith("quirk.") and e.level == "info" and not e.changes]

    def ev(e: Fired) -> str:
        return f"{_code(e.rule)}{_site(r, e.rule)}: {escape(e.message)}"

    stale = [escape(s.message) for s in r.stale_reads]
    notes = [f"{_code(n.subject)} <span class=\"dim\">({escape(n.kind)})</span>: {escape(n.message)}"
             for n in r.notes]
    sections = [
        ("inputs", "Inputs", None, _inputs(r)),
        ("violations", "Violations — " + ("your site's rules or vLLM refuse" if r.rules else "vLLM would refuse")
         + " this config", len(violations),
         "".join(violations) or '<p class="empty">None: vLLM accepts this config.</p>'),
        ("warnings", "Warnings", len(warnings), _events([ev(e) for e in warnings], "No warnings.")),
        ("quirks", "Quirks (where vLLM's own behaviour is surprising)", len(quirks),
         _events([ev(e) for e in quirks], "No quirk applies.")),
        ("stale", "Stale reads (vLLM's statement order leaves these inconsistent)", len(stale),
         _events(stale, "No stale reads: every conclusion rests on final values.")),
        ("notes", "Notes", len(info) + len(notes),
         _events([ev(e) for e in info] + notes, "No notes.")),
        ("changes", "Changed fields, by phase", n_changes, changes),
    ]
    nav = "".join(f'<a href="#{a}">{escape(t.split(" (")[0].split(" —")[0])}'
                  + (f" ({n})" if n is not None else "") + "</a>" for a, t, n, _ in sections)
    overrides = sum(1 for c in r.changes if c.old_source is Source.USER)
    summary = (f"{n_changes} value(s) changed from your input by {len(r.trace.rules_fired())} rule(s)"
               + (f", {overrides} of them overriding a value you set" if overrides else "") + ".")
    title = f"postinit report — {model} on {platform}"
    if r.hash_reason is None:
        hash_line = f"vLLM config hash <code>{escape(r.hash)}</code>"
    else:
        hash_line = (f'config hash <code>{escape(r.hash)}</code> <span class="hash-inexact">(postinit\'s, not '
                     f"vLLM's compute_hash(): {escape(r.hash_reason)})</span>")
    if r.rules:
        hash_line += " (VllmConfig.compute_hash() of the resolved values; the site rules are not part of it)"
    body = "\n".join(_section(a, t, n, b) for a, t, n, b in sections)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="postinit {escape(postinit.__version__)}">
<title>{escape(title)}</title>
<link rel="icon" href="data:,">
<style>{_CSS}</style>
</head>
<body>
<header>
<h1>{escape(model)} <span class="dim">on {escape(platform)}</span> {status}</h1>
<div class="dim">{hash_line} · {escape(summary)}
 · postinit {escape(postinit.__version__)}, vLLM rules at d7fb10c57</div>
<nav>{nav}</nav>
</header>
<main>
{body}
</main>
</body>
</html>
"""
