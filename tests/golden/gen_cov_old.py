"""Deterministic generator of the coverage cases (``n###-*.json``): vLLM's unreached config sites, seed and 0.11.1.

Issue 30 asks that the golden corpus reach >= 95% of the reachable decision / log / raise sites of vLLM's
config code (``docs/coverage-<version>.md``, ``tests/golden/oracle/coverage_report.py``). These command
lines aim at the sites the rest of the corpus left unreached at the seed (d7fb10c57) and 0.11.1, user-facing
ones first: the refusals of the sub-configs' validators (parallel, scheduler, speculative, compilation, KV
transfer, LoRA, observability, ...), deprecation and platform warnings, the CPU platform hook's refusals and
casts, and the model-specific hooks (``MODELS_CONFIG_MAP``). The first part is written by hand, one site (or
a few) per case (``tags``: ``site=<file>:<what>``); the second is seeded random command lines over the same
ingredients (``random.Random(20261207)``, no set iteration). Every case is answered by the seed and 0.11.1
oracles (``expected/``, ``expected-0.11.1/``) and, as ``s-n###`` of its own corpus, by 0.34.0 (old command
lines answered by today's vLLM)::

    python3 tests/golden/gen_cov_old.py             # writes tests/golden/cases/n*.json
    python3 tests/golden/gen_cov_old.py --s0340     # and cases-0.34.0/s-n*.json (only those files)
    python3 tests/golden/gen_cov_old.py --dry-run   # prints the count only

``--s0340`` takes the 0.34.0 form of each case from ``gen_cases_0340.py``'s own copy rule (it imports the
module, whose ``main()`` is never called: that would rewrite the whole folder).
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
OUT_0340 = HERE / "cases-0.34.0"
RNG = random.Random(20261207)
H100 = "cuda:90"
A100 = {"kind": "cuda", "capability": 80, "device_name": "NVIDIA A100-SXM4-80GB", "total_memory_gb": 80}
L40S = "cuda:89"
B200 = "cuda:100"
SERVE, LLM = "OPENAI_API_SERVER", "LLM_CLASS"
LLAMA = "models/llama"
CPU_ENV = {"VLLM_CPU_KVCACHE_SPACE": "4"}
"""Every CPU case sets it (0.34.0's corpus generator adds it to a CPU case without one: the inputs stay equal)."""


def argv(site: str, description: str, args: list[str], *, platform: Any = H100,
         env: dict[str, str] | None = None, usage_context: str = SERVE) -> dict[str, Any]:
    """An argv-mode case (``vllm serve`` flags through EngineArgs)."""
    env = dict(env or {})
    if platform == "cpu":
        env = {**CPU_ENV, **env}
    return {"description": description, "tags": [f"site={s}" for s in site.split()], "argv": args,
            "usage_context": usage_context, "platform": platform, "env": env}


def js(value: Any) -> str:
    return json.dumps(value)


EAGLE = {"method": "eagle", "model": "models/llama_draft", "num_speculative_tokens": 2}


def targeted() -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = []

    def add(slug: str, site: str, description: str, args: list[str], **kw: Any) -> None:
        out.append((slug, argv(site, description, args, **kw)))

    # ---- parallel config
    add("dp-local-gt-dp", "parallel:dp-local", "data_parallel_size_local above data_parallel_size",
        [LLAMA, "--data-parallel-size-local", "2"])
    add("eplb-rocm", "parallel:eplb-cuda-only", "EPLB on ROCm", [LLAMA, "--enable-eplb", "--enable-expert-parallel",
                                                                 "-tp", "2"], platform="rocm")
    add("eplb-no-ep", "parallel:eplb-needs-ep", "EPLB without expert parallelism",
        ["models/deepseek_v3", "--enable-eplb", "-tp", "2"])
    add("eplb-tp1", "parallel:eplb-needs-world", "EPLB with expert parallelism on one GPU",
        ["models/deepseek_v3", "--enable-eplb", "--enable-expert-parallel"])
    add("redundant-experts-no-eplb", "parallel:redundant-without-eplb",
        "deprecated --num-redundant-experts without EPLB", ["models/deepseek_v3", "--num-redundant-experts", "2"])
    add("eplb-config-redundant", "parallel:redundant-without-eplb", "eplb_config.num_redundant_experts without EPLB",
        ["models/deepseek_v3", "--eplb-config", js({"num_redundant_experts": 1})])
    add("eplb-ok", "parallel:eplb", "EPLB with expert parallelism over TP 2",
        ["models/deepseek_v3", "--enable-eplb", "--enable-expert-parallel", "-tp", "2",
         "--num-redundant-experts", "4"])
    add("all2all-env", "parallel:all2all-env", "VLLM_ALL2ALL_BACKEND set in the environment",
        ["models/deepseek_v3", "-tp", "2", "--enable-expert-parallel"], env={"VLLM_ALL2ALL_BACKEND": "naive"})
    add("loading-workers", "parallel:max-parallel-loading-workers", "--max-parallel-loading-workers",
        [LLAMA, "--max-parallel-loading-workers", "2"])
    add("nsight-no-ray", "parallel:nsight", "--ray-workers-use-nsight without Ray", [LLAMA, "--ray-workers-use-nsight"])
    add("dp-backend-ray", "parallel:dp-backend-ray", "--data-parallel-backend ray with TP 2",
        [LLAMA, "-tp", "2", "--data-parallel-backend", "ray"])
    add("ext-launcher-dp2", "parallel:external-launcher-dp-rank", "external launcher with DP 2 and RANK",
        [LLAMA, "--distributed-executor-backend", "external_launcher", "-dp", "2"], env={"RANK": "1"})
    add("dp-rank-out-of-range", "parallel:dp-rank-range", "--data-parallel-rank beyond the DP size",
        [LLAMA, "-dp", "2", "--data-parallel-rank", "3"])
    add("tp-too-many-gpus", "parallel:ray-missing", "TP 16 on an 8-GPU node (Ray needed)", [LLAMA, "-tp", "16"])
    # ---- scheduler config
    add("budget-below-len", "scheduler:budget-below-len", "no chunked prefill, budget below max_model_len",
        [LLAMA, "--no-enable-chunked-prefill", "--max-num-batched-tokens", "1024"])
    add("budget-below-seqs", "scheduler:budget-below-seqs", "budget below max_num_seqs",
        [LLAMA, "--max-num-batched-tokens", "64", "--max-num-seqs", "128"])
    add("partial-prefills-0", "scheduler:partial-prefills-min", "--max-num-partial-prefills 0",
        [LLAMA, "--max-num-partial-prefills", "0"])
    add("long-partial-gt", "scheduler:long-partial-range", "max_long_partial_prefills above max_num_partial_prefills",
        [LLAMA, "--max-num-partial-prefills", "2", "--max-long-partial-prefills", "3"])
    add("long-threshold-gt-len", "scheduler:long-threshold", "long_prefill_token_threshold above max_model_len",
        [LLAMA, "--max-num-partial-prefills", "2", "--long-prefill-token-threshold", "8192"])
    add("partial-prefills-ok", "scheduler:concurrent-partial", "concurrent partial prefills",
        [LLAMA, "--max-num-partial-prefills", "4", "--max-long-partial-prefills", "2"])
    add("lookahead-negative", "scheduler:lookahead", "--num-lookahead-slots -1", [LLAMA, "--num-lookahead-slots", "-1"])
    # ---- model config
    add("runner-generate-bert", "model:runner-generate", "--runner generate on an encoder-only model",
        ["models/bert", "--runner", "generate"])
    add("runner-pooling-llama", "model:runner-pooling", "--runner pooling on a decoder with --convert none",
        [LLAMA, "--runner", "pooling", "--convert", "none"])
    add("convert-auto-pooling", "model:convert-auto", "--runner pooling on a decoder (convert auto resolved)",
        [LLAMA, "--runner", "pooling"])
    add("override-pooler", "model:override-pooler-config", "deprecated --override-pooler-config",
        ["models/bert", "--override-pooler-config", js({"pooling_type": "MEAN"})])
    add("override-attn-dtype-cuda", "model:override-attention-dtype", "--override-attention-dtype on CUDA",
        [LLAMA, "--override-attention-dtype", "float16"])
    add("sleep-mode-cpu", "model:sleep-mode", "--enable-sleep-mode on CPU", [LLAMA, "--enable-sleep-mode"],
        platform="cpu")
    add("quant-mismatch", "model:quant-mismatch", "--quantization fp8 on an AWQ checkpoint",
        ["models/llama_awq", "--quantization", "fp8"])
    add("quant-awq-marlin", "model:quant-override", "--quantization awq_marlin on an AWQ checkpoint",
        ["models/llama_awq", "--quantization", "awq_marlin"])
    add("bnb-cuda-graph", "model:bnb8-cudagraph", "an 8-bit bitsandbytes checkpoint, cudagraphs on",
        ["models/llama_bnb8"])
    add("ep-dense", "model:ep-experts", "expert parallelism on a dense model over TP 2",
        [LLAMA, "--enable-expert-parallel", "-tp", "2"])
    add("heads-not-divisible", "model:heads-tp", "TP 3 on 32 heads", [LLAMA, "-tp", "3"])
    add("pp-bert", "model:pp-unsupported", "pipeline parallelism on an encoder-only model", ["models/bert", "-pp", "2"])
    add("max-len-over", "model:max-len-over", "--max-model-len above the model's limit",
        [LLAMA, "--max-model-len", "100000"])
    add("max-len-over-env", "model:max-len-override", "--max-model-len above the limit, override allowed",
        [LLAMA, "--max-model-len", "8192"], env={"VLLM_ALLOW_LONG_MAX_MODEL_LEN": "1"})
    add("disable-sliding-window", "model:disable-sliding-window", "--disable-sliding-window on a sliding model",
        ["models/mistral_sw", "--disable-sliding-window"])
    add("disable-sliding-window-gemma3", "model:disable-sliding-window-interleaved",
        "--disable-sliding-window on an interleaved-attention model", ["models/gemma3_text", "--disable-sliding-window"])
    add("dtype-float32-bf16-model", "model:dtype-upcast", "--dtype float32 on a bf16 model",
        [LLAMA, "--dtype", "float32"])
    add("dtype-half-gemma3", "model:dtype-gemma3", "--dtype float16 on gemma3", ["models/gemma3_text", "--dtype",
                                                                                "float16"])
    add("mm-tp-data-text", "model:mm-tp-mode", "--mm-encoder-tp-mode data on a text model",
        [LLAMA, "--mm-encoder-tp-mode", "data"])
    add("tokenizer-mode-mistral", "model:tokenizer-mode", "--tokenizer-mode mistral on a llama checkpoint",
        [LLAMA, "--tokenizer-mode", "slow"])
    add("head-dtype-generate", "model:head-dtype", "hf_overrides head_dtype on a generative model",
        [LLAMA, "--hf-overrides", js({"head_dtype": "float32"})])
    add("head-dtype-pooling", "model:head-dtype", "hf_overrides head_dtype on a pooling model",
        ["models/bert", "--hf-overrides", js({"head_dtype": "float32"})])
    add("seed-no-mp", "model:seed-no-mp", "no --seed, V1 multiprocessing off", [LLAMA],
        env={"VLLM_ENABLE_V1_MULTIPROCESSING": "0"}, usage_context=LLM)
    add("attn-backend-flashinfer", "model:flashinfer-missing", "VLLM_ATTENTION_BACKEND=FLASHINFER",
        [LLAMA], env={"VLLM_ATTENTION_BACKEND": "FLASHINFER"})
    # ---- compilation config
    add("cc-custom-op-bad", "compilation:custom-op-syntax", "a custom op without + or -",
        [LLAMA, "-O", js({"custom_ops": ["rms_norm"]})])
    add("cc-backend-custom", "compilation:piecewise-backend", "a custom backend with piecewise compilation",
        [LLAMA, "-O", js({"level": 3, "backend": "my_backend"})])
    add("cc-empty-splitting-piecewise", "compilation:empty-splitting-ops", "empty splitting_ops, PIECEWISE",
        [LLAMA, "-O", js({"splitting_ops": [], "cudagraph_mode": "PIECEWISE"})])
    add("cc-empty-splitting-fp", "compilation:empty-splitting-ops", "empty splitting_ops, FULL_AND_PIECEWISE",
        [LLAMA, "-O", js({"splitting_ops": [], "cudagraph_mode": "FULL_AND_PIECEWISE"})])
    add("cc-empty-splitting", "compilation:empty-splitting-ops", "empty splitting_ops, default mode",
        [LLAMA, "-O", js({"splitting_ops": []})])
    add("cc-attn-fusion", "compilation:attn-fusion", "attention fusion with piecewise cudagraphs",
        ["models/llama_fp8_block", "-O", js({"pass_config": {"enable_attn_fusion": True, "enable_noop": True}})])
    add("cc-use-cudagraph-mode", "compilation:use-cudagraph-exclusive", "use_cudagraph with cudagraph_mode",
        [LLAMA, "-O", js({"use_cudagraph": False, "cudagraph_mode": "FULL"})])
    add("cc-full-cuda-graph-mode", "compilation:full-cuda-graph-exclusive", "full_cuda_graph with cudagraph_mode",
        [LLAMA, "-O", js({"full_cuda_graph": True, "cudagraph_mode": "PIECEWISE"})])
    add("cc-graph-partition", "compilation:graph-partition", "use_inductor_graph_partition",
        [LLAMA, "-O", js({"use_inductor_graph_partition": True})])
    add("cuda-graph-sizes-and-cc", "engine-args:cuda-graph-sizes-exclusive",
        "--cuda-graph-sizes with compilation_config.cudagraph_capture_sizes",
        [LLAMA, "--cuda-graph-sizes", "8", "16", "-O", js({"cudagraph_capture_sizes": [4, 8]})])
    add("capture-sizes-cc", "engine-args:capture-sizes-exclusive",
        "cudagraph_capture_sizes in the compilation config and as -O.cudagraph_capture_sizes",
        [LLAMA, "-O", js({"cudagraph_capture_sizes": [4, 8], "max_capture_size": 8})])
    add("cc-fusion-no-noop", "compilation:fusion-without-noop", "fusion without reshape elimination",
        [LLAMA, "-O", js({"pass_config": {"enable_fusion": True, "enable_noop": False}})])
    # ---- engine args
    add("async-pp", "engine-args:async-pp", "--async-scheduling with PP 2", [LLAMA, "--async-scheduling", "-pp", "2"])
    add("async-spec", "engine-args:async-spec", "--async-scheduling with ngram speculation",
        [LLAMA, "--async-scheduling", "--speculative-config",
         js({"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 3})])
    add("default-mm-loras-text", "engine-args:default-mm-loras", "--default-mm-loras on a text model",
        [LLAMA, "--enable-lora", "--default-mm-loras", js({"image": "models/llama"})])
    add("mm-cache-env", "engine-args:mm-input-cache-env", "VLLM_MM_INPUT_CACHE_GIB in the environment",
        [LLAMA], env={"VLLM_MM_INPUT_CACHE_GIB": "4"})
    add("max-len-decimal", "engine-args:human-readable-decimal", "--max-model-len 1.5k",
        [LLAMA, "--max-model-len", "1.5k"])
    add("max-len-decimal-ok", "engine-args:human-readable-decimal", "--max-model-len 1.5K (binary)",
        [LLAMA, "--max-model-len", "1.5K"])
    add("lora-max-cpu-loras", "lora:max-cpu-loras", "--max-cpu-loras below --max-loras",
        [LLAMA, "--enable-lora", "--max-loras", "4", "--max-cpu-loras", "2"])
    add("lora-rank-bad", "lora:max-lora-rank", "--max-lora-rank 12", [LLAMA, "--enable-lora", "--max-lora-rank", "12"])
    add("lora-dtype-float32", "lora:dtype", "--lora-dtype float32", [LLAMA, "--enable-lora", "--lora-dtype", "float32"])
    add("ignore-patterns", "load:ignore-patterns", "--ignore-patterns", [LLAMA, "--ignore-patterns", "*.pt"])
    # ---- KV transfer / observability / structured outputs / multimodal
    add("kv-role-bad", "kv-transfer:role", "an unknown kv_role",
        [LLAMA, "--kv-transfer-config", js({"kv_connector": "NixlConnector", "kv_role": "kv_nobody"})])
    add("kv-role-missing", "kv-transfer:role-missing", "a kv_connector without kv_role",
        [LLAMA, "--kv-transfer-config", js({"kv_connector": "NixlConnector"})])
    add("detailed-traces", "observability:detailed-traces", "--collect-detailed-traces without an endpoint",
        [LLAMA, "--collect-detailed-traces", "all"])
    add("otlp-endpoint", "observability:otlp", "--otlp-traces-endpoint (OpenTelemetry not installed)",
        [LLAMA, "--otlp-traces-endpoint", "http://localhost:4317"])
    add("hidden-metrics", "observability:hidden-metrics", "--show-hidden-metrics-for-version 0.10",
        [LLAMA, "--show-hidden-metrics-for-version", "0.10"])
    add("mm-shm-size", "multimodal:shm-size", "--mm-shm-cache-max-object-size-mb on a text model",
        [LLAMA, "--mm-processor-cache-type", "shm", "--mm-shm-cache-max-object-size-mb", "0"])
    # ---- speculative config
    add("spec-ngram-no-k", "speculative:num-tokens-missing", "ngram without num_speculative_tokens",
        [LLAMA, "--speculative-config", js({"method": "ngram", "prompt_lookup_max": 3})])
    add("spec-ngram-k0", "speculative:num-tokens-positive", "ngram with num_speculative_tokens 0",
        [LLAMA, "--speculative-config", js({"method": "ngram", "num_speculative_tokens": 0, "prompt_lookup_max": 3})])
    add("spec-ngram-min-only", "speculative:lookup-min-only", "ngram with prompt_lookup_min only",
        [LLAMA, "--speculative-config", js({"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_min": 2})])
    add("spec-ngram-max-only", "speculative:lookup-max-only", "ngram with prompt_lookup_max only",
        [LLAMA, "--speculative-config", js({"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 5})])
    add("spec-ngram-batch-threshold", "speculative:disable-by-batch-size", "disable_by_batch_size 1",
        [LLAMA, "--speculative-config", js({"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 3,
                                            "disable_by_batch_size": 1})])
    add("spec-eagle-max-len", "speculative:draft-max-len", "EAGLE draft max_model_len above the target's",
        [LLAMA, "--speculative-config", js({**EAGLE, "max_model_len": 100000})])
    add("spec-eagle-draft-tp", "speculative:draft-tp", "EAGLE with draft_tensor_parallel_size 2 under TP 1",
        [LLAMA, "--speculative-config", js({**EAGLE, "draft_tensor_parallel_size": 2})])
    add("spec-eagle-k3", "speculative:eagle-k", "EAGLE with 3 speculative tokens",
        [LLAMA, "--speculative-config", js({**EAGLE, "num_speculative_tokens": 3})])
    add("spec-eagle3-gemma", "speculative:eagle3-targets", "EAGLE-3 on an unsupported target",
        ["models/mistral_sw", "--speculative-config", js({**EAGLE, "method": "eagle3"})])
    add("spec-mtp-k2", "speculative:mtp-k", "MTP with 2 speculative tokens on DeepSeek-V3",
        ["models/deepseek_v3", "--speculative-config", js({"method": "mtp", "num_speculative_tokens": 2})])
    add("spec-mtp-tokens-mismatch", "speculative:n-predict", "deepseek_mtp with num_speculative_tokens 3",
        ["models/deepseek_v3", "--speculative-config", js({"method": "deepseek_mtp", "num_speculative_tokens": 3})])
    add("spec-eagle-cp-off", "speculative:eagle-chunked", "EAGLE with chunked prefill off",
        [LLAMA, "--no-enable-chunked-prefill", "--speculative-config", js(EAGLE)])
    # ---- CPU platform hook
    add("cpu-block-32", "cpu:block-size-ipex", "block size 32 on CPU without IPEX", [LLAMA, "--block-size", "32"],
        platform="cpu")
    add("cpu-fp8-cp", "cpu:fp8-chunked", "fp8 KV cache with chunked prefill on CPU", [LLAMA, "--kv-cache-dtype", "fp8"],
        platform="cpu")
    add("cpu-fp8-e4m3", "cpu:fp8-e4m3", "fp8_e4m3 KV cache on CPU, no chunked prefill or prefix caching",
        [LLAMA, "--kv-cache-dtype", "fp8_e4m3", "--no-enable-chunked-prefill", "--no-enable-prefix-caching",
         "--max-num-batched-tokens", "4096"], platform="cpu")
    add("cpu-fp8-half", "cpu:fp8-half", "fp8 KV cache with fp16 on CPU",
        [LLAMA, "--kv-cache-dtype", "fp8_e5m2", "--dtype", "float16", "--no-enable-chunked-prefill",
         "--no-enable-prefix-caching", "--max-num-batched-tokens", "4096"], platform="cpu")
    add("cpu-tp2-uni", "cpu:executor-fallback", "TP 2 with the uni executor on CPU",
        [LLAMA, "-tp", "2", "--distributed-executor-backend", "uni"], platform="cpu")
    add("cpu-dbo", "cpu:dbo", "--enable-dbo on CPU", [LLAMA, "--enable-dbo"], platform="cpu")
    add("cpu-mla", "cpu:mla", "an MLA model on CPU", ["models/deepseek_v3"], platform="cpu")
    add("cpu-eager", "cpu:eager", "--enforce-eager on CPU", [LLAMA, "--enforce-eager"], platform="cpu")
    add("cpu-no-kvspace", "cpu:kvcache-space", "CPU without VLLM_CPU_KVCACHE_SPACE", [LLAMA], platform="cpu",
        env={"VLLM_CPU_KVCACHE_SPACE": "0"})
    # ---- CUDA / ROCm hooks and model hooks
    add("mla-flashinfer", "cuda:flashinfer-mla", "DeepSeek-V3 with the FlashInfer MLA backend on B200",
        ["models/deepseek_v3"], platform=B200, env={"VLLM_ATTENTION_BACKEND": "FLASHINFER_MLA"})
    add("mla-cutlass", "cuda:cutlass-mla", "DeepSeek-V3 with the CUTLASS MLA backend on B200",
        ["models/deepseek_v3"], platform=B200, env={"VLLM_ATTENTION_BACKEND": "CUTLASS_MLA"})
    add("mla-flashmla-a100", "cuda:flashmla", "DeepSeek-V3 with FlashMLA forced on an A100",
        ["models/deepseek_v3"], platform=A100, env={"VLLM_ATTENTION_BACKEND": "FLASHMLA"})
    add("dsv32-fp8", "models:deepseek-v32-fp8", "DeepSeek-V3.2 with an fp8 KV cache",
        ["models/deepseek_v32", "--kv-cache-dtype", "fp8"])
    add("dsv32-default", "models:deepseek-v32", "DeepSeek-V3.2 on H100", ["models/deepseek_v32"])
    add("nomic-long", "models:nomic-context", "nomic, --max-model-len above its trained context and its position limit",
        ["models/nomic", "--trust-remote-code", "--max-model-len", "8192", "--runner", "pooling"])
    add("gpt-oss-capture", "models:gpt-oss-capture-size", "GPT-OSS on H100, default capture sizes",
        ["models/gpt_oss"])
    add("mamba-apc", "models:mamba-prefix-caching", "Mamba with --enable-prefix-caching",
        ["models/mamba", "--enable-prefix-caching"])
    add("jamba-cascade", "model:hybrid-cascade", "a hybrid model, cascade attention default", ["models/jamba"])
    add("rocm-awq-triton", "rocm:awq-triton", "AWQ on ROCm with VLLM_USE_TRITON_AWQ",
        ["models/llama_awq"], platform="rocm", env={"VLLM_USE_TRITON_AWQ": "1"})
    add("rocm-fp8-block", "rocm:fp8", "a block-fp8 checkpoint on ROCm", ["models/llama_fp8_block"], platform="rocm")
    add("rocm-eager", "rocm:eager", "ROCm with --enforce-eager", [LLAMA, "--enforce-eager"], platform="rocm")
    add("sm75-bf16", "vllm:turing-float32", "Turing GPU, float32", [LLAMA, "--dtype", "float32"], platform="cuda:75")
    add("kv-events-off", "vllm:kv-events-disabled", "KV events config with events disabled and prefix caching",
        [LLAMA, "--kv-events-config", js({"enable_kv_cache_events": False, "publisher": "zmq"})])
    add("debug-dump-path", "vllm:debug-dump-path", "compilation debug_dump_path with VLLM_DEBUG_DUMP_PATH",
        [LLAMA, "-O", js({"debug_dump_path": "/tmp/a"})], env={"VLLM_DEBUG_DUMP_PATH": "/tmp/b"})
    return out


# ---------------------------------------------------------------------------------------- random

GENERATE = ("llama", "llama", "llama", "deepseek_v3", "qwen3_next", "jamba", "gemma3_text", "mistral_sw", "bert",
            "llama_awq", "mamba", "gpt_oss")
PLATFORMS: tuple[Any, ...] = (H100, H100, A100, L40S, B200, "rocm", "cpu")
MOE = {"deepseek_v3", "qwen3_next", "jamba", "gpt_oss"}


def random_line(rng: random.Random) -> tuple[str, dict[str, Any]]:
    model = rng.choice(GENERATE)
    plat = rng.choice(PLATFORMS)
    cpu = plat == "cpu"
    args: list[str] = [f"models/{model}"]
    tp = 1
    if rng.random() < 0.3 and not cpu:
        tp = rng.choice([2, 4])
        args += ["-tp", str(tp)]
    if rng.random() < 0.15:
        args += ["--max-num-partial-prefills", rng.choice(["1", "2", "4"])]
        if rng.random() < 0.5:
            args += ["--max-long-partial-prefills", rng.choice(["1", "2"])]
    if rng.random() < 0.15:
        args += ["--max-num-batched-tokens", rng.choice(["512", "2048", "8192"])]
    if rng.random() < 0.15:
        args.append(rng.choice(["--enable-chunked-prefill", "--no-enable-chunked-prefill"]))
    if rng.random() < 0.15:
        args += ["--kv-cache-dtype", rng.choice(["fp8", "fp8_e4m3", "fp8_e5m2"])]
    if rng.random() < 0.15 and model in MOE and tp > 1:
        args.append("--enable-expert-parallel")
        if rng.random() < 0.5:
            args.append("--enable-eplb")
    if rng.random() < 0.1:
        args += ["--max-parallel-loading-workers", "2"]
    if rng.random() < 0.15:
        args += ["-O", js(rng.choice([{"splitting_ops": []}, {"custom_ops": ["+rms_norm"]},
                                      {"custom_ops": ["none", "+silu_and_mul"]}, {"cudagraph_mode": "PIECEWISE"},
                                      {"pass_config": {"enable_fusion": True}}, {"backend": "eager"}]))]
    if rng.random() < 0.1:
        args += ["--speculative-config", js(rng.choice([
            {"method": "ngram", "num_speculative_tokens": rng.choice([1, 3]), "prompt_lookup_max": 4},
            {"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_min": 3}]))]
    if rng.random() < 0.1:
        args += ["--runner", rng.choice(["generate", "pooling", "auto"])]
    if rng.random() < 0.1:
        args.append("--disable-sliding-window")
    if rng.random() < 0.1:
        args += ["--dtype", rng.choice(["float16", "bfloat16", "float32"])]
    if rng.random() < 0.08:
        args += ["--enable-lora", "--max-loras", rng.choice(["1", "4"])]
    if rng.random() < 0.08:
        args.append("--enable-dbo")
    if rng.random() < 0.08:
        args += ["--block-size", rng.choice(["16", "32"])]
    usage = rng.choice([SERVE, SERVE, LLM])
    where = plat if isinstance(plat, str) else "a100"
    return "rand", argv("random", f"random rare-option command line ({model} on {where})", args, platform=plat,
                        usage_context=usage)


def second() -> list[tuple[str, dict[str, Any]]]:
    """The second batch (n150-): sites the first left unreached, mostly 0.11.1's own."""
    out: list[tuple[str, dict[str, Any]]] = []

    def add(slug: str, site: str, description: str, args: list[str], **kw: Any) -> None:
        out.append((slug, argv(site, description, args, **kw)))

    add("cc-cache-format", "compilation:cache-save-format", "an unknown compile_cache_save_format",
        [LLAMA, "-O", js({"compile_cache_save_format": "zip"})])
    add("ec-role-bad", "ec-transfer:role", "an unknown ec_role (0.11.1's encoder-cache transfer)",
        [LLAMA, "--ec-transfer-config", js({"ec_connector": "ECSharedStorageConnector", "ec_role": "ec_nobody"})])
    add("ec-role-missing", "ec-transfer:role-missing", "an ec_connector without ec_role",
        [LLAMA, "--ec-transfer-config", js({"ec_connector": "ECSharedStorageConnector"})])
    add("disable-sw-rope", "model:disable-sliding-window-rope", "--disable-sliding-window on a rope-scaled model",
        ["models/llama_long", "--disable-sliding-window"])
    add("pooler-softmax", "pooler:softmax-deprecated", "--pooler-config softmax on a reward model",
        ["models/qwen2_rm", "--pooler-config", js({"softmax": False})])
    add("pooler-activation", "pooler:activation-deprecated", "--pooler-config activation on a classifier",
        ["models/llama_seqcls", "--pooler-config", js({"activation": False})])
    add("spec-suffix", "speculative:suffix", "suffix decoding (Arctic Inference not installed)",
        [LLAMA, "--speculative-config", js({"method": "suffix"})])
    add("spec-ngram-draft-tp2", "speculative:draft-tp-warning", "n-gram lookup with draft TP 2 under TP 2",
        [LLAMA, "-tp", "2", "--speculative-config",
         js({"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 3, "draft_tensor_parallel_size": 2})])
    add("so-reasoning-bad", "structured-outputs:reasoning-parser", "an unknown reasoning parser",
        [LLAMA, "--structured-outputs-config", js({"reasoning_parser": "nope"})])
    add("async-eagle", "vllm:async-spec", "--async-scheduling with EAGLE",
        [LLAMA, "--async-scheduling", "--speculative-config", js(EAGLE)])
    add("async-uni-tp2", "vllm:async-executor", "--async-scheduling with TP 2 and the external launcher",
        [LLAMA, "--async-scheduling", "-tp", "2", "--distributed-executor-backend", "external_launcher"],
        env={"RANK": "0"})
    add("dp-hybrid-local1", "engine-args:hybrid-lb-local-1", "--data-parallel-hybrid-lb with one local DP rank",
        [LLAMA, "-dp", "2", "--data-parallel-size-local", "1", "--data-parallel-hybrid-lb"])
    add("nnodes-external", "engine-args:node-rank-external", "two nodes, external LB, node rank 1",
        [LLAMA, "-dp", "4", "--nnodes", "2", "--node-rank", "1", "--data-parallel-external-lb"])
    add("nnodes-local", "engine-args:node-rank", "two nodes, DP 4, node rank 1",
        [LLAMA, "-dp", "4", "--nnodes", "2", "--node-rank", "1"])
    add("nnodes-mp", "parallel:nnodes-backend", "two nodes with the uni executor",
        [LLAMA, "-tp", "2", "--nnodes", "2", "--distributed-executor-backend", "uni"])
    add("lora-spec-budget", "engine-args:lora-spec-budget", "LoRA with n-gram speculation and a small token budget",
        [LLAMA, "--enable-lora", "--max-num-batched-tokens", "512", "--max-num-seqs", "256", "--speculative-config",
         js({"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 3})])
    add("cpu-nobind", "cpu:nobind", "CPU with VLLM_CPU_OMP_THREADS_BIND=nobind", [LLAMA], platform="cpu",
        env={"VLLM_CPU_OMP_THREADS_BIND": "nobind"})
    add("mtp-k3-divisible", "speculative:mtp-divisible", "MTP with 3 tokens on Qwen3-Next",
        ["models/qwen3_next", "--speculative-config", js({"method": "mtp", "num_speculative_tokens": 3})])
    add("dsv32-bf16", "models:deepseek-v32-bf16", "DeepSeek-V3.2 with --kv-cache-dtype auto",
        ["models/deepseek_v32", "--kv-cache-dtype", "auto"])
    add("hidden-metrics-bad", "observability:hidden-metrics-version", "an unparsable --show-hidden-metrics-for-version",
        [LLAMA, "--show-hidden-metrics-for-version", "not-a-version"])
    return out


def third() -> list[tuple[str, dict[str, Any]]]:
    """The third batch (n170-): sites both versions still left unreached (issue 30, session of 2026-12-06)."""
    out: list[tuple[str, dict[str, Any]]] = []

    def add(slug: str, site: str, description: str, args: list[str], **kw: Any) -> None:
        out.append((slug, argv(site, description, args, **kw)))

    # ---- engine args: capture-size flags, deprecated forwards, DP, parsing
    add("capture-sizes-flag", "engine-args:cudagraph-capture-sizes", "--cudagraph-capture-sizes",
        [LLAMA, "--cudagraph-capture-sizes", "8", "16"])
    add("capture-sizes-flag-and-cc", "engine-args:cudagraph-capture-sizes-exclusive",
        "--cudagraph-capture-sizes with -O cudagraph_capture_sizes",
        [LLAMA, "--cudagraph-capture-sizes", "8", "-O", js({"cudagraph_capture_sizes": [4]})])
    add("max-capture-flag", "engine-args:max-cudagraph-capture-size", "--max-cudagraph-capture-size",
        [LLAMA, "--max-cudagraph-capture-size", "64"])
    add("max-capture-flag-and-cc", "engine-args:max-cudagraph-capture-size-exclusive",
        "--max-cudagraph-capture-size with -O max_cudagraph_capture_size",
        [LLAMA, "--max-cudagraph-capture-size", "64", "-O", js({"max_cudagraph_capture_size": 32})])
    add("eplb-deprecated-flags", "engine-args:eplb-forward parallel:eplb-deprecated",
        "deprecated --eplb-step-interval and --eplb-log-balancedness",
        ["models/deepseek_v3", "-tp", "2", "--enable-expert-parallel", "--enable-eplb", "--eplb-step-interval", "100",
         "--eplb-log-balancedness"])
    add("reasoning-parser", "engine-args:reasoning-parser", "--reasoning-parser deepseek_r1",
        [LLAMA, "--reasoning-parser", "deepseek_r1"])
    add("guided-deprecated", "engine-args:guided-forward", "deprecated --guided-decoding-* flags",
        [LLAMA, "--guided-decoding-disable-fallback", "true", "--guided-decoding-disable-additional-properties",
         "true", "--guided-decoding-disable-any-whitespace", "true"])
    add("async-ray", "engine-args:async-backend", "--async-scheduling with the Ray executor",
        [LLAMA, "--async-scheduling", "--distributed-executor-backend", "ray"])
    add("dp-start-rank", "engine-args:dp-start-rank", "DP 4, two local ranks from start rank 2",
        [LLAMA, "-dp", "4", "--data-parallel-size-local", "2", "--data-parallel-start-rank", "2"])
    add("dp-local-equals", "engine-args:dp-local-all", "DP 2 with both ranks local and hybrid LB",
        [LLAMA, "-dp", "2", "--data-parallel-size-local", "2", "--data-parallel-hybrid-lb"])
    add("dp-address", "engine-args:dp-address", "--data-parallel-address",
        [LLAMA, "-dp", "2", "--data-parallel-address", "10.0.0.1", "--data-parallel-rpc-port", "13345"])
    add("max-len-tera", "engine-args:human-readable-suffix", "--max-model-len 1t (no multiplier)",
        [LLAMA, "--max-model-len", "1t"])
    add("optional-none", "engine-args:optional-none", "--max-num-batched-tokens None",
        [LLAMA, "--max-num-batched-tokens", "None"])
    add("tensorizer", "engine-args:tensorizer", "--load-format tensorizer with extra config",
        [LLAMA, "--load-format", "tensorizer", "--model-loader-extra-config",
         js({"tensorizer_uri": "/tmp/none.tensors", "num_readers": 2})])
    # ---- model config
    add("tokenizer-revision", "model:tokenizer-revision", "--tokenizer-revision and --revision",
        [LLAMA, "--revision", "main", "--tokenizer-revision", "v1"])
    add("hf-config-path", "model:hf-config-path", "--hf-config-path", [LLAMA, "--hf-config-path", LLAMA])
    add("served-names", "model:served-model-name", "two --served-model-name values",
        [LLAMA, "--served-model-name", "a", "b"])
    add("task-reward-llama", "model:task-reward", "deprecated --task reward on a decoder",
        [LLAMA, "--task", "reward"])
    add("task-classify-llama", "model:task-classify", "deprecated --task classify on a decoder",
        [LLAMA, "--task", "classify"])
    add("task-score-bert", "model:task-score", "deprecated --task score on an encoder", ["models/bert", "--task", "score"])
    add("task-generate-bert", "model:task-generate", "deprecated --task generate on an encoder",
        ["models/bert", "--task", "generate"])
    add("flashinfer-missing-pooling", "model:flashinfer-missing", "VLLM_ATTENTION_BACKEND=FLASHINFER on CPU",
        [LLAMA], platform="cpu", env={"VLLM_ATTENTION_BACKEND": "FLASHINFER"})
    add("modelopt-nvfp4", "model:modelopt-nvfp4", "a ModelOpt NVFP4 checkpoint (hf_quant_config form)",
        ["models/cvo_modelopt_nvfp4"], platform=B200)
    add("modelopt-fp8-producer", "model:modelopt-fp8", "a ModelOpt FP8 checkpoint (hf_quant_config form)",
        ["models/cvo_modelopt_fp8"])
    add("modelopt-unknown", "model:modelopt-unknown", "a ModelOpt checkpoint with an unknown algorithm",
        ["models/cvo_modelopt_bad"])
    add("mpt", "model:kv-heads-mpt", "an MPT checkpoint with kv_n_heads", ["models/cvo_mpt", "-tp", "2"])
    add("dbrx", "model:kv-heads-dbrx", "a DBRX checkpoint", ["models/cvo_dbrx", "-tp", "2"])
    add("falcon-mqa", "model:kv-heads-multi-query", "a multi-query Falcon checkpoint", ["models/cvo_falcon"])
    add("head-dtype-model", "model:head-dtype-model", "hf_overrides head_dtype model on a pooling model",
        ["models/bert", "--hf-overrides", js({"head_dtype": "model"})])
    add("head-dtype-bad", "model:head-dtype-unknown", "hf_overrides head_dtype with an unknown dtype",
        ["models/bert", "--hf-overrides", js({"head_dtype": "float8"})])
    add("head-dtype-cpu", "model:head-dtype-platform", "float32 head dtype on CPU with fp16",
        ["models/bert", "--dtype", "float16", "--hf-overrides", js({"head_dtype": "float32"})], platform="cpu")
    add("mm-tp-data-jinavl", "model:mm-tp-mode-unsupported", "--mm-encoder-tp-mode data on a model without it",
        ["models/jinavl", "--mm-encoder-tp-mode", "data", "-tp", "2"])
    add("mm-limits-jinavl", "multimodal:limit-per-prompt", "--limit-mm-per-prompt with every modality form",
        ["models/jinavl", "--limit-mm-per-prompt",
         js({"image": 2, "video": {"count": 1, "num_frames": 8}, "audio": 1, "text": {"count": 1}})])
    add("mm-attn-backend", "multimodal:encoder-attn-backend", "--mm-encoder-attn-backend torch_sdpa",
        ["models/jinavl", "--mm-encoder-attn-backend", "torch_sdpa"])
    add("mm-attn-backend-bad", "multimodal:encoder-attn-backend-bad", "an unknown --mm-encoder-attn-backend",
        ["models/jinavl", "--mm-encoder-attn-backend", "nope"])
    add("mm-shm-size-lru", "multimodal:shm-size-not-shm", "--mm-shm-cache-max-object-size-mb without the shm cache",
        ["models/jinavl", "--mm-shm-cache-max-object-size-mb", "64"])
    # ---- speculative config
    add("spec-eagle-by-name", "speculative:eagle-by-name", "an EAGLE draft recognised by its path",
        [LLAMA, "--speculative-config", js({"model": "models/cvo_eagle-llama", "num_speculative_tokens": 2})])
    add("spec-eagle3-by-name", "speculative:eagle3-by-name", "an EAGLE-3 draft recognised by its path",
        [LLAMA, "--speculative-config", js({"model": "models/cvo_eagle3_llama", "num_speculative_tokens": 2})])
    add("spec-mtp-by-type", "speculative:mtp-by-model-type", "a DeepSeek-V3 draft without a method (MTP by type)",
        ["models/deepseek_v3", "--speculative-config", js({"model": "models/deepseek_v3", "num_speculative_tokens": 2})])
    add("spec-draft-model", "speculative:draft-model", "a plain draft model (not supported)",
        [LLAMA, "--speculative-config", js({"model": "models/llama_draft", "num_speculative_tokens": 2})])
    add("spec-ngram-min-gt-max", "speculative:lookup-order", "prompt_lookup_min above prompt_lookup_max",
        [LLAMA, "--speculative-config", js({"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_min": 5,
                                            "prompt_lookup_max": 3})])
    add("spec-ngram-model", "speculative:ngram-by-model", "model ngram without a method",
        [LLAMA, "--speculative-config", js({"model": "ngram", "num_speculative_tokens": 2})])
    add("spec-eagle-draft-max-len", "speculative:max-len-target", "EAGLE max_model_len above the target's own",
        [LLAMA, "--max-model-len", "1024", "--speculative-config", js({**EAGLE, "max_model_len": 2048})])
    add("spec-eagle-max-len-small", "speculative:max-len-draft", "EAGLE max_model_len below both",
        [LLAMA, "--speculative-config", js({**EAGLE, "max_model_len": 512})])
    add("spec-eagle-draft-tp1", "speculative:draft-tp-1", "EAGLE with draft TP 1 under TP 2",
        [LLAMA, "-tp", "2", "--speculative-config", js({**EAGLE, "draft_tensor_parallel_size": 1})])
    add("spec-eagle-quant", "speculative:quantization", "EAGLE with a draft quantization",
        [LLAMA, "--speculative-config", js({**EAGLE, "quantization": "fp8"})])
    add("spec-mtp-quant", "speculative:mtp-quantization", "MTP on an fp8 target with its own quantization",
        ["models/deepseek_v3", "--quantization", "fp8", "--speculative-config",
         js({"method": "mtp", "num_speculative_tokens": 1})])
    add("spec-mtp-no-k", "speculative:mtp-default-k", "MTP without num_speculative_tokens",
        ["models/deepseek_v3", "--speculative-config", js({"method": "mtp"})])
    add("spec-batch-threshold-ok", "speculative:disable-by-batch-size", "disable_by_batch_size 4",
        [LLAMA, "--speculative-config", js({**EAGLE, "disable_by_batch_size": 4})])
    # ---- parallel / platform
    add("api-process-rank", "parallel:api-process-rank", "--api-server-count with an out-of-range rank",
        [LLAMA, "--api-server-count", "2"])
    add("executor-bad", "parallel:executor-unknown", "an unknown --distributed-executor-backend",
        [LLAMA, "--distributed-executor-backend", "nope"])
    add("worker-cls-cuda", "cuda:worker-cls", "--worker-cls set on CUDA", [LLAMA, "--worker-cls", "my.Worker"])
    add("worker-cls-rocm", "rocm:worker-cls", "--worker-cls set on ROCm", [LLAMA, "--worker-cls", "my.Worker"],
        platform="rocm")
    add("worker-cls-cpu", "cpu:worker-cls", "--worker-cls set on CPU", [LLAMA, "--worker-cls", "my.Worker"],
        platform="cpu")
    add("cpu-ci-env", "cpu:ci-env", "VLLM_CPU_CI_ENV on CPU", [LLAMA], platform="cpu", env={"VLLM_CPU_CI_ENV": "1"})
    add("cuda-sm50-dtypes", "cuda:supported-dtypes", "a pre-Pascal GPU (no bfloat16, no float16)",
        ["models/bert", "--dtype", "auto"], platform="cuda:52")
    add("lora-dtype-auto", "lora:dtype-auto", "--lora-dtype auto", [LLAMA, "--enable-lora", "--lora-dtype", "auto"])
    add("lora-dtype-bf16", "lora:dtype-str", "--lora-dtype bfloat16", [LLAMA, "--enable-lora", "--lora-dtype",
                                                                       "bfloat16"])
    add("kv-engine-id", "kv-transfer:engine-id", "a KV transfer config with an engine_id",
        [LLAMA, "--kv-transfer-config", js({"kv_connector": "NixlConnector", "kv_role": "kv_both",
                                            "engine_id": "e1"})])
    add("detailed-traces-comma", "observability:detailed-traces-comma", "--collect-detailed-traces model,worker",
        [LLAMA, "--otlp-traces-endpoint", "http://localhost:4317", "--collect-detailed-traces", "model,worker"])
    # ---- batch 2 of the session: model hooks, compilation, speculative drafts by model type
    add("whisper-spawn", "vllm:whisper-spawn", "Whisper with VLLM_WORKER_MULTIPROC_METHOD=spawn", ["models/whisper"],
        env={"VLLM_WORKER_MULTIPROC_METHOD": "spawn"})
    add("fp8-block-no-quant-op", "vllm:quant-fp8-op-off", "a block-fp8 checkpoint with -quant_fp8",
        ["models/llama_fp8_block", "-O", js({"custom_ops": ["-quant_fp8"]})])
    add("additional-config", "vllm:additional-config-hash", "--additional-config", [LLAMA, "--additional-config",
                                                                                    js({"my_key": 1})])
    add("jamba-cls-activation", "models:jamba-cls-activation", "Jamba classifier with an explicit activation",
        ["models/jamba_cls", "--pooler-config", js({"activation": True})])
    add("prm-step-tag", "models:prm-step-tag", "a process reward model with step_tag_id",
        ["models/qwen2_prm", "--pooler-config", js({"step_tag_id": 5})])
    add("jinavl-logit-bias", "models:jinavl-logit-bias", "JinaVL ranking with logit_bias",
        ["models/jinavl", "--pooler-config", js({"logit_bias": 1.5})])
    add("gpt-oss-reasoning", "models:gpt-oss-reasoning-parser", "GPT-OSS with its reasoning parser named",
        ["models/gpt_oss", "--reasoning-parser", "openai_gptoss"])
    add("mamba-v0", "models:mamba-v0", "Mamba with VLLM_USE_V1=0", ["models/mamba"], env={"VLLM_USE_V1": "0"})
    add("dsv32-bf16-kv", "models:deepseek-v32-bf16-kv", "DeepSeek-V3.2 with --kv-cache-dtype bfloat16",
        ["models/deepseek_v32", "--kv-cache-dtype", "bfloat16"])
    add("qwen3-cls-plain", "models:qwen3-cls-not-reranker", "a Qwen3 classifier that is not the original reranker",
        ["models/qwen3_reranker", "--runner", "pooling"])
    add("jina-roberta-absolute", "models:jina-roberta-absolute", "an XLM-RoBERTa with absolute positions",
        ["models/cvo_xlm_roberta_abs"])
    add("cc-compile-sizes", "compilation:compile-sizes", "compile_sizes with the capture sizes and an int",
        [LLAMA, "-O", js({"compile_sizes": ["cudagraph_capture_sizes", 4]})])
    add("cc-splitting-ops", "compilation:splitting-ops-given", "explicit splitting_ops",
        [LLAMA, "-O", js({"splitting_ops": ["vllm.unified_attention"]})])
    add("cc-empty-splitting-full", "compilation:empty-splitting-full", "empty splitting_ops with FULL cudagraphs",
        [LLAMA, "-O", js({"splitting_ops": [], "cudagraph_mode": "FULL"})])
    add("cc-partition-splitting", "compilation:partition-splitting-given", "graph partition with splitting_ops",
        [LLAMA, "-O", js({"use_inductor_graph_partition": True, "splitting_ops": ["vllm.unified_attention"]})])
    add("cc-inductor-pass-name", "compilation:inductor-passes", "an inductor pass by qualified name",
        [LLAMA, "-O", js({"inductor_passes": {"my_pass": "os.path.join"}})])
    add("cc-inductor-pass-int", "compilation:inductor-passes-bad", "an inductor pass that is neither name nor callable",
        [LLAMA, "-O", js({"inductor_passes": {"my_pass": 1}})])
    add("cc-functionalized-v2", "compilation:auto-functionalized-v2", "enable_auto_functionalized_v2 given",
        [LLAMA, "-O", js({"inductor_compile_config": {"enable_auto_functionalized_v2": True}})])
    add("cc-mode-name", "compilation:mode-by-name", "-O mode given by name (0.11.1) / unknown key (seed)",
        [LLAMA, "-O", js({"mode": "VLLM_COMPILE"})])
    add("cc-mode-bad", "compilation:mode-unknown", "-O mode with an unknown name", [LLAMA, "-O", js({"mode": "FAST"})])
    add("cc-mode-int", "compilation:mode-int", "-O mode as a number", [LLAMA, "-O", js({"mode": 3})])
    add("cc-cudagraph-mode-int", "compilation:cudagraph-mode-int", "cudagraph_mode as a number",
        [LLAMA, "-O", js({"cudagraph_mode": 1})])
    add("cc-cache-format-ok", "compilation:cache-save-format-ok", "compile_cache_save_format unpacked",
        [LLAMA, "-O", js({"compile_cache_save_format": "unpacked"})])
    add("spec-medusa", "speculative:medusa-by-type", "a Medusa draft recognised by its model type",
        [LLAMA, "--speculative-config", js({"model": "models/cvo_medusa", "num_speculative_tokens": 2})])
    add("spec-mlp-speculator-tp2", "speculative:mlp-speculator", "an MLP speculator draft under TP 2",
        [LLAMA, "-tp", "2", "--speculative-config", js({"model": "models/cvo_mlp_speculator"})])
    add("spec-mlp-speculator", "speculative:mlp-speculator-tp1", "an MLP speculator draft under TP 1",
        [LLAMA, "--speculative-config", js({"model": "models/cvo_mlp_speculator", "num_speculative_tokens": 3})])
    add("spec-mtp-not-divisible", "speculative:n-predict-divisible", "MTP draft by type, k not divisible by n_predict",
        ["models/cvo_dsv3_mtp2", "--speculative-config", js({"method": "mtp", "num_speculative_tokens": 3})])
    add("async-auto-ngram", "vllm:async-auto-spec", "0.11.1's automatic async scheduling with ngram speculation",
        [LLAMA, "--speculative-config", js({"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 3})])
    add("async-auto-ray", "vllm:async-auto-executor", "0.11.1's automatic async scheduling with TP 2 over Ray",
        [LLAMA, "-tp", "2", "--distributed-executor-backend", "ray"])
    add("async-eagle-padded", "vllm:async-padded-drafter", "--async-scheduling with EAGLE and no padded drafter batch",
        [LLAMA, "--async-scheduling", "--speculative-config", js({**EAGLE, "disable_padded_drafter_batch": True})])
    add("kv-offload-lmcache", "vllm:kv-offloading-lmcache", "0.11.1's --kv-offloading-backend lmcache",
        [LLAMA, "--kv-offloading-backend", "lmcache", "--kv-offloading-size", "4"])
    add("kv-offload-native", "vllm:kv-offloading-native", "0.11.1's --kv-offloading-backend native",
        [LLAMA, "--kv-offloading-backend", "native", "--kv-offloading-size", "4"])
    add("nnodes-2-cuda", "parallel:nnodes-cuda", "0.11.1's --nnodes 2 with TP 16 over mp",
        [LLAMA, "-tp", "16", "--nnodes", "2", "--distributed-executor-backend", "mp"])
    add("long-threshold-0111", "scheduler:long-threshold-gt-len", "a long-prefill threshold above a small max_model_len",
        [LLAMA, "--max-model-len", "1024", "--max-num-partial-prefills", "2", "--long-prefill-token-threshold", "2048"])
    add("long-gt-partial-0111", "scheduler:long-gt-partial", "long partial prefills above partial prefills, 1 each",
        [LLAMA, "--max-num-partial-prefills", "1", "--max-long-partial-prefills", "2"])
    add("ec-role-ok", "ec-transfer:engine-id", "an ec transfer config with a role and engine_id",
        [LLAMA, "--ec-transfer-config", js({"ec_connector": "ECSharedStorageConnector", "ec_role": "ec_producer",
                                            "engine_id": "e1"})])
    add("eplb-cpu", "parallel:eplb-not-cuda", "EPLB on CPU",
        ["models/deepseek_v3", "--enable-eplb", "--enable-expert-parallel", "-tp", "2"], platform="cpu")
    # ---- batch 3: decode context parallel's KV-head count, dict-mode ParallelConfig, more hooks
    add("dcp-falcon-mqa", "model:kv-heads-multi-query-dcp", "a multi-query Falcon with decode context parallel",
        ["models/cvo_falcon", "-tp", "2", "--decode-context-parallel-size", "2"])
    add("dcp-llama-mha", "model:kv-heads-from-heads", "no KV-head key (heads count) with decode context parallel",
        ["models/cvo_llama_mha", "-tp", "8", "--decode-context-parallel-size", "2"])
    add("dcp-mamba", "model:kv-heads-attention-free", "an attention-free model with decode context parallel",
        ["models/mamba", "-tp", "2", "--decode-context-parallel-size", "2"])
    add("mm-cache-env-jinavl", "engine-args:mm-input-cache-env-mm", "VLLM_MM_INPUT_CACHE_GIB on a multimodal model",
        ["models/jinavl"], env={"VLLM_MM_INPUT_CACHE_GIB": "8"})
    add("mtp-dsv32", "speculative:mtp-dsv32-eager", "MTP on DeepSeek-V3.2 (draft forced eager)",
        ["models/deepseek_v32", "--speculative-config", js({"method": "mtp", "num_speculative_tokens": 1})])
    add("mtp-own-quant", "speculative:mtp-own-quantization", "MTP with the draft's own quantization",
        ["models/deepseek_v3", "--speculative-config", js({"method": "mtp", "num_speculative_tokens": 1,
                                                            "quantization": "fp8"})])
    add("nomic-hf-max-len", "models:nomic-hf-overrides-max-len", "nomic with max_model_len in --hf-overrides",
        ["models/nomic", "--trust-remote-code", "--runner", "pooling", "--hf-overrides", js({"max_model_len": 1024})])
    add("cpu-iomp", "cpu:libiomp5", "CPU with Intel OpenMP preloaded", [LLAMA], platform="cpu",
        env={"LD_PRELOAD": "/usr/lib/libiomp5.so"})
    # dict mode (VllmConfig(...) built directly, as the Python API does): fields EngineArgs never sets
    out.append(("cfg-eplb-deprecated", {
        "description": "ParallelConfig's deprecated eplb_step_interval / eplb_log_balancedness given directly",
        "tags": ["site=parallel:eplb-deprecated-fields"], "model": "deepseek_v3", "platform": H100,
        "parallel_config": {"tensor_parallel_size": 2, "enable_expert_parallel": True, "enable_eplb": True,
                            "eplb_step_interval": 100, "eplb_log_balancedness": True}}))
    # ---- batch 4: max-len derivation keys, sentence-transformers facts, deprecated --task on a dual-use class
    add("model-max-length", "model:max-len-model-max-length", "config.json model_max_length above max positions",
        ["models/cvo_llama_mml_sw"])
    add("model-max-length-sw-disabled", "model:max-len-model-max-length-sliding", "--disable-sliding-window with a "
        "model_max_length and a longer --max-model-len", ["models/cvo_llama_mml_sw", "--disable-sliding-window",
                                                          "--max-model-len", "4096"])
    add("tokenizer-max-len", "model:max-len-tokenizer-config", "tokenizer_config.json model_max_length",
        ["models/cvo_llama_tok"])
    add("rope-linear", "model:max-len-rope-linear", "linear RoPE scaling", ["models/cvo_llama_linear"])
    add("rope-linear-no-sw", "model:rope-scaling-no-sliding", "linear RoPE scaling with --disable-sliding-window",
        ["models/cvo_llama_linear", "--disable-sliding-window"])
    add("rope-longrope", "model:max-len-longrope", "LongRoPE: the default max_model_len is the original one",
        ["models/cvo_llama_longrope"])
    add("st-llama", "model:sentence-transformers", "a sentence-transformers checkpoint of a decoder (pooling runner)",
        ["models/cvo_st_llama"])
    add("no-torch-dtype", "model:find-dtype-none", "a config.json without torch_dtype", ["models/cvo_llama_nodtype"])
    add("modelopt-no-algo", "model:modelopt-no-algo", "a ModelOpt checkpoint without quant_algo",
        ["models/cvo_modelopt_noalgo"])
    add("task-generate-qwen2", "model:task-dual-generate", "deprecated --task generate on a generative+pooling class",
        ["models/cvo_qwen2", "--task", "generate"])
    add("task-embed-qwen2", "model:task-dual-pooling", "deprecated --task embed on a generative+pooling class",
        ["models/cvo_qwen2", "--task", "embed"])
    add("task-auto-qwen2", "model:task-dual-auto", "deprecated --task auto on a generative+pooling class",
        ["models/cvo_qwen2", "--task", "auto"])
    add("task-auto-llama", "model:task-auto", "deprecated --task auto on a decoder", [LLAMA, "--task", "auto"])
    add("task-score-seqcls", "model:task-score-cross-encoder", "deprecated --task score on a sequence classifier",
        ["models/llama_seqcls", "--task", "score"])
    add("whisper-tp-data", "model:mm-tp-mode-unsupported-whisper", "--mm-encoder-tp-mode data on Whisper",
        ["models/whisper", "--mm-encoder-tp-mode", "data", "-tp", "2"])
    add("head-dtype-bf16-v100", "model:head-dtype-platform-unsupported", "bfloat16 head dtype on a V100",
        ["models/bert", "--dtype", "float16", "--hf-overrides", js({"head_dtype": "bfloat16"})], platform="cuda:70")
    # ---- batch 5
    add("cc-combo-kernels", "compilation:combo-kernels-given", "inductor_compile_config combo_kernels given",
        [LLAMA, "-O", js({"inductor_compile_config": {"combo_kernels": False}})])
    add("nnodes-2-pp", "parallel:nnodes-cuda-mp", "0.11.1's --nnodes 2: TP 8 x PP 2 over mp",
        [LLAMA, "-tp", "8", "-pp", "2", "--nnodes", "2", "--distributed-executor-backend", "mp"])
    return out


def fourth() -> list[tuple[str, dict[str, Any]]]:
    """The fourth batch (n294-): ModelConfig's per-architecture facts, nested hf_overrides, the Transformers
    backend's class, MTP drafts of other targets (issue 30, session of 2026-12-06 evening)."""
    out: list[tuple[str, dict[str, Any]]] = []

    def add(slug: str, site: str, description: str, args: list[str], **kw: Any) -> None:
        out.append((slug, argv(site, description, args, **kw)))

    # ---- deprecated --task on a class that is both generative and pooling
    add("task-generate-jamba-cls", "model:task-dual-generate", "deprecated --task generate on Jamba's classifier",
        ["models/jamba_cls", "--task", "generate"])
    add("task-embed-jamba-cls", "model:task-dual-pooling", "deprecated --task embed on Jamba's classifier",
        ["models/jamba_cls", "--task", "embed"])
    add("task-auto-jamba-cls", "model:task-dual-auto", "deprecated --task auto on Jamba's classifier",
        ["models/jamba_cls", "--task", "auto"])
    add("task-score-bert-seqcls", "model:task-score-cross-encoder", "deprecated --task score on a BERT cross-encoder",
        ["models/cvo_bert_seqcls", "--task", "score"])
    # ---- nested hf_overrides into a sub-config (ModelConfig._update_nested)
    add("hf-overrides-nested", "model:hf-overrides-nested", "--hf-overrides into the vision sub-config, dicts in dicts",
        ["models/jinavl", "--hf-overrides", js({"vision_config": {"depth": 3, "label2id": {"LABEL_0": 0},
                                                                  "extra": {"a": 1}}})])
    # ---- get_total_num_kv_heads per architecture (decode context parallel asks for it)
    add("dcp-mpt", "model:kv-heads-mpt", "MPT's attn_config.kv_n_heads with decode context parallel",
        ["models/cvo_mpt", "-tp", "4", "--decode-context-parallel-size", "2"])
    add("jamba-no-kv-key", "model:kv-heads-none", "a hybrid model whose KV-head keys are all unset (the heads "
        "count)", ["models/jamba", "--hf-overrides", js({"num_key_value_heads": None})])
    add("dcp-dbrx", "model:kv-heads-dbrx", "DBRX's attn_config.kv_n_heads with decode context parallel",
        ["models/cvo_dbrx", "-tp", "4", "--decode-context-parallel-size", "2"])
    add("num-experts-list", "model:num-experts-list", "a list-valued num_experts (Ernie VL's form) with expert "
        "parallelism", [LLAMA, "--hf-overrides", js({"num_experts": [4, 4]}), "--enable-expert-parallel", "-tp", "2"])
    add("jamba-hidden-size-per-head", "model:head-size-per-head", "a hybrid model's head size from "
        "hidden_size_per_head", ["models/jamba", "--hf-overrides", js({"hidden_size_per_head": 64})])
    # ---- max length from the tokenizer config of an absolute-position pooling model
    add("bert-tokenizer-max-len", "model:max-len-tokenizer-pooling", "a BERT whose tokenizer_config.json caps "
        "the length", ["models/cvo_bert_tok"])
    add("bert-tokenizer-max-len-user", "model:max-len-model-max-length-allowed", "--max-model-len above the "
        "tokenizer's cap, within config.json's model_max_length", ["models/cvo_bert_tok", "--max-model-len", "512"])
    # ---- the pooler config
    add("st-pooler-user-type", "model:pooler-user-over-st", "a sentence-transformers checkpoint with a user "
        "pooling_type", ["models/cvo_st_llama", "--pooler-config", js({"pooling_type": "CLS"})])
    # ---- the Transformers backend's class
    add("transformers-no-suffix", "model:transformers-backend-no-defaults", "an unregistered transformers class "
        "without a known suffix (runner auto)", ["models/cvo_llama_tokcls"])
    add("transformers-impl-no-suffix", "model:transformers-backend-no-defaults-impl", "--model-impl transformers on a "
        "class without a known suffix", ["models/cvo_llama_tokcls", "--model-impl", "transformers"])
    add("transformers-impl-embed", "model:transformers-backend-embed", "--model-impl transformers on a *Model class "
        "(pooling, embed)", ["models/cvo_llama_model", "--model-impl", "transformers"])
    # ---- V1's attention-backend list
    add("attn-backend-not-v1", "engine-args:v1-backend-fallback", "VLLM_ATTENTION_BACKEND outside V1's list",
        [LLAMA], env={"VLLM_ATTENTION_BACKEND": "NO_ATTENTION"})
    # ---- MTP drafts of other targets (SpeculativeConfig.hf_config_override)
    add("mtp-mimo", "speculative:mtp-mimo", "MTP on a MiMo target", ["models/cvo_mimo", "--speculative-config",
                                                                       js({"method": "mtp", "num_speculative_tokens": 1})])
    add("mtp-glm4-moe", "speculative:mtp-glm4-moe", "MTP on a GLM-4 MoE target",
        ["models/cvo_glm4_moe", "--speculative-config", js({"method": "mtp", "num_speculative_tokens": 1})])
    add("mtp-ernie", "speculative:mtp-ernie", "MTP on an ERNIE 4.5 MoE target",
        ["models/cvo_ernie45_moe", "--speculative-config", js({"method": "mtp", "num_speculative_tokens": 1})])
    # ---- batch 2: dtype fallbacks, parsing, 0.11.1's scheduler and parallel paths
    add("vision-dtype", "model:find-dtype-vision", "a multimodal config.json whose dtype is only its vision "
        "config's", ["models/cvo_jinavl_visdtype"])
    add("float64-cpu", "model:auto-dtype-cpu-fallback", "a float64 checkpoint on CPU (no device capability in the "
        "fallback warning)", ["models/cvo_llama_f64"], platform="cpu")
    add("seed-none", "engine-args:optional-none", "--seed None (an optional int flag)", [LLAMA, "--seed", "None"])
    add("no-hybrid-kv-manager", "vllm:hybrid-kv-manager-disabled", "--disable-hybrid-kv-cache-manager",
        [LLAMA, "--disable-hybrid-kv-cache-manager"])
    add("nnodes-2-auto-backend", "parallel:nnodes-cuda-default-backend", "0.11.1's --nnodes 2 with TP 8, executor "
        "backend left to vLLM", [LLAMA, "-tp", "8", "--nnodes", "2"])
    add("attn-fusion-splitting-given", "compilation:attn-fusion-splitting-given", "attention fusion with "
        "splitting_ops given", ["models/llama_fp8_block", "-O", js({"splitting_ops": [], "pass_config": {
            "enable_attn_fusion": True, "enable_noop": True}})])
    add("kv-offload-with-transfer", "vllm:kv-offloading-transfer-given", "0.11.1's --kv-offloading-backend with a "
        "KV transfer config given", [LLAMA, "--kv-offloading-backend", "native", "--kv-offloading-size", "4",
                                     "--kv-transfer-config", js({"kv_connector": "NixlConnector", "kv_role": "kv_both"})])
    # a hybrid (Jamba) class on a DeepSeek-MLA config: get_head_size's and get_num_kv_heads' MLA branches
    add("hybrid-mla", "model:head-size-mla-hybrid", "a Jamba class on a DeepSeek-V3 config (MLA in a hybrid model)",
        ["models/cvo_jamba_mla"])
    add("hybrid-mla-disabled", "model:head-size-mla-disabled", "the same with VLLM_MLA_DISABLE=1 (rope + nope head "
        "size)", ["models/cvo_jamba_mla"], env={"VLLM_MLA_DISABLE": "1"})
    add("hybrid-mla-disabled-no-nope", "model:head-size-mla-disabled-no-nope", "MLA disabled without "
        "qk_nope_head_dim (the plain head size)", ["models/cvo_jamba_mla", "--hf-overrides",
                                                   js({"qk_nope_head_dim": 0})], env={"VLLM_MLA_DISABLE": "1"})
    # dict mode (VllmConfig(...) built directly): what EngineArgs never passes
    cfg = [
        ("cfg-served-name-str", "model:served-model-name-str", "served_model_name as a string",
         {"model_config": {"served_model_name": "my-llama"}}),
        ("cfg-partial-prefill-threshold", "scheduler:long-threshold-given", "concurrent partial prefills with "
         "a long-prefill threshold given", {"scheduler_config": {"enable_chunked_prefill": True,
                                                                 "max_num_partial_prefills": 2,
                                                                 "long_prefill_token_threshold": 512}}),
        ("cfg-partial-prefill-threshold-long", "scheduler:long-threshold-gt-len", "a long-prefill threshold above "
         "max_model_len", {"scheduler_config": {"enable_chunked_prefill": True, "max_num_partial_prefills": 2,
                              "long_prefill_token_threshold": 8192}}),
        ("cfg-long-gt-partial", "scheduler:long-gt-partial", "max_long_partial_prefills above max_num_partial_prefills",
         {"scheduler_config": {"max_num_partial_prefills": 1, "max_long_partial_prefills": 2}}),
    ]
    for slug, site, description, body in cfg:
        out.append((slug, {"description": description, "tags": [f"site={site}"], "model": "llama", "platform": H100,
                           **body}))
    out.append(("cfg-mtp-no-model", {
        "description": "MTP speculation in a config built without a model (no target to take the layers from)",
        "tags": ["site=speculative:mtp-no-target"], "model": None, "platform": H100,
        "speculative_config": {"method": "mtp", "num_speculative_tokens": 1}}))
    # ---- batch 3
    add("spec-suffix-k", "speculative:suffix-model", "0.11.1's suffix decoding with num_speculative_tokens (Arctic "
        "Inference not installed)", [LLAMA, "--speculative-config", js({"method": "suffix",
                                                                       "num_speculative_tokens": 2})])
    add("sp-graph-partition", "vllm:sequence-parallel-fullgraph", "sequence parallelism under Inductor graph "
        "partition (a full graph: no +rms_norm)", [LLAMA, "-tp", "2", "-O", js({
            "use_inductor_graph_partition": True, "pass_config": {"enable_sequence_parallelism": True}})])
    add("dp-nnodes-local-given", "engine-args:dp-local-given-multinode", "0.11.1's DP over two nodes with "
        "--data-parallel-size-local given", [LLAMA, "-dp", "4", "--nnodes", "2", "--data-parallel-size-local", "2"])
    add("nomic-gelu", "models:nomic-gelu", "a nomic BERT with the gelu activation",
        ["models/cvo_nomic_gelu", "--trust-remote-code", "--runner", "pooling"])
    add("qwen3-cls-not-original", "models:qwen3-cls-plain-hook", "a Qwen3 sequence classifier that is not the "
        "original reranker (its hook returns at once)", ["models/cvo_qwen3_cls"])
    add("mtp-model-no-k", "speculative:n-predict-default-given-model", "method mtp with the draft named and no "
        "num_speculative_tokens (the draft's n_predict)", ["models/deepseek_v3", "--speculative-config",
                                                           js({"method": "mtp", "model": "models/deepseek_v3"})])
    add("eagle-v0-chunked", "speculative:eagle-v0-chunked-prefill", "an EAGLE draft by name under V0 with chunked "
        "prefill", [LLAMA, "--speculative-config", js({"model": "models/cvo_eagle-llama", "num_speculative_tokens": 2})],
        env={"VLLM_USE_V1": "0"})
    for slug, site, description, body in [
        ("cfg-async-auto", "vllm:async-scheduling-auto", "0.11.1's async scheduling left to vLLM (None; the seed "
         "refuses None)", {"scheduler_config": {"async_scheduling": None}}),
        ("cfg-async-auto-pp", "vllm:async-scheduling-auto-pp", "async scheduling left to vLLM with PP 2",
         {"scheduler_config": {"async_scheduling": None}, "parallel_config": {"pipeline_parallel_size": 2}})]:
        out.append((slug, {"description": description, "tags": [f"site={site}"], "model": "llama", "platform": H100,
                           **body}))
    return out


def fifth() -> list[tuple[str, dict[str, Any]]]:
    """The fifth batch (n338-): per-architecture KV-head and head-size facts, drafts recognised by their model
    type, sparse dual-chunk attention, async scheduling's executor check, deprecated multimodal settings
    (issue 30, session of 2026-12-06 night)."""
    out: list[tuple[str, dict[str, Any]]] = []

    def add(slug: str, site: str, description: str, args: list[str], **kw: Any) -> None:
        out.append((slug, argv(site, description, args, **kw)))

    def cfg(slug: str, site: str, description: str, body: dict[str, Any], model: Any = "llama") -> None:
        out.append((slug, {"description": description, "tags": [f"site={site}"], "model": model, "platform": H100,
                           **body}))

    # ---- Nemotron-NAS: the KV heads of the first block with attention (decode context parallel asks for them)
    add("dcp-nemotron-nas", "model:kv-heads-nemotron-nas", "Nemotron-NAS block configs with decode context parallel "
        "(the first block has no attention)", ["models/cvo_nemotron_nas", "--trust-remote-code", "-tp", "4",
                                               "--decode-context-parallel-size", "2"])
    add("dcp-nemotron-nas-no-attn", "model:kv-heads-nemotron-nas-none", "Nemotron-NAS without any attention block, "
        "with decode context parallel", ["models/cvo_nemotron_nas_noattn", "--trust-remote-code", "-tp", "4",
                                         "--decode-context-parallel-size", "2"])
    # ---- dual-chunk attention with a sparse_attention_config.json beside config.json
    add("dca-sparse", "model:dual-chunk-sparse", "dual-chunk attention with a sparse attention config file",
        ["models/cvo_qwen2_dca_sparse"])
    add("dca-sparse-enabled-given", "model:dual-chunk-sparse-given", "dual-chunk attention with a sparse attention "
        "config file and sparse_attention_enabled given", ["models/cvo_qwen2_dca_sparse_on"])
    # ---- nested hf_overrides: a dict inside a dict of a sub-config
    add("hf-overrides-nested-dict", "model:hf-overrides-nested-dict", "--hf-overrides two dicts deep into the vision "
        "sub-config", ["models/jinavl", "--hf-overrides", js({"vision_config": {"label2id": {"LABEL_0": {"a": 1}}}})])
    # ---- -O mode given by name
    add("cc-mode-name-lower", "compilation:mode-by-name", "-O mode by name in lower case",
        [LLAMA, "-O", js({"mode": "vllm_compile"})])
    add("cc-mode-name-bad", "compilation:mode-unknown", "-O mode with an unknown name", [LLAMA, "-O", js({"mode": "FAST"})])
    # ---- deprecated VLLM_MM_INPUT_CACHE_GIB
    add("mm-cache-env", "engine-args:mm-input-cache-env", "VLLM_MM_INPUT_CACHE_GIB on a text model",
        [LLAMA], env={"VLLM_MM_INPUT_CACHE_GIB": "8"})
    add("mm-cache-env-jinavl-2", "engine-args:mm-input-cache-env-mm", "VLLM_MM_INPUT_CACHE_GIB on a multimodal model",
        ["models/jinavl"], env={"VLLM_MM_INPUT_CACHE_GIB": "2"})
    # ---- --mm-encoder-tp-mode data on a model whose encoder does not support it
    add("mm-tp-data-whisper", "model:mm-tp-mode-unsupported", "--mm-encoder-tp-mode data on Whisper (no data-"
        "parallel encoder)", ["models/whisper", "--mm-encoder-tp-mode", "data"])
    # ---- the pooler override as a dict (VllmConfig built directly)
    cfg("cfg-override-pooler-dict", "model:override-pooler-dict", "deprecated override_pooler_config as a dict",
        {"model_config": {"override_pooler_config": {"pooling_type": "MEAN"}}}, model="bert")
    # ---- a config.json whose dtype is only its encoder_config's
    add("encoder-config-dtype", "model:find-dtype-encoder", "no torch_dtype, an encoder_config without one",
        ["models/cvo_llama_encoder_cfg"])
    # ---- async scheduling with an executor that does not support it (a custom Executor's import path: no Ray)
    add("async-custom-executor", "engine-args:async-executor vllm:async-executor", "--async-scheduling with a custom "
        "executor class", [LLAMA, "--async-scheduling", "--distributed-executor-backend", "my_executors.Custom"])
    cfg("cfg-async-auto-custom-executor", "vllm:async-auto-executor", "0.11.1's async scheduling left to vLLM with a "
        "custom executor class (the seed refuses None)", {"scheduler_config": {"async_scheduling": None},
                                                          "parallel_config": {"distributed_executor_backend":
                                                                              "my_executors.Custom"}})
    # ---- drafts recognised by their model type, whose classes lack the input-embeddings method
    add("spec-medusa-type", "speculative:medusa-by-type", "a Medusa draft recognised by its config.json model_type",
        [LLAMA, "--speculative-config", js({"model": "models/cvo_medusa", "num_speculative_tokens": 2})])
    add("mtp-longcat", "speculative:mtp-longcat", "MTP on a LongCat-Flash target",
        ["models/cvo_longcat", "--speculative-config", js({"method": "mtp", "num_speculative_tokens": 1})])
    # ---- batch 2: 0.11.1's suffix decoding given num_speculative_tokens (the seed's Literal refuses the method),
    # -O pass_config null (0.11.1's before-validator passes it on to pydantic)
    add("spec-suffix-k-2", "speculative:suffix-model", "suffix decoding with num_speculative_tokens (Arctic Inference "
        "not installed; the seed refuses the method)", [LLAMA, "--speculative-config",
                                                       js({"method": "suffix", "num_speculative_tokens": 2})])
    add("cc-pass-config-null", "compilation:pass-config-not-dict", "-O pass_config null",
        [LLAMA, "-O", js({"pass_config": None})])
    add("ct-block-fp8", "vllm:has-blocked-weights", "a compressed-tensors checkpoint with block-quantized FP8 weights "
        "(+quant_fp8)", ["models/cvo_llama_ct_block"])
    cfg("cfg-spec-suffix", "speculative:method-literal", "suffix decoding in a config built directly (the seed's "
        "SpeculativeConfig refuses the method; 0.11.1 needs Arctic Inference)",
        {"speculative_config": {"method": "suffix", "num_speculative_tokens": 2}})
    # ---- 2026-12-07 (second session): an inductor pass named without its module (0.34.0's k1200)
    add("cc-inductor-pass-no-module", "compilation:inductor-pass-module", "--compilation-config inductor_passes "
        "naming a pass without its module", [LLAMA, "--compilation-config", js({"inductor_passes": {"p": "dedent"}})])
    return out


NOT_WRITTEN = {
    "n329-spec-suffix-k": "as n156: suffix decoding is not modelled (the seed's schema does not list the method; "
    "0.11.1's needs arctic-inference): refused at the door",
    "n323-hybrid-mla-disabled-no-nope": "0.11.1 sizes this MLA-disabled hybrid's pages otherwise than the seed "
    "(attention block 80, mamba page 20480; postinit 48 and 24576): not modelled",
    "n219-api-process-rank": "--api-server-count is a `vllm serve` frontend flag: the oracle's EngineArgs parser "
    "refuses it, postinit's serve parser accepts it (a harness difference, no vLLM config site)",
    "n229-detailed-traces-comma": "the comma-split of collect_detailed_traces is dead code (pydantic refuses "
    "'model,worker' first) and OpenTelemetry is not installed: nothing beyond n071",
    "n245-cc-inductor-pass-name": "the seed and 0.11.1 fail resolving a pass by qualified name while parsing "
    "(KeyError 'join' from their own resolver): no config site",
    "n253-spec-medusa": "a Medusa draft is recognised from the draft's config.json model_type, which postinit does "
    "not read (only the target's)",
    "n254-spec-mlp-speculator-tp2": "the MLP speculator architecture is refused by the draft ModelConfig at the seed "
    "and 0.11.1 (no site of the speculative config reached)",
    "n255-spec-mlp-speculator": "as n254",
    "n248-cc-mode-name": "-O mode by name: the seed refuses it with pydantic's int-parsing text, which postinit's "
    "loader does not reproduce (0.11.1 accepts it)",
    "n249-cc-mode-bad": "as n248, and 0.11.1's own refusal text of an unknown mode name",
    "n270-mm-cache-env-jinavl": "VLLM_MM_INPUT_CACHE_GIB is not in postinit's environment schema (its deprecation "
    "warning and the cache size it sets)",
    "n290-whisper-tp-data": "the seed / 0.11.1 registry data postinit holds has no supports_encoder_tp_data fact "
    "(the data-mode fallback is modelled for 0.34.0 only)",
}
"""Cases of the list that are not written (their numbers stay taken, so later cases keep theirs) -> why."""


NOT_WRITTEN_0340 = {
    "s-n298-hf-overrides-nested": "JinaVL at 0.34.0 (runner auto resolves to pooling) is not modelled for 0.34.0",
    "s-n299-dcp-mpt": "0.34.0 refuses MPT as an architecture supported until v0.28.0, a message postinit does not hold",
    "s-n300-jamba-no-kv-key": "0.34.0's transformers 5 refuses num_key_value_heads None (a strict dataclass field "
    "validation) while the config is built: not modelled",
    "s-n314-vision-dtype": "as s-n298 (JinaVL at 0.34.0)",
    "s-n339-dcp-nemotron-nas-no-attn": "0.34.0 refuses a Nemotron-NAS config without an attention block while "
    "building the ModelConfig, with a message of its own postinit does not hold for 0.34.0",
    "s-n352-spec-medusa-type": "0.34.0 has no Medusa config class: transformers 5 refuses the draft's model type "
    "medusa while vLLM parses its config (an error record, then the refusal), not modelled for 0.34.0",
    "s-n358-cc-inductor-pass-no-module": "the same line as 0.34.0's k1200 (-cc there)",
}
"""0.34.0 forms (``s-n###``) of written cases that are not written: 0.34.0's answer is one postinit does not give."""


def cases() -> list[tuple[str, dict[str, Any]]]:
    out = targeted()
    out += [random_line(RNG) for _ in range(40)]
    out += second()
    out += third()
    out += fourth()
    out += fifth()
    return out


def write_0340() -> int:
    """Write cases-0.34.0/s-n*.json exactly as gen_cases_0340.py copies a seed argv case (only those files)."""
    sys.path.insert(0, str(HERE))
    import gen_cases_0340  # the module builds its case list on import; its main() is not called

    for old in OUT_0340.glob("s-n[0-9][0-9][0-9]-*.json"):
        old.unlink()
    n = 0
    for name, case in gen_cases_0340.CASES:
        if name.startswith("s-n") and name[3:6].isdigit() and name not in NOT_WRITTEN_0340:
            body = {"name": name, **case}
            (OUT_0340 / f"{name}.json").write_text(json.dumps(body, indent=1, sort_keys=True) + "\n")
            n += 1
    return n


def main(args: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dry-run", action="store_true")
    parser.add_argument("--s0340", action="store_true", help="also write cases-0.34.0/s-n*.json")
    ns = parser.parse_args(args)
    found = cases()
    if not ns.dry_run:
        for old in OUT.glob("n[0-9][0-9][0-9]-*.json"):
            old.unlink()
        for n, (slug, case) in enumerate(found, start=1):
            name = f"n{n:03d}-{slug}"
            if name not in NOT_WRITTEN:
                (OUT / f"{name}.json").write_text(json.dumps({"name": name, **case}, indent=1) + "\n")
    print(f"{len(found) - len(NOT_WRITTEN)} coverage cases{'' if ns.dry_run else f' written to {OUT}'}")
    if ns.s0340 and not ns.dry_run:
        print(f"{write_0340()} s-n cases written to {OUT_0340}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
