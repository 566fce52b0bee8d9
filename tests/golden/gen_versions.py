"""Deterministic generator of the version cases (``v###-*.json``): inputs the seed and vLLM 0.11.1 answer differently.

Each case names, in ``tags``, the rule(s) of ``postinit/rules/v0_11_1.py`` it is written
for (``target=<rule id>``); both oracles answer every case (``expected/`` the seed,
``expected-0.11.1/`` the wheel), so one input shows the upgrade on real vLLM. Flags only
0.11.1 has are a parse error at the seed, as they are for its parser. No randomness::

    python3 tests/golden/gen_versions.py            # writes tests/golden/cases/v*.json
    python3 tests/golden/gen_versions.py --dry-run  # prints the count only
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
OUT = HERE / "cases"
H100 = "cuda:90"
LLAMA = "models/llama"
A100 = {"kind": "cuda", "capability": 80, "device_name": "NVIDIA A100-SXM4-80GB", "total_memory_gb": 80}


def argv(targets: str, description: str, args: list[str], *, platform: Any = H100,
         env: dict[str, str] | None = None, usage_context: str | None = "OPENAI_API_SERVER") -> dict[str, Any]:
    """An argv-mode case (``vllm serve`` flags through EngineArgs)."""
    case: dict[str, Any] = {"description": description, "tags": [f"target={t}" for t in targets.split()],
                            "argv": args, "usage_context": usage_context, "platform": platform,
                            "env": dict(env or {})}
    if platform == "cpu":
        case["env"].setdefault("VLLM_CPU_KVCACHE_SPACE", "4")
    return case


def cfg(targets: str, description: str, *, platform: Any = H100, model: str | None = "llama",
        env: dict[str, str] | None = None, **configs: Any) -> dict[str, Any]:
    """A config-mode case (the sub-configs are keyword arguments of the real vLLM classes)."""
    case: dict[str, Any] = {"description": description, "tags": [f"target={t}" for t in targets.split()],
                            "platform": platform, "env": dict(env or {}), "model": model}
    if platform == "cpu":
        case["env"].setdefault("VLLM_CPU_KVCACHE_SPACE", "4")
    case.update(configs)
    return case


EAGLE = json.dumps({"method": "eagle", "model": "models/llama_draft", "num_speculative_tokens": 2})
NGRAM = json.dumps({"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 4})


def cases() -> list[tuple[str, dict[str, Any]]]:
    return [
        ("no-chunked-prefill", argv("engine-args.chunked-prefill-default",
                                    "--no-enable-chunked-prefill: forced on at the seed, kept off in 0.11.1",
                                    [LLAMA, "--no-enable-chunked-prefill"])),
        ("no-chunked-prefill-a100", argv("engine-args.batch-defaults-other-device",
                                         "A100 without chunked prefill: budget max(max_model_len, 2048) in 0.11.1",
                                         [LLAMA, "--no-enable-chunked-prefill"], platform=A100)),
        ("engine-usage", argv("engine-args.batch-defaults-large-gpu",
                              "EngineArgs without a usage context: 0.11.1 defaults 2048/128 and logs it",
                              [LLAMA], usage_context=None)),
        ("kv-offloading-native", argv("kv-transfer.offloading",
                                      "--kv-offloading-backend native: an OffloadingConnector (0.11.1 only)",
                                      [LLAMA, "--kv-offloading-backend", "native", "--kv-offloading-size", "8",
                                       "-tp", "2"])),
        ("kv-offloading-lmcache", argv("kv-transfer.offloading",
                                       "--kv-offloading-backend lmcache: an LMCacheConnectorV1 (0.11.1 only)",
                                       [LLAMA, "--kv-offloading-backend", "lmcache", "--kv-offloading-size", "4"])),
        ("kv-offloading-no-size", argv("kv-transfer.offloading",
                                       "--kv-offloading-backend without a size: ValueError (0.11.1)",
                                       [LLAMA, "--kv-offloading-backend", "native"])),
        ("stream-interval", argv("engine-args.unsupported-feature",
                                 "--stream-interval: a 0.11.1 flag, unknown to the seed's parser",
                                 [LLAMA, "--stream-interval", "4"])),
        ("dcp-interleave-block", argv("parallel.dcp-interleave-block-size",
                                      "DCP with an interleave size the MLA block size does not divide (0.11.1)",
                                      ["models/deepseek_v3", "-tp", "2", "-dcp", "2",
                                       "--dcp-kv-cache-interleave-size", "3"])),
        ("dcp-interleave-spec", argv("parallel.dcp-interleave-speculative",
                                     "an interleave size above 1 with speculative decoding (0.11.1)",
                                     [LLAMA, "--dcp-kv-cache-interleave-size", "2", "--speculative-config", NGRAM])),
        ("async-eagle", argv("scheduler.async-scheduling-supported",
                             "async scheduling with EAGLE: refused at the seed, allowed in 0.11.1",
                             [LLAMA, "--async-scheduling", "--speculative-config", EAGLE])),
        ("async-ngram", argv("scheduler.async-scheduling-supported",
                             "async scheduling with n-gram speculation: refused by both, in different places",
                             [LLAMA, "--async-scheduling", "--speculative-config", NGRAM])),
        ("gpt-oss-capture", argv("models.gptoss-max-capture-size",
                                 "GPT-OSS: max capture size 992 at the seed, 1024 in 0.11.1",
                                 ["models/gpt_oss", "--max-num-seqs", "1024"])),
        ("jamba-apc", argv("model.class-interfaces models.hybrid-attention-block-size",
                           "Jamba with prefix caching: mamba prefix caching only in 0.11.1",
                           ["models/jamba", "--enable-prefix-caching"])),
        ("qk-norm-rope", cfg("compilation.qk-norm-rope-rotary-op",
                             "Q/K norm + RoPE fusion: the rotary_embedding custom op (0.11.1)",
                             compilation_config={"pass_config": {"enable_qk_norm_rope_fusion": True}})),
        ("qk-norm-rope-cpu", cfg("compilation.qk-norm-rope-fusion-platform",
                                 "Q/K norm + RoPE fusion on CPU: disabled with a warning (0.11.1)",
                                 platform="cpu",
                                 compilation_config={"pass_config": {"enable_qk_norm_rope_fusion": True}})),
        ("fi-allreduce-noop", argv("compilation.fusion-without-noop",
                                   "flashinfer all-reduce fusion without no-op elimination warns (0.11.1)",
                                   [LLAMA, "-O", json.dumps({"pass_config": {"enable_fi_allreduce_fusion": True}})])),
        ("cpu-block-16", cfg("cpu.block-size-multiple-of-32",
                             "CPU block size 16: required without IPEX at the seed, a warning in 0.11.1",
                             platform="cpu", cache_config={"block_size": 16})),
        ("cpu-fp8-off", cfg("cpu.kv-cache-quantization-fallback",
                            "CPU fp8 KV cache without CP/APC: cast at the seed, auto in 0.11.1", platform="cpu",
                            cache_config={"cache_dtype": "fp8_e4m3", "enable_prefix_caching": False},
                            scheduler_config={"enable_chunked_prefill": False, "max_num_batched_tokens": 4096})),
        ("cudagraph-flags", cfg("compilation.use-cudagraph-false",
                                "use_cudagraph=False: honoured at the seed, ignored by 0.11.1",
                                compilation_config={"use_cudagraph": False})),
        ("rope-theta", argv("model.max-model-len",
                            "--rope-theta: a seed flag, unknown to 0.11.1's parser",
                            [LLAMA, "--rope-theta", "500000"])),
    ]


def main(args: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dry-run", action="store_true")
    ns = parser.parse_args(args)
    found = cases()
    if not ns.dry_run:
        for n, (slug, case) in enumerate(found, start=1):
            name = f"v{n:03d}-{slug}"
            (OUT / f"{name}.json").write_text(json.dumps({"name": name, **case}, indent=1) + "\n")
    print(f"{len(found)} version cases{'' if ns.dry_run else f' written to {OUT}'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
