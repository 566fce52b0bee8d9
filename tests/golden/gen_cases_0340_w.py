#!/usr/bin/env python3
"""Golden cases w### for vllm==0.34.0: the value and log decisions of issue 29's parity work.

    python3 tests/golden/gen_cases_0340_w.py        # (re)writes cases-0.34.0/w###-*.json only

Each case pins one general decision from an angle the rest of the corpus does not (CUDA-graph
capture sizes with speculative / diffusion decodes and gpt-oss's hook, RoPE overrides and the
max_model_len they give, ...). Deterministic: a fixed list, appended to (never reordered) so that
no earlier name moves. The answers are the
0.34.0 oracle's (tests/golden/oracle_cli.md), stripped with tests/golden/oracle/strip_0340.py into
expected-0.34.0/.
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "cases-0.34.0"
CPU_ENV = {"VLLM_CPU_KVCACHE_SPACE": "4"}

CASES: list[tuple[str, dict]] = []


def add(slug: str, description: str, decisions: list[str], **case: object) -> None:
    case.setdefault("platform", "cuda:90")
    if case["platform"] == "cpu":
        case["env"] = {**CPU_ENV, **dict(case.get("env") or {})}  # type: ignore[arg-type]
    name = f"w{len(CASES) + 1:03d}-{slug}"
    CASES.append((name, {"description": description, **case,
                         "tags": ["part=values", *(f"decision={d}" for d in decisions)]}))


def argv(slug: str, description: str, decisions: list[str], line: list[str], *, usage: str = "OPENAI_API_SERVER",
         platform: str = "cuda:90", env: dict[str, str] | None = None) -> None:
    add(slug, description, decisions, argv=line, usage_context=usage, platform=platform, env=env or {})


# ---------------------------------------------------------------- gpt-oss's capture-size hook (M-GPT-OSS)
argv("gptoss-ngram", "gpt-oss with n-gram speculation: decode requests of 1024 tokens at query length 4",
     ["M-GPT-OSS", "V-CG-SIZES"], ["models/gpt_oss_0340", "--speculative-config",
                                   '{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}'])
argv("gptoss-small-budget", "gpt-oss with a 600-token budget: prefill sizes end at the budget",
     ["M-GPT-OSS", "V-CG-SIZES"], ["models/gpt_oss_0340", "--max-num-batched-tokens", "600"])
argv("gptoss-b200", "gpt-oss on SM 10.0: the hook leaves the wide defaults", ["M-GPT-OSS", "V-CG-SPLIT-SIZES"],
     ["models/gpt_oss_0340"], platform="cuda:100")
argv("gptoss-user-decode", "gpt-oss with the user's decode request cap: the hook stays out",
     ["M-GPT-OSS", "V-CG-SPLIT-SIZES"], ["models/gpt_oss_0340", "-cc.max_decode_cudagraph_capture_requests=32"])
argv("gptoss-a100-llm", "gpt-oss as LLM(...) on an A100", ["M-GPT-OSS", "V-CG-SIZES"], ["models/gpt_oss_0340"],
     usage="LLM_CLASS", platform="cuda:80")
argv("gptoss-dp2-dynamic", "gpt-oss, DP 2 and a dynamic speculative schedule: one query length",
     ["M-GPT-OSS", "V-DYNAMIC-SD-DP"], ["models/gpt_oss_0340", "-dp", "2", "--speculative-config",
                                        '{"method": "ngram", "num_speculative_tokens": 4, "prompt_lookup_max": 4, '
                                        '"num_speculative_tokens_per_batch_size": [[1, 8, 4], [9, 1024, 1]]}'])

# ---------------------------------------------------------------- decode query lengths (V-CG-SIZES)
add("dynamic-sd-tiers", "dynamic speculative decoding: one decode tier per draft width", ["V-CG-SIZES"],
    speculative_config={"method": "ngram", "num_speculative_tokens": 4, "prompt_lookup_max": 4,
                        "num_speculative_tokens_per_batch_size": [[1, 16, 4], [17, 64, 2], [65, 1024, 1]]})
add("dynamic-sd-gap", "dynamic speculative decoding with a gap in the schedule", ["V-CG-SIZES"],
    speculative_config={"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4,
                        "num_speculative_tokens_per_batch_size": [[1, 4, 3], [32, 1024, 1]]})
add("dynamic-sd-invalid", "a dynamic schedule not starting at 1 keeps the static width", ["V-CG-SIZES"],
    speculative_config={"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4,
                        "num_speculative_tokens_per_batch_size": [[2, 1024, 1]]})
add("diffusion-sync", "a diffusion canvas of 16 without async scheduling", ["V-DIFFUSION-SCHED", "V-CG-SIZES"],
    diffusion_config={"canvas_length": 16}, scheduler_config={"async_scheduling": False})
add("diffusion-cpu", "a diffusion canvas on CPU", ["V-DIFFUSION-SCHED"], platform="cpu",
    diffusion_config={"canvas_length": 8})
add("diffusion-b200", "a diffusion canvas of 32 on SM 10.0", ["V-DIFFUSION-SCHED", "V-CG-SPLIT-SIZES"],
    platform="cuda:100", diffusion_config={"canvas_length": 32})
add("adaptive-eagle", "adaptive verification with EAGLE, k=4", ["V-ADAPTIVE-VERIFY", "V-CG-SIZES"],
    speculative_config={"method": "eagle", "model": "llama_draft", "num_speculative_tokens": 4,
                        "enable_adaptive_verification": True})
add("adaptive-interactive", "adaptive verification in interactivity mode", ["V-ADAPTIVE-VERIFY", "V-CG-SIZES"],
    performance_mode="interactivity",
    speculative_config={"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 4,
                        "enable_adaptive_verification": True})
add("eagle-k5-decode", "EAGLE k=5: one-token draft graphs beside the target's", ["V-CG-SIZES"],
    scheduler_config={"max_num_seqs": 64},
    speculative_config={"method": "eagle", "model": "llama_draft", "num_speculative_tokens": 5})

# ---------------------------------------------------------------- RoPE overrides (M-MAX-LEN)
for slug, scaling in [
    ("rope-llama3", {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                     "original_max_position_embeddings": 2048}),
    ("rope-yarn-no-original", {"rope_type": "yarn", "factor": 2.0}),
    ("rope-legacy-yarn", {"type": "yarn", "factor": 2.0}),
    ("rope-linear-3", {"rope_type": "linear", "factor": 3.0}),
    ("rope-default", {"rope_type": "default"}),
    ("rope-longrope", {"rope_type": "longrope", "short_factor": [1.0] * 16, "long_factor": [2.0] * 16,
                       "original_max_position_embeddings": 1024}),
]:
    argv(slug, f"--hf-overrides rope_scaling {json.dumps(scaling)[:60]}", ["M-MAX-LEN"],
         ["models/llama", "--hf-overrides", json.dumps({"rope_scaling": scaling})])
argv("rope-dynamic-user-len", "dynamic rope factor 2 and --max-model-len 6000", ["M-MAX-LEN"],
     ["models/llama", "--hf-overrides", '{"rope_scaling": {"rope_type": "dynamic", "factor": 2.0}}',
      "--max-model-len", "6000"])


def main() -> None:
    for old in OUT.glob("w[0-9][0-9][0-9]-*.json"):
        old.unlink()
    names = set()
    for name, case in CASES:
        assert name not in names, name
        names.add(name)
        (OUT / f"{name}.json").write_text(json.dumps({"name": name, **case}, indent=1, sort_keys=True) + "\n")
    print(f"{len(CASES)} cases -> {OUT}")


if __name__ == "__main__":
    main()
