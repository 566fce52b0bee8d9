"""Deterministic generator of the fidelity cases (``x###-*.json``): vLLM's side of issue 30.

Command lines of the kinds that real vLLM answered differently from postinit on inputs written
independently of this project (issue 30): deprecated compilation-config spellings, CPU platform
warnings, hybrid-model and fp8-KV-cache records, usage contexts, flags a version's parser lacks,
argparse's own refusals, errors raised while an earlier sub-config is built, draft-model
speculation, ``hf_overrides`` rope scaling, unknown fields, duplicate flags. The first part is
written by hand, one kind per case (``tags``: ``kind=<what>``); the second is seeded random
command lines over the same flags (``random.Random(20261205)``, no set iteration), so that a
fix is general rather than fitted to one line. Every oracle runs every case
(``PYTHONHASHSEED=0``: some vLLM log texts are built from sets)::

    python3 tests/golden/gen_fidelity.py            # writes tests/golden/cases/x*.json
    python3 tests/golden/gen_fidelity.py --dry-run  # prints the count only
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
OUT = HERE / "cases"
RNG = random.Random(20261205)
H100 = "cuda:90"
A100 = {"kind": "cuda", "capability": 80, "device_name": "NVIDIA A100-SXM4-80GB", "total_memory_gb": 80}
L40S = "cuda:89"
B200 = "cuda:100"
SERVE, LLM, ENGINE = "OPENAI_API_SERVER", "LLM_CLASS", "ENGINE_CONTEXT"
LLAMA = "models/llama"


def argv(kind: str, description: str, args: list[str], *, platform: Any = H100,
         env: dict[str, str] | None = None, usage_context: str | None = SERVE) -> dict[str, Any]:
    """An argv-mode case (``vllm serve`` flags through EngineArgs). A CPU case keeps the env it is given."""
    return {"description": description, "tags": [f"kind={k}" for k in kind.split()], "argv": args,
            "usage_context": usage_context, "platform": platform, "env": dict(env or {})}


def cfg(kind: str, description: str, *, platform: Any = H100, model: str | None = "llama",
        env: dict[str, str] | None = None, **configs: Any) -> dict[str, Any]:
    """A config-mode case (the sub-configs are keyword arguments of the real vLLM classes)."""
    case: dict[str, Any] = {"description": description, "tags": [f"kind={k}" for k in kind.split()],
                            "platform": platform, "env": dict(env or {}), "model": model}
    case.update(configs)
    return case


def cc(value: dict[str, Any]) -> str:
    return json.dumps(value)


DRAFT = json.dumps({"model": "models/llama_draft", "num_speculative_tokens": 2})
EAGLE = json.dumps({"method": "eagle", "model": "models/llama_draft", "num_speculative_tokens": 2})
NGRAM = json.dumps({"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4})
ROPE2 = json.dumps({"rope_scaling": {"rope_type": "dynamic", "factor": 2.0}})


def targeted() -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = []

    def add(slug: str, case: dict[str, Any]) -> None:
        out.append((slug, case))

    # ---- deprecated compilation-config fields and spellings (parsed by -O / --compilation-config)
    for slug, value in (
        ("cc-level-3", {"level": 3}), ("cc-level-0", {"level": 0}), ("cc-level-2", {"level": 2}),
        ("cc-level-and-mode", {"level": 1, "mode": 3}),
        ("cc-use-inductor-false", {"use_inductor": False}), ("cc-use-inductor-true", {"use_inductor": True}),
        ("cc-full-cuda-graph", {"full_cuda_graph": True}),
        ("cc-full-cuda-graph-piecewise", {"full_cuda_graph": True, "cudagraph_mode": "PIECEWISE"}),
        ("cc-use-cudagraph-false", {"use_cudagraph": False}), ("cc-use-cudagraph-true", {"use_cudagraph": True}),
        ("cc-use-cudagraph-false-full", {"use_cudagraph": False, "cudagraph_mode": "FULL"}),
        ("cc-fusion-no-noop", {"pass_config": {"enable_fusion": True}}),
        ("cc-attn-fusion-no-noop", {"pass_config": {"enable_attn_fusion": True}}),
        ("cc-fusion-noop", {"pass_config": {"enable_fusion": True, "enable_noop": True}}),
        ("cc-deprecated-mix", {"level": 3, "use_inductor": False, "full_cuda_graph": True}),
    ):
        add(slug, argv("cc-deprecated", f"--compilation-config {cc(value)}",
                       [LLAMA, "--compilation-config", cc(value)]))
    add("O-level-dotted", argv("cc-deprecated", "-O.level=3 (the deprecated key, dotted)", [LLAMA, "-O.level=3"]))
    add("O-use-inductor-dotted", argv("cc-deprecated", "-O.use_inductor=false", [LLAMA, "-O.use_inductor=false"]))
    add("O-fusion-dotted", argv("cc-deprecated", "-O.pass_config.enable_fusion=true",
                                [LLAMA, "-O.pass_config.enable_fusion=true"]))
    add("O3-use-cudagraph", argv("cc-deprecated", "-O3 and use_cudagraph=false as a dotted key",
                                 [LLAMA, "-O3", "-O.use_cudagraph=false"]))
    add("cc-full-cuda-graph-llm", argv("cc-deprecated", "full_cuda_graph through LLM(...)",
                                       [LLAMA, "-O", cc({"full_cuda_graph": True})], usage_context=LLM))
    add("cc-level-eager", argv("cc-deprecated", "level 3 with --enforce-eager",
                               [LLAMA, "-O", cc({"level": 3}), "--enforce-eager"]))
    add("cfg-level", cfg("cc-deprecated", "config mode: compilation_config.level=3",
                         compilation_config={"level": 3}))
    add("cfg-use-inductor", cfg("cc-deprecated", "config mode: use_inductor=False",
                                compilation_config={"use_inductor": False}))
    add("cfg-fusion-no-noop", cfg("cc-deprecated", "config mode: fusion without no-op elimination",
                                  compilation_config={"pass_config": {"enable_fusion": True,
                                                                      "enable_attn_fusion": True}}))

    # ---- the CPU platform: its variables, pin memory, custom all-reduce
    add("cpu-no-kvcache-space", argv("cpu", "CPU with VLLM_CPU_KVCACHE_SPACE unset", [LLAMA], platform="cpu"))
    add("cpu-no-kvcache-space-llm", argv("cpu", "CPU, LLM(...), VLLM_CPU_KVCACHE_SPACE unset", [LLAMA],
                                         platform="cpu", usage_context=LLM))
    add("cpu-kvcache-space-0", argv("cpu", "CPU with VLLM_CPU_KVCACHE_SPACE=0", [LLAMA], platform="cpu",
                                    env={"VLLM_CPU_KVCACHE_SPACE": "0"}))
    add("cpu-kvcache-space-8", argv("cpu", "CPU with VLLM_CPU_KVCACHE_SPACE=8", [LLAMA], platform="cpu",
                                    env={"VLLM_CPU_KVCACHE_SPACE": "8"}))
    add("cpu-tp2", argv("cpu", "CPU with TP 2", [LLAMA, "-tp", "2"], platform="cpu"))
    add("cpu-eager", argv("cpu", "CPU with --enforce-eager", [LLAMA, "--enforce-eager"], platform="cpu"))
    add("cpu-fp8-kv", argv("cpu", "CPU with an fp8 KV cache", [LLAMA, "--kv-cache-dtype", "fp8"], platform="cpu"))
    add("cpu-cfg-no-env", cfg("cpu", "config mode on CPU without VLLM_CPU_KVCACHE_SPACE", platform="cpu"))
    add("cpu-cfg-tp2", cfg("cpu", "config mode on CPU, TP 2", platform="cpu",
                           parallel_config={"tensor_parallel_size": 2}))
    add("cpu-disable-car", argv("cpu custom-all-reduce", "CPU with --disable-custom-all-reduce",
                                [LLAMA, "--disable-custom-all-reduce"], platform="cpu"))
    add("tp2-disable-car", argv("custom-all-reduce", "TP 2 with --disable-custom-all-reduce",
                                [LLAMA, "-tp", "2", "--disable-custom-all-reduce"]))
    add("rocm-tp2", argv("custom-all-reduce", "ROCm MI300 TP 2", [LLAMA, "-tp", "2"], platform="rocm"))
    add("l40s-tp2", argv("custom-all-reduce", "L40S TP 2 (not fully connected)", [LLAMA, "-tp", "2"],
                         platform={"kind": "cuda", "capability": 89, "fully_connected": False}))

    # ---- hybrid models and fp8 KV caches
    add("jamba-serve", argv("hybrid", "Jamba served with defaults", ["models/jamba"]))
    add("qwen3next-serve", argv("hybrid", "Qwen3-Next served", ["models/qwen3_next", "-tp", "4"]))
    add("bamba-serve", argv("hybrid", "Bamba served", ["models/bamba"]))
    add("jamba-cascade-off", argv("hybrid", "Jamba with --disable-cascade-attn", ["models/jamba",
                                                                                  "--disable-cascade-attn"]))
    add("jamba-cfg", cfg("hybrid", "config mode: Jamba", model="jamba"))
    add("kv-fp8", argv("fp8-kv", "--kv-cache-dtype fp8", [LLAMA, "--kv-cache-dtype", "fp8"]))
    add("kv-fp8-e5m2", argv("fp8-kv", "--kv-cache-dtype fp8_e5m2", [LLAMA, "--kv-cache-dtype", "fp8_e5m2"]))
    add("kv-fp8-e4m3-llm", argv("fp8-kv", "--kv-cache-dtype fp8_e4m3 through LLM(...)",
                                [LLAMA, "--kv-cache-dtype", "fp8_e4m3"], usage_context=LLM))
    add("kv-fp8-ds", argv("fp8-kv", "DeepSeek-V3 with an fp8 KV cache",
                          ["models/deepseek_v3", "-tp", "2", "--kv-cache-dtype", "fp8"]))
    add("kv-fp8-calc", argv("fp8-kv", "an fp8 KV cache with --calculate-kv-scales",
                            [LLAMA, "--kv-cache-dtype", "fp8", "--calculate-kv-scales"]))
    add("kv-fp8-cfg", cfg("fp8-kv", "config mode: cache_dtype fp8", cache_config={"cache_dtype": "fp8"}))

    # ---- usage contexts
    for ctx in (ENGINE, None, "API_SERVER", "OPENAI_BATCH_RUNNER", "UNKNOWN_CONTEXT"):
        name = "none" if ctx is None else ctx.lower().replace("_", "-")
        add(f"usage-{name}", argv("usage", f"EngineArgs with usage context {ctx}", [LLAMA], usage_context=ctx))
    add("usage-engine-a100", argv("usage", "ENGINE_CONTEXT on an A100", [LLAMA], platform=A100,
                                  usage_context=ENGINE))
    add("usage-engine-no-cp", argv("usage", "ENGINE_CONTEXT without chunked prefill",
                                   [LLAMA, "--no-enable-chunked-prefill"], usage_context=ENGINE))
    add("usage-engine-seqs", argv("usage", "ENGINE_CONTEXT with --max-num-seqs 64",
                                  [LLAMA, "--max-num-seqs", "64"], usage_context=ENGINE))

    # ---- flags one version's parser lacks (booleans and their --no- forms included)
    for flag in (["--data-parallel-external-lb"], ["-dpe"], ["--no-data-parallel-external-lb"],
                 ["--data-parallel-external-lb", "-dp", "2", "-dpn", "1"],
                 ["--stream-interval", "2"], ["--reasoning-parser-plugin", "x.py"],
                 ["--kv-offloading-size", "4"], ["--nnodes", "2"], ["--master-port", "29600"],
                 ["--rope-theta", "10000"], ["--rope-scaling", json.dumps({"rope_type": "dynamic", "factor": 2.0})],
                 ["--swap-space", "2"], ["--num-lookahead-slots", "2"], ["-dph"],
                 ["--enable-expert-parallel", "--no-enable-expert-parallel"]):
        slug = flag[0].lstrip("-") + ("-more" if len(flag) > 2 else "")
        add(f"flag-{slug}", argv("version-flags", f"{' '.join(flag)}: a flag not every version's parser has",
                                 [LLAMA, *flag]))

    # ---- postinit's own advice is no vLLM record
    add("cc-json-and-dotted", argv("advice", "-O as JSON and as dotted keys",
                                   [LLAMA, "-O", cc({"mode": 3}), "-O.cudagraph_mode=PIECEWISE"]))
    add("lora-flags-no-enable", argv("advice", "LoRA flags without --enable-lora", [LLAMA, "--max-loras", "2"]))

    # ---- errors raised while an earlier sub-config is built
    add("ext-launcher-dp-no-rank", argv("earlier-error", "external launcher with DP 2 and no RANK",
                                        [LLAMA, "--distributed-executor-backend", "external_launcher", "-dp", "2"]))
    add("ext-launcher-dp-rank", argv("earlier-error", "external launcher with DP 2, RANK=1",
                                     [LLAMA, "--distributed-executor-backend", "external_launcher", "-dp", "2"],
                                     env={"RANK": "1"}))
    add("ext-launcher-dp-rank-tp", argv("earlier-error", "external launcher, TP 2 x DP 2, RANK=3",
                                        [LLAMA, "--distributed-executor-backend", "external_launcher", "-dp", "2",
                                         "-tp", "2"], env={"RANK": "3"}))
    add("ext-launcher-dp-bad-rank", argv("earlier-error", "external launcher with DP 2, RANK=x",
                                         [LLAMA, "--distributed-executor-backend", "external_launcher", "-dp",
                                          "2"], env={"RANK": "x"}))
    add("ext-launcher-dp-no-rank-spec", argv("earlier-error", "external launcher, DP 2, no RANK, and a bad draft",
                                             [LLAMA, "--distributed-executor-backend", "external_launcher",
                                              "-dp", "2", "--speculative-config", json.dumps({"method": "ngram"})]))
    add("ext-launcher-tp", argv("earlier-error", "external launcher with TP 2 only",
                                [LLAMA, "--distributed-executor-backend", "external_launcher", "-tp", "2"]))

    # ---- draft-model speculation
    add("spec-draft-model", argv("draft-model", "--speculative-config with a model and no method",
                                 [LLAMA, "--speculative-config", DRAFT]))
    add("spec-draft-model-method", argv("draft-model", "method draft_model named",
                                        [LLAMA, "--speculative-config",
                                         json.dumps({"method": "draft_model", "model": "models/llama_draft",
                                                     "num_speculative_tokens": 2})]))
    add("spec-draft-model-llm", argv("draft-model", "a draft model through LLM(...)",
                                     [LLAMA, "--speculative-config", DRAFT], usage_context=LLM))
    add("spec-draft-cfg", cfg("draft-model", "config mode: a draft model, no method",
                              speculative_config={"model": "llama_draft", "num_speculative_tokens": 2}))

    # ---- hf_overrides: dynamic rope scaling
    add("rope-dynamic-2", argv("hf-overrides", "hf_overrides: dynamic rope scaling of factor 2",
                               [LLAMA, "--hf-overrides", ROPE2]))
    add("rope-dynamic-2-llm", argv("hf-overrides", "dynamic rope scaling of factor 2, LLM(...)",
                                   [LLAMA, "--hf-overrides", ROPE2], usage_context=LLM))
    add("rope-dynamic-2-a100", argv("hf-overrides", "dynamic rope scaling of factor 2 on an A100, no CP",
                                    [LLAMA, "--hf-overrides", ROPE2, "--no-enable-chunked-prefill"], platform=A100))
    add("rope-dynamic-4-len", argv("hf-overrides", "dynamic rope scaling of factor 4 with --max-model-len 16k",
                                   [LLAMA, "--hf-overrides",
                                    json.dumps({"rope_scaling": {"rope_type": "dynamic", "factor": 4.0}}),
                                    "--max-model-len", "16k"]))
    add("rope-linear-2", argv("hf-overrides", "linear rope scaling of factor 2",
                              [LLAMA, "--hf-overrides",
                               json.dumps({"rope_scaling": {"rope_type": "linear", "factor": 2.0}})]))
    add("rope-yarn-4", argv("hf-overrides", "yarn rope scaling of factor 4",
                            [LLAMA, "--hf-overrides",
                             json.dumps({"rope_scaling": {"rope_type": "yarn", "factor": 4.0,
                                                          "original_max_position_embeddings": 4096}})]))
    add("rope-dynamic-type-key", argv("hf-overrides", "dynamic rope scaling under the old 'type' key",
                                      [LLAMA, "--hf-overrides",
                                       json.dumps({"rope_scaling": {"type": "dynamic", "factor": 2.0}})]))
    add("hf-overrides-max-pos", argv("hf-overrides", "hf_overrides: max_position_embeddings 8192",
                                     [LLAMA, "--hf-overrides", json.dumps({"max_position_embeddings": 8192})]))
    add("rope-dynamic-cfg", cfg("hf-overrides", "config mode: dynamic rope scaling of factor 2",
                                model_config={"hf_overrides": {"rope_scaling": {"rope_type": "dynamic",
                                                                                "factor": 2.0}}}))

    # ---- argparse's own refusals (the message text is argparse's)
    for slug, flag in (("max-model-len-1a", ["--max-model-len", "1a"]),
                       ("max-model-len-decimal-K", ["--max-model-len", "1.5K"]),
                       ("max-num-batched-tokens-x", ["--max-num-batched-tokens", "x"]),
                       ("hash-algo-md5", ["--prefix-caching-hash-algo", "md5"]),
                       ("dtype-int8", ["--dtype", "int8"]),
                       ("tp-two", ["-tp", "two"]),
                       ("gpu-util-x", ["--gpu-memory-utilization", "high"]),
                       ("block-size-7", ["--block-size", "7"]),
                       ("seed-x", ["--seed", "x"]),
                       ("quantization-foo", ["--quantization", "foo"]),
                       ("kv-cache-dtype-int4", ["--kv-cache-dtype", "int4"]),
                       ("max-lora-rank-3", ["--max-lora-rank", "3"]),
                       ("runner-foo", ["--runner", "foo"]),
                       ("max-model-len-empty", ["--max-model-len", ""]),
                       ("max-num-seqs-none", ["--max-num-seqs", "None"]),
                       ("speculative-config-bad", ["--speculative-config", "{bad"]),
                       ("hf-overrides-bad", ["--hf-overrides", "{bad"]),
                       ("collect-traces-bad", ["--collect-detailed-traces", "nope"]),
                       ("all2all-bad", ["--all2all-backend", "nccl"]),
                       ("missing-value", ["--max-model-len"])):
        add(f"argparse-{slug}", argv("argparse", f"{' '.join(flag)}: refused by argparse itself", [LLAMA, *flag]))

    # ---- fields a version has (or not) in config mode
    add("mm-encoder-attn-backend", cfg("unknown-field", "model_config.mm_encoder_attn_backend",
                                       model_config={"mm_encoder_attn_backend": "TORCH_SDPA"}))
    add("mm-encoder-attn-backend-flag", argv("unknown-field", "--mm-encoder-attn-backend TORCH_SDPA",
                                             [LLAMA, "--mm-encoder-attn-backend", "TORCH_SDPA"]))
    add("mm-encoder-attn-backend-bad", cfg("unknown-field", "model_config.mm_encoder_attn_backend: no such backend",
                                           model_config={"mm_encoder_attn_backend": "NOPE"}))

    # ---- duplicate flags (vLLM's "Found duplicate keys" text is built from a set)
    add("dup-O-mode", argv("duplicates", "-O.mode twice", [LLAMA, "-O.mode=3", "-O.mode=2"]))
    add("dup-O-keys", argv("duplicates", "two dotted keys repeated",
                           [LLAMA, "-O.mode=3", "-O.cudagraph_mode=FULL", "-O.mode=3",
                            "-O.cudagraph_mode=PIECEWISE"]))
    add("dup-O-three", argv("duplicates", "three repeated dotted keys",
                            [LLAMA, "-O.mode=3", "-O.backend=inductor", "-O.cudagraph_mode=FULL", "-O.mode=1",
                             "-O.backend=eager", "-O.cudagraph_mode=NONE"]))
    add("dup-kv-transfer", argv("duplicates", "--kv-transfer-config dotted keys repeated",
                                [LLAMA, "--kv-transfer-config.kv_connector=SharedStorageConnector",
                                 "--kv-transfer-config.kv_role=kv_both", "--kv-transfer-config.kv_role=kv_producer"]))
    add("dup-tp", argv("duplicates", "-tp given twice (argparse: the last wins)", [LLAMA, "-tp", "2", "-tp", "4"]))
    add("dup-pass-config", argv("duplicates", "a nested dotted key repeated",
                                [LLAMA, "-O.pass_config.enable_noop=true", "-O.pass_config.enable_fusion=true",
                                 "-O.pass_config.enable_noop=false", "-O.pass_config.enable_fusion=false"]))

    # ---- the documented divergences
    add("mode-4", argv("divergence", "-O.mode=4: CompilationMode has no 4", [LLAMA, "-O.mode=4"]))
    add("mode-4-json", argv("divergence", "--compilation-config mode 4", [LLAMA, "-O", cc({"mode": 4})]))
    add("mode-4-cfg-jamba", cfg("divergence", "config mode: mode 4 on Jamba", model="jamba",
                                compilation_config={"mode": 4}))
    add("mode-5-cfg", cfg("divergence", "config mode: mode 5", compilation_config={"mode": 5}))
    add("unknown-arch-serve", argv("divergence", "an unregistered architecture, model_impl auto",
                                   ["models/llama_unknown_arch"]))
    add("unknown-arch-transformers", argv("divergence", "an unregistered architecture, model_impl transformers",
                                          ["models/llama_unknown_arch", "--model-impl", "transformers"]))
    return out


# ---------------------------------------------------------------------------------------- random

GENERATE = ("llama", "llama", "llama", "llama_long", "deepseek_v3", "qwen3_next", "jamba", "llama4",
            "gemma3_text", "gpt_oss", "mistral_sw", "llama_fp8_block", "llama_awq", "bamba", "mamba")
MAX_LEN = {"llama": 4096, "llama_long": 262144, "deepseek_v3": 16384, "qwen3_next": 262144, "jamba": 8192,
           "llama4": 32768, "gemma3_text": 32768, "gpt_oss": 131072, "mistral_sw": 32768,
           "llama_fp8_block": 4096, "llama_awq": 4096, "bamba": 4096, "mamba": 2048}
PLATFORMS: tuple[Any, ...] = (H100, H100, H100, A100, L40S, B200, "cuda:80", "rocm", "cpu", "cpu")
MOE = {"deepseek_v3", "qwen3_next", "jamba", "llama4", "gpt_oss"}


def _random_cc(rng: random.Random) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for key, choices in (("level", [0, 1, 2, 3]), ("mode", [0, 3]), ("use_inductor", [True, False]),
                         ("full_cuda_graph", [True]), ("use_cudagraph", [True, False]),
                         ("cudagraph_mode", ["FULL_AND_PIECEWISE", "PIECEWISE", "FULL_DECODE_ONLY", "NONE"]),
                         ("backend", ["inductor", "eager"])):
        if rng.random() < 0.2:
            value[key] = rng.choice(choices)
    if rng.random() < 0.25:
        value["pass_config"] = {k: True for k in ("enable_fusion", "enable_attn_fusion", "enable_noop")
                                if rng.random() < 0.5}
    return value


def random_line(rng: random.Random) -> dict[str, Any]:
    model = rng.choice(GENERATE)
    plat = rng.choice(PLATFORMS)
    cpu = plat == "cpu"
    args: list[str] = [f"models/{model}"]
    tp = 1
    env: dict[str, str] = {}
    if cpu and rng.random() < 0.5:
        env["VLLM_CPU_KVCACHE_SPACE"] = rng.choice(["2", "4", "16"])
    if rng.random() < 0.35:
        tp = rng.choice([2, 4])
        args += [rng.choice(["-tp", "--tensor-parallel-size"]), str(tp)]
    if rng.random() < 0.1 and not cpu:
        args += ["-pp", "2"]
    if rng.random() < 0.3:
        limit = MAX_LEN[model]
        args += ["--max-model-len", rng.choice([str(min(limit, 2048)), str(limit), "2k", "1K"])]
    if rng.random() < 0.25:
        args += ["--gpu-memory-utilization", rng.choice(["0.8", "0.95"])]
    if rng.random() < 0.2:
        args.append("--enforce-eager")
    if rng.random() < 0.2:
        args += ["--kv-cache-dtype", rng.choice(["fp8", "fp8_e4m3", "auto", "fp8_e5m2"])]
    if rng.random() < 0.25:
        args.append(rng.choice(["--enable-prefix-caching", "--no-enable-prefix-caching"]))
    if rng.random() < 0.25:
        args.append(rng.choice(["--enable-chunked-prefill", "--no-enable-chunked-prefill"]))
    if rng.random() < 0.25:
        args += ["--max-num-seqs", rng.choice(["16", "128", "512"])]
    if rng.random() < 0.2:
        args += ["--max-num-batched-tokens", rng.choice(["2048", "8192", "16k"])]
    if rng.random() < 0.25:
        value = _random_cc(rng)
        if value:
            args += [rng.choice(["-O", "--compilation-config"]), json.dumps(value)]
    elif rng.random() < 0.15:
        args.append(rng.choice(["-O0", "-O1", "-O2", "-O3", "-O.mode=3", "-O.level=3"]))
    if rng.random() < 0.1 and model in ("llama", "llama_long"):
        args += ["--speculative-config", rng.choice([NGRAM, EAGLE, DRAFT])]
    if rng.random() < 0.1 and model == "llama":
        args += ["--hf-overrides", ROPE2]
    if rng.random() < 0.1:
        args.append("--async-scheduling")
    if rng.random() < 0.1:
        args.append("--disable-custom-all-reduce")
    if rng.random() < 0.1:
        args += ["--block-size", rng.choice(["16", "32", "64"])]
    if rng.random() < 0.1:
        args += ["--dtype", rng.choice(["float16", "bfloat16", "auto"])]
    if rng.random() < 0.1 and model in MOE and tp > 1:
        args.append("--enable-expert-parallel")
    if rng.random() < 0.08:
        args += ["--distributed-executor-backend", rng.choice(["mp", "uni", "external_launcher"])]
    if rng.random() < 0.08:
        args.append(rng.choice(["--data-parallel-hybrid-lb", "--data-parallel-external-lb"]))
    if rng.random() < 0.1:
        args += ["--seed", str(rng.randint(0, 99))]
    if rng.random() < 0.08:
        args += ["--scheduling-policy", "priority"]
    if rng.random() < 0.08:
        args.append("--disable-cascade-attn")
    if rng.random() < 0.06:
        args += ["--long-prefill-token-threshold", "256"]
    if rng.random() < 0.06:
        args.append("--kv-sharing-fast-prefill")
    if rng.random() < 0.06:
        args += ["--cpu-offload-gb", "2"]
    if rng.random() < 0.05:
        args += ["--max-logprobs", "5"]
    usage = rng.choice([SERVE, SERVE, SERVE, LLM, ENGINE])
    return argv("random", f"random command line ({model} on {plat if isinstance(plat, str) else 'a100'})", args,
                platform=plat, env=env, usage_context=usage)


def cases() -> list[tuple[str, dict[str, Any]]]:
    out = targeted()
    rng = RNG
    out += [("rand", random_line(rng)) for _ in range(120)]
    return out


def main(args: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dry-run", action="store_true")
    ns = parser.parse_args(args)
    found = cases()
    if not ns.dry_run:
        for old in OUT.glob("x[0-9][0-9][0-9]-*.json"):
            old.unlink()
        for n, (slug, case) in enumerate(found, start=1):
            name = f"x{n:03d}-{slug}"
            (OUT / f"{name}.json").write_text(json.dumps({"name": name, **case}, indent=1) + "\n")
    print(f"{len(found)} fidelity cases{'' if ns.dry_run else f' written to {OUT}'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
