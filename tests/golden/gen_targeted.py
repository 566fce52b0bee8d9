"""Deterministic generator of the targeted golden cases (``t###-*.json``): one decision each.

The random and grid cases of ``gen_cases.py`` leave rules that need a specific
input untouched (a deprecated flag, a fixture model with a model-specific hook,
an environment variable, a sub-config check that only an odd value trips).
Each case here names, in ``tags`` (``target=<rule id>``), the rule(s) it is
written to exercise on real vLLM; ``python -m tests.golden.parity --coverage``
reports what real vLLM actually exercised. Written with any Python 3.11+, no
dependencies; the part that varies platforms and values draws from
``random.Random(20261203)`` only, so two runs write byte-identical files::

    python3 tests/golden/gen_targeted.py            # writes tests/golden/cases/t*.json
    python3 tests/golden/gen_targeted.py --dry-run  # prints the count only

Fixture models beyond the oracle's ten live in ``models/`` as well (config.json
only; copy them into the oracle's ``models/`` before running it, see
oracle_cli.md).
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path
from typing import Any

SEED = 20261203
HERE = Path(__file__).resolve().parent
OUT = HERE / "cases"
H100 = "cuda:90"


def cfg(targets: str, description: str, *, platform: Any = H100, env: dict[str, str | None] | None = None,
        model: str | None = "llama", **configs: Any) -> dict[str, Any]:
    """A config-mode case (the sub-configs are keyword arguments of the real vLLM classes)."""
    case: dict[str, Any] = {"description": description, "tags": [f"target={t}" for t in targets.split()],
                            "platform": platform, "env": dict(env or {}), "model": model}
    if platform == "cpu" or (isinstance(platform, dict) and platform.get("kind") == "cpu"):
        case["env"].setdefault("VLLM_CPU_KVCACHE_SPACE", "4")
    case.update(configs)
    return case


def argv(targets: str, description: str, args: list[str], *, platform: Any = H100,
         env: dict[str, str] | None = None, usage_context: str = "OPENAI_API_SERVER") -> dict[str, Any]:
    """An argv-mode case (``vllm serve`` flags through EngineArgs)."""
    case: dict[str, Any] = {"description": description, "tags": [f"target={t}" for t in targets.split()],
                            "argv": args, "usage_context": usage_context, "platform": platform,
                            "env": dict(env or {})}
    if platform == "cpu":
        case["env"].setdefault("VLLM_CPU_KVCACHE_SPACE", "4")
    return case


CPU_NO_IPEX = {"kind": "cpu", "ipex_available": False}
ROCM_AITER = {"kind": "rocm", "gcn_arch": "gfx942", "aiter_found": True}
EAGLE = {"method": "eagle", "model": "llama_draft", "num_speculative_tokens": 2}
NGRAM = {"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}


def compilation_cases() -> list[tuple[str, dict[str, Any]]]:
    return [
        ("custom-op-syntax", cfg("compilation.custom-op-syntax", "custom_ops entry without +/-",
                                 compilation_config={"custom_ops": ["rms_norm"]})),
        ("custom-ops-all-none", cfg("compilation.custom-ops-all-none-count", "custom_ops with both all and none",
                                    compilation_config={"custom_ops": ["all", "none"]})),
        ("full-cuda-graph", cfg("compilation.full-cuda-graph", "deprecated full_cuda_graph=True",
                                compilation_config={"full_cuda_graph": True})),
        ("full-cuda-graph-fap", cfg("quirk.full-cuda-graph-collapses-mode compilation.full-cuda-graph",
                                    "full_cuda_graph=True with FULL_AND_PIECEWISE collapses to FULL",
                                    compilation_config={"full_cuda_graph": True,
                                                        "cudagraph_mode": "FULL_AND_PIECEWISE"})),
        ("full-cuda-graph-piecewise", cfg("compilation.full-cuda-graph", "full_cuda_graph=True with PIECEWISE",
                                          compilation_config={"full_cuda_graph": True,
                                                              "cudagraph_mode": "PIECEWISE"})),
        ("use-cudagraph-false", cfg("compilation.use-cudagraph-false", "deprecated use_cudagraph=False",
                                    compilation_config={"use_cudagraph": False})),
        ("use-cudagraph-false-full", cfg("compilation.use-cudagraph-false", "use_cudagraph=False with FULL",
                                         compilation_config={"use_cudagraph": False, "cudagraph_mode": "FULL"})),
        ("level-3", cfg("compilation.level-to-mode", "deprecated level=3",
                        compilation_config={"level": 3})),
        ("mode-4", cfg("compilation.mode-range", "compilation mode 4 (out of range)",
                       compilation_config={"mode": 4})),
        ("piecewise-backend", cfg("compilation.piecewise-backend", "VLLM_COMPILE with a custom backend",
                                  compilation_config={"mode": 3, "backend": "my_backend"})),
        ("use-inductor-false", cfg("compilation.use-inductor-backend", "deprecated use_inductor=False",
                                   compilation_config={"use_inductor": False})),
        ("fusion-without-noop", cfg("compilation.fusion-without-noop", "fusion pass without no-op elimination",
                                    compilation_config={"pass_config": {"enable_fusion": True,
                                                                        "enable_noop": False}})),
        ("attn-fusion", cfg("compilation.attn-fusion-forces-full", "attention fusion forces FULL cudagraphs",
                            compilation_config={"pass_config": {"enable_attn_fusion": True, "enable_noop": True}})),
        ("empty-splitting-ops", cfg("compilation.empty-splitting-ops-mode",
                                    "VLLM_COMPILE + PIECEWISE with empty splitting_ops",
                                    compilation_config={"mode": 3, "splitting_ops": [],
                                                        "cudagraph_mode": "PIECEWISE"})),
        ("empty-splitting-ops-fap", cfg("compilation.empty-splitting-ops-mode",
                                        "VLLM_COMPILE + FULL_AND_PIECEWISE with empty splitting_ops",
                                        compilation_config={"mode": 3, "splitting_ops": []})),
        ("debug-dump-path", cfg("compilation.debug-dump-path", "debug_dump_path made absolute (normalised)",
                                compilation_config={"debug_dump_path": "/tmp/./postinit-dump"})),
        ("debug-dump-path-env", cfg("compilation.debug-dump-path-env", "VLLM_DEBUG_DUMP_PATH without a config path",
                                    env={"VLLM_DEBUG_DUMP_PATH": "/tmp/postinit-dump-env"})),
        ("debug-dump-path-env-same", cfg("compilation.debug-dump-path-env",
                                         "VLLM_DEBUG_DUMP_PATH equal to the config path still warns",
                                         env={"VLLM_DEBUG_DUMP_PATH": "/tmp/postinit-dump"},
                                         compilation_config={"debug_dump_path": "/tmp/postinit-dump"})),
        ("debug-dump-path-env-other", cfg("compilation.debug-dump-path-env",
                                          "VLLM_DEBUG_DUMP_PATH overrides another config path",
                                          env={"VLLM_DEBUG_DUMP_PATH": "/tmp/postinit-dump-env"},
                                          compilation_config={"debug_dump_path": "/tmp/postinit-dump"})),
        # only the keyword: vLLM de-duplicates compile_sizes through a set, and a set mixing ints with the
        # string iterates in an order that depends on the process's string hash seed (not reproducible)
        ("compile-sizes", cfg("cudagraph.compile-sizes", "compile_sizes with the capture-size keyword",
                              compilation_config={"compile_sizes": ["cudagraph_capture_sizes"],
                                                  "cudagraph_capture_sizes": [1, 2, 4]})),
        ("compile-sizes-bad", cfg("cudagraph.compile-sizes", "compile_sizes with an unknown keyword",
                                  compilation_config={"compile_sizes": ["all_sizes"]})),
    ]


def platform_cases() -> list[tuple[str, dict[str, Any]]]:
    return [
        ("cpu-no-ipex-block-32", cfg("cpu.block-size-requires-ipex", "CPU without IPEX, block size 32",
                                     platform=CPU_NO_IPEX, cache_config={"block_size": 32})),
        ("cpu-no-ipex-default", cfg("cpu.block-size-default", "CPU without IPEX: 16-token blocks",
                                    platform=CPU_NO_IPEX)),
        ("cpu-fp8-e4m3", cfg("cpu.fp8-e4m3-to-e5m2", "CPU fp8_e4m3 KV cache becomes fp8_e5m2",
                             platform="cpu", cache_config={"cache_dtype": "fp8_e4m3"})),
        ("cpu-fp8-fp16", cfg("cpu.fp8-kv-fp16-to-bf16", "CPU fp8 KV cache with a float16 model",
                             platform="cpu", cache_config={"cache_dtype": "fp8"},
                             model_config={"dtype": "float16"})),
        ("cpu-fp8-chunked-prefill", cfg("cpu.fp8-kv-incompatible", "CPU fp8 KV cache with chunked prefill",
                                        platform="cpu", cache_config={"cache_dtype": "fp8"},
                                        scheduler_config={"enable_chunked_prefill": True})),
        ("cpu-lora", cfg("cpu.lora-disables-compile", "CPU with LoRA", platform="cpu",
                         lora_config={"max_lora_rank": 16, "max_loras": 2})),
        ("cpu-device-cuda", cfg("cpu.device-type", "CPU platform with device cuda", platform="cpu",
                                device_config={"device": "cuda"})),
        ("cpu-tp2-external-launcher", cfg("cpu.executor-backend-mp", "CPU TP 2 with the external launcher",
                                          platform="cpu",
                                          parallel_config={"tensor_parallel_size": 2,
                                                           "distributed_executor_backend": "external_launcher"})),
        ("flashinfer-mla", cfg("cuda.mla-block-size-flashinfer", "FLASHINFER_MLA on an MLA model",
                               env={"VLLM_ATTENTION_BACKEND": "FLASHINFER_MLA"}, model="deepseek_v3")),
        ("flashinfer-mla-b200", cfg("cuda.mla-block-size-flashinfer", "FLASHINFER_MLA on Blackwell",
                                    platform="cuda:100", env={"VLLM_ATTENTION_BACKEND": "FLASHINFER_MLA"},
                                    model="deepseek_v3")),
        ("deepseek-v32", cfg("cuda.mla-block-size-sparse", "DeepSeek-V3.2 (index_topk): sparse MLA",
                             model="deepseek_v32")),
        ("deepseek-v32-fp8", cfg("models.deepseek-v32-cache-dtype cuda.mla-block-size-sparse",
                                 "DeepSeek-V3.2 with an fp8 KV cache", model="deepseek_v32",
                                 cache_config={"cache_dtype": "fp8"})),
        ("deepseek-v32-noindex", cfg("models.deepseek-v32-cache-dtype", "DeepSeek-V3.2 config without index_topk",
                                     model="deepseek_v32_noindex")),
        ("rocm-aiter-eager", cfg("quirk.rocm-rms-norm-under-eager rocm.aiter-rms-norm",
                                 "ROCm AITER rms_norm under enforce_eager", platform=ROCM_AITER,
                                 env={"VLLM_ROCM_USE_AITER": "1"}, model_config={"enforce_eager": True})),
        ("rocm-awq", cfg("verify.rocm-triton-awq", "ROCm with an AWQ checkpoint", platform="rocm",
                         model="llama_awq")),
        ("rocm-bnb", cfg("verify.rocm-quant-allowlist", "ROCm with a bitsandbytes checkpoint", platform="rocm",
                         model="llama_bnb8")),
    ]


def sub_config_cases() -> list[tuple[str, dict[str, Any]]]:
    return [
        ("fp8-kv-cache", cfg("cache.fp8-kv-cache-info", "fp8 KV cache on H100", cache_config={"cache_dtype": "fp8"})),
        ("kv-transfer-no-role", cfg("kv-transfer.role-required", "KV connector without kv_role",
                                    kv_transfer_config={"kv_connector": "SharedStorageConnector"})),
        ("kv-events-publisher-disabled", cfg("kv-events.publisher-without-events",
                                             "a zmq publisher with events disabled",
                                             kv_events_config={"enable_kv_cache_events": False,
                                                               "publisher": "zmq"})),
        ("lora-cpu-loras", cfg("lora.max-cpu-loras-check", "max_cpu_loras below max_loras",
                               lora_config={"max_loras": 2, "max_cpu_loras": 1})),
        ("batch-invariant", cfg("model.batch-invariant-eager parallel.batch-invariant-custom-allreduce",
                                "VLLM_BATCH_INVARIANT=1", env={"VLLM_BATCH_INVARIANT": "1"})),
        ("dp-rank", cfg("parallel.data-parallel-rank-range", "data_parallel_rank outside the DP group",
                        parallel_config={"data_parallel_size": 2, "data_parallel_rank": 3})),
        ("dp-size-local", cfg("parallel.data-parallel-size-local-range", "data_parallel_size_local above DP",
                              parallel_config={"data_parallel_size": 2, "data_parallel_size_local": 4})),
        ("external-lb", cfg("parallel.external-lb-needs-dp", "external DP load balancing without DP",
                            parallel_config={"data_parallel_external_lb": True})),
        ("eplb-deprecated", cfg("parallel.eplb-deprecated-fields", "deprecated num_redundant_experts with EPLB",
                                model="deepseek_v3",
                                parallel_config={"tensor_parallel_size": 2, "enable_expert_parallel": True,
                                                 "enable_eplb": True, "num_redundant_experts": 2,
                                                 "eplb_window_size": 500})),
        ("eplb-no-ep", cfg("parallel.eplb-requirements", "EPLB without expert parallelism",
                           parallel_config={"enable_eplb": True})),
        ("external-launcher", cfg("parallel.external-launcher-disables-multiprocessing", "external_launcher backend",
                                  parallel_config={"distributed_executor_backend": "external_launcher"})),
        ("external-launcher-v0", cfg("verify.external-launcher-seed", "external_launcher under V0 (no seed)",
                                     env={"VLLM_USE_V1": "0"},
                                     parallel_config={"distributed_executor_backend": "external_launcher"})),
        ("max-parallel-loading-workers", cfg("parallel.max-parallel-loading-workers-ignored",
                                             "max_parallel_loading_workers set",
                                             parallel_config={"max_parallel_loading_workers": 2})),
        ("async-scheduling", cfg("scheduler.async-scheduler-cls", "async_scheduling=True",
                                 scheduler_config={"async_scheduling": True})),
        ("budget-below-seqs", cfg("scheduler.budget-below-max-num-seqs", "budget below max_num_seqs",
                                  scheduler_config={"max_num_batched_tokens": 64, "max_num_seqs": 128,
                                                    "enable_chunked_prefill": True})),
        ("budget-exceeds", cfg("scheduler.budget-exceeds-seqs-times-len", "budget above max_num_seqs x len",
                               scheduler_config={"max_num_seqs": 1, "max_num_batched_tokens": 8192})),
        ("partial-prefills", cfg("scheduler.long-prefill-threshold-default", "concurrent partial prefills",
                                 scheduler_config={"max_num_partial_prefills": 2, "enable_chunked_prefill": True})),
        ("partial-prefills-no-cp", cfg("scheduler.partial-prefill-limits",
                                       "concurrent partial prefills without chunked prefill",
                                       scheduler_config={"max_num_partial_prefills": 2,
                                                         "enable_chunked_prefill": False,
                                                         "max_num_batched_tokens": 4096})),
        ("spec-ngram-by-model", cfg("speculative.method-from-model-name", "speculative model 'ngram', no method",
                                    speculative_config={"model": "ngram", "num_speculative_tokens": 3,
                                                        "prompt_lookup_max": 4})),
        ("spec-eagle-no-model", cfg("speculative.draft-model-from-method", "EAGLE without a draft model",
                                    speculative_config={"method": "eagle", "num_speculative_tokens": 2})),
        ("spec-draft-tp", cfg("speculative.draft-tensor-parallel-size", "EAGLE draft TP 2 under target TP 4",
                              parallel_config={"tensor_parallel_size": 4},
                              speculative_config={**EAGLE, "draft_tensor_parallel_size": 2})),
        ("spec-lookup-min-max", cfg("speculative.prompt-lookup-defaults", "n-gram lookup min above max",
                                    speculative_config={"method": "ngram", "num_speculative_tokens": 3,
                                                        "prompt_lookup_min": 5, "prompt_lookup_max": 3})),
        ("spec-ngram-dcp-kv-heads", cfg("speculative.draft-verify-with-parallel-config",
                                        "n-gram draft verified: TP 2 heads divisible check",
                                        parallel_config={"tensor_parallel_size": 3},
                                        speculative_config=NGRAM)),
        ("mtp-pp2", cfg("speculative.draft-verify-with-parallel-config", "MTP draft under pipeline parallelism 2",
                        model="deepseek_v3", parallel_config={"pipeline_parallel_size": 2},
                        speculative_config={"method": "deepseek_mtp", "num_speculative_tokens": 1})),
        ("chunked-local-eagle", cfg("scheduler.hma-off-chunked-local-eagle",
                                    "chunked local attention with an EAGLE draft", model="llama_chunked",
                                    speculative_config=EAGLE)),
        ("lora-no-model", cfg("verify.lora-dtype", "LoRA without a model config", model=None,
                              lora_config={"max_lora_rank": 16})),
    ]


def verify_cases() -> list[tuple[str, dict[str, Any]]]:
    return [
        ("ep-dense", cfg("verify.expert-parallel-needs-experts", "expert parallelism on a dense model",
                         parallel_config={"enable_expert_parallel": True})),
        ("lora-offload-v0", cfg("verify.lora-cpu-offload-v0", "V0 LoRA with CPU offload",
                                env={"VLLM_USE_V1": "0"}, lora_config={"max_lora_rank": 16},
                                cache_config={"cpu_offload_gb": 1})),
        ("pp-bert", cfg("verify.pipeline-parallel-supported", "pipeline parallelism on BERT", model="bert",
                        parallel_config={"pipeline_parallel_size": 2})),
        ("fp8-fp32", cfg("verify.quant-act-dtype", "fp8 checkpoint with float32", model="llama_fp8_block",
                         model_config={"dtype": "float32"})),
        ("fp8-sm75", cfg("verify.quant-capability", "fp8 checkpoint on Turing", platform="cuda:75",
                         model="llama_fp8_block")),
        ("swap-space-warning", cfg("verify.swap-space", "swap space above 40% of host memory",
                                   cache_config={"swap_space": 500})),
        ("swap-space-error", cfg("verify.swap-space", "swap space above 70% of host memory",
                                 cache_config={"swap_space": 800})),
        ("dual-chunk", cfg("verify.dual-chunk-attention", "a dual-chunk-attention model", model="qwen2_dual_chunk")),
    ]


def model_cases() -> list[tuple[str, dict[str, Any]]]:
    return [
        ("gemma3-fp16", cfg("model.dtype-float16-unsupported", "Gemma-3 in float16", model="gemma3_text",
                            model_config={"dtype": "float16"})),
        ("gemma3", cfg("model.dtype", "Gemma-3 text decoder (interleaved sliding window)", model="gemma3_text")),
        ("gemma3-v0-xformers", cfg("model.v0-interleaved-disables-sliding-window",
                                   "Gemma-3 on V0 with XFORMERS", model="gemma3_text",
                                   env={"VLLM_USE_V1": "0", "VLLM_ATTENTION_BACKEND": "XFORMERS"})),
        ("gemma3-embed", cfg("models.gemma3-text-is-causal scheduler.non-causal-blocks-cp",
                             "EmbeddingGemma-style bidirectional Gemma3TextModel", model="gemma3_embed")),
        ("gpt-oss", cfg("models.gptoss-reasoning-parser models.gptoss-max-capture-size", "gpt-oss",
                        model="gpt_oss")),
        ("gpt-oss-sizes", cfg("models.gptoss-reasoning-parser", "gpt-oss with user capture sizes",
                              model="gpt_oss", compilation_config={"cudagraph_capture_sizes": [1, 2, 4]})),
        ("qwen2-rm", cfg("models.qwen2-rm-softmax", "Qwen2 reward model", model="qwen2_rm")),
        ("qwen2-prm", cfg("models.qwen2-prm-step-tag-id", "Qwen2 process reward model", model="qwen2_prm")),
        ("qwen3-reranker", cfg("models.qwen3-reranker-method", "original Qwen3 reranker", model="qwen3_reranker")),
        ("qwen3-reranker-bad", cfg("models.qwen3-reranker-method", "original Qwen3 reranker without tokens",
                                   model="qwen3_reranker_bad")),
        ("jamba-cls", cfg("models.jamba-cls-activation", "Jamba sequence classifier", model="jamba_cls")),
        ("mamba", cfg("models.mamba-cascade-off models.mamba-block-size-default", "attention-free Mamba",
                      model="mamba")),
        ("unknown-arch", cfg("model.architecture-supported", "an architecture vLLM does not know",
                             model="llama_unknown_arch", model_config={"model_impl": "vllm"})),
        ("unknown-arch-auto", cfg("model.architecture", "an unknown architecture with model_impl auto",
                                  model="llama_unknown_arch")),
        ("bert-matryoshka", cfg("model.is-matryoshka", "a Matryoshka embedding model", model="bert_matryoshka")),
        ("llama-mrope", cfg("model.uses-mrope", "rope_scaling with an mrope_section", model="llama_mrope")),
        ("llama-bnb8", cfg("model.bnb-8bit-eager", "a bitsandbytes 8-bit checkpoint", model="llama_bnb8")),
        ("llama-seqcls", cfg("models.seq-cls-config", "LLaMA as a from_2_way_softmax classifier",
                             model="llama_seqcls", model_config={"runner": "pooling", "convert": "classify"})),
        ("llama-seqcls-bad", cfg("models.seq-cls-config", "from_2_way_softmax with three tokens",
                                 model="llama_seqcls_bad", model_config={"runner": "pooling", "convert": "classify"})),
        ("runner-unsupported", cfg("model.runner-supported", "pooling runner without a converter",
                                   model_config={"runner": "pooling", "convert": "none"})),
    ]


REMOTE = {"trust_remote_code": True}
"""The fixture's config class comes from the fixture directory (a named PretrainedConfig subclass, no weights)."""


