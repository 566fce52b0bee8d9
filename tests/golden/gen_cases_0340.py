#!/usr/bin/env python3
"""Golden corpus generator for vllm==0.34.0 (tests/golden/cases-0.34.0/).

    python3 tests/golden/gen_cases_0340.py            # (re)writes cases-0.34.0/

Deterministic: `random.Random(20261127)`, no set iteration, sorted output.
Four parts, each case tagged (`tags`: "decision=<ID>" for the decisions of
docs/vllm-0.34.0.md it is meant to exercise, "factor=level" for the random
parts, "part=<p>"):

- s-<stem>: every argv-mode case of the seed corpus (tests/golden/cases/),
  same command line, usage context, platform and env, so that one command
  line can be compared across versions ("from=<stem>" tag).
- f###-<slug>: hand-written focus cases, config and argv mode, one or a few
  decisions each, including the failing ones (each error at least once).
- c###-rand: uniform random config-mode assignments.
- a###-rand: uniform random `vllm serve` / `LLM(...)` command lines.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "cases-0.34.0"
SEED_CASES = HERE / "cases"
RNG = random.Random(20261127)

CPU_ENV = {"VLLM_CPU_KVCACHE_SPACE": "4"}
# fixture -> max_position_embeddings (hard limit of max_model_len)
MODEL_MAX = {"gpt_oss_0340": 8192, "mamba_0340": 2048, "llama": 4096, "llama_long": 262144, "llama_fp8_block": 4096,
             "bert": 512, "whisper": 448, "deepseek_v3": 16384, "jamba": 8192,
             "qwen3_next": 262144, "llama4": 32768}
MOE = {"deepseek_v3", "qwen3_next", "jamba", "llama4"}

CASES: list[tuple[str, dict]] = []


def add(name: str, case: dict, decisions=(), part="focus") -> None:
    case = dict(case)
    tags = [f"part={part}"] + [f"decision={d}" for d in decisions] + list(
        case.pop("tags", []))
    case["tags"] = tags
    if case.get("platform", "").startswith("cpu") if isinstance(
            case.get("platform"), str) else False:
        case["env"] = {**CPU_ENV, **case.get("env", {})}
    CASES.append((name, case))


_n = [0]


def focus(slug: str, description: str, decisions, **case) -> None:
    _n[0] += 1
    case.setdefault("platform", "cuda:90")
    add(f"f{_n[0]:03d}-{slug}", {"description": description, **case}, decisions)


def argv_focus(slug, description, decisions, argv, usage="OPENAI_API_SERVER",
               platform="cuda:90", env=None):
    focus(slug, description, decisions, argv=argv, usage_context=usage,
          platform=platform, env=env or {})


# ---------------------------------------------------------------------------
# Focus cases: platforms and defaults
# ---------------------------------------------------------------------------
for plat in ("cuda:75", "cuda:80", "cuda:89", "cuda:90", "cuda:100", "cuda:103",
             "rocm:gfx942", "rocm:gfx950", "cpu"):
    slug = plat.replace(":", "")
    extra = {}
    if plat == "cuda:75":
        extra["model_config"] = {"dtype": "float16"}  # no bf16 below sm80
    focus(f"defaults-{slug}", f"llama with every default on {plat}",
          ["V-DEFAULTS", "V-MODE-DEFAULT", "V-CUSTOM-OPS-DEFAULT",
           "V-CG-SIZES", "V-ASYNC-DEFAULT", "P-CHECK-" + plat.split(":")[0].upper()],
          platform=plat, model="llama", **extra)
focus("bf16-on-turing", "bfloat16 forced on sm75 (ModelConfig dtype check)",
      ["M-DTYPE-BF16-SM75"], platform="cuda:75",
      model_config={"dtype": "bfloat16"})
focus("model-none", "no ModelConfig at all", ["V-MODEL-NONE"], model=None)
focus("model-none-cpu", "no ModelConfig on CPU", ["V-MODEL-NONE", "P-CHECK-CPU"],
      model=None, platform="cpu")
for lvl in (0, 1, 2, 3):
    focus(f"opt-level-O{lvl}", f"optimization_level {lvl}, mode unset",
          ["V-OPT-LEVEL", "V-MODE-DEFAULT"], optimization_level=lvl)
    focus(f"opt-level-O{lvl}-tp2", f"optimization_level {lvl}, TP 2 (fusion defaults)",
          ["V-OPT-LEVEL", "V-FUSION-DEFAULTS"], optimization_level=lvl,
          parallel_config={"tensor_parallel_size": 2})
for plat in ("cuda:90", "cuda:100", "cuda:80"):
    focus(f"flashinfer-tp2-{plat.replace(':', '')}",
          f"TP 2 on {plat} with FlashInfer available (allreduce+RMSNorm fusion)",
          ["V-FUSION-DEFAULTS", "V-COMPILE-RANGES"],
          platform={"kind": "cuda", "capability": int(plat.split(":")[1]),
                    "flashinfer_available": True},
          parallel_config={"tensor_parallel_size": 2})
focus("cpu-no-amx", "x86 CPU without AMX / AVX512-BF16, MLA and Qwen3-Next",
      ["P-CHECK-CPU"], platform={"kind": "cpu", "cpu_amx": False, "cpu_avx512_bf16": False},
      model="deepseek_v3", env=CPU_ENV)
focus("cpu-no-amx-gdn", "x86 CPU without AMX / AVX512-BF16, Qwen3-Next",
      ["P-CHECK-CPU"], platform={"kind": "cpu", "cpu_amx": False, "cpu_avx512_bf16": False},
      model="qwen3_next", env=CPU_ENV)
focus("cpu-no-triton", "x86 CPU host without Triton (the CUDA wheel's answer)",
      ["P-CHECK-CPU"], platform={"kind": "cpu", "triton_available": False}, env=CPU_ENV)
for pm in ("interactivity", "throughput"):
    focus(f"perf-mode-{pm}", f"performance_mode {pm}",
          ["V-PERF-MODE", "V-CG-SIZES"], performance_mode=pm)
    focus(f"perf-mode-{pm}-b200", f"performance_mode {pm} on B200",
          ["V-PERF-MODE", "V-CG-SIZES", "V-CG-SPLIT-SIZES"], performance_mode=pm,
          platform="cuda:100")

# enforce eager / torch.compile switches
focus("enforce-eager", "enforce_eager: mode NONE, cudagraphs off, JIT warmup off",
      ["V-ENFORCE-EAGER", "V-EAGER-CG-OFF", "V-INDUCTOR-OFF-WARN"],
      model_config={"enforce_eager": True})
focus("enforce-eager-cpu", "enforce_eager on CPU",
      ["V-ENFORCE-EAGER", "P-CHECK-CPU"], platform="cpu",
      model_config={"enforce_eager": True})
focus("torch-compile-disable", "TORCH_COMPILE_DISABLE=1",
      ["V-TORCH-COMPILE-DISABLE", "V-NORMALIZE-PIECEWISE"],
      env={"TORCH_COMPILE_DISABLE": "1"})
focus("breakable-cg-env", "VLLM_USE_BREAKABLE_CUDAGRAPH=1 (mode NONE, keeps piecewise)",
      ["V-BREAKABLE-CG"], env={"VLLM_USE_BREAKABLE_CUDAGRAPH": "1"})
focus("breakable-cg-env-off", "VLLM_USE_BREAKABLE_CUDAGRAPH=0",
      ["V-BREAKABLE-CG"], env={"VLLM_USE_BREAKABLE_CUDAGRAPH": "0"})
focus("backend-eager", "compilation backend 'eager'",
      ["V-INDUCTOR-OFF-WARN", "V-CUSTOM-OPS-DEFAULT"],
      compilation_config={"backend": "eager"})
for mode in (0, 1, 2, 3):
    for cg in ("PIECEWISE", "FULL", "FULL_DECODE_ONLY", "FULL_AND_PIECEWISE", "NONE"):
        focus(f"mode{mode}-{cg.lower()}", f"compilation mode {mode} with cudagraph_mode {cg}",
              ["V-NORMALIZE-PIECEWISE", "V-FINAL-PIECEWISE-ASSERT", "V-INDUCTOR-OFF-WARN",
               "V-CG-SIZES"],
              compilation_config={"mode": mode, "cudagraph_mode": cg})
for ops in (["all"], ["none"], ["+rms_norm"], ["-rms_norm"], ["none", "+quant_fp8"],
            ["-quant_fp8"]):
    focus("custom-ops-" + "_".join(o.replace("+", "p").replace("-", "m") for o in ops),
          f"custom_ops {ops} on the fp8 block-quantized model",
          ["V-CUSTOM-OPS-DEFAULT", "V-QUANT-FP8-OP", "V-QUANT-CONFIG"],
          model="llama_fp8_block", compilation_config={"custom_ops": ops})

# quantization
focus("fp8-block-h100", "fp8 block quantization on H100", ["V-QUANT-CONFIG", "V-QUANT-FP8-OP"],
      model="llama_fp8_block")
focus("fp8-block-turing", "fp8 below its minimum capability (sm75)",
      ["V-QUANT-MIN-CAP"], model="llama_fp8_block", platform="cuda:75",
      model_config={"dtype": "float16"})
focus("fp8-block-fp32", "fp8 with float32 activations", ["V-QUANT-DTYPE"],
      model="llama_fp8_block", model_config={"dtype": "float32"})
focus("fp8-block-b200", "fp8 block quantization on B200 (DeepGEMM auto-disable)",
      ["V-QUANT-CONFIG", "V-DEEPGEMM-BLACKWELL"], model="llama_fp8_block",
      platform="cuda:100")
focus("fp8-block-rocm", "fp8 block quantization on MI300X", ["V-QUANT-CONFIG"],
      model="llama_fp8_block", platform="rocm:gfx942")
focus("fp8-block-cpu", "fp8 block quantization on CPU", ["V-QUANT-CONFIG", "P-CHECK-CPU"],
      model="llama_fp8_block", platform="cpu")

# float KV cache dtype mismatch
focus("kv-fp16-on-bf16", "cache_dtype float16 for a bfloat16 model",
      ["V-KV-FLOAT-MISMATCH"], cache_config={"cache_dtype": "float16"})
focus("kv-bf16-on-bf16", "cache_dtype bfloat16 equal to the model dtype",
      ["V-KV-FLOAT-MISMATCH"], cache_config={"cache_dtype": "bfloat16"})
focus("kv-fp8", "cache_dtype fp8", ["C-CACHE-DTYPE"], cache_config={"cache_dtype": "fp8"})

# async scheduling
focus("async-explicit-true", "async_scheduling true (mp executor)", ["V-ASYNC-EXPLICIT"],
      scheduler_config={"async_scheduling": True})
focus("async-explicit-false", "async_scheduling false", ["V-ASYNC-EXPLICIT", "V-NCCL-DP-SYNC"],
      scheduler_config={"async_scheduling": False})
focus("async-pooling", "pooling model: async scheduling off by default",
      ["V-ASYNC-DEFAULT", "V-POOLING-FULL-CG"], model="bert")
focus("async-dp2-moe", "DP 2 on an MoE model with async scheduling (NCCL DP sync off)",
      ["V-NCCL-DP-SYNC", "V-ASYNC-DEFAULT"], model="deepseek_v3",
      parallel_config={"data_parallel_size": 2, "enable_expert_parallel": True})
focus("async-dp2-dense", "DP 2 on a dense model", ["V-NCCL-DP-SYNC", "PC-DP-NON-MOE"],
      parallel_config={"data_parallel_size": 2})
focus("async-uni-executor", "uni executor", ["V-ASYNC-DEFAULT"],
      parallel_config={"distributed_executor_backend": "uni"})
focus("rocm-deepep-ht-dbo", "ROCm DeepEP HT DBO: async scheduling off by default",
      ["V-ASYNC-ROCM-DEEPEP-DBO", "V-UBATCH-BACKENDS"], platform="rocm:gfx942",
      model="deepseek_v3",
      parallel_config={"tensor_parallel_size": 2, "data_parallel_size": 2,
                       "enable_expert_parallel": True, "enable_dbo": True,
                       "all2all_backend": "deepep_high_throughput"})
focus("rocm-deepep-ht-dbo-async", "ROCm DeepEP HT DBO with async scheduling forced on",
      ["V-ASYNC-ROCM-DEEPEP-DBO"], platform="rocm:gfx942", model="deepseek_v3",
      scheduler_config={"async_scheduling": True},
      parallel_config={"tensor_parallel_size": 2, "data_parallel_size": 2,
                       "enable_expert_parallel": True, "enable_dbo": True,
                       "all2all_backend": "deepep_high_throughput"})

# spec-decode metrics / dynamic SD
focus("spec-metrics-without-spec", "per_request_spec_decode_metrics without spec decode",
      ["V-SPEC-METRICS"], observability_config={"per_request_spec_decode_metrics": "summary"})
focus("spec-metrics-ngram", "per_request_spec_decode_metrics with ngram",
      ["V-SPEC-METRICS", "V-SPEC-SCHED-TOKENS"],
      observability_config={"per_request_spec_decode_metrics": "detailed"},
      speculative_config={"method": "ngram", "num_speculative_tokens": 3,
                          "prompt_lookup_max": 4})

# Turing fp32
focus("turing-fp32", "float32 with chunked prefill on a T4", ["V-TURING-FP32"],
      platform="cuda:75", model_config={"dtype": "float32"})
focus("turing-fp32-no-cp", "float32 without chunked prefill on a T4", ["V-TURING-FP32"],
      platform="cuda:75", model_config={"dtype": "float32"},
      scheduler_config={"enable_chunked_prefill": False, "max_num_batched_tokens": 4096})

# pooling / encoder-decoder cudagraph rules
for cg in ("FULL", "FULL_AND_PIECEWISE", "FULL_DECODE_ONLY", "PIECEWISE"):
    focus(f"pooling-bert-{cg.lower()}", f"BERT pooling with cudagraph_mode {cg}",
          ["V-POOLING-FULL-CG"], model="bert", compilation_config={"cudagraph_mode": cg})
    focus(f"whisper-{cg.lower()}", f"Whisper (encoder-decoder) with cudagraph_mode {cg}",
          ["V-ENCDEC-CG", "V-WHISPER-FORK-WARN"], model="whisper",
          model_config={"skip_tokenizer_init": False},
          compilation_config={"cudagraph_mode": cg})
focus("whisper-spawn", "Whisper with VLLM_WORKER_MULTIPROC_METHOD=spawn",
      ["V-WHISPER-FORK-WARN"], model="whisper", model_config={"skip_tokenizer_init": False},
      env={"VLLM_WORKER_MULTIPROC_METHOD": "spawn"})
focus("whisper-torch-shm", "mm_tensor_ipc torch_shm without spawn", ["V-TORCH-SHM"],
      model="whisper", model_config={"skip_tokenizer_init": False, "mm_tensor_ipc": "torch_shm"})
focus("whisper-lm-only-mm-cg", "language_model_only with cudagraph_mm_encoder",
      ["V-LM-ONLY-MM-CG"], model="whisper",
      model_config={"skip_tokenizer_init": False, "language_model_only": True},
      compilation_config={"cudagraph_mm_encoder": True})
focus("whisper-encoder-only", "mm_encoder_only instance: prefix caching off",
      ["V-MM-ENCODER-ONLY"], model="whisper",
      model_config={"skip_tokenizer_init": False, "mm_encoder_only": True})

# pooling CP/APC
for model in ("bert", "llama", "jamba"):
    for pooling in (None, "LAST", "CLS", "MEAN"):
        if model == "bert" and pooling == "LAST":
            continue
        mc = {}
        if model != "bert" or pooling:
            mc = {"runner": "pooling", "convert": "embed"} if model != "bert" else {}
        if pooling:
            mc["pooler_config"] = {"pooling_type": pooling}
        if model != "bert" and pooling is None:
            continue
        focus(f"pool-{model}-{(pooling or 'native').lower()}",
              f"{model} pooling {pooling or 'native'}",
              ["M-POOLING-CP-APC", "V-POOLING-FULL-CG", "V-ASYNC-DEFAULT"],
              model=model, model_config=mc)

# model hooks of the two extra fixtures (gpt_oss_0340, mamba_0340)
for plat in ("cuda:90", "cuda:100", "rocm:gfx950", "cpu"):
    focus(f"gpt-oss-{plat.replace(':', '')}", f"GPT-OSS hook on {plat}",
          ["M-GPT-OSS", "V-CG-SIZES"], model="gpt_oss_0340", platform=plat)
focus("gpt-oss-user-sizes", "GPT-OSS with user capture sizes", ["M-GPT-OSS", "V-CG-SIZES"],
      model="gpt_oss_0340", compilation_config={"cudagraph_capture_sizes": [1, 2, 4]})
focus("gpt-oss-reasoning-set", "GPT-OSS with a reasoning parser already set", ["M-GPT-OSS"],
      model="gpt_oss_0340", structured_outputs_config={"reasoning_parser": "deepseek_r1"})
for apc in (None, True, False):
    focus(f"mamba-apc-{str(apc).lower()}", f"pure Mamba, prefix caching {apc}",
          ["M-MAMBA-APC", "M-MAMBA-BLOCK-SIZE"], model="mamba_0340",
          **({"cache_config": {"enable_prefix_caching": apc}} if apc is not None else {}))
focus("mamba-apc-no-cp", "pure Mamba, prefix caching without chunked prefill",
      ["M-MAMBA-APC"], model="mamba_0340", cache_config={"enable_prefix_caching": True},
      scheduler_config={"enable_chunked_prefill": False, "max_num_batched_tokens": 8192})
argv_focus("argv-gpt-oss", "`vllm serve models/gpt_oss_0340`", ["M-GPT-OSS", "E-BATCH-DEFAULTS"],
           ["models/gpt_oss_0340"])
argv_focus("argv-mamba", "`vllm serve models/mamba_0340`", ["M-MAMBA-APC", "E-CP-APC-DEFAULTS"],
           ["models/mamba_0340"])

# KV sharing fast prefill
focus("fast-prefill-eagle", "kv_sharing_fast_prefill with EAGLE", ["V-FAST-PREFILL-EAGLE"],
      cache_config={"kv_sharing_fast_prefill": True},
      speculative_config={"method": "eagle", "model": "llama_draft",
                          "num_speculative_tokens": 2})
focus("fast-prefill-ngram", "kv_sharing_fast_prefill with ngram", ["V-FAST-PREFILL-WARN"],
      cache_config={"kv_sharing_fast_prefill": True},
      speculative_config={"method": "ngram", "num_speculative_tokens": 2,
                          "prompt_lookup_max": 4})
focus("fast-prefill-alone", "kv_sharing_fast_prefill alone", ["V-FAST-PREFILL-WARN"],
      cache_config={"kv_sharing_fast_prefill": True})

# KV events
focus("kv-events-no-apc", "KV events on, prefix caching off", ["V-KV-EVENTS-NO-APC"],
      cache_config={"enable_prefix_caching": False},
      kv_events_config={"enable_kv_cache_events": True, "publisher": "zmq"})
focus("kv-events-disabled-publisher", "publisher set but events disabled",
      ["V-KV-EVENTS-PUBLISHER"], kv_events_config={"enable_kv_cache_events": False,
                                                   "publisher": "zmq"})
focus("kv-events-on", "KV events with prefix caching", ["V-KV-EVENTS-NO-APC"],
      kv_events_config={"enable_kv_cache_events": True, "publisher": "zmq"})

# KV transfer / HMA
for model in ("llama", "jamba", "llama4"):
    focus(f"kv-transfer-example-{model}", f"ExampleConnector on {model}",
          ["V-HMA-CONNECTOR", "V-HMA-CHUNKED-LOCAL"], model=model,
          kv_transfer_config={"kv_connector": "ExampleConnector", "kv_role": "kv_both"})
focus("kv-transfer-nixl-mla-dcp", "NixlConnector on MLA with DCP 2", ["V-NIXL-DCP"],
      model="deepseek_v3",
      parallel_config={"tensor_parallel_size": 2, "decode_context_parallel_size": 2},
      kv_transfer_config={"kv_connector": "NixlConnector", "kv_role": "kv_both"})
focus("kv-transfer-nixl-gqa-dcp", "NixlConnector with DCP on a GQA model", ["V-NIXL-DCP"],
      model="llama",
      parallel_config={"tensor_parallel_size": 4, "decode_context_parallel_size": 2},
      kv_transfer_config={"kv_connector": "NixlConnector", "kv_role": "kv_both"})
focus("kv-transfer-nixl-dcp-mismatch", "NixlConnector, DCP neither 1 nor TP", ["V-NIXL-DCP"],
      model="deepseek_v3",
      parallel_config={"tensor_parallel_size": 4, "decode_context_parallel_size": 2},
      kv_transfer_config={"kv_connector": "NixlConnector", "kv_role": "kv_both"})
focus("llama4-chunked-local", "Llama4 chunked local attention turns HMA off",
      ["V-HMA-CHUNKED-LOCAL"], model="llama4")
focus("llama4-chunked-local-allow", "Llama4 with the allow env",
      ["V-HMA-CHUNKED-LOCAL"], model="llama4",
      env={"VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE": "1"})
focus("llama4-hma-explicit", "HMA explicitly enabled where it must be disabled",
      ["V-HMA-EXPLICIT"], model="llama4",
      scheduler_config={"disable_hybrid_kv_cache_manager": False})
focus("hma-explicit-disable", "HMA explicitly disabled", ["V-HMA-EXPLICIT"],
      model="jamba", scheduler_config={"disable_hybrid_kv_cache_manager": True})
focus("hma-cpu", "CPU platform: no hybrid KV cache", ["V-HMA-PLATFORM", "P-CHECK-CPU"],
      platform="cpu", model="jamba")
focus("kv-offload-native", "kv_offloading_size 4 (native)", ["V-KV-OFFLOAD"],
      cache_config={"kv_offloading_size": 4})
focus("kv-offload-simple", "kv_offloading_size with VLLM_USE_SIMPLE_KV_OFFLOAD=1",
      ["V-KV-OFFLOAD"], cache_config={"kv_offloading_size": 4},
      env={"VLLM_USE_SIMPLE_KV_OFFLOAD": "1"})

# HiSparse
focus("hisparse-llama", "HiSparse on a model without index_topk", ["V-HISPARSE"],
      attention_config={"hisparse_config": {}})
focus("hisparse-cpu", "HiSparse on CPU", ["V-HISPARSE"], platform="cpu",
      attention_config={"hisparse_config": {}})
focus("hisparse-full", "HiSparse with cudagraph_mode FULL", ["V-HISPARSE"],
      attention_config={"hisparse_config": {}}, compilation_config={"cudagraph_mode": "FULL"})
focus("hisparse-dcp", "HiSparse with DCP", ["V-HISPARSE"], model="deepseek_v3",
      attention_config={"hisparse_config": {}},
      parallel_config={"tensor_parallel_size": 2, "decode_context_parallel_size": 2})
focus("hisparse-pp", "HiSparse with PP 2", ["V-HISPARSE"],
      attention_config={"hisparse_config": {}},
      parallel_config={"pipeline_parallel_size": 2})

# debug dump path
focus("debug-dump-env", "VLLM_DEBUG_DUMP_PATH", ["V-DEBUG-DUMP"],
      env={"VLLM_DEBUG_DUMP_PATH": "/tmp/oracle-dump"})
focus("debug-dump-both", "debug_dump_path overridden by VLLM_DEBUG_DUMP_PATH",
      ["V-DEBUG-DUMP"], env={"VLLM_DEBUG_DUMP_PATH": "/tmp/oracle-dump"},
      compilation_config={"debug_dump_path": "/tmp/oracle-cfg-dump"})

# mamba
focus("mamba-sr-no-fp16", "stochastic rounding without a float16 SSM cache",
      ["V-MAMBA-SR"], model="jamba", mamba_config={"enable_stochastic_rounding": True},
      platform="cuda:100")
focus("mamba-sr-hopper", "stochastic rounding (triton backend) on H100",
      ["MB-SR-CAPABILITY"], model="jamba", mamba_config={"enable_stochastic_rounding": True},
      cache_config={"mamba_ssm_cache_dtype": "float16"})
focus("mamba-sr-fp16", "stochastic rounding with a float16 SSM cache",
      ["V-MAMBA-SR"], model="jamba", mamba_config={"enable_stochastic_rounding": True},
      cache_config={"mamba_ssm_cache_dtype": "float16"}, platform="cuda:100")
for model in ("jamba", "qwen3_next"):
    for apc in (True, False):
        focus(f"hybrid-{model}-apc-{str(apc).lower()}", f"{model}, prefix caching {apc}",
              ["M-HYBRID", "M-MAMBA-APC"], model=model,
              cache_config={"enable_prefix_caching": apc})
focus("hybrid-jamba-mamba-block", "mamba_block_size without prefix caching",
      ["M-MAMBA-BLOCK-SIZE"], model="jamba",
      cache_config={"enable_prefix_caching": False, "mamba_block_size": 256})

# capture sizes
focus("cg-sizes-user", "user cudagraph_capture_sizes (deprecated)",
      ["V-CG-SIZES", "V-CG-LEGACY-WARN"],
      compilation_config={"cudagraph_capture_sizes": [1, 2, 4, 8]})
focus("cg-sizes-above-budget", "capture size above the token budget",
      ["V-CG-SIZES"], compilation_config={"cudagraph_capture_sizes": [4, 3000]},
      scheduler_config={"max_num_batched_tokens": 2048})
focus("cg-sizes-max-only", "max_cudagraph_capture_size only", ["V-CG-SIZES"],
      compilation_config={"max_cudagraph_capture_size": 100})
focus("cg-sizes-consistent", "sizes and a consistent max", ["V-CG-SIZES"],
      compilation_config={"cudagraph_capture_sizes": [1, 2, 4, 8, 16],
                          "max_cudagraph_capture_size": 16})
focus("cg-sizes-inconsistent", "sizes and an inconsistent max", ["V-CG-SIZES-CONSISTENCY"],
      compilation_config={"cudagraph_capture_sizes": [1, 2, 4, 8],
                          "max_cudagraph_capture_size": 16})
focus("cg-split-prefill", "prefill capture token sizes", ["V-CG-SPLIT-SIZES"],
      compilation_config={"prefill_cudagraph_capture_token_sizes": [16, 64, 256, 9000]})
focus("cg-split-decode", "decode capture request sizes", ["V-CG-SPLIT-SIZES"],
      compilation_config={"decode_cudagraph_capture_request_sizes": [1, 2, 4, 8, 512]})
focus("cg-split-cap-error", "prefill sizes above their cap", ["V-CG-SPLIT-SIZES"],
      compilation_config={"prefill_cudagraph_capture_token_sizes": [16, 64, 256],
                          "max_prefill_cudagraph_capture_tokens": 32})
focus("cg-split-mixed-legacy", "legacy and split sizes together", ["V-CG-SPLIT-SIZES"],
      compilation_config={"cudagraph_capture_sizes": [1, 2, 4],
                          "decode_cudagraph_capture_request_sizes": [1, 2]})
focus("cg-split-max-decode", "max_decode_cudagraph_capture_requests 64", ["V-CG-SPLIT-SIZES"],
      compilation_config={"max_decode_cudagraph_capture_requests": 64})
focus("cg-b200-wide", "B200 default wide grids", ["V-CG-SPLIT-SIZES", "V-CG-SIZES"],
      platform="cuda:100")
focus("cg-small-seqs", "max_num_seqs 4", ["V-CG-SIZES"],
      scheduler_config={"max_num_seqs": 4})
focus("cg-small-budget", "max_num_batched_tokens 8 with chunked prefill", ["V-CG-SIZES"],
      scheduler_config={"max_num_batched_tokens": 8})

# DBO / all2all
for backend in ("deepep_low_latency", "deepep_high_throughput", "allgather_reducescatter",
                "naive", "pplx", "nixl_ep", "flashinfer_all2allv", "moonep"):
    for plat in ("cuda:90", "rocm:gfx942"):
        if plat.startswith("rocm") and backend not in ("allgather_reducescatter",
                                                      "deepep_low_latency"):
            continue
        focus(f"dbo-{backend}-{plat.replace(':', '')}", f"DBO with {backend} on {plat}",
              ["V-UBATCH-BACKENDS", "PC-ALL2ALL"], platform=plat, model="deepseek_v3",
              parallel_config={"tensor_parallel_size": 2, "data_parallel_size": 2,
                               "enable_expert_parallel": True, "enable_dbo": True,
                               "all2all_backend": backend})
focus("moonep-fp8", "moonep with a quantized model", ["V-MOONEP"],
      model="llama_fp8_block",
      parallel_config={"all2all_backend": "moonep"})
focus("moonep-fp16", "moonep with float16", ["V-MOONEP"], model="qwen3_next",
      model_config={"dtype": "float16"}, parallel_config={"all2all_backend": "moonep"})
focus("moonep-bf16", "moonep on a bf16 MoE with EP", ["V-MOONEP"], model="qwen3_next",
      parallel_config={"all2all_backend": "moonep", "data_parallel_size": 2,
                       "enable_expert_parallel": True})
focus("moonep-round-robin", "moonep with round_robin placement", ["V-MOONEP"],
      model="qwen3_next",
      parallel_config={"all2all_backend": "moonep", "enable_expert_parallel": True,
                       "data_parallel_size": 2, "expert_placement_strategy": "round_robin"})

# DCP / TP
for model, tp, dcp in (("deepseek_v3", 2, 2), ("deepseek_v3", 4, 4), ("deepseek_v3", 8, 2),
                       ("llama", 2, 2), ("llama", 8, 2), ("llama", 4, 4), ("llama", 2, 4)):
    focus(f"dcp-{model}-tp{tp}-dcp{dcp}", f"TP {tp}, DCP {dcp} on {model}",
          ["PC-DCP", "V-DCP-DEFAULTS"], model=model,
          parallel_config={"tensor_parallel_size": tp, "decode_context_parallel_size": dcp})
focus("tp-heads-not-divisible", "TP 3 with 8 heads", ["M-TP-HEADS"],
      parallel_config={"tensor_parallel_size": 3}, platform={"kind": "cuda",
                                                              "capability": 90})
focus("world-too-large", "TP 8 × PP 2 on 8 GPUs", ["PC-WORLD-SIZE"],
      parallel_config={"tensor_parallel_size": 8, "pipeline_parallel_size": 2})
focus("pp2", "PP 2", ["M-PP"], parallel_config={"pipeline_parallel_size": 2})
focus("sparse-mla-factor-long", "MLA with max_model_len 16384 (workspace factor)",
      ["V-SPARSE-MLA-FACTOR"], model="deepseek_v3")

# speculative decoding
focus("spec-eagle", "EAGLE draft", ["V-SPEC-SCHED-TOKENS", "S-EAGLE"],
      speculative_config={"method": "eagle", "model": "llama_draft",
                          "num_speculative_tokens": 3})
focus("spec-mtp", "DeepSeek MTP", ["V-SPEC-SCHED-TOKENS", "S-MTP"], model="deepseek_v3",
      speculative_config={"method": "mtp", "num_speculative_tokens": 1})
focus("spec-ngram-tiny-budget", "ngram with a 4-token budget", ["V-SPEC-LOOKAHEAD"],
      scheduler_config={"max_num_batched_tokens": 4, "max_num_seqs": 4},
      speculative_config={"method": "ngram", "num_speculative_tokens": 4,
                          "prompt_lookup_max": 4})
focus("spec-ngram-dp2-dynamic", "dynamic SD with DP 2", ["V-DYNAMIC-SD-DP"],
      model="deepseek_v3",
      parallel_config={"data_parallel_size": 2, "enable_expert_parallel": True},
      speculative_config={"method": "ngram", "num_speculative_tokens": 4,
                          "prompt_lookup_max": 4,
                          "num_speculative_tokens_per_batch_size": [[1, 63, 4],
                                                                    [64, 1024, 2]]})
focus("lora", "LoRA", ["V-LORA"], lora_config={"max_lora_rank": 16})
focus("lora-cpu", "LoRA on CPU", ["V-LORA", "P-CHECK-CPU"], platform="cpu",
      lora_config={"max_lora_rank": 16})

# chunked prefill / budget
focus("no-cp-small-budget", "no chunked prefill, budget < max_model_len",
      ["SC-BUDGET-LT-MAXLEN"], scheduler_config={"enable_chunked_prefill": False,
                                                 "max_num_batched_tokens": 2048})
focus("no-cp-budget-ok", "no chunked prefill, budget = max_model_len", ["SC-NO-CP"],
      scheduler_config={"enable_chunked_prefill": False, "max_num_batched_tokens": 4096})
focus("long-context-b200", "llama_long 200k on B200", ["V-CG-SIZES", "M-MAX-LEN"],
      model="llama_long", platform="cuda:100", model_config={"max_model_len": 200000})
focus("max-len-too-long", "max_model_len above the fixture limit", ["M-MAX-LEN"],
      model_config={"max_model_len": 8192})

# profiler / diffusion / aux output / watermark
focus("profiler-torch", "torch profiler without a directory", ["V-PROFILER"],
      profiler_config={"profiler": "torch"})
focus("profiler-torch-dir", "torch profiler with a directory", ["V-PROFILER"],
      profiler_config={"profiler": "torch", "torch_profiler_dir": "/tmp/oracle-prof"})
focus("aux-output-dense", "routed-experts aux output on a dense model", ["V-AUX-OUTPUT"],
      aux_output_config={"enable_return_routed_experts": True})
focus("aux-output-moe", "routed-experts aux output on an MoE model", ["V-AUX-OUTPUT"],
      model="deepseek_v3", aux_output_config={"enable_return_routed_experts": True})

# CPU specifics
for extra_name, extra in (("tp2", {"parallel_config": {"tensor_parallel_size": 2}}),
                          ("mla", {"model": "deepseek_v3"}),
                          ("dbo", {"model": "deepseek_v3", "parallel_config": {
                              "enable_dbo": True, "enable_expert_parallel": True,
                              "data_parallel_size": 2,
                              "all2all_backend": "deepep_low_latency"}}),
                          ("block32", {"cache_config": {"block_size": 32}}),
                          ("block48", {"cache_config": {"block_size": 48}}),
                          ("mode3-full", {"compilation_config": {"mode": 3,
                                                                 "cudagraph_mode": "FULL"}}),
                          ("fp16", {"model_config": {"dtype": "float16"}}),
                          ("no-kvspace", {"env": {"VLLM_CPU_KVCACHE_SPACE": None}}),
                          ("whisper", {"model": "whisper",
                                       "model_config": {"skip_tokenizer_init": False}}),
                          ("bert", {"model": "bert"}),
                          ("qwen3-next", {"model": "qwen3_next"})):
    focus(f"cpu-{extra_name}", f"CPU platform: {extra_name}", ["P-CHECK-CPU"],
          platform="cpu", **extra)

# ROCm specifics
for arch in ("gfx942", "gfx950"):
    for extra_name, extra in (("aiter", {"env": {"VLLM_ROCM_USE_AITER": "1"}}),
                              ("deepseek", {"model": "deepseek_v3"}),
                              ("jamba", {"model": "jamba"}),
                              ("tp2", {"parallel_config": {"tensor_parallel_size": 2}}),
                              ("fp8kv", {"cache_config": {"cache_dtype": "fp8"}})):
        focus(f"rocm-{arch}-{extra_name}", f"ROCm {arch}: {extra_name}", ["P-CHECK-ROCM"],
              platform=f"rocm:{arch}", **extra)

# argv focus: EngineArgs defaults per device and usage context
for plat in ("cuda:75", "cuda:80", "cuda:89", "cuda:90", "cuda:100", "cuda:103",
             "rocm:gfx942", "rocm:gfx950", "cpu"):
    for usage in ("OPENAI_API_SERVER", "LLM_CLASS"):
        argv_focus(f"argv-defaults-{plat.replace(':', '')}-{usage.split('_')[0].lower()}",
                   f"`vllm serve models/llama` defaults on {plat} ({usage})",
                   ["E-BATCH-DEFAULTS", "E-CP-APC-DEFAULTS"],
                   ["models/llama"] + (["--dtype", "float16"] if plat == "cuda:75" else []),
                   usage=usage, platform=plat,
                   env=CPU_ENV if plat == "cpu" else None)
argv_focus("argv-O0", "-O0", ["E-OPT-LEVEL", "V-OPT-LEVEL"], ["models/llama", "-O0"])
argv_focus("argv-O1", "-O1", ["E-OPT-LEVEL", "V-OPT-LEVEL"], ["models/llama", "-O1"])
argv_focus("argv-O3", "-O3", ["E-OPT-LEVEL", "V-OPT-LEVEL"], ["models/llama", "-O3"])
argv_focus("argv-cc-mode-none", "-cc.mode=none", ["E-CC-DOTTED"],
           ["models/llama", "-cc.mode=none"])
argv_focus("argv-cc-dotted", "-cc.cudagraph_mode=PIECEWISE -cc.mode=3",
           ["E-CC-DOTTED"], ["models/llama", "-cc.cudagraph_mode=PIECEWISE", "-cc.mode=3"])
argv_focus("argv-capture-sizes-flag", "--cudagraph-capture-sizes and the JSON field",
           ["E-CG-SIZES-EXCLUSIVE"],
           ["models/llama", "--cudagraph-capture-sizes", "1", "2", "4",
            "--compilation-config", '{"cudagraph_capture_sizes": [1, 2]}'])
argv_focus("argv-attention-backend", "--attention-backend FLASH_ATTN", ["E-ATTN-BACKEND"],
           ["models/llama", "--attention-backend", "FLASH_ATTN"])
argv_focus("argv-attention-backend-both", "--attention-backend and attention_config.backend",
           ["E-ATTN-BACKEND"],
           ["models/llama", "--attention-backend", "FLASH_ATTN",
            "--attention-config", '{"backend": "TRITON_ATTN"}'])
argv_focus("argv-no-chunked-prefill", "--no-enable-chunked-prefill",
           ["E-CP-APC-DEFAULTS", "SC-NO-CP"], ["models/llama", "--no-enable-chunked-prefill"])
argv_focus("argv-pooling-bert", "BERT pooling runner", ["E-CP-APC-DEFAULTS", "E-BATCH-DEFAULTS"],
           ["models/bert", "--runner", "pooling"])
argv_focus("argv-whisper", "Whisper server defaults", ["E-BATCH-DEFAULTS", "V-ENCDEC-CG"],
           ["models/whisper"])
argv_focus("argv-jamba", "Jamba defaults", ["E-CP-APC-DEFAULTS", "M-HYBRID"], ["models/jamba"])
argv_focus("argv-jamba-apc", "Jamba with prefix caching", ["M-MAMBA-APC"],
           ["models/jamba", "--enable-prefix-caching"])
argv_focus("argv-qwen3-next-apc", "Qwen3-Next with prefix caching", ["M-MAMBA-APC"],
           ["models/qwen3_next", "--enable-prefix-caching"])
argv_focus("argv-mamba-cache-mode", "--mamba-cache-mode all (deprecated)",
           ["E-MAMBA-CACHE-MODE"], ["models/jamba", "--mamba-cache-mode", "all"])
argv_focus("argv-dp-hybrid-external", "--data-parallel-hybrid-lb with external lb",
           ["E-DP-LB"], ["models/deepseek_v3", "--data-parallel-size", "2",
                         "--data-parallel-hybrid-lb", "--data-parallel-external-lb"])
argv_focus("argv-dp-external-dense", "external DP on a dense model", ["E-DP-LB"],
           ["models/llama", "--data-parallel-size", "2", "--data-parallel-rank", "0"])
argv_focus("argv-dp-hybrid-no-local", "--data-parallel-hybrid-lb without local size",
           ["E-DP-LB"], ["models/deepseek_v3", "--data-parallel-size", "2",
                         "--data-parallel-hybrid-lb"])
argv_focus("argv-nnodes-ray", "--nnodes 2 with the ray DP backend", ["E-DP-LB"],
           ["models/deepseek_v3", "--nnodes", "2", "--data-parallel-backend", "ray"])
argv_focus("argv-nnodes-2", "--nnodes 2 --node-rank 1 with DP 2", ["E-DP-LB"],
           ["models/deepseek_v3", "--nnodes", "2", "--node-rank", "1",
            "--data-parallel-size", "2", "--enable-expert-parallel"])
argv_focus("argv-fault-tolerance", "--enable-fault-tolerance without external lb",
           ["E-FAULT-TOLERANCE"], ["models/llama", "--enable-fault-tolerance"])
argv_focus("argv-lora-spec-budget", "LoRA + spec decode with a small budget",
           ["E-LORA-SPEC-BUDGET"],
           ["models/llama", "--enable-lora", "--max-num-batched-tokens", "256",
            "--max-num-seqs", "256", "--speculative-config",
            '{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}'])
argv_focus("argv-default-mm-loras", "--default-mm-loras on a text model",
           ["E-DEFAULT-MM-LORAS"],
           ["models/llama", "--enable-lora", "--default-mm-loras", '{"audio": "/tmp/x"}'])
argv_focus("argv-kda-flashkda-rocm", "--kda-prefill-backend flashkda on ROCm",
           ["E-KDA-BACKEND"], ["models/llama", "--kda-prefill-backend", "flashkda"],
           platform="rocm:gfx942")
argv_focus("argv-kda-fused-cuda", "--kda-prefill-backend fused on CUDA", ["E-KDA-BACKEND"],
           ["models/llama", "--kda-prefill-backend", "fused"])
argv_focus("argv-flashinfer-autotune-both", "--enable-flashinfer-autotune twice",
           ["E-FI-AUTOTUNE"], ["models/llama", "--enable-flashinfer-autotune",
                               "--kernel-config", '{"enable_flashinfer_autotune": false}'])
argv_focus("argv-max-len-auto", "--max-model-len -1 (auto)", ["M-MAX-LEN"],
           ["models/llama", "--max-model-len", "-1"])
argv_focus("argv-async-off", "--no-async-scheduling", ["V-ASYNC-EXPLICIT"],
           ["models/llama", "--no-async-scheduling"])
argv_focus("argv-performance-interactivity", "--performance-mode interactivity",
           ["V-PERF-MODE", "E-BATCH-DEFAULTS"],
           ["models/llama", "--performance-mode", "interactivity"])
argv_focus("argv-performance-throughput", "--performance-mode throughput",
           ["V-PERF-MODE", "E-BATCH-DEFAULTS"],
           ["models/llama", "--performance-mode", "throughput"])
argv_focus("argv-gb10", "GB10 (sm121) server defaults", ["E-BATCH-DEFAULTS"],
           ["models/llama"], platform="cuda:121")
argv_focus("argv-kv-offload", "--kv-offloading-size 8", ["V-KV-OFFLOAD"],
           ["models/llama", "--kv-offloading-size", "8"])
argv_focus("argv-pp2-unsupported", "-pp 2 on BERT", ["E-PP-SUPPORTED"],
           ["models/bert", "-pp", "2"])
argv_focus("argv-enforce-eager", "--enforce-eager", ["V-ENFORCE-EAGER"],
           ["models/llama", "--enforce-eager"], usage="LLM_CLASS")
argv_focus("argv-deepseek-tp8", "DeepSeek -tp 8 on B200", ["M-DEEPSEEK", "V-CG-SIZES"],
           ["models/deepseek_v3", "-tp", "8"], platform="cuda:100")
argv_focus("argv-llama4-server", "Llama4 server defaults", ["V-HMA-CHUNKED-LOCAL"],
           ["models/llama4"])

# Added after the first corpus run (appended so that no earlier name moves).
focus("llama4-chunked-local-env0", "Llama4 with VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=0",
      ["V-HMA-CHUNKED-LOCAL"], model="llama4",
      env={"VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE": "0"})
focus("llama4-hma-explicit-env0", "HMA explicitly enabled, chunked local attention forbids it",
      ["V-HMA-EXPLICIT", "V-HMA-CHUNKED-LOCAL"], model="llama4",
      scheduler_config={"disable_hybrid_kv_cache_manager": False},
      env={"VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE": "0"})
focus("spec-eagle-tiny-budget", "EAGLE (3 tokens) with a 2-token budget", ["V-SPEC-LOOKAHEAD"],
      scheduler_config={"max_num_batched_tokens": 2, "max_num_seqs": 2},
      speculative_config={"method": "eagle", "model": "llama_draft",
                          "num_speculative_tokens": 3})
focus("modelopt-fp8-turing", "ModelOpt FP8 (minimum capability 80) on a T4",
      ["V-QUANT-MIN-CAP"], model="llama_modelopt_fp8", platform="cuda:75",
      model_config={"dtype": "float16"})
focus("modelopt-fp8-h100", "ModelOpt FP8 on H100", ["V-QUANT-CONFIG"],
      model="llama_modelopt_fp8")
focus("stock-compile-full", "STOCK_TORCH_COMPILE with FULL graphs", ["V-STOCK-COMPILE-CG"],
      compilation_config={"mode": 1, "cudagraph_mode": "FULL"})
focus("dbo-lora", "DBO with LoRA (model runner)", ["V-MODEL-RUNNER"], model="deepseek_v3",
      lora_config={"max_lora_rank": 16},
      parallel_config={"tensor_parallel_size": 2, "data_parallel_size": 2,
                       "enable_expert_parallel": True, "enable_dbo": True,
                       "all2all_backend": "deepep_low_latency"})

# Second batch of additions (appended).
focus("draft-maxlen", "EAGLE draft (4096) for a 131072-token target", ["V-DRAFT-MAXLEN"],
      model="llama_long", model_config={"max_model_len": 131072},
      speculative_config={"method": "eagle", "model": "llama_draft",
                          "num_speculative_tokens": 2})
focus("sampling-replay-raw", "return_sampling_mask with raw logprobs", ["V-SAMPLING-REPLAY"],
      model_config={"return_sampling_mask": True})
focus("sampling-replay-processed", "return_sampling_mask with processed logprobs",
      ["V-SAMPLING-REPLAY"],
      model_config={"return_sampling_mask": True, "logprobs_mode": "processed_logprobs"})
focus("adaptive-verify-piecewise", "adaptive verification with PIECEWISE graphs",
      ["V-ADAPTIVE-VERIFY"], compilation_config={"cudagraph_mode": "PIECEWISE"},
      speculative_config={"method": "ngram", "num_speculative_tokens": 3,
                          "prompt_lookup_max": 4, "enable_adaptive_verification": True})
focus("adaptive-verify-full", "adaptive verification with the default graphs",
      ["V-ADAPTIVE-VERIFY"],
      speculative_config={"method": "ngram", "num_speculative_tokens": 3,
                          "prompt_lookup_max": 4, "enable_adaptive_verification": True})
focus("batch-sharded-tp1", "batch-sharded sampling with TP 1", ["V-BATCH-SHARDED-SAMPLING"],
      parallel_config={"enable_batch_sharded_sampling": True})
focus("batch-sharded-tp2", "batch-sharded sampling with TP 2", ["V-BATCH-SHARDED-SAMPLING"],
      parallel_config={"enable_batch_sharded_sampling": True, "tensor_parallel_size": 2})
focus("extensible-kv-cpu", "extensible KV cache requested on CPU", ["V-EXTENSIBLE-KV"],
      platform="cpu", cache_config={"enable_extensible_kv_cache": True})
focus("extensible-kv-membytes", "kv_cache_memory_bytes on H100 (extensible KV off)",
      ["V-EXTENSIBLE-KV"], cache_config={"kv_cache_memory_bytes": 8 * 2**30})
focus("proton-cpu", "Proton profiler on CPU", ["V-PROFILER"], platform="cpu",
      profiler_config={"profiler": "proton", "proton_profiler_dir": "/tmp/oracle-proton"})
focus("proton-cuda-graphs", "Proton profiler with CUDA graphs", ["V-PROFILER"],
      profiler_config={"profiler": "proton", "proton_profiler_dir": "/tmp/oracle-proton"})
focus("fault-tolerance-eager", "fault tolerance with enforce_eager", ["V-ENFORCE-EAGER",
      "V-NCCL-DP-SYNC"], model_config={"enforce_eager": True},
      parallel_config={"enable_fault_tolerance": True})
focus("watermark", "watermarking without spec decode", ["V-WATERMARK"],
      watermark_config={"key": 1})
focus("watermark-eagle", "watermarking with EAGLE", ["V-WATERMARK"],
      watermark_config={"key": 1},
      speculative_config={"method": "eagle", "model": "llama_draft",
                          "num_speculative_tokens": 2})
focus("sleep-mode-connector", "sleep mode with ExampleConnector", ["V-KV-TRANSFER-COMPAT"],
      model_config={"enable_sleep_mode": True},
      kv_transfer_config={"kv_connector": "ExampleConnector", "kv_role": "kv_both"})
focus("diffusion", "a diffusion config on an autoregressive model", ["V-DIFFUSION-SCHED"],
      diffusion_config={"canvas_length": 64})

# Third batch of additions (appended).
focus("nvfp4-kv-mla", "nvfp4 KV cache on an MLA model", ["V-NVFP4-MLA"],
      model="deepseek_v3", cache_config={"cache_dtype": "nvfp4"})
focus("replayssm-llama", "use_replayssm on a non-mamba model", ["V-REPLAYSSM"],
      cache_config={"use_replayssm": True})
focus("direct-reload-lora", "VLLM_RELOAD_MODE=direct with LoRA", ["V-DIRECT-RELOAD"],
      lora_config={"max_lora_rank": 16}, env={"VLLM_RELOAD_MODE": "direct"})
argv_focus("argv-cpu-no-kvspace", "vllm serve on CPU without VLLM_CPU_KVCACHE_SPACE (0.34.0 no longer warns)",
           ["P-CHECK-CPU"], ["models/llama"], platform="cpu", env={"VLLM_CPU_KVCACHE_SPACE": None})

# ---------------------------------------------------------------------------
# Random config-mode cases
# ---------------------------------------------------------------------------
PLATFORMS = ["cuda:75", "cuda:80", "cuda:89", "cuda:90", "cuda:100", "cuda:103",
             "rocm:gfx942", "rocm:gfx950", "cpu"]
MODELS = ["llama", "llama_long", "llama_fp8_block", "bert", "whisper", "deepseek_v3",
          "jamba", "qwen3_next", "llama4", None]
CGS = [None, "NONE", "PIECEWISE", "FULL", "FULL_DECODE_ONLY", "FULL_AND_PIECEWISE"]
OPS = [None, ["all"], ["none"], ["+rms_norm"], ["-rms_norm"]]
PAR = [(1, 1), (2, 1), (4, 1), (8, 1), (2, 2), (4, 2), (8, 4)]
A2A = [None, "deepep_low_latency", "deepep_high_throughput", "allgather_reducescatter",
       "naive"]


def pick(xs):
    return xs[RNG.randrange(len(xs))]


def random_config_case(i: int) -> tuple[dict, list[str]]:
    plat = pick(PLATFORMS)
    model = pick(MODELS)
    tags = [f"platform={plat}", f"model={model}"]
    case: dict = {"description": "random config-mode case", "platform": plat,
                  "model": model}
    mc: dict = {}
    if plat == "cuda:75" or RNG.random() < 0.2:
        mc["dtype"] = pick(["float16", "float32"])
    if model == "whisper":
        mc["skip_tokenizer_init"] = False
    eager = pick([None, True, False])
    if eager is not None and model is not None:
        mc["enforce_eager"] = eager
    tags.append(f"enforce_eager={eager}")
    maxlen = None
    if model is not None and RNG.random() < 0.4:
        cap = MODEL_MAX[model]
        maxlen = pick([v for v in (2048, 4096, 131072, 200000) if v <= cap] or [cap])
        mc["max_model_len"] = maxlen
    tags.append(f"max_model_len={maxlen}")
    if model in ("llama", "jamba") and RNG.random() < 0.25:
        mc.update({"runner": "pooling", "convert": "embed",
                   "pooler_config": {"pooling_type": pick(["LAST", "MEAN", "CLS"])}})
        tags.append("pooling=on")
    if mc and model is not None:
        case["model_config"] = mc
    cc: dict = {}
    mode = pick([None, None, 0, 1, 2, 3])
    if mode is not None:
        cc["mode"] = mode
    cg = pick(CGS)
    if cg is not None:
        cc["cudagraph_mode"] = cg
    ops = pick(OPS)
    if ops is not None:
        cc["custom_ops"] = ops
    if RNG.random() < 0.2:
        cc["cudagraph_capture_sizes"] = pick([[1, 2, 4, 8], [1, 3, 5, 7, 9, 12], [4, 3000]])
    tags += [f"mode={mode}", f"cudagraph_mode={cg}", f"custom_ops={ops}"]
    if cc:
        case["compilation_config"] = cc
    tp, dcp = pick(PAR)
    if plat == "cpu" and tp > 4:
        tp, dcp = 2, 1
    if dcp > 1 and model != "deepseek_v3" and RNG.random() < 0.75:
        dcp = 1  # DCP on GQA models mostly fails: keep a few
    if model in ("bert", "whisper") and tp > 2:
        tp, dcp = 2, 1
    pc: dict = {}
    if tp > 1:
        pc["tensor_parallel_size"] = tp
    if dcp > 1:
        pc["decode_context_parallel_size"] = dcp
    if model in MOE and RNG.random() < 0.4:
        pc["data_parallel_size"] = 2 if tp <= 4 else 1
        pc["enable_expert_parallel"] = True
        a2a = pick(A2A)
        if a2a:
            pc["all2all_backend"] = a2a
        if RNG.random() < 0.4:
            pc["enable_dbo"] = True
    tags.append(f"parallel={pc}")
    if pc:
        case["parallel_config"] = pc
    sc: dict = {}
    cp = pick([None, True, False])
    if cp is not None:
        sc["enable_chunked_prefill"] = cp
        if cp is False:
            sc["max_num_batched_tokens"] = max(maxlen or MODEL_MAX.get(model, 8192) or 8192,
                                               2048)
    if RNG.random() < 0.2:
        sc["async_scheduling"] = pick([True, False])
    if RNG.random() < 0.15:
        sc["max_num_seqs"] = pick([8, 64, 512])
    if sc:
        case["scheduler_config"] = sc
    cache: dict = {}
    apc = pick([None, True, False])
    if apc is not None:
        cache["enable_prefix_caching"] = apc
    if RNG.random() < 0.1:
        cache["kv_offloading_size"] = 2
    if cache:
        case["cache_config"] = cache
    if RNG.random() < 0.2:
        case["kv_transfer_config"] = {"kv_connector": "ExampleConnector",
                                      "kv_role": "kv_both"}
    if RNG.random() < 0.2:
        case["kv_events_config"] = {"enable_kv_cache_events": pick([True, False]),
                                    "publisher": "zmq"}
    if model in ("llama", "llama_long") and RNG.random() < 0.25:
        case["speculative_config"] = pick([
            {"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4},
            {"method": "eagle", "model": "llama_draft", "num_speculative_tokens": 2}])
    elif model == "deepseek_v3" and RNG.random() < 0.3:
        case["speculative_config"] = {"method": "mtp", "num_speculative_tokens": 1}
    if RNG.random() < 0.25:
        case["optimization_level"] = pick([0, 1, 2, 3])
    if RNG.random() < 0.15:
        case["performance_mode"] = pick(["interactivity", "throughput"])
    env = {}
    if RNG.random() < 0.1:
        env["VLLM_USE_BREAKABLE_CUDAGRAPH"] = pick(["0", "1"])
    if model == "llama4" and RNG.random() < 0.5:
        env["VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE"] = "1"
    if env:
        case["env"] = env
    return case, tags


for i in range(1, 71):
    case, tags = random_config_case(i)
    add(f"c{i:03d}-rand", {**case, "tags": tags}, part="random-config")


# ---------------------------------------------------------------------------
# Random argv cases
# ---------------------------------------------------------------------------
def random_argv_case(i: int) -> tuple[dict, list[str]]:
    plat = pick(PLATFORMS)
    model = pick([m for m in MODELS if m is not None])
    usage = "OPENAI_API_SERVER" if i % 2 else "LLM_CLASS"
    argv = [f"models/{model}"] if RNG.random() < 0.5 else ["--model", f"models/{model}"]
    tags = [f"platform={plat}", f"model={model}", f"usage_context={usage}"]
    if plat == "cuda:75":
        argv += ["--dtype", pick(["float16", "half", "float32"])]
    elif RNG.random() < 0.15:
        argv += ["--dtype", pick(["float16", "float32"])]
    o = pick([None, "-O0", "-O1", "-O2", "-O3", "-O 0", "-cc.mode=2", "-O.mode=3"])
    if o:
        argv += o.split(" ")
    tags.append(f"opt={o}")
    if RNG.random() < 0.3:
        argv += ["--enforce-eager"]
    if RNG.random() < 0.3:
        argv += [f"-cc.cudagraph_mode={pick(CGS[1:])}"]
    tp, dcp = pick(PAR)
    if plat == "cpu" and tp > 4:
        tp, dcp = 2, 1
    if dcp > 1 and model != "deepseek_v3" and RNG.random() < 0.75:
        dcp = 1
    if model in ("bert", "whisper") and tp > 2:
        tp, dcp = 2, 1
    if tp > 1:
        argv += ["-tp", str(tp)]
    if dcp > 1:
        argv += ["-dcp", str(dcp)]
    if model in MOE and RNG.random() < 0.4 and tp <= 4:
        argv += ["--data-parallel-size", "2", "--enable-expert-parallel"]
        if RNG.random() < 0.5:
            argv += ["--all2all-backend", pick(A2A[1:])]
        if RNG.random() < 0.3:
            argv += ["--enable-dbo"]
    cp = pick([None, "--enable-chunked-prefill", "--no-enable-chunked-prefill"])
    if cp:
        argv.append(cp)
    apc = pick([None, "--enable-prefix-caching", "--no-enable-prefix-caching"])
    if apc:
        argv.append(apc)
    if RNG.random() < 0.3:
        cap = MODEL_MAX[model]
        argv += ["--max-model-len", pick([x for x in ("2k", "4096", "128k", "200000")
                                          if int(x.replace("k", "000")) <= cap] or [str(cap)])]
    if RNG.random() < 0.25:
        argv += ["--max-num-batched-tokens", pick(["512", "4K", "16384"])]
    if RNG.random() < 0.2:
        argv += ["--max-num-seqs", pick(["16", "256"])]
    if RNG.random() < 0.15:
        argv += ["--kv-transfer-config",
                 '{"kv_connector": "ExampleConnector", "kv_role": "kv_both"}']
    if RNG.random() < 0.15:
        argv += ["--kv-events-config", '{"enable_kv_cache_events": true, "publisher": "zmq"}']
    if model in ("llama", "llama_long") and RNG.random() < 0.2:
        argv += ["--speculative-config", pick([
            '{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}',
            '{"method": "eagle", "model": "models/llama_draft", "num_speculative_tokens": 2}'])]
    if model in ("llama", "llama_long") and RNG.random() < 0.15:
        argv += ["--enable-lora"]
    if model in ("llama", "jamba") and RNG.random() < 0.15:
        argv += ["--runner", "pooling", "--convert", "embed"]
    if RNG.random() < 0.15:
        argv += ["--performance-mode", pick(["interactivity", "throughput"])]
    if RNG.random() < 0.1:
        argv += ["--no-async-scheduling"]
    case = {"description": f"random argv-mode case, {usage}", "argv": argv,
            "usage_context": usage, "platform": plat}
    if plat == "cpu":
        case["env"] = dict(CPU_ENV)
    return case, tags


for i in range(1, 51):
    case, tags = random_argv_case(i)
    add(f"a{i:03d}-rand", {**case, "tags": tags}, part="random-argv")


def seed_interface_tags(argv: list[str]) -> list[str]:
    """Seed command lines that use an interface 0.34.0 no longer has (they
    stay in the corpus: the same line is an error in 0.34.0)."""
    line = " ".join(argv)
    tags = []
    if "SharedStorageConnector" in line:
        tags.append("removed-in-0.34.0=SharedStorageConnector (now ExampleConnector)")
    if "enable_sequence_parallelism" in line or "enable_async_tp" in line:
        tags.append("removed-in-0.34.0=pass_config sequence parallelism / async TP")
    if any(a.startswith("-O.") for a in argv):
        tags.append("removed-in-0.34.0=-O.<key> (-O is the optimization level; use -cc.<key>)")
    if "--no-such-flag" in line:
        tags.append("invalid=unknown flag (also at the seed)")
    return tags


# ---------------------------------------------------------------------------
# The seed corpus' argv cases, unchanged command lines
# ---------------------------------------------------------------------------
for p in sorted(SEED_CASES.glob("*.json")):
    c = json.loads(p.read_text())
    if "argv" not in c:
        continue
    new = {"description": f"seed corpus argv case {p.stem} (same command line): "
                          f"{c.get('description', '')}",
           "argv": c["argv"], "usage_context": c.get("usage_context", "OPENAI_API_SERVER"),
           "platform": c.get("platform", "cuda:90")}
    if c.get("env"):
        new["env"] = c["env"]
    new["tags"] = [f"from={p.stem}", *seed_interface_tags(c["argv"]), *c.get("tags", [])]
    add(f"s-{p.stem}", new, part="seed-argv")


def main() -> None:
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir()
    names = set()
    for name, case in CASES:
        assert name not in names, name
        names.add(name)
        case = {"name": name, **case}
        (OUT / f"{name}.json").write_text(json.dumps(case, indent=1, sort_keys=True) + "\n")
    print(f"{len(CASES)} cases -> {OUT}")


if __name__ == "__main__":
    main()
