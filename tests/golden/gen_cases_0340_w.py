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

# ---------------------------------------------------------------- 0.34.0 flags into sub-configs (A-FLAG-TARGETS)
# create_engine_config copies these EngineArgs fields into its configs; the shorthands apply over the JSON
for slug, description, line in [
    ("attn-backend-flag", "--attention-backend FLASH_ATTN", ["--attention-backend", "FLASH_ATTN"]),
    ("attn-backend-lower", "--attention-backend in lower case", ["--attention-backend", "flashinfer"]),
    ("attn-config-json", "-ac with a backend and an FA version", ["-ac", '{"backend": "FLASHINFER", "flash_attn_version": 3}']),
    ("attn-config-dotted", "--attention-config dotted keys", ["--attention-config.backend", "TRITON_ATTN",
                                                               "--attention-config.flash_attn_version", "2"]),
    ("kernel-config-json", "--kernel-config autotune off and a MoE backend",
     ["--kernel-config", '{"enable_flashinfer_autotune": false, "moe_backend": "triton"}']),
    ("kernel-autotune-off-O3", "--no-enable-flashinfer-autotune beats -O3's default", ["--no-enable-flashinfer-autotune", "-O3"]),
    ("kernel-autotune-on-O0", "--enable-flashinfer-autotune at -O0", ["--enable-flashinfer-autotune", "-O0"]),
    ("kernel-json-and-flag", "--kernel-config's moe_backend and --linear-backend together",
     ["--kernel-config", '{"moe_backend": "triton"}', "--linear-backend", "cutlass"]),
    ("kernel-auto-keeps-json", "--moe-backend auto leaves --kernel-config's choice",
     ["--kernel-config", '{"moe_backend": "triton"}', "--moe-backend", "auto"]),
    ("sparse-topk-O1", "--sparse-indexer-topk-backend torch at -O1", ["--sparse-indexer-topk-backend", "torch", "-O1"]),
    ("max-num-scheduled", "--max-num-scheduled-tokens 1024", ["--max-num-scheduled-tokens", "1024"]),
    ("max-num-active-seqs", "--max-num-active-seqs 64", ["--max-num-active-seqs", "64"]),
    ("profiler-json", "--profiler-config torch with a directory",
     ["--profiler-config", '{"profiler": "torch", "torch_profiler_dir": "/tmp/prof"}']),
    ("extensible-kv-off", "--no-enable-extensible-kv-cache", ["--no-enable-extensible-kv-cache"]),
    ("observability-flags", "KV-cache and CUDA-graph metrics flags", ["--kv-cache-metrics", "--cudagraph-metrics",
                                                                    "--kv-cache-metrics-sample", "0.5"]),
    ("scheduler-queue-flags", "queue limits and the watermark", ["--max-num-queued-reqs", "100",
                                                               "--max-num-queued-tokens", "64k", "--watermark", "0.05"]),
]:
    argv(slug, description, ["A-FLAG-TARGETS"], ["models/llama", *line])
argv("moe-kernel-flags", "DeepSeek with --moe-backend, --linear-backend and --monokernel", ["A-FLAG-TARGETS"],
     ["models/deepseek_v3", "--moe-backend", "deep_gemm", "--linear-backend", "cutlass", "--monokernel"])
argv("pcp2-tp2", "--prefill-context-parallel-size 2 with TP 2", ["A-FLAG-TARGETS", "P-PCP"],
     ["models/llama", "-tp", "2", "--prefill-context-parallel-size", "2"])
argv("pcp2-deepseek", "prefill context parallelism on DeepSeek with TP 2", ["A-FLAG-TARGETS", "P-PCP"],
     ["models/deepseek_v3", "-tp", "2", "--prefill-context-parallel-size", "2"])
argv("dbo-ubatch", "DBO with --ubatch-size 4", ["A-FLAG-TARGETS"],
     ["models/deepseek_v3", "-dp", "2", "--enable-expert-parallel", "--enable-dbo", "--all2all-backend",
      "deepep_low_latency", "--ubatch-size", "4"])
argv("dcp-comm-backend", "DCP 2 with --dcp-comm-backend a2a", ["A-FLAG-TARGETS"],
     ["models/deepseek_v3", "-tp", "2", "-dcp", "2", "--dcp-comm-backend", "a2a"])