def remote_code_cases() -> list[tuple[str, dict[str, Any]]]:
    return [
        ("gte", cfg("models.gte-new-rotary", "Snowflake GteModel (GteConfig)", model="gte", model_config=REMOTE)),
        ("gte-new", cfg("models.gte-new-rotary", "GteNewModel (NewConfig)", model="gte_new", model_config=REMOTE)),
        ("gte-bad-act", cfg("models.gte-new-rotary", "GteModel whose hidden_act is not gelu", model="gte_bad_act",
                            model_config=REMOTE)),
        ("nomic", cfg("models.nomic-bert-config models.nomic-bert-max-model-len", "NomicBertModel",
                      model="nomic", model_config=REMOTE)),
        ("nomic-max-len", cfg("models.nomic-bert-max-model-len", "NomicBertModel with a user max_model_len",
                              model="nomic", model_config={**REMOTE, "max_model_len": 4096})),
        ("nomic-bad-act", cfg("models.nomic-bert-config", "NomicBertModel with an unsupported activation",
                              model="nomic_bad_act", model_config=REMOTE)),
        ("jina-xlm-roberta", cfg("models.jina-roberta-rotary", "Jina XLM-RoBERTa with rotary embeddings",
                                 model="jina_xlm_roberta", model_config=REMOTE)),
        ("jina-xlm-roberta-eager", cfg("models.jina-roberta-rotary", "Jina XLM-RoBERTa, enforce_eager",
                                       model="jina_xlm_roberta", model_config={**REMOTE, "enforce_eager": True})),
    ]


