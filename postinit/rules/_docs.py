"""Generate ``docs/rules.md`` from the rulebook: every rule, and the reference-to-rule map.

``python -m postinit.rules._docs > docs/rules.md``; a test fails when the file
is stale or when a step of the reference maps to no rule.
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict

from postinit.engine import Rulebook
from postinit.rules import rulebook

__all__ = ["REQUIRED", "coverage", "ref_tags", "render"]

_STEPS = [
    "1", "2", "3", "4", "5", "6", "7", "8", "8'", "9", "10", "11", "12a", "12b", "12c", "12d",
    "12-else", "13", "14", "15", "16", "17", "18", "19", "20", "21", "22", "23", "24", "25",
]
_MODELS_CONFIG_MAP = [
    "GteModel", "GteNewModel", "Gemma3TextModel", "NomicBertModel", "Qwen2ForProcessRewardModel",
    "Qwen2ForRewardModel", "Qwen3ForSequenceClassification", "XLMRobertaModel", "JinaVLForRanking",
    "JambaForSequenceClassification", "GptOssForCausalLM", "MambaForCausalLM", "DeepseekV32ForCausalLM",
]
REQUIRED: dict[str, str] = {
    **{f"step-{s}": f"§1.2 step {s}" for s in _STEPS},
    **{f"7.4#{i}": f"§7.4 CUDA row {i}" for i in range(1, 5)},
    **{f"7.5#{i}": f"§7.5 ROCm row {i}" for i in range(1, 4)},
    **{f"7.6#{i}": f"§7.6 CPU row {i}" for i in range(1, 17)},
    **{f"8.1:{a}": f"§8.1 MODELS_CONFIG_MAP {a}" for a in _MODELS_CONFIG_MAP},
    "8.2": "§8.2 MambaModelConfig",
    "8.3": "§8.3 HybridAttentionMambaModelConfig",
    "8.4": "§8.4 SequenceClassificationConfig",
    "8.5": "§8.5 Run:ai object storage",
}
"""Reference items every one of which must map to at least one rule."""

_TAG = re.compile(r"ref\s+(.+)$")


def ref_tags(source: str) -> list[str]:
    """The reference tags of a rule's ``source`` (``"...; ref step-12b, 13.2:I1"``)."""
    m = _TAG.search(source)
    if not m:
        return []
    tags = []
    for t in m.group(1).split(","):
        t = t.strip().rstrip(".")
        if t:
            tags.append(t)
    return tags


def _normalise(tag: str) -> list[str]:
    """A tag as it may be written (``step-12b(i)``, ``step-8b``) → the REQUIRED keys it covers."""
    out = [tag]
    m = re.match(r"step-(\d+)([a-z]?)", tag)
    if m:
        num, letter = m.groups()
        out.append(f"step-{num}{letter}")
        out.append(f"step-{num}")
        if tag.startswith(f"step-{num}-else") or tag.startswith(f"step-{num}else"):
            out.append(f"step-{num}-else")
        if num == "8" and (letter == "b" or "'" in tag):
            out.append("step-8'")
    m = re.match(r"(7\.[456])#(\d+)", tag)
    if m:
        out.append(f"{m.group(1)}#{m.group(2)}")
    if tag.startswith("8.1:"):
        arch = tag[4:]
        for name in _MODELS_CONFIG_MAP:
            if arch.startswith(name):
                out.append(f"8.1:{name}")
    if tag in ("8.2", "8.1:Mamba", "8.1:MambaModelConfig"):
        out.append("8.1:MambaForCausalLM")
    return out


def coverage(book: Rulebook | None = None) -> dict[str, list[str]]:
    """Each REQUIRED reference item → the ids of the rules that cite it."""
    book = book or rulebook()
    cov: dict[str, list[str]] = defaultdict(list)
    for r in book.rules.values():
        for tag in ref_tags(r.source):
            for key in dict.fromkeys(_normalise(tag)):
                if key in REQUIRED and r.id not in cov[key]:
                    cov[key].append(r.id)
    return {k: cov.get(k, []) for k in REQUIRED}


def _cell(items: list[str] | tuple[str, ...]) -> str:
    return "<br>".join(f"`{i}`" for i in items) if items else "—"


def render(book: Rulebook | None = None) -> str:
    """The whole ``docs/rules.md`` text."""
    book = book or rulebook()
    lines = [
        "# The vLLM rulebook",
        "",
        "Generated from the rulebook by `python -m postinit.rules._docs`; do not edit by hand.",
        "",
        f"{len(book)} rules in {len(book.phases)} phases.",
        "",
        "| phase | rules |",
        "|---|---|",
    ]
    lines += [f"| `{ph}` | {len(book.order[ph])} |" for ph in book.phases]
    lines += ["", "## Reference → rules", "",
              "Every step of §1.2, every row of §7.4–7.6 and every model rule of §8 maps to at least one rule.",
              "", "| reference | item | rules |", "|---|---|---|"]
    for key, rules in coverage(book).items():
        lines.append(f"| `{key}` | {REQUIRED[key]} | {_cell(rules)} |")
    for ph in book.phases:
        lines += ["", f"## Phase `{ph}`", "", "| rule | kind | reads | writes | source | reason |", "|---|---|---|---|---|---|"]
        for rid in book.order[ph]:
            r = book.rules[rid]
            reason = r.reason.replace("|", "\\|")
            lines.append(
                f"| `{r.id}` | {r.kind.value} | {_cell(r.reads)} | {_cell(r.writes)} | "
                f"{r.source.replace('|', '/')} | {reason} |"
            )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(render())