# ---------------------------------------------------------------- speculative methods (V-SPEC-METHODS)
for slug, description, spec in [
    ("spec-suffix", "suffix decoding", {"method": "suffix", "num_speculative_tokens": 8}),
    ("spec-ngram-gpu", "n-gram on the GPU", {"method": "ngram_gpu", "num_speculative_tokens": 3, "prompt_lookup_max": 3}),
    ("spec-eagle3", "EAGLE-3 with a draft checkpoint", {"method": "eagle3", "model": "models/llama_draft",
                                                         "num_speculative_tokens": 3}),
    ("spec-draft-explicit", "method draft_model with k=4", {"method": "draft_model", "model": "models/llama_draft",
                                                             "num_speculative_tokens": 4}),
    ("spec-draft-tp1", "a draft model at TP 1 under TP 2", {"model": "models/llama_draft", "num_speculative_tokens": 3,
                                                             "draft_tensor_parallel_size": 1}),
    ("spec-draft-max-len", "a draft model with its own max_model_len", {"model": "models/llama_draft",
                                                                         "num_speculative_tokens": 2,
                                                                         "max_model_len": 1024}),
]:
    extra = ["-tp", "2"] if slug == "spec-draft-tp1" else []
    argv(slug, description, ["V-SPEC-METHODS", "V-CG-SIZES"],
         ["models/llama", *extra, "--speculative-config", json.dumps(spec)])
argv("spec-mtp-deepseek", "DeepSeek MTP, k=1", ["V-SPEC-METHODS", "V-CG-SIZES"],
     ["models/deepseek_v3", "--speculative-config", '{"method": "mtp", "num_speculative_tokens": 1}'])
argv("spec-mtp-qwen3-next", "Qwen3-Next MTP, k=2", ["V-SPEC-METHODS", "V-CG-SIZES"],
     ["models/qwen3_next", "--speculative-config", '{"method": "mtp", "num_speculative_tokens": 2}'])
argv("spec-ngram-throughput", "n-gram in throughput mode", ["V-SPEC-METHODS", "V-PERF-MODE"],
     ["models/llama", "--performance-mode", "throughput", "--speculative-config",
      '{"method": "ngram", "num_speculative_tokens": 4, "prompt_lookup_max": 4}'])

# ---------------------------------------------------------------- -O levels and performance modes (V-LEVELS)
for slug, description, line in [
    ("O0-full-graphs", "-O0 with full CUDA graphs asked for", ["-O0", "-cc.cudagraph_mode=FULL"]),
    ("O1-capture-sizes", "-O1 with explicit capture sizes", ["-O1", "--cudagraph-capture-sizes", "1", "2", "4", "8"]),
    ("O3-eager", "-O3 with --enforce-eager", ["-O3", "--enforce-eager"]),
    ("O3-piecewise", "-O3 with PIECEWISE graphs", ["-O3", "-cc.cudagraph_mode=PIECEWISE"]),
    ("O2-custom-ops", "-O2 with every custom op", ["-O2", "-cc.custom_ops+=all"]),
    ("opt-level-flag", "--optimization-level 1", ["--optimization-level", "1"]),
    ("interactivity", "--performance-mode interactivity", ["--performance-mode", "interactivity"]),
    ("throughput-seqs", "throughput mode with the user's max_num_seqs", ["--performance-mode", "throughput",
                                                                         "--max-num-seqs", "64"]),
    ("throughput-O1", "throughput mode at -O1", ["--performance-mode", "throughput", "-O1"]),
]:
    argv(slug, description, ["V-LEVELS"], ["models/llama", *line])
argv("throughput-llm-b200", "throughput mode as LLM(...) on SM 10.0", ["V-LEVELS"],
     ["models/llama", "--performance-mode", "throughput"], usage="LLM_CLASS", platform="cuda:100")

# ---------------------------------------------------------------- config mode (C-CONFIG-0340)
add("cfg-attention-kernel", "config mode: attention and kernel sub-configs", ["C-CONFIG-0340"],
    attention_config={"backend": "FLASHINFER"}, kernel_config={"moe_backend": "triton",
                                                               "enable_flashinfer_autotune": False})
add("cfg-level-3-throughput", "config mode: optimization level 3 in throughput mode", ["C-CONFIG-0340"],
    optimization_level=3, performance_mode="throughput")