def hybrid_cases() -> list[tuple[str, dict[str, Any]]]:
    apc = {"enable_prefix_caching": True}
    return [
        ("bamba", cfg("models.hybrid-attention-block-size", "Bamba (hybrid, mamba prefix caching)", model="bamba")),
        ("bamba-apc", cfg("models.mamba-prefix-caching models.hybrid-attention-block-size",
                          "Bamba with prefix caching", model="bamba", cache_config=apc)),
        ("bamba-apc-cls-pooling", cfg("quirk.mamba-block-size-without-apc",
                                      "Bamba with prefix caching as a CLS-pooling embedder", model="bamba",
                                      cache_config=apc,
                                      model_config={"runner": "pooling", "convert": "embed",
                                                    "pooler_config": {"pooling_type": "CLS"}})),
        ("bamba-nochunk-apc", cfg("models.hybrid-attention-block-size", "Bamba without mamba_chunk_size, APC on",
                                  model="bamba_nochunk", cache_config=apc)),
    ]


def more_cases() -> list[tuple[str, dict[str, Any]]]:
    return [
        ("deepseek-v32-b200", cfg("cuda.mla-block-size-sparse", "DeepSeek-V3.2 on Blackwell (CUTLASS MLA, then sparse)",
                                  platform="cuda:100", model="deepseek_v32")),
        ("jinavl-ranking", cfg("models.jinavl-ranking", "Jina VL reranker (Qwen2-VL based)", model="jinavl")),
        ("quantization-mismatch", cfg("model.quantization", "an AWQ checkpoint with --quantization fp8",
                                      model="llama_awq", model_config={"quantization": "fp8"})),
        ("cpu-kvcache-space-unset", cfg("cpu.kvcache-space", "CPU without VLLM_CPU_KVCACHE_SPACE",
                                        platform="cpu", env={"VLLM_CPU_KVCACHE_SPACE": None})),
    ]


