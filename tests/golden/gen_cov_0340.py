#!/usr/bin/env python3
"""Golden cases k### for vllm==0.34.0: vLLM-side coverage (issue 30).

    python3 tests/golden/gen_cov_0340.py        # (re)writes cases-0.34.0/k###-*.json only

Each case aims at a decision, log call or raise of vLLM's config code that the rest of the corpus does
not reach (``docs/coverage-0.34.0.md`` lists them, ``tests/golden/oracle/coverage_report.py`` measures
them): user-facing flags and sub-config fields first (compilation, parallel, speculative, profiler,
observability, LoRA, kernel, KV transfer, offload, scheduler, pooler, multimodal). The list is fixed and
only appended to, so no earlier name moves; the variations of a site come from a seeded ``random.Random``
(seed below), so a re-run writes the same files. The answers are the 0.34.0 oracle's
(tests/golden/oracle_cli.md), stripped with tests/golden/oracle/strip_0340.py into expected-0.34.0/.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
OUT = HERE / "cases-0.34.0"
CPU_ENV = {"VLLM_CPU_KVCACHE_SPACE": "4"}
SEED = 3034

CASES: list[tuple[str, dict[str, Any]]] = []
RNG = random.Random(SEED)
_NEXT = [1]   # the number of the next case (number_from() skips ahead to a block kept for one batch)


def number_from(first: int) -> None:
    """Number the cases that follow from ``first`` on: a block of numbers kept for one batch, so that batches
    written at the same time never take each other's numbers (numbers a batch leaves unused stay free)."""
    assert first >= _NEXT[0], f"k{first:03d} is taken: the next free number is k{_NEXT[0]:03d}"
    _NEXT[0] = first


def _add(slug: str, description: str, sites: list[str], case: dict[str, Any]) -> None:
    case.setdefault("platform", "cuda:90")
    if case["platform"] == "cpu":
        case["env"] = {**CPU_ENV, **dict(case.get("env") or {})}
    name = f"k{_NEXT[0]:03d}-{slug}"
    _NEXT[0] += 1
    CASES.append((name, {"description": description, **case,
                         "tags": ["part=coverage", *(f"site={s}" for s in sites)]}))


def argv(slug: str, description: str, sites: list[str], line: list[str], *, usage: str = "OPENAI_API_SERVER",
         platform: str | dict[str, Any] = "cuda:90", env: dict[str, str] | None = None) -> None:
    """A `vllm serve` (or LLM(...)) command line; `sites` are vLLM file:line anchors of the 0.34.0 wheel."""
    _add(slug, description, sites, {"argv": line, "usage_context": usage, "platform": platform, "env": env or {}})


def conf(slug: str, description: str, sites: list[str], **kwargs: Any) -> None:
    """Config mode: sub-config keyword arguments, as a program building VllmConfig directly passes them."""
    _add(slug, description, sites, dict(kwargs))


def caller(slug: str, description: str, sites: list[str], *, usage: str | None = "ENGINE_CONTEXT",
           **kwargs: Any) -> None:
    """Caller mode, a Python caller: ``EngineArgs(**kwargs).create_engine_config(usage)``, the keyword arguments read
    off config-mode sub-config dicts (a sub-config EngineArgs takes whole is passed as the dict, the others' keys as
    EngineArgs fields of the same name; ``engine_args`` any other keyword; vllm_oracle.caller_kwargs)."""
    _add(slug, description, sites, {"caller": "EngineArgs", "usage_context": usage, **kwargs})


def cc(d: dict[str, Any]) -> list[str]:
    return ["-cc", json.dumps(d)]


LLAMA, MOE, MM = "models/llama", "models/deepseek_v3", "models/whisper"

# ---------------------------------------------------------------- compilation.py: field validators
argv("cc-mode-name", "-cc mode given as an unknown name", ["compilation.py:1015"], [LLAMA, *cc({"mode": "fastest"})])
argv("cc-cache-format", "compile_cache_save_format outside binary/unpacked", ["compilation.py:1043"],
     [LLAMA, *cc({"compile_cache_save_format": "zip"})])
argv("cc-custom-op-syntax", "a custom op without +/- prefix", ["compilation.py:1165"],
     [LLAMA, *cc({"custom_ops": ["rms_norm"]})])
argv("cc-custom-op-bases", "custom_ops with both base modes", ["compilation.py:1173"],
     [LLAMA, *cc({"custom_ops": ["all", "none"]})])
argv("cc-custom-op-conflict", "one op both enabled and disabled", ["compilation.py:1181"],
     [LLAMA, *cc({"custom_ops": ["+silu_and_mul", "+rms_norm", "-rms_norm", "-silu_and_mul"]})])
argv("cc-backend-piecewise", "a custom backend under VLLM_COMPILE", ["compilation.py:1194"],
     [LLAMA, *cc({"backend": "cudagraphs"})])
argv("cc-replay-sizes", "a non-positive decoder replay capture size", ["compilation.py:1199"],
     [LLAMA, *cc({"decoder_replay_cudagraph_capture_sizes": [4, 0]})])
argv("cc-enc-items", "encoder cudagraph with a negative vision item cap", ["compilation.py:1208"],
     [LLAMA, *cc({"cudagraph_mm_encoder": True, "encoder_cudagraph_max_vision_items_per_batch": -1})])
argv("cc-enc-frames", "encoder cudagraph with a negative frame cap", ["compilation.py:1217"],
     [LLAMA, *cc({"cudagraph_mm_encoder": True, "encoder_cudagraph_max_frames_per_batch": -2})])
argv("cc-enc-budget", "encoder cudagraph token budget of 0", ["compilation.py:1226"],
     [LLAMA, *cc({"encoder_cudagraph_max_token_budget": 0})])
argv("cc-enc-budgets", "a non-positive entry among the encoder token budgets", ["compilation.py:1234"],
     [LLAMA, *cc({"encoder_cudagraph_token_budgets": [64, -1]})])
# ---------------------------------------------------------------- compilation.py: pass config warnings
argv("pass-noops-off", "fusions with reshape elimination off", ["compilation.py:319", "compilation.py:324"],
     [LLAMA, *cc({"pass_config": {"eliminate_noops": False, "fuse_norm_quant": True, "fuse_attn_quant": True}})])
argv("pass-noops-off-ar", "allreduce and padding fusions with reshape elimination off",
     ["compilation.py:329", "compilation.py:334", "compilation.py:347"],
     [LLAMA, "-tp", "2", *cc({"pass_config": {"eliminate_noops": False, "fuse_allreduce_rms": True,
                                             "fuse_act_padding": True}})])
argv("pass-rocm-only-cuda", "ROCm-only fusions asked for on CUDA",
     ["compilation.py:353", "compilation.py:359", "compilation.py:365"],
     [LLAMA, *cc({"pass_config": {"fuse_mla_dual_rms_norm": True, "fuse_rope_kvcache": True,
                                  "fuse_qk_norm_rope_kvcache": True}})])
argv("pass-mla-cat-cpu", "MLA RoPE/KV-cache fusion on CPU", ["compilation.py:371"],
     [LLAMA, *cc({"pass_config": {"fuse_rope_kvcache_cat_mla": True}})], platform="cpu")
argv("pass-rope-kv-rocm", "RoPE+KV-cache fusion on ROCm with default splitting ops",
     ["compilation.py:1352", "compilation.py:1362"],
     [LLAMA, *cc({"pass_config": {"fuse_rope_kvcache": True, "fuse_qk_norm_rope_kvcache": True}})],
     platform="rocm:gfx942")
argv("split-empty-piecewise", "empty splitting_ops with PIECEWISE", ["compilation.py:1379", "compilation.py:1383"],
     [LLAMA, *cc({"splitting_ops": [], "cudagraph_mode": "PIECEWISE"})])
argv("split-empty-full-pw", "empty splitting_ops with FULL_AND_PIECEWISE", ["compilation.py:1393"],
     [LLAMA, *cc({"splitting_ops": [], "cudagraph_mode": "FULL_AND_PIECEWISE"})])
argv("attn-quant-piecewise", "attention+quant fusion with piecewise graphs", ["compilation.py:1424"],
     ["models/llama_fp8_block", *cc({"pass_config": {"fuse_attn_quant": True}})])

# ---------------------------------------------------------------- parallel.py
argv("eplb-async-policy", "async EPLB with a non-default policy", ["parallel.py:131"],
     [MOE, "-tp", "2", "--enable-expert-parallel", "--enable-eplb", "--eplb-config",
      json.dumps({"use_async": True, "policy": "flashlb"})])
argv("eplb-async-nccl", "async EPLB with the pynccl communicator", ["parallel.py:133"],
     [MOE, "-tp", "2", "--enable-expert-parallel", "--enable-eplb", "--eplb-config",
      json.dumps({"use_async": True, "communicator": "pynccl"})])
argv("eplb-log-interval", "EPLB balancedness logging every 0 steps", ["parallel.py:140"],
     [MOE, "-tp", "2", "--enable-expert-parallel", "--enable-eplb", "--eplb-config",
      json.dumps({"log_balancedness": True, "log_balancedness_interval": 0})])
conf("numa-nodes-empty", "an empty NUMA node list", ["parallel.py:528"], parallel_config={"numa_bind_nodes": []})
conf("numa-nodes-negative", "a negative NUMA node", ["parallel.py:530"], parallel_config={"numa_bind_nodes": [0, -1]})
conf("numa-cpus-empty", "an empty NUMA CPU list", ["parallel.py:539"], parallel_config={"numa_bind_cpus": []})
conf("numa-cpus-blank", "a blank NUMA CPU set", ["parallel.py:543"], parallel_config={"numa_bind_cpus": ["0-3", ""]})
conf("numa-cpus-syntax", "a NUMA CPU set not in numactl syntax", ["parallel.py:545"],
     parallel_config={"numa_bind_cpus": ["0-3", "4..7"]})
conf("numa-cpus-descending", "a descending NUMA CPU range", ["parallel.py:554"],
     parallel_config={"numa_bind_cpus": ["0,7-4"]})
argv("numa-nodes-no-bind", "NUMA node list with --no-numa-bind", ["parallel.py:596"],
     [LLAMA, "--numa-bind-nodes", "0", "--no-numa-bind"])
argv("numa-nodes-bind", "a NUMA node list turns NUMA binding on", ["parallel.py:599"],
     [LLAMA, "-tp", "2", "--numa-bind-nodes", "0", "1"])
conf("dp-local-gt-dp", "data_parallel_size_local above data_parallel_size", ["parallel.py:584"],
     model="deepseek_v3", parallel_config={"data_parallel_size": 2, "data_parallel_size_local": 4})
conf("dp-external-dp1", "external LB with DP 1", ["parallel.py:590"],
     parallel_config={"data_parallel_external_lb": True})
argv("eplb-no-ep", "EPLB without expert parallelism", ["parallel.py:608"], [MOE, "-tp", "2", "--enable-eplb"])
argv("eplb-world-1", "EPLB on a single rank", ["parallel.py:617"],
     [MOE, "--enable-expert-parallel", "--enable-eplb"])
argv("eplb-redundant-default", "EPLB picks the minimum redundant experts", ["parallel.py:677"],
     [MOE, "-tp", "4", "--enable-expert-parallel", "--enable-eplb"])
argv("pcp-dcp-mismatch", "PCP 2 with a DCP size that spans neither axis", ["parallel.py:643"],
     [LLAMA, "-tp", "4", "-pcp", "2", "-dcp", "4"])
argv("elastic-no-eplb", "elastic EP without EPLB", ["parallel.py:1069"],
     [MOE, "-tp", "2", "--enable-expert-parallel", "--enable-elastic-ep"])
argv("elastic-pp", "elastic EP with pipeline parallelism", ["parallel.py:1071"],
     [MOE, "-tp", "2", "-pp", "2", "--enable-expert-parallel", "--enable-eplb", "--enable-elastic-ep"])
argv("elastic-max-dp", "elastic EP with a max DP size below the initial DP size", ["parallel.py:1136"],
     [MOE, "-dp", "4", "--enable-expert-parallel", "--enable-eplb", "--enable-elastic-ep",
      "--elastic-ep-max-dp-size", "2"])
argv("offline-dp-dense", "VLLM_DP_SIZE=2 for a dense model (offline SPMD)", ["parallel.py:1124"],
     [LLAMA], usage="LLM_CLASS", env={"VLLM_DP_SIZE": "2"})
argv("offline-dp-moe", "VLLM_DP_SIZE=2 for a MoE model (offline SPMD)", ["parallel.py:1118"],
     [MOE], usage="LLM_CLASS", env={"VLLM_DP_SIZE": "2", "VLLM_DP_RANK": "1"})
argv("dp-rank-range", "a DP rank outside the DP size", ["parallel.py:1111"],
     [MOE, "-dp", "2", "--data-parallel-rank", "3"])
argv("load-workers", "max_parallel_loading_workers is ignored", ["parallel.py:1195"],
     [LLAMA, "--max-parallel-loading-workers", "2"])
conf("nnodes-uni", "nnodes 2 with the uni backend", ["parallel.py:1204"],
     parallel_config={"nnodes": 2, "distributed_executor_backend": "ray"})
argv("nsight-no-ray", "nsight profiling without Ray workers", ["parallel.py:1267"],
     [LLAMA, "-tp", "2", "--ray-workers-use-nsight"])
argv("dbo-threshold", "DBO thresholds below the microbatch count", ["parallel.py:1277"],
     [MOE, "-tp", "2", "--enable-expert-parallel", "--enable-dbo", "--dbo-decode-token-threshold", "1"])

# ---------------------------------------------------------------- profiler.py / observability.py
argv("prof-activities-vllm", "torch profiler activities without the torch profiler", ["profiler.py:210"],
     [LLAMA, "--profiler-config", json.dumps({"torch_profiler_activities": ["cpu"]})])
argv("prof-activities-dup", "duplicate torch profiler activities", ["profiler.py:215"],
     [LLAMA, "--profiler-config", json.dumps({"profiler": "torch", "torch_profiler_dir": "/tmp/prof",
                                              "torch_profiler_activities": ["cpu", "cpu"]})])
argv("prof-delay-frontend", "a torch profiler delay with the frontend profiled", ["profiler.py:219"],
     [LLAMA, "--profiler-config", json.dumps({"profiler": "torch", "torch_profiler_dir": "/tmp/prof",
                                              "delay_iterations": 2})])
argv("prof-dir-no-torch", "torch_profiler_dir without the torch profiler", ["profiler.py:226"],
     [LLAMA, "--profiler-config", json.dumps({"torch_profiler_dir": "/tmp/prof"})])
argv("prof-proton-opts", "proton options without the proton profiler", ["profiler.py:256"],
     [LLAMA, "--profiler-config", json.dumps({"proton_context": "python", "proton_data": "trace"})])
argv("prof-proton-no-dir", "the proton profiler without a directory", ["profiler.py:260"],
     [LLAMA, "--profiler-config", json.dumps({"profiler": "proton"})])
argv("prof-proton-uri", "a proton directory given as a URI", ["profiler.py:265"],
     [LLAMA, "--profiler-config", json.dumps({"profiler": "proton", "proton_profiler_dir": "s3://bucket/p"})])
argv("prof-proton-graph-trace", "proton graph attribution with trace data", ["profiler.py:273"],
     [LLAMA, "--profiler-config", json.dumps({"profiler": "proton", "proton_profiler_dir": "/tmp/p",
                                              "proton_data": "trace", "proton_graph_attribution": True})])
argv("prof-proton-chrome", "chrome trace output with tree data", ["profiler.py:284"],
     [LLAMA, "--profiler-config", json.dumps({"profiler": "proton", "proton_profiler_dir": "/tmp/p",
                                              "proton_output_format": "chrome_trace"})])
argv("prof-proton-hatchet", "hatchet output with trace data", ["profiler.py:289"],
     [LLAMA, "--profiler-config", json.dumps({"profiler": "proton", "proton_profiler_dir": "/tmp/p",
                                              "proton_data": "trace", "proton_output_format": "hatchet"})])
argv("prof-capture-no-torch", "capture_torch_profiler without the torch profiler", ["profiler.py:292"],
     [LLAMA, "--profiler-config", json.dumps({"capture_torch_profiler": True})])
argv("prof-capture-torch", "capture_torch_profiler is deprecated", ["profiler.py:297"],
     [LLAMA, "--profiler-config", json.dumps({"profiler": "torch", "torch_profiler_dir": "/tmp/prof",
                                              "capture_torch_profiler": True})])
argv("obs-otlp", "an OTLP endpoint without OpenTelemetry installed", ["observability.py:154"],
     [LLAMA, "--otlp-traces-endpoint", "http://localhost:4317"])
argv("obs-buckets-bool", "a boolean histogram bound", ["observability.py:171"],
     [LLAMA, "--custom-histogram-buckets", json.dumps({"request_latency": [0.5, True]})])
argv("obs-buckets-family", "an unknown histogram family", ["observability.py:188"],
     [LLAMA, "--custom-histogram-buckets", json.dumps({"latency": [0.5, 1.0]})])
argv("obs-buckets-empty", "an empty histogram bucket list", ["observability.py:193"],
     [LLAMA, "--custom-histogram-buckets", json.dumps({"time_to_first_token": []})])
argv("obs-buckets-zero", "a non-positive histogram bound", ["observability.py:199"],
     [LLAMA, "--custom-histogram-buckets", json.dumps({"inter_token_latency": [0, 1.0]})])
argv("obs-buckets-order", "histogram bounds not increasing", ["observability.py:204"],
     [LLAMA, "--custom-histogram-buckets", json.dumps({"iteration_tokens": [8, 4, 16]})])
argv("obs-buckets-ok", "valid custom histogram buckets", ["observability.py:182"],
     [LLAMA, "--custom-histogram-buckets", json.dumps({"request_latency": [0.5, 1, 2.5],
                                                       "request_params_n": [1, 2, 4]})])
argv("obs-detailed-no-otlp", "detailed traces without an OTLP endpoint", ["observability.py:213"],
     [LLAMA, "--collect-detailed-traces", "all"])
argv("obs-nvtx", "layerwise NVTX tracing is deprecated", ["observability.py:217"],
     [LLAMA, "--enable-layerwise-nvtx-tracing"])


# ---------------------------------------------------------------- batch 2: speculative.py
def spec(d: dict[str, Any]) -> list[str]:
    return ["--speculative-config", json.dumps({"method": "ngram", "num_speculative_tokens": 3,
                                                "prompt_lookup_max": 4, **d})]


argv("spec-synth-none", "synthetic rejection sampling without rates or length", ["speculative.py:656"],
     [LLAMA, *spec({"rejection_sample_method": "synthetic"})])
argv("spec-synth-rates-len", "synthetic acceptance rates of the wrong length", ["speculative.py:662"],
     [LLAMA, *spec({"rejection_sample_method": "synthetic", "synthetic_acceptance_rates": [0.9]})])
argv("spec-synth-rates-range", "a synthetic acceptance rate above 1", ["speculative.py:666"],
     [LLAMA, *spec({"rejection_sample_method": "synthetic", "synthetic_acceptance_rates": [1.5, 0.5, 0.2]})])
argv("spec-synth-rates-order", "increasing synthetic acceptance rates", ["speculative.py:671"],
     [LLAMA, *spec({"rejection_sample_method": "synthetic", "synthetic_acceptance_rates": [0.5, 0.9, 0.1]})])
argv("spec-synth-length", "a synthetic acceptance length above k+1", ["speculative.py:677"],
     [LLAMA, *spec({"rejection_sample_method": "synthetic", "synthetic_acceptance_length": 9.0})])
argv("spec-synth-ok", "synthetic rejection sampling from an acceptance length", ["speculative.py:680"],
     [LLAMA, *spec({"rejection_sample_method": "synthetic", "synthetic_acceptance_length": 2.5})])
argv("spec-synth-not-synthetic", "synthetic rates without the synthetic sampler", ["speculative.py:1678"],
     [LLAMA, *spec({"synthetic_acceptance_rates": [0.9, 0.5, 0.2]})])
argv("spec-tp-key", "tensor_parallel_size inside the speculative config", ["speculative.py:1648"],
     [LLAMA, *spec({"tensor_parallel_size": 2})])
argv("spec-no-tokens", "n-gram drafting without a number of tokens", ["speculative.py:1654"],
     [LLAMA, "--speculative-config", json.dumps({"method": "ngram", "prompt_lookup_max": 4})])
argv("spec-zero-tokens", "zero speculative tokens", ["speculative.py:1661"], [LLAMA, *spec({"num_speculative_tokens": 0})])
argv("spec-parallel-drafting-ngram", "parallel drafting with n-gram", ["speculative.py:1690"],
     [LLAMA, *spec({"parallel_drafting": True})])
argv("spec-parallel-drafting-off", "parallel_drafting=false is deprecated", ["speculative.py:1694"],
     [LLAMA, *spec({"parallel_drafting": False})])
argv("spec-fly-one", "FLy verification with one token", ["speculative.py:1707"],
     [LLAMA, *spec({"rejection_sample_method": "fly", "num_speculative_tokens": 1})])
argv("spec-fly-window", "FLy window not below k", ["speculative.py:1713"],
     [LLAMA, *spec({"rejection_sample_method": "fly", "fly_window_size": 3})])
argv("spec-fly-ok", "FLy verification is lossy", ["speculative.py:1717"],
     [LLAMA, *spec({"rejection_sample_method": "fly", "num_speculative_tokens": 4})])
argv("spec-flags-clash", "--spec-tokens with num_speculative_tokens in --speculative-config", ["arg_utils.py:2151"],
     [LLAMA, "--spec-tokens", "2", *spec({})])
argv("spec-method-option", "a method-specific option for n-gram drafting", ["speculative.py:1399"],
     [LLAMA, *spec({"dspark_draft_topk": 4})])

# ---------------------------------------------------------------- arg_utils.py
argv("seed-no-mp", "VLLM_ENABLE_V1_MULTIPROCESSING=0 warns about the global seed", ["arg_utils.py:2015"],
     [LLAMA, "--seed", "7"], usage="LLM_CLASS", env={"VLLM_ENABLE_V1_MULTIPROCESSING": "0"})
argv("device-ids-dup", "duplicate --device-ids", ["arg_utils.py:2184"], [LLAMA, "--device-ids", "0,0"])
argv("device-ids-mixed", "--device-ids mixing indices and UUIDs", ["arg_utils.py:2191"],
     [LLAMA, "--device-ids", "0,GPU-8f3a"])
argv("device-ids-tp2", "--device-ids for a TP 2 run", ["arg_utils.py:2192"], [LLAMA, "-tp", "2", "--device-ids", "1,0"])
argv("nnodes-world", "--nnodes not dividing the world size", ["arg_utils.py:2449"],
     [LLAMA, "-tp", "2", "--nnodes", "3", "-dpb", "mp"])
argv("nnodes-ext-ambiguous", "external LB rank not inferable from the node rank", ["arg_utils.py:2462"],
     [MOE, "-tp", "2", "-dp", "3", "--nnodes", "2", "--node-rank", "1", "-dpb", "mp", "--data-parallel-external-lb"])
argv("nnodes-ext-infer", "external LB rank inferred from the node rank", ["arg_utils.py:2470"],
     [MOE, "-dp", "2", "--nnodes", "2", "--node-rank", "1", "-dpb", "mp", "--data-parallel-external-lb"])
argv("dp-ext-local", "an external DP rank with a local DP size above 1", ["arg_utils.py:2511"],
     [MOE, "-dp", "4", "--data-parallel-rank", "0", "-dpl", "2"])
