"""Strip raw oracle outputs to the committed golden form.

    python3 tests/golden/strip_outputs.py RAW_DIR OUT_DIR [--post-only]

Reads every RAW_DIR/*.json written by ``vllm_oracle.py -o RAW_DIR`` and writes
OUT_DIR/<same name>.json keeping only: name, description, platform, env, ok,
error, stage, logs and logs_sub_configs (level + msg only), pre and post
(every sub-config, as the oracle wrote them), hash, sub_hashes; for argv-mode
cases also argv, usage_context and engine_args; for caller-mode cases (a Python
caller, 0.34.0's oracle) caller, usage_context and engine_args.  Dropped: oracle (versions),
platform_answers, python_warnings, volatile, seed_divergence_hints, schema,
and the logger / file:line of each log record.  Nothing else is changed: in
particular ``bs_to_padded_graph_size`` stays in the oracle's run-length form.

With --post-only, ``pre`` is dropped as well (used only if size demands it).
Output is compact JSON with sorted keys (one line per file) so that
diffs between regenerations are stable.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

KEEP = ["name", "description", "platform", "env", "ok", "error", "stage",
        "logs", "logs_sub_configs", "pre", "post", "hash", "sub_hashes"]
KEEP_ARGV = ["argv", "usage_context", "engine_args"]
KEEP_CALLER = ["caller", "usage_context", "engine_args"]


def strip(res: dict, post_only: bool = False) -> dict:
    out: dict = {}
    for k in KEEP + (KEEP_ARGV if "argv" in res else KEEP_CALLER if "caller" in res else []):
        if k not in res:
            continue
        if k == "pre" and post_only:
            continue
        v = res[k]
        if k in ("logs", "logs_sub_configs"):
            v = [{"level": r.get("level"), "msg": r.get("msg")} for r in (v or [])]
        out[k] = v
    if "oracle_crash" in res:
        out["oracle_crash"] = res["oracle_crash"]
    return out


def main(argv: list[str]) -> int:
    post_only = "--post-only" in argv
    args = [a for a in argv if not a.startswith("--")]
    raw, dst = Path(args[0]), Path(args[1])
    dst.mkdir(parents=True, exist_ok=True)
    n = 0
    for p in sorted(raw.glob("*.json")):
        res = json.loads(p.read_text())
        (dst / p.name).write_text(json.dumps(strip(res, post_only), sort_keys=True,
                                             separators=(",", ":")) + "\n")
        n += 1
    print(f"stripped {n} files into {dst}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