def argv_cases() -> list[tuple[str, dict[str, Any]]]:
    return [
        ("argv-async-pp", argv("engine-args.async-scheduling-pipeline-parallel", "--async-scheduling -pp 2",
                               ["--model", "models/llama", "--async-scheduling", "-pp", "2"])),
        ("argv-async-spec", argv("engine-args.async-scheduling-speculative", "--async-scheduling with n-gram",
                                 ["--model", "models/llama", "--async-scheduling", "--speculative-config",
                                  json.dumps(NGRAM)])),
        ("argv-draft-model", argv("engine-args.draft-model-unsupported", "draft_model speculative decoding",
                                  ["--model", "models/llama", "--speculative-config",
                                   json.dumps({"method": "draft_model", "model": "models/llama_draft",
                                               "num_speculative_tokens": 2})])),
        ("argv-logits-pattern", argv("engine-args.v1-oracle-fallback", "--logits-processor-pattern (V0 fallback)",
                                     ["--model", "models/llama", "--logits-processor-pattern", ".*"])),
        ("argv-logits-pattern-v1", argv("engine-args.v1-oracle-required",
                                        "--logits-processor-pattern with VLLM_USE_V1=1",
                                        ["--model", "models/llama", "--logits-processor-pattern", ".*"],
                                        env={"VLLM_USE_V1": "1"})),
        ("argv-partial-prefills", argv("engine-args.v1-oracle-fallback", "--max-num-partial-prefills 2",
                                       ["--model", "models/llama", "--max-num-partial-prefills", "2"])),
        ("argv-mistral-sw", argv("engine-args.cache-sliding-window", "an all-sliding-window model",
                                 ["--model", "models/mistral_sw"])),
        ("argv-mistral-sw-cpu", argv("engine-args.v1-oracle-fallback", "sliding window on CPU (V0 fallback)",
                                     ["--model", "models/mistral_sw"], platform="cpu")),
        ("argv-gemma3", argv("engine-args.cache-sliding-window", "an interleaved sliding-window model",
                             ["--model", "models/gemma3_text"], usage_context="LLM_CLASS")),
        ("argv-mamba", argv("engine-args.cache-attention-free", "an attention-free model",
                            ["--model", "models/mamba"])),
        ("argv-runner-unsupported", argv("model.runner-supported", "--runner pooling --convert none",
                                         ["--model", "models/llama", "--runner", "pooling", "--convert", "none"])),
        ("argv-gpt-oss", argv("models.gptoss-reasoning-parser models.gptoss-max-capture-size", "gpt-oss serve",
                              ["--model", "models/gpt_oss"])),
        ("argv-jamba-cls", argv("models.jamba-cls-activation", "Jamba sequence classifier serve",
                                ["--model", "models/jamba_cls"], usage_context="LLM_CLASS")),
    ]


