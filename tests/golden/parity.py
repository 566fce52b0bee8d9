"""Differential comparison of postinit against real vLLM's resolved configs.

``python -m tests.golden.parity`` prints, per golden case, the fields where
postinit's final value differs from the exact-seed oracle's; the test module
asserts on the same comparison.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import postinit
from postinit.engine import jsonable
from postinit.errors import InputError
from postinit.schema import Platform
from tests.golden.corpus import GoldenCase, decompress_padding, load_cases

SUB_CONFIGS = (
    "model_config", "cache_config", "parallel_config", "scheduler_config", "device_config",
    "load_config", "lora_config", "speculative_config", "structured_outputs_config",
    "observability_config", "compilation_config", "kv_transfer_config", "kv_events_config",
)
USAGE = {"OPENAI_API_SERVER": "serve", "LLM_CLASS": "llm", None: "engine"}

# Fields whose values are not a decision of config resolution (identifiers, file
# paths of the oracle's checkout, runtime bookkeeping) — never compared.
NOT_COMPARED = frozenset({
    "model_config.model", "model_config.tokenizer", "model_config.served_model_name",
    "kv_transfer_config.engine_id", "speculative_config.model",
})


def _fixture(name: str) -> str:
    return name if "/" in name and not name.startswith("models/") else "fixtures/" + name.removeprefix("models/")


def platform_of(gc: GoldenCase) -> Platform:
    spec = dict(gc.expected["platform"])
    fields = set(Platform.model_fields)
    if spec.get("kind") == "cpu":
        spec.setdefault("cpu_arch", "x86_64")
    return Platform(**{k: v for k, v in spec.items() if k in fields})


def run(gc: GoldenCase, **kw: Any) -> postinit.Resolution:
    """Resolve a golden case with postinit, the way the oracle built it in vLLM."""
    case = gc.case
    plat = platform_of(gc)
    env = {k: v for k, v in (case.get("env") or {}).items()}
    if gc.argv_mode:
        argv = [_fixture(a) if a.startswith("models/") else a for a in case["argv"]]
        return postinit.resolve(argv=argv, usage=USAGE[case.get("usage_context", "OPENAI_API_SERVER")],  # type: ignore[arg-type]
                                platform=plat, env=env, **kw)
    config: dict[str, Any] = {}
    for sub in SUB_CONFIGS:
        if sub in case and case[sub] is not None and sub != "model_config":
            value = case[sub]
            config[sub] = {} if value is True else dict(value)
    if config.get("lora_config") is False:
        del config["lora_config"]
    spec = config.get("speculative_config")
    if spec and isinstance(spec.get("model"), str):
        spec["model"] = _fixture(spec["model"])
    if case.get("additional_config") is not None:
        config["additional_config"] = case["additional_config"]
    model = case.get("model", "llama")
    if isinstance(model, dict):
        mc = dict(model)
        model = mc.pop("model", mc.pop("fixture", None))
        config["model_config"] = {**mc, **(case.get("model_config") or {})}
    elif case.get("model_config"):
        config["model_config"] = dict(case["model_config"])
    if model is not None:
        config.setdefault("model_config", {})["model"] = _fixture(model)
        config["model_config"].setdefault("skip_tokenizer_init", True)
    return postinit.resolve(config, model=_fixture(model) if model else None, platform=plat, env=env, **kw)


def _norm(path: str, value: Any) -> Any:
    if isinstance(value, str) and value.startswith("device(type='"):
        return value[len("device(type='"):-2]  # torch.device's repr; postinit keeps the type string
    padded = path == "compilation_config.bs_to_padded_graph_size"
    if padded and isinstance(value, list) and value and isinstance(value[0], list):
        return decompress_padding(value)
    return value


@dataclass
class Comparison:
    case: str
    expected_ok: bool
    ok: bool | None
    error: str | None = None
    mismatches: dict[str, tuple[Any, Any]] = field(default_factory=dict)
    """path -> (postinit's value, vLLM's value)."""
    missing_logs: list[tuple[str, str]] = field(default_factory=list)
    """vLLM's log records (level, msg) with no postinit message of the same text (numbers normalised)."""
    log_level_mismatches: list[tuple[str, str, str]] = field(default_factory=list)
    """vLLM's records postinit has with another level: (vLLM level, postinit level, msg)."""

    @property
    def matches(self) -> bool:
        return self.error is None and not self.mismatches and self.ok == self.expected_ok


_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def norm_log(msg: str) -> str:
    """A log text with every number replaced by N and hex addresses by 0x?, whitespace-trimmed."""
    return _NUMBER.sub("N", re.sub(r"0x[0-9a-fA-F]+", "\0", msg)).replace("\0", "0x?").strip()


def vllm_logs(gc: GoldenCase) -> list[tuple[str, str]]:
    """vLLM's log records for a case: (level lower-cased, msg)."""
    return [(str(rec.get("level", "")).lower(), str(rec.get("msg", ""))) for rec in gc.expected.get("logs") or []]


def _our_logs(r: postinit.Resolution | None) -> dict[str, set[str]]:
    """postinit's normalised message texts (whole and per line) -> their levels."""
    ours: dict[str, set[str]] = {}
    for event in (r.messages() if r is not None else []):
        for text in (event.message, *event.message.splitlines()):
            ours.setdefault(norm_log(text), set()).add(str(event.level))
    return ours