argv("dp-hybrid-local-1", "hybrid LB with one local rank switches to external LB", ["arg_utils.py:2529"],
     [MOE, "-dp", "2", "-dpl", "1", "--data-parallel-hybrid-lb"])
argv("ir-priority-twice", "an IR op priority given twice", ["arg_utils.py:2852"],
     [LLAMA, "--ir-op-priority", json.dumps({"rms_norm": ["native"]}), "--kernel-config",
      json.dumps({"ir_op_priority": {"rms_norm": ["vllm_c"]}})])
argv("ir-priority-deprecated", "--ir-op-priority is deprecated", ["arg_utils.py:2860"],
     [LLAMA, "--ir-op-priority", json.dumps({"rms_norm": ["native"]})])
argv("max-capture-twice", "max_cudagraph_capture_size as a flag and in -cc", ["arg_utils.py:2880"],
     [LLAMA, "--max-cudagraph-capture-size", "64", *cc({"max_cudagraph_capture_size": 32})])
argv("ft-config", "--fault-tolerance-config turns fault tolerance on", ["arg_utils.py:915"],
     [MOE, "-dp", "2", "--data-parallel-rank", "0", "--fault-tolerance-config", "{}"])

# ---------------------------------------------------------------- model.py / cache.py / scheduler.py
argv("ckpt-no-sleep", "checkpoint_prepare_on_startup without sleep mode", ["model.py:682"],
     [LLAMA, "--checkpoint-prepare-on-startup"])
argv("sleep-cpu", "sleep mode on CPU", ["model.py:685"], [LLAMA, "--enable-sleep-mode"], platform="cpu")
argv("cumem-cpu", "the cumem allocator on CPU", ["model.py:695"], [LLAMA, "--enable-cumem-allocator"], platform="cpu")
argv("prompt-embeds-encdec", "prompt embeds for an encoder-decoder model", ["model.py:1099"],
     ["models/whisper", "--enable-prompt-embeds"])
argv("ep-dense", "expert parallelism for a dense model", ["model.py:1520"], [LLAMA, "-tp", "2", "--enable-expert-parallel"])
argv("dtype-unknown", "an unknown --dtype", ["model.py:2542"], [LLAMA, "--dtype", "float8"])
argv("active-seqs", "max_num_active_seqs above max_num_seqs", ["scheduler.py:386"],
     [LLAMA, "--max-num-seqs", "64", "--max-num-active-seqs", "128"])
argv("budget-over-seqs-len", "a token budget above seqs x length", ["scheduler.py:392"],
     [LLAMA, "--max-num-seqs", "1", "--max-model-len", "1024", "--max-num-batched-tokens", "4096"])
argv("long-prefill-over-len", "a long-prefill threshold above the model length", ["scheduler.py:400"],
     [LLAMA, "--max-model-len", "2048", "--long-prefill-token-threshold", "4096"])
argv("kv-fp8-per-token", "a per-token-head-scale KV cache dtype", ["cache.py:512"],
     [LLAMA, "--kv-cache-dtype", "fp8_per_token_head"])

# ---------------------------------------------------------------- lora.py / kernel.py / structured outputs / pooler
argv("lora-cpu-loras", "max_cpu_loras below max_loras", ["lora.py:117"],
     [LLAMA, "--enable-lora", "--max-loras", "4", "--max-cpu-loras", "2"])
argv("lora-dual-stream-cpu", "LoRA dual streams on CPU", ["lora.py:122"], [LLAMA, "--enable-lora"], platform="cpu",
     env={"VLLM_LORA_ENABLE_DUAL_STREAM": "1"})
argv("lora-dual-stream-sharded", "LoRA dual streams with fully sharded LoRAs", ["lora.py:124"],
     [LLAMA, "-tp", "2", "--enable-lora", "--fully-sharded-loras"], env={"VLLM_LORA_ENABLE_DUAL_STREAM": "1"})
argv("lora-mega-moe", "LoRA with a MegaMoE backend", ["lora.py:135"],
     [MOE, "--enable-lora", "--moe-backend", "deep_gemm_mega_moe"])
argv("lora-unsupported-model", "LoRA for a model without LoRA support", ["lora.py:143"],
     ["models/bert", "--enable-lora"])
argv("moe-ep-cutedsl-a2a", "a FlashInfer MoE-EP backend with an explicit all2all backend", ["kernel.py:211"],
     [MOE, "-tp", "2", "--enable-expert-parallel", "--moe-backend", "flashinfer_moe_ep_cutedsl", "--all2all-backend",
      "deepep_low_latency"])
argv("moe-ep-cutedsl", "a FlashInfer MoE-EP backend takes the passthrough all2all", ["kernel.py:216"],
     [MOE, "-tp", "2", "--enable-expert-parallel", "--moe-backend", "flashinfer_moe_ep_cutedsl"])
argv("moe-ep-deepgemm-model", "the DeepGEMM MoE-EP backend for a non-V4 model", ["kernel.py:238"],
     [MOE, "-tp", "2", "--enable-expert-parallel", "--moe-backend", "flashinfer_moe_ep_mega_deep_gemm"])
argv("so-whitespace", "disable_any_whitespace with xgrammar", ["structured_outputs.py:59"],
     [LLAMA, "--structured-outputs-config", json.dumps({"backend": "xgrammar", "disable_any_whitespace": True})])
argv("so-additional", "disable_additional_properties with outlines", ["structured_outputs.py:64"],
     [LLAMA, "--structured-outputs-config", json.dumps({"backend": "outlines",
                                                        "disable_additional_properties": True})])
argv("so-lmfe", "the lm-format-enforcer backend is deprecated", ["structured_outputs.py:69"],
     [LLAMA, "--structured-outputs-config", json.dumps({"backend": "lm-format-enforcer"})])
argv("pooler-normalize", "the removed pooler normalize parameter", ["pooler.py:132"],
     ["models/bert", "--pooler-config", json.dumps({"normalize": True})])
argv("pooler-both-types", "pooling_type with seq_pooling_type", ["pooler.py:148"],
     ["models/bert", "--pooler-config", json.dumps({"pooling_type": "MEAN", "seq_pooling_type": "CLS"})])
argv("attn-indexer-rows", "indexer_tp_shard_min_rows is deprecated", ["attention.py:223"],
     [LLAMA, "--attention-config", json.dumps({"indexer_tp_shard_min_rows": 8})])
argv("mamba-ssu-algo", "a Mamba SSU algorithm with the FlashInfer backend", ["mamba.py:70"],
     ["models/mamba_0340", "--mamba-backend", "flashinfer", "--mamba-ssu-algorithm", "simple"])

# ---------------------------------------------------------------- offload.py / multimodal.py / vllm.py
argv("offload-num-in-group", "more offloaded layers per group than the group has", ["offload.py:102"],
     [LLAMA, "--offload-group-size", "2", "--offload-num-in-group", "3"])
argv("offload-prefetch-step", "a prefetch step of 0", ["offload.py:108"],
     [LLAMA, "--offload-group-size", "4", "--offload-prefetch-step", "0"])
argv("offload-uva-prefetch", "prefetch fields with the UVA backend", ["offload.py:119"],
     [LLAMA, "--offload-backend", "uva", "--offload-group-size", "4"])
argv("mm-xformers", "the removed XFORMERS encoder attention backend", ["multimodal.py:501"],
     [MM, "--mm-encoder-attn-backend", "xformers"])
argv("mm-shm-size-lru", "a shm object size with the LRU processor cache", ["multimodal.py:520"],
     [MM, "--mm-processor-cache-type", "lru", "--mm-shm-cache-max-object-size-mb", "64"])
argv("mm-fp8-path-no-fp8", "an FP8 scale path without FP8 encoder attention", ["multimodal.py:529"],
     [MM, "--mm-encoder-fp8-scale-path", "/tmp/scales.json"])
argv("mm-fp8-both-paths", "FP8 scale load and save paths together", ["multimodal.py:538"],
     [MM, "--mm-encoder-attn-dtype", "fp8", "--mm-encoder-fp8-scale-path", "/tmp/a.json",
      "--mm-encoder-fp8-scale-save-path", "/tmp/b.json"])
argv("mm-fp8-missing-file", "an FP8 scale file that does not exist", ["multimodal.py:547"],
     [MM, "--mm-encoder-attn-dtype", "fp8", "--mm-encoder-fp8-scale-path", "/nonexistent/scales.json"])
argv("mm-fp8-missing-dir", "an FP8 scale save path in a missing directory", ["multimodal.py:551"],
     [MM, "--mm-encoder-attn-dtype", "fp8", "--mm-encoder-fp8-scale-save-path", "/nonexistent/d/s.json"])
argv("mm-proc-device-bad", "an invalid device in mm_processor_kwargs", ["multimodal.py:617"],
     [MM, "--mm-processor-kwargs", json.dumps({"device": "gpu0"})])
argv("mm-proc-device-cuda", "the multimodal processor on the model's GPU", ["multimodal.py:650"],
     [MM, "--mm-processor-kwargs", json.dumps({"device": "cuda"})])
conf("aux-pooling", "routed-expert output for a pooling runner", ["vllm.py:1113"], model="deepseek_v3",
     model_config={"runner": "pooling"}, aux_output_config={"enable_return_routed_experts": True})
conf("aux-no-prefix", "routed-expert output without prefix caching", ["vllm.py:1117"], model="deepseek_v3",
     cache_config={"enable_prefix_caching": False}, aux_output_config={"enable_return_routed_experts": True})
conf("aux-pp", "routed-expert output with PP 2", ["vllm.py:1127"], model="deepseek_v3",
     parallel_config={"pipeline_parallel_size": 2}, aux_output_config={"enable_return_routed_experts": True})
conf("aux-dcp", "routed-expert output with DCP 2", ["vllm.py:1135"], model="deepseek_v3",
     parallel_config={"tensor_parallel_size": 2, "decode_context_parallel_size": 2},
     aux_output_config={"enable_return_routed_experts": True})
argv("reload-offload", "direct reload with prefetch offloading", ["vllm.py:1173"],
     [LLAMA, "--offload-group-size", "4"], env={"VLLM_RELOAD_MODE": "direct"})
argv("reload-lora", "direct reload with LoRA", ["vllm.py:1188"], [LLAMA, "--enable-lora"],
     env={"VLLM_RELOAD_MODE": "direct"})


# ---------------------------------------------------------------- batch 3 (cov034): vllm.py verifiers, DBO, replay
def spec_ad(d: dict[str, Any] | None = None) -> list[str]:
    return spec({"enable_adaptive_verification": True, **(d or {})})


REPLAY = ["--return-sampling-mask", "--logprobs-mode", "processed_logprobs"]
NIXL = ["--kv-transfer-config", json.dumps({"kv_connector": "NixlConnector", "kv_role": "kv_both"})]
DBO = [MOE, "-tp", "2", "--enable-expert-parallel", "--enable-dbo", "--all2all-backend", "deepep_low_latency"]

argv("replay-adaptive", "sampling replay with adaptive speculative verification", ["vllm.py:1271"],
     [LLAMA, *REPLAY, *spec_ad()])
argv("replay-logits-proc", "sampling replay with a custom logits processor", ["vllm.py:1281"],
     [LLAMA, *REPLAY, "--logits-processors", "my_pkg.MyLogitsProcessor"])
argv("aux-adaptive", "routed-expert output with adaptive verification", ["vllm.py:1122"],
     [MOE, "--enable-return-routed-experts", *spec_ad()])
argv("aux-nixl", "routed-expert output with the NIXL connector", ["vllm.py:1142", "vllm.py:1150"],
     [MOE, "--enable-return-routed-experts", *NIXL])
argv("reload-sharded-rdt", "direct reload with the sharded_rdt weight transfer", ["vllm.py:1199"],
     [LLAMA, "--weight-transfer-config", json.dumps({"backend": "sharded_rdt"})], env={"VLLM_RELOAD_MODE": "direct"})
argv("hisparse-no-reserve", "HiSparse without reserving the full input length", ["vllm.py:1831"],
     ["models/deepseek_v32", "--attention-config", json.dumps({"hisparse_config": {}}),
      "--no-scheduler-reserve-full-isl"])
argv("hisparse-no-connector", "HiSparse without a HiSparseConnector", ["vllm.py:2137"],
     ["models/deepseek_v32", "--attention-config", json.dumps({"hisparse_config": {}}),
      "--disable-hybrid-kv-cache-manager"])


def hs(extra: dict[str, Any] | None, multi: int = 0) -> list[str]:
    one = {"kv_connector": "HiSparseConnector", "kv_role": "kv_both", "kv_connector_extra_config": extra or {}}
    if multi:
        kvt = {"kv_connector": "MultiConnector", "kv_role": "kv_both",
               "kv_connector_extra_config": {"connectors": [one] * multi}}
    else:
        kvt = one
    return ["models/deepseek_v32", "--kv-transfer-config", json.dumps(kvt)]


argv("hisparse-no-pool", "a HiSparseConnector without host_pool_gib", ["kv_transfer.py:43"], hs(None))
argv("hisparse-pool-zero", "a HiSparseConnector with host_pool_gib 0", ["kv_transfer.py:46"], hs({"host_pool_gib": 0}))
argv("hisparse-two", "two HiSparseConnectors in a MultiConnector", ["kv_transfer.py:38"], hs({"host_pool_gib": 4}, 2))
argv("hisparse-ok", "a HiSparseConnector with a host pool", ["kv_transfer.py:47"], hs({"host_pool_gib": 4}))
argv("hisparse-multi-no-hma", "HiSparse in a MultiConnector with the hybrid KV cache manager off",
     ["kv_transfer.py:22", "vllm.py:2221"], [*hs({"host_pool_gib": 4}, 1), "--disable-hybrid-kv-cache-manager"])
argv("adaptive-lora", "adaptive verification with LoRA", ["vllm.py:3279"], [LLAMA, "--enable-lora", *spec_ad()])
argv("adaptive-pp", "adaptive verification with PP 2", ["vllm.py:3311"], [LLAMA, "-pp", "2", *spec_ad()])
argv("adaptive-no-decode-sizes", "adaptive verification without decode capture sizes", ["vllm.py:3299"],
     [LLAMA, *spec_ad(), *cc({"decode_cudagraph_capture_request_sizes": [], "cudagraph_mode": "FULL_AND_PIECEWISE"})])
argv("ext-launcher-pp", "the external launcher with PP 2", ["vllm.py:3128"],
     [LLAMA, "-pp", "2", "--distributed-executor-backend", "external_launcher"])
argv("ext-launcher-async", "async scheduling asked for with the external launcher", ["vllm.py:1607"],
     [LLAMA, "--distributed-executor-backend", "external_launcher", "--async-scheduling"])
argv("cumem-pool-nccl", "sleep mode offloading CUDA graphs with NCCL graph registration on", ["vllm.py:2255"],
     [LLAMA, "--enable-sleep-mode", "--sleep-mode-offload-cudagraph"], env={"NCCL_GRAPH_REGISTER": "1"})
argv("cumem-pool", "sleep mode offloading CUDA graphs", ["vllm.py:2254"],
     [LLAMA, "--enable-sleep-mode", "--sleep-mode-offload-cudagraph"])
argv("bss-blockers", "batch-sharded sampling with every blocker", ["vllm.py:3328", "vllm.py:3336", "vllm.py:3341"],
     [LLAMA, "-tp", "2", "--enable-batch-sharded-sampling", "--max-num-seqs", "1", "--max-logprobs", "-1", *REPLAY])
argv("sched-tokens-given", "max_num_scheduled_tokens given with speculative decoding", ["vllm.py:2269"],
     [LLAMA, *spec({}), "--max-num-scheduled-tokens", "4096"])
argv("dbo-pp-pcp", "DBO with PP 2 and PCP 2", ["vllm.py:3392", "vllm.py:3394"], [*DBO, "-pp", "2", "-pcp", "2"])
argv("dbo-spec-thresholds", "DBO thresholds below the speculative decode length", ["vllm.py:3369"],
     [*DBO, *spec({}), "--dbo-decode-token-threshold", "2", "--dbo-prefill-token-threshold", "3"])
argv("proton-pcsampling", "proton PC sampling with CUDA graphs", ["vllm.py:3428"],
     [LLAMA, "--profiler-config", json.dumps({"profiler": "proton", "proton_profiler_dir": "/tmp/p",
                                              "proton_mode": "pcsampling"})])
argv("proton-eager", "proton profiling without CUDA graphs", ["vllm.py:3424"],
     [LLAMA, "--enforce-eager", "--profiler-config", json.dumps({"profiler": "proton", "proton_profiler_dir": "/tmp/p"})])
argv("proton-graph-attr", "proton profiling with graph attribution", ["vllm.py:3432"],
     [LLAMA, "--profiler-config", json.dumps({"profiler": "proton", "proton_profiler_dir": "/tmp/p",
                                              "proton_graph_attribution": True})])
argv("nixl-sleep", "the NIXL connector with sleep mode", ["vllm.py:1222"], [LLAMA, *NIXL, "--enable-sleep-mode"])
argv("nixl-prompt-embeds", "the NIXL connector with prompt embeddings", ["vllm.py:1249"],
     [LLAMA, *NIXL, "--enable-prompt-embeds"])
argv("mori-default", "the MoRI all2all backend on gfx942", ["parallel.py:1313", "parallel.py:1354"],
     [MOE, "-tp", "2", "--enable-expert-parallel", "--all2all-backend", "mori"], platform="rocm:gfx942")
argv("mori-forced", "MoRI EPv2 forced by VLLM_MORI_EP_V2=1", ["parallel.py:1348"],
     [MOE, "-tp", "2", "--enable-expert-parallel", "--all2all-backend", "mori"], platform="rocm:gfx950",
     env={"VLLM_MORI_EP_V2": "1"})
argv("mori-v1", "MoRI EPv1 chosen by VLLM_MORI_EP_V2=0", ["parallel.py:1336"],
     [MOE, "-tp", "2", "--enable-expert-parallel", "--all2all-backend", "mori"], platform="rocm:gfx950",
     env={"VLLM_MORI_EP_V2": "0"})
argv("eplb-async-default", "async EPLB with the default policy", ["parallel.py:1081"],
     [MOE, "-tp", "2", "--enable-expert-parallel", "--enable-eplb", "--eplb-config", json.dumps({"use_async": True})])
argv("elastic-hybrid", "elastic EP with hybrid load balancing", ["parallel.py:1076"],
     [MOE, "-dp", "4", "-dpl", "2", "--enable-expert-parallel", "--enable-eplb", "--enable-elastic-ep",
      "--data-parallel-hybrid-lb"])
argv("executor-unknown", "an unknown executor backend name", ["parallel.py:1249"],
     [LLAMA, "--distributed-executor-backend", "slurm"])


# ---------------------------------------------------------------- batch 4 (cov034): EngineArgs overrides, kernel, caches
argv("kernel-overrides", "kernel flags copied into the kernel config",
     ["arg_utils.py:2836", "arg_utils.py:2840", "arg_utils.py:2842"],
     [LLAMA, "--monokernel", "--linear-backend", "triton", "--sparse-indexer-topk-backend", "torch"])
argv("kda-decode-backend", "a KDA decode backend goes to additional_config", ["arg_utils.py:2918"],
     [LLAMA, "--kda-decode-backend", "triton"])
argv("mamba-philox", "Philox rounds for stochastic rounding of the Mamba cache", ["arg_utils.py:2820"],
     ["models/mamba_0340", "--enable-mamba-cache-stochastic-rounding", "--mamba-cache-philox-rounds", "4",
      "--mamba-ssm-cache-dtype", "float16"], platform="cuda:100")
argv("log-level", "--log-level for the logging config", ["arg_utils.py:2271"], [LLAMA, "--log-level", "DEBUG"])
argv("watermark-json", "a watermark config given as JSON", ["arg_utils.py:2228"],
     [LLAMA, "--watermark-config", json.dumps({"algorithm": "gumbel", "key": 42})])
argv("diffusion-json", "a diffusion config for a non-diffusion model", ["arg_utils.py:2220"],
     [LLAMA, "--diffusion-config", json.dumps({})])
argv("device-ids-ray", "--device-ids with the Ray executor", ["arg_utils.py:2178"],
     [LLAMA, "-tp", "2", "--device-ids", "0,1", "--distributed-executor-backend", "ray"])
argv("device-ids-uuids", "--device-ids given as UUIDs on ROCm", ["arg_utils.py:2186"],
     [LLAMA, "-tp", "2", "--device-ids", "GPU-aaaa,GPU-bbbb"], platform="rocm:gfx942")
argv("device-ids-cvd", "--device-ids within CUDA_VISIBLE_DEVICES on ROCm", ["arg_utils.py:2201", "arg_utils.py:2205"],
     [LLAMA, "-tp", "2", "--device-ids", "1,0"], platform="rocm:gfx942", env={"CUDA_VISIBLE_DEVICES": "4,5,6"})
argv("device-ids-cvd-range", "a --device-ids index outside CUDA_VISIBLE_DEVICES on ROCm", ["arg_utils.py:2207"],
     [LLAMA, "-tp", "2", "--device-ids", "0,3"], platform="rocm:gfx942", env={"CUDA_VISIBLE_DEVICES": "4,5,6"})
argv("moonep-eplb", "the moonep all2all backend with EPLB", ["vllm.py:2037"],
     [MOE, "-tp", "2", "--enable-expert-parallel", "--all2all-backend", "moonep", "--enable-eplb"])
argv("nccl-dp-sync-given", "NCCL for DP synchronization given explicitly", ["vllm.py:1639"],
     [MOE, "-dp", "2", "--enable-expert-parallel", "--enable-nccl-for-dp-synchronization"])
argv("ft-nccl-dp-sync", "fault tolerance with NCCL DP synchronization asked for", ["vllm.py:1659"],
     [MOE, "-dp", "2", "--data-parallel-rank", "0", "--enable-fault-tolerance", "--enable-nccl-for-dp-synchronization"])
argv("ir-torch-wrap", "ir_enable_torch_wrap given", ["vllm.py:1765"], [LLAMA, *cc({"ir_enable_torch_wrap": True})])
argv("compile-endpoints", "compile range endpoints", ["vllm.py:2806", "vllm.py:2807", "vllm.py:2810"],
     [LLAMA, *cc({"compile_ranges_endpoints": [128, 1024, 100000]})])
argv("compile-endpoints-fusion", "compile range endpoints with the allreduce fusion", ["vllm.py:2763", "vllm.py:2769"],
     [LLAMA, "-tp", "2", "--max-num-batched-tokens", "512",
      *cc({"compile_ranges_endpoints": [64], "pass_config": {"fuse_allreduce_rms": True}})])
argv("capture-sizes-mixed", "deprecated capture sizes with decode capture sizes", ["vllm.py:2724"],
     [LLAMA, *cc({"cudagraph_capture_sizes": [1, 2, 4], "decode_cudagraph_capture_request_sizes": [8, 16]})])
argv("capture-sizes-empty", "no capture sizes left", ["vllm.py:2734"],
     [LLAMA, *cc({"cudagraph_capture_sizes": [], "cudagraph_mode": "FULL_AND_PIECEWISE"})])
argv("ext-kv-gpu-blocks", "the extensible KV cache with a GPU block override", ["vllm.py:3208"],
     [LLAMA, "--enable-extensible-kv-cache", "--num-gpu-blocks-override", "128"])
argv("ext-kv-elastic", "the extensible KV cache with elastic EP", ["vllm.py:3213"],
     [MOE, "-dp", "2", "--enable-expert-parallel", "--enable-eplb", "--eplb-config", json.dumps({"use_async": False}),
      "--enable-elastic-ep", "--enable-extensible-kv-cache"])
