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


def cases() -> list[tuple[str, dict[str, Any]]]:
    out = targeted()
    out += [random_line(RNG) for _ in range(40)]
    out += second()
    return out


def write_0340() -> int:
    """Write cases-0.34.0/s-n*.json exactly as gen_cases_0340.py copies a seed argv case (only those files)."""
    sys.path.insert(0, str(HERE))
    import gen_cases_0340  # the module builds its case list on import; its main() is not called

    for old in OUT_0340.glob("s-n[0-9][0-9][0-9]-*.json"):
        old.unlink()
    n = 0
    for name, case in gen_cases_0340.CASES:
        if name.startswith("s-n") and name[3:6].isdigit():
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
            (OUT / f"{name}.json").write_text(json.dumps({"name": name, **case}, indent=1) + "\n")
    print(f"{len(found)} coverage cases{'' if ns.dry_run else f' written to {OUT}'}")
    if ns.s0340 and not ns.dry_run:
        print(f"{write_0340()} s-n cases written to {OUT_0340}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