def varied(rng: random.Random) -> list[tuple[str, dict[str, Any]]]:
    """A few of the targeted decisions again on another platform and budget, drawn from the seed."""
    out = []
    for name in ("qwen2_rm", "qwen2_prm", "qwen3_reranker", "gemma3_embed", "bert_matryoshka"):
        plat = rng.choice(["cuda:80", "cuda:89", "cuda:100", "rocm", "cpu"])
        out.append((f"varied-{name.replace('_', '-')}",
                    cfg("model.runner-type", f"{name} on {plat}", platform=plat, model=name)))
    return out


def hardening_cases() -> list[tuple[str, dict[str, Any]]]:
    """Inputs the hardening issue found odd: how real vLLM fails on them (postinit must fail the same way)."""
    return [
        ("token-tree-syntax", cfg("speculative.token-tree", "an EAGLE token tree that does not parse: '(('",
                                  speculative_config={**EAGLE, "speculative_token_tree": "(("})),
        ("token-tree-int", cfg("speculative.token-tree", "an EAGLE token tree that is not a list: '5'",
                               speculative_config={**EAGLE, "speculative_token_tree": "5"})),
        ("capture-size-negative", argv("cudagraph.padding-table", "--cuda-graph-sizes -1 (vLLM's padding loop)",
                                       ["models/llama", "--cuda-graph-sizes", "-1"])),
        ("capture-size-zero", argv("cudagraph.padding-table", "--cuda-graph-sizes 0 (vLLM accepts it)",
                                   ["models/llama", "--cuda-graph-sizes", "0"])),
        ("eplb-config-overwritten", argv("parallel.eplb-deprecated-fields",
                                         "--eplb-config window_size/num_redundant_experts vs the deprecated flags' "
                                         "defaults", ["models/llama", "--eplb-config",
                                                      '{"window_size": 500, "num_redundant_experts": 2}'])),
        ("deprecated-flags", argv("parallel.eplb-deprecated-fields",
                                  "deprecated flags: their parse-time and create_engine_config warnings",
                                  ["models/llama", "--eplb-window-size", "500", "--num-redundant-experts", "0",
                                   "--enable-multimodal-encoder-data-parallel", "--disable-mm-preprocessor-cache",
                                   "--guided-decoding-backend", "xgrammar", "--task", "generate"])),
        ("task-embed-generative", argv("model.task", "--task embed on a generate-only model",
                                       ["models/llama", "--task", "embed"])),
        ("task-generate-gte", argv("model.task", "--task generate on GteModel",
                                   ["models/gte", "--task", "generate", "--trust-remote-code"])),
        ("task-score-bert", argv("model.task", "--task score on BertModel (pooling only)",
                                 ["models/bert", "--task", "score"])),
        ("task-unknown-arch", argv("model.task", "--task generate on an unregistered architecture",
                                   ["models/llama_unknown_arch", "--task", "generate"])),
    ]


