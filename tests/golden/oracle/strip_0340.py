"""Raw 0.34.0 oracle output -> the committed golden form (expected-0.34.0/).

    python3 tests/golden/oracle/strip_0340.py RAW_DIR OUT_DIR

An extension of ../strip_outputs.py (whose `strip` it calls unchanged): the
same kept keys (name, description, platform, env, ok, error -- with its
`stage` --, stage, logs as {level, msg}, pre, post, hash, sub_hashes; argv,
usage_context, engine_args in argv mode), plus, for 0.34.0:

- `logs_sub_configs`: the records logged while the sub-configs were built
  (before `VllmConfig(...)`), as {level, msg}, like `logs`;
- `compile_factors`: `VllmConfig.compile_factors()`, the structure whose
  SHA-256 (`hash_factors`) is `hash` -- 0.34.0 has no `compute_hash()`.

Dropped as in strip_outputs.py: oracle (versions), platform_answers,
python_warnings, volatile, schema, tags, and the logger / file:line of each
log record.  Output: compact JSON, sorted keys, one line per file.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from strip_outputs import strip as _strip_common  # noqa: E402


def strip_0340(res: dict) -> dict:
    out = _strip_common(res)
    if "logs_sub_configs" in res:
        out["logs_sub_configs"] = [{"level": r.get("level"), "msg": r.get("msg")}
                                   for r in (res.get("logs_sub_configs") or [])]
    if "compile_factors" in res:
        out["compile_factors"] = res["compile_factors"]
    return out


def dumps(obj: dict) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":")) + "\n"


def main(argv: list[str]) -> int:
    raw, dst = Path(argv[0]), Path(argv[1])
    dst.mkdir(parents=True, exist_ok=True)
    n = 0
    for p in sorted(raw.glob("*.json")):
        (dst / p.name).write_text(dumps(strip_0340(json.loads(p.read_text()))))
        n += 1
    print(f"stripped {n} files into {dst}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