add("cfg-level-0-graphs", "config mode: level 0 with FULL_DECODE_ONLY", ["C-CONFIG-0340"],
    optimization_level=0, compilation_config={"cudagraph_mode": "FULL_DECODE_ONLY"})
add("cfg-scheduler-0340", "config mode: 0.34.0 scheduler fields", ["C-CONFIG-0340"],
    scheduler_config={"max_num_scheduled_tokens": 512, "max_num_active_seqs": 32, "max_num_batched_tokens": 4096})
add("cfg-pcp", "config mode: PCP 2 with TP 2", ["C-CONFIG-0340", "P-PCP"],
    parallel_config={"tensor_parallel_size": 2, "prefill_context_parallel_size": 2})
add("cfg-suffix", "config mode: suffix decoding", ["C-CONFIG-0340", "V-SPEC-METHODS"],
    speculative_config={"method": "suffix", "num_speculative_tokens": 4})

# ---------------------------------------------------------------- KV offloading and hybrid models (V-KV-OFFLOAD, M-HYBRID)
for slug, description, model, line in [
    ("kv-offload-native-apc-off", "native KV offloading without prefix caching", "llama",
     ["--kv-offloading-size", "8", "--no-enable-prefix-caching"]),
    ("kv-offload-jamba", "native KV offloading on Jamba", "jamba", ["--kv-offloading-size", "4"]),
    ("kv-offload-eagle", "KV offloading with EAGLE", "llama",
     ["--kv-offloading-size", "4", "--speculative-config",
      '{"method": "eagle", "model": "models/llama_draft", "num_speculative_tokens": 2}']),
    ("mamba-flashinfer", "Mamba with --mamba-backend flashinfer", "mamba_0340", ["--mamba-backend", "flashinfer"]),
    ("jamba-ssm-fp32", "Jamba with --mamba-ssm-cache-dtype float32 at -O3", "jamba",
     ["--mamba-ssm-cache-dtype", "float32", "-O3"]),
    ("qwen3-next-apc-off", "Qwen3-Next without prefix caching, TP 2", "qwen3_next",
     ["-tp", "2", "--no-enable-prefix-caching"]),
    ("bamba-eager-dp2", "Bamba eager with DP 2", "bamba", ["--enforce-eager", "-dp", "2"]),
]:
    argv(slug, description, ["V-KV-OFFLOAD" if slug.startswith("kv") else "M-HYBRID"], [f"models/{model}", *line])

# ---------------------------------------------------------------- --spec-* shorthands, routed experts, EPLB, offload (A-FLAG-TARGETS)
for slug, description, model, line in [
    ("spec-flags-ngram", "--spec-method ngram --spec-tokens 3", "llama", ["--spec-method", "ngram", "--spec-tokens", "3"]),
    ("spec-flags-draft", "--spec-model with --spec-tokens: a plain draft model", "llama",
     ["--spec-model", "models/llama_draft", "--spec-tokens", "2"]),
    ("spec-flags-twice", "--spec-tokens beside --speculative-config's num_speculative_tokens", "llama",
     ["--speculative-config", '{"method": "ngram", "num_speculative_tokens": 2}', "--spec-tokens", "4"]),
    ("spec-flags-suffix", "--spec-method suffix alone", "llama", ["--spec-method", "suffix"]),
    ("spec-flags-merge", "--spec-tokens completing --speculative-config", "llama",
     ["--speculative-config", '{"method": "ngram"}', "--spec-tokens", "4"]),
    ("spec-flags-eagle3", "--spec-method eagle3 with a draft", "llama",
     ["--spec-method", "eagle3", "--spec-model", "models/llama_draft", "--spec-tokens", "3"]),
    ("routed-experts", "--enable-return-routed-experts on DeepSeek", "deepseek_v3", ["--enable-return-routed-experts"]),
    ("eplb-tp2", "EPLB over TP 2 with expert parallelism", "deepseek_v3",
     ["-tp", "2", "--enable-expert-parallel", "--enable-eplb"]),
    ("eplb-dp2-pcp", "EPLB over DP 2 x TP 2", "deepseek_v3",
     ["-tp", "2", "-dp", "2", "--enable-expert-parallel", "--enable-eplb"]),
    ("numa-eplb-dense", "--numa-bind and EPLB on a dense model", "llama", ["--numa-bind", "--enable-eplb"]),
    ("offload-uva", "--offload-backend uva with parameters", "llama", ["--offload-backend", "uva", "--cpu-offload-params",
                                                                       "lm_head"]),
    ("kv-skip-layers", "an fp8 KV cache skipping two layers", "llama",
     ["--kv-cache-dtype", "fp8", "--kv-cache-dtype-skip-layers", "0", "1"]),
    ("language-model-only", "--language-model-only on a text model", "llama", ["--language-model-only"]),
    ("elastic-ep-dense", "--enable-elastic-ep without expert parallelism", "llama", ["--enable-elastic-ep"]),
]:
    argv(slug, description, ["A-FLAG-TARGETS"], [f"models/{model}", *line])

