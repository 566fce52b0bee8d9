"""Generate ``docs/versions.md``: every modelled vLLM version and what its delta changes, from the deltas.

``python -m postinit.rules._versions_docs > docs/versions.md``; a test fails when the
file is stale. Everything here is read from :mod:`postinit.rules.versions`, the delta
modules and the compiled rulebooks: the page cannot say what the code does not do.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from postinit.engine import Rule, Rulebook, rule_of
from postinit.rules import paths, versions
from postinit.schema.env import DATA

__all__ = ["render"]


def _change(name: str, old: Any, new: Any) -> str:
    """A patched parameter's change in one cell: both values, or for sets of names what was added and removed
    (sorted: a set's own order follows the hash seed)."""
    if isinstance(old, (set, frozenset)) and isinstance(new, (set, frozenset)):
        def names(xs: Any) -> str:
            shown = sorted(map(str, xs))
            return ", ".join(shown[:12]) + (f", … ({len(shown) - 12} more)" if len(shown) > 12 else "")
        return (f"{name}: {len(old)} → {len(new)} values (added: {names(new - old) or 'none'}; removed: "
                f"{names(old - new) or 'none'})")
    return f"{name}: `{old!r}` → `{new!r}`"


def _esc(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _src(r: Rule) -> str:
    return _esc(r.source.split(";")[0].strip())


def _env_names(table: str) -> set[str]:
    data = json.loads((DATA / f"envs-{table}.json").read_text(encoding="utf-8"))
    return {row["name"] for row in data["variables"]}


def _codes(items: list[str] | tuple[str, ...] | set[str]) -> str:
    return ", ".join(f"`{i}`" for i in sorted(items)) if items else "—"


def _modules(v: versions.Version) -> str:
    """The files declaring the version's delta: its module and its parts."""
    return " and ".join(f"`{m.replace('.', '/')}.py`" for m in (v.delta_module or "", *v.delta_parts))


def _version(v: versions.Version) -> list[str]:
    if v.parent is None:
        return []
    name = v.name
    d = v.delta
    parent: Rulebook = v.parent.rulebook
    book: Rulebook = v.rulebook
    out = [
        f"## vLLM {name}", "",
        f"{v.title}. Parent: `{v.parent.name}`. Checked against {v.oracle}.", "",
        f"Declared in {_modules(v)}: {len(d.patch)} rules patched, "
        f"{len(d.add)} added, {len(d.replace)} replaced, "
        f"{len(d.drop)} dropped ({len(parent)} → {len(book)} rules); {len(d.fields_added)} schema fields added, "
        f"{len(d.fields_removed)} removed.", "",
    ]
    changed_facts = {k: val for k, val in v.facts.model_dump().items()
                     if k != "name" and getattr(v.parent.facts, k) != val}
    if changed_facts:
        out += ["Version facts (`version.*`, read by the rules):", ""]
        out += [f"- `version.{k}`: `{json.dumps(getattr(v.parent.facts, k))}` → `{json.dumps(val)}`"
                for k, val in changed_facts.items()] + [""]
    if d.notes:
        out += ["Not rules of their own:", ""] + [f"- {n}" for n in d.notes] + [""]

    replaced = sorted((r for r in map(rule_of, d.replace) if r is not None), key=lambda r: (r.phase, r.id))
    out += [f"### Decisions that differ ({len(replaced)} rules replaced)", "",
            "Same question, another answer: the rule keeps its id, so `postinit upgrade` shows both sides.", "",
            f"| rule | phase | `{v.parent.name}` | `{name}`: why | vLLM {name} source |", "|---|---|---|---|---|"]
    for r in replaced:
        old = parent.rules[r.id]
        out.append(f"| `{r.id}` | {r.phase} | {_esc(old.title)} | {_esc(r.reason)} | {_src(r)} |")

    out += ["", f"### Decisions with other values ({len(d.patch)} rules patched)", "",
            "The parent's rule, with this version's parameter values and/or header (`patch(...)` in the delta).", "",
            "| rule | phase | what changed | vLLM source |", "|---|---|---|---|"]
    for p in sorted(d.patch, key=lambda p: (book.rules[p.rule].phase, p.rule)):
        r = book.rules[p.rule]
        what = ", ".join([_change(k, dict(parent.rules[p.rule].params).get(k), val) for k, val in p.params.items()]
                         + [f"{k}" for k in p.header if k != "source"])
        why = f"{what}{'; ' if what and p.why else ''}{p.why}" or "source only"
        out.append(f"| `{p.rule}` | {r.phase} | {_esc(why)} | {_src(r)} |")

    added = sorted((r for r in map(rule_of, d.add) if r is not None), key=lambda r: (r.phase, r.id))
    out += ["", f"### Decisions {name} adds ({len(added)} rules)", "",
            "| rule | phase | kind | what and why | vLLM source |", "|---|---|---|---|---|"]
    out += [f"| `{r.id}` | {r.phase} | {r.kind.value} | {_esc(r.title)}: {_esc(r.reason)} | {_src(r)} |"
            for r in added]

    out += ["", f"### Decisions {name} no longer makes ({len(d.drop)} rules dropped)", "",
            f"| rule | `{v.parent.name}` title | why it is gone |", "|---|---|---|"]
    out += [f"| `{rid}` | {_esc(parent.rules[rid].title)} | {_esc(reason)} |" for rid, reason in sorted(d.drop.items())]

    if d.groups or d.drop_groups or d.after:
        out += ["", "### Statement structure", ""]
        for g in d.groups:
            kind = "replaces" if g.id in parent.groups else "adds"
            out.append(f"- {kind} the {g.kind.value} `{g.id}`: {_esc(g.title)} "
                       f"({' → '.join(f'`{m}`' for m in g.members)})")
        for gid, reason in sorted(d.drop_groups.items()):
            out.append(f"- drops the {parent.groups[gid].kind.value} `{gid}`: {_esc(reason)}")
        for rid, ids in sorted(d.after.items()):
            out.append(f"- orders `{rid}` after {_codes(ids)}")

    space = paths()
    out += ["", "### Schema fields", "", "| field | | default / effect |", "|---|---|---|"]
    for path in sorted(d.fields_added):
        info = space.info[path]
        out.append(f"| `{path}` | added | default `{json.dumps(info.default, default=str)}` |")
    out += [f"| `{path}` | removed | an input of it is dropped with a note (vLLM ignores it) |"
            for path in sorted(d.fields_removed)]

    out += ["", "### Command-line flags", "",
            f"- added: {_codes(['--' + f.replace('_', '-') for f in d.flags_added])}",
            f"- removed (refused as unrecognized): {_codes(['--' + f.replace('_', '-') for f in d.flags_removed])}",
            ""]
    old_env, new_env = _env_names(v.parent.env_table), _env_names(v.env_table)
    out += ["### Environment variables", "",
            f"`postinit/schema/data/envs-{v.env_table}.json` ({len(new_env)} variables; "
            f"`tests/golden/gen_env_table.py`).", "",
            f"- new: {_codes(new_env - old_env)}",
            f"- gone (reported as unknown, no effect): {_codes(old_env - new_env)}", ""]
    if d.hash is not None:
        doc = (d.hash.__doc__ or "").strip().split("\n\n", 1)[0].replace("\n", " ")
        out += ["### Hash", "", f"`{d.hash.__module__}.{d.hash.__name__}`: {doc}", ""]
    return out


def render() -> str:
    """The whole ``docs/versions.md`` text."""
    lines = [
        "# Modelled vLLM versions",
        "",
        "Generated from the version deltas by `python -m postinit.rules._versions_docs`; do not edit by hand.",
        "",
        "Every request names the vLLM it resolves as: `vllm_version` in the library and in HTTP bodies,",
        "`--vllm-version` on the CLI (default `" + versions.DEFAULT_VERSION + "`). A version is its parent's rulebook "
        "edited by rule id",
        "(`postinit/rules/versions.py`), and `postinit upgrade --from A --to B` shows, for one input, every decision",
        "that changes with the rule and reason on each side.",
        "",
        "| version | parent | rules | what it was checked against |",
        "|---|---|---|---|",
    ]
    for v in versions.VERSIONS.values():
        default = " (default)" if v.name == versions.DEFAULT_VERSION else ""
        lines.append(f"| `{v.name}`{default} | {f'`{v.parent.name}`' if v.parent else '—'} | {len(v.rulebook)} | "
                     f"{_esc(v.oracle)} |")
    lines.append("")
    for v in versions.VERSIONS.values():
        if v.parent is not None:
            lines += _version(v)
    return "\n".join(lines).rstrip("\n") + "\n"


if __name__ == "__main__":
    sys.stdout.write(render())