argv("ext-kv-rocm", "the extensible KV cache on ROCm", ["vllm.py:3231"],
     [LLAMA, "--enable-extensible-kv-cache"], platform="rocm:gfx942")
argv("dcp-defaults-given", "DCP communication backend and Q replication given", ["parallel.py:696", "parallel.py:698"],
     ["models/deepseek_v3", "-tp", "4", "-dcp", "2", "--dcp-comm-backend", "ag_rs", "--dcp-q-replicate"])
argv("eplb-log-balancedness", "EPLB balancedness logging every 10 steps", ["parallel.py:139"],
     [MOE, "-tp", "2", "--enable-expert-parallel", "--enable-eplb", "--eplb-config",
      json.dumps({"log_balancedness": True, "log_balancedness_interval": 10})])


# ---------------------------------------------------------------- batch 5 (cov034): batch invariance, sub-config checks
BI = {"VLLM_BATCH_INVARIANT": "1"}
L8B = "models/cov_llama3_8b"  # Llama-3-8B's shapes (tuned batch-invariant tiles on Hopper)
argv("bi-tuned", "batch invariance on Hopper with tuned Llama-3-8B shapes", ["vllm.py:794", "vllm.py:824"], [L8B],
     env=BI)
argv("bi-untuned", "batch invariance on Hopper with untuned shapes", ["vllm.py:806"], [LLAMA], env=BI)
argv("bi-ampere", "batch invariance on an A100 (no tuned family)", ["vllm.py:795"], [L8B], platform="cuda:80", env=BI)
argv("bi-tp2-fusion", "batch invariance with TP 2 and the allreduce fusion", ["vllm.py:213"],
     [L8B, "-tp", "2", *cc({"pass_config": {"fuse_allreduce_rms": True}})], env=BI)
argv("kv-role-bad", "an unknown KV role", ["kv_transfer.py:136"],
     [LLAMA, "--kv-transfer-config", json.dumps({"kv_connector": "NixlConnector", "kv_role": "kv_sender"})])
argv("kv-engine-id", "a KV transfer engine id given", ["kv_transfer.py:132"],
     [LLAMA, "--kv-transfer-config", json.dumps({"kv_connector": "NixlConnector", "kv_role": "kv_both",
                                                 "engine_id": "e0"})])
argv("ec-producer-text", "an EC producer for a text-only model", ["vllm.py:2979"],
     [LLAMA, "--ec-transfer-config", json.dumps({"ec_connector": "ECExampleConnector", "ec_role": "ec_producer"})])
argv("engram-shared-no-offload", "Engram DP shared memory without CPU offload", ["engram.py:67"],
     [LLAMA, "--engram-config", json.dumps({"dp_shared_memory": True})])
argv("engram-thp", "Engram THP without CPU offload", ["engram.py:69"],
     [LLAMA, "--engram-config", json.dumps({"use_thp": True})])
argv("engram-llama", "an Engram config for a model without Engram layers", ["engram.py:86", "vllm.py:1429"],
     [LLAMA, "--engram-config", json.dumps({})])
argv("lora-dtype", "an explicit LoRA dtype", ["lora.py:152"], [LLAMA, "--enable-lora", "--lora-dtype", "bfloat16"])
argv("runner-generate-bert", "--runner generate for an encoder-only model", ["model.py:745"],
     ["models/bert", "--runner", "generate"])
argv("quant-mismatch", "--quantization other than the checkpoint's", ["model.py:1477"],
     ["models/llama_awq", "--quantization", "fp8"])
argv("long-max-len-env", "a max model length above the model's with VLLM_ALLOW_LONG_MAX_MODEL_LEN",
     ["model.py:2722"], [LLAMA, "--max-model-len", "8192"], env={"VLLM_ALLOW_LONG_MAX_MODEL_LEN": "1"})
argv("hc-sp-cpu", "--enable-hc-sp on CPU", ["model.py:1571"], [LLAMA, "-tp", "2", "--enable-hc-sp"], platform="cpu")
argv("hc-sp-llama", "--enable-hc-sp for a model without it", ["model.py:1573"], [LLAMA, "-tp", "2", "--enable-hc-sp"])
argv("mm-shm-tp2", "torch_shm tensor IPC with TP 2", ["model.py:1639"], [MM, "-tp", "2", "--mm-tensor-ipc", "torch_shm"])
argv("mm-limit-dict", "per-modality limits given as options", ["multimodal.py:480", "multimodal.py:488"],
     [MM, "--limit-mm-per-prompt", json.dumps({"audio": {"count": 2, "length": 16000}})])


# ---------------------------------------------------------------- batch 6 (cov034): sub-config validators given text
conf("kernel-text-backends", "kernel backends given as text", ["kernel.py:441", "kernel.py:448", "kernel.py:434"],
     kernel_config={"linear_backend": "triton", "sparse_indexer_topk_backend": "torch", "moe_backend": "triton"})
conf("mamba-backend-text", "a Mamba backend given as text", ["mamba.py:62"], model="mamba_0340",
     mamba_config={"backend": "triton"})
conf("mamba-ssu-unknown", "an unknown Mamba SSU algorithm", ["mamba.py:72"], model="mamba_0340",
     mamba_config={"ssu_algorithm": "fastest"})
conf("mamba-backend-unknown", "an unknown Mamba SSU backend", ["mamba.py:20"], model="mamba_0340",
     mamba_config={"backend": "cutlass"})
conf("attn-backend-auto", "attention backend auto given as text", ["attention.py:287"],
     attention_config={"backend": "auto"})
conf("attn-per-kind-unknown", "an unknown KV cache group kind in backend_per_kind", ["attention.py:316"],
     attention_config={"backend_per_kind": {"sliding": "flash_attn"}})
conf("spec-attn-backend-auto", "a speculative attention backend auto given as text", ["speculative.py:1640"],
     speculative_config={"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 3,
                         "attention_backend": "auto"})
conf("spec-attn-backend-name", "a speculative attention backend named", ["speculative.py:1642"],
     speculative_config={"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 3,
                         "attention_backend": "flash_attn"})
conf("spec-model-ngram", "model 'ngram' without a method", ["speculative.py:1369"],
     speculative_config={"model": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 3})
conf("cc-cache-format-text", "compile_cache_save_format outside binary/unpacked (config mode)",
     ["compilation.py:1043"], compilation_config={"compile_cache_save_format": "zip"})
conf("cc-mode-int", "cudagraph_mode given as a number", ["compilation.py:1027"], compilation_config={"cudagraph_mode": 1})
argv("cc-compile-sizes", "compile sizes with the capture-sizes shorthand", ["compilation.py:1304", "compilation.py:1305"],
     [LLAMA, *cc({"compile_sizes": [1, 8, "cudagraph_capture_sizes"]})])
argv("cc-graph-partition", "inductor graph partition", ["compilation.py:1154"],
     [LLAMA, *cc({"use_inductor_graph_partition": True})])
argv("a2a-passthrough-no-mega", "the passthrough all2all backend without a MegaMoE backend", ["kernel.py:224"],
     [MOE, "-tp", "2", "--enable-expert-parallel", "--all2all-backend", "passthrough"])


# ---------------------------------------------------------------- batch 7 (cov034): platform hooks, compile ranges
ROCM_KV = {"fuse_rope_kvcache": True, "fuse_qk_norm_rope_kvcache": True}
argv("rocm-pcp-full-graphs", "prefill context parallelism with full CUDA graphs on ROCm", ["rocm.py:1205"],
     [LLAMA, "-tp", "2", "-pcp", "2"], platform="rocm:gfx942")
argv("rocm-awq", "AWQ on ROCm without VLLM_USE_TRITON_AWQ", ["rocm.py:1263"], ["models/llama_awq"],
     platform="rocm:gfx942")
argv("cpu-awq", "AWQ on CPU", ["interface.py:1171"], ["models/llama_awq"], platform="cpu")
argv("oink-ops", "VLLM_USE_OINK_OPS=1 on CUDA", ["cuda.py:768"], [LLAMA], env={"VLLM_USE_OINK_OPS": "1"})
argv("lora-target-modules", "LoRA restricted to some modules", ["lora.py:107"],
     [LLAMA, "--enable-lora", "--lora-target-modules", "q_proj", "v_proj"])
argv("rocm-rope-kv-ranges-big", "RoPE+KV-cache fusion thresholds above the token budget on ROCm",
     ["vllm.py:2785", "vllm.py:2799"],
     [LLAMA, "--max-num-batched-tokens", "512",
      *cc({"pass_config": {**ROCM_KV, "rope_kvcache_fusion_max_token_num": 100000}})], platform="rocm:gfx942")
argv("rocm-rope-kv-ranges-small", "RoPE+KV-cache fusion thresholds below the token budget on ROCm",
     ["vllm.py:2782", "vllm.py:2796"],
     [LLAMA, "--max-num-batched-tokens", "512",
      *cc({"pass_config": {**ROCM_KV, "rope_kvcache_fusion_max_token_num": 64}})], platform="rocm:gfx942")
FI = {"kind": "cuda", "capability": 90, "flashinfer_available": True}
argv("fi-allreduce-ranges", "the FlashInfer allreduce+RMSNorm fusion range with FlashInfer available",
     ["vllm.py:2763", "compilation.py:268"], [LLAMA, "-tp", "2", *cc({"pass_config": {"fuse_allreduce_rms": True}})],
     platform=FI)
argv("fi-allreduce-size-given", "the FlashInfer allreduce fusion with its size given", ["compilation.py:268"],
     [L8B, "-tp", "4", *cc({"pass_config": {"fuse_allreduce_rms": True, "fi_allreduce_fusion_max_size_mb": 1}})],
     platform=FI)
argv("fi-allreduce-tp32", "the FlashInfer allreduce fusion for an unsupported world size", ["compilation.py:266"],
     [L8B, "-tp", "32", *cc({"pass_config": {"fuse_allreduce_rms": True}})], platform={**FI, "device_count": 32})
argv("moonep-graphs", "the moonep all2all backend disables CUDA graphs", ["vllm.py:2055"],
     [MOE, "-tp", "2", "--enable-expert-parallel", "--all2all-backend", "moonep"])


# ---------------------------------------------------------------- batch 8 (cov034): EngineArgs, model config, KV caches
argv("gpu-blocks-none", "--num-gpu-blocks-override None", ["arg_utils.py:176"], [LLAMA, "--num-gpu-blocks-override", "None"])
argv("log-config-file", "a logging config file", ["arg_utils.py:2273"], [LLAMA, "--log-config-file", "/tmp/log.json"])
argv("tensorizer", "the tensorizer load format with its URI", ["arg_utils.py:2102", "arg_utils.py:2110"],
     [LLAMA, "--load-format", "tensorizer", "--model-loader-extra-config",
      json.dumps({"tensorizer_uri": "/tmp/m.tensors"})])
argv("dp-address", "a data-parallel address given", ["arg_utils.py:2573"],
     [MOE, "-dp", "2", "--enable-expert-parallel", "--data-parallel-address", "10.0.0.1"])
argv("dp-start-rank", "a data-parallel start rank with hybrid load balancing", ["arg_utils.py:2523"],
     [MOE, "-dp", "4", "-dpl", "2", "--data-parallel-start-rank", "2", "--data-parallel-hybrid-lb",
      "--enable-expert-parallel"])
argv("ext-kv-lmcache-mp", "the extensible KV cache with LMCacheMPConnector", ["vllm.py:3241"],
     [LLAMA, "--enable-extensible-kv-cache", "--kv-transfer-config",
      json.dumps({"kv_connector": "LMCacheMPConnector", "kv_role": "kv_both"})])
argv("ext-kv-nixl", "the extensible KV cache with NixlConnector", ["vllm.py:3218", "vllm.py:3223"],
     [LLAMA, "--enable-extensible-kv-cache", *NIXL])
argv("ext-kv-mooncake", "the extensible KV cache with MooncakeConnector", ["vllm.py:3223"],
     [LLAMA, "--enable-extensible-kv-cache", "--kv-transfer-config",
      json.dumps({"kv_connector": "MooncakeConnector", "kv_role": "kv_both"})])
argv("dbo-mm", "DBO for a multimodal model", ["vllm.py:3396"],
     [MM, "--enable-dbo", "--all2all-backend", "deepep_low_latency"])
argv("rust-frontend-mm", "VLLM_USE_RUST_FRONTEND for a multimodal model", ["model.py:1109"], [MM],
     env={"VLLM_USE_RUST_FRONTEND": "1"})
argv("rust-frontend-normalize", "VLLM_USE_RUST_FRONTEND with device normalisation", ["model.py:1125"],
     [MM, "--mm-device-do-normalize"], env={"VLLM_USE_RUST_FRONTEND": "1"})
argv("model-class-overrides", "a model class override", ["model.py:1206", "model.py:1211"],
     [LLAMA, "--model-class-overrides", json.dumps({"LlamaForCausalLM": "my_pkg.models:MyLlama"})])
argv("tokenizer-revision", "a tokenizer revision given", ["model.py:624"], [LLAMA, "--tokenizer-revision", "main"])
argv("hf-config-path", "a separate HF config path", ["model.py:628", "model.py:662"],
     [LLAMA, "--hf-config-path", "models/llama_draft"])
argv("ckpt-no-sleep-2", "checkpoint_prepare_on_startup without sleep mode", ["model.py:682"],
     [LLAMA, "--checkpoint-prepare-on-startup"])
argv("cumem-rocm-off", "the cumem allocator off on ROCm with sleep mode", ["model.py:686", "model.py:691"],
     [LLAMA, "--enable-sleep-mode", "--no-enable-cumem-allocator"], platform="rocm:gfx942")


# ---------------------------------------------------------------- batch 9 (cov034): CPU Mamba backends, multimodal options
argv("cpu-mamba", "a Mamba model on CPU (inner state, no linear attention)", ["cpu.py:67"], ["models/mamba_0340"],
     platform="cpu")
argv("cpu-gdn-fp16", "a GDN model on CPU with a float16 SSM cache", ["cpu.py:86", "cpu.py:93"],
     ["models/qwen3_next", "--mamba-ssm-cache-dtype", "float16"], platform="cpu")
argv("cpu-gdn-bf16", "a GDN model on CPU with a bfloat16 SSM cache", ["cpu.py:88"],
     ["models/qwen3_next", "--mamba-ssm-cache-dtype", "bfloat16"], platform="cpu")
argv("mm-video-pruning", "a video pruning rate for an audio model", ["multimodal.py:761"],
     [MM, "--video-pruning-rate", "0.5"])
argv("mm-encoder-attn-name", "an encoder attention backend named", ["multimodal.py:506"],
     [MM, "--mm-encoder-attn-backend", "FLASH_ATTN"])
argv("mm-limit-int", "a per-modality limit given as a number", ["multimodal.py:480"],
     [MM, "--limit-mm-per-prompt", json.dumps({"audio": 2})])


# ---------------------------------------------------------------- batch 10 (cov034): DP launch, config-mode values
argv("nnodes-ext-rank-given", "external LB on two nodes with the DP rank given", ["arg_utils.py:2460"],
     [MOE, "-dp", "2", "--nnodes", "2", "--node-rank", "1", "-dpb", "mp", "--data-parallel-external-lb",
      "--data-parallel-rank", "1"])
argv("nnodes-local-given", "two nodes with the local DP size given", ["arg_utils.py:2476"],
     [MOE, "-dp", "4", "-dpl", "2", "--nnodes", "2", "--node-rank", "1", "-dpb", "mp", "--enable-expert-parallel"])
argv("hybrid-local-all", "hybrid LB with every DP rank local", ["arg_utils.py:2537"],
     [MOE, "-dp", "2", "-dpl", "2", "--data-parallel-hybrid-lb", "--enable-expert-parallel"])
conf("a2a-passthrough-conf", "the passthrough all2all backend without a MegaMoE backend (config mode)",
     ["kernel.py:223", "kernel.py:224"], model="deepseek_v3",
     parallel_config={"tensor_parallel_size": 2, "enable_expert_parallel": True, "all2all_backend": "passthrough"})
conf("attn-msa-alias", "the CUTLASS_MSA attention backend alias", ["attention.py:232"],
     attention_config={"backend": "CUTLASS_MSA"})
conf("attn-indexer-cp-dtype", "MiniMax M3 indexer CP with an fp8_e5m2 index cache", ["attention.py:247"],
     attention_config={"minimax_m3_indexer_cp": True, "indexer_kv_dtype": "fp8_e5m2"})
conf("device-cuda", "the device given as cuda", ["device.py:53"], device_config={"device": "cuda"})
conf("device-cpu-on-cuda", "the device given as cpu on a CUDA host", ["device.py:61"], device_config={"device": "cpu"})
argv("cc-rope-op-given", "the QK-norm+RoPE fusion with the rotary op already enabled", ["compilation.py:1114"],
     [LLAMA, *cc({"custom_ops": ["+rotary_embedding"], "pass_config": {"enable_qk_norm_rope_fusion": True}})])
argv("cc-rope-kv-op-given", "RoPE+KV-cache fusions with the rotary op already enabled on ROCm",
     ["compilation.py:1124", "compilation.py:1130"],
     [LLAMA, *cc({"custom_ops": ["+rotary_embedding"], "pass_config": ROCM_KV})], platform="rocm:gfx942")