# ---------------------------------------------------------------- everyday 0.34.0 command lines (E-EVERYDAY)
for slug, description, line, platform in [
    ("pp2-async", "pipeline parallelism 2 with async scheduling", ["models/llama", "-pp", "2", "--async-scheduling"],
     "cuda:90"),
    ("dp4-local2", "DP 4 with 2 local ranks", ["models/llama", "-dp", "4", "--data-parallel-size-local", "2"], "cuda:90"),
    ("jamba-hma-off", "Jamba with the hybrid KV cache manager off", ["models/jamba", "--disable-hybrid-kv-cache-manager"],
     "cuda:90"),
    ("jamba-mamba-fp16", "Jamba with a float16 Mamba cache", ["models/jamba", "--mamba-cache-dtype", "float16"],
     "cuda:90"),
    ("qwen3-next-no-chunked", "Qwen3-Next without chunked prefill", ["models/qwen3_next", "--no-enable-chunked-prefill"],
     "cuda:90"),
    ("fp8-online", "--quantization fp8 on an unquantized checkpoint", ["models/llama", "--quantization", "fp8"],
     "cuda:90"),
    ("kv-e5m2-O3", "an fp8_e5m2 KV cache at -O3", ["models/llama", "--kv-cache-dtype", "fp8_e5m2", "-O3"], "cuda:90"),
    ("long-small-budget", "a 256k model with a 512-token budget", ["models/llama_long", "--max-num-batched-tokens", "512"],
     "cuda:90"),
    ("gptoss-eager", "gpt-oss eager", ["models/gpt_oss_0340", "--enforce-eager"], "cuda:90"),
    ("sleep-dummy", "sleep mode with dummy weights", ["models/llama", "--load-format", "dummy", "--enable-sleep-mode"],
     "cuda:90"),
    ("interactivity-b200", "interactivity mode on SM 10.0", ["models/llama", "--performance-mode", "interactivity"],
     "cuda:100"),
    ("rocm-O3", "-O3 on an MI300", ["models/llama", "-O3"], "rocm:gfx942"),
    ("kv-memory-bytes", "--kv-cache-memory-bytes 4G", ["models/llama", "--kv-cache-memory-bytes", "4G"], "cuda:90"),
    ("cc-backend-eager", "-cc.backend=eager", ["models/llama", "-cc.backend=eager"], "cuda:90"),
    ("ds-dcp2-b200", "DeepSeek TP 4 DCP 2 on SM 10.0", ["models/deepseek_v3", "-tp", "4", "-dcp", "2",
                                                          "--max-model-len", "8k"], "cuda:100"),
    ("cpu-O0", "-O0 on CPU with 8 sequences", ["models/llama", "-O0", "--max-num-seqs", "8"], "cpu"),
    ("max-len-auto", "--max-model-len auto", ["models/llama", "--max-model-len", "auto"], "cuda:90"),
    ("capture-sizes-ngram", "explicit capture sizes with n-gram speculation",
     ["models/llama", "--cudagraph-capture-sizes", "1", "2", "4", "--speculative-config",
      '{"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 3}'], "cuda:90"),
    ("bert-pooling-O3", "BERT pooling at -O3", ["models/bert", "--runner", "pooling", "-O3"], "cuda:90"),
    ("llama4-tp8", "Llama 4 TP 8 with 16k tokens", ["models/llama4", "-tp", "8", "--max-model-len", "16k"], "cuda:90"),
]:
    argv(slug, description, ["E-EVERYDAY"], line, platform=platform)

