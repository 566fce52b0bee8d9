"""Loader for the golden corpus (real-vLLM oracle outputs); no dependencies.

    from tests.golden.corpus import load_cases, decompress_padding
    for gc in load_cases():                 # exact-seed outputs (the spec)
        gc.name, gc.case, gc.expected
    load_cases(variant="0.11.1")            # drift reference (vllm==0.11.1)

``gc.case`` is the oracle case input (config mode or argv mode, see README.md);
``gc.expected`` is the stripped oracle output (keys: name, description,
platform, env, ok, error, stage, logs, pre, post, hash, sub_hashes, and for argv
cases argv, usage_context, engine_args).  Fixture models live in
``models/`` next to this file (case ``"model": "llama"`` = ``models/llama``;
argv cases name ``models/<fixture>`` relative to this folder).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

GOLDEN_DIR = Path(__file__).resolve().parent
CASES_DIR = GOLDEN_DIR / "cases"
MODELS_DIR = GOLDEN_DIR / "models"
VERSIONS_FILE = GOLDEN_DIR.parents[1] / "postinit" / "rules" / "data" / "versions.json"
"""The modelled versions (postinit's registry, plain data): each names the folder of its golden answers."""
EXPECTED_DIRS = {("seed" if v["parent"] is None else v["name"]): GOLDEN_DIR / v["golden"]
                 for v in json.loads(VERSIONS_FILE.read_text())}
"""Variant (``"seed"`` for the root, else the version's name) -> the folder holding real vLLM's answers."""
CASE_DIRS = {"0.34.0": GOLDEN_DIR / "cases-0.34.0"}
"""Variants whose cases are their own (0.34.0's corpus, ``gen_cases_0340.py``); the others share ``cases/``."""


@dataclass(frozen=True)
class GoldenCase:
    name: str
    case: dict[str, Any]
    expected: dict[str, Any]
    path: Path = field(compare=False)

    @property
    def argv_mode(self) -> bool:
        return "argv" in self.case

    @property
    def caller_mode(self) -> bool:
        """A Python caller (0.34.0's oracle): a config-mode case built through ``EngineArgs(**kwargs)``."""
        return not self.argv_mode and ("caller" in self.case or "usage_context" in self.case)

    @property
    def ok(self) -> bool:
        return bool(self.expected.get("ok"))

    @property
    def tags(self) -> dict[str, str]:
        """``factor=level`` tags of generated cases as a dict (empty for 01-59)."""
        out: dict[str, str] = {}
        for t in self.case.get("tags", []):
            k, _, v = t.partition("=")
            out[k] = v
        return out

    def post(self, sub: str) -> dict[str, Any] | None:
        """The resolved state of one sub-config (``post[sub]``), or None."""
        return (self.expected.get("post") or {}).get(sub)

    def pre(self, sub: str) -> dict[str, Any] | None:
        return (self.expected.get("pre") or {}).get(sub)


def load_cases(variant: str = "seed", pattern: str = "*.json",
               missing_ok: bool = False) -> list[GoldenCase]:
    """All cases (sorted by name) with their expected output for ``variant``
    (``"seed"``: the exact-seed oracle, our specification; ``"0.11.1"``)."""
    exp_dir = EXPECTED_DIRS[variant]
    out: list[GoldenCase] = []
    for p in sorted(CASE_DIRS.get(variant, CASES_DIR).glob(pattern)):
        case = json.loads(p.read_text())
        ep = exp_dir / p.name
        if not ep.exists():
            if missing_ok:
                continue
            raise FileNotFoundError(f"no expected output {ep} for case {p.name}")
        out.append(GoldenCase(name=p.stem, case=case,
                              expected=json.loads(ep.read_text()), path=p))
    return out


def decompress_padding(runs: list[list[int]] | None) -> list[int] | None:
    """Expand ``compilation_config.bs_to_padded_graph_size`` from the oracle's
    run form ``[[from_bs, to_bs, padded], ...]`` (inclusive bounds, runs
    contiguous from batch size 0) back to vLLM's list, where ``lst[bs]`` is the
    padded graph size for batch size ``bs``."""
    if runs is None:
        return None
    out: list[int] = []
    for start, end, padded in runs:
        if start != len(out) or end < start:
            raise ValueError(f"non-contiguous run {[start, end, padded]} at index {len(out)}")
        out.extend([padded] * (end - start + 1))
    return out


def compress_padding(lst: list[int] | None) -> list[list[int]] | None:
    """Inverse of :func:`decompress_padding` (the oracle's own encoding)."""
    if lst is None:
        return None
    runs: list[list[int]] = []
    for i, p in enumerate(lst):
        if runs and runs[-1][2] == p and runs[-1][1] == i - 1:
            runs[-1][1] = i
        else:
            runs.append([i, i, p])
    return runs


__all__ = [
    "CASES_DIR",
    "CASE_DIRS",
    "EXPECTED_DIRS",
    "GOLDEN_DIR",
    "MODELS_DIR",
    "GoldenCase",
    "compress_padding",
    "decompress_padding",
    "load_cases",
]