def missing_logs(gc: GoldenCase, r: postinit.Resolution | None) -> list[tuple[str, str]]:
    """vLLM's records whose normalised text no postinit message (or message line) has."""
    ours = _our_logs(r)
    return [(level, msg) for level, msg in vllm_logs(gc) if norm_log(msg) not in ours]


def log_level_mismatches(gc: GoldenCase, r: postinit.Resolution | None) -> list[tuple[str, str, str]]:
    """vLLM's records postinit has only at another level: (vLLM level, postinit levels, msg)."""
    ours = _our_logs(r)
    return [(level, "/".join(sorted(ours[norm_log(msg)])), msg) for level, msg in vllm_logs(gc)
            if norm_log(msg) in ours and level not in ours[norm_log(msg)]]


def compare(gc: GoldenCase) -> Comparison:
    exp_ok = gc.ok
    try:
        r = run(gc, strict=True)
    except InputError as e:
        ok = gc.expected.get("stage") == "parse"
        return Comparison(gc.name, exp_ok, False, None if ok and not exp_ok else f"InputError: {e}",
                          missing_logs=missing_logs(gc, None))
    except Exception as e:  # a crash is a finding, not a test error
        return Comparison(gc.name, exp_ok, None, f"{type(e).__name__}: {e}", missing_logs=missing_logs(gc, None))
    cmp = Comparison(gc.name, exp_ok, r.ok, missing_logs=missing_logs(gc, r),
                     log_level_mismatches=log_level_mismatches(gc, r))
    if not exp_ok:
        err = gc.expected.get("error") or {}
        if r.ok:
            cmp.mismatches["<error>"] = (None, f"{err.get('type')}: {err.get('message')}")
        else:
            v = r.violations[0]
            if v.error != err.get("type"):
                cmp.mismatches["<error.type>"] = (v.error, err.get("type"))
        return cmp
    if not r.ok:
        v = r.violations[0]
        cmp.mismatches["<error>"] = (f"{v.error}: {v.message} ({v.rule})", None)
        return cmp
    space = postinit.paths()
    state = r.state
    for sub in SUB_CONFIGS:
        post = gc.post(sub)
        if post is None:
            if sub in space and state.get(sub) is not None and sub != "model_config":
                cmp.mismatches[sub] = (True, None)
            continue
        if sub in space and space.info[sub].presence and state.get(sub) is None:
            cmp.mismatches[sub] = (None, "present")
            continue
        _compare_fields(cmp, state, sub, post)
    return cmp


def _compare_fields(cmp: Comparison, state: Any, prefix: str, post: dict[str, Any]) -> None:
    space = postinit.paths()
    for key, exp in post.items():
        path = f"{prefix}.{key}"
        if path in NOT_COMPARED or path not in space:
            continue
        info = space.info[path]
        if info.presence:
            if (exp is None) != (state[path] is None):
                cmp.mismatches[path] = (state[path], "present" if exp is not None else None)
            elif isinstance(exp, dict):
                _compare_fields(cmp, state, path, exp)
            continue
        ours = jsonable(state[path])
        if ours != _norm(path, exp):
            cmp.mismatches[path] = (ours, exp)


def log_report(comparisons: list[Comparison], limit: int = 25) -> list[str]:
    """Secondary, non-failing report: vLLM log texts postinit does not produce, by number of cases."""
    cases: Counter[tuple[str, str]] = Counter()
    example: dict[tuple[str, str], str] = {}
    for c in comparisons:
        for level, msg in dict.fromkeys(c.missing_logs):
            key = (level, norm_log(msg))
            cases[key] += 1
            example.setdefault(key, f"{c.case}: {msg}")
    records = sum(len(c.missing_logs) for c in comparisons)
    lines = [f"=== vLLM log messages without a postinit message of the same text: {len(cases)} distinct, "
             f"{records} records (not a failure)"]
    for (level, _), n in cases.most_common(limit):
        lines.append(f"  {n:4d} {level:7s} {example[(level, _)][:150]}")
    levels = Counter((v, o, norm_log(m)) for c in comparisons for v, o, m in dict.fromkeys(c.log_level_mismatches))
    lines.append(f"=== same text, other level: {len(levels)} distinct")
    for (v, o, m), n in levels.most_common(limit):
        lines.append(f"  {n:4d} vllm={v} postinit={o} {m[:130]}")
    return lines


def main(argv: list[str]) -> int:
    pattern = argv[0] if argv else "*.json"
    total = good = 0
    comparisons: list[Comparison] = []
    for gc in load_cases(pattern=pattern, missing_ok=True):
        c = compare(gc)
        comparisons.append(c)
        total += 1
        good += c.matches
        if c.matches:
            continue
        print(f"--- {c.case}: ok={c.ok} expected_ok={c.expected_ok} {c.error or ''}")
        for p, (ours, theirs) in list(c.mismatches.items())[:12]:
            print(f"    {p}: postinit={str(ours)[:90]!s}  vllm={str(theirs)[:90]!s}")
        if len(c.mismatches) > 12:
            print(f"    ... {len(c.mismatches) - 12} more")
    print("\n".join(log_report(comparisons)))
    print(f"{good}/{total} cases match real vLLM exactly")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