# ---------------------------------------------------------------- speculative methods and 0.34.0 configs, both modes (V-SPEC-METHODS, C-CONFIG-0340)
for slug, description, line, platform in [
    ("mamba-backend-dense", "--mamba-backend triton on a dense model", ["models/llama", "--mamba-backend", "triton"],
     "cuda:90"),
    ("O3-interactivity-b200", "-O3 in interactivity mode on SM 10.0", ["models/llama", "-O3", "--performance-mode",
                                                                       "interactivity"], "cuda:100"),
    ("eagle3-async", "EAGLE-3 with async scheduling", ["models/llama", "--async-scheduling", "--speculative-config",
                                                       '{"method": "eagle3", "model": "models/llama_draft", '
                                                       '"num_speculative_tokens": 3}'], "cuda:90"),
    ("mtp3-deepseek-tp2", "DeepSeek MTP k=3 at TP 2", ["models/deepseek_v3", "--speculative-config",
                                                       '{"method": "mtp", "num_speculative_tokens": 3}', "-tp", "2"],
     "cuda:90"),
    ("ngram-gpu-async", "n-gram on the GPU with async scheduling",
     ["models/llama", "--speculative-config", '{"method": "ngram_gpu", "num_speculative_tokens": 4}',
      "--async-scheduling"], "cuda:90"),
    ("qwen3-next-mtp-alias", "the qwen3_next_mtp spelling", ["models/qwen3_next", "--speculative-config",
                                                             '{"method": "qwen3_next_mtp", "num_speculative_tokens": 1}'],
     "cuda:90"),
    ("suffix-shallow", "suffix decoding with a tree of depth 4", ["models/llama", "--speculative-config",
                                                                  '{"method": "suffix", "suffix_decoding_max_tree_depth": 4}'],
     "cuda:90"),
    ("kv-offload-tp2", "native KV offloading of 16 GiB at TP 2", ["models/llama", "--kv-offloading-size", "16",
                                                                  "--kv-offloading-backend", "native", "-tp", "2"],
     "cuda:90"),
    ("apc-cbor-O1", "prefix caching with sha256_cbor at -O1", ["models/llama", "--enable-prefix-caching",
                                                               "--prefix-caching-hash-algo", "sha256_cbor", "-O1"],
     "cuda:90"),
    ("gptoss-eagle3-longer", "EAGLE-3 on gpt-oss: the draft's positions raised to the target's",
     ["models/gpt_oss_0340", "--speculative-config",
      '{"method": "eagle3", "model": "models/llama_draft", "num_speculative_tokens": 2}'], "cuda:90"),
]:
    argv(slug, description, ["V-SPEC-METHODS"], line, platform=platform)
add("cfg-draft-model", "config mode: method draft_model, k=3", ["C-CONFIG-0340", "V-SPEC-METHODS"],
    speculative_config={"method": "draft_model", "model": "llama_draft", "num_speculative_tokens": 3})
add("cfg-mtp-tp2", "config mode: DeepSeek MTP k=2 at TP 2", ["C-CONFIG-0340", "V-SPEC-METHODS"],
    model="deepseek_v3", speculative_config={"method": "mtp", "num_speculative_tokens": 2},
    parallel_config={"tensor_parallel_size": 2})
add("cfg-jamba-level1", "config mode: Jamba at level 1 with a float32 Mamba cache", ["C-CONFIG-0340", "M-HYBRID"],
    model="jamba", optimization_level=1, cache_config={"mamba_cache_dtype": "float32"})
add("cfg-kernel-attn-level3", "config mode: kernel and attention choices at level 3", ["C-CONFIG-0340"],
    kernel_config={"moe_backend": "deep_gemm"}, attention_config={"flash_attn_version": 2}, optimization_level=3)
