"""Differential comparison of postinit against real vLLM's resolved configs.

``python -m tests.golden.parity`` prints, per golden case, the fields where
postinit's final value differs from the exact-seed oracle's; the test module
asserts on the same comparison.
"""

from __future__ import annotations

import sys
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
    "kv_transfer_config.engine_id",
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

    @property
    def matches(self) -> bool:
        return self.error is None and not self.mismatches and self.ok == self.expected_ok


def compare(gc: GoldenCase) -> Comparison:
    exp_ok = gc.ok
    try:
        r = run(gc, strict=True)
    except InputError as e:
        ok = gc.expected.get("stage") == "parse"
        return Comparison(gc.name, exp_ok, False, None if ok and not exp_ok else f"InputError: {e}")
    except Exception as e:  # a crash is a finding, not a test error
        return Comparison(gc.name, exp_ok, None, f"{type(e).__name__}: {e}")
    cmp = Comparison(gc.name, exp_ok, r.ok)
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
        for key, exp in post.items():
            path = f"{sub}.{key}"
            if path in NOT_COMPARED or path not in space:
                continue
            ours = jsonable(state[path])
            if ours != _norm(path, exp):
                cmp.mismatches[path] = (ours, exp)
    return cmp


def main(argv: list[str]) -> int:
    pattern = argv[0] if argv else "*.json"
    total = good = 0
    for gc in load_cases(pattern=pattern, missing_ok=True):
        c = compare(gc)
        total += 1
        good += c.matches
        if c.matches:
            continue
        print(f"--- {c.case}: ok={c.ok} expected_ok={c.expected_ok} {c.error or ''}")
        for p, (ours, theirs) in list(c.mismatches.items())[:12]:
            print(f"    {p}: postinit={str(ours)[:90]!s}  vllm={str(theirs)[:90]!s}")
        if len(c.mismatches) > 12:
            print(f"    ... {len(c.mismatches) - 12} more")
    print(f"{good}/{total} cases match real vLLM exactly")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