KV_NO_ROLE = '{"kv_connector": "NixlConnector"}'
ALL_AND_NONE = '{"custom_ops": ["all", "none"]}'


def parse_stage_cases() -> list[tuple[str, dict[str, Any]]]:
    """Every JSON-valued flag with a value its sub-config refuses: vLLM's parser builds the sub-config while
    parsing (an argparse.ArgumentError, `vllm serve` exits 2); the same values as a config dict fail where
    VllmConfig's sub-configs are built (issue 22)."""
    llama = "models/llama"
    return [
        # --compilation-config / -O: CompilationConfig.__post_init__ and its fields
        ("parse-o-all-none", argv("compilation.custom-ops-all-none-count", "-O JSON with custom_ops all and none",
                                  [llama, "--compilation-config", ALL_AND_NONE])),
        ("parse-o-dotted-syntax", argv("compilation.custom-op-syntax", "-O.custom_ops+=rms_norm (dotted, no sign)",
                                       [llama, "-O.custom_ops+=rms_norm"])),
        ("parse-o-level-then-assert", argv("compilation.level-to-mode compilation.custom-ops-all-none-count",
                                           "-O with the deprecated level (logs) and custom_ops all and none",
                                           [llama, "-O", '{"level": 3, "custom_ops": ["all", "none"]}'])),
        ("parse-o-use-cudagraph", argv("compilation.use-cudagraph-false", "-O use_cudagraph false with mode FULL",
                                       [llama, "-O", '{"use_cudagraph": false, "cudagraph_mode": "FULL"}'])),
        ("parse-o-field-type", argv("compilation.custom-op-syntax", "-O custom_ops as a string, not a list",
                                    [llama, "-O", '{"custom_ops": "all"}'])),
        ("parse-o-bad-json", argv("compilation.custom-op-syntax", "--compilation-config that is not JSON",
                                  [llama, "--compilation-config", "{mode: 3}"])),
        ("cfg-o-field-type", cfg("compilation.custom-op-syntax", "custom_ops as a string (config mode)", model=None,
                                 compilation_config={"custom_ops": "all"})),
        # --kv-transfer-config: KVTransferConfig
        ("parse-kv-transfer-no-role", argv("kv-transfer.role-required", "--kv-transfer-config without kv_role",
                                           [llama, "--kv-transfer-config", KV_NO_ROLE])),
        ("parse-kv-transfer-dotted", argv("kv-transfer.role-required", "--kv-transfer-config.kv_connector (dotted)",
                                          [llama, "--kv-transfer-config.kv_connector=NixlConnector"])),
        ("parse-kv-transfer-role", argv("kv-transfer.role-required", "--kv-transfer-config with an unknown kv_role",
                                        [llama, "--kv-transfer-config",
                                         '{"kv_connector": "NixlConnector", "kv_role": "kv_sender"}'])),
        ("cfg-kv-transfer-role", cfg("kv-transfer.role-required", "an unknown kv_role (config mode)", model=None,
                                     kv_transfer_config={"kv_connector": "NixlConnector", "kv_role": "kv_sender"})),
        # --kv-events-config: KVEventsConfig
        ("parse-kv-events-publisher", argv("kv-events.publisher-default", "--kv-events-config publisher kafka",
                                           [llama, "--kv-events-config", '{"publisher": "kafka"}'])),
        ("parse-kv-events-hwm", argv("kv-events.publisher-default", "--kv-events-config hwm not a number",
                                     [llama, "--kv-events-config", '{"enable_kv_cache_events": true, "hwm": "x"}'])),
        ("cfg-kv-events-publisher", cfg("kv-events.publisher-default", "publisher kafka (config mode)", model=None,
                                        kv_events_config={"publisher": "kafka"})),
        # --structured-outputs-config: StructuredOutputsConfig
        ("parse-so-whitespace", argv("structured-outputs.any-whitespace-backend",
                                     "--structured-outputs-config disable_any_whitespace with backend auto",
                                     [llama, "--structured-outputs-config", '{"disable_any_whitespace": true}'])),
        ("parse-so-additional", argv("structured-outputs.additional-properties-backend",
                                     "--structured-outputs-config disable_additional_properties with xgrammar",
                                     [llama, "--structured-outputs-config",
                                      '{"backend": "xgrammar", "disable_additional_properties": true}'])),
        ("parse-so-backend", argv("structured-outputs.any-whitespace-backend",
                                  "--structured-outputs-config with an unknown backend",
                                  [llama, "--structured-outputs-config", '{"backend": "regex"}'])),
        ("so-deprecated-flag-unchecked", argv("structured-outputs.any-whitespace-backend",
                                              "--guided-decoding-disable-any-whitespace is assigned after parsing, "
                                              "unchecked", [llama, "--guided-decoding-disable-any-whitespace", "1"])),
        ("cfg-so-whitespace", cfg("structured-outputs.any-whitespace-backend",
                                  "disable_any_whitespace with backend auto (config mode)",
                                  structured_outputs_config={"disable_any_whitespace": True})),
        ("cfg-so-additional", cfg("structured-outputs.additional-properties-backend",
                                  "disable_additional_properties with outlines (config mode)",
                                  structured_outputs_config={"backend": "outlines",
                                                             "disable_additional_properties": True})),
        # --eplb-config: EPLBConfig
        ("parse-eplb-negative", argv("parallel.eplb-requirements", "--eplb-config num_redundant_experts -1",
                                     [llama, "--eplb-config", '{"num_redundant_experts": -1}'])),
        ("parse-eplb-window", argv("parallel.eplb-requirements", "--eplb-config window_size not a number",
                                   [llama, "--eplb-config", '{"window_size": "big"}'])),
        ("cfg-eplb-negative", cfg("parallel.eplb-requirements", "num_redundant_experts -1 (config mode)", model=None,
                                  parallel_config={"eplb_config": {"num_redundant_experts": -1}})),
        # --pooler-config / --override-pooler-config: PoolerConfig
        ("parse-pooler-normalize", argv("model.pooler-config", "--pooler-config normalize 'maybe'",
                                        [llama, "--pooler-config", '{"normalize": "maybe"}'])),
        ("parse-override-pooler", argv("model.pooler-config", "--override-pooler-config dimensions not a number",
                                       [llama, "--override-pooler-config", '{"dimensions": "x"}'])),
        ("cfg-pooler-normalize", cfg("model.pooler-config", "pooler_config normalize 'maybe' (config mode)",
                                     model_config={"pooler_config": {"normalize": "maybe"}})),
        # --speculative-config: only JSON-decoded while parsing; SpeculativeConfig is built in create_engine_config
        ("parse-spec-bad-json", argv("speculative.draft-model-from-method", "--speculative-config that is not JSON",
                                     [llama, "--speculative-config", "{method: ngram}"])),
        ("argv-spec-no-model", argv("speculative.draft-model-from-method",
                                    "--speculative-config EAGLE without a draft model (create_engine_config)",
                                    [llama, "--speculative-config", '{"method": "eagle", "num_speculative_tokens": 2}'])),
        # plain JSON flags: json.loads while parsing
        ("parse-rope-scaling-bad-json", argv("model.max-model-len", "--rope-scaling that is not JSON",
                                             [llama, "--rope-scaling", "{'rope_type': 'yarn'}"])),
        ("parse-hf-overrides-bad-json", argv("model.max-model-len", "--hf-overrides that looks like {...}, not JSON",
                                             [llama, "--hf-overrides", "{max_position_embeddings: 8}"])),
    ]


