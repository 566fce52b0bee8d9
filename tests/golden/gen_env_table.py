"""Write postinit/schema/data/envs-<commit>.json: every variable of vLLM's ``envs.py`` and how vLLM parses it.

Reads ``vllm/envs.py`` of a vLLM commit (from a git dir, e.g. the fetch tool's
mirror) with :mod:`ast` and records facts only: each variable's name, the kind
of parsing its getter does, its default text and, for choice variables, the
allowed values. postinit uses the table to accept every real vLLM variable and
to refuse a known variable's bad value with one line.

    python tests/golden/gen_env_table.py /work/.mirror/jinhuang12+vllm/repo d7fb10c57
    python tests/golden/gen_env_table.py --dir $HOME/oracle-venv/lib/python3.11/site-packages/vllm 0.11.1

``--dir`` reads an installed ``vllm`` package (a release wheel) instead of a git
commit; the second argument then names the table (``envs-0.11.1.json``).
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parents[2] / "postinit" / "schema" / "data"


def _const(node: ast.AST | None) -> Any:
    try:
        return ast.literal_eval(node) if node is not None else None
    except ValueError:
        return ast.unparse(node) if node is not None else None


def classify(name: str, value: ast.AST) -> dict[str, Any]:
    """The parsing vLLM applies to ``name`` (one of a few kinds), from its getter's source."""
    text = ast.unparse(value)
    entry: dict[str, Any] = {"name": name}
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in (
        "env_with_choices", "env_list_with_choices",
    ):
        args = value.args
        entry["kind"] = "choice" if value.func.id == "env_with_choices" else "choice_list"
        entry["default"] = _const(args[1]) if len(args) > 1 else None
        choices = _const(args[2]) if len(args) > 2 else None
        entry["choices"] = choices if isinstance(choices, list) else None
        case = [k for k in value.keywords if k.arg == "case_sensitive"]
        entry["case_sensitive"] = bool(_const(case[0].value)) if case else True
        return entry
    body = text
    if re.search(r"bool\(int\(", body) or "maybe_convert_bool" in body:
        entry["kind"] = "bool_int"
    elif re.search(r"\bint\(", body) or "maybe_convert_int" in body:
        entry["kind"] = "int"
    elif re.search(r"\bfloat\(", body):
        entry["kind"] = "float"
    elif re.search(r"\.lower\(\)\s*(in|==)", body) or re.search(r"in \('1', 'true'\)", body):
        entry["kind"] = "bool_text"
        entry["strip"] = ".strip()" in body
        found = re.search(r"\.lower\(\)\s*(?:in\s*(\([^)]*\))|==\s*('[^']*'))", body)
        if found:
            truth = ast.literal_eval(found.group(1) or found.group(2))
            entry["true"] = sorted([truth] if isinstance(truth, str) else truth)
    else:
        entry["kind"] = "str"
    return entry


def enum_members(source: str, cls: str) -> list[str]:
    """The member names of ``class cls(enum.Enum)`` in ``source`` (upper-case names: enum members)."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.ClassDef) and node.name == cls:
            return [t.id for s in node.body if isinstance(s, ast.Assign) for t in s.targets
                    if isinstance(t, ast.Name) and t.id.isupper()]
    raise SystemExit(f"no class {cls}")


def table(source: str) -> list[dict[str, Any]]:
    tree = ast.parse(source)
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", None) == "environment_variables":
            assert isinstance(node.value, ast.Dict)
            return [classify(_const(k), v) for k, v in zip(node.value.keys, node.value.values, strict=True)]
    raise SystemExit("no environment_variables dict in envs.py")


def main(argv: list[str]) -> int:
    if argv[0] == "--dir":  # an installed vllm package (a release wheel), named by argv[2]
        package, commit = Path(argv[1]), argv[2]

        def read(rel: str) -> str:
            return (package / rel.removeprefix("vllm/")).read_text()
    else:
        git_dir, commit = argv[0], argv[1]

        def read(rel: str) -> str:
            return subprocess.run(["git", f"--git-dir={git_dir}", "show", f"{commit}:{rel}"],
                                  check=True, capture_output=True, text=True).stdout
    rows = table(read("vllm/envs.py"))
    for row in rows:
        # choices computed at run time from the attention backend enum
        if row["kind"] == "choice" and row.get("choices") is None:
            registry = read("vllm/attention/backends/registry.py")
            enum = "AttentionBackendEnum" if "class AttentionBackendEnum" in registry else "_Backend"
            row["choices"] = enum_members(registry, enum)
            row["choices_from"] = f"vllm/attention/backends/registry.py {enum}"
    OUT.mkdir(parents=True, exist_ok=True)
    out = OUT / f"envs-{commit[:9]}.json"
    out.write_text(json.dumps({"commit": commit, "source": "vllm/envs.py environment_variables",
                               "variables": rows}, indent=1, sort_keys=True) + "\n")
    kinds: dict[str, int] = {}
    for r in rows:
        kinds[r["kind"]] = kinds.get(r["kind"], 0) + 1
    print(f"wrote {out}: {len(rows)} variables {kinds}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
