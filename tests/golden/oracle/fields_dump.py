#!/usr/bin/env python3
"""Dump {class: {field: default}} of vllm.config's config classes and of
EngineArgs as JSON, in whichever vLLM venv runs it (0.11.1 or 0.34.0), so
that two versions' schemas can be diffed (docs/vllm-0.34.0.md, "Differences
from 0.11.1").  Introspection only; nothing of vLLM is copied.

    VENV/bin/python tests/golden/oracle/fields_dump.py > fields-VERSION.json
    python3 tests/golden/oracle/fields_dump.py --diff fields-0.11.1.json fields-0.34.0.json
"""
from __future__ import annotations

import dataclasses
import json
import os
import sys


def _default(f):
    if f.default is not dataclasses.MISSING:
        v = f.default
        if type(v).__name__ == "FieldInfo":
            d = getattr(v, "default", None)
            if type(d).__name__ == "PydanticUndefinedType":
                return "<factory>"
            v = d
        return _plain(v)
    if f.default_factory is not dataclasses.MISSING:  # type: ignore[misc]
        try:
            return _plain(f.default_factory())  # type: ignore[misc]
        except Exception:
            return "<factory>"
    return "<required>"


def _plain(v):
    import enum

    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, enum.Enum):
        return v.name
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if dataclasses.is_dataclass(v):
        return {f.name: _plain(getattr(v, f.name, None)) for f in dataclasses.fields(v)}
    return repr(v)


def dump() -> dict:
    os.environ.setdefault("VLLM_CONFIGURE_LOGGING", "0")
    import vllm
    import vllm.config as C
    from vllm.engine.arg_utils import EngineArgs

    out = {"_version": vllm.__version__}
    for name in sorted(dir(C)):
        cls = getattr(C, name)
        if isinstance(cls, type) and dataclasses.is_dataclass(cls) and name.endswith("Config"):
            out[name] = {f.name: _default(f) for f in dataclasses.fields(cls)}
    out["EngineArgs"] = {f.name: _default(f) for f in dataclasses.fields(EngineArgs)}
    return out


def diff(a: dict, b: dict) -> None:
    print(f"# {a['_version']} -> {b['_version']}")
    for cls in sorted(set(a) | set(b)):
        if cls == "_version":
            continue
        if cls not in a:
            print(f"\n{cls}: new class ({len(b[cls])} fields)")
            continue
        if cls not in b:
            print(f"\n{cls}: removed")
            continue
        added = sorted(set(b[cls]) - set(a[cls]))
        removed = sorted(set(a[cls]) - set(b[cls]))
        changed = sorted(k for k in set(a[cls]) & set(b[cls]) if a[cls][k] != b[cls][k])
        if added or removed or changed:
            print(f"\n{cls}:")
            if added:
                print("  added:", ", ".join(added))
            if removed:
                print("  removed:", ", ".join(removed))
            for k in changed:
                print(f"  default {k}: {json.dumps(a[cls][k])[:80]} -> {json.dumps(b[cls][k])[:80]}")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--diff":
        diff(json.load(open(sys.argv[2])), json.load(open(sys.argv[3])))
    else:
        json.dump(dump(), sys.stdout, indent=1, sort_keys=True, default=repr)