def precedence_cases() -> list[tuple[str, dict[str, Any]]]:
    """Two or more simultaneous errors in different stages or steps: the one vLLM meets first is reported (#13)."""
    llama = "models/llama"
    kv_bad = ["--kv-transfer-config", KV_NO_ROLE]
    return [
        ("first-parse-before-model", argv("kv-transfer.role-required model.architecture-supported",
                                          "a flag refused while parsing and a model vLLM cannot load",
                                          ["models/llama_unknown_arch", "--model-impl", "vllm", *kv_bad])),
        ("first-parse-in-argv-order", argv("kv-events.publisher-default compilation.custom-ops-all-none-count",
                                           "two JSON flags refused: the first on the command line",
                                           [llama, "--kv-events-config", '{"publisher": "kafka"}', "-O",
                                            ALL_AND_NONE])),
        ("first-parse-in-argv-order-2", argv("compilation.custom-ops-all-none-count kv-events.publisher-default",
                                             "the same two, the other way round",
                                             [llama, "-O", ALL_AND_NONE, "--kv-events-config",
                                              '{"publisher": "kafka"}'])),
        ("first-parse-dotted-last", argv("kv-transfer.role-required compilation.custom-ops-all-none-count",
                                         "dotted -O keys are parsed after every other flag",
                                         [llama, "-O.custom_ops+=all,none", *kv_bad])),
        ("first-parse-before-unknown", argv("kv-transfer.role-required",
                                            "an unknown flag before a refused JSON flag: unknown flags come last",
                                            [llama, "--no-such-flag", *kv_bad])),
        ("first-parse-before-engine-args", argv("compilation.custom-ops-all-none-count engine-args.tp-divisible-by-dcp",
                                                "a refused -O and tp not divisible by dcp",
                                                [llama, "-tp", "2", "-dcp", "4", "-O", ALL_AND_NONE])),
        ("first-model-before-engine-args", argv("model.runner-supported engine-args.tp-divisible-by-dcp",
                                                "--runner pooling on a generative model and tp not divisible by dcp",
                                                [llama, "--runner", "pooling", "--convert", "none", "-tp", "2",
                                                 "-dcp", "4"])),
        ("first-dcp-before-async", argv("engine-args.tp-divisible-by-dcp engine-args.async-scheduling-pipeline-parallel",
                                        "tp not divisible by dcp, and async scheduling with pipeline parallelism",
                                        [llama, "-tp", "2", "-dcp", "4", "--async-scheduling", "-pp", "2"])),
        ("first-async-before-scheduler", argv("engine-args.async-scheduling-pipeline-parallel "
                                              "scheduler.budget-below-max-num-seqs",
                                              "async scheduling with -pp 2, and a budget below max_num_seqs",
                                              [llama, "--async-scheduling", "-pp", "2", "--max-num-seqs", "512",
                                               "--max-num-batched-tokens", "256"])),
        ("first-parallel-before-lora", cfg("parallel.data-parallel-rank-range lora.max-cpu-loras-check",
                                           "a DP rank outside the group, and max_cpu_loras below max_loras",
                                           parallel_config={"data_parallel_size": 2, "data_parallel_rank": 3},
                                           lora_config={"max_loras": 2, "max_cpu_loras": 1})),
        ("first-speculative-before-scheduler", cfg("speculative.prompt-lookup-defaults "
                                                   "scheduler.budget-below-max-num-seqs",
                                                   "n-gram lookup min above max, and a budget below max_num_seqs",
                                                   speculative_config={"method": "ngram", "num_speculative_tokens": 2,
                                                                       "prompt_lookup_min": 5,
                                                                       "prompt_lookup_max": 3},
                                                   scheduler_config={"max_num_batched_tokens": 64,
                                                                     "max_num_seqs": 128})),
        ("first-scheduler-before-kv-transfer", cfg("scheduler.budget-below-max-num-seqs kv-transfer.role-required",
                                                   "a budget below max_num_seqs, and a KV connector without role",
                                                   scheduler_config={"max_num_batched_tokens": 64,
                                                                     "max_num_seqs": 128},
                                                   kv_transfer_config={"kv_connector": "NixlConnector"})),
        ("first-so-before-compilation", cfg("structured-outputs.any-whitespace-backend compilation.custom-op-syntax",
                                            "structured outputs and compilation both refused",
                                            structured_outputs_config={"disable_any_whitespace": True},
                                            compilation_config={"custom_ops": ["rms_norm"]})),
        ("first-model-before-scheduler", cfg("model.dtype-float16-unsupported scheduler.budget-below-max-num-seqs",
                                             "Gemma-3 in float16, and a budget below max_num_seqs",
                                             model="gemma3_text", model_config={"dtype": "float16"},
                                             scheduler_config={"max_num_batched_tokens": 64, "max_num_seqs": 128})),
        ("first-swap-before-quant", cfg("verify.swap-space verify.quant-capability",
                                        "swap space above 70% of host memory (step 4), and fp8 on Turing (step 6)",
                                        platform="cuda:75", model="llama_fp8_block",
                                        cache_config={"swap_space": 800})),
        ("first-heads-before-dbo", cfg("verify.heads-divisible-by-tp parallel.dbo-requires-deepep",
                                       "tp not dividing the heads (step 3), and DBO without DeepEP (step 20)",
                                       model="deepseek_v3",
                                       parallel_config={"tensor_parallel_size": 3, "enable_expert_parallel": True,
                                                        "enable_dbo": True,
                                                        "all2all_backend": "allgather_reducescatter"})),
        # inside CompilationConfig.__post_init__: its statement order
        ("first-use-cudagraph-before-op-syntax", argv("compilation.use-cudagraph-false compilation.custom-op-syntax",
                                                      "-O: use_cudagraph false with mode FULL, and a custom op "
                                                      "without a sign", [llama, "-O", '{"use_cudagraph": false, '
                                                      '"cudagraph_mode": "FULL", "custom_ops": ["rms_norm"]}'])),
        ("first-full-cuda-graph-before-backend", cfg("compilation.full-cuda-graph compilation.piecewise-backend",
                                                     "full_cuda_graph with PIECEWISE, and a custom backend at mode 3",
                                                     compilation_config={"mode": 3, "backend": "my_backend",
                                                                         "full_cuda_graph": True,
                                                                         "cudagraph_mode": "PIECEWISE"})),
        ("first-op-syntax-before-backend", cfg("compilation.custom-op-syntax compilation.piecewise-backend",
                                               "a custom op without a sign, and a custom backend at mode 3",
                                               compilation_config={"mode": 3, "backend": "my_backend",
                                                                   "custom_ops": ["rms_norm"]})),
    ]


def cases() -> list[tuple[str, dict[str, Any]]]:
    rng = random.Random(SEED)
    return (compilation_cases() + platform_cases() + sub_config_cases() + verify_cases() + model_cases()
            + argv_cases() + varied(rng) + remote_code_cases() + hybrid_cases() + more_cases()
            + hardening_cases() + parse_stage_cases() + precedence_cases())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(OUT))
    ap.add_argument("--dry-run", action="store_true")
    args = ap.parse_args()
    out = Path(args.out)
    made = cases()
    if not args.dry_run:
        out.mkdir(parents=True, exist_ok=True)
        for old in sorted(out.glob("t[0-9][0-9][0-9]-*.json")):
            old.unlink()
        for i, (slug, case) in enumerate(made, 1):
            stem = f"t{i:03d}-{slug}"
            (out / f"{stem}.json").write_text(json.dumps({"name": stem, **case}, indent=1) + "\n")
    print(json.dumps({"total": len(made)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