add("cfg-ngram-interactive", "config mode: n-gram in interactivity mode", ["C-CONFIG-0340", "V-PERF-MODE"],
    performance_mode="interactivity",
    speculative_config={"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 3})
add("cfg-cpu-level0", "config mode: level 0 on CPU", ["C-CONFIG-0340"], platform="cpu", optimization_level=0)
add("cfg-qwen3-next-budget", "config mode: Qwen3-Next with 1024 tokens and no prefix caching",
    ["C-CONFIG-0340", "M-HYBRID"], model="qwen3_next", scheduler_config={"max_num_batched_tokens": 1024},
    cache_config={"enable_prefix_caching": False})
add("cfg-ep-dense", "config mode: expert parallelism on a dense model", ["C-CONFIG-0340"],
    parallel_config={"tensor_parallel_size": 2, "enable_expert_parallel": True})

# ---------------------------------------------------------------- more 0.34.0 flags, DeepSeek-V3.2 (A-FLAG-TARGETS, M-DEEPSEEK-V32)
for slug, description, line, platform in [
    ("lora-targets", "LoRA with target modules and active-LoRA specialisation",
     ["models/llama", "--enable-lora", "--max-loras", "4", "--lora-target-modules", "q_proj", "v_proj",
      "--specialize-active-lora"], "cuda:90"),
    ("lora-tower", "LoRA on the tower connector", ["models/llama", "--enable-lora", "--enable-tower-connector-lora"],
     "cuda:90"),
    ("rocm-O3-lora", "-O3 with LoRA on an MI300", ["models/llama", "-O3", "--enable-lora"], "rocm:gfx942"),
    ("bert-scheduled-cap", "BERT pooling with --max-num-scheduled-tokens",
     ["models/bert", "--runner", "pooling", "--max-num-scheduled-tokens", "512"], "cuda:90"),
    ("traces-metrics", "KV-cache metrics and detailed traces", ["models/llama", "--kv-cache-metrics",
                                                               "--collect-detailed-traces", "all",
                                                               "--otlp-traces-endpoint", "http://x:4317"], "cuda:90"),
    ("timeouts-tp2", "distributed timeouts and the DP sync interval", ["models/llama", "--distributed-timeout-seconds",
                                                                       "600", "-tp", "2", "--dp-sync-interval", "4"],
     "cuda:90"),
    ("qwen3-next-prefix-unit", "Qwen3-Next with a prefix match unit and shared prefix checkpoints",
     ["models/qwen3_next", "--prefix-match-unit", "16", "--enable-mamba-shared-prefix-checkpoint"], "cuda:90"),
    ("inflight-kv-loads", "in-flight KV loads with offloading", ["models/llama", "--max-num-inflight-kv-loads", "8",
                                                                 "--kv-offloading-size", "4"], "cuda:90"),
    ("reserve-isl", "full-ISL reservation and the adaptive long-prefill threshold",
     ["models/llama", "--scheduler-reserve-full-isl", "--long-prefill-token-threshold-adaptive"], "cuda:90"),
    ("safetensors-flags", "safetensors prefetch threads and shuffling",
     ["models/llama", "--safetensors-prefetch-num-threads", "4", "--shuffle-safetensors-files"], "cuda:90"),
    ("O2-fdo-eagle", "-O2 with FULL_DECODE_ONLY and EAGLE",
     ["models/llama", "-O2", "--compilation-config.cudagraph_mode", "FULL_DECODE_ONLY", "--speculative-config",
      '{"method": "eagle", "model": "models/llama_draft", "num_speculative_tokens": 2}'], "cuda:90"),
    ("mamba-O3-ssm-fp32", "Mamba at -O3 with a float32 SSM cache", ["models/mamba_0340", "-O3",
                                                                     "--mamba-ssm-cache-dtype", "float32"], "cuda:90"),
    ("v32-indexer-dtype", "DeepSeek-V3.2 with an fp8 indexer KV cache at TP 2",
     ["models/deepseek_v32", "-tp", "2", "--attention-config.indexer_kv_dtype", "fp8"], "cuda:90"),
    ("v32-fp8-kv", "DeepSeek-V3.2 with an fp8 KV cache: no fp8_ds_mla rewrite in 0.34.0",
     ["models/deepseek_v32", "-tp", "2", "--kv-cache-dtype", "fp8"], "cuda:90"),
    ("v32-b200", "DeepSeek-V3.2 on SM 10.0: bfloat16 indexer logits", ["models/deepseek_v32", "-tp", "2"], "cuda:100"),
    ("v32-bf16-kv", "DeepSeek-V3.2 with a bfloat16 KV cache and bfloat16 indexer logits",
     ["models/deepseek_v32", "-tp", "2", "--kv-cache-dtype", "bfloat16", "--attention-config.indexer_logits_dtype",
      "bfloat16"], "cuda:90"),
    ("v32-tokenizer-slow", "DeepSeek-V3.2 with the user's tokenizer mode", ["models/deepseek_v32", "--tokenizer-mode",
                                                                             "slow"], "cuda:90"),
]:
    argv(slug, description, ["A-FLAG-TARGETS"], line, platform=platform)


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