# ---------------------------------------------------------------- batch 11 (cov034): KV connectors and the allocator
EXPANDABLE = {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"}
argv("kv-expandable", "a KV connector with expandable segments", ["vllm.py:1242", "vllm.py:1249"], [LLAMA, *NIXL],
     env=EXPANDABLE)
argv("kv-expandable-cumem", "a KV connector with expandable segments and the cumem allocator", ["vllm.py:1246"],
     [LLAMA, *NIXL, "--enable-cumem-allocator"], env=EXPANDABLE)
argv("kv-offloading-sleep", "the offloading connector with sleep mode", ["vllm.py:1221", "vllm.py:1222"],
     [LLAMA, "--enable-sleep-mode", "--kv-transfer-config",
      json.dumps({"kv_connector": "OffloadingConnector", "kv_role": "kv_both"})])
argv("trace-replay", "trace replay on", ["vllm.py:1293"], [LLAMA, "--enable-trace-replay"])


# ---------------------------------------------------------------- batch 12 (cov034): ReplaySSM / RecoverSSM
NEMO, KIMI = "models/nemotron_h", "models/cov_kimi_linear"  # KimiLinear: the text-only KDA model
RSSM = ["--use-replayssm"]
FIB = ["--mamba-backend", "flashinfer"]
NGRAM3 = ["--speculative-config", json.dumps({"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4})]
argv("rssm-triton", "ReplaySSM on a Mamba2 hybrid with the Triton backend",
     ["vllm.py:3618", "vllm.py:3623", "vllm.py:3630", "vllm.py:3643", "vllm.py:3668", "vllm.py:3673", "vllm.py:3677"],
     [NEMO, *RSSM])
argv("rssm-fi-buffer", "FlashInfer ReplaySSM with a ring longer than 16", ["vllm.py:3627"],
     [NEMO, *RSSM, *FIB, "--replayssm-buffer-len", "32"])
argv("rssm-fi-align-fp16", "FlashInfer ReplaySSM in align mode with float16 inputs", ["vllm.py:3649"],
     [NEMO, *RSSM, *FIB, "--dtype", "float16", "--enable-prefix-caching", "--mamba-cache-mode", "align"])
argv("rssm-fi", "FlashInfer ReplaySSM without speculative decoding",
     ["vllm.py:3644", "vllm.py:3653", "vllm.py:3655", "vllm.py:3659"], [NEMO, *RSSM, *FIB])
argv("rssm-fi-pp", "FlashInfer ReplaySSM with pipeline parallelism", ["vllm.py:3656"], [NEMO, *RSSM, *FIB, "-pp", "2"])
argv("rssm-fi-spec-short", "FlashInfer ReplaySSM speculating past its ring", ["vllm.py:3662"],
     [NEMO, *RSSM, *FIB, "--replayssm-buffer-len", "2", *NGRAM3])
argv("rssm-fi-spec", "FlashInfer ReplaySSM with speculative decoding", ["vllm.py:3661"], [NEMO, *RSSM, *FIB, *NGRAM3])
argv("rssm-triton-spec", "Triton ReplaySSM with speculative decoding", ["vllm.py:3669"], [NEMO, *RSSM, *NGRAM3])
argv("rssm-cpu-backend", "ReplaySSM with the CPU Mamba backend on CUDA", ["vllm.py:3674"],
     [NEMO, *RSSM, "--mamba-backend", "cpu"])
argv("rssm-kv", "ReplaySSM with a KV connector", ["vllm.py:3685"],
     [NEMO, *RSSM, "--kv-transfer-config", json.dumps({"kv_connector": "OffloadingConnector", "kv_role": "kv_both"})])
argv("recoverssm", "RecoverSSM: a KDA model with ReplaySSM and speculative decoding",
     ["vllm.py:3631", "vllm.py:3637", "vllm.py:3641"], [KIMI, *RSSM, *NGRAM3])
argv("recoverssm-sr", "RecoverSSM with stochastic rounding", ["vllm.py:3632"],
     [KIMI, *RSSM, *NGRAM3, "--enable-mamba-cache-stochastic-rounding", "--mamba-ssm-cache-dtype", "float16"],
     platform="cuda:100")
argv("recoverssm-pp", "RecoverSSM with pipeline parallelism", ["vllm.py:3638"], [KIMI, *RSSM, *NGRAM3, "-pp", "2"])
argv("recoverssm-fi", "RecoverSSM with the FlashInfer backend", ["vllm.py:3642"], [KIMI, *RSSM, *NGRAM3, *FIB])
argv("recoverssm-kv", "RecoverSSM with a KV connector (its state transfers as usual)", ["vllm.py:3677"],
     [KIMI, *RSSM, *NGRAM3, "--kv-transfer-config",
      json.dumps({"kv_connector": "OffloadingConnector", "kv_role": "kv_both"})])


# ---------------------------------------------------------------- batch 13 (cov034): Engram (Qwen4-Exp PLE layers)
Q4PLE = "models/cov_qwen4_exp_ple"  # a Qwen4-Exp text model with one PLE (n-gram embedding) layer


def engram(d: dict[str, Any]) -> list[str]:
    return ["--engram-config", json.dumps(d)]


ELASTIC = ["-dp", "2", "--enable-expert-parallel", "--enable-eplb", "--eplb-config", json.dumps({"use_async": False}),
           "--enable-elastic-ep"]
argv("engram-auto", "the Engram config vLLM creates for a model with n-gram layers",
     ["vllm.py:1423", "vllm.py:1429", "engram.py:28", "engram.py:90", "engram.py:98", "engram.py:108",
      "engram.py:113", "engram.py:121"], [Q4PLE])
argv("engram-auto-dp2", "Engram host tables shared between two DP replicas", ["engram.py:109", "engram.py:111"],
     [Q4PLE, "-dp", "2"])
argv("engram-disk", "Engram disk offload of Qwen4-Exp PLE tables on CUDA", ["engram.py:91", "engram.py:93"],
     [Q4PLE, *engram({"disk_offload": True})])
argv("engram-disk-rocm", "Engram disk offload on ROCm", ["engram.py:94"], [Q4PLE, *engram({"disk_offload": True})],
     platform="rocm:gfx942")
argv("engram-shared-dp1", "Engram DP shared memory without data parallelism", ["engram.py:98", "engram.py:110"],
     [Q4PLE, *engram({"dp_shared_memory": True})])
argv("engram-shared-elastic", "Engram DP shared memory with elastic EP", ["engram.py:112"],
     [Q4PLE, *ELASTIC, *engram({"dp_shared_memory": True})])
argv("engram-across-dp-elastic", "Engram embeddings across DP with elastic EP", ["engram.py:118"],
     [Q4PLE, *ELASTIC, *engram({"embedding_across_dp": True})])
argv("engram-disk-elastic", "Engram disk offload with elastic EP", ["engram.py:122"],
     [Q4PLE, *ELASTIC, *engram({"disk_offload": True})])
argv("engram-shared-no-cpu", "Engram DP shared memory without CPU offload", ["engram.py:67"],
     [Q4PLE, *engram({"dp_shared_memory": True, "cpu_offload": False})])
argv("engram-thp-no-cpu", "Engram THP without CPU offload", ["engram.py:69"],
     [Q4PLE, *engram({"use_thp": True, "cpu_offload": False})])


# ---------------------------------------------------------------- batch 14 (cov034): online quantization configs
def qc(d: dict[str, Any]) -> list[str]:
    return ["--quantization-config", json.dumps(d)]


argv("quant-shorthand", "an online quantization shorthand", ["quantization.py:359", "quantization.py:364"],
     [LLAMA, "--quantization", "fp8_per_block"])
argv("quant-deferred", "a deferred online shorthand (also a checkpoint format) without a config",
     ["quantization.py:360"], [LLAMA, "--quantization", "mxfp4"])
argv("quant-merge", "a shorthand with a spec override merged in",
     ["quantization.py:205", "quantization.py:370", "quantization.py:387", "quantization.py:389"],
     [LLAMA, "--quantization", "fp8_per_tensor", *qc({"linear": {"weight": "fp8_per_block_static"},
                                                       "ignore": ["lm_head"]})])
argv("quant-merge-shorthand", "a shorthand with another shorthand's spec for linear layers",
     ["quantization.py:210", "quantization.py:212"],
     [LLAMA, "--quantization", "fp8_per_tensor", *qc({"linear": "fp8_per_channel"})])
argv("quant-merge-key", "a shorthand with a quantization name for linear layers", ["quantization.py:217"],
     [LLAMA, "--quantization", "fp8_per_tensor", *qc({"linear": "fp8_per_tensor_dynamic"})])
argv("quant-deferred-config", "a deferred shorthand with a spec override",
     ["quantization.py:135", "quantization.py:370"],
     [LLAMA, "--quantization", "mxfp4", *qc({"linear": {"weight": "mxfp4", "activation": None}})])
argv("quant-targets", "online quantization by layer-name targets",
     ["quantization.py:222", "quantization.py:224", "quantization.py:227", "quantization.py:232",
      "quantization.py:233", "quantization.py:246", "quantization.py:258", "quantization.py:260"],
     [LLAMA, "--quantization", "online", *qc({"targets": {"re:.*proj": "fp8_per_tensor", "lm_head": "mxfp8"}})])
argv("quant-targets-spec", "online quantization targets given as specs",
     ["quantization.py:239", "quantization.py:241"],
     [LLAMA, "--quantization", "online",
      *qc({"targets": {"re:.*mlp.*": {"weight": "fp8_per_tensor_static", "activation": "fp8_per_token"}}})])
argv("quant-targets-null", "online quantization with targets given as null", ["quantization.py:222"],
     [LLAMA, "--quantization", "online", *qc({"linear": "fp8_per_tensor", "targets": None})])
argv("quant-hadamard-override", "changing the weight of a Hadamard-rotated shorthand",
     ["quantization.py:394", "quantization.py:162", "quantization.py:170", "quantization.py:100"],
     [LLAMA, "--quantization", "mxfp4_hadamard32", *qc({"linear": {"weight": "mxfp8"}})])


# ---------------------------------------------------------------- batch 15 (cov034): watermarking with speculative
# decoding, VLLM_RELOAD_MODE=direct
EAGLE_P = {"method": "eagle", "model": "llama_draft", "num_speculative_tokens": 2, "draft_sample_method": "probabilistic"}
conf("wm-spec-block", "watermarking with block rejection sampling", ["vllm.py:1319", "vllm.py:1320"], model="llama",
     speculative_config={**EAGLE_P, "rejection_sample_method": "block"}, watermark_config={"key": 7})
conf("wm-spec-ngram", "watermarking with n-gram speculation", ["vllm.py:1324", "vllm.py:1325"], model="llama",
     speculative_config={"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 3,
                         "draft_sample_method": "probabilistic"}, watermark_config={"key": 7})
conf("wm-spec-gumbel", "gumbel watermarking with speculation, drafts not allowed unwatermarked",
     ["vllm.py:1330", "vllm.py:1334"], model="llama", speculative_config=EAGLE_P, watermark_config={"key": 7})
conf("wm-spec-dual-alpha", "dual-key gumbel watermarking with speculation and its alpha set",
     ["vllm.py:1340", "vllm.py:1350", "vllm.py:1353"], model="llama", speculative_config=EAGLE_P,
     watermark_config={"key": 7, "algorithm": "dual_key_gumbel", "alpha": 0.3})
DIRECT = {"VLLM_RELOAD_MODE": "direct"}
argv("direct-reload", "direct reload with nothing it refuses", ["vllm.py:1175", "vllm.py:1179", "vllm.py:1197"],
     [LLAMA], env=DIRECT)
argv("direct-reload-online", "direct reload with online quantization", ["vllm.py:1184"],
     [LLAMA, "--quantization", "fp8_per_tensor"], env=DIRECT)
argv("direct-reload-draft-head", "direct reload with a quantized draft lm-head", ["vllm.py:1190", "vllm.py:1193"],
     [LLAMA, "--speculative-config", json.dumps({**EAGLE_P, "model": "models/llama_draft",
                                                 "draft_lm_head_quantization": "fp8"})], env=DIRECT)


# ---------------------------------------------------------------- batch 16 (cov034): an executor class by name
ABSTRACT_EXECUTOR = ["--distributed-executor-backend", "vllm.v1.executor.abstract.Executor"]
argv("executor-class-no-async", "an executor class without async scheduling support", ["vllm.py:1622", "vllm.py:1623"],
     [LLAMA, *ABSTRACT_EXECUTOR])
argv("executor-class-async", "async scheduling asked of an executor class without its support",
     ["vllm.py:1606", "vllm.py:1607"], [LLAMA, *ABSTRACT_EXECUTOR, "--async-scheduling"])
argv("executor-class-uni", "vLLM's uniprocess executor class by its qualified name", ["vllm.py:1622"],
     [LLAMA, "--distributed-executor-backend", "vllm.v1.executor.uniproc_executor.UniProcExecutor"])


# ---------------------------------------------------------------- batch 17 (cov034): EPD encoder instances
EC_PRODUCER = ["--ec-transfer-config", json.dumps({"ec_connector": "ECExampleConnector", "ec_role": "ec_producer"})]
SPAWN = {"VLLM_WORKER_MULTIPROC_METHOD": "spawn"}
argv("epd-processor-cpu", "an EPD encoder instance keeps the processor on CPU without torch_shm",
     ["vllm.py:3013", "vllm.py:3016", "vllm.py:3020", "vllm.py:3056", "vllm.py:3060"], [MM, *EC_PRODUCER])
argv("epd-processor-shm", "an EPD encoder instance runs the processor and video decoding on the GPU",
     ["vllm.py:3016", "vllm.py:3032", "vllm.py:3060", "vllm.py:3068", "vllm.py:3078", "vllm.py:3086"],
     [MM, *EC_PRODUCER, "--mm-tensor-ipc", "torch_shm"], env=SPAWN)
argv("epd-processor-shm-video", "an EPD encoder instance with the video backend given", ["vllm.py:3068"],
     [MM, *EC_PRODUCER, "--mm-tensor-ipc", "torch_shm", "--media-io-kwargs", json.dumps({"video": {"backend": "opencv"}})],
     env=SPAWN)


# ---------------------------------------------------------------- batch 18 (cov034): SpeculativeConfig
EAGLE2 = {"method": "eagle", "model": "llama_draft", "num_speculative_tokens": 2}
conf("spec-max-len-target", "a speculative max_model_len above the target's",
     ["speculative.py:1465", "speculative.py:1466"], model="llama", model_config={"max_model_len": 1024},
     speculative_config={**EAGLE2, "max_model_len": 2048})
conf("spec-no-method-no-model", "speculative decoding without a method or a draft model", ["speculative.py:1370"],
     model="llama", speculative_config={"num_speculative_tokens": 2})
conf("spec-adaptive-local-argmax", "adaptive verification with local argmax reduction", ["speculative.py:1405",
     "speculative.py:1410"], model="llama",
     speculative_config={**EAGLE2, "enable_adaptive_verification": True, "use_local_argmax_reduction": True})


# ---------------------------------------------------------------- batch 19 (cov034): --quantization-config refused by
# its validators while parsing
argv("qc-targets-list", "quantization targets given as a list", ["quantization.py:224", "quantization.py:225"],
     [LLAMA, *qc({"targets": ["x"]})])
argv("qc-target-unknown", "a quantization target naming no online shorthand", ["quantization.py:233",
     "quantization.py:234"], [LLAMA, *qc({"targets": {"a": "nope"}})])
argv("qc-target-number", "a quantization target given as a number", ["quantization.py:241", "quantization.py:242"],
     [LLAMA, *qc({"targets": {"a": 3}})])
argv("qc-target-regex", "a quantization target pattern that is no regex", ["quantization.py:250"],
     [LLAMA, *qc({"targets": {"re:[": "fp8_per_tensor"}})])
argv("qc-targets-and-linear", "quantization targets with a linear spec",
     ["quantization.py:260", "quantization.py:261", "quantization.py:162", "quantization.py:100"],
     [LLAMA, *qc({"targets": {"a": "mxfp8"}, "linear": {"weight": "fp8_per_tensor_static", "activation": None}})])
argv("qc-name-unknown", "an unknown quantization name for linear layers", ["quantization.py:77"],
     [LLAMA, *qc({"linear": "foo"})])
argv("qc-weight-number", "a quantization weight given as a number", ["quantization.py:72", "quantization.py:73"],
     [LLAMA, *qc({"linear": {"weight": 3}})])
argv("qc-hadamard-size", "a Hadamard size that is not a power of two", ["quantization.py:142", "quantization.py:143"],
     [LLAMA, *qc({"linear": {"weight": "mxfp4", "hadamard_size": 3}})])
argv("qc-shorthand-no-linear", "an online shorthand without a linear spec for linear layers",
     ["quantization.py:212", "quantization.py:213"], [LLAMA, *qc({"linear": "int8_per_channel_weight_only"})])


# ---------------------------------------------------------------- batch 20 (cov034): ModelConfig's quantization and
# decode context parallelism checks
argv("dcp-q-per-kv", "decode context parallelism not dividing the query heads per KV head",
     ["model.py:1621", "model.py:1622"], ["models/cov_llama_h12kv2", "-tp", "12", "-dcp", "4"],
     platform={"kind": "cuda", "capability": 90, "device_count": 12})
argv("quant-deprecated-allowed", "a deprecated quantization method allowed", ["model.py:1493", "model.py:1494"],
     ["models/cov_llama_fbgemm", "--allow-deprecated-quantization"])
argv("quant-humming", "the humming quantization method asked for", ["model.py:1438"],
     [LLAMA, "--quantization", "humming"])


# ---------------------------------------------------------------- batch 21 (cov034): LoRA support, elastic EP ceiling
argv("lora-unsupported-model", "LoRA for a model class without LoRA support", ["lora.py:142", "lora.py:143"],
     [KIMI, "--enable-lora"])
argv("elastic-max-dp-below", "an elastic EP DP ceiling below the DP size", ["parallel.py:1135", "parallel.py:1136"],
     [MOE, *ELASTIC, "--elastic-ep-max-dp-size", "1"])


# ---------------------------------------------------------------- batch 22 (cov034): CPU block sizes, worker class
argv("cpu-mla-block-size", "an MLA model on CPU (reference MLA kernel) with a block size given", ["cpu.py:291", "cpu.py:292"],
     [MOE, "--block-size", "32", "--attention-backend", "CPU_MLA"], platform="cpu")
argv("cpu-dsv4-block-size", "DeepSeek-V4 on CPU with a block size given", ["cpu.py:298", "cpu.py:299", "cpu.py:303"],
     ["models/deepseek_v4", "--block-size", "64"], platform="cpu")
argv("cpu-dsv4", "DeepSeek-V4 on CPU", ["cpu.py:299"], ["models/deepseek_v4"], platform="cpu")
argv("cpu-worker-cls", "a worker class given on CPU", ["cpu.py:359"],
     [LLAMA, "--worker-cls", "vllm.v1.worker.cpu_worker.CPUWorker"], platform="cpu")


# ---------------------------------------------------------------- batch 23 (cov034): online quantization composed
# with a quantized checkpoint
argv("quant-composed", "a quantized checkpoint with an online quantization config composed",
     ["quantization.py:347", "quantization.py:353"],
     ["models/llama_fp8_block", "--quantization", "fp8", *qc({"moe": "fp8_per_tensor", "ignore": ["lm_head"]})])


# ---------------------------------------------------------------- batch 24: speculative.py (k346-k449)
number_from(346)


def hf_over(d: dict[str, Any]) -> list[str]:
    return ["--hf-overrides", json.dumps(d)]


def mtp(k: int = 1, **extra: Any) -> list[str]:
    return ["--speculative-config", json.dumps({"method": "mtp", "num_speculative_tokens": k, **extra})]


# the MTP draft of each model type (SpeculativeConfig.hf_config_override, speculative.py:778-1303)
argv("mtp-dots3", "MTP on Dots3Note: SWA MTP layers appended", ["speculative.py:832", "speculative.py:835"],
     ["models/spec_dots3_note", "--language-model-only", *mtp()])
argv("mtp-dots3-types", "MTP on Dots3Note with MTP layer types of the wrong length", ["speculative.py:837",
     "speculative.py:838"], ["models/spec_dots3_note_types", "--language-model-only", *mtp()])
argv("mtp-pangu", "MTP on openPangu Ultra MoE", ["speculative.py:875", "speculative.py:877"], ["models/spec_pangu", *mtp()])
argv("mtp-kimi-k3", "MTP on Kimi-K3 (layer count under text_config)", ["speculative.py:883"],
     ["models/spec_kimi_k3", "--language-model-only", *mtp()])
argv("mtp-mimo-v2", "MTP on MiMo-V2", ["speculative.py:904"], ["models/spec_mimo_v2", *mtp()])
argv("mtp-mimo-v2-flash", "MTP on MiMo-V2-Flash", ["speculative.py:929"], ["models/spec_mimo_v2_flash", *mtp()])
argv("mtp-glm4-moe-lite", "MTP on GLM-4 MoE Lite", ["speculative.py:956"], ["models/spec_glm4_moe_lite", *mtp()])
argv("mtp-nemotron-h", "MTP on a Nemotron-H checkpoint with MTP layers", ["speculative.py:1012", "speculative.py:1019"],
     ["models/spec_nemotron_h_mtp", *mtp()])
argv("mtp-qwen4-exp", "MTP on Qwen4Exp text", ["speculative.py:1032", "speculative.py:1034"],
     ["models/qwen4_exp_text", *mtp()])
argv("mtp-bailing-hybrid", "MTP on Bailing hybrid", ["speculative.py:1068", "speculative.py:1073"],
     ["models/spec_bailing_hybrid", *mtp()])
argv("mtp-exaone-moe", "MTP on EXAONE MoE", ["speculative.py:1090", "speculative.py:1092"],
     ["models/spec_exaone_moe", *mtp()])
argv("mtp-qwen3-5", "MTP on Qwen3.5 text", ["speculative.py:1104", "speculative.py:1116"],
     ["models/spec_qwen3_5_mtp", *mtp()])
argv("mtp-qwen3-5-no-layers", "MTP on a Qwen3.5 text checkpoint without mtp_num_hidden_layers", ["speculative.py:1116"],
     ["models/qwen3_5_text", *mtp()])
argv("mtp-longcat", "MTP on LongCat-Flash", ["speculative.py:1149"], ["models/spec_longcat", *mtp()])
argv("mtp-step3p5", "MTP on Step-3.5, two tokens (the layer is meant to be reused)", ["speculative.py:1156"],
     ["models/spec_step3p5", *mtp(2)])
argv("mtp-hy-v3", "MTP on HY-V3", ["speculative.py:1190"], ["models/spec_hy_v3", *mtp()])
argv("mtp-hy-v4", "MTP on HY-V4", ["speculative.py:1197"], ["models/spec_hy_v4", *mtp()])
argv("mtp-inkling-none", "MTP on an Inkling checkpoint without MTP weights", ["speculative.py:1204",
     "speculative.py:1208", "speculative.py:1209"], ["models/spec_inkling", *mtp()])
argv("mtp-inkling", "MTP on Inkling, two tokens (its MTP layer is meant to be reused)", ["speculative.py:1208"],
     ["models/spec_inkling_mtp", *mtp(2)])
argv("mtp-step5", "MTP on Step-5", ["speculative.py:1172", "speculative.py:1178"], ["models/spec_step5", *mtp()])
argv("mtp-bailing-v3", "MTP on Bailing MoE V3", ["speculative.py:1063", "speculative.py:1081"],
     ["models/spec_bailing_v3", *mtp()])
argv("mtp-mistral-large3", "MTP on Mistral Large 3: its EAGLE head", ["speculative.py:1187"],
     ["models/spec_mistral_large3", *mtp()])
argv("mtp-qwen3-5-moe", "MTP on Qwen3.5 MoE text", ["speculative.py:1104"], ["models/spec_qwen3_5_moe_mtp", *mtp()])
argv("mtp-yarn", "MTP on a YaRN-scaled DeepSeek-V3: the draft's RoPE is not resized", ["speculative.py:1517"],
     ["models/spec_dsv3_yarn", *mtp()])
argv("mtp-multi-module", "MTP with two modules and two tokens: the modules are chained",
     ["speculative.py:1817", "speculative.py:1820", "speculative.py:1822"], ["models/cvo_dsv3_mtp2", *mtp(2)])
argv("mtp-multi-module-shared", "MTP with two modules, index sharing asked for: one module reused",
     ["speculative.py:1820", "speculative.py:1822"],
     ["models/cvo_dsv3_mtp2", *mtp(2, index_share_for_mtp_iteration=True)])
argv("mtp-multi-module-unshared", "MTP with two modules, index sharing off", ["speculative.py:1820"],
     ["models/cvo_dsv3_mtp2", *mtp(4, index_share_for_mtp_iteration=False)])
argv("spec-ngram-brackets", "method '[ngram]' given as such", ["speculative.py:1380"],
     [LLAMA, "--speculative-config", json.dumps({"method": "[ngram]", "num_speculative_tokens": 2,
                                                 "prompt_lookup_max": 3})])
conf("spec-attn-backend-null", "a speculative attention backend given as null", ["speculative.py:1639"],
     model="llama", speculative_config={"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 3,
                                        "attention_backend": None})
argv("spec-fly-extract", "FLy verification for hidden-state extraction, which drafts nothing",
     ["speculative.py:1701", "speculative.py:1702"],
     [LLAMA, "--speculative-config", json.dumps({"method": "extract_hidden_states", "num_speculative_tokens": 2,
                                                 "rejection_sample_method": "fly"})])
argv("spec-draft-vocab", "a draft model with another vocabulary size", ["speculative.py:1733", "speculative.py:1734"],
     [LLAMA, "--speculative-config", json.dumps({"method": "draft_model", "model": "models/spec_llama_draft_vocab",
                                                 "num_speculative_tokens": 2})])
argv("spec-eagle3-aux-layers", "an EAGLE-3 draft naming its auxiliary hidden-state layers", ["speculative.py:774"],
     [LLAMA, "--speculative-config", json.dumps({"method": "eagle3", "model": "models/spec_eagle3_aux",
                                                 "num_speculative_tokens": 2})])
argv("dflash-muse-assistant", "Muse Glimmer's non-causal DFlash assistant", ["speculative.py:1294"],
     ["models/muse_glimmer", "--language-model-only", "--speculative-config",
      json.dumps({"method": "dflash", "model": "models/spec_muse_assistant", "num_speculative_tokens": 2})])
argv("dspark-qwen3", "a Qwen3 DSpark draft under DeepSeek-V4's architecture name", ["speculative.py:789"],
     [LLAMA, "--speculative-config", json.dumps({"method": "dspark", "model": "models/spec_qwen3_dspark",
                                                 "num_speculative_tokens": 4})])
argv("dflash2-nope", "a DFlash2 drafter with NoPE layers (Ripple's)", ["speculative.py:796"],
     [LLAMA, "--speculative-config", json.dumps({"method": "dflash", "model": "models/spec_dflash2_nope",
                                                 "num_speculative_tokens": 4})])
argv("dspark-gemma4", "a Gemma4 DSpark draft naming target_layer_ids", ["speculative.py:802", "speculative.py:804"],
     [LLAMA, "--speculative-config", json.dumps({"method": "dspark", "model": "models/spec_gemma4_dspark",
                                                 "num_speculative_tokens": 4})])
argv("mtp-glm5-next-vl", "MTP on GLM-5-Next's VL checkpoint, language model only", ["speculative.py:1281"],
     ["models/spec_glm5_next_vl", "--language-model-only", *mtp()])
argv("mtp-exaone4-5", "MTP on EXAONE-4.5 VL, language model only", ["speculative.py:1097", "speculative.py:1099"],
     ["models/spec_exaone4_5", "--language-model-only", *mtp()])

# Qwen3-Omni DSpark drafts (_validate_qwen3_omni_dspark, speculative.py:211-420): a llama target whose config also
# names the Qwen3-Omni architecture (vLLM serves the first registered one), a standalone DSpark draft
OMNI = [LLAMA, *hf_over({"architectures": ["LlamaForCausalLM", "Qwen3OmniMoeForConditionalGeneration"]})]


def omni(slug: str, description: str, sites: list[str], draft: str, k: int = 4) -> None:
    argv(slug, description, sites, [*OMNI, "--speculative-config", json.dumps(
        {"method": "dspark", "model": f"models/{draft}", "num_speculative_tokens": k})])


omni("omni-dspark", "a Qwen3-Omni DSpark draft that fits its target", ["speculative.py:215", "speculative.py:338"],
     "spec_omni_dspark")
omni("omni-dspark-arch", "a generic Qwen3 DSpark draft on a Qwen3-Omni target", ["speculative.py:221",
     "speculative.py:222"], "spec_qwen3_dspark")
omni("omni-dspark-no-block", "a Qwen3-Omni DSpark draft without a block size", ["speculative.py:202",
     "speculative.py:204", "speculative.py:236"], "spec_omni_noblock")
omni("omni-dspark-tokens", "Qwen3-Omni DSpark drafting other than its block size", ["speculative.py:240",
     "speculative.py:241"], "spec_omni_dspark", k=2)
omni("omni-dspark-target-hidden", "a Qwen3-Omni DSpark draft conditioned on another hidden size",
     ["speculative.py:257", "speculative.py:258"], "spec_omni_target_hidden")
omni("omni-dspark-hidden", "a Qwen3-Omni DSpark draft of another hidden size", ["speculative.py:263",
     "speculative.py:264"], "spec_omni_hidden")
omni("omni-dspark-kv-heads", "a Qwen3-Omni DSpark draft with other KV heads", ["speculative.py:298",
     "speculative.py:299"], "spec_omni_kv_heads")
omni("omni-dspark-heads", "a Qwen3-Omni DSpark draft with other attention heads and no head_dim",
     ["speculative.py:177", "speculative.py:181", "speculative.py:299"], "spec_omni_heads")
omni("omni-dspark-no-ids", "a Qwen3-Omni DSpark draft without target layer ids", ["speculative.py:307",
     "speculative.py:309", "speculative.py:312"], "spec_omni_no_ids")
omni("omni-dspark-ids-type", "Qwen3-Omni DSpark target layer ids that are not all integers",
     ["speculative.py:316", "speculative.py:320"], "spec_omni_ids_type")
omni("omni-dspark-ids-order", "Qwen3-Omni DSpark target layer ids out of order", ["speculative.py:323",
     "speculative.py:324"], "spec_omni_ids_order")
omni("omni-dspark-ids-range", "Qwen3-Omni DSpark target layer ids past the target's layers", ["speculative.py:332",
     "speculative.py:333"], "spec_omni_ids_range")
omni("omni-dspark-no-aux", "a Qwen3-Omni DSpark draft without auxiliary hidden states", ["speculative.py:338",
     "speculative.py:339"], "spec_omni_no_aux")
omni("omni-dspark-markov-rank", "a Qwen3-Omni DSpark draft without a Markov rank", ["speculative.py:345",
     "speculative.py:350"], "spec_omni_markov_rank")
omni("omni-dspark-markov-head", "a Qwen3-Omni DSpark draft with a gated Markov head", ["speculative.py:355",
     "speculative.py:356"], "spec_omni_markov_head")
omni("omni-dspark-anchor", "a Qwen3-Omni DSpark draft that does not sample from the anchor", ["speculative.py:363",
     "speculative.py:364"], "spec_omni_anchor")
omni("omni-dspark-draft-vocab", "a Qwen3-Omni DSpark draft vocabulary larger than the target's",
     ["speculative.py:375"], "spec_omni_draft_vocab")
omni("omni-dspark-mask-token", "a Qwen3-Omni DSpark noise token outside the draft vocabulary",
     ["speculative.py:375"], "spec_omni_mask_token")
omni("omni-dspark-eagle-config", "a Qwen3-Omni DSpark draft configured through eagle_config",
     ["speculative.py:193", "speculative.py:204"], "spec_omni_eagle_cfg")


# ---------------------------------------------------------------- batch 25: vllm.py, arg_utils.py, platforms (k450-k549)
number_from(450)
DSV4 = "models/deepseek_v4"
AITER = {"VLLM_ROCM_USE_AITER": "1"}
ROCM950_AITER = {"kind": "rocm", "gcn_arch": "gfx950", "aiter_found": True}
ROCM942_AITER = {"kind": "rocm", "gcn_arch": "gfx942", "aiter_found": True}
argv("rocm-dsv4-mxfp4-indexer", "DeepSeek-V4 on gfx950 with AITER: the MXFP4 sparse indexer cache by default",
     ["rocm.py:401", "rocm.py:405", "rocm.py:416", "rocm.py:419"], [DSV4], platform=ROCM950_AITER, env=AITER)
argv("rocm-dsv4-no-aiter", "DeepSeek-V4 on gfx950 without AITER keeps the FP8 indexer cache", ["rocm.py:416"],
     [DSV4], platform="rocm:gfx950")
argv("rocm-dsv4-gfx90a", "DeepSeek-V4 on a CDNA2 GPU", ["rocm.py:373", "rocm.py:405"], [DSV4], platform="rocm:gfx90a")
argv("rocm-dsv4-rdna", "DeepSeek-V4 on an RDNA3 GPU (no CDNA version)", ["rocm.py:379"], [DSV4],
     platform="rocm:gfx1100")
argv("rocm-dsv4-gfx1250", "DeepSeek-V4 on gfx1250 (CDNA5)", ["rocm.py:379"], [DSV4], platform="rocm:gfx1250")
argv("rocm-aiter-llama", "AITER on gfx942: its FP8-linear and fused-MoE custom ops", ["rocm.py:1151", "rocm.py:1172"],
     [LLAMA], platform=ROCM942_AITER, env=AITER)
argv("rocm-aiter-shared-experts", "AITER fused shared experts override a disabled grouped_topk op", ["rocm.py:1163",
     "rocm.py:1164"], [MOE, *cc({"custom_ops": ["-grouped_topk"]})], platform=ROCM942_AITER,
     env={**AITER, "VLLM_ROCM_USE_AITER_FUSION_SHARED_EXPERTS": "1"})
argv("rocm-batch-invariant", "batch invariance on ROCm turns the RMSNorm custom op on", ["rocm.py:1157"], [LLAMA],
     platform="rocm:gfx942", env={"VLLM_BATCH_INVARIANT": "1"})
argv("rocm-worker-cls", "a worker class given on ROCm", ["rocm.py:1212"],
     [LLAMA, "--worker-cls", "vllm.v1.worker.gpu_worker.Worker"], platform="rocm:gfx942")
argv("cuda-worker-cls", "a worker class given on CUDA", ["cuda.py:371"],
     [LLAMA, "--worker-cls", "vllm.v1.worker.gpu_worker.Worker"])
argv("cuda-maxwell", "a Maxwell GPU (capability 5.2): float32 only", ["cuda.py:302"], [LLAMA], platform="cuda:52")
argv("cuda-maxwell-fp32", "a Maxwell GPU (capability 5.2) with float32 asked for", ["cuda.py:302"],
     [LLAMA, "--dtype", "float32"], platform="cuda:52")
argv("cpu-bnb", "bitsandbytes on CPU", ["interface.py:1170", "interface.py:1171"], ["models/llama_bnb8"], platform="cpu")
argv("cpu-quant-gguf", "a quantization method CPU does not support", ["interface.py:1171"],
     [LLAMA, "--quantization", "bitsandbytes"], platform="cpu")
argv("rocm-awq-marlin", "AWQ asked for on ROCm", ["rocm.py:1262", "rocm.py:1263"],
     ["models/llama_awq", "--quantization", "awq"], platform="rocm:gfx942")
argv("aux-offloading", "routed-expert output with a KV connector that supports it", ["vllm.py:1142", "vllm.py:1149"],
     [MOE, "--enable-return-routed-experts", "--kv-transfer-config",
      json.dumps({"kv_connector": "OffloadingConnector", "kv_role": "kv_both"})])
argv("reload-torchao", "direct reload with torchao quantization", ["vllm.py:1175", "vllm.py:1178"],
     [LLAMA, "--quantization", "torchao"], env={"VLLM_RELOAD_MODE": "direct"})
argv("replay-diffusion", "sampling replay for a diffusion model", ["vllm.py:1276", "vllm.py:1277"],
     ["models/diffusion_gemma", *REPLAY])
argv("ec-consumer-mm-embeds", "an EC consumer with prompt embeddings already enabled", ["vllm.py:2957"],
     [MM, "--enable-mm-embeds", "--ec-transfer-config",
      json.dumps({"ec_connector": "ECExampleConnector", "ec_role": "ec_consumer"})])
argv("rocm-rope-kv-no-max", "RoPE+KV-cache fusions without a token threshold on ROCm", ["vllm.py:2781", "vllm.py:2795"],
     [LLAMA, *cc({"pass_config": {**ROCM_KV, "rope_kvcache_fusion_max_token_num": None}})], platform="rocm:gfx942")
argv("sched-tokens-zero", "max_num_scheduled_tokens 0 with speculative decoding", ["vllm.py:2272", "vllm.py:2273"],
     [LLAMA, *spec({}), "--max-num-scheduled-tokens", "0"])
argv("bi-eager", "batch invariance with eager mode", ["vllm.py:782"], [L8B, "--enforce-eager"], env=BI)
argv("bi-fp16", "batch invariance in float16", ["vllm.py:782"], [L8B, "--dtype", "float16"], env=BI)
argv("rocm-aiter-ar-fusion", "the AITER custom all-reduce with the allreduce+RMSNorm fusion", ["vllm.py:2755"],
     [LLAMA, "-tp", "2", *cc({"pass_config": {"fuse_allreduce_rms": True}})], platform=ROCM942_AITER, env=AITER)
conf("attn-backend-null", "attention backend given as null", ["attention.py:286"], attention_config={"backend": None})
conf("attn-mla-prefill-name", "an MLA prefill backend named", ["attention.py:296"], model="deepseek_v3",
     attention_config={"mla_prefill_backend": "flashinfer"})
conf("attn-mla-prefill-null", "the MLA prefill backend given as null", ["attention.py:296"], model="deepseek_v3",
     attention_config={"mla_prefill_backend": None})
conf("attn-per-kind-full", "a backend per KV cache group kind", ["attention.py:314", "attention.py:315", "attention.py:321"],
     attention_config={"backend_per_kind": {"full_attention": "flash_attn"}})
conf("kernel-ir-text", "an IR op priority given as text", ["kernel.py:69"],
     kernel_config={"ir_op_priority": {"rms_norm": "native, vllm_c"}})
conf("kernel-autotune-null", "FlashInfer autotune given as null", ["kernel.py:484"],
     kernel_config={"enable_flashinfer_autotune": None})
conf("kernel-rdna-dequant", "the RDNA hybrid W4A16 prefill dequant given as text", ["kernel.py:455"],
     kernel_config={"rdna_hybrid_w4a16_prefill_dequant": "Enable"})
conf("ec-manager-no-cls", "an encoder cache manager config without its class", ["ec_manager_config.py:20",
     "ec_manager_config.py:21"], ec_manager_config={"manager_config": {"size": 1}})
conf("ec-engine-id", "an EC transfer engine id given", ["ec_transfer.py:72"], model="whisper",
     ec_transfer_config={"ec_connector": "ECExampleConnector", "ec_role": "ec_producer", "engine_id": "e1"})
conf("device-null", "the device given as null", ["device.py:53"], device_config={"device": None})
argv("kv-multi-roles", "a MultiConnector's children's KV roles", ["kv_transfer.py:164"],
     [LLAMA, "--kv-transfer-config", json.dumps({"kv_connector": "MultiConnector", "kv_role": "kv_both",
      "kv_connector_extra_config": {"connectors": [{"kv_connector": "OffloadingConnector", "kv_role": "kv_both"}]}})])
argv("kv-no-connector", "a KV transfer config without a connector", ["kv_transfer.py:162", "kv_transfer.py:194"],
     [LLAMA, "--kv-transfer-config", json.dumps({"kv_role": "kv_both"})])
conf("offload-prefetch-uva", "UVA fields with the prefetch backend", ["offload.py:124", "offload.py:125"],
     offload_config={"offload_backend": "prefetch", "uva": {"cpu_offload_gb": 1}, "prefetch": {"offload_group_size": 4}})
conf("offload-auto-both", "UVA and prefetch fields with the auto backend", ["offload.py:130", "offload.py:131"],
     offload_config={"uva": {"cpu_offload_gb": 1}, "prefetch": {"offload_group_size": 4}})
argv("wm-key-big", "a watermark key above 64 bits", ["watermarking.py:71", "watermarking.py:72"],
     [LLAMA, "--watermark-config", json.dumps({"key": 2**64})])
argv("wm-gumbel-dedup", "gumbel watermarking with context deduplication", ["watermarking.py:77", "watermarking.py:80"],
     [LLAMA, "--watermark-config", json.dumps({"algorithm": "gumbel", "key": 3, "deduplicate_contexts": "none"})])
argv("wm-short-history", "dual-key gumbel watermarking with a short deduplication history", ["watermarking.py:80"],
     [LLAMA, "--watermark-config", json.dumps({"algorithm": "dual_key_gumbel", "key": 3,
                                               "deduplicate_contexts_max_history": 100})])
argv("lora-dual-stream-cpu", "LoRA dual streams on CPU", ["lora.py:121", "lora.py:122"], [LLAMA, "--enable-lora"],
     platform="cpu", env={"VLLM_LORA_ENABLE_DUAL_STREAM": "1"})
argv("lora-dual-stream-sharded", "LoRA dual streams with fully sharded LoRAs", ["lora.py:123", "lora.py:124"],
     [LLAMA, "-tp", "2", "--enable-lora", "--fully-sharded-loras"], env={"VLLM_LORA_ENABLE_DUAL_STREAM": "1"})
argv("attn-indexer-rows", "indexer_tp_shard_min_rows is deprecated", ["attention.py:222", "attention.py:223"],
     [LLAMA, "--attention-config", json.dumps({"indexer_tp_shard_min_rows": 8})])
conf("attn-indexer-rows-conf", "indexer_tp_shard_min_rows is deprecated (config mode)", ["attention.py:223"],
     attention_config={"indexer_tp_shard_min_rows": 8})

EAGLE_DRAFT = {"method": "eagle", "model": "models/llama_draft", "num_speculative_tokens": 2}
argv("max-capture-flag", "max_cudagraph_capture_size given as a flag", ["arg_utils.py:2879"],
     [LLAMA, "--max-cudagraph-capture-size", "64"])
argv("kernel-ir-priority", "an IR op priority in the kernel config is deprecated", ["arg_utils.py:2859",
     "arg_utils.py:2860"], [LLAMA, "--kernel-config", json.dumps({"ir_op_priority": {"rms_norm": ["native"]}})])
argv("ir-priority-flag", "--ir-op-priority sets the kernel config's priority", ["arg_utils.py:2847",
     "arg_utils.py:2851", "arg_utils.py:2860"], [LLAMA, "--ir-op-priority", json.dumps({"rms_norm": ["native"]})])
argv("ir-priority-both", "an IR op priority given as a flag and in the kernel config", ["arg_utils.py:2852"],
     [LLAMA, "--ir-op-priority", json.dumps({"rms_norm": ["native"]}), "--kernel-config",
      json.dumps({"ir_op_priority": {"rms_norm": ["vllm_c"]}})])
argv("tokens-only", "tokens-only mode skips the tokenizer", ["arg_utils.py:2599", "arg_utils.py:2601"],
     [LLAMA, "--tokens-only"])
argv("chunked-attn-eagle", "chunked local attention with EAGLE turns the hybrid KV cache manager off",
     ["vllm.py:2160"], ["models/llama_chunked", "--speculative-config", json.dumps(EAGLE_DRAFT)])
argv("capture-append-budget", "a token budget below the largest capture size is captured too", ["vllm.py:2492"],
     [LLAMA, "--max-num-seqs", "100", "--max-num-batched-tokens", "100"])
argv("dbo-mm-encoder-only", "DBO for a multimodal encoder-only instance", ["vllm.py:3405"],
     [MM, "--mm-encoder-only", "--enable-dbo", "--all2all-backend", "deepep_low_latency"])
argv("rssm-fi-dbo", "FlashInfer ReplaySSM with microbatching", ["vllm.py:3653", "vllm.py:3654"],
     [NEMO, *RSSM, *FIB, "-tp", "2", "--enable-expert-parallel", "--enable-dbo", "--all2all-backend",
      "deepep_low_latency"])
argv("reasoning-parser", "a reasoning parser for a model whose tokenizer lacks its tokens",
     ["arg_utils.py:2240", "arg_utils.py:3151", "vllm.py:2121", "vllm.py:2123", "vllm.py:2124"],
     [LLAMA, "--reasoning-parser", "deepseek_r1"])
argv("reasoning-parser-config", "a reasoning parser with a reasoning config given", ["arg_utils.py:3151"],
     [LLAMA, "--reasoning-parser", "deepseek_r1", "--reasoning-config", json.dumps({})])
argv("deep-gemm-qwen35-b200", "DeepGEMM auto-disabled for Qwen3.5 on Blackwell", ["vllm.py:1579", "vllm.py:1581"],
     ["models/qwen3_5_text", "--quantization", "fp8"], platform="cuda:100")
argv("deep-gemm-qwen35-fp8-block", "DeepGEMM auto-disabled for a block-FP8 Qwen3.5 on Blackwell",
     ["vllm.py:1579", "vllm.py:1581"], ["models/qwen3_5_text", "--quantization", "fp8_per_block"], platform="cuda:100")

argv("cpu-qwen35-fp16", "a GDN (linear attention) model on CPU with a float16 SSM cache",
     ["cpu.py:83", "cpu.py:86", "cpu.py:93", "cpu.py:323", "cpu.py:327"],
     ["models/qwen3_5_text", "--mamba-ssm-cache-dtype", "float16"], platform="cpu")
argv("cpu-qwen35-bf16", "a GDN (linear attention) model on CPU with a bfloat16 SSM cache", ["cpu.py:88", "cpu.py:93"],
     ["models/qwen3_5_text", "--mamba-ssm-cache-dtype", "bfloat16"], platform="cpu")
argv("cpu-mamba-bf16", "a Mamba model (inner state, no linear attention) on CPU with a bfloat16 SSM cache",
     ["cpu.py:67"], ["models/mamba_0340", "--mamba-ssm-cache-dtype", "bfloat16"], platform="cpu")
argv("cpu-nixl", "the NIXL connector on CPU selects the DS conv state layout", ["cpu.py:453"], [LLAMA, *NIXL],
     platform="cpu")
argv("cpu-preloaded", "LD_PRELOAD with libgomp and tcmalloc, and an SSM conv state layout given, on CPU",
     ["cpu.py:443", "cpu.py:461", "cpu.py:505"], [LLAMA], platform="cpu",
     env={"LD_PRELOAD": "/opt/lib/libtcmalloc_minimal.so.4:/opt/lib/libgomp.so.1", "VLLM_SSM_CONV_STATE_LAYOUT": "SD"})
argv("hisparse-other-connector", "HiSparse with a KV connector that is not HiSparse's", ["kv_transfer.py:39"],
     ["models/deepseek_v32", "--attention-config", json.dumps({"hisparse_config": {}}), "--kv-transfer-config",
      json.dumps({"kv_connector": "OffloadingConnector", "kv_role": "kv_both"})])
conf("a2a-passthrough-fi-ep", "the passthrough all2all backend with a FlashInfer MoE-EP backend (config mode)",
     ["kernel.py:208"], model="deepseek_v3",
     parallel_config={"tensor_parallel_size": 2, "enable_expert_parallel": True, "all2all_backend": "passthrough"},
     kernel_config={"moe_backend": "flashinfer_moe_ep_cutedsl"})
argv("moe-ep-deepgemm-dsv4", "the DeepGEMM MoE-EP backend for DeepSeek-V4", ["kernel.py:237"],
     [DSV4, "-tp", "2", "--enable-expert-parallel", "--moe-backend", "flashinfer_moe_ep_mega_deep_gemm"])
conf("kernel-moe-backend-null", "the MoE backend given as null", ["kernel.py:434"], kernel_config={"moe_backend": None})
conf("kernel-linear-per-quant", "a linear backend per quantization method", ["kernel.py:471"],
     kernel_config={"linear_backend_per_quant": {"fp8": "cutlass"}})
conf("kernel-linear-backend-null", "the linear backend given as null", ["kernel.py:441"],
     kernel_config={"linear_backend": None})
conf("kernel-topk-backend-null", "the sparse indexer top-k backend given as null", ["kernel.py:448"],
     kernel_config={"sparse_indexer_topk_backend": None})

argv("rocm-quant-unsupported", "an online quantization shorthand ROCm does not support", ["interface.py:1170",
     "interface.py:1171"], [LLAMA, "--quantization", "int8_per_channel_weight_only"], platform="rocm:gfx942")
argv("ext-kv-custom-pool", "the extensible KV cache with a connector's custom memory pool", ["vllm.py:3223"],
     [LLAMA, "--enable-extensible-kv-cache", "--kv-transfer-config",
      json.dumps({"kv_connector": "OffloadingConnector", "kv_role": "kv_both",
                  "kv_connector_extra_config": {"custom_mem_pool": True}})])
argv("ext-kv-nixl-rocm", "the extensible KV cache with NIXL on ROCm", ["vllm.py:3231"],
     [LLAMA, "--enable-extensible-kv-cache", *NIXL], platform="rocm:gfx942")

argv("kv-turboquant", "a TurboQuant KV cache keeps the boundary layers and runs FlashAttention 2",
     ["arg_utils.py:2374", "arg_utils.py:2792", "arg_utils.py:2796"], [LLAMA, "--kv-cache-dtype", "turboquant_k8v4"])
argv("kv-ultraquant", "an UltraQuant KV cache keeps the boundary layers and runs FlashAttention 2",
     ["arg_utils.py:2374", "arg_utils.py:2796"], [LLAMA, "--kv-cache-dtype", "ultraquant_4bit"])


# ---------------------------------------------------------------- batch 26: model.py, multimodal.py, utils.py (k550-k649)
number_from(550)
RSN = "models/cov_llama_reason"  # a Llama with a word-level tokenizer that has <think> and </think>
VL = "models/qwen4_exp_vl"
# ---------------------------------------------------------------- model.py
argv("sleep-cumem-given", "sleep mode with the cumem allocator already on", ["model.py:686"],
     [LLAMA, "--enable-sleep-mode", "--enable-cumem-allocator"])
argv("served-name-list", "two served model names", ["model.py:2374", "model.py:2376"],
     [LLAMA, "--served-model-name", "first", "second"])
conf("served-name-text", "a served model name given as text", ["model.py:2376"],
     model_config={"served_model_name": "mine"})
argv("hf-nested-overrides", "nested hf_overrides into a sub-config, a dict in it and a new key",
     ["model.py:549", "model.py:551", "model.py:557", "model.py:565"],
     [VL, "--hf-overrides", json.dumps({"text_config": {"rope_parameters": {"rope_theta": 20000.0,
                                                                            "extra": {"k": 1}},
                                                         "cov_block": {"x": 1}}})])
argv("sliding-window-zero", "a checkpoint's sliding_window of 0", ["model.py:839"],
     [LLAMA, "--hf-overrides", json.dumps({"sliding_window": 0})])
argv("class-overrides-real", "a model class override naming a class that exists",
     ["model.py:1197", "model.py:1204", "model.py:1206", "model.py:1211"],
     [LLAMA, "--model-class-overrides",
      json.dumps({"LlamaForCausalLM": "vllm.model_executor.models.llama:LlamaForCausalLM"})])
argv("unknown-arch-no-suffix", "an architecture name without a known suffix", ["model.py:1313", "model.py:1321"],
     [LLAMA, "--hf-overrides", json.dumps({"architectures": ["FooBarNet"]})])
argv("quant-humming", "the humming quantization method asked for", ["model.py:1438"], [LLAMA, "-q", "humming"])
argv("terratorch-impl", "the terratorch model implementation", ["model.py:765"], [LLAMA, "--model-impl", "terratorch"])
for _arch, _site in (("Alpamayo2Super", "767"), ("MoonshotKimiaForCausalLM", "769"),
                     ("DeepseekV41ForCausalLM", "783"), ("InklingForCausalLM", "785")):
    argv(f"tok-mode-{_arch.lower()[:12]}", f"the default tokenizer mode of {_arch}", [f"model.py:{_site}"],
         [LLAMA, "--hf-overrides", json.dumps({"architectures": [_arch]})])
argv("head-dtype-model", "a checkpoint's head_dtype 'model'", ["model.py:2570"],
     [LLAMA, "--hf-overrides", json.dumps({"head_dtype": "model"})])
argv("head-dtype-unknown", "a checkpoint's head_dtype naming no dtype", ["model.py:2574", "model.py:2575"],
     [LLAMA, "--hf-overrides", json.dumps({"head_dtype": "float7"})])
argv("head-dtype-number", "a checkpoint's head_dtype given as a number", ["model.py:2579", "model.py:2586"],
     [LLAMA, "--hf-overrides", json.dumps({"head_dtype": 16})])
argv("rope-null-factor", "a RoPE scaling with a null factor", ["model.py:2668", "model.py:2670"],
     [LLAMA, "--hf-overrides", json.dumps({"rope_scaling": {"rope_type": "linear", "factor": None}})])
argv("pooling-hybrid", "a hybrid model converted to a pooling model", ["model.py:2249", "model.py:2295"],
     ["models/jamba", "--convert", "embed"])
argv("pooling-attn-free", "an attention-free model converted to a pooling model", ["model.py:2249", "model.py:2295"],
     ["models/mamba_0340", "--convert", "embed"])
argv("renderer-workers-mm-pool", "renderer workers with the multimodal cache for a multimodal pooling model",
     ["model.py:916", "model.py:921"], ["models/colqwen3_5", "--renderer-num-workers", "2"])
argv("dual-chunk", "a dual-chunk-attention model without a sparse attention config", ["model.py:1546", "model.py:1553"],
     ["models/qwen2_dual_chunk"])
argv("nvfp4-act-fusion", "a ModelOpt NVFP4 checkpoint at -O3", ["model.py:2349"],
     ["models/cvo_modelopt_nvfp4", "-O3"])
# ---------------------------------------------------------------- reasoning.py
argv("reasoning-parser", "a reasoning parser whose strings the tokenizer knows",
     ["reasoning.py:83", "reasoning.py:89", "reasoning.py:93", "reasoning.py:97", "reasoning.py:100",
      "reasoning.py:114"], [RSN, "--reasoning-parser", "deepseek_r1"])
argv("reasoning-strings", "reasoning strings given without a parser", ["reasoning.py:83", "reasoning.py:97"],
     [RSN, "--reasoning-config", json.dumps({"reasoning_start_str": "<think>", "reasoning_end_str": "</think>"})])
argv("reasoning-parser-strings", "a reasoning parser with the strings also given", ["reasoning.py:89", "reasoning.py:93"],
     [RSN, "--reasoning-parser", "deepseek_r1", "--reasoning-config",
      json.dumps({"reasoning_start_str": "<think>", "reasoning_end_str": "a </think>"})])
argv("reasoning-no-end", "a reasoning start string without an end string", ["reasoning.py:100", "vllm.py:2124"],
     [RSN, "--reasoning-config", json.dumps({"reasoning_start_str": "<think>"})])
argv("reasoning-blank", "reasoning strings the tokenizer turns into no tokens", ["reasoning.py:114", "reasoning.py:119"],
     [RSN, "--reasoning-config", json.dumps({"reasoning_start_str": " ", "reasoning_end_str": " "})])
# ---------------------------------------------------------------- multimodal.py
argv("mm-fp8-scale-file", "an FP8 scale file that exists", ["multimodal.py:544", "multimodal.py:546"],
     [VL, "--mm-encoder-attn-dtype", "fp8", "--mm-encoder-fp8-scale-path", "./models/qwen4_exp_vl/config.json"])
argv("mm-fp8-save-dir", "an FP8 scale save path in a directory that exists", ["multimodal.py:548", "multimodal.py:550"],
     [VL, "--mm-encoder-attn-dtype", "fp8", "--mm-encoder-fp8-scale-save-path", "./models/qwen4_exp_vl/scales.json"])
argv("mm-device-given-kwargs", "a processor device both in the kwargs and as the flag", ["multimodal.py:579"],
     [VL, "--mm-processor-kwargs", json.dumps({"device": "cpu"}), "--mm-processor-device", "cuda"])
argv("mm-kwargs-scopes", "processor kwargs with a mapping scope, an empty scope and a value scope",
     ["multimodal.py:164", "multimodal.py:171", "multimodal.py:177", "multimodal.py:189", "multimodal.py:191"],
     [VL, "--mm-processor-kwargs", json.dumps({"images_kwargs": {"max_pixels": 4096}, "videos_kwargs": {},
                                               "audio_kwargs": 3, "size": {"a": 1}})])
argv("mm-video-limit", "a per-prompt video limit given as options", ["multimodal.py:484"],
     [VL, "--limit-mm-per-prompt", json.dumps({"video": {"count": 1, "num_frames": 4}})])
# ---------------------------------------------------------------- profiler.py, pooler.py, observability.py
PROF = {"profiler": "torch", "torch_profiler_dir": "/tmp/cov-prof"}
argv("prof-activities", "torch profiler activities for the torch profiler", ["profiler.py:209", "profiler.py:214"],
     [LLAMA, "--profiler-config", json.dumps({**PROF, "torch_profiler_activities": ["CPU", "CUDA"]})])
argv("prof-activities-dup", "duplicate torch profiler activities", ["profiler.py:214", "profiler.py:215"],
     [LLAMA, "--profiler-config", json.dumps({**PROF, "torch_profiler_activities": ["CPU", "CPU"]})])
argv("prof-proton-flush", "Proton graph attribution with periodic flushing", ["profiler.py:274", "profiler.py:279"],
     [LLAMA, "--profiler-config", json.dumps({"profiler": "proton", "proton_profiler_dir": "/tmp/cov-proton",
                                              "proton_graph_attribution": True,
                                              "proton_mode": "periodic_flushing:10"})])
conf("pooler-both-tok", "pooling_type and tok_pooling_type both set (config mode)", ["pooler.py:147", "pooler.py:148"],
     model="bert", model_config={"pooler_config": {"pooling_type": "CLS", "tok_pooling_type": "ALL"}})
conf("obs-buckets-scalar", "histogram buckets of a family given as a number", ["observability.py:167"],
     observability_config={"custom_histogram_buckets": {"e2e_request_latency": 5}})
# ---------------------------------------------------------------- scheduler.py, compilation.py, parallel.py
conf("sched-no-model", "a scheduler config built without a model, its length given",
     ["scheduler.py:260", "scheduler.py:262"], model=None,
     scheduler_config={"max_model_len": 4096, "is_encoder_decoder": False})
argv("cc-autofunc-given", "auto-functionalization v2 given in the Inductor config", ["compilation.py:1075"],
     [LLAMA, *cc({"inductor_compile_config": {"enable_auto_functionalized_v2": True}})])
argv("cc-cache-format-unpacked", "the unpacked compile cache format", ["compilation.py:1042"],
     [LLAMA, *cc({"compile_cache_save_format": "unpacked"})])
argv("cc-qk-rope-alone", "QK-norm+RoPE fusion enabling the rotary op", ["compilation.py:1114"],
     [LLAMA, *cc({"pass_config": {"enable_qk_norm_rope_fusion": True}})])
argv("cc-qk-rope-kv-alone", "QK-norm+RoPE+KV-cache fusion alone on ROCm", ["compilation.py:1130"],
     [LLAMA, *cc({"pass_config": {"fuse_qk_norm_rope_kvcache": True}})], platform="rocm:gfx942")
argv("cc-backend-mode3", "a custom backend with mode VLLM_COMPILE given", ["compilation.py:1189", "compilation.py:1194"],
     [LLAMA, *cc({"mode": 3, "backend": "cudagraphs"})])
argv("cc-pass-null", "a pass config field given as null", ["compilation.py:310"],
     [LLAMA, *cc({"pass_config": {"fi_allreduce_fusion_max_size_mb": None}})])
argv("cc-field-null", "a compilation field given as null", ["compilation.py:1061"],
     [LLAMA, *cc({"cudagraph_mode": None, "splitting_ops": None})])
argv("fi-allreduce-rocm", "the allreduce+RMSNorm fusion on ROCm", ["compilation.py:280"],
     [LLAMA, "-tp", "2", *cc({"pass_config": {"fuse_allreduce_rms": True}})], platform="rocm:gfx942")
conf("numa-cpus-valid", "a valid NUMA CPU list", ["parallel.py:541"], parallel_config={"numa_bind_cpus": ["0-3"]})
argv("ft-api-servers", "fault tolerance with two API servers", ["parallel.py:568", "parallel.py:569"],
     [LLAMA, "--enable-fault-tolerance", "--api-server-count", "2"])
# ---------------------------------------------------------------- batch 26, second round
argv("mm-limits-int", "per-prompt image and video limits given as counts",
     ["multimodal.py:480", "multimodal.py:484", "multimodal.py:486"],
     [VL, "--limit-mm-per-prompt", json.dumps({"image": 2, "video": 1})])
argv("mm-limit-audio-int", "a per-prompt audio limit given as a count", ["multimodal.py:480", "multimodal.py:488"],
     [MM, "--limit-mm-per-prompt", json.dumps({"audio": 2})])
argv("mm-limit-other", "a per-prompt limit for a modality vLLM has no options class for", ["multimodal.py:488"],
     [VL, "--limit-mm-per-prompt", json.dumps({"image": 1, "point_cloud": 1})])
argv("runner-generate-embed-only", "--runner generate for a model that only embeds",
     ["model.py:741", "model.py:743", "model.py:745"], ["models/gte", "--runner", "generate"])
argv("hc-sp-pp", "HC sequence parallelism with pipeline parallelism on a model supporting it",
     ["model.py:1572", "model.py:1574", "model.py:1575"],
     ["models/qwen4_exp_text", "--enable-hc-sp", "-tp", "2", "-pp", "2"])
argv("hc-sp", "HC sequence parallelism on a model supporting it", ["model.py:1572", "model.py:1574"],
     ["models/qwen4_exp_text", "--enable-hc-sp", "-tp", "2"])
argv("video-pruning-unsupported", "a video pruning method the model does not implement",
     ["multimodal.py:761", "model.py:905", "model.py:910"],
     ["models/nemotron_h_omni", "--video-pruning-rate", "0.5", "--video-pruning-method", "vidcom2"])
argv("video-pruning", "video pruning with a method the model implements", ["multimodal.py:761", "model.py:905"],
     ["models/nemotron_h_omni", "--video-pruning-rate", "0.5"])
argv("cc-split-eager-given", "splitting ops given without VLLM_COMPILE", ["compilation.py:1327"],
     [LLAMA, *cc({"mode": 0, "splitting_ops": ["vllm::unified_attention_with_output"]})])
argv("cc-split-given", "splitting ops given under VLLM_COMPILE", ["compilation.py:1374"],
     [LLAMA, *cc({"splitting_ops": ["vllm::unified_attention_with_output"]})])
argv("cc-split-empty-full", "empty splitting ops with FULL CUDA graphs", ["compilation.py:1375", "compilation.py:1392"],
     [LLAMA, *cc({"splitting_ops": [], "cudagraph_mode": "FULL"})])
argv("attn-quant-split-given", "attention+quant fusion with empty splitting ops given", ["compilation.py:1421"],
     ["models/llama_fp8_block", *cc({"splitting_ops": [], "pass_config": {"fuse_attn_quant": True}})])
argv("attn-quant-full", "attention+quant fusion with FULL CUDA graphs", ["compilation.py:1423"],
     ["models/llama_fp8_block", *cc({"cudagraph_mode": "FULL", "pass_config": {"fuse_attn_quant": True}})])
# ---------------------------------------------------------------- batch 26, third round
conf("model-weights-given", "model weights given (pulled already)", ["model.py:1234"],
     model_config={"model_weights": "/tmp/cov-weights"})
MMKW = {"size": {"shortest_edge": 8}, "images_kwargs": {"size": {"longest_edge": 16}}, "videos_kwargs": {},
        "text_kwargs": 3}
OMNI = "models/nemotron_h_omni"  # its processor merges the configured kwargs while vLLM builds the config
argv("mm-kwargs-scopes-omni", "processor kwargs with scopes for a model whose processor merges them",
     ["multimodal.py:54", "multimodal.py:164", "multimodal.py:171", "multimodal.py:177", "multimodal.py:189",
      "multimodal.py:191"], [OMNI, "--mm-processor-kwargs", json.dumps(MMKW)])
argv("mm-kwargs-scopes-omni-no-normalize", "processor kwargs with scopes, device normalisation off",
     ["multimodal.py:728"], [OMNI, "--mm-processor-kwargs", json.dumps(MMKW), "--no-mm-device-do-normalize"])
argv("mm-kwargs-scopes-pooling", "processor kwargs with scopes for a multimodal pooling model",
     ["multimodal.py:164", "multimodal.py:189"], ["models/colqwen3_5", "--mm-processor-kwargs", json.dumps(MMKW)])
conf("mori-ep-v2-given", "the MoRI all2all backend with its EP version given", ["parallel.py:1315"],
     model="deepseek_v3", platform="rocm:gfx942",
     parallel_config={"tensor_parallel_size": 2, "enable_expert_parallel": True, "all2all_backend": "mori",
                      "mori_ep_v2": False})
argv("cc-pass-fusion-null", "a pass config fusion given as null", ["compilation.py:310"],
     [LLAMA, *cc({"pass_config": {"fuse_norm_quant": None, "fuse_act_quant": None}})])


# ---------------------------------------------------------------- batch 27: speculative.py, models/config.py (k650-k749)
number_from(650)
# the MTP draft of each model type (SpeculativeConfig.hf_config_override), the drafts not reached before
argv("mtp-dsv4", "MTP on DeepSeek-V4: its MTP architecture", ["speculative.py:863", "speculative.py:872"],
     ["models/deepseek_v4", *mtp()])
argv("mtp-dsv41", "MTP on a DeepSeek-V4.1 checkpoint: no classic MTP draft (refused)",
     ["speculative.py:863", "speculative.py:872"], ["models/spec_dsv41", *mtp()])
argv("mtp-gemma4-assistant", "Gemma4's MTP assistant checkpoint as the draft: its KV sharing cleared",
     ["speculative.py:1223", "speculative.py:1230"],
     ["models/gemma4_text", "--speculative-config",
      json.dumps({"method": "mtp", "model": "models/spec_gemma4_assistant", "num_speculative_tokens": 1})])
# Qwen3-Omni DSpark drafts: the checks the drafts above leave (`OMNI` names another model by now)
OMNI_TARGET = [LLAMA, *hf_over({"architectures": ["LlamaForCausalLM", "Qwen3OmniMoeForConditionalGeneration"]})]
for _slug, _what, _sites, _draft in (
        ("qwen2", "a Qwen3-Omni DSpark draft of a config class without head_dim (Qwen2): derived", ["181"],
         "spec_omni_qwen2"),
        ("mrope", "a Qwen3-Omni DSpark draft defining mrope_section", ["430", "431"], "spec_omni_mrope"),
        ("no-mask", "a Qwen3-Omni DSpark draft without any mask or noise token", ["401", "409"], "spec_omni_no_mask"),
        ("vocab0", "a Qwen3-Omni DSpark draft with an empty input vocabulary", ["375", "380"], "spec_omni_vocab0")):
    argv(f"omni-dspark-{_slug}", _what, [f"speculative.py:{s}" for s in _sites], [*OMNI_TARGET, "--speculative-config",
         json.dumps({"method": "dspark", "model": f"models/{_draft}", "num_speculative_tokens": 4})])
for _key in ("head_dim", "num_key_value_heads"):
    argv(f"omni-dspark-target-{_key.replace('_', '-')}", f"a Qwen3-Omni target whose text config has {_key} 0",
         ["speculative.py:288", "speculative.py:293"],
         [LLAMA, *hf_over({"architectures": ["LlamaForCausalLM", "Qwen3OmniMoeForConditionalGeneration"], _key: 0}),
          "--speculative-config", json.dumps({"method": "dspark", "model": "models/spec_omni_dspark",
                                              "num_speculative_tokens": 4})])
argv("mtp-mistral-large4-no-mtp", "MTP on a Mistral Large 4 text checkpoint without an mtp_config: no DSpark draft",
     ["speculative.py:823"], ["models/mistral_large4", *mtp()])
argv("mtp-transformers-backend", "MTP on the Transformers backend (num_mtp_layers): the draft built from the target",
     ["speculative.py:783"], [LLAMA, "--model-impl", "transformers", *hf_over({"num_mtp_layers": 1}), *mtp()])
argv("eagle-draft-shorter", "an EAGLE draft with fewer positions than the target's length: extended to it",
     ["speculative.py:1517", "speculative.py:1519"], ["models/llama_long", "--speculative-config",
     json.dumps({"method": "eagle", "model": "models/cvo_eagle-llama", "num_speculative_tokens": 2})])
argv("mtp-bailing-v3-vl", "MTP on Bailing MoE V3 VL (an fp8 quantization config on the outer config), language "
     "model only: the text config promoted, the quantization config copied to it",
     ["speculative.py:1055", "speculative.py:1058"], ["models/spec_bailing_v3_vl", "--language-model-only", *mtp()])
argv("mtp-glm-ocr", "MTP on GLM-OCR, language model only", ["speculative.py:967"],
     ["models/spec_glm_ocr", "--language-model-only", *mtp()])
argv("dspark-gemma4-own-ids", "a Gemma4 DSpark draft naming dspark_target_layer_ids itself", ["speculative.py:804"],
     [LLAMA, "--speculative-config", json.dumps({"method": "dspark", "model": "models/spec_gemma4_dspark_ids",
                                                 "num_speculative_tokens": 4})])

# ---------------------------------------------------------------- batch 28: vllm.py, arg_utils.py, platforms, small configs
# (k750-k849)
number_from(750)
KVT = "--kv-transfer-config"
LMC_LAYERWISE = {"kv_connector": "LMCacheConnectorV1", "kv_role": "kv_both",
                 "kv_connector_extra_config": {"use_layerwise": True}}
argv("sleep-nixl-push", "sleep mode with the push NIXL connector, which cannot follow the KV cache remap",
     ["vllm.py:1221", "vllm.py:1222"], [LLAMA, "--enable-sleep-mode", KVT,
     json.dumps({"kv_connector": "NixlPushConnector", "kv_role": "kv_both"})])
argv("sleep-multi-push", "sleep mode with a MultiConnector whose child is the push NIXL connector",
     ["vllm.py:1221", "vllm.py:1222"], [LLAMA, "--enable-sleep-mode", KVT,
     json.dumps({"kv_connector": "MultiConnector", "kv_role": "kv_both", "kv_connector_extra_config": {
         "connectors": [{"kv_connector": "NixlPushConnector", "kv_role": "kv_both"}]}})])
argv("lmcache-layerwise", "LMCache's layerwise mode forces PIECEWISE CUDA graphs", ["vllm.py:1902", "vllm.py:1905"],
     [LLAMA, KVT, json.dumps(LMC_LAYERWISE)])
argv("multi-lmcache-layerwise", "a MultiConnector child in LMCache's layerwise mode forces PIECEWISE CUDA graphs",
     ["vllm.py:1902", "vllm.py:1905"], [LLAMA, KVT, json.dumps({
         "kv_connector": "MultiConnector", "kv_role": "kv_both", "kv_connector_extra_config": {
             "connectors": [{"kv_connector": "OffloadingConnector", "kv_role": "kv_both"}, LMC_LAYERWISE]}})])
argv("rocm-awq-file", "--quantization awq on ROCm for a checkpoint whose AWQ settings are in quantize_config.json "
     "(no quantization_config in config.json, so no AutoAWQ override)", ["rocm.py:1262", "rocm.py:1263"],
     ["models/llama_awq_file", "--quantization", "awq"], platform="rocm:gfx942")
FP8_BLOCK = {"quant_method": "fp8", "activation_scheme": "dynamic", "weight_block_size": [128, 128]}
argv("deep-gemm-qwen35-ckpt-b200", "a block-FP8 Qwen3.5 checkpoint on Blackwell: DeepGEMM auto-disabled",
     ["vllm.py:1579", "vllm.py:1581"], ["models/qwen3_5_text", "--hf-overrides",
     json.dumps({"quantization_config": FP8_BLOCK})], platform="cuda:100")
argv("rssm-fi-mamba-ubatch", "FlashInfer ReplaySSM for a pure Mamba model with microbatches", ["vllm.py:3653",
     "vllm.py:3654"], ["models/mamba_0340", *RSSM, *FIB, "--ubatch-size", "2"])
argv("lora-inkling", "LoRA for an Inkling model without INKLING_MULTIMEM_AR=0", ["lora.py:157", "lora.py:158"],
     ["models/spec_inkling", "--enable-lora"])
conf("kernel-rdna-dequant-bool", "the RDNA hybrid W4A16 prefill dequant given as a boolean", ["kernel.py:455"],
     kernel_config={"rdna_hybrid_w4a16_prefill_dequant": True})
conf("mamba-backend-null", "the Mamba backend given as null", ["mamba.py:62"], mamba_config={"backend": None})
conf("attn-per-kind-null", "backend_per_kind given as null", ["attention.py:310"],
     attention_config={"backend_per_kind": None})
conf("attn-per-kind-backend-null", "a backend of backend_per_kind given as null", ["attention.py:321"],
     attention_config={"backend_per_kind": {"full_attention": None}})
argv("obs-buckets-scalar-known", "a histogram family's buckets given as a number", ["observability.py:167"],
     [LLAMA, "--custom-histogram-buckets", json.dumps({"vllm:time_to_first_token_seconds": 5})])
argv("watermark-json-text", "--watermark-config given as a JSON text of JSON", ["arg_utils.py:2227"],
     [LLAMA, "--watermark-config", json.dumps(json.dumps({"key": 3}))])
argv("diffusion-json-text", "--diffusion-config given as a JSON text of JSON", ["arg_utils.py:2219"],
     ["models/diffusion_gemma", "--diffusion-config", json.dumps(json.dumps({}))])
DFLASH2 = {"method": "dflash", "model": "models/spec_dflash2_nope", "num_speculative_tokens": 4}
argv("dflash-draft-pass-fits", "DFlash's draft pass fits fewer requests than max_num_seqs in the token budget",
     ["vllm.py:2309", "vllm.py:2310"], [LLAMA, "--speculative-config", json.dumps(DFLASH2),
     "--max-num-batched-tokens", "2048"])
argv("dflash-draft-pass-active", "DFlash's draft pass bounds a given max_num_active_seqs",
     ["vllm.py:2309", "vllm.py:2310"], [LLAMA, "--speculative-config", json.dumps(DFLASH2),
     "--max-num-batched-tokens", "4096", "--max-num-seqs", "1024", "--max-num-active-seqs", "900"])
argv("cc-no-capture-sizes", "no prefill and no decode capture sizes: no CUDA graph is left",
     ["vllm.py:2733", "vllm.py:2734"], [LLAMA, *cc({"prefill_cudagraph_capture_token_sizes": [],
                                                      "decode_cudagraph_capture_request_sizes": []})])
argv("cc-no-capture-decode-only", "FULL_DECODE_ONLY without decode capture sizes", ["vllm.py:2733", "vllm.py:2734"],
     [LLAMA, *cc({"cudagraph_mode": "FULL_DECODE_ONLY", "decode_cudagraph_capture_request_sizes": []})])
argv("cc-capture-sizes-empty", "the deprecated capture sizes given as an empty list", ["vllm.py:2733"],
     [LLAMA, *cc({"cudagraph_capture_sizes": []})])
argv("cpu-bamba", "a hybrid Mamba2 model (no linear attention) on CPU", ["cpu.py:67"], ["models/bamba"],
     platform="cpu")
argv("cpu-kimi-linear-fp16", "a KDA (linear attention) model on CPU with a float16 SSM cache",
     ["cpu.py:83", "cpu.py:86", "cpu.py:93"], ["models/cov_kimi_linear", "--mamba-ssm-cache-dtype", "float16"],
     platform="cpu")
argv("cpu-kimi-linear-fp32", "a KDA (linear attention) model on CPU with a float32 SSM cache", ["cpu.py:86"],
     ["models/cov_kimi_linear", "--mamba-ssm-cache-dtype", "float32"], platform="cpu")
MM_PREFIX = ["--hf-overrides", json.dumps({"is_mm_prefix_lm": True})]
argv("mm-prefix-lm-cuda", "a multimodal model with bidirectional attention over its images on CUDA",
     ["cuda.py:376", "cuda.py:382", "arg_utils.py:3241", "arg_utils.py:3181"], ["models/qwen4_exp_vl", *MM_PREFIX])
argv("mm-prefix-lm-rocm", "a multimodal model with bidirectional attention over its images on ROCm",
     ["rocm.py:1218", "rocm.py:1224", "arg_utils.py:3241"], ["models/qwen4_exp_vl", *MM_PREFIX],
     platform="rocm:gfx942")
argv("mm-prefix-lm-lfm3", "LFM3-VL with bidirectional attention over its images on CUDA",
     ["cuda.py:376", "arg_utils.py:3241"], ["models/lfm3_vl", *MM_PREFIX])
argv("cpu-offload-gb", "--cpu-offload-gb fills the UVA offload config (0.34.0 has no cache_config.cpu_offload_gb)",
     ["arg_utils.py:2888"], [LLAMA, "--cpu-offload-gb", "2"])
argv("cpu-offload-gb-direct-reload", "weights offloaded to the CPU with direct reload", ["vllm.py:1170"],
     [LLAMA, "--cpu-offload-gb", "2"], env={"VLLM_RELOAD_MODE": "direct"})
argv("cpu-offload-gb-prefetch", "--cpu-offload-gb with the prefetch offload backend", ["offload.py:124"],
     [LLAMA, "--cpu-offload-gb", "2", "--offload-backend", "prefetch", "--offload-group-size", "2"])
argv("cpu-kimi-linear-bf16", "a KDA (linear attention) model on CPU with a bfloat16 SSM cache: the GDN backend",
     ["cpu.py:93"], ["models/cov_kimi_linear", "--mamba-ssm-cache-dtype", "bfloat16"], platform="cpu")
# `vllm serve`'s own flags and launcher (the oracle parses serve cases with vLLM's serve parser and runs its
# ServeSubcommand.cmd up to the launcher)
argv("serve-tokens-only", "vllm serve --tokens-only skips the tokenizer", ["arg_utils.py:2599", "arg_utils.py:2601"],
     [LLAMA, "--tokens-only"])
argv("serve-tokens-only-skip", "--tokens-only with the tokenizer already skipped", ["arg_utils.py:2599"],
     [LLAMA, "--tokens-only", "--skip-tokenizer-init"])
argv("serve-api-servers-ft", "fault tolerance (external LB) with several API servers",
     ["parallel.py:568", "parallel.py:569"], [MOE, "-dp", "2", "--data-parallel-rank", "0", "--api-server-count",
                                              "2", "--enable-fault-tolerance"])
argv("serve-api-servers", "two API servers", ["parallel.py:561"], [LLAMA, "--api-server-count", "2"])
argv("serve-dp-api-servers-default", "data parallelism: one API server per rank by default",
     ["parallel.py:561"], [LLAMA, "-dp", "2"])
argv("serve-dp-external-ft", "fault tolerance with external-LB data parallelism: one API server by default",
     ["parallel.py:568"], [MOE, "-dp", "2", "--data-parallel-external-lb", "--data-parallel-rank", "1",
                           "--enable-fault-tolerance"])
argv("serve-dp-hybrid-api-servers", "hybrid-LB data parallelism: an API server per local rank by default",
     ["parallel.py:561"], [MOE, "-dp", "4", "--data-parallel-size-local", "2", "--data-parallel-start-rank", "0",
                           "--data-parallel-hybrid-lb"])


# ---------------------------------------------------------------- batch 29: model.py, multimodal.py, utils.py, reasoning.py,
# model_arch.py, compilation.py (k850-k949)
number_from(850)
# ---------------------------------------------------------------- reasoning parsers (the 0.34.0 oracle venv has
# vLLM's serving dependencies since this batch: fastapi[standard], oss-harmony, ijson, mistral_common, ...)
for _parser in ("qwen3", "glm45", "step3", "ernie45", "seed_oss"):
    argv(f"reason-{_parser.replace('_', '-')}", f"the {_parser} reasoning parser on a tokenizer with its tokens",
         ["arg_utils.py:2240", "arg_utils.py:3151", "reasoning.py:83", "reasoning.py:89", "reasoning.py:93"],
         [RSN, "--reasoning-parser", _parser])
for _parser in ("openai_gptoss", "granite", "deepseek_v3", "hunyuan_a13b", "minimax_m2_append_think"):
    argv(f"reason-nostr-{_parser.replace('_', '-')[:14]}", f"the {_parser} reasoning parser has no reasoning strings",
         ["reasoning.py:89", "reasoning.py:93", "reasoning.py:97", "reasoning.py:100", "vllm.py:2124"],
         [RSN, "--reasoning-parser", _parser])
argv("reason-granite-strings", "a reasoning parser without strings, the strings given",
     ["reasoning.py:89", "reasoning.py:93", "reasoning.py:97"],
     [RSN, "--reasoning-parser", "granite", "--reasoning-config",
      json.dumps({"reasoning_start_str": "<think>", "reasoning_end_str": "</think>"})])
argv("reason-unknown", "a reasoning parser name vLLM does not register", ["reasoning.py:83"],
     [RSN, "--reasoning-parser", "nosuch"])
argv("reason-none", "--reasoning-parser None is no parser", ["arg_utils.py:3149"], [RSN, "--reasoning-parser", "None"])
argv("reason-flag-and-so", "--reasoning-parser over the structured outputs config's parser", ["arg_utils.py:2240"],
     [RSN, "--reasoning-parser", "deepseek_r1", "--structured-outputs-config", json.dumps({"reasoning_parser": "qwen3"})])
argv("reason-so-only", "a reasoning parser given in the structured outputs config only", ["arg_utils.py:3149"],
     [RSN, "--structured-outputs-config", json.dumps({"reasoning_parser": "deepseek_r1"})])
argv("reason-config-parser", "a reasoning parser given in the reasoning config only", ["reasoning.py:83"],
     [RSN, "--reasoning-config", json.dumps({"reasoning_parser": "qwen3"})])
argv("reason-config-unknown", "an unknown reasoning parser given in the reasoning config", ["reasoning.py:83"],
     [RSN, "--reasoning-config", json.dumps({"reasoning_parser": "nosuch"})])
argv("reason-flag-over-config", "--reasoning-parser over the reasoning config's parser", ["arg_utils.py:3151"],
     [RSN, "--reasoning-parser", "qwen3", "--reasoning-config", json.dumps({"reasoning_parser": "deepseek_v3"})])
argv("reason-gptoss-flag", "the gpt-oss model with its reasoning parser named", ["arg_utils.py:3151"],
     ["models/gpt_oss", "--reasoning-parser", "openai_gptoss", "--tokenizer", RSN])
_BOTH = json.dumps({"reasoning_start_str": "<think>", "reasoning_end_str": "</think>"})
for _parser in ("deepseek_r1", "qwen3", "granite", "hf"):
    argv(f"reason-no-tok-{_parser.replace('_', '-')}", f"the {_parser} reasoning parser built without a tokenizer",
         ["reasoning.py:83", "reasoning.py:89"], [RSN, "--skip-tokenizer-init", "--reasoning-parser", _parser])
argv("reason-no-tok-strings", "reasoning strings encoded without a tokenizer", ["reasoning.py:83", "reasoning.py:97"],
     [RSN, "--skip-tokenizer-init", "--reasoning-config", _BOTH])
argv("reason-no-tok-granite-str", "a parser without strings, the strings given, without a tokenizer",
     ["reasoning.py:89", "reasoning.py:93"],
     [RSN, "--skip-tokenizer-init", "--reasoning-parser", "granite", "--reasoning-config", _BOTH])
# ---------------------------------------------------------------- model.py, model_arch.py, compilation.py
MIXED = "models/cov_modelopt_mixed_flat"  # a ModelOpt MIXED_PRECISION checkpoint: one NVFP4 layer, one FP8 layer
argv("hf-config-path-other", "the HF config read from another directory than the model's",
     ["model.py:628", "model.py:662"], [RSN, "--hf-config-path", LLAMA])
argv("hf-config-path-same", "the HF config path naming the model's own directory", ["model.py:628"],
     [LLAMA, "--hf-config-path", LLAMA])
argv("modelopt-mixed-nvfp4", "a ModelOpt MIXED_PRECISION checkpoint with an NVFP4 layer at -O3",
     ["model.py:144", "model.py:2355"], [MIXED, "-O3"])
argv("modelopt-mixed-fp8", "a ModelOpt MIXED_PRECISION checkpoint without an NVFP4 layer at -O3",
     ["model.py:144", "model.py:2355"],
     [MIXED, "-O3", "--hf-overrides", json.dumps({"quantization_config": {
         "quant_method": "modelopt", "quant_algo": "MIXED_PRECISION",
         "quantized_layers": {"model.layers.0.mlp.down_proj": {"quant_algo": "FP8"}}}})])
argv("humming-fp8-block", "the humming method asked for on a block-FP8 checkpoint", ["model.py:1438"],
     ["models/llama_fp8_block", "-q", "humming"])
argv("humming-modelopt", "the humming method asked for on a ModelOpt FP8 checkpoint", ["model.py:1438"],
     ["models/llama_modelopt_fp8", "-q", "humming"])
argv("humming-gpt-oss", "the humming method asked for on gpt-oss's MXFP4 checkpoint", ["model.py:1438"],
     ["models/gpt_oss_mxfp4", "-q", "humming"])
argv("per-layer-kv-heads", "a checkpoint whose layers differ in KV heads", ["model_arch.py:105", "model_arch.py:121"],
     ["models/cov_llama_het"])
argv("per-layer-head-dim", "per-layer head sizes given in hf_overrides", ["model_arch.py:121", "model_arch.py:134"],
     [LLAMA, "--hf-overrides", json.dumps({"per_layer_config": {"1": {"head_dim": 64}}})])
argv("per-layer-unread", "a per-layer attribute vLLM's architecture config does not read",
     ["model_arch.py:105"], [LLAMA, "--hf-overrides", json.dumps({"per_layer_config": {"1": {"hidden_act": "gelu"}}})])
argv("per-layer-empty", "an empty per-layer config", ["model_arch.py:105"],
     [LLAMA, "--hf-overrides", json.dumps({"per_layer_config": {}})])
argv("cc-pass-config-null", "-cc pass_config given as null", ["compilation.py:1035"],
     [LLAMA, *cc({"pass_config": None})])
argv("cc-mode-number", "-cc cudagraph_mode given as a number", ["compilation.py:1027"],
     [LLAMA, *cc({"cudagraph_mode": 2})])
argv("cc-inductor-pass-number", "-cc inductor_passes with a number for a pass", ["compilation.py:1097"],
     [LLAMA, *cc({"inductor_passes": {"p": 3}})])
for _arch, _site in (("Alpamayo2Super", "767"), ("DeepseekV41ForCausalLM", "783")):
    # on cov_llama_reason: its tokenizer lets vLLM build the multimodal processing info (k559, k561: without one)
    argv(f"tok-mode-tok-{_arch.lower()[:12]}", f"the default tokenizer mode of {_arch}, a tokenizer at hand",
         [f"model.py:{_site}"], [RSN, "--hf-overrides", json.dumps({"architectures": [_arch]})])


# ---------------------------------------------------------------------------- batch 30 (lead): small sub-configs
# (k950-k999)
number_from(950)
conf("device-none", "DeviceConfig with device None (neither a name nor a torch.device)", ["device.py:53", "device.py:55"],
     device_config={"device": None})
MULTI_CONSUMER = {"kv_connector": "MultiConnector", "kv_role": "kv_both", "kv_connector_extra_config": {
    "connectors": [{"kv_connector": "NixlConnector", "kv_role": "kv_consumer"}]}}
argv("kv-multi-consumer-mm", "a MultiConnector whose only connector consumes, on a multimodal model",
     ["kv_transfer.py:164"], ["models/qwen4_exp_vl", "--kv-transfer-config", json.dumps(MULTI_CONSUMER)])
argv("kv-no-connector-mm", "a KV transfer config without a connector, on a multimodal model", ["kv_transfer.py:162"],
     ["models/llama4", "--kv-transfer-config", json.dumps({"kv_role": "kv_both"})])
argv("kv-empty-mm", "an empty KV transfer config (no connector, no role) on a multimodal model", ["kv_transfer.py:162"],
     ["models/qwen4_exp_vl", "--kv-transfer-config", "{}"])
argv("logging-config-on", "--logging-config turns vLLM's logging configuration on", ["arg_utils.py:2269"],
     [LLAMA, "--logging-config", json.dumps({"configure_logging": True})])
argv("logging-config-level-after", "--log-level after --logging-config's log_level: the flag wins",
     ["arg_utils.py:2270"], [LLAMA, "--logging-config", json.dumps({"log_level": "DEBUG"}), "--log-level", "WARNING"])
argv("logging-config-level-before", "--log-level before --logging-config's log_level and file: the flag still wins",
     ["arg_utils.py:2270"], [LLAMA, "--log-level", "WARNING", "--logging-config",
                             json.dumps({"log_level": "DEBUG", "pylogging_config_file": "/tmp/postinit-none.json"})])
argv("logging-config-unknown-key", "--logging-config with a key LoggingConfig does not have", ["arg_utils.py:1674"],
     [LLAMA, "--logging-config", json.dumps({"nope": 1})])
argv("logging-config-dotted", "--logging-config.configure_logging as a dotted key", ["arg_utils.py:2269"],
     [LLAMA, "--logging-config.configure_logging", "true"])
argv("logging-config-file-on", "a deprecated --log-config-file with logging configuration on",
     ["arg_utils.py:2272"], [LLAMA, "--logging-config.configure_logging", "true", "--log-config-file",
                             "/tmp/postinit-none.json"])


# --- batch 31 (py-caller): EngineArgs(...) / LLM(...) called from Python with dict sub-configs
# (k1000-k1099)
number_from(1000)
_EA = "arg_utils.py"
caller("py-cc-dict", "EngineArgs(compilation_config={...}) from Python: the dict becomes a CompilationConfig in "
       "EngineArgs.__post_init__", [f"{_EA}:891"], compilation_config={"mode": 3, "cudagraph_capture_sizes": [1, 2, 4, 8]},
       model_config={"max_model_len": 2048})
caller("py-cc-dict-unknown", "a dict compilation_config with an unknown key: CompilationConfig(**dict) refuses it in "
       "EngineArgs.__post_init__", [f"{_EA}:891"], compilation_config={"mode": 3, "cuda_graph_sizes": [1, 2]})
caller("py-attn-dict", "EngineArgs(attention_config={...}) from Python", [f"{_EA}:893"],
       attention_config={"backend": "FLASH_ATTN"})
caller("py-attn-dict-bad", "a dict attention_config naming an unknown backend", [f"{_EA}:893"],
       attention_config={"backend": "NO_SUCH_BACKEND"})
caller("py-aux-dict", "EngineArgs(aux_output_config={...}) from Python", [f"{_EA}:895"], aux_output_config={})
caller("py-engram-dict", "EngineArgs(engram_config={...}) from Python", [f"{_EA}:899"], engram_config={})
caller("py-mamba-dict", "EngineArgs(mamba_config={...}) from Python", [f"{_EA}:901"], mamba_config={})
caller("py-kernel-dict", "EngineArgs(kernel_config={...}) from Python", [f"{_EA}:903"],
       kernel_config={"enable_flashinfer_autotune": False})
caller("py-ecm-dict", "EngineArgs(ec_manager_config={...}) from Python", [f"{_EA}:905"], ec_manager_config={})
caller("py-eplb-dict", "EngineArgs(eplb_config={...}) from Python", [f"{_EA}:907"],
       parallel_config={"eplb_config": {"window_size": 500}})
caller("py-wt-dict", "EngineArgs(weight_transfer_config={...}) from Python", [f"{_EA}:909"],
       weight_transfer_config={"backend": "nccl"})
caller("py-ft-dict", "EngineArgs(fault_tolerance_config={...}) without enable_fault_tolerance: vLLM warns and turns "
       "fault tolerance on (then refuses it without an external load balancer)", [f"{_EA}:913", f"{_EA}:915"],
       parallel_config={"fault_tolerance_config": {"engine_recovery_timeout_sec": 60}})
caller("py-ft-dict-on", "EngineArgs(enable_fault_tolerance=True, fault_tolerance_config={...}) with an external "
       "load balancer", [f"{_EA}:914"], model="deepseek_v3",
       parallel_config={"fault_tolerance_config": {}, "enable_fault_tolerance": True, "data_parallel_size": 2,
                        "data_parallel_rank": 0})
caller("py-ft-dict-ext", "a fault_tolerance_config dict with an external load balancer: the warning, then fault "
       "tolerance resolves", [f"{_EA}:915"], model="deepseek_v3",
       parallel_config={"fault_tolerance_config": {}, "data_parallel_size": 2, "data_parallel_rank": 1})
caller("py-ir-dict", "EngineArgs(ir_op_priority={...}) from Python", [f"{_EA}:923"],
       engine_args={"ir_op_priority": {"rms_norm": ["native"]}})
caller("py-watchdog-dict", "EngineArgs(watchdog_config={...}) from Python", [f"{_EA}:926"], watchdog_config={})
caller("py-quant-dict", "EngineArgs(quantization_config={...}) without --quantization: resolve_quantization_config "
       "builds the args from the dict", ["quantization.py:364"],
       model_config={"quantization_config": {"linear": "fp8_per_tensor_dynamic"}})
caller("py-quant-dict-base", "a quantization_config dict over a checkpoint method (quantization fp8): kept as an "
       "override of the base method", ["quantization.py:353"],
       model_config={"quantization": "fp8", "quantization_config": {"ignore": ["lm_head"]}})
caller("py-quant-dict-shorthand", "a quantization_config dict merged over an online shorthand",
       ["quantization.py:364"], model_config={"quantization": "fp8_per_tensor",
                                              "quantization_config": {"ignore": ["lm_head"]}})
argv("quant-targets-spec-merge", "--quantization-config targets given as a spec, merged over a shorthand: the "
     "merged args re-validate a QuantSpec target (then refuse targets beside linear/moe)", ["quantization.py:241"],
     [LLAMA, "--quantization", "fp8_per_tensor", "--quantization-config",
      json.dumps({"targets": {"re:.*proj": {"weight": "fp8_per_tensor_static"}}})])
caller("py-llm-cpu", "LLM(...)-style keyword arguments on CPU: dict compilation and attention configs, usage LLM_CLASS",
       [f"{_EA}:891", f"{_EA}:893"], usage="LLM_CLASS", platform="cpu",
       compilation_config={"mode": 3}, attention_config={}, cache_config={"block_size": 128},
       model_config={"max_model_len": 4096, "dtype": "bfloat16"})
caller("py-none-rocm", "EngineArgs(...).create_engine_config() with no usage context on ROCm, dict sub-configs",
       [f"{_EA}:891", f"{_EA}:903"], usage=None, platform="rocm:gfx942",
       compilation_config={"cudagraph_mode": "PIECEWISE"}, kernel_config={},
       scheduler_config={"max_num_seqs": 64})
caller("py-kernel-dict-unknown", "a dict kernel_config with a key KernelConfig does not have", [f"{_EA}:903"],
       kernel_config={"moe_backend": "auto", "no_such_option": True})
caller("py-eplb-dict-bound", "a dict eplb_config whose window_size is below EPLBConfig's bound", [f"{_EA}:907"],
       model="deepseek_v3", parallel_config={"eplb_config": {"window_size": 0}})
caller("py-cc-dict-graph-mode", "a dict compilation_config naming an unknown cudagraph mode: CUDAGraphMode[name]'s "
       "KeyError escapes pydantic", [f"{_EA}:891"], compilation_config={"cudagraph_mode": "SOMETIMES"})
caller("py-cc-dict-mode-range", "a dict compilation_config with a mode outside CompilationMode", [f"{_EA}:891"],
       compilation_config={"mode": 7})
caller("py-watchdog-dict-type", "a dict watchdog_config whose timeout is not a number", [f"{_EA}:926"],
       watchdog_config={"timeout": "soon"})
caller("py-mamba-dict-hybrid-cpu", "EngineArgs(mamba_config={...}) for a hybrid model on CPU (LLM(...)'s usage)",
       [f"{_EA}:901"], usage="LLM_CLASS", platform="cpu", model="bamba", mamba_config={},
       compilation_config={"mode": 0})
caller("py-eplb-moe-ep", "an MoE model with expert parallelism and EPLB from a dict eplb_config", [f"{_EA}:907"],
       model="deepseek_v3", parallel_config={"tensor_parallel_size": 4, "enable_expert_parallel": True,
                                             "enable_eplb": True, "eplb_config": {"window_size": 200,
                                                                                  "num_redundant_experts": 4}})
caller("py-async-serve-dicts", "AsyncEngineArgs(...) from Python with the API server's usage context and dict "
       "compilation / attention / kernel configs", [f"{_EA}:891", f"{_EA}:893", f"{_EA}:903"],
       usage="OPENAI_API_SERVER", compilation_config={"mode": 3, "cudagraph_mode": "FULL_AND_PIECEWISE"},
       attention_config={}, kernel_config={}, cache_config={"gpu_memory_utilization": 0.85})
caller("py-kv-transfer-dict", "a KV transfer config given as a dict (VllmConfig's validation builds it)",
       [f"{_EA}:891"], compilation_config={}, kv_transfer_config={"kv_connector": "ExampleConnector", "kv_role": "kv_both"})
caller("py-a100-lora", "LLM(...)-style keywords on an A100: LoRA enabled, a dict compilation config with capture "
       "sizes", [f"{_EA}:891"], usage="LLM_CLASS", platform="cuda:80",
       lora_config={"max_loras": 2, "max_lora_rank": 16}, compilation_config={"max_cudagraph_capture_size": 64})
caller("py-ft-watchdog", "fault tolerance from a dict (warned and turned on) with a watchdog dict, on an MoE model "
       "with an external data-parallel rank", [f"{_EA}:913", f"{_EA}:915", f"{_EA}:926"], model="deepseek_v3",
       parallel_config={"fault_tolerance_config": {"engine_recovery_timeout_sec": 30}, "data_parallel_size": 2,
                        "data_parallel_rank": 0}, watchdog_config={"timeout": 600})
caller("py-quant-dict-targets", "a quantization_config dict with per-layer targets (no shorthand)",
       ["quantization.py:364"], model_config={"quantization_config": {"targets": {
           "re:.*proj": "fp8_per_tensor", "lm_head": {"weight": "fp8_per_channel_static"}}}})
caller("py-quant-dict-bad-name", "a quantization_config dict naming an unknown quantization key: refused where "
       "EngineArgs resolves it", ["quantization.py:364"], model_config={"quantization_config": {"linear": "fp8"}})
caller("py-gpt-oss-h100", "an LLM(...)-style line for gpt-oss on an H100: dict compilation and attention configs",
       [f"{_EA}:891", f"{_EA}:893"], usage="LLM_CLASS", model="gpt_oss", compilation_config={"mode": 3},
       attention_config={}, model_config={"max_model_len": 8192})
caller("py-deepseek-b200", "DeepSeek-V3 on a B200 from Python: dict compilation, kernel and EPLB configs with "
       "expert parallelism", [f"{_EA}:891", f"{_EA}:903", f"{_EA}:907"], platform="cuda:100", model="deepseek_v3",
       compilation_config={"cudagraph_mode": "FULL_DECODE_ONLY"}, kernel_config={},
       parallel_config={"tensor_parallel_size": 8, "enable_expert_parallel": True, "eplb_config": {}})
caller("py-gfx950-dicts", "EngineArgs(...) on an MI355X (gfx950) with dict compilation / attention / kernel configs",
       [f"{_EA}:891", f"{_EA}:893", f"{_EA}:903"], platform="rocm:gfx950",
       compilation_config={"mode": 3}, attention_config={}, kernel_config={}, cache_config={"block_size": 16})
caller("py-mamba-cpu-none", "a Mamba model on CPU from Python, no usage context, dict mamba / compilation configs",
       [f"{_EA}:891", f"{_EA}:901"], usage=None, platform="cpu", model="mamba_0340", mamba_config={},
       compilation_config={})
caller("py-spec-ngram", "an n-gram speculative config and a dict compilation config from Python (EngineArgs keeps "
       "speculative_config as the dict either way)", [f"{_EA}:891"], usage="LLM_CLASS",
       speculative_config={"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4},
       compilation_config={"mode": 3})
caller("py-profiler-obs", "profiler and KV events configs given as dicts (VllmConfig's validation builds them), "
       "observability fields as EngineArgs fields", [f"{_EA}:891"], compilation_config={},
       kv_events_config={"enable_kv_cache_events": True, "publisher": "null"},
       observability_config={"collect_detailed_traces": None})
caller("py-t4-fp16", "LLM(...)-style keyword arguments on a T4: fp16, dict compilation config, small cache",
       [f"{_EA}:891"], usage="LLM_CLASS", platform="cuda:75", compilation_config={"mode": 0},
       model_config={"dtype": "float16", "max_model_len": 2048}, cache_config={"gpu_memory_utilization": 0.5})
caller("py-cc-dict-capture-over", "a dict compilation config whose capture sizes exceed the token budget (clipped by "
       "VllmConfig)", [f"{_EA}:891"], compilation_config={"cudagraph_capture_sizes": [1, 2, 4, 8192, 16384]},
       scheduler_config={"max_num_batched_tokens": 4096})
caller("py-ft-dict-unknown", "a fault_tolerance_config dict with a key FaultToleranceConfig does not have: the warning, "
       "then the refusal where EngineArgs.__post_init__ builds it", [f"{_EA}:913", f"{_EA}:915"],
       parallel_config={"fault_tolerance_config": {"engine_recovery_timeout": 60}})
caller("py-watchdog-after-ft", "a fault_tolerance_config dict, then a watchdog_config dict EngineArgs refuses: the "
       "fault-tolerance warning comes first", [f"{_EA}:915", f"{_EA}:926"],
       parallel_config={"fault_tolerance_config": {}}, watchdog_config={"no_such_key": 1})
caller("py-ft-on-unknown", "fault tolerance on and a fault_tolerance_config dict with an unknown key: refused without "
       "the warning", [f"{_EA}:914"], parallel_config={"fault_tolerance_config": {"bogus": 1},
                                                     "enable_fault_tolerance": True})


# ------------------------------------- batch 32 (cov-models): model hooks and the platforms
# (k1100-k1199)
number_from(1100)
# platforms/cpu.py _cpu_mamba_backend (44-96): the model class's state dtypes decide whether a half SSM cache keeps
# the accelerated GDN backend
argv("cpu-gdn-fp16", "Qwen3-Next on CPU with a float16 SSM cache: the GDN state matches, kept", ["cpu.py:86"],
     ["models/qwen3_next", "--mamba-ssm-cache-dtype", "float16"], platform="cpu")
argv("cpu-kda-bf16", "AliceAI (KDA: float32 recurrent state) on CPU with a bfloat16 SSM cache: reset to float32",
     ["cpu.py:93"], ["models/alice_ai", "--mamba-ssm-cache-dtype", "bfloat16"], platform="cpu")
argv("cpu-kda-fp16", "AliceAI on CPU with a float16 SSM cache: reset to float32", ["cpu.py:86", "cpu.py:93"],
     ["models/alice_ai", "--mamba-ssm-cache-dtype", "float16"], platform="cpu")
argv("cpu-linear-attn-bf16", "Bailing hybrid (one linear-attention state) on CPU with a bfloat16 SSM cache: reset",
     ["cpu.py:83"], ["models/spec_bailing_hybrid", "--mamba-ssm-cache-dtype", "bfloat16"], platform="cpu")
argv("cpu-mamba-fp16", "Mamba on CPU with a float16 SSM cache: the state matches, the GDN backend kept",
     ["cpu.py:86", "cpu.py:93"], ["models/mamba_0340", "--mamba-ssm-cache-dtype", "float16"], platform="cpu")
argv("cpu-nemotron-h-replayssm", "Nemotron-H on CPU with ReplaySSM and a bfloat16 SSM cache: four state dtypes, reset",
     ["cpu.py:83"], ["models/nemotron_h", "--use-replayssm", "--mamba-ssm-cache-dtype", "bfloat16"], platform="cpu")
argv("cpu-zaya-linear-fp16", "ZAYA1 (CCA: both states in the model dtype) with linear-attention layers on CPU and a "
     "float16 SSM cache: the state does not match, reset", ["cpu.py:86", "cpu.py:93"],
     ["models/zaya", "--mamba-ssm-cache-dtype", "float16", "--hf-overrides",
      json.dumps({"layer_types": ["linear_attention", "hybrid"]})], platform="cpu")
argv("cpu-zaya-linear-bf16", "ZAYA1 with linear-attention layers on CPU and a bfloat16 SSM cache (its model dtype): "
     "the GDN backend kept", ["cpu.py:93"],
     ["models/zaya", "--mamba-ssm-cache-dtype", "bfloat16", "--hf-overrides",
      json.dumps({"layer_types": ["linear_attention", "hybrid"]})], platform="cpu")


# ---------------------- batch 33 (cov-spec2): speculative.py, vllm.py and the small configs
# (k1200-k1299)
number_from(1200)
argv("cc-inductor-pass-name", "-cc inductor_passes naming a pass without its module", ["compilation.py:1097",
     "compilation.py:1098"], [LLAMA, *cc({"inductor_passes": {"p": "dedent"}})])
argv("rssm-fi-ubatch", "FlashInfer ReplaySSM with microbatching, on a Nemotron-H of attention layers only (not hybrid)",
     ["vllm.py:3653", "vllm.py:3654"], [NEMO, "--hf-overrides", json.dumps({"layer_types": ["full_attention"] * 4}),
                                        *RSSM, *FIB, "--ubatch-size", "2", "--all2all-backend", "deepep_low_latency"])
argv("engram-dsv41-ubatch", "DeepSeek V4.1 with Engram layers and microbatching (on cov_llama_reason, which has a "
     "tokenizer)", ["vllm.py:1412", "vllm.py:1418"], ["models/cov_llama_reason", "--hf-overrides", json.dumps({"architectures": ["DeepseekV41ForCausalLM"],
                                                         "engram_layer_ids": [0]}), "--ubatch-size", "2"])
conf("nixl-no-model", "a NIXL KV transfer config without a model config", ["vllm.py:1533"], model=None,
     kv_transfer_config={"kv_connector": "NixlConnector", "kv_role": "kv_both"})
argv("mm-compile-encoder", "a multimodal model with its encoder compiled: the encoder's compile factors",
     ["vllm.py:535"], ["models/qwen4_exp_vl", *cc({"compile_mm_encoder": True})])
argv("bi-no-intermediate", "batch invariance on Hopper for a model without intermediate_size (Falcon)",
     ["vllm.py:806"], ["models/cvo_falcon"], env=BI)
argv("eagle-draft-yarn-shorter", "an EAGLE draft with a YaRN RoPE and fewer positions than the target's length: "
     "not extended", ["speculative.py:1517"], ["models/llama_long", "--speculative-config",
     json.dumps({"method": "eagle", "model": "models/spec_eagle_yarn", "num_speculative_tokens": 2})])
argv("mtp-nemotron-omni", "MTP on a Nemotron-H Omni checkpoint: its text config promoted, an MTP layer there",
     ["speculative.py:986"], ["models/spec_nemotron_omni_mtp", *mtp()])
conf("device-none-no-model", "DeviceConfig with device None and no model config (no model records before the "
     "refusal; k950 has a model)", ["device.py:53", "device.py:55"], model=None, device_config={"device": None})
argv("pass-config-none-default", "every pass config field away from PassConfig()'s defaults (the unset fusions by "
     "the optimization level, the two it leaves unset here given), then a refusal by VllmConfig's model validator: "
     "its ValidationError prints the CompilationConfig, whose repr then excludes no pass config field",
     ["compilation.py:992"], [LLAMA, *cc({"pass_config": {
         "eliminate_noops": False, "rope_kvcache_fusion_max_token_num": 512, "fi_allreduce_fusion_max_size_mb": 64.0,
         "fuse_mla_dual_rms_norm": False, "fuse_rope_kvcache": False}}), "--use-replayssm"])


# --- batch 34 (cov-misc): model.py, model_arch.py, multimodal.py, arg_utils.py and the rest
# (k1300-k1399)
number_from(1300)
argv("extract-mm-target", "hidden-state extraction from a multimodal target (the draft is a copy of its ModelConfig)",
     ["model.py:994", "model.py:1012"],
     [VL, "--speculative-config", json.dumps({"method": "extract_hidden_states", "num_speculative_tokens": 1})])
argv("arch-second-known", "an unknown architecture name listed before a known one",
     ["model.py:1321"], [LLAMA, "--hf-overrides", json.dumps({"architectures": ["FooBar", "LlamaForCausalLM"]})])
argv("arch-empty", "an empty architectures list", ["model.py:1313"],
     [LLAMA, "--hf-overrides", json.dumps({"architectures": []})])
argv("per-layer-arch", "per-layer architectures (a field vLLM cannot collapse)", ["model_arch.py:121", "model_arch.py:122"],
     [LLAMA, "--hf-overrides", json.dumps({"per_layer_config": {"1": {"architectures": ["MistralForCausalLM"]}}})])
argv("per-layer-layer-count", "a per-layer num_hidden_layers larger than the layer count",
     ["model_arch.py:134", "model_arch.py:135"],
     [LLAMA, "--hf-overrides", json.dumps({"per_layer_config": {"1": {"num_hidden_layers": 3}}})])
argv("per-layer-no-layers", "an empty per-layer config on a model of no layers", ["model_arch.py:105", "model_arch.py:106"],
     [LLAMA, "--hf-overrides", json.dumps({"num_hidden_layers": 0, "per_layer_config": {}})])
argv("max-len-no-keys", "a checkpoint with no maximum-length key", ["model.py:2628"],
     [LLAMA, "--hf-overrides", json.dumps({"max_position_embeddings": None})])
argv("bi-mla", "batch invariance on Hopper with an MLA model (one KV head)", ["model.py:1693"], [MOE], env=BI)
argv("head-dtype-unknown-2", "a checkpoint's head_dtype naming no dtype (read by the oracle's dump)",
     ["model.py:2574", "model.py:2575"], [LLAMA, "--hf-overrides", json.dumps({"head_dtype": "float7"})])
argv("head-dtype-number-2", "a checkpoint's head_dtype given as a number (read by the oracle's dump)",
     ["model.py:2579", "model.py:2586"], [LLAMA, "--hf-overrides", json.dumps({"head_dtype": 16})])
argv("tensorizer-uri", "the tensorizer load format with a TensorizerConfig field among the extra config",
     ["arg_utils.py:2102", "arg_utils.py:2103", "arg_utils.py:2109", "arg_utils.py:2110"],
     [LLAMA, "--load-format", "tensorizer", "--model-loader-extra-config", json.dumps({"tensorizer_uri": "/tmp/m.tensors"})])
argv("log-config-file-2", "the deprecated --log-config-file with logging configuration off", ["arg_utils.py:2272"],
     [LLAMA, "--log-config-file", "/tmp/log.json"])
TIED = "models/cov_llama_tied_lm_head"  # tie_word_embeddings, and a safetensors header naming an lm_head.weight
argv("tied-lm-head", "tied word embeddings in a checkpoint that has an lm_head of its own",
     ["model.py:1289", "model.py:1292"], [TIED])
argv("tied-lm-head-dummy", "tied word embeddings, an lm_head in the checkpoint, dummy weights (not read)",
     ["vllm.py:1563"], [TIED, "--load-format", "dummy"])
argv("draft-no-len", "a draft model whose config has no maximum-length key (the target's is taken)",
     ["model.py:2628"], [LLAMA, "--speculative-config", json.dumps({"model": "models/mamba_0340",
                                                                    "num_speculative_tokens": 2})])
argv("arch-transformers-class", "a transformers class name no suffix rule matches", ["model.py:1313"],
     [LLAMA, "--hf-overrides", json.dumps({"architectures": ["LlamaForQuestionAnswering"]})])


# Cases kept in the list (their numbers stay) but not written: what postinit does not model yet, each with why.
NOT_WRITTEN = {
    "k077-spec-zero-tokens": "pydantic's gt=0 bound of num_speculative_tokens, raised unwrapped by create_engine_config",
    "k083-spec-flags-clash": "--spec-method/--spec-model/--spec-tokens are not merged into the speculative config",
    "k094-ir-priority-twice": "--ir-op-priority is kept as an extra no rule reads",
    "k095-ir-priority-deprecated": "--ir-op-priority is kept as an extra no rule reads",
    "k098-ckpt-no-sleep": "ModelConfig's sleep-mode checks run before its 'Resolved architecture' log",
    "k099-sleep-cpu": "ModelConfig's sleep-mode checks run before its 'Resolved architecture' log",
    "k109-lora-dual-stream-cpu": "VLLM_LORA_ENABLE_DUAL_STREAM is not among postinit's environment variables",
    "k110-lora-dual-stream-sharded": "VLLM_LORA_ENABLE_DUAL_STREAM is not among postinit's environment variables",
    "k120-pooler-both-types": "--pooler-config's own __post_init__ refusals are not run at the parse stage",
    "k121-attn-indexer-rows": "--attention-config is kept as an extra no rule reads",
    "k130-mm-fp8-missing-file": "whether a file exists is the file system's answer",
    "k131-mm-fp8-missing-dir": "whether a directory exists is the file system's answer",
    "k225-cc-mode-int": "postinit's input layer refuses a number for cudagraph_mode, which vLLM's validator takes",
    "k228-a2a-passthrough-no-mega": "vLLM's parser refuses --all2all-backend passthrough (a config-mode value only)",
    "k241-log-config-file": "vLLM's RuntimeError for a logging config file with logging configuration off is not "
    "modelled",
    "k242-tensorizer": "the tensorizer config vLLM builds from the model path is not modelled",
    "k245-ext-kv-lmcache-mp": "the connector imports lmcache, which is not installed here (ModuleNotFoundError)",
    "k247-ext-kv-mooncake": "the connector imports uvicorn, which is not installed here (ModuleNotFoundError)",
    "k251-model-class-overrides": "postinit's input layer refuses the JSON text; vLLM then fails to import the class",
    "k253-hf-config-path": "vLLM keeps --hf-config-path as given; postinit resolves the fixture path",
    "k255-cumem-rocm-off": "vLLM probes libcudart (a real CUDA runtime) for the cumem allocator",
    "k257-cpu-gdn-fp16": "the Qwen3Next model class does not import on this host: vLLM logs an error and falls back",
    "k258-cpu-gdn-bf16": "the Qwen3Next model class does not import on this host: vLLM logs an error and falls back",
    "k259-mm-video-pruning": "the video pruning fields of the multimodal config are not modelled",
    "k261-mm-limit-int": "the per-modality options a bare count becomes (AudioDummyOptions(count, length)) are not "
    "modelled",
    # batch 24 (k346-k449)
    "k348-mtp-pangu": "transformers 5.22.2 does not know model type pangu_ultra_moe and vLLM registers no config "
    "class for it: the target's config.json is refused before any speculative decision",
    "k349-mtp-kimi-k3": "Kimi-K3's multimodal processing info needs its image processor (without a tokenizer vLLM "
    "warns that the model has no multimodal processor, which postinit does not model): not a fixture of a few keys",

    # batch 25 (k450-k549)
    "k466-reload-torchao": "vLLM fails building TorchAOConfig without its torchao_config (a TypeError from the "
    "quantization method's own class) before the direct-reload check; postinit does not build quantization classes",
    "k483-device-null": "vLLM builds DeviceConfig before ModelConfig: postinit's model_config phase logs 'Resolved "
    "architecture' before the device_config refusal it models",
    "k499-tokens-only": "written as k780 once the oracle parsed `vllm serve` lines with vLLM's serve parser (when this "
    "number was taken, its EngineArgs parser refused --tokens-only as an unrecognized argument)",
    "k504-reasoning-parser": "the reasoning config loads the model's tokenizer (the fixture has none: vLLM fails "
    "instantiating it); postinit does not load tokenizers",
    "k505-reasoning-parser-config": "the reasoning config loads the model's tokenizer (the fixture has none: vLLM "
    "fails instantiating it); postinit does not load tokenizers",
    "k508-cpu-qwen35-fp16": "the Qwen3.5 model class does not import on this host: vLLM logs an error and falls "
    "back",
    "k509-cpu-qwen35-bf16": "the Qwen3.5 model class does not import on this host: vLLM logs an error and falls "
    "back",

    # batch 26 (k550-k649)
    "k558-terratorch-impl": "the Terratorch model class does not import on this host (vLLM: 'Error in inspecting model "
    "architecture', then an AssertionError)",
    "k559-tok-mode-alpamayo2sup": "whether vLLM finds a multimodal processor for a model (here none: it warns and runs "
    "text-only) is not modelled",
    "k560-tok-mode-moonshotkimi": "the Kimi-Audio model class does not import on this host (vLLM: 'failed to be "
    "inspected')",
    "k561-tok-mode-deepseekv41f": "whether vLLM finds a multimodal processor for a model (here none, the fixture has no "
    "tokenizer: it warns and runs text-only) is not modelled; k890 is this line on a fixture with a tokenizer (the "
    "model class imported once the oracle venv had openai_harmony)",
    "k564-head-dtype-unknown": "vLLM raises from the head_dtype property only when it is read (after resolution); "
    "postinit's derived head_dtype has no error value",
    "k565-head-dtype-number": "postinit's input layer refuses a number for hf_config.head_dtype, which vLLM's "
    "property refuses only when read",
    "k576-reasoning-blank": "whether the reasoning strings tokenize to no tokens is the tokenizer's answer, which "
    "postinit does not load",
    "k586-obs-buckets-scalar": "pydantic's list type of custom_histogram_buckets' values is not among postinit's "
    "checks (it refuses the unknown family first)",
    "k587-sched-no-model": "the SchedulerConfig InitVars (max_model_len, is_encoder_decoder) are not config-mode "
    "inputs of postinit's",
    "k597-ft-api-servers": "written as k782 (on a data-parallel MoE, where the check is reached) once the oracle "
    "parsed `vllm serve` lines with vLLM's serve parser (when this number was taken, its EngineArgs parser lacked "
    "--api-server-count)",
    # batch 27 (k650-k749)
    "k662-mtp-bailing-v3-vl": "Bailing MoE V3 VL's MTP draft (the text config promoted with the outer fp8 "
    "quantization config, BailingMoeV3MTPModel, float32 downcast) and its target's M-RoPE (vLLM's "
    "BailingMoeV3VLConfig) are not modelled",
    # batch 28 (k750-k849)
    "k762-obs-buckets-scalar-known": "pydantic's list type of a histogram family's buckets is refused where "
    "create_engine_config builds ObservabilityConfig (stage create_engine_config): postinit's bucket checks run as "
    "the sub-config's own",
    "k775-mm-prefix-lm-lfm3": "vLLM asks the model's multimodal processor for the largest item's tokens (here it "
    "cannot load LFM3-VL's image processor and warns); postinit does not load processors",
    # batch 29 (k850-k949)
    # batch 30 (k950-k999)
    "k950-device-none": "config mode: the 0.34.0 oracle builds the DeviceConfig (whose device None leaves device_type "
    "unset) before the ModelConfig, postinit reports the refusal after the ModelConfig's records",
    "k954-logging-config-on": "with configure_logging on, create_engine_config applies vLLM's logging dictConfig "
    "(configure_logging_if_needed, arg_utils.py:2288), which replaces the handlers of the 'vllm' logger: the oracle's "
    "record capture is detached, so the oracle cannot record this line's log records (its values match)",
    "k958-logging-config-dotted": "with configure_logging on, create_engine_config applies vLLM's logging dictConfig, "
    "which detaches the oracle's record capture (as k954)",
    "k959-logging-config-file-on": "with configure_logging on, whether the logging config file exists is the file "
    "system's answer (vLLM's RuntimeError 'Could not load logging config. File does not exist'), which postinit does "
    "not check",
    # batch 31 (k1000-k1099)
    "k1003-py-attn-dict-bad": "an attention backend name that is no AttentionBackendEnum member is not refused by "
    "postinit in any mode (attention.backend-names is a partial model: 0.34.0's registry lookup error is not written)",
    "k1023-py-eplb-dict-bound": "EPLBConfig's window_size and step_interval gained gt=0 bounds in 0.34.0; postinit's "
    "schema keeps the earlier versions' unbounded fields (a bound that differs by version is not modelled)",
    "k1034-py-quant-dict-bad-name": "pydantic's ValidationError around QuantizationConfigArgs' field refusal names the "
    "field (linear); postinit's engine-args.quantization-config violation does not carry which of linear/moe refused "
    "(observed.field_of tells targets only)",
    # batch 32 (k1100-k1199)
    **{name: "on this CPU-only oracle the model class does not import (its module imports Triton kernels; vLLM's Triton "
       "placeholder has no 'runtime'), so _cpu_mamba_backend returns at its resolve_model_cls except, with the "
       "'Error in loading model architecture' record postinit does not model (as f213, h002); every class whose "
       "temporal state is not the SSM cache dtype (the KDA ones) is such a class"
       for name in ("k1100-cpu-gdn-fp16", "k1101-cpu-kda-bf16", "k1102-cpu-kda-fp16", "k1103-cpu-linear-attn-bf16")},
    # batch 33 (k1200-k1299)
    # batch 34 (k1300-k1399)
    "k1304-per-layer-layer-count": "transformers refuses a per-layer num_hidden_layers (AmbiguousGlobalPerLayerAttributeError "
    "when vLLM reads it) before vLLM's layer-count check; postinit does not model transformers' per-layer config",
    "k1306-max-len-no-keys": "transformers' strict config refuses a null max_position_embeddings "
    "(StrictDataclassFieldValidationError) before vLLM's default maximum length",
    "k1308-head-dtype-unknown-2": "as k564: vLLM raises from the head_dtype property only when it is read (here by the "
    "oracle's dump, after resolution); postinit's derived head_dtype has no error value",
    "k1309-head-dtype-number-2": "as k565: postinit's input layer refuses a number for hf_config.head_dtype, which "
    "vLLM's property refuses only when read",
}


def write_cases(out: Path, prefix: str, cases: list[tuple[str, dict[str, Any]]], not_written: Any) -> int:
    """(Re)write the ``<prefix>###-*.json`` cases of ``out`` (the others are left alone); shared by gen_hooks_0340."""
    for old in out.glob(f"{prefix}[0-9][0-9][0-9]*-*.json"):  # k001 .. k999, then k1000 on
        if old.name[len(prefix):].split("-", 1)[0].isdigit():
            old.unlink()
    for name, case in cases:
        if name in not_written:
            continue
        (out / f"{name}.json").write_text(json.dumps({"name": name, **case}, indent=1, sort_keys=True) + "\n")
    last = cases[-1][0].split("-", 1)[0] if cases else f"{prefix}000"
    print(f"wrote {len(cases) - len(not_written)} cases {prefix}001..{last} to {out}")
    return 0


def main() -> int:
    return write_cases(OUT, "k", CASES, NOT_WRITTEN)


if __name__ == "__main__":
    raise SystemExit(main())
